package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/contractkit/contractkit/internal/gen"
	"github.com/contractkit/contractkit/internal/repotest"
)

// TestMain points the generation cache at a folder of its own, so that
// the tests neither read nor fill the user's.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gen-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("CONTRACTKIT_GEN_CACHE", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixture is the repository reduced to the AiControl contract: the other
// specs, their output and every test file (whose directives name their
// entries) are left out, and the output is regenerated for what remains.
// Every behaviour of the command shows on one contract as on three, at a
// tenth of the cost; TestGenerated in internal/gen checks the real tree.
var fixture struct {
	once sync.Once
	fsys fstest.MapFS
	err  error
}

// checkout copies the reduced repository into a temporary folder.
func checkout(t *testing.T) string {
	t.Helper()
	fixture.once.Do(func() {
		fsys := fstest.MapFS{}
		for p, f := range repotest.MapFS(t) {
			switch {
			case strings.HasSuffix(p, "_test.go"), p == "spec/ide-api.json", p == "spec/ag-ui-profile.json":
				continue
			}
			owned := false
			for _, dir := range []string{"generated", "Docs/en/reference", "Docs/ru/reference"} {
				owned = owned || strings.HasPrefix(p, dir+"/")
			}
			if !owned {
				fsys[p] = f
			}
		}
		out, err := gen.Generate(fsys)
		if err != nil {
			fixture.err = err
			return
		}
		for p, data := range out.Files {
			fsys[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		}
		fixture.fsys = fsys
	})
	if fixture.err != nil {
		t.Fatal(fixture.err)
	}
	return repotest.CopyTo(t, fixture.fsys)
}

func runGen(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func edit(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	if err := os.WriteFile(file, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckPassesOnFreshTree(t *testing.T) {
	dir := checkout(t)
	code, stdout, stderr := runGen(t, "--check", "--root", dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "up to date") {
		t.Errorf("stdout = %q", stdout)
	}
}

// Deleting the anchor text a rule points at makes --check fail, naming the rule.
func TestCheckNamesRuleOfMissingAnchor(t *testing.T) {
	dir := checkout(t)
	edit(t, filepath.Join(dir, "internal", "emit", "goemit", "decode.go"), "func (g *generator) paramsError(", "func (g *generator) invalidParamsErr(")
	code, _, stderr := runGen(t, "--check", "--root", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	want := `spec/AiControlProtocol.json:/errors/3/source/0/anchor: ai-control-protocol.error.invalid-params: anchor "func (g *generator) paramsError(" not found in internal/emit/goemit/decode.go`
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

// Unknown field types are all listed with their JSON pointers.
func TestUnknownTypesAllListed(t *testing.T) {
	dir := checkout(t)
	spec := filepath.Join(dir, "spec", "AiControlProtocol.json")
	edit(t, spec, `{"name": "running", "type": "boolean"`, `{"name": "running", "type": "bool"`)
	edit(t, spec, `{"name": "seq", "type": "integer"`, `{"name": "seq", "type": "int"`)
	code, _, stderr := runGen(t, "--check", "--root", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, want := range []string{
		`spec/AiControlProtocol.json:/types/8/fields/0/type: unknown type "bool"`,
		`spec/AiControlProtocol.json:/types/12/fields/0/type: unknown type "int"`,
		"gen: 2 problem(s); nothing was written",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestUsage(t *testing.T) {
	if code, _, stderr := runGen(t, "--write", "--check"); code != 2 || !strings.Contains(stderr, "exclude each other") {
		t.Errorf("--write --check: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runGen(t, "extra"); code != 2 || !strings.Contains(stderr, `unexpected argument "extra"`) {
		t.Errorf("extra argument: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runGen(t, "--root", t.TempDir(), "--check"); code != 2 || !strings.Contains(stderr, "contractkit.json not found at the repository root: run gen init") {
		t.Errorf("empty root: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runGen(t, "--help"); code != 0 || !strings.Contains(stderr, "usage: gen") {
		t.Errorf("--help: exit %d, %q", code, stderr)
	}
}

// A --check after a generation the tree holds answers from what it
// remembers, and only while every input and output is unchanged: an edited
// spec or an edited generated file is found as without the cache.
func TestCheckRemembersGeneration(t *testing.T) {
	dir := checkout(t)
	const remembered = "unchanged since the last generation"
	check := func(args ...string) (int, string) {
		t.Helper()
		code, stdout, _ := runGen(t, append([]string{"--check", "--root", dir}, args...)...)
		return code, stdout
	}
	if code, out := check(); code != 0 || strings.Contains(out, remembered) {
		t.Fatalf("first check: exit %d, %q", code, out)
	}
	if code, out := check(); code != 0 || !strings.Contains(out, remembered) {
		t.Fatalf("second check: exit %d, %q, want an answer from the last generation", code, out)
	}
	if code, out := check("--no-cache"); code != 0 || strings.Contains(out, remembered) {
		t.Fatalf("--no-cache: exit %d, %q, want a generation", code, out)
	}
	spec := filepath.Join(dir, "spec", "AiControlProtocol.json")
	edit(t, spec, "Line framing streams, is readable in a capture", "Line framing streams and is readable in any capture")
	if code, out := check(); code != 1 || !strings.Contains(out, "stale file Docs/en/reference/ai-control-protocol/wire.md") {
		t.Fatalf("after a spec edit: exit %d, %q", code, out)
	}
	if code, _, _ := runGen(t, "--write", "--root", dir, "--quiet"); code != 0 {
		t.Fatalf("--write: exit %d", code)
	}
	if code, out := check(); code != 0 || !strings.Contains(out, remembered) {
		t.Fatalf("check after --write: exit %d, %q", code, out)
	}
	edit(t, filepath.Join(dir, "generated", "aicontrol", "contract.go"), "package aicontrol", "package aicontrol // edited")
	if code, out := check(); code != 1 || !strings.Contains(out, "stale file generated/aicontrol/contract.go") {
		t.Fatalf("after editing generated code: exit %d, %q", code, out)
	}
}
