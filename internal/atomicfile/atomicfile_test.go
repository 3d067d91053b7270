package atomicfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func setup(t *testing.T) (*Writer, string) {
	t.Helper()
	root := t.TempDir()
	w := &Writer{Root: filepath.Join(root, "src"), State: filepath.Join(root, ".eska")}
	if err := os.MkdirAll(filepath.Join(w.Root, "Catalogs"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(w.Root, "Catalogs", "К.xml")
	if err := os.WriteFile(path, []byte("old\r\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	return w, path
}

// leftovers lists the temporary files under dir.
func leftovers(t *testing.T, dir string) []string {
	var out []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && IsTemp(p) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// A write replaces the bytes, keeps the mode and leaves no temporary file
// and no journal.
//
//contract:proves eska-ide-api.editing.atomic-write
func TestReplace(t *testing.T) {
	w, path := setup(t)
	if err := w.Replace(Change{Rel: filepath.Join("Catalogs", "К.xml"), Old: []byte("old\r\n"), New: []byte("new\r\n")}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	st, _ := os.Stat(path)
	if string(data) != "new\r\n" || st.Mode().Perm() != 0o640 {
		t.Errorf("%q %v", data, st.Mode())
	}
	if l := leftovers(t, w.Root); len(l) != 0 {
		t.Errorf("left %v", l)
	}
	if _, err := os.Stat(filepath.Join(w.State, journalName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the journal stays: %v", err)
	}
}

// Nothing is written against other bytes, through a link, to something
// that is not a file, or outside the root.
//
//contract:proves eska-ide-api.editing.atomic-write eska-ide-api.editing.exact-write
func TestReplaceRefusals(t *testing.T) {
	w, path := setup(t)
	rel := filepath.Join("Catalogs", "К.xml")
	if err := w.Replace(Change{Rel: rel, Old: []byte("other"), New: []byte("new")}); !errors.Is(err, ErrChanged) {
		t.Errorf("changed: %v", err)
	}
	os.MkdirAll(filepath.Join(w.Root, "real"), 0o755)
	os.WriteFile(filepath.Join(w.Root, "real", "f.xml"), []byte("old"), 0o644)
	os.Symlink(filepath.Join(w.Root, "real"), filepath.Join(w.Root, "linkdir"))
	os.Symlink(filepath.Join(w.Root, "real", "f.xml"), filepath.Join(w.Root, "link.xml"))
	for _, c := range []struct {
		rel  string
		want error
	}{{"link.xml", ErrSymlink}, {filepath.Join("linkdir", "f.xml"), ErrSymlink}, {"Catalogs", ErrNotRegular}} {
		if err := w.Replace(Change{Rel: c.rel, Old: []byte("old"), New: []byte("new")}); !errors.Is(err, c.want) {
			t.Errorf("%s: %v", c.rel, err)
		}
	}
	for _, rel := range []string{"", "..", filepath.Join("..", "x"), "/etc/passwd", "."} {
		if err := w.Replace(Change{Rel: rel, Old: nil, New: []byte("x")}); err == nil {
			t.Errorf("%q was written", rel)
		}
	}
	if data, _ := os.ReadFile(path); string(data) != "old\r\n" {
		t.Errorf("the file changed: %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(w.Root, "real", "f.xml")); string(data) != "old" {
		t.Errorf("written through a link: %q", data)
	}
	if l := leftovers(t, w.Root); len(l) != 0 {
		t.Errorf("left %v", l)
	}
}

// A file that does not read back as written gets its old bytes back.
//
//contract:proves eska-ide-api.editing.verify
func TestReplaceVerify(t *testing.T) {
	w, path := setup(t)
	once := false
	afterRename = func(p string) {
		if !once {
			once = true
			os.WriteFile(p, []byte("torn"), 0o640)
		}
	}
	defer func() { afterRename = nil }()
	err := w.Replace(Change{Rel: filepath.Join("Catalogs", "К.xml"), Old: []byte("old\r\n"), New: []byte("new\r\n")})
	var ve *VerifyError
	if !errors.As(err, &ve) || !ve.Reverted || string(ve.Got) != "torn" {
		t.Fatalf("%v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "old\r\n" {
		t.Errorf("not reverted: %q", data)
	}
}

// Recover removes the temporary file a killed write left, as its journal
// names it; a journal cut short names nothing; a journal that names
// anything else (a source, a path outside the root) is not this
// package's and is refused whole: nothing is removed.
//
//contract:proves eska-ide-api.editing.atomic-write
func TestRecover(t *testing.T) {
	w, _ := setup(t)
	tmp := filepath.Join("Catalogs", tempPrefix+"К.xml-0011")
	os.WriteFile(filepath.Join(w.Root, tmp), []byte("half"), 0o600)
	outside := filepath.Join(filepath.Dir(w.Root), tempPrefix+"x")
	os.WriteFile(outside, []byte("not ours"), 0o600)
	for _, bad := range []string{filepath.Join("Catalogs", "К.xml"), filepath.Join("..", tempPrefix+"x"), outside} {
		if err := w.record(journal{Temp: []string{tmp, bad}}); err != nil {
			t.Fatal(err)
		}
		if removed, err := w.Recover(); err == nil || len(removed) != 0 {
			t.Errorf("a journal naming %q: removed %v, %v", bad, removed, err)
		}
		for _, keep := range []string{filepath.Join(w.Root, "Catalogs", "К.xml"), filepath.Join(w.Root, tmp), outside} {
			if _, err := os.Stat(keep); err != nil {
				t.Errorf("a journal naming %q: %s removed", bad, keep)
			}
		}
	}
	if err := w.record(journal{Temp: []string{tmp}}); err != nil {
		t.Fatal(err)
	}
	removed, err := w.Recover()
	if err != nil || len(removed) != 1 || removed[0] != tmp {
		t.Fatalf("%v %v", removed, err)
	}
	os.WriteFile(filepath.Join(w.State, journalName), []byte(`{"temp":["Cat`), 0o644)
	if removed, err := w.Recover(); err != nil || removed != nil {
		t.Errorf("cut journal: %v %v", removed, err)
	}
	if removed, err := w.Recover(); err != nil || removed != nil {
		t.Errorf("no journal: %v %v", removed, err)
	}
}

// A second writer of the project is refused while the first holds the
// lock, and gets it afterwards.
//
//contract:proves eska-ide-api.editing.atomic-write
func TestLock(t *testing.T) {
	w, _ := setup(t)
	unlock, err := w.Lock()
	if err != nil {
		t.Fatal(err)
	}
	other := &Writer{Root: w.Root, State: w.State}
	if _, err := other.Lock(); !errors.Is(err, ErrBusy) {
		t.Errorf("second lock: %v", err)
	}
	unlock()
	u2, err := other.Lock()
	if err != nil {
		t.Fatal(err)
	}
	u2()
}

// benchFile is a 50 KB file, about an SSL catalog descriptor.
func benchFile(b *testing.B) (*Writer, string, [2][]byte) {
	root := b.TempDir()
	w := &Writer{Root: root, State: filepath.Join(root, ".eska")}
	var v [2][]byte
	for i := range v {
		v[i] = bytes.Repeat([]byte{byte('a' + i)}, 50<<10)
	}
	path := filepath.Join(root, "f.xml")
	if err := os.WriteFile(path, v[0], 0o644); err != nil {
		b.Fatal(err)
	}
	return w, path, v
}

// BenchmarkReplace is one atomic write of a 50 KB file with every check
// of Replace; its p95 is the floor under a property update.
func BenchmarkReplace(b *testing.B) {
	w, _, v := benchFile(b)
	var times []time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := w.Replace(Change{Rel: "f.xml", Old: v[i%2], New: v[(i+1)%2]}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	p95(b, times)
}

// BenchmarkSyncRename is the bare minimum of a durable replacement: write
// a temporary file, fsync it, rename it over the file, fsync the folder.
func BenchmarkSyncRename(b *testing.B) {
	_, path, v := benchFile(b)
	var times []time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		tmp := path + ".tmp"
		f, err := os.Create(tmp)
		if err != nil {
			b.Fatal(err)
		}
		f.Write(v[i%2])
		f.Sync()
		f.Close()
		os.Rename(tmp, path)
		SyncDir(filepath.Dir(path))
		times = append(times, time.Since(start))
	}
	p95(b, times)
}

func p95(b *testing.B, times []time.Duration) {
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[(len(times)*95+99)/100-1].Microseconds())/1000, "p95-ms")
}

// When the file cannot even be read back, the old bytes cannot be put
// back either: the error says so, for the caller to ask for recovery.
//
//contract:proves eska-ide-api.editing.verify
func TestReplaceVerifyUnrecoverable(t *testing.T) {
	w, _ := setup(t)
	afterRename = func(p string) { os.Remove(p) }
	defer func() { afterRename = nil }()
	err := w.Replace(Change{Rel: filepath.Join("Catalogs", "К.xml"), Old: []byte("old\r\n"), New: []byte("new\r\n")})
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Reverted || ve.Err == nil {
		t.Fatalf("%v", err)
	}
}

// A file whose name is at the file system's limit is replaced too: its
// temporary file's name is cut to fit, at a character boundary.
func TestReplaceNameAtLimit(t *testing.T) {
	w, _ := setup(t)
	// The temporary name's cut falls inside a two-byte letter.
	name := strings.Repeat("ы", 100) + "К.xml"
	name = strings.Repeat("x", nameLimit-len(name)) + name
	if len(name) != nameLimit {
		t.Fatalf("the name has %d bytes", len(name))
	}
	path := filepath.Join(w.Root, "Catalogs", name)
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := w.Replace(Change{Rel: filepath.Join("Catalogs", name), Old: []byte("old"), New: []byte("new")}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "new" {
		t.Fatalf("%q", data)
	}
	for _, base := range []string{name, strings.Repeat("ы", 200), "short"} {
		tn := tempName(base, "-0123456789abcdef")
		if len(tn) > nameLimit || !utf8.ValidString(tn) || !IsTemp(tn) {
			t.Errorf("tempName(%d bytes) = %q (%d bytes)", len(base), tn, len(tn))
		}
	}
}
