package layering

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/repotest"
)

const module = "github.com/contractkit/contractkit/"

// rank is the layer of each top-level folder of the module. A package may
// import its own folder's packages and those of a lower layer, never a
// higher one nor another folder of its own layer: so the folders cannot
// form a cycle, and a library under internal/ never depends on a runtime.
// DESIGN.md names bridge, ide and agui the runtimes; designer is the IDE
// runtime's reading of 1C Designer files, which ide imports.
var rank = map[string]int{
	"runtime":   0, // the public runtime that generated code imports
	"spec":      0, // the embedded specs (data)
	"templates": 0, // the embedded page templates (data)
	"generated": 1,
	"internal":  2, // libraries: the toolchain and what the runtimes share
	"designer":  3,
	"bridge":    4,
	"ide":       4,
	"agui":      4,
	"cmd":       5,
	"bench":     5,
	"scripts":   5, // the tools the make targets' scripts build (testsummary)
}

// allowed are imports that break the rule today, each with its reason. An
// entry that no file needs any more fails the test, so the list only
// shrinks.
var allowed = map[string]string{
	"internal/cleanbuild -> bridge": "the clean-build test decodes the smoke report of the built aictl into bridge.SmokeReport (a test file)",
}

// goFiles lists the Go files below dir that belong to this module: hidden
// folders, testdata, node_modules and modules of their own (bench/jsonrpc)
// are skipped.
func goFiles(fsys fs.FS, dir string) ([]string, error) {
	var out []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == dir {
				return nil
			}
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" {
				return fs.SkipDir
			}
			if _, err := fs.Stat(fsys, path.Join(p, "go.mod")); err == nil {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// importsOf reads the import paths of one Go file. A file that does not
// parse fails the walk: the layers of its imports cannot be known.
func importsOf(fsys fs.FS, p string) ([]string, error) {
	src, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(f.Imports))
	for _, imp := range f.Imports {
		ip, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: import %s: %v", p, imp.Path.Value, err)
		}
		out = append(out, ip)
	}
	return out, nil
}

// permitted says whether a package in the top-level folder from may
// import one in the folder to.
func permitted(from, to string) bool {
	return to == from || rank[to] < rank[from]
}

// An import is "folder/of/the/importer -> top-level folder it imports".
func TestImportsRunDownward(t *testing.T) {
	root := repotest.Root(t)
	fsys := os.DirFS(root)
	used := map[string]bool{}
	files := 0
	paths, err := goFiles(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		dir := path.Dir(p)
		from, _, _ := strings.Cut(dir, "/")
		fromRank, ok := rank[from]
		if !ok {
			t.Errorf("%s: the folder %s/ has no layer: add it to rank", p, from)
			continue
		}
		imports, err := importsOf(fsys, p)
		if err != nil {
			t.Fatal(err)
		}
		files++
		for _, ip := range imports {
			rel, ok := strings.CutPrefix(ip, module)
			if !ok {
				continue
			}
			to, _, _ := strings.Cut(rel, "/")
			toRank, ok := rank[to]
			if !ok {
				t.Errorf("%s imports %s: the folder %s/ has no layer: add it to rank", p, ip, to)
				continue
			}
			if permitted(from, to) {
				continue
			}
			key := dir + " -> " + to
			if _, ok := allowed[key]; ok {
				used[key] = true
				continue
			}
			t.Errorf("%s imports %s: %s/ (layer %d) may not import %s/ (layer %d)", p, ip, from, fromRank, to, toRank)
		}
	}
	if files < 100 {
		t.Fatalf("read %d Go files: the walk did not see the module", files)
	}
	for key, why := range allowed {
		if !used[key] {
			t.Errorf("allowed import %q (%s) is no longer needed: remove it from allowed", key, why)
		}
	}
}

// The rule itself catches what it is meant to: an import upward, one
// across a layer, and an unknown folder, and lets the rest through.
func TestRankRule(t *testing.T) {
	cases := []struct {
		from, to string
		ok       bool
	}{
		{"internal", "runtime", true},
		{"internal", "generated", true},
		{"ide", "designer", true},
		{"cmd", "ide", true},
		{"generated", "generated", true},
		{"internal", "bridge", false},
		{"internal", "designer", false},
		{"runtime", "generated", false},
		{"bridge", "ide", false},
		{"agui", "cmd", false},
	}
	for _, c := range cases {
		if got := permitted(c.from, c.to); got != c.ok {
			t.Errorf("%s -> %s allowed = %v, want %v", c.from, c.to, got, c.ok)
		}
	}
}

// partsOf are packages split into parts: the packages below the folder
// are parts of the one in it. The package imports its parts; a part never
// imports the package, nor any other package of its top-level folder
// outside the parts (which could import the package): so the parts stay
// libraries of the package, usable and testable without it. Parts may
// import one another and anything of a lower layer.
var partsOf = []string{"ide/metadata"}

// partImportPermitted says whether a part below parent may import the
// package at to (a path relative to the module).
func partImportPermitted(parent, to string) bool {
	top, _, _ := strings.Cut(parent, "/")
	if to == parent {
		return false
	}
	if strings.HasPrefix(to, parent+"/") {
		return true
	}
	return to != top && !strings.HasPrefix(to, top+"/")
}

func TestPartsImportDownward(t *testing.T) {
	root := repotest.Root(t)
	fsys := os.DirFS(root)
	for _, parent := range partsOf {
		files := 0
		paths, err := goFiles(fsys, parent)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			if path.Dir(p) == parent {
				continue
			}
			imports, err := importsOf(fsys, p)
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, ip := range imports {
				if rel, ok := strings.CutPrefix(ip, module); ok && !partImportPermitted(parent, rel) {
					t.Errorf("%s imports %s: a part of %s may import its sibling parts and lower layers, never %s or what may import it", p, ip, parent, parent)
				}
			}
		}
		if files < 10 {
			t.Errorf("read %d Go files below %s: the walk did not see its parts", files, parent)
		}
	}
}

// The rule for parts lets a part import its siblings and lower layers,
// and stops it importing its package or a package beside it.
func TestPartRule(t *testing.T) {
	cases := []struct {
		to string
		ok bool
	}{
		{"ide/metadata/signedfile", true},
		{"designer", true},
		{"designer/bsl", true},
		{"internal/atomicfile", true},
		{"generated/ide", true},
		{"ide/metadata", false},
		{"ide", false},
		{"ide/rpc", false},
	}
	for _, c := range cases {
		if got := partImportPermitted("ide/metadata", c.to); got != c.ok {
			t.Errorf("a part of ide/metadata importing %s: allowed = %v, want %v", c.to, got, c.ok)
		}
	}
}
