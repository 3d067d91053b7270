package goemit_test

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractkit/contractkit/internal/emit/goemit"
	"github.com/contractkit/contractkit/internal/handcopy"
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
		// The emitted files, read as handcopy reads a package: every
		// exported constant with a literal value.
		pkg := fstest.MapFS{}
		for _, f := range files {
			pkg[f.Path] = &fstest.MapFile{Data: f.Data}
		}
		consts, err := handcopy.Constants(pkg, ".")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, c := range consts {
			if c.Str != nil && strings.Contains(c.Name, "Member") {
				got[c.Name] = *c.Str
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
