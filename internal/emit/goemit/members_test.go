package goemit_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/emit/goemit"
	"github.com/contractkit/contractkit/internal/repotest"
	"github.com/contractkit/contractkit/internal/spec"
)

// Every member of every object type of every spec has a constant in the
// generated package that holds its wire name, so that runtimes name
// members through the generated package instead of spelling them or
// reading struct tags; and the constants are those members and no more.
func TestMemberNameConstants(t *testing.T) {
	root := repotest.Root(t)
	set, diags := spec.LoadFilesWith(os.DirFS(root), []string{"spec/AiControlProtocol.json", "spec/ide-api.json", "spec/ag-ui-profile.json"}, spec.LoadOptions{SkipSources: true, SkipDigest: true})
	if set == nil {
		t.Fatalf("spec: %v", diags)
	}
	for _, d := range set.Domains {
		files, err := goemit.Emit(d)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, f := range files {
			if filepath.Ext(f.Path) != ".go" {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f.Path, f.Data, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range af.Decls {
				gd, ok := decl.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, s := range gd.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						lit, ok := vs.Values[i].(*ast.BasicLit)
						if !ok || !strings.Contains(n.Name, "Member") {
							continue
						}
						got[n.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		}
		want := 0
		for _, ty := range d.Types {
			for _, fl := range ty.Fields {
				want++
				name := spec.MemberGoName(ty, fl)
				if v, ok := got[name]; !ok || v != fl.Name {
					t.Errorf("%s: %s is %q (declared %v), want %q", d.Header.ID, name, v, ok, fl.Name)
				}
				delete(got, name)
			}
		}
		if want == 0 {
			t.Errorf("%s has no object members; the test reads the wrong spec", d.Header.ID)
		}
		for name, v := range got {
			if strings.Contains(name, "Member") && !strings.HasPrefix(name, "Rule") && v != "member" {
				t.Errorf("%s: %s = %q names no member of the spec", d.Header.ID, name, v)
			}
		}
	}
}
