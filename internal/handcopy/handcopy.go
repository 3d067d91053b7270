// Package handcopy finds hand copies of contract facts: a literal in
// runtime code whose value is that of a constant of a generated package,
// written next to a name that suggests the constant's concept. `limit :=
// 50` beside DefaultSearchLimit = 50, or `case "add":` in a switch on an
// op beside JSONPatchOperationTagAdd = "add", is a copy the spec no longer
// controls: changing the spec would leave it behind.
//
// The detector is deliberately a heuristic. It reads the constants from the
// generated sources themselves (every const with a literal value), so a
// new kind of generated constant is covered without a change here, and it
// asks for a shared word between the constant's name and the literal's
// surroundings, so that the many unrelated 0s, 1s and "name"s of a code
// base stay quiet. What it still finds wrongly belongs in an allow-list
// with a reason.
package handcopy

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math/big"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Constant is one constant of a generated package.
type Constant struct {
	Package string // Go package name, e.g. ide
	Name    string // Go name, e.g. DefaultSearchLimit
	// Int is set for an integer constant, Str for a string constant.
	Int *big.Int
	Str *string
	// Words are the concept words of the name: its words, less those that
	// spell the value itself (the value cannot vouch for itself).
	Words []string
	// Member is set for the wire name of an object's member
	// (RunFinishedEventMemberThreadID = "threadId"), which counts as
	// copied only where code uses a literal as a member name (see
	// memberUse).
	Member bool
}

// Qualified is the constant's package-qualified name.
func (c Constant) Qualified() string { return c.Package + "." + c.Name }

// Value is the constant's value as Go would spell it.
func (c Constant) Value() string {
	if c.Int != nil {
		return c.Int.String()
	}
	return strconv.Quote(*c.Str)
}

// Finding is one suspected hand copy.
type Finding struct {
	Path    string // repository-relative file
	Line    int
	Const   string // package-qualified constant name
	Literal string // the literal as written
	Words   []string
	Text    string // the source line, trimmed
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s repeats %s (shared words %s): %s", f.Path, f.Line, f.Literal, f.Const, strings.Join(f.Words, ", "), f.Text)
}

// Constants reads every constant with a literal value from the Go files
// (tests excluded) of the folders under dir, one package per folder.
func Constants(fsys fs.FS, dir string) ([]Constant, error) {
	var out []Constant
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i >= len(vs.Values) || !name.IsExported() {
						continue
					}
					c := Constant{Package: f.Name.Name, Name: name.Name}
					switch v := literalValue(vs.Values[i]).(type) {
					case *big.Int:
						c.Int = v
					case string:
						c.Str = &v
					default:
						continue
					}
					c.Words = conceptWords(c)
					c.Member = c.Str != nil && memberName(c)
					out = append(out, c)
				}
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Qualified() < out[j].Qualified() })
	return out, err
}

// literalValue is the value of an integer or string literal (possibly
// negated), or nil.
func literalValue(e ast.Expr) any {
	neg := false
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.SUB {
		neg, e = true, u.X
	}
	lit, ok := e.(*ast.BasicLit)
	if !ok {
		return nil
	}
	switch lit.Kind {
	case token.INT:
		n, ok := new(big.Int).SetString(lit.Value, 0)
		if !ok {
			return nil
		}
		if neg {
			n.Neg(n)
		}
		return n
	case token.STRING:
		if neg {
			return nil
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return nil
		}
		return s
	}
	return nil
}

func conceptWords(c Constant) []string {
	value := map[string]bool{}
	if c.Str != nil {
		for _, w := range Words(*c.Str) {
			value[w] = true
		}
	}
	var out []string
	for _, w := range Words(c.Name) {
		if !value[w] && !stop[w] {
			out = append(out, w)
		}
	}
	return out
}

// memberName reports whether a string constant names an object's member:
// Member stands between the type's words and the member's, and is not a
// word of the value (ScopeTagMember = "member" is a tag, not a member).
func memberName(c Constant) bool {
	words := Words(c.Name)
	for i, w := range words {
		if w == "member" && i > 0 && i < len(words)-1 {
			return !slices.Contains(Words(*c.Str), "member")
		}
	}
	return false
}

// memberUse reports whether a string literal is used as a member name: the
// key looked up in a parsed tree (v.Get("id")), the token of a JSON
// pointer (AppendPointer(p, "id")), or a value next to the word member.
// Member names are short words of the wire ("id", "path", "type") that
// code writes in many other meanings (flag names, log keys, diagnostic
// details), so elsewhere a shared word of the type's name says nothing.
func memberUse(lit, parent ast.Node, ctx []string) bool {
	if call, ok := parent.(*ast.CallExpr); ok {
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && slices.Contains(call.Args, lit.(ast.Expr)) {
			switch sel.Sel.Name {
			case "Get", "AppendPointer":
				return true
			}
		}
	}
	for _, w := range ctx {
		if w == "member" || w == "members" {
			return true
		}
	}
	return false
}

// stop words carry no concept of their own.
var stop = map[string]bool{"a": true, "an": true, "the": true, "of": true, "to": true, "per": true, "is": true, "x": true}

// Words splits identifiers and text into lower-case words: at case
// changes (HTTPServer → http, server), digits runs and anything that is
// not a letter or digit.
func Words(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	flush := func(i int) {
		if start >= 0 {
			out = append(out, strings.ToLower(string(rs[start:i])))
			start = -1
		}
	}
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush(i)
		case start < 0:
			start = i
		case unicode.IsDigit(r) != unicode.IsDigit(rs[i-1]):
			flush(i)
			start = i
		case unicode.IsUpper(r) && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])):
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return out
}

// synonyms are spellings code uses for the same concept word.
var synonyms = map[string]string{
	"ms": "millis", "msec": "millis", "millisecond": "millis", "milliseconds": "millis",
	"op": "operation", "ops": "operation", "typ": "type",
	"req": "request", "resp": "response", "params": "param", "param": "param",
	"max": "max", "maximum": "max", "min": "min", "minimum": "min",
	"len": "length", "cap": "capacity", "dir": "directory", "cfg": "config",
}

func norm(w string) string {
	if s, ok := synonyms[w]; ok {
		return s
	}
	return w
}

// related reports whether a word of the surroundings names the same
// concept as a word of a constant: the same word, or one a prefix of the
// other when both have four letters or more (millis, millisecond).
func related(a, b string) bool {
	a, b = norm(a), norm(b)
	if a == b {
		return true
	}
	if len(a) < 4 || len(b) < 4 {
		return false
	}
	return strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
}

// minFolded is the shortest string constant also matched in another case:
// shorter ones ("id", "name") are too common in other meanings.
const minFolded = 8

// minEmbedded is the smallest integer searched for inside string
// literals: smaller ones are too common in prose ("1 to 500" is found by
// its 500, not by its 1).
const minEmbedded = 10

// Scan reports, in the Go files (tests excluded) of fsys for which include
// returns true, every literal that repeats one of consts next to a word of
// its concept.
func Scan(fsys fs.FS, include func(path string) bool, consts []Constant) ([]Finding, error) {
	byInt := map[string][]Constant{}
	byStr := map[string][]Constant{}
	for _, c := range consts {
		if c.Int != nil {
			byInt[c.Int.String()] = append(byInt[c.Int.String()], c)
			continue
		}
		byStr[*c.Str] = append(byStr[*c.Str], c)
		// Names compared without regard to case (a header name such as
		// Content-Length) are copies in any case.
		if fold := strings.ToLower(*c.Str); len(fold) >= minFolded && fold != *c.Str {
			byStr[fold] = append(byStr[fold], c)
		}
	}
	var out []Finding
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" || !include(p+"/")) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || !include(p) {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		fs, err := scanFile(p, src, byInt, byStr)
		out = append(out, fs...)
		return err
	})
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Const < out[j].Const
	})
	return out, err
}

func scanFile(p string, src []byte, byInt, byStr map[string][]Constant) ([]Finding, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(src), "\n")
	var out []Finding
	var stack []ast.Node
	visit := func(n ast.Node) bool {
		var parent ast.Node
		if len(stack) >= 2 {
			parent = stack[len(stack)-2]
		}
		if ignored(n, parent) {
			return false
		}
		report := func(c Constant, at ast.Node, literal string, extra []string) {
			pos := fset.Position(at.Pos())
			line := lines[pos.Line-1]
			ctx := contextWords(stack, line, fset.Position(at.Pos()).Column-1, fset.Position(at.End()).Column-1)
			if c.Member && !memberUse(at, parent, ctx) {
				return
			}
			words := shared(c.Words, append(ctx, extra...))
			strong := false
			for _, w := range words {
				strong = strong || !weak[norm(w)]
			}
			if !strong {
				return
			}
			out = append(out, Finding{Path: path.Clean(p), Line: pos.Line, Const: c.Qualified(), Literal: literal, Words: words, Text: strings.TrimSpace(line)})
		}
		switch x := n.(type) {
		case *ast.BinaryExpr, *ast.UnaryExpr, *ast.ParenExpr:
			// A constant expression of literals only (64 << 10) is compared
			// by its value, not by its parts.
			v, ok := fold(x.(ast.Expr))
			if !ok {
				return true
			}
			for _, c := range byInt[v.String()] {
				report(c, x, string(src[fset.Position(x.Pos()).Offset:fset.Position(x.End()).Offset]), nil)
			}
			return false
		case *ast.BasicLit:
			switch x.Kind {
			case token.INT:
				v, ok := fold(x)
				if !ok {
					return true
				}
				for _, c := range byInt[v.String()] {
					report(c, x, x.Value, nil)
				}
			case token.STRING:
				s, err := strconv.Unquote(x.Value)
				if err != nil {
					return true
				}
				seen := map[string]bool{}
				for _, key := range []string{s, strings.ToLower(s)} {
					for _, c := range byStr[key] {
						if !seen[c.Qualified()] && (*c.Str == s || len(*c.Str) >= minFolded && strings.EqualFold(*c.Str, s)) {
							seen[c.Qualified()] = true
							report(c, x, x.Value, nil)
						}
					}
				}
				// A number inside a message ("limit must be 1 to 500").
				inner := Words(s)
				for _, w := range inner {
					if len(w) < 2 || w[0] < '0' || w[0] > '9' {
						continue
					}
					n, ok := new(big.Int).SetString(w, 10)
					if !ok || n.CmpAbs(big.NewInt(minEmbedded)) < 0 {
						continue
					}
					for _, c := range byInt[n.String()] {
						report(c, x, x.Value, inner)
					}
				}
			}
		}
		return true
	}
	// Inspect calls back with nil after a node's children only when the
	// node's visit returned true, so a node whose children are skipped is
	// popped here; left on the stack it would lend its words to the
	// literals that follow it.
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		if visit(n) {
			return true
		}
		stack = stack[:len(stack)-1]
		return false
	})
	return out, nil
}

// weak words name a unit or a kind of bound, not a concept: sharing only
// these says nothing (internMaxLen = 32 is not MaxStderrDiagnostics).
var weak = map[string]bool{"max": true, "min": true, "default": true, "millis": true, "bytes": true, "code": true, "version": true, "count": true, "size": true, "length": true}

// ignored reports literals whose value is not a quantity of their own:
// array lengths, indexes and slice bounds, the size arguments of make,
// and offsets added to or subtracted from something (n-1, limit+1).
func ignored(n, parent ast.Node) bool {
	e, ok := n.(ast.Expr)
	if !ok || parent == nil {
		return false
	}
	if _, ok := fold(e); !ok {
		return false
	}
	switch p := parent.(type) {
	case *ast.ArrayType:
		return p.Len == e
	case *ast.IndexExpr:
		return p.Index == e
	case *ast.SliceExpr:
		return p.Low == e || p.High == e || p.Max == e
	case *ast.CallExpr:
		if id, ok := p.Fun.(*ast.Ident); ok && id.Name == "make" {
			return true
		}
	case *ast.BinaryExpr:
		switch p.Op {
		case token.ADD, token.SUB, token.SHL, token.SHR, token.AND, token.OR, token.REM, token.QUO:
			_, xOK := fold(p.X)
			_, yOK := fold(p.Y)
			return !(xOK && yOK)
		}
	}
	return false
}

// fold evaluates an integer expression made of literals only.
func fold(e ast.Expr) (*big.Int, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.INT {
			return nil, false
		}
		return new(big.Int).SetString(x.Value, 0)
	case *ast.ParenExpr:
		return fold(x.X)
	case *ast.UnaryExpr:
		v, ok := fold(x.X)
		if !ok || x.Op != token.SUB {
			return nil, false
		}
		return v.Neg(v), true
	case *ast.BinaryExpr:
		a, ok := fold(x.X)
		if !ok {
			return nil, false
		}
		b, ok := fold(x.Y)
		if !ok {
			return nil, false
		}
		switch x.Op {
		case token.ADD:
			return a.Add(a, b), true
		case token.SUB:
			return a.Sub(a, b), true
		case token.MUL:
			return a.Mul(a, b), true
		case token.SHL:
			if b.Sign() < 0 || b.BitLen() > 8 {
				return nil, false
			}
			return a.Lsh(a, uint(b.Uint64())), true
		}
	}
	return nil, false
}

// contextWords are the words around a literal that spans the columns
// [from, to) of its line: the rest of the line (identifiers and comment),
// and, for a literal in a case clause, the expression the switch is on.
func contextWords(stack []ast.Node, line string, from, to int) []string {
	rest := line
	if from >= 0 && from <= to && to <= len(line) {
		rest = line[:from] + " " + line[to:]
	}
	words := Words(rest)
	for i := len(stack) - 1; i >= 1; i-- {
		if _, ok := stack[i].(*ast.CaseClause); !ok {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if sw, ok := stack[j].(*ast.SwitchStmt); ok && sw.Tag != nil {
				words = append(words, Words(exprText(sw.Tag))...)
				break
			}
		}
		break
	}
	return words
}

// exprText spells an expression's identifiers, enough to find its words.
func exprText(e ast.Expr) string {
	var b strings.Builder
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			b.WriteString(id.Name)
			b.WriteByte(' ')
		}
		return true
	})
	return b.String()
}

// shared returns the concept words that some context word relates to.
func shared(concept, ctx []string) []string {
	var out []string
	for _, c := range concept {
		for _, w := range ctx {
			if related(c, w) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}
