package gen

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Write brings an owned folder in line: a stale file is replaced, an
// unexpected one (such as what a killed write left) removed, an identical
// one left alone, and a symbolic link in the folder is never written
// through.
func TestWrite(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "generated", "demo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	put := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("same.go", "same\n")
	put("stale.go", "old\n")
	put(".contractkit-put-types.go-0123456789abcdef", "half of a killed write")
	out := &Output{
		Files: map[string][]byte{
			"generated/demo/same.go":  []byte("same\n"),
			"generated/demo/stale.go": []byte("new\n"),
			"generated/demo/new.go":   []byte("fresh\n"),
		},
		Owned: []string{"generated/demo"},
	}
	written, removed, err := Write(root, out)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(written, []string{"generated/demo/new.go", "generated/demo/stale.go"}) {
		t.Errorf("written %v", written)
	}
	if !slices.Equal(removed, []string{"generated/demo/.contractkit-put-types.go-0123456789abcdef"}) {
		t.Errorf("removed %v", removed)
	}
	for p, want := range out.Files {
		if got, _ := os.ReadFile(filepath.Join(root, p)); string(got) != string(want) {
			t.Errorf("%s holds %q", p, got)
		}
	}
	changes, err := Compare(os.DirFS(root), out)
	if err != nil || len(changes) != 0 {
		t.Errorf("after Write: %v %v", changes, err)
	}

	outside := filepath.Join(t.TempDir(), "theirs.go")
	if err := os.WriteFile(outside, []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "stale.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "stale.go")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if _, _, err := Write(root, out); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("writing over a link: %v", err)
	}
	if got, _ := os.ReadFile(outside); string(got) != "theirs\n" {
		t.Errorf("the file behind the link holds %q", got)
	}
}
