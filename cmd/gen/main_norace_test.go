//go:build !race

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// These tests run gen over a copy of the repository two and three times:
// single-threaded work the race detector slows down many times
// (TestCheckPassesOnFreshTree runs gen under it). make test runs them
// without it, after the race pass (scripts/norace-tests.sh).

// Editing a requirement without regenerating makes --check fail with a
// diff that names the stale English and Russian pages.
func TestCheckNamesStalePages(t *testing.T) {
	dir := checkout(t)
	spec := filepath.Join(dir, "spec", "AiControlProtocol.json")
	edit(t, spec, "Line framing streams, is readable in a capture", "Line framing streams and is readable in any capture")
	code, stdout, _ := runGen(t, "--check", "--root", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, want := range []string{
		"stale file Docs/en/reference/ai-control-protocol/wire.md",
		"stale file Docs/ru/reference/ai-control-protocol/wire.md",
		"--- a/Docs/en/reference/ai-control-protocol/wire.md",
		"+| <a id=\"ai-control-protocol.wire.ndjson\"></a>",
		"Line framing streams and is readable in any capture",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--check output lacks %q", want)
		}
	}
	// --write brings the tree back in line.
	if code, out, errs := runGen(t, "--write", "--root", dir, "--quiet"); code != 0 {
		t.Fatalf("--write: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := runGen(t, "--check", "--root", dir); code != 0 {
		t.Fatalf("--check after --write: exit %d\n%s", code, out)
	}
}

// Files in owned folders that no spec produces are named by --check and
// removed by --write; missing ones are named and written.
func TestUnexpectedAndMissingFiles(t *testing.T) {
	dir := checkout(t)
	stray := filepath.Join(dir, "generated", "aicontrol", "stray.go")
	if err := os.WriteFile(stray, []byte("package aicontrol\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "generated", "aicontrol", "schema", "ActParams.json")); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runGen(t, "--check", "--root", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, want := range []string{"unexpected file generated/aicontrol/stray.go", "missing file generated/aicontrol/schema/ActParams.json"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	code, stdout, _ = runGen(t, "--write", "--root", dir)
	if code != 0 {
		t.Fatalf("--write: exit %d", code)
	}
	if !strings.Contains(stdout, "removed generated/aicontrol/stray.go") || !strings.Contains(stdout, "wrote generated/aicontrol/schema/ActParams.json") {
		t.Errorf("--write output: %s", stdout)
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("stray file still there: %v", err)
	}
}
