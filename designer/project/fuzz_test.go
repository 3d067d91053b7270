package project

import (
	"testing"
	"unicode/utf8"
)

// FuzzManifest feeds arbitrary bytes to the manifest parser. It must never
// panic, and whatever it accepts must be exactly one of a project or a
// non-empty workspace with names that passed the member rules.
func FuzzManifest(f *testing.F) {
	for _, seed := range []string{
		cfgManifest,
		procManifest + "source = \"src/p\"\ndescriptor = \"P.xml\"\n",
		wsBaseExt,
		"project = { type = \"report\" }\n",
		"[project]\ntype = 1\n",
		"[[project]]\ntype = \"configuration\"\n",
		"[workspace]\nmembers = [\"a\", [\"b\"], { c = 1 }]\n",
		"[workspace]\nmembers = [\"../a\", \"./b\", \"\"]\n",
		"[project]\ntype = \"configuration\"\n[workspace]\nmembers = [\"a\"]\n",
		"[project\n",
		"a.b.c = 1979-05-27T07:32:00Z\n",
		"\ufeff[project]\ntype = \"extension\"\n",
		"x = [[{a.b = [\"c\"]}]]\n# .[{\n",
		"s = \"\"\"a\\\n.\"\"\"\"\"\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseManifest(data)
		if err != nil {
			if m != nil {
				t.Fatalf("error %v with a manifest", err)
			}
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if len(data) > MaxManifestSize || !utf8.Valid(data) {
			t.Fatalf("accepted %d bytes, valid UTF-8 %v", len(data), utf8.Valid(data))
		}
		switch {
		case m.project != nil && m.members != nil:
			t.Fatal("both a project and a workspace")
		case m.project != nil:
			p := m.project
			if p.source == "" {
				t.Fatal("empty source")
			}
			if p.descriptor != "" && p.typ != TypeProcessing && p.typ != TypeReport {
				t.Fatalf("descriptor on a %s", p.typ)
			}
		case len(m.members) == 0:
			t.Fatal("workspace without members")
		default:
			seen := map[string]bool{}
			for _, name := range m.members {
				if checkMemberName(name) != nil || seen[name] {
					t.Fatalf("accepted member %q", name)
				}
				seen[name] = true
			}
		}
	})
}
