// Package repotest helps tests that work on the repository itself: it
// finds the root and copies the tree into a temporary folder or an
// in-memory file system, so that tests can change specs and code without
// touching the checkout.
package repotest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// Root returns the repository root: the nearest folder above the working
// directory that holds go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// skip reports folders that are not part of the source tree.
func skip(name string) bool {
	return name == ".git" || name == "node_modules" || name == ".cache" || strings.HasPrefix(name, ".") && name != ".ci"
}

// MapFS copies the repository's files into memory.
func MapFS(t testing.TB) fstest.MapFS {
	t.Helper()
	root := Root(t)
	m := fstest.MapFS{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel != "." && skip(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		// In a linked worktree .git is a file naming the real git
		// directory; copied along, it would make a test's "git init" in
		// the copy reuse the checkout's repository and commit into it.
		if rel == ".git" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		m[filepath.ToSlash(rel)] = &fstest.MapFile{Data: data, Mode: 0o644}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// CopyTo writes a MapFS into a fresh temporary folder and returns it.
func CopyTo(t testing.TB, m fstest.MapFS) string {
	t.Helper()
	dir := t.TempDir()
	for p, f := range m {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
