package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linkCase puts a symbolic link at one place of the state path of a
// writer whose sources hold setTree; the link points into a folder
// outside the project, and the case says where (relative to the project)
// the error must name.
type linkCase struct {
	name string
	link string // relative to the project, with /
	file bool   // the link points to a file outside, not a folder
}

var stateLinkCases = []linkCase{
	{name: ".eska", link: ".eska"},
	{name: ".eska/edit", link: ".eska/edit"},
	{name: "lock", link: ".eska/edit/" + lockName, file: true},
	{name: "write journal", link: ".eska/edit/" + journalName, file: true},
	{name: "set journal", link: ".eska/edit/" + setJournalName, file: true},
	{name: "set journal temporary", link: ".eska/edit/" + setJournalName + ".tmp", file: true},
}

// linkedState makes the project and the link of c; it returns the
// writer, the outside folder, and what the outside holds.
func linkedState(t *testing.T, c linkCase) (*Writer, string, map[string]string) {
	t.Helper()
	w := setSetup(t)
	outside := t.TempDir()
	target := outside
	if c.file {
		target = filepath.Join(outside, "victim")
		if err := os.WriteFile(target, []byte("outside"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := filepath.Join(w.Base, filepath.FromSlash(c.link))
	if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, at); err != nil {
		t.Fatal(err)
	}
	return w, outside, readTree(t, outside)
}

// checkLinkError: err is the link of c, said plainly, and nothing outside
// the project or in the sources changed.
func checkLinkError(t *testing.T, what string, err error, w *Writer, c linkCase, outside string, before map[string]string) {
	t.Helper()
	var le *LinkError
	if !errors.As(err, &le) {
		t.Errorf("%s, %s: %v, want a *LinkError", c.name, what, err)
		return
	}
	if want := filepath.Join(w.Base, filepath.FromSlash(c.link)); le.Path != want {
		t.Errorf("%s, %s: the error names %s, want %s", c.name, what, le.Path, want)
	}
	if !strings.HasSuffix(err.Error(), ": is a symbolic link; eska does not write through links") {
		t.Errorf("%s, %s: %q", c.name, what, err)
	}
	if got := readTree(t, outside); !sameTree(t, got, before) {
		t.Errorf("%s, %s: written outside the project: %v", c.name, what, got)
	}
	if got := readTree(t, w.Root); !sameTree(t, got, setTree) {
		t.Errorf("%s, %s: the sources changed: %v", c.name, what, got)
	}
}

// The lock, the write journal and the set journal are never written
// through a symbolic link: a link at .eska, at .eska/edit or in place of
// one of the files stops the write with an error naming the link, and
// nothing is written outside the project.
//
//contract:proves eska-ide-api.editing.atomic-write
func TestStateThroughLink(t *testing.T) {
	doc := filepath.Join("Documents", "Д.xml")
	for _, c := range stateLinkCases {
		t.Run(c.name, func(t *testing.T) {
			w, outside, before := linkedState(t, c)
			if c.link != ".eska/edit/"+journalName && c.link != ".eska/edit/"+setJournalName+".tmp" && c.link != ".eska/edit/"+setJournalName {
				_, err := w.Lock()
				checkLinkError(t, "lock", err, w, c, outside, before)
			}
			if c.link != ".eska/edit/"+lockName && c.link != ".eska/edit/"+setJournalName+".tmp" && c.link != ".eska/edit/"+setJournalName {
				err := w.Replace(Change{Rel: doc, Old: []byte(setTree["Documents/Д.xml"]), New: []byte("new")})
				checkLinkError(t, "replace", err, w, c, outside, before)
			}
			if c.link != ".eska/edit/"+lockName && c.link != ".eska/edit/"+journalName && c.link != ".eska/edit/"+setJournalName {
				err := w.ApplySet(renameSet(t, w))
				checkLinkError(t, "set", err, w, c, outside, before)
				if l := leftovers(t, w.Root); len(l) != 0 {
					t.Errorf("set: temporary files stay: %v", l)
				}
			}
		})
	}
}

// A journal that is a symbolic link (or sits in a linked state folder) is
// not recovered: a committed set journal outside the project, linked in,
// would otherwise write the files it names. The write journal's link is
// refused too, and nothing it names is removed.
//
//contract:proves eska-ide-api.editing.rename-journal
func TestRecoverThroughLink(t *testing.T) {
	// A real committed journal, made by a crash, then moved outside.
	defer func() { crashAt = nil }()
	src := setSetup(t)
	crashAt = func(step string) bool { return step == "commit" }
	if err := src.ApplySet(renameSet(t, src)); !errors.Is(err, errCrashed) {
		t.Fatal(err)
	}
	crashAt = nil
	journalBytes, err := os.ReadFile(filepath.Join(src.State, setJournalName))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []linkCase{{name: ".eska", link: ".eska"}, {name: ".eska/edit", link: ".eska/edit"}, {name: "set journal", link: ".eska/edit/" + setJournalName, file: true}} {
		t.Run(c.name, func(t *testing.T) {
			w, outside, _ := linkedState(t, c)
			name := setJournalName
			if c.file {
				name = "victim"
			}
			if err := os.WriteFile(filepath.Join(outside, name), journalBytes, 0o644); err != nil {
				t.Fatal(err)
			}
			before := readTree(t, outside)
			rec, err := w.RecoverSet()
			if !errors.Is(err, ErrRecoveryRequired) || rec.Forward || rec.Back {
				t.Errorf("recover: %+v %v", rec, err)
			}
			checkLinkError(t, "recover", err, w, c, outside, before)
		})
	}
	t.Run("write journal", func(t *testing.T) {
		c := linkCase{name: "write journal", link: ".eska/edit/" + journalName, file: true}
		w, outside, _ := linkedState(t, c)
		tmp := filepath.Join("Documents", tempPrefix+"Д.xml-01")
		os.WriteFile(filepath.Join(w.Root, tmp), []byte("half"), 0o644)
		os.WriteFile(filepath.Join(outside, "victim"), []byte(`{"temp":["`+filepath.ToSlash(tmp)+`"]}`), 0o644)
		before := readTree(t, outside)
		removed, err := w.Recover()
		var le *LinkError
		if !errors.As(err, &le) || len(removed) != 0 {
			t.Errorf("recover: %v %v", removed, err)
		}
		if _, err := os.Stat(filepath.Join(w.Root, tmp)); err != nil {
			t.Errorf("a file named by a linked journal was removed")
		}
		if got := readTree(t, outside); !sameTree(t, got, before) {
			t.Errorf("outside changed: %v", got)
		}
	})
}

// A set journal in the project naming a path outside the sources is
// refused before anything is written or removed.
//
//contract:proves eska-ide-api.editing.rename-journal
func TestRecoverOutsideRoot(t *testing.T) {
	w := setSetup(t)
	outside := filepath.Join(w.Base, "outside.xml")
	os.WriteFile(outside, []byte("old"), 0o644)
	os.WriteFile(filepath.Join(w.Base, tempPrefix+"outside.xml-1-0"), []byte("planted"), 0o644)
	os.MkdirAll(w.State, 0o755)
	for _, body := range []string{
		`{"phase":"committed","files":[{"rel":"../outside.xml","moved":"../outside.xml","before":"","after":"","temp":"../` + tempPrefix + `outside.xml-1-0"}]}`,
		`{"phase":"prepared","files":[{"rel":"Documents/Д.xml","moved":"Documents/Д.xml","temp":"../` + tempPrefix + `outside.xml-1-0"}]}`,
		`{"phase":"committed","files":[],"moves":[{"from":"Documents","to":"../Documents"}]}`,
	} {
		os.WriteFile(filepath.Join(w.State, setJournalName), []byte(body), 0o644)
		if _, err := w.RecoverSet(); !errors.Is(err, ErrRecoveryRequired) {
			t.Errorf("%s: %v", body, err)
		}
		if data, _ := os.ReadFile(outside); string(data) != "old" {
			t.Errorf("%s: the outside file holds %q", body, data)
		}
		if _, err := os.Stat(filepath.Join(w.Base, tempPrefix+"outside.xml-1-0")); err != nil {
			t.Errorf("%s: a file outside the sources was removed", body)
		}
		if got := readTree(t, w.Root); !sameTree(t, got, setTree) {
			t.Errorf("%s: the sources changed", body)
		}
	}
}

// The state folder is made, one folder at a time, when it is missing;
// a file where a folder belongs is reported, not replaced.
func TestOpenStateDir(t *testing.T) {
	base := t.TempDir()
	dir, err := OpenStateDir(base, filepath.Join(".eska", "edit"), true)
	if err != nil {
		t.Fatal(err)
	}
	dir.Close()
	if st, err := os.Lstat(filepath.Join(base, ".eska", "edit")); err != nil || !st.IsDir() {
		t.Fatalf("not made: %v", err)
	}
	if _, err := OpenStateDir(base, filepath.Join(".eska", "history"), false); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing without create: %v", err)
	}
	os.WriteFile(filepath.Join(base, ".eska", "history"), nil, 0o644)
	var nd *NotDirError
	if _, err := OpenStateDir(base, filepath.Join(".eska", "history"), true); !errors.As(err, &nd) {
		t.Errorf("a file in the way: %v", err)
	}
	if _, err := OpenStateDir(base, "..", true); err == nil {
		t.Error("a folder above the base is opened")
	}
}
