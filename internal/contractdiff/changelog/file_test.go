package changelog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/contractdiff"
)

// A version bump appends its notes once; the same version again, or no
// bump, leaves the file as it is; a symbolic link is never written through.
func TestAppendRelease(t *testing.T) {
	base, cur := release(t)
	d := Domain{Base: base, Cur: cur, Findings: contractdiff.Compare(base, cur)}
	dir := t.TempDir()
	path := filepath.Join(dir, FilePath("demo", EN))
	wrote, err := AppendRelease(path, d, EN)
	if err != nil || !wrote {
		t.Fatalf("first append: %v, %v", wrote, err)
	}
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(first), "# Changes of Demo protocol\n\n## Demo protocol 1.3\n") {
		t.Errorf("the new file starts:\n%.120s", first)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("the notes are %v; a committed file is readable by all (0644)", st.Mode().Perm())
	}
	if wrote, err := AppendRelease(path, d, EN); err != nil || wrote {
		t.Errorf("the same version again: %v, %v", wrote, err)
	}
	if again, _ := os.ReadFile(path); string(again) != string(first) {
		t.Error("the file changed on the second append")
	}
	same := Domain{Base: base, Cur: base}
	if wrote, err := AppendRelease(path, same, EN); err != nil || wrote {
		t.Errorf("no version bump: %v, %v", wrote, err)
	}
	// A later version goes after the earlier one.
	cur.Header.Version = "1.4"
	if wrote, err := AppendRelease(path, d, EN); err != nil || !wrote {
		t.Fatalf("next version: %v, %v", wrote, err)
	}
	both, _ := os.ReadFile(path)
	if i, j := strings.Index(string(both), "## Demo protocol 1.3\n"), strings.Index(string(both), "## Demo protocol 1.4\n"); i < 0 || j < i {
		t.Errorf("1.3 at %d, 1.4 at %d", i, j)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	// Through a link: refused, the target untouched.
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(path, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	cur.Header.Version = "1.5"
	if wrote, err := AppendRelease(link, d, EN); err == nil || wrote {
		t.Errorf("through a symbolic link: %v, %v", wrote, err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(both) {
		t.Error("the link's target changed")
	}
}
