package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

func parseErr(t *testing.T, src string) []string {
	t.Helper()
	_, err := Parse(FileName, []byte(src))
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("%s: want *Error, got %v", src, err)
	}
	out := make([]string, len(ce.Problems))
	for i, p := range ce.Problems {
		out[i] = p.String()
	}
	return out
}

func hasProblem(t *testing.T, got []string, want string) {
	t.Helper()
	for _, g := range got {
		if g == want {
			return
		}
	}
	t.Errorf("problems lack %q:\n%s", want, strings.Join(got, "\n"))
}

const spec0 = `{"path": "spec/*.json", "go": {"out": "generated/{package}"}}`

// Every refusal the format promises is reported before anything else
// happens, as contractkit.json:/pointer: message.
func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"unknown top-level key", `{"version": 1, "specs": [` + spec0 + `], "spec": []}`,
			`contractkit.json:/spec: unknown key "spec"`},
		{"unknown nested key", `{"version": 1, "specs": [{"path": "a.json", "go": {"out": "g", "pkg": "x"}}]}`,
			`contractkit.json:/specs/0/go/pkg: unknown key "pkg"`},
		{"wrong type", `{"version": 1, "specs": [{"path": 3, "go": {"out": "g"}}]}`,
			`contractkit.json:/specs/0/path: wrong type: expected string, but got number`},
		{"wrong version", `{"version": 2, "specs": [` + spec0 + `]}`,
			`contractkit.json:/version: value must be "1"`},
		{"missing specs", `{"version": 1}`,
			`contractkit.json:/: missing properties: 'specs'`},
		{"duplicate key", `{"version": 1, "version": 1, "specs": [` + spec0 + `]}`,
			`contractkit.json:/version: invalid JSON: duplicate member name "version"`},
		{"outside by dots", `{"version": 1, "specs": [{"path": "a.json", "go": {"out": "../elsewhere/{package}"}}]}`,
			`contractkit.json:/specs/0/go/out: "../elsewhere/{package}" is outside the repository: paths are relative to the folder of contractkit.json`},
		{"outside by dots inside", `{"version": 1, "specs": [{"path": "a.json", "docs": {"out": "docs/../../x/{lang}"}}]}`,
			`contractkit.json:/specs/0/docs/out: "docs/../../x/{lang}" is outside the repository: paths are relative to the folder of contractkit.json`},
		{"outside spec path", `{"version": 1, "specs": [{"path": "../x.json", "go": {"out": "g"}}]}`,
			`contractkit.json:/specs/0/path: "../x.json" is outside the repository: paths are relative to the folder of contractkit.json`},
		{"outside override", `{"version": 1, "specs": [` + spec0 + `], "templates": "a/../../t"}`,
			`contractkit.json:/templates: "a/../../t" is outside the repository: paths are relative to the folder of contractkit.json`},
		{"owning the root", `{"version": 1, "specs": [{"path": "a.json", "go": {"out": "{package}"}}]}`,
			`contractkit.json:/specs/0/go/out: "{package}": an output must start with a folder of its own, before any placeholder: gen removes files there that it does not produce`},
		{"root itself", `{"version": 1, "specs": [{"path": "a.json", "go": {"out": "."}}]}`,
			`contractkit.json:/specs/0/go/out: ".": an output must start with a folder of its own, before any placeholder: gen removes files there that it does not produce`},
		{"unknown placeholder", `{"version": 1, "specs": [{"path": "a.json", "go": {"out": "g/{lang}"}}]}`,
			`contractkit.json:/specs/0/go/out: "g/{lang}": unknown placeholder (use {package}, {id})`},
		{"languages without lang", `{"version": 1, "specs": [{"path": "a.json", "docs": {"out": "docs/{id}"}}]}`,
			`contractkit.json:/specs/0/docs/out: "docs/{id}": several languages need {lang} in the folder`},
		{"schema away from go", `{"version": 1, "specs": [{"path": "a.json", "go": {"out": "g"}, "schema": {"out": "s"}}]}`,
			`contractkit.json:/specs/0/schema/out: "s": the Go package embeds its schemas, so with go.out "g" this must be "g/schema" (or left out)`},
		{"no outputs", `{"version": 1, "specs": [{"path": "a.json"}]}`,
			`contractkit.json:/specs/0: no outputs: name at least one of go, schema, docs, typescript, python`},
		{"unknown language", `{"version": 1, "specs": [{"path": "a.json", "docs": {"out": "d/{lang}", "languages": ["de"]}}]}`,
			`contractkit.json:/specs/0/docs/languages/0: value must be one of "en", "ru"`},
		{"bad branch", `{"version": 1, "specs": [` + spec0 + `], "contractdiff": {"defaultBranch": "--upload-pack=x"}}`,
			"contractkit.json:/contractdiff/defaultBranch: does not match pattern '^[^-\\\\s][^\\\\s]*$'"},
		{"not JSON", `{"version": 1,`, `contractkit.json:/: invalid JSON: unexpected end of input, expected a member name`},
	} {
		t.Run(c.name, func(t *testing.T) { hasProblem(t, parseErr(t, c.src), c.want) })
	}
}

func repoFS(files ...string) fstest.MapFS {
	m := fstest.MapFS{"go.mod": {Data: []byte("module example.com/game\n\ngo 1.26\n")}}
	for _, f := range files {
		m[f] = &fstest.MapFile{Data: []byte("{}")}
	}
	return m
}

// A spec named twice (by two entries, or twice by globs), a glob that
// matches nothing and a missing file are refused at the entry's path.
func TestSpecFilesRefuses(t *testing.T) {
	fsys := repoFS("spec/a.json", "spec/b.json", "spec/contract.schema.json")
	for _, c := range []struct{ name, specs, want string }{
		{"literal twice", `{"path": "spec/a.json", "go": {"out": "g/a"}}, {"path": "spec/a.json", "go": {"out": "g/b"}}`,
			"contractkit.json:/specs/1/path: spec spec/a.json is listed twice: /specs/0/path names it too"},
		{"glob and literal", `{"path": "spec/*.json", "go": {"out": "g/{id}"}}, {"path": "spec/b.json", "go": {"out": "h"}}`,
			"contractkit.json:/specs/1/path: spec spec/b.json is listed twice: /specs/0/path names it too"},
		{"glob matches nothing", `{"path": "contracts/*.json", "go": {"out": "g/{id}"}}`,
			`contractkit.json:/specs/0/path: "contracts/*.json" matches no spec file`},
		{"missing file", `{"path": "spec/c.json", "go": {"out": "g"}}`,
			"contractkit.json:/specs/0/path: spec/c.json: no such spec file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse(FileName, []byte(`{"version": 1, "specs": [`+c.specs+`]}`))
			if err != nil {
				t.Fatal(err)
			}
			_, err = cfg.SpecFiles(FileName, fsys)
			if err == nil {
				t.Fatal("accepted")
			}
			hasProblem(t, strings.Split(err.Error(), "\n"), c.want)
		})
	}
	cfg, err := Parse(FileName, []byte(`{"version": 1, "specs": [{"path": "spec/*.json", "go": {"out": "g/{package}"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	files, err := cfg.SpecFiles(FileName, fsys)
	if err != nil {
		t.Fatal(err)
	}
	if want := []SpecFile{{"spec/a.json", 0}, {"spec/b.json", 0}}; !reflect.DeepEqual(files, want) {
		t.Errorf("files %v, want %v (a glob never names a *.schema.json)", files, want)
	}
}

// Two specs writing one folder are refused; import paths follow go.mod's
// module and the folder unless overridden.
func TestResolve(t *testing.T) {
	fsys := repoFS("spec/a.json", "spec/b.json")
	names := map[string]Names{
		"spec/a.json": {"spec/a.json", "alpha", "alpha"},
		"spec/b.json": {"spec/b.json", "beta", "beta"},
	}
	resolve := func(specs string) ([]Target, error) {
		t.Helper()
		cfg, err := Parse(FileName, []byte(`{"version": 1, "specs": [`+specs+`]}`))
		if err != nil {
			t.Fatal(err)
		}
		files, err := cfg.SpecFiles(FileName, fsys)
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Resolve(FileName, files, names, ModulePath(fsys))
	}
	for _, c := range []struct{ name, specs, want string }{
		{"glob into one folder", `{"path": "spec/*.json", "go": {"out": "contract"}}`,
			"contractkit.json:/specs/0/go/out: spec/b.json would write folder contract, which spec/a.json writes too"},
		{"two entries, one folder", `{"path": "spec/a.json", "docs": {"out": "d/{lang}"}}, {"path": "spec/b.json", "docs": {"out": "d/{lang}/"}}`,
			"contractkit.json:/specs/1/docs/out: spec/b.json would write folder d/en, which spec/a.json writes too"},
		{"go of one, docs of another", `{"path": "spec/a.json", "go": {"out": "x/en"}}, {"path": "spec/b.json", "docs": {"out": "x/{lang}"}}`,
			"contractkit.json:/specs/1/docs/out: spec/b.json would write folder x/en, which spec/a.json writes too"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := resolve(c.specs)
			if err == nil {
				t.Fatal("accepted")
			}
			hasProblem(t, strings.Split(err.Error(), "\n"), c.want)
		})
	}
	ts, err := resolve(`{"path": "spec/a.json", "go": {"out": "contract/{package}"}, "docs": {"out": "docs/{lang}/{id}", "languages": ["ru"]}, "typescript": {"out": "web/{id}"}},
		{"path": "spec/b.json", "go": {"out": "pkg/b", "importPath": "example.org/shared/{package}"}, "python": {"out": "py/{package}"}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []Target{
		{Spec: "spec/a.json", Entry: 0, GoDir: "contract/alpha", GoImportPath: "example.com/game/contract/alpha", SchemaDir: "contract/alpha/schema",
			Docs: map[string]string{"ru": "docs/ru/alpha"}, DocLangs: []string{"ru"}, TypeScript: "web/alpha"},
		{Spec: "spec/b.json", Entry: 1, GoDir: "pkg/b", GoImportPath: "example.org/shared/beta", SchemaDir: "pkg/b/schema", Python: "py/beta"},
	}
	if !reflect.DeepEqual(ts, want) {
		t.Errorf("targets\n%+v\nwant\n%+v", ts, want)
	}
	// Without a go.mod a Go output needs its import path.
	cfg, _ := Parse(FileName, []byte(`{"version": 1, "specs": [{"path": "spec/a.json", "go": {"out": "g"}}]}`))
	delete(fsys, "go.mod")
	files, _ := cfg.SpecFiles(FileName, fsys)
	_, err = cfg.Resolve(FileName, files, names, ModulePath(fsys))
	if err == nil || err.Error() != "contractkit.json:/specs/0/go: no go.mod with a module line at the repository root: set importPath" {
		t.Errorf("no go.mod: %v", err)
	}
}

// This repository's own config: the layout gen used before it had one.
func TestRepositoryConfig(t *testing.T) {
	fsys := os.DirFS("../..")
	cfg, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.OwnedDirs(), []string{"Docs/en/reference", "Docs/ru/reference", "generated"}; !reflect.DeepEqual(got, want) {
		t.Errorf("owned %v, want %v", got, want)
	}
	if m := ModulePath(fsys); m != "github.com/contractkit/contractkit" {
		t.Errorf("module %q", m)
	}
	if d := cfg.Diff(); d.Dispositions != "contract-change-dispositions.json" || d.DefaultBranch != "main" {
		t.Errorf("contractdiff %+v", d)
	}
	if !cfg.IsSpec("spec/ide-api.json") || cfg.IsSpec("spec/contract.schema.json") || cfg.IsSpec("spec/x/y.json") {
		t.Error("IsSpec disagrees with the glob spec/*.json")
	}
}

func TestModulePath(t *testing.T) {
	for src, want := range map[string]string{
		"module example.com/a\n":                "example.com/a",
		"// c\nmodule \"example.com/b\" // x\n": "example.com/b",
		"go 1.26\n\nmodule\texample.com/c\n":    "example.com/c",
		"modulex example.com/d\n":               "",
		"require example.com/e v1.0.0\n":        "",
	} {
		if got := ModulePath(fstest.MapFS{"go.mod": {Data: []byte(src)}}); got != want {
			t.Errorf("%q: %q, want %q", src, got, want)
		}
	}
}

func TestOwned(t *testing.T) {
	for out, want := range map[string]string{
		"generated/{package}":    "generated",
		"Docs/en/reference/{id}": "Docs/en/reference",
		"contract":               "contract",
		"a/b/":                   "a/b",
		"{package}/x":            ".",
		"web/pre{id}/x":          "web",
	} {
		if got := Owned(out); got != want {
			t.Errorf("Owned(%q) = %q, want %q", out, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version": 1, "specs": [{"path": "spec/*.json", "go": {"out": "generated/{package}"}}]}`))
	f.Add([]byte(`{"version": 1, "specs": [{"path": "a", "docs": {"out": "d/{lang}", "languages": ["en"]}}], "contractdiff": {"defaultBranch": "main"}}`))
	f.Add([]byte(`{"version": 1, "specs": [{"path": "../a", "go": {"out": "{id}"}}]}`))
	f.Add(Schema)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(FileName, data)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || len(ce.Problems) == 0 {
				t.Fatalf("error %v is not a list of problems", err)
			}
			for _, p := range ce.Problems {
				if !strings.HasPrefix(p.String(), FileName+":/") {
					t.Fatalf("problem %q lacks the file:/pointer prefix", p)
				}
			}
			return
		}
		for _, d := range c.OwnedDirs() {
			if d == "." || d == ".." || strings.HasPrefix(d, "../") || strings.HasPrefix(d, "/") {
				t.Fatalf("accepted config owns %q", d)
			}
		}
	})
}

// The bindings' folders are resolved but not owned until gen writes them.
// The bindings' folders are gen's like the Go package's: what it does not
// produce there is removed by --write and reported by --check. The
// jsonrpc switch reaches the target of every spec the entry names.
func TestBindingsOwned(t *testing.T) {
	cfg, err := Parse(FileName, []byte(`{"version": 1, "specs": [{"path": "a.json", "go": {"out": "g/{id}"}, "typescript": {"out": "web/{id}", "jsonrpc": true}, "python": {"out": "py/{id}"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.OwnedDirs(); !reflect.DeepEqual(got, []string{"g", "py", "web"}) {
		t.Errorf("owned %v, want [g py web]", got)
	}
	ts, err := cfg.Resolve(FileName, []SpecFile{{Path: "a.json", Entry: 0}}, map[string]Names{"a.json": {ID: "a", Package: "a"}}, "example.com/m")
	if err != nil {
		t.Fatal(err)
	}
	if ts[0].TypeScript != "web/a" || ts[0].Python != "py/a" || !ts[0].JSONRPC {
		t.Errorf("target %+v, want web/a, py/a and jsonrpc", ts[0])
	}
	if _, err := Parse(FileName, []byte(`{"version": 1, "specs": [{"path": "a.json", "typescript": {"out": "web", "jsonrpc": "yes"}}]}`)); err == nil || !strings.Contains(err.Error(), "/specs/0/typescript/jsonrpc") {
		t.Errorf("jsonrpc \"yes\": %v, want an error at /specs/0/typescript/jsonrpc", err)
	}
}

// Asset gives the embedded copy without an override, the repository's own
// with one, and names the config's pointer when that file is missing.
func TestAsset(t *testing.T) {
	fsys := fstest.MapFS{"own/meta.json": {Data: []byte(`{"own":true}`)}}
	if got, err := Asset(fsys, []byte("embedded"), "/metaSchema", ""); err != nil || string(got) != "embedded" {
		t.Errorf("no override: %q, %v", got, err)
	}
	if got, err := Asset(fsys, []byte("embedded"), "/metaSchema", "own/meta.json"); err != nil || string(got) != `{"own":true}` {
		t.Errorf("override: %q, %v", got, err)
	}
	// The config's check takes any path that stays inside the repository,
	// "./own/meta.json" too; fs.FS takes only clean paths.
	for _, p := range []string{"./own/meta.json", "own/x/../meta.json", "own//meta.json"} {
		if got, err := Asset(fsys, []byte("embedded"), "/metaSchema", p); err != nil || string(got) != `{"own":true}` {
			t.Errorf("override %s: %q, %v", p, got, err)
		}
	}
	if _, err := Asset(fsys, []byte("embedded"), "/metaSchema", "own/gone.json"); err == nil || !strings.HasPrefix(err.Error(), "contractkit.json:/metaSchema: ") {
		t.Errorf("missing override: %v", err)
	}
}

// The config is read up to maxFileBytes bytes and maxDepth levels of
// nesting; one byte or one level more is refused, each with its own
// problem.
func TestParseLimits(t *testing.T) {
	valid := `{"version": 1, "specs": [` + spec0 + `]}`
	pad := func(n int) []byte { return []byte(valid + strings.Repeat(" ", n-len(valid))) }
	if _, err := Parse(FileName, pad(maxFileBytes)); err != nil {
		t.Errorf("%d bytes: %v", maxFileBytes, err)
	}
	got := parseErr(t, string(pad(maxFileBytes+1)))
	hasProblem(t, got, fmt.Sprintf("%s:/: the file is %d bytes; the limit is %d", FileName, maxFileBytes+1, maxFileBytes))

	// Nesting: maxDepth levels reach the schema (which wants objects in
	// specs), one more does not get past the JSON reader.
	nest := func(n int) string {
		return `{"version": 1, "specs": [` + strings.Repeat("[", n-2) + strings.Repeat("]", n-2) + `]}`
	}
	for _, p := range parseErr(t, nest(maxDepth)) {
		if strings.Contains(p, "invalid JSON") {
			t.Errorf("depth %d: %s, want a schema problem", maxDepth, p)
		}
	}
	got = parseErr(t, nest(maxDepth+1))
	if len(got) != 1 || !strings.Contains(got[0], "invalid JSON") {
		t.Errorf("depth %d: %q, want one invalid JSON problem", maxDepth+1, got)
	}
}
