package handcopy

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/repotest"
)

// runtimes are the folders of runtime code built on each generated
// package. A literal there that repeats one of the package's constants is
// a hand copy; the constants of another domain are not searched there (an
// AG-UI limit of 20 says nothing about a 20 in the bridge).
var runtimes = map[string][]string{
	"aicontrol": {"bridge/", "cmd/aictl/", "cmd/aicontrol-sample/", "cmd/aicontrol-mcp/"},
	"ide":       {"ide/", "designer/", "cmd/eska/", "internal/selfupdate/"},
	"agui":      {"agui/", "cmd/agui/"},
}

// notRuntime are folders that import a generated package without being a
// runtime of it, and why.
var notRuntime = map[string]string{
	"generated/":           "the generated packages themselves",
	"bench/":               "benchmark tools: they drive a runtime as a client would, and are not shipped",
	"agui/page/pagebuild/": "the page's build tool: it compiles the checker and is not shipped",
}

// Reasons of allowed findings.
const (
	// secondPass: the property-editing files of ide/metadata (edit*.go),
	// which other work was changing during the second pass of issue 19.
	// They are to be made to use the generated constants, and their
	// entries removed.
	secondPass = "issue 19: the editing files of ide/metadata, left while other work changed them"
	cliFlag    = "the name of eska property's -redo flag, the command line's own vocabulary"
	diagDetail = "the key of a designer diagnostic's detail (the unknown element's tag name), not a label's tag"
	toolExit   = "a build tool's failure exit status, not the IDE server's exit code"
	smokeNames = "names of the protocol smoke's checks (its report's own vocabulary), three of which are named after the methods they check"
)

// allowed lists the findings that stay, each with the number of times it
// is found and why. The list is exact: a finding that is not listed, or a
// count that differs, fails the test, so the list can only be emptied
// deliberately.
var allowed = []struct {
	Path, Const, Literal string
	Count                int
	Reason               string
}{
	{"bridge/smoke.go", "aicontrol.MethodObserve", "\"observe\"", 1, smokeNames},
	{"bridge/smoke.go", "aicontrol.MethodPing", "\"ping\"", 1, smokeNames},
	{"bridge/smoke.go", "aicontrol.MethodStatus", "\"status\"", 1, smokeNames},
	{"cmd/eska/property.go", "ide.UndoDirectionRedo", "\"redo\"", 1, cliFlag},
	{"ide/eskarelease/main.go", "ide.ExitCodeAbandoned", "1", 1, toolExit},
	{"designer/kinds.go", "ide.SourceRoleTagModule", "\"module\"", 1, "a module role of the designer's module file table, not the module variant of SourceRole"},
	{"designer/scan.go", "ide.PathEncodingUTF8", "\"utf-8\"", 1, "the encoding name of an XML declaration, not the IDE API's path encoding"},
	{"ide/metadata/edit_profile.go", "ide.EditSchemaTagReference", "\"reference\"", 1, secondPass},
	{"ide/metadata/edit_profile.go", "ide.EditSchemaTagUnsignedInteger", "\"unsignedInteger\"", 2, secondPass},
	{"ide/metadata/edit_values.go", "ide.EditSchemaTagUnsignedInteger", "\"unsignedInteger\"", 5, secondPass},
	{"ide/metadata/edit.go", "ide.ValueDomainChoiceParameter", "\"choiceParameter\"", 1, secondPass},
	{"ide/metadata/edit.go", "ide.EditSchemaTagValue", "\"value\"", 1, secondPass},
	{"ide/metadata/edithistory/edithistory.go", "ide.MaxSupportFileBytes", "16 << 20", 1, "the bound of eska's own undo history file, not a contract limit; equal to the support file's limit only by chance"},
	{"ide/metadata/edit_profile.go", "ide.EditSchemaTagValue", "\"value\"", 2, secondPass},
	{"ide/metadata/edit_profile.go", "ide.EditSchemaTagBoolean", "\"boolean\"", 1, secondPass},
	{"ide/metadata/edit_profile.go", "ide.EditSchemaTagEnum", "\"enum\"", 1, secondPass},
	{"ide/metadata/edit_profile.go", "ide.EditSchemaTagInteger", "\"integer\"", 1, secondPass},
	{"ide/metadata/edit_values.go", "ide.EditSchemaTagBoolean", "\"boolean\"", 3, secondPass},
	{"ide/metadata/edit_values.go", "ide.EditSchemaTagEnum", "\"enum\"", 3, secondPass},
	{"ide/metadata/edit_values.go", "ide.EditSchemaTagInteger", "\"integer\"", 3, secondPass},
	{"ide/metadata/edit_values.go", "ide.EditSchemaTagReference", "\"reference\"", 3, secondPass},
	{"ide/metadata/edit_values.go", "ide.EditSchemaTagValue", "\"value\"", 4, secondPass},
	{"ide/metadata/edit_values.go", "ide.ValueDomainChoiceParameter", "\"choiceParameter\"", 3, secondPass},
	{"ide/metadata/edit_values.go", "ide.EditSchemaTagText", "\"text\"", 1, secondPass},
	{"ide/metadata/edit_values.go", "ide.TextDomainChoiceParameterName", "\"choiceParameterName\"", 1, secondPass},
	{"ide/metadata/edit_values.go", "ide.PropertyValueTagText", "\"text\"", 1, secondPass},
	{"ide/metadata/project.go", "ide.LabelTagName", "\"name\"", 1, diagDetail},
}

// TestNoHandCopies fails on a literal in runtime code that repeats a
// constant of the generated package the runtime is built on.
func TestNoHandCopies(t *testing.T) {
	root := repotest.Root(t)
	fsys := os.DirFS(root)
	consts, err := Constants(fsys, "generated")
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ Path, Const, Literal string }
	found := map[key][]Finding{}
	for pkg, roots := range runtimes {
		var cs []Constant
		for _, c := range consts {
			if c.Package == pkg {
				cs = append(cs, c)
			}
		}
		if len(cs) < 50 {
			t.Fatalf("generated/%s declares %d constants; the detector reads fewer than it should", pkg, len(cs))
		}
		findings, err := Scan(fsys, under(roots), cs)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range findings {
			k := key{f.Path, f.Const, f.Literal}
			found[k] = append(found[k], f)
		}
	}
	listed := map[key]bool{}
	for _, a := range allowed {
		k := key{a.Path, a.Const, a.Literal}
		listed[k] = true
		if strings.TrimSpace(a.Reason) == "" {
			t.Errorf("allowed %s %s %s has no reason", a.Path, a.Const, a.Literal)
		}
		switch got := len(found[k]); {
		case got == 0:
			t.Errorf("allowed %s: %s as %s is no longer found: remove the entry", a.Path, a.Const, a.Literal)
		case got != a.Count:
			t.Errorf("allowed %s: %s as %s is found %d times, the list says %d:\n%s", a.Path, a.Const, a.Literal, got, a.Count, lines(found[k]))
		}
	}
	var keys []key
	for k := range found {
		if !listed[k] {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		return a.Path+"\x00"+a.Const+"\x00"+a.Literal < b.Path+"\x00"+b.Const+"\x00"+b.Literal
	})
	for _, k := range keys {
		t.Errorf("hand copy: use the generated constant instead (or allow it here with a reason):\n%s", lines(found[k]))
	}
}

func lines(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\t" + f.String() + "\n")
	}
	return b.String()
}

func under(roots []string) func(string) bool {
	return func(p string) bool {
		for _, r := range roots {
			if strings.HasPrefix(p, r) || strings.HasPrefix(r, p) {
				return true
			}
		}
		return false
	}
}

// Every package that imports a generated package is a runtime the test
// searches, or is listed as not one with a reason: a new runtime cannot
// escape the search by living in a new folder.
func TestRuntimesCovered(t *testing.T) {
	root := repotest.Root(t)
	fsys := os.DirFS(root)
	const prefix = "github.com/contractkit/contractkit/generated/"
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ImportsOnly)
		if err != nil {
			return nil // a file that does not parse is the compiler's to report
		}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			pkg, ok := strings.CutPrefix(ip, prefix)
			if !ok {
				continue
			}
			if !under(runtimes[pkg])(p) && !listedNotRuntime(p) {
				t.Errorf("%s imports generated/%s but is not under its runtimes %v: add its folder, or say in notRuntime why it is not one", p, pkg, runtimes[pkg])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func listedNotRuntime(p string) bool {
	for dir := range notRuntime {
		if strings.HasPrefix(p, dir) {
			return true
		}
	}
	return path.Dir(p) == "."
}
