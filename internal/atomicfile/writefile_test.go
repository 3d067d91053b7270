package atomicfile

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// noPutTemps fails when a WriteFile temporary file is left in dir.
func noPutTemps(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if IsPutTemp(e.Name()) {
			t.Errorf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}

func TestWriteFileCreatesAndReplaces(t *testing.T) {
	root := t.TempDir()
	rel := filepath.Join("generated", "demo", "types.go")
	if err := WriteFile(root, rel, []byte("one\n"), 0o644, nil); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(root, rel)
	if got, _ := os.ReadFile(full); string(got) != "one\n" {
		t.Errorf("created: %q", got)
	}
	if st, _ := os.Stat(full); st.Mode().Perm() != 0o644 {
		t.Errorf("a new file has mode %v, want the 0644 asked for whatever the umask", st.Mode().Perm())
	}
	if err := os.Chmod(full, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(root, rel, []byte("two\n"), 0o644, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(full); string(got) != "two\n" {
		t.Errorf("replaced: %q", got)
	}
	if st, _ := os.Stat(full); st.Mode().Perm() != 0o600 {
		t.Errorf("a replaced file has mode %v, want its own 0600 kept", st.Mode().Perm())
	}
	noPutTemps(t, filepath.Dir(full))
}

// A name at the file system's limit still gets a temporary file beside it.
func TestWriteFileLongName(t *testing.T) {
	root := t.TempDir()
	name := strings.Repeat("я", nameLimit/2) + ".go" // 255 bytes: 126 two-byte letters and ".go"
	name = name[len(name)-nameLimit:]
	if len(name) != nameLimit {
		t.Fatalf("name of %d bytes", len(name))
	}
	if err := WriteFile(root, name, []byte("x"), 0o644, nil); err != nil {
		t.Fatalf("a name of %d bytes: %v", len(name), err)
	}
	noPutTemps(t, root)
}

func TestWriteFileRefusesLinks(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	target := filepath.Join(outside, "target.go")
	if err := os.WriteFile(target, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(root, "link.go")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "dir")); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"link.go", filepath.Join("dir", "target.go"), filepath.Join("dir", "new.go")} {
		err := WriteFile(root, rel, []byte("ours"), 0o644, nil)
		if err == nil || !strings.Contains(err.Error(), "is a symbolic link; nothing is written through one") {
			t.Errorf("%s: %v, want a refusal naming the link", rel, err)
		}
	}
	if got, _ := os.ReadFile(target); string(got) != "theirs" {
		t.Errorf("the file behind the link now holds %q", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "new.go")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was created through the linked folder: %v", err)
	}
	noPutTemps(t, root)
	noPutTemps(t, outside)
	// The root itself may be reached through a link: it is the caller's.
	viaLink := filepath.Join(t.TempDir(), "root")
	if err := os.Symlink(root, viaLink); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(viaLink, "plain.go", []byte("ok"), 0o644, nil); err != nil {
		t.Errorf("a root reached through a link: %v", err)
	}
}

func TestWriteFileRefuses(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"folder", "", "../up.go", "/abs.go"} {
		if err := WriteFile(root, rel, []byte("x"), 0o644, nil); err == nil {
			t.Errorf("%q: written", rel)
		}
	}
	// A file where a folder belongs is named as such.
	os.WriteFile(filepath.Join(root, "plain"), []byte("p"), 0o644)
	if err := WriteFile(root, filepath.Join("plain", "x.go"), []byte("x"), 0o644, nil); err == nil || err.Error() != filepath.Join(root, "plain", "x.go")+": "+filepath.Join(root, "plain")+" is not a folder" {
		t.Errorf("a file on the way: %v", err)
	}
	// The caller's last look says the snapshot moved: nothing is written.
	full := filepath.Join(root, "f.go")
	if err := os.WriteFile(full, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	moved := errors.New("moved")
	if err := WriteFile(root, "f.go", []byte("new"), 0o644, func() error { return moved }); !errors.Is(err, moved) {
		t.Errorf("before's error: %v", err)
	}
	if got, _ := os.ReadFile(full); string(got) != "old" {
		t.Errorf("written although before refused: %q", got)
	}
	noPutTemps(t, root)
}

// putChild is the child of TestWriteFileKilled: it writes the two
// contents over one file in turn until it is killed.
const putChild = "ATOMICFILE_PUT_CHILD"

func putContents() [2][]byte {
	return [2][]byte{bytes.Repeat([]byte("a"), 3<<20), bytes.Repeat([]byte("bb\n"), 1<<20)}
}

// TestMain runs the child of TestWriteFileKilled when it is started as one.
func TestMain(m *testing.M) {
	if root := os.Getenv(putChild); root != "" {
		c := putContents()
		for i := 0; ; i++ {
			if err := WriteFile(root, "out.txt", c[i%2], 0o644, nil); err != nil {
				os.Stderr.WriteString(err.Error() + "\n")
				os.Exit(2)
			}
			if i == 0 {
				os.WriteFile(filepath.Join(root, "started"), nil, 0o644)
			}
		}
	}
	os.Exit(m.Run())
}

// A process killed at any moment of a write leaves the file whole: the
// old content or the new, never a mix.
func TestWriteFileKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process 20 times")
	}
	c := putContents()
	for round := range 20 {
		root := t.TempDir()
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), putChild+"="+root)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, err := os.Stat(filepath.Join(root, "started")); err == nil {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("the child wrote nothing in 10 s")
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Duration(rand.IntN(20_000)) * time.Microsecond)
		cmd.Process.Kill()
		cmd.Wait()
		got, err := os.ReadFile(filepath.Join(root, "out.txt"))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !bytes.Equal(got, c[0]) && !bytes.Equal(got, c[1]) {
			t.Fatalf("round %d: the file holds %d bytes that are neither content", round, len(got))
		}
	}
}

// way names the first part of a path that is a link, or a file where a
// folder belongs, and returns what the path names (nil: nothing there).
func TestWay(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(root, "a", "b", "f"), []byte("x"), 0o644)
	if err := os.Symlink("a", filepath.Join(root, "link")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.Symlink("f", filepath.Join(root, "a", "b", "flink"))
	for _, tc := range []struct {
		rel, link, notDir string
		found             bool
	}{
		{rel: filepath.Join("a", "b", "f"), found: true},
		{rel: filepath.Join("a", "b", "new")},
		{rel: filepath.Join("a", "missing", "new")},
		{rel: filepath.Join("link", "b", "f"), link: filepath.Join(root, "link")},
		{rel: filepath.Join("a", "b", "flink"), link: filepath.Join(root, "a", "b", "flink")},
		{rel: filepath.Join("a", "b", "f", "new"), notDir: filepath.Join(root, "a", "b", "f")},
	} {
		st, err := way(root, tc.rel)
		var le *LinkError
		var nd *NotDirError
		switch {
		case tc.link != "":
			if !errors.As(err, &le) || le.Path != tc.link || st != nil {
				t.Errorf("%s: %v, %v; want the link %s", tc.rel, st, err, tc.link)
			}
		case tc.notDir != "":
			if !errors.As(err, &nd) || nd.Path != tc.notDir || st != nil {
				t.Errorf("%s: %v, %v; want %s not a folder", tc.rel, st, err, tc.notDir)
			}
		case err != nil || (st != nil) != tc.found:
			t.Errorf("%s: %v, %v; found want %v", tc.rel, st, err, tc.found)
		}
	}
}
