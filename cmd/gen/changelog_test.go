package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/repotest"
)

// gen --changelog-since appends the notes of a version bump to the
// domain's files in changelog/, once.
func TestAppendChangelogs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := repotest.Root(t)
	dir := t.TempDir()
	copy := func(src, dst string) {
		data, err := os.ReadFile(filepath.Join(root, src))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, dst)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A repository as an adopter has it: its config and its spec, and no
	// copy of the schemas (gen carries them).
	copy("internal/contractdiff/testdata/base.json", "spec/demo.json")
	if err := os.WriteFile(filepath.Join(dir, "contractkit.json"), []byte(`{"version": 1, "specs": [{"path": "spec/*.json", "docs": {"out": "docs/{lang}/{id}"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=test", "-c", "user.email=test@example.com",
			"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "baseline")

	var stdout bytes.Buffer
	// No version bump: nothing is written.
	if err := appendChangelogs(dir, "HEAD", &stdout); err != nil || stdout.Len() != 0 {
		t.Fatalf("without a bump: %v, %q", err, stdout.String())
	}
	path := filepath.Join(dir, "spec/demo.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["domain"].(map[string]any)["version"] = "1.3"
	for _, x := range doc["types"].([]any) {
		if ty := x.(map[string]any); ty["name"] == "GetParams" {
			ty["fields"] = append(ty["fields"].([]any), map[string]any{"name": "sort", "type": "boolean", "required": false,
				"description": map[string]any{"en": "Sort the items by name.", "ru": "Упорядочить элементы по имени."}})
		}
	}
	out, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := appendChangelogs(dir, "HEAD", &stdout); err != nil {
		t.Fatal(err)
	}
	if got := stdout.String(); !strings.Contains(got, "appended the notes of demo 1.3 to changelog/demo.en.md") || !strings.Contains(got, "changelog/demo.ru.md") {
		t.Errorf("stdout %q", got)
	}
	en, _ := os.ReadFile(filepath.Join(dir, "changelog/demo.en.md"))
	ru, _ := os.ReadFile(filepath.Join(dir, "changelog/demo.ru.md"))
	if !strings.Contains(string(en), "## Demo protocol 1.3") || !strings.Contains(string(en), "field `GetParams.sort` — Sort the items by name.") {
		t.Errorf("changelog/demo.en.md:\n%s", en)
	}
	if !strings.Contains(string(ru), "## Демонстрационный протокол 1.3") || !strings.Contains(string(ru), "Упорядочить элементы по имени") {
		t.Errorf("changelog/demo.ru.md:\n%s", ru)
	}
	// Run again: the notes of 1.3 are there already.
	stdout.Reset()
	if err := appendChangelogs(dir, "HEAD", &stdout); err != nil || stdout.Len() != 0 {
		t.Errorf("second run: %v, %q", err, stdout.String())
	}
	if again, _ := os.ReadFile(filepath.Join(dir, "changelog/demo.en.md")); !bytes.Equal(again, en) {
		t.Error("the second run changed the notes")
	}
}
