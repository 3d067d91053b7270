package gencache

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// generate stands for a generation: it reads through fsys the way gen does
// (a file, a listing, a stat, a walk, a file that is not there) and
// returns its outputs.
func generate(t *testing.T, fsys fs.FS) map[string][]byte {
	t.Helper()
	spec, err := fs.ReadFile(fsys, "spec/a.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.ReadDir(fsys, "spec"); err != nil {
		t.Fatal(err)
	}
	_, guide := fs.Stat(fsys, "Docs/how-to/a.md")
	if err := fs.WalkDir(fsys, "src", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			_, err = fs.ReadFile(fsys, p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	f, err := fsys.Open("tmpl/page.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := map[string][]byte{"gen/a.go": append([]byte("// from "), spec...)}
	if guide == nil {
		out["gen/guide.txt"] = []byte("with guide")
	}
	return out
}

func write(t *testing.T, root, p, data string) {
	t.Helper()
	full := filepath.Join(root, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tree makes a repository, generates into it and stores the entry.
func tree(t *testing.T) (root, cache string) {
	root, cache = t.TempDir(), t.TempDir()
	write(t, root, "spec/a.json", `{"a":1}`)
	write(t, root, "src/x_test.go", "package x")
	write(t, root, "tmpl/page.tmpl", "page")
	rec := Record(os.DirFS(root))
	outs := generate(t, rec)
	for p, data := range outs {
		write(t, root, p, string(data))
	}
	if err := Store(cache, NewEntry("gen1", root, rec, outs, []string{"gen"}, 1, []string{"w1"})); err != nil {
		t.Fatal(err)
	}
	return root, cache
}

func verify(t *testing.T, cache, generator, root string) error {
	t.Helper()
	e, err := Load(cache, generator, root)
	if err != nil {
		return err
	}
	return e.Verify(os.DirFS(root))
}

func TestUnchangedTreeVerifies(t *testing.T) {
	root, cache := tree(t)
	e, err := Load(cache, "gen1", root)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Verify(os.DirFS(root)); err != nil {
		t.Fatalf("unchanged tree: %v", err)
	}
	if e.Specs != 1 || len(e.Warnings) != 1 || len(e.Outputs) != 1 {
		t.Errorf("entry %+v", e)
	}
	var ops []string
	for _, r := range e.Reads {
		ops = append(ops, r.Op+" "+r.Path)
	}
	for _, want := range []string{"file spec/a.json", "dir spec", "missing Docs/how-to/a.md", "dir src", "file src/x_test.go", "file tmpl/page.tmpl"} {
		if !strings.Contains(strings.Join(ops, "\n"), want) {
			t.Errorf("reads %v lack %q", ops, want)
		}
	}
}

// Every kind of change to what generation read, or to what it produced,
// is a miss; so is another generator.
func TestChangesMiss(t *testing.T) {
	for name, change := range map[string]func(t *testing.T, root string){
		"input edited":           func(t *testing.T, root string) { write(t, root, "spec/a.json", `{"a":2}`) },
		"template edited":        func(t *testing.T, root string) { write(t, root, "tmpl/page.tmpl", "page 2") },
		"file added to a listed": func(t *testing.T, root string) { write(t, root, "spec/b.json", `{}`) },
		"file added to a walk":   func(t *testing.T, root string) { write(t, root, "src/sub/y_test.go", "package y") },
		"missing file appears":   func(t *testing.T, root string) { write(t, root, "Docs/how-to/a.md", "guide") },
		"output edited":          func(t *testing.T, root string) { write(t, root, "gen/a.go", "edited") },
		"stray file in owned":    func(t *testing.T, root string) { write(t, root, "gen/stray.go", "x") },
		"output removed": func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, "gen", "a.go")); err != nil {
				t.Fatal(err)
			}
		},
		"input removed": func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, "tmpl", "page.tmpl")); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			root, cache := tree(t)
			change(t, root)
			if err := verify(t, cache, "gen1", root); err == nil {
				t.Error("verified after the change")
			}
		})
	}
	root, cache := tree(t)
	if _, err := Load(cache, "gen2", root); err == nil {
		t.Error("another generator's build found the entry")
	}
}

// A torn or altered entry is a miss, never an answer.
func TestDamagedEntryMisses(t *testing.T) {
	root, cache := tree(t)
	ents, err := os.ReadDir(cache)
	if err != nil || len(ents) != 1 {
		t.Fatalf("cache holds %v (%v)", ents, err)
	}
	p := filepath.Join(cache, ents[0].Name())
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"torn":    data[:len(data)/2],
		"altered": []byte(strings.Replace(string(data), `"specs":1`, `"specs":2`, 1)),
		"empty":   nil,
	} {
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(cache, "gen1", root); err == nil {
			t.Errorf("%s entry loaded", name)
		}
	}
}

// The folder keeps the newest entries only.
func TestPrune(t *testing.T) {
	cache := t.TempDir()
	for i := 0; i < keep+5; i++ {
		e := &Entry{Format: format, Generator: "g", Root: filepath.Join("/r", string(rune('a'+i)))}
		if err := Store(cache, e); err != nil {
			t.Fatal(err)
		}
	}
	ents, _ := os.ReadDir(cache)
	if len(ents) != keep {
		t.Errorf("%d entries kept, want %d", len(ents), keep)
	}
}
