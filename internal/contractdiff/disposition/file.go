// Package disposition reads contract-change-dispositions.json, the file in
// which a breaking contract change is accepted on purpose, and judges the
// findings of a comparison against it: which breaking changes have a
// disposition, which still need one, and which entries are stale, expired
// or malformed.
package disposition

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/jsondoc"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Repository-relative locations of the file and its schema.
const (
	FileName   = "contract-change-dispositions.json"
	SchemaPath = "spec/dispositions.schema.json"
	schemaURL  = "https://github.com/contractkit/contractkit/spec/dispositions.schema.json"
)

// MaxFileBytes bounds the size of a dispositions file: even a thousand
// entries fit in a fraction of it.
const MaxFileBytes = 1 << 20

// maxDepth bounds nesting; the format needs three levels.
const maxDepth = 16

// DateLayout is the layout of Entry.Expires.
const DateLayout = "2006-01-02"

// Placeholder starts every text the printed template leaves to fill in.
// An entry that still holds one is an error: pasting a template is not
// a decision.
const Placeholder = "TODO"

// Entry accepts one breaking change.
type Entry struct {
	Domain    string `json:"domain"`
	ChangeID  string `json:"changeId"`
	Rule      string `json:"rule"`
	Target    string `json:"target"`
	Reason    string `json:"reason"`
	Migration string `json:"migration"`
	Owner     string `json:"owner"`
	Issue     string `json:"issue"`
	Expires   string `json:"expires"`

	// Pointer and Line locate the entry in its file.
	Pointer string `json:"-"`
	Line    int    `json:"-"`
	// Unfinished is set when a text still holds the template's
	// placeholder: the entry names its change but does not accept it.
	Unfinished bool `json:"-"`
}

// File is a parsed dispositions file.
type File struct {
	Path    string
	Entries []*Entry
	// Problems are what is wrong with entries that can still be read
	// (placeholders not replaced): the run reports them and is blocked,
	// but the report is still written.
	Problems []Problem
}

// Problem is something wrong with, or about, an entry of the file.
type Problem = jsondoc.FileProblem

// ParseError is a dispositions file that cannot be used: every problem found.
type ParseError struct{ Problems []Problem }

func (e *ParseError) Error() string { return jsondoc.JoinProblems(e.Problems) }

// Schema is the compiled JSON Schema of the file, with the members every
// entry must have as it lists them (for the message naming them all).
type Schema struct {
	s     *jsonschema.Schema
	entry []string
}

// CompileSchema compiles the schema from the bytes of SchemaPath.
func CompileSchema(data []byte) (*Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(schemaURL, bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("%s: %w", SchemaPath, err)
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SchemaPath, err)
	}
	return &Schema{s: s, entry: entryRequired(s)}, nil
}

// entryRequired is the required list of one entry of /dispositions, or nil
// when the schema (a repository's own override) is not shaped that way.
func entryRequired(s *jsonschema.Schema) []string {
	list := s.Properties["dispositions"]
	if list == nil {
		return nil
	}
	item := list.Items2020
	for item != nil && len(item.Required) == 0 {
		item = item.Ref
	}
	if item == nil {
		return nil
	}
	return item.Required
}

// Parse reads a dispositions file: strict JSON, then the schema, then the
// checks a schema cannot make (a known rule, a real date, no placeholder,
// no change id twice). path names the file in problems. Any problem makes
// the whole file unusable, so every problem is returned at once.
func Parse(path string, data []byte, schema *Schema) (*File, error) {
	fail := func(ps ...Problem) (*File, error) { return nil, &ParseError{ps} }
	if len(data) > MaxFileBytes {
		return fail(Problem{File: path, Msg: fmt.Sprintf("the file is %d bytes; the limit is %d", len(data), MaxFileBytes)})
	}
	parsed, problems := jsondoc.Check(data, strictjson.Options{MaxDepth: maxDepth}, schema.s)
	if len(problems) > 0 && problems[0].Stage == jsondoc.Syntax {
		p := problems[0]
		if p.Offset < 0 {
			return fail(Problem{File: path, Msg: "invalid JSON: " + p.Msg})
		}
		return fail(Problem{File: path, Pointer: p.Pointer, Line: jsondoc.LineAt(data, p.Offset), Msg: "invalid JSON: " + p.Msg})
	}
	at := parsed.Line
	if len(problems) > 0 && problems[0].Stage == jsondoc.Number {
		ps := make([]Problem, len(problems))
		for i, n := range problems {
			ps[i] = Problem{File: path, Pointer: n.Pointer, Line: at(n.Pointer), Msg: n.Msg}
		}
		return fail(ps...)
	}
	if len(problems) > 0 && problems[0].Leaf == nil {
		return fail(Problem{File: path, Msg: problems[0].Msg})
	}
	if len(problems) > 0 {
		var ps []Problem
		seen := map[string]bool{}
		for _, leaf := range problems {
			for _, p := range schemaProblems(leaf.Leaf, schema.entry) {
				if seen[p.ptr+"\x00"+p.msg] {
					continue
				}
				seen[p.ptr+"\x00"+p.msg] = true
				ps = append(ps, Problem{File: path, Pointer: p.ptr, Line: at(p.ptr), Msg: p.msg})
			}
		}
		sortProblems(ps)
		return fail(ps...)
	}
	var doc struct {
		Dispositions []*Entry `json:"dispositions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return fail(Problem{File: path, Msg: "decode: " + err.Error()})
	}
	f := &File{Path: path, Entries: doc.Dispositions}
	var ps, unfinished []Problem
	ids := map[string]string{}
	for i, e := range f.Entries {
		e.Pointer = fmt.Sprintf("/dispositions/%d", i)
		e.Line = at(e.Pointer)
		problem := func(member, format string, args ...any) {
			ptr := e.Pointer + "/" + member
			ps = append(ps, Problem{File: path, Pointer: ptr, Line: at(ptr), Msg: fmt.Sprintf(format, args...)})
		}
		if contractdiff.LookupRule(e.Rule) == nil {
			problem("rule", "unknown rule %q: see Docs/en/reference/contract-diff/rules.md", e.Rule)
		}
		if _, err := time.Parse(DateLayout, e.Expires); err != nil {
			problem("expires", "%q is not a date (YYYY-MM-DD)", e.Expires)
		}
		for _, m := range []struct{ name, value string }{
			{"reason", e.Reason}, {"migration", e.Migration}, {"owner", e.Owner}, {"issue", e.Issue},
		} {
			if strings.HasPrefix(strings.TrimSpace(m.value), Placeholder) {
				ptr := e.Pointer + "/" + m.name
				unfinished = append(unfinished, Problem{File: path, Pointer: ptr, Line: at(ptr),
					Msg: fmt.Sprintf("%s still holds the template's placeholder: replace it with the real %s", m.name, m.name)})
				e.Unfinished = true
			}
		}
		if o, dup := ids[e.ChangeID]; dup {
			problem("changeId", "change id %s is also used by %s", e.ChangeID, o)
		}
		ids[e.ChangeID] = e.Pointer
	}
	if len(ps) > 0 {
		sortProblems(ps)
		return fail(ps...)
	}
	sortProblems(unfinished)
	f.Problems = unfinished
	return f, nil
}

type located struct{ ptr, msg string }

// schemaProblems words a schema violation for a person editing the file,
// naming an unknown member at its own pointer; entry is every member an
// entry must have.
func schemaProblems(leaf *jsonschema.ValidationError, entry []string) []located {
	loc, msg := leaf.InstanceLocation, leaf.Message
	if names, ok := jsondoc.UnknownMembers(msg); ok {
		var out []located
		for _, n := range names {
			out = append(out, located{strictjson.AppendPointer(loc, n), fmt.Sprintf("unknown member %q", n)})
		}
		return out
	}
	if names, ok := strings.CutPrefix(msg, "missing properties: "); ok {
		msg = "missing " + strings.ReplaceAll(names, "'", "")
		if loc != "" && len(entry) > 0 {
			msg += ": every entry needs " + andList(entry)
		}
	}
	return []located{{loc, msg}}
}

func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Line != ps[j].Line {
			return ps[i].Line < ps[j].Line
		}
		if ps[i].Pointer != ps[j].Pointer {
			return ps[i].Pointer < ps[j].Pointer
		}
		return ps[i].Msg < ps[j].Msg
	})
}

// andList joins names as a sentence does: "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
