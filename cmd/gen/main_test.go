package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/repotest"
)

// checkout copies the repository into a temporary folder.
func checkout(t *testing.T) string {
	t.Helper()
	return repotest.CopyTo(t, repotest.MapFS(t))
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
	if code, _, stderr := runGen(t, "--root", t.TempDir(), "--check"); code != 1 || !strings.Contains(stderr, "open spec: no such file or directory") {
		t.Errorf("empty root: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runGen(t, "--help"); code != 0 || !strings.Contains(stderr, "usage: gen") {
		t.Errorf("--help: exit %d, %q", code, stderr)
	}
}
