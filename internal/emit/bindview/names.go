// Package bindview is what the TypeScript and Python emitters share: the
// words of a wire name, from which each language builds its own
// identifiers, a collision check over the names an emitter declares, and
// the examples of a spec judged against the static types of a language,
// so that each example file knows which spec examples its type checker
// must accept and which it must reject.
//
// It reads the one typed model of internal/spec, as goemit does; nothing
// in it is specific to Go.
package bindview

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/contractkit/contractkit/internal/spec"
)

// Words splits a wire name into its words, as spec.Words does for the Go
// names, so that every language's names of one wire name agree.
func Words(s string) []string { return spec.Words(s) }

func capital(w string) string {
	rs := []rune(strings.ToLower(w))
	rs[0] = unicode.ToUpper(rs[0])
	return string(rs)
}

// Pascal joins the words of s with a capital each: metadata/tree →
// MetadataTree, RUN_STARTED → RunStarted.
func Pascal(s string) string {
	var b strings.Builder
	for _, w := range Words(s) {
		b.WriteString(capital(w))
	}
	return ident(b.String())
}

// Camel is Pascal with a lower-case first word: metadata/tree →
// metadataTree, $/cancelRequest → cancelRequest.
func Camel(s string) string {
	var b strings.Builder
	for i, w := range Words(s) {
		if i == 0 {
			b.WriteString(strings.ToLower(w))
			continue
		}
		b.WriteString(capital(w))
	}
	return ident(b.String())
}

// UpperSnake joins the words in capitals with underscores: LimitLineBytes
// → LIMIT_LINE_BYTES.
func UpperSnake(s string) string {
	ws := Words(s)
	for i, w := range ws {
		ws[i] = strings.ToUpper(w)
	}
	return ident(strings.Join(ws, "_"))
}

// Snake joins the words in lower case with underscores.
func Snake(s string) string {
	ws := Words(s)
	for i, w := range ws {
		ws[i] = strings.ToLower(w)
	}
	return ident(strings.Join(ws, "_"))
}

// ident makes a name usable as an identifier: never empty, never starting
// with a digit.
func ident(s string) string {
	if s == "" {
		return "X"
	}
	if unicode.IsDigit([]rune(s)[0]) {
		return "N" + s
	}
	return s
}

// Names collects the identifiers one scope of a generated module declares
// (the module's top level, or the keys of one const object) and what
// declares each, so that two spec entries that map to one identifier stop
// generation instead of producing a module that does not compile.
type Names struct {
	scope string
	by    map[string][]string
}

// NewNames starts the names of a scope; scope names it in errors.
func NewNames(scope string) *Names { return &Names{scope: scope, by: map[string][]string{}} }

// Add records that what declares name.
func (n *Names) Add(name, what string) { n.by[name] = append(n.by[name], what) }

// Err reports every name declared more than once, sorted, or nil.
func (n *Names) Err() error {
	var dups []string
	for name, whats := range n.by {
		if len(whats) > 1 {
			dups = append(dups, fmt.Sprintf("%s: %s is declared by %s", n.scope, name, strings.Join(whats, " and ")))
		}
	}
	if len(dups) == 0 {
		return nil
	}
	sort.Strings(dups)
	return fmt.Errorf("%s", strings.Join(dups, "\n"))
}

// Paragraphs wraps each non-blank paragraph to width by Wrap, with an
// empty line between paragraphs: the body of a doc comment in any binding.
func Paragraphs(paragraphs []string, width int) []string {
	var lines []string
	for _, par := range paragraphs {
		par = strings.TrimSpace(par)
		if par == "" {
			continue
		}
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, Wrap(par, width)...)
	}
	return lines
}

// Wrap breaks text into lines of at most about width columns, at spaces;
// a word longer than width stands on a line of its own.
func Wrap(text string, width int) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(text) {
		if cur != "" && len(cur)+1+len(w) > width {
			lines = append(lines, cur)
			cur = w
			continue
		}
		if cur == "" {
			cur = w
		} else {
			cur += " " + w
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// VariantName is the type of a union's variant in every binding language:
// the union's name and the tag's words (EventRunStarted,
// JSONPatchOperationAdd), so that the TypeScript interface and the Python
// TypedDict of one variant have one name.
func VariantName(u *spec.Type, v *spec.Variant) string { return u.Name + Pascal(v.Tag) }

// UnknownName is the catch-all variant of an open union.
func UnknownName(u *spec.Type) string { return u.Name + "Unknown" }
