package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/config"
	specfiles "github.com/contractkit/contractkit/spec"
	"github.com/contractkit/contractkit/templates"
)

// module makes a folder with a go.mod declaring path.
func module(t *testing.T, path string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+path+"\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// snapshot reads every file under dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&os.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out[filepath.ToSlash(rel)] = "symlink to " + target
			return err
		}
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// gen init writes the config, its schema, a starter spec, an empty
// dispositions file and the //go:generate file, prints the next commands,
// and the result generates and checks clean with nothing else in the
// repository (the templates and meta-schema are the embedded ones).
func TestInit(t *testing.T) {
	dir := module(t, "example.com/games/Space-Game")
	code, stdout, stderr := runGen(t, "init", "--root", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	want := []string{"contract-change-dispositions.json", "contractkit.go", "contractkit.json", "contractkit.schema.json", "go.mod", "spec/spacegame.json"}
	files := snapshot(t, dir)
	if got := keys(files); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("files %v, want %v", got, want)
	}
	for _, f := range want {
		if f != "go.mod" && !strings.Contains(stdout, "wrote "+f+"\n") {
			t.Errorf("stdout does not name %s:\n%s", f, stdout)
		}
	}
	for _, line := range []string{"go get github.com/contractkit/contractkit@latest", "go generate ./...", "go build ./... && go vet ./...", "cmd/gen --check"} {
		if !strings.Contains(stdout, line) {
			t.Errorf("the next commands lack %q:\n%s", line, stdout)
		}
	}
	if files["contractkit.schema.json"] != string(config.Schema) {
		t.Error("contractkit.schema.json is not the schema gen carries")
	}
	if !strings.HasPrefix(files["contractkit.go"], "// Package spacegame ") || !strings.Contains(files["contractkit.go"], "\n"+generateLine+"\n") {
		t.Errorf("contractkit.go:\n%s", files["contractkit.go"])
	}
	// The starter generates and then checks clean.
	if code, out, errs := runGen(t, "--write", "--root", dir, "--quiet"); code != 0 {
		t.Fatalf("--write on the starter: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runGen(t, "--check", "--root", dir, "--no-cache"); code != 0 || !strings.Contains(out, "1 specs") {
		t.Fatalf("--check on the starter: exit %d\n%s%s", code, out, errs)
	}
	generated := snapshot(t, dir)
	for _, f := range []string{"contract/spacegame/contract.go", "contract/spacegame/schema/Message.json", "docs/en/reference/spacegame/index.md", "docs/ru/reference/spacegame/api.md"} {
		if _, ok := generated[f]; !ok {
			t.Errorf("gen wrote no %s", f)
		}
	}
	if c := generated["contract/spacegame/contract.go"]; !strings.Contains(c, "run go generate ./... instead of editing") {
		t.Errorf("the generated package does not say how it is regenerated here:\n%.600s", c)
	}
	if p := generated["docs/en/reference/spacegame/index.md"]; !strings.Contains(p, "then run `go generate ./...`") {
		t.Errorf("the generated page does not say how it is regenerated here:\n%.600s", p)
	}
	// The rule's source anchor is in a file gen init wrote: removing the
	// //go:generate line makes --check fail on it.
	os.WriteFile(filepath.Join(dir, "contractkit.go"), []byte("package spacegame\n"), 0o644)
	if code, _, errs := runGen(t, "--check", "--root", dir, "--no-cache"); code != 1 || !strings.Contains(errs, "spec/spacegame.json:/rules/0/source/0") {
		t.Errorf("--check without the anchor: exit %d\n%s", code, errs)
	}
}

// A second gen init, and one over files the user already has, writes
// nothing, names every file it kept, and leaves their bytes alone.
func TestInitNeverOverwrites(t *testing.T) {
	dir := module(t, "example.com/game")
	if code, out, errs := runGen(t, "init", "--root", dir); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	before := snapshot(t, dir)
	code, stdout, _ := runGen(t, "init", "--root", dir)
	if code != 0 || strings.Contains(stdout, "wrote ") {
		t.Fatalf("second run: exit %d\n%s", code, stdout)
	}
	for _, f := range []string{"contractkit.json", "contractkit.schema.json", "spec/game.json", "contract-change-dispositions.json", "contractkit.go"} {
		if !strings.Contains(stdout, "kept "+f+": it exists, gen init never overwrites a file\n") {
			t.Errorf("second run does not name %s as kept:\n%s", f, stdout)
		}
	}
	if after := snapshot(t, dir); !equalMaps(before, after) {
		t.Error("the second run changed files")
	}

	// A user's own config and a symbolic link where the spec would go are
	// kept as they are; the rest is written.
	dir = module(t, "example.com/game")
	own := []byte(`{"version": 1, "specs": []}`)
	os.WriteFile(filepath.Join(dir, "contractkit.json"), own, 0o600)
	os.MkdirAll(filepath.Join(dir, "spec"), 0o755)
	target := filepath.Join(t.TempDir(), "elsewhere.json")
	if err := os.Symlink(target, filepath.Join(dir, "spec", "game.json")); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = runGen(t, "init", "--root", dir)
	if code != 0 || !strings.Contains(stdout, "kept contractkit.json:") || !strings.Contains(stdout, "kept spec/game.json:") || !strings.Contains(stdout, "wrote contractkit.go\n") {
		t.Errorf("exit %d\n%s", code, stdout)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "contractkit.json")); !bytes.Equal(data, own) {
		t.Error("the user's contractkit.json changed")
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("gen init wrote through the symbolic link")
	}
	// Nothing is left behind: no temporary files.
	for f := range snapshot(t, dir) {
		if strings.Contains(f, ".gen-init-") {
			t.Errorf("temporary file %s left behind", f)
		}
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			return false
		}
	}
	return true
}

// gen init needs a module; a root package already there names contractkit.go's.
func TestInitModule(t *testing.T) {
	if code, _, errs := runGen(t, "init", "--root", t.TempDir()); code != 2 || !strings.Contains(errs, "no go.mod with a module line") {
		t.Errorf("no go.mod: exit %d, %q", code, errs)
	}
	dir := module(t, "example.com/server")
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	if code, _, errs := runGen(t, "init", "--root", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "contractkit.go")); !strings.Contains(string(data), "\npackage main\n") {
		t.Errorf("contractkit.go does not join package main:\n%s", data)
	}
	if code, _, errs := runGen(t, "init", "--root", dir, "extra"); code != 2 || !strings.Contains(errs, "unexpected argument") {
		t.Errorf("extra argument: exit %d, %q", code, errs)
	}
}

// gen config-schema prints the schema gen carries.
func TestConfigSchema(t *testing.T) {
	code, stdout, _ := runGen(t, "config-schema")
	if code != 0 || stdout != string(config.Schema) {
		t.Errorf("exit %d, %d bytes", code, len(stdout))
	}
}

// A config gen cannot use stops it before anything is written.
func TestConfigRefusedBeforeWriting(t *testing.T) {
	dir := module(t, "example.com/game")
	if code, out, errs := runGen(t, "init", "--root", dir); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	cfg := filepath.Join(dir, "contractkit.json")
	for _, c := range []struct{ cfg, want string }{
		{`{"version": 1, "specs": [{"path": "spec/*.json", "go": {"out": "../outside/{package}"}}]}`,
			`contractkit.json:/specs/0/go/out: "../outside/{package}" is outside the repository`},
		{`{"version": 1, "specs": [{"path": "spec/*.json", "go": {"out": "contract/{package}"}}, {"path": "spec/game.json", "docs": {"out": "d/{lang}"}}]}`,
			`contractkit.json:/specs/1/path: spec spec/game.json is listed twice: /specs/0/path names it too`},
		{`{"version": 1, "specs": [{"path": "spec/*.json", "go": {"out": "contract/{package}", "outt": 1}}]}`,
			`contractkit.json:/specs/0/go/outt: unknown key "outt"`},
	} {
		os.WriteFile(cfg, []byte(c.cfg), 0o644)
		before := snapshot(t, dir)
		code, stdout, stderr := runGen(t, "--write", "--root", dir)
		if code != 1 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "nothing was written") {
			t.Errorf("%s: exit %d\n%s%s", c.cfg, code, stdout, stderr)
		}
		if !equalMaps(before, snapshot(t, dir)) {
			t.Errorf("%s: files changed", c.cfg)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "outside")); err == nil {
		t.Error("a folder outside the repository was written")
	}
}

// copyTemplates writes the embedded templates under dir/name, with the
// English banner of the reference pages changed to mark.
func copyTemplates(t *testing.T, dir, name, mark string) {
	t.Helper()
	err := fs.WalkDir(templates.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(templates.FS, p)
		if err != nil {
			return err
		}
		if p == "en/reference/common.md.tmpl" {
			data = bytes.Replace(data, []byte("> Generated from"), []byte("> "+mark+". Generated from"), 1)
		}
		full := filepath.Join(dir, name, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		return os.WriteFile(full, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The overrides a config names are read from the repository: the
// templates (for every spec, or for one entry's) and the meta-schema.
func TestOverrides(t *testing.T) {
	dir := module(t, "example.com/game")
	if code, out, errs := runGen(t, "init", "--root", dir); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	copyTemplates(t, dir, "tpl", "Our house style")
	copyTemplates(t, dir, "tpl-game", "The game's own style")
	cfg := filepath.Join(dir, "contractkit.json")
	index := filepath.Join(dir, "docs", "en", "reference", "game", "index.md")
	for _, c := range []struct{ cfg, want string }{
		{`{"version": 1, "templates": "tpl", "specs": [{"path": "spec/*.json", "go": {"out": "contract/{package}"}, "docs": {"out": "docs/{lang}/reference/{id}"}}]}`, "> Our house style. Generated from"},
		{`{"version": 1, "templates": "tpl", "specs": [{"path": "spec/*.json", "templates": "tpl-game", "go": {"out": "contract/{package}"}, "docs": {"out": "docs/{lang}/reference/{id}"}}]}`, "> The game's own style. Generated from"},
	} {
		os.WriteFile(cfg, []byte(c.cfg), 0o644)
		if code, out, errs := runGen(t, "--write", "--root", dir, "--quiet"); code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", c.cfg, code, out, errs)
		}
		if data, _ := os.ReadFile(index); !strings.Contains(string(data), c.want) {
			t.Errorf("%s: the index does not come from the override:\n%.300s", c.cfg, data)
		}
	}
	// A meta-schema of the repository's own that allows no methods refuses
	// the starter, which has one: the override is what gen read.
	var meta map[string]any
	if err := json.Unmarshal(specfiles.MetaSchema, &meta); err != nil {
		t.Fatal(err)
	}
	meta["properties"].(map[string]any)["methods"].(map[string]any)["maxItems"] = 0
	data, _ := json.Marshal(meta)
	os.WriteFile(filepath.Join(dir, "format.schema.json"), data, 0o644)
	os.WriteFile(cfg, []byte(`{"version": 1, "metaSchema": "format.schema.json", "specs": [{"path": "spec/*.json", "go": {"out": "contract/{package}"}}]}`), 0o644)
	if code, _, errs := runGen(t, "--check", "--root", dir, "--no-cache"); code != 1 || !strings.Contains(errs, "spec/game.json:/methods:") {
		t.Errorf("meta-schema override: exit %d\n%s", code, errs)
	}
	// An override that is not there is named with the config's pointer.
	os.WriteFile(cfg, []byte(`{"version": 1, "specs": [{"path": "spec/*.json", "templates": "nowhere", "go": {"out": "contract/{package}"}}]}`), 0o644)
	if code, _, errs := runGen(t, "--check", "--root", dir, "--no-cache"); code != 1 || !strings.Contains(errs, "contractkit.json:/specs/0/templates: nowhere is not a folder of the repository") {
		t.Errorf("missing templates: exit %d\n%s", code, errs)
	}
}
