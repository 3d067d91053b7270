// Package trace finds which tests prove which contract entries. A test
// names the entries it proves with a directive in a _test.go file:
//
//	//contract:proves ai-control-protocol.wire.line-limit ai-control-protocol.error.invalid-request
//
// placed in or directly above the test function. The generated reference
// lists, per entry, the tests found this way.
package trace

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Directive is the comment prefix that names proven entries.
const Directive = "//contract:proves"

// Test is one test function that proves an entry.
type Test struct {
	Path     string // repository-relative file
	Func     string // function name
	Line     int    // line of the directive
	FuncLine int    // line of the function's declaration
}

// Problem is a malformed or dangling directive.
type Problem struct {
	Path string
	Line int
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Msg) }

// skipDirs are never searched: generated output, dependencies, data.
var skipDirs = map[string]bool{".git": true, "generated": true, "node_modules": true, "testdata": true, "vendor": true}

// Scan reads every _test.go file of the repository and returns, per entry
// id, the tests that name it, sorted by path and function. Directives
// outside a function, and ids that known does not accept, are problems.
func Scan(fsys fs.FS, known func(id string) bool) (map[string][]Test, []Problem, error) {
	out := map[string][]Test{}
	var problems []Problem
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if !strings.Contains(string(src), Directive) {
			return nil
		}
		ps, err := scanFile(p, src, known, out)
		problems = append(problems, ps...)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	for id := range out {
		sort.Slice(out[id], func(i, j int) bool {
			a, b := out[id][i], out[id][j]
			if a.Path != b.Path {
				return a.Path < b.Path
			}
			return a.Func < b.Func
		})
	}
	SortProblems(problems)
	return out, problems, nil
}

// SortProblems orders problems by file and line.
func SortProblems(problems []Problem) {
	sort.SliceStable(problems, func(i, j int) bool {
		if problems[i].Path != problems[j].Path {
			return problems[i].Path < problems[j].Path
		}
		return problems[i].Line < problems[j].Line
	})
}

// Unknown reports the directives of tests (found by Scan without a known
// function) that name ids known does not accept, so that the repository
// can be scanned before the specs that declare the ids are loaded.
func Unknown(tests map[string][]Test, known func(id string) bool) []Problem {
	var out []Problem
	for id, ts := range tests {
		if known(id) {
			continue
		}
		for _, t := range ts {
			out = append(out, Problem{t.Path, t.Line, fmt.Sprintf("contract:proves names %q, which no spec declares", id)})
		}
	}
	SortProblems(out)
	return out
}

func scanFile(p string, src []byte, known func(string) bool, out map[string][]Test) ([]Problem, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return []Problem{{Path: p, Msg: "cannot parse: " + err.Error()}}, nil
	}
	var problems []Problem
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			rest, ok := strings.CutPrefix(c.Text, Directive)
			if !ok {
				continue
			}
			line := fset.Position(c.Pos()).Line
			fn, fnPos := enclosingFunc(f, cg)
			if fn == "" {
				problems = append(problems, Problem{p, line, "contract:proves is outside a function: put it in or directly above the test"})
				continue
			}
			ids := strings.Fields(rest)
			if len(ids) == 0 {
				problems = append(problems, Problem{p, line, "contract:proves names no entry id"})
			}
			for _, id := range ids {
				if known != nil && !known(id) {
					problems = append(problems, Problem{p, line, fmt.Sprintf("contract:proves names %q, which no spec declares", id)})
					continue
				}
				out[id] = appendUnique(out[id], Test{Path: path.Clean(p), Func: fn, Line: line, FuncLine: fset.Position(fnPos).Line})
			}
		}
	}
	return problems, nil
}

func appendUnique(ts []Test, t Test) []Test {
	for _, x := range ts {
		if x.Path == t.Path && x.Func == t.Func {
			return ts
		}
	}
	return append(ts, t)
}

// enclosingFunc names the function whose body or doc comment holds cg,
// and where its declaration starts.
func enclosingFunc(f *ast.File, cg *ast.CommentGroup) (string, token.Pos) {
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if fd.Doc == cg || (cg.Pos() >= fd.Pos() && cg.End() <= fd.End()) {
			return fd.Name.Name, fd.Type.Func
		}
	}
	return "", token.NoPos
}
