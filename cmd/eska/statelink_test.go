package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// eska property refuses to keep its lock, journal or history through a
// symbolic link in .eska, and says which link in words; the descriptor
// keeps its bytes and nothing is written where the link points.
//
//contract:proves eska-ide-api.editing.cli
func TestPropertyStateLink(t *testing.T) {
	for _, link := range []string{".eska", ".eska/edit", ".eska/history"} {
		t.Run(link, func(t *testing.T) {
			dir := editableProject(t, 1, false)
			outside := t.TempDir()
			at := filepath.Join(dir, filepath.FromSlash(link))
			os.MkdirAll(filepath.Dir(at), 0o755)
			if err := os.Symlink(outside, at); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "src", "Catalogs", "К1.xml")
			orig := fileSum(t, path)
			var stdout, stderr bytes.Buffer
			code := runProperty([]string{"set", dir, "catalog:К1", "Comment", `{"kind":"text","value":"x"}`}, &stdout, &stderr)
			want := "eska: " + at + ": is a symbolic link; eska does not write through links\n"
			if code != 1 || !strings.Contains(stderr.String(), want) {
				t.Errorf("exit %d, stderr %q, want %q", code, stderr.String(), want)
			}
			if fileSum(t, path) != orig {
				t.Error("the descriptor was written")
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Errorf("written through the link: %v", entries)
			}
		})
	}
}
