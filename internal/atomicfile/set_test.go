package atomicfile

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/byteedit"
)

// setTree is a small project where the catalog Товары is renamed to
// Изделия: four files name it, its descriptor and folder move.
var setTree = map[string]string{
	"Catalogs/Товары.xml":                        "<Name>Товары</Name>\r\n<Type>cfg:CatalogRef.Товары</Type>\r\n",
	"Catalogs/Товары/Ext/ObjectModule.bsl":       "А = Справочники.Товары.ПустаяСсылка();\n",
	"Catalogs/Товары/Forms/Ф.xml":                "<Name>Ф</Name>\n",
	"Documents/Д.xml":                            "<v8:Type>cfg:CatalogRef.Товары</v8:Type>\n",
	"CommonModules/М/Ext/Module.bsl":             "// Справочники.Товары\nТ = Тип(\"СправочникСсылка.Товары\");\n",
	"Configuration.xml":                          "<Catalog>Товары</Catalog><Document>Д</Document>\n",
	"Catalogs/Другой/Ext/ManagerModule.bsl":      "Возврат 1;\n",
	"Catalogs/Товары/Ext/Predefined.xml.comment": "not part of the set",
}

func writeTree(t *testing.T, root string, tree map[string]string) {
	t.Helper()
	for rel, content := range tree {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree reads every file under root, by slash path.
func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	return out
}

// renamedTree is setTree after the rename, built without the package.
func renamedTree() map[string]string {
	out := map[string]string{}
	for rel, content := range setTree {
		if rel != "Catalogs/Товары/Ext/Predefined.xml.comment" && rel != "Catalogs/Товары/Forms/Ф.xml" {
			content = strings.ReplaceAll(content, "Товары", "Изделия")
		}
		out[strings.Replace(rel, "Catalogs/Товары", "Catalogs/Изделия", 1)] = content
	}
	return out
}

// renameSet makes the set from the tree: every "Товары" in the files
// that hold one, and the two renames.
func renameSet(t *testing.T, w *Writer) Set {
	t.Helper()
	var s Set
	rels := make([]string, 0, len(setTree))
	for rel := range setTree {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	for _, rel := range rels {
		content := setTree[rel]
		if rel == "Catalogs/Товары/Ext/Predefined.xml.comment" || !strings.Contains(content, "Товары") {
			continue
		}
		f := SetFile{Rel: filepath.FromSlash(rel), Old: []byte(content)}
		for at := 0; ; {
			i := strings.Index(content[at:], "Товары")
			if i < 0 {
				break
			}
			f.Edits = append(f.Edits, byteedit.Edit{Start: int64(at + i), End: int64(at + i + len("Товары")), Text: "Изделия"})
			at += i + 1
		}
		s.Files = append(s.Files, f)
	}
	s.Moves = []Move{{From: filepath.FromSlash("Catalogs/Товары.xml"), To: filepath.FromSlash("Catalogs/Изделия.xml")},
		{From: filepath.FromSlash("Catalogs/Товары"), To: filepath.FromSlash("Catalogs/Изделия")}}
	s.Meta = []byte(`{"step":"rename"}`)
	return s
}

func setSetup(t *testing.T) *Writer {
	t.Helper()
	root := t.TempDir()
	w := &Writer{Root: filepath.Join(root, "src"), State: filepath.Join(root, ".eska", "edit"), Base: root}
	writeTree(t, w.Root, setTree)
	return w
}

func sameTree(t *testing.T, got, want map[string]string) bool {
	t.Helper()
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// A set writes every file and makes every rename; nothing is left in
// the state directory or beside the files.
//
//contract:proves eska-ide-api.editing.rename-journal
func TestApplySet(t *testing.T) {
	w := setSetup(t)
	if err := w.ApplySet(renameSet(t, w)); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, w.Root); !sameTree(t, got, renamedTree()) {
		t.Errorf("tree after the set:\n%v\nwant\n%v", got, renamedTree())
	}
	if w.Pending() {
		t.Error("the journal stays")
	}
	if l := leftovers(t, w.Root); len(l) != 0 {
		t.Errorf("left %v", l)
	}
}

// A set is refused whole, before anything is written, when a file holds
// other bytes, a path goes through a symbolic link, a rename's target
// exists or a file is named twice.
func TestApplySetRefused(t *testing.T) {
	cases := map[string]func(w *Writer, s *Set){
		"changed": func(w *Writer, s *Set) {
			os.WriteFile(filepath.Join(w.Root, "Documents", "Д.xml"), []byte("other"), 0o644)
		},
		"symlink": func(w *Writer, s *Set) {
			dir := filepath.Join(w.Root, "CommonModules", "М")
			os.Rename(dir, dir+"-real")
			os.Symlink(dir+"-real", dir)
		},
		"target exists": func(w *Writer, s *Set) {
			os.MkdirAll(filepath.Join(w.Root, "Catalogs", "Изделия"), 0o755)
		},
		"twice": func(w *Writer, s *Set) { s.Files = append(s.Files, s.Files[0]) },
		"outside": func(w *Writer, s *Set) {
			s.Moves = append(s.Moves, Move{From: "..", To: "x"})
		},
	}
	for name, spoil := range cases {
		t.Run(name, func(t *testing.T) {
			w := setSetup(t)
			s := renameSet(t, w)
			spoil(w, &s)
			before := readTree(t, w.Root)
			err := w.ApplySet(s)
			var se *SetError
			if !errors.As(err, &se) {
				t.Fatalf("%v, want a SetError", err)
			}
			if got := readTree(t, w.Root); !sameTree(t, got, before) {
				t.Errorf("the tree changed")
			}
			if w.Pending() || len(leftovers(t, w.Root)) > 0 {
				t.Errorf("pending %v, left %v", w.Pending(), leftovers(t, w.Root))
			}
		})
	}
}

// A set stopped dead after any of its steps, as by a kill, is all old or
// all new after RecoverSet: rolled back before the commit point, forward
// after it. Every step of the set is tried.
//
//contract:proves eska-ide-api.editing.rename-journal
func TestSetCrashAtEveryStep(t *testing.T) {
	defer func() { crashAt = nil }()
	back, forward := 0, 0
	defer func() {
		t.Logf("%d crashes rolled back, %d forward", back, forward)
		if back < 3 || forward < 3 {
			t.Errorf("too few steps on each side of the commit point")
		}
	}()
	for n := 1; ; n++ {
		w := setSetup(t)
		calls, committed, stoppedAt := 0, false, ""
		crashAt = func(step string) bool {
			if step == "commit" || step == "rename" || step == "move" {
				committed = true
			}
			calls++
			if calls == n {
				stoppedAt = step
				return true
			}
			return false
		}
		err := w.ApplySet(renameSet(t, w))
		crashAt = nil
		if stoppedAt == "" {
			if err != nil {
				t.Fatal(err)
			}
			if n < 5 {
				t.Fatalf("only %d steps", n-1)
			}
			break
		}
		if !errors.Is(err, errCrashed) {
			t.Fatalf("step %d (%s): %v", n, stoppedAt, err)
		}
		rec, err := w.RecoverSet()
		if err != nil {
			t.Fatalf("step %d (%s): recover: %v", n, stoppedAt, err)
		}
		got := readTree(t, w.Root)
		switch {
		case committed:
			forward++
			if !rec.Forward || !sameTree(t, got, renamedTree()) || string(rec.Meta) != `{"step":"rename"}` {
				t.Errorf("step %d (%s): %+v, tree %v", n, stoppedAt, rec, got)
			}
		default:
			back++
			if !rec.Back || !sameTree(t, got, setTree) {
				t.Errorf("step %d (%s): %+v, tree %v", n, stoppedAt, rec, got)
			}
		}
		if w.Pending() || len(leftovers(t, w.Root)) > 0 {
			t.Errorf("step %d (%s): pending %v, left %v", n, stoppedAt, w.Pending(), leftovers(t, w.Root))
		}
		if _, err := os.Stat(filepath.Join(w.State, journalName)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("step %d: the write journal stays", n)
		}
	}
}

// A file changed by hand after a crash stops the recovery: the journal
// stays, every write is refused, and nothing is overwritten.
func TestSetRecoveryConflict(t *testing.T) {
	defer func() { crashAt = nil }()
	w := setSetup(t)
	crashAt = func(step string) bool { return step == "commit" }
	if err := w.ApplySet(renameSet(t, w)); !errors.Is(err, errCrashed) {
		t.Fatal(err)
	}
	crashAt = nil
	doc := filepath.Join(w.Root, "Documents", "Д.xml")
	os.WriteFile(doc, []byte("edited by hand"), 0o644)
	if _, err := w.RecoverSet(); !errors.Is(err, ErrRecoveryRequired) {
		t.Fatalf("recover: %v", err)
	}
	if data, _ := os.ReadFile(doc); string(data) != "edited by hand" {
		t.Errorf("overwritten: %q", data)
	}
	if !w.Pending() {
		t.Error("the journal is gone")
	}
	if err := w.ApplySet(Set{}); !errors.Is(err, ErrRecoveryRequired) {
		t.Errorf("a set: %v", err)
	}
	rel := filepath.Join("Catalogs", "Другой", "Ext", "ManagerModule.bsl")
	if err := w.Replace(Change{Rel: rel, Old: []byte("Возврат 1;\n"), New: []byte("x")}); !errors.Is(err, ErrRecoveryRequired) {
		t.Errorf("a write: %v", err)
	}
	// Put back by hand, the recovery finishes.
	os.WriteFile(doc, []byte(setTree["Documents/Д.xml"]), 0o644)
	if rec, err := w.RecoverSet(); err != nil || !rec.Forward {
		t.Fatalf("recover: %+v %v", rec, err)
	}
	if got := readTree(t, w.Root); !sameTree(t, got, renamedTree()) {
		t.Errorf("%v", got)
	}
}

// A journal this package did not write is not followed.
func TestSetJournalForeign(t *testing.T) {
	w := setSetup(t)
	os.MkdirAll(w.State, 0o755)
	for i, body := range []string{"{", `{"phase":"committed","files":[{"rel":"../x","moved":"x","temp":".eska-write-x"}]}`, `{"phase":"other"}`} {
		os.WriteFile(filepath.Join(w.State, setJournalName), []byte(body), 0o644)
		if _, err := w.RecoverSet(); !errors.Is(err, ErrRecoveryRequired) {
			t.Errorf("%d: %v", i, err)
		}
	}
}

// A set's journal is bounded: a set whose journal (as committed) takes
// maxSetJournalBytes is written; one byte more is refused before anything
// is written. The caller's metadata pads the journal to the byte.
func TestSetJournalBound(t *testing.T) {
	withMeta := func(n int) Set {
		w := setSetup(t)
		s := renameSet(t, w)
		s.Meta = []byte(`"` + strings.Repeat("x", n) + `"`)
		return s
	}
	// Measure: a set far over the bound says how large its journal was.
	probe := maxSetJournalBytes + 100
	w := setSetup(t)
	s := renameSet(t, w)
	s.Meta = withMeta(probe).Meta
	var tl *TooLargeError
	if err := w.ApplySet(s); !errors.As(err, &tl) || tl.Max != maxSetJournalBytes {
		t.Fatalf("an oversized set: %v", err)
	}
	fixed := int(tl.Size) - probe
	for _, extra := range []int{0, 1} {
		w := setSetup(t)
		s := renameSet(t, w)
		s.Meta = withMeta(maxSetJournalBytes - fixed + extra).Meta
		before := readTree(t, w.Root)
		err := w.ApplySet(s)
		if extra == 0 {
			if err != nil {
				t.Fatalf("a journal of exactly %d bytes: %v", maxSetJournalBytes, err)
			}
			if got := readTree(t, w.Root); !sameTree(t, got, renamedTree()) {
				t.Error("the set at the bound was not written")
			}
			continue
		}
		if !errors.As(err, &tl) || tl.Size != maxSetJournalBytes+1 {
			t.Fatalf("a journal of %d bytes: %v", maxSetJournalBytes+1, err)
		}
		if got := readTree(t, w.Root); !sameTree(t, got, before) || w.Pending() || len(leftovers(t, w.Root)) > 0 {
			t.Error("a refused set wrote something")
		}
	}
}

// Reading a journal is bounded too: a set journal (or a write's) of the
// bound's size is read, one byte more is not read into memory and waits
// for a person.
func TestJournalReadBound(t *testing.T) {
	w := setSetup(t)
	dir := w.State
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pad := func(doc string, size int) []byte { return []byte(doc + strings.Repeat(" ", size-len(doc))) }
	// A committed journal of no files and no moves: recovery goes forward.
	committed := `{"id":"0123456789abcdef","phase":"committed","files":[],"moves":[]}`
	for _, extra := range []int{0, 1} {
		os.WriteFile(filepath.Join(dir, setJournalName), pad(committed, maxSetJournalBytes+extra), 0o644)
		_, err := w.RecoverSet()
		if extra == 0 && err != nil {
			t.Fatalf("a set journal of %d bytes: %v", maxSetJournalBytes, err)
		}
		var tl *TooLargeError
		if extra == 1 && (!errors.Is(err, ErrRecoveryRequired) || !errors.As(err, &tl)) {
			t.Fatalf("a set journal of %d bytes: %v", maxSetJournalBytes+1, err)
		}
	}
	os.Remove(filepath.Join(dir, setJournalName))
	for _, extra := range []int{0, 1} {
		os.WriteFile(filepath.Join(dir, journalName), pad(`{"temp":[]}`, maxWriteJournalBytes+extra), 0o644)
		_, err := w.Recover()
		if extra == 0 && err != nil {
			t.Fatalf("a write journal of %d bytes: %v", maxWriteJournalBytes, err)
		}
		var tl *TooLargeError
		if extra == 1 && !errors.As(err, &tl) {
			t.Fatalf("a write journal of %d bytes: %v", maxWriteJournalBytes+1, err)
		}
	}
}

// A write's journal is bounded when it is written: at the bound it is
// recorded, one byte more is refused.
func TestWriteJournalBound(t *testing.T) {
	w, _ := setup(t)
	base, _ := json.Marshal(journal{Temp: []string{""}})
	for _, extra := range []int{0, 1} {
		name := strings.Repeat("t", maxWriteJournalBytes-len(base)+extra)
		err := w.record(journal{Temp: []string{name}})
		var tl *TooLargeError
		if extra == 0 && err != nil {
			t.Fatalf("a journal of %d bytes: %v", maxWriteJournalBytes, err)
		}
		if extra == 1 && (!errors.As(err, &tl) || tl.Size != maxWriteJournalBytes+1) {
			t.Fatalf("a journal of %d bytes: %v", maxWriteJournalBytes+1, err)
		}
	}
	w.clear()
}
