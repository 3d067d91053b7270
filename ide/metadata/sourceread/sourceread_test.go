//go:build unix

package sourceread

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/contractkit/contractkit/designer"
	gen "github.com/contractkit/contractkit/generated/ide"
)

// newReader is a reader of a fresh source tree src with a small size
// limit, and a folder outside it.
func newReader(t *testing.T, limit int) (r *Reader, src, outside string) {
	t.Helper()
	root := t.TempDir()
	src, outside = filepath.Join(root, "src"), filepath.Join(root, "outside")
	for _, d := range []string{src, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lim := designer.DefaultLimits
	lim.MaxBytes = limit
	return &Reader{Src: src, SrcDir: src, Limit: lim}, src, outside
}

func reasonOf(err error) gen.SourceErrorReason {
	var se *Error
	if errors.As(err, &se) {
		return se.Reason
	}
	return ""
}

// A file is read at the size limit and refused one byte past it, on the
// direct way and through a link inside the sources alike.
func TestReadSizeLimit(t *testing.T) {
	const limit = 64
	r, src, _ := newReader(t, limit)
	at, past := bytes.Repeat([]byte{'a'}, limit), bytes.Repeat([]byte{'b'}, limit+1)
	os.WriteFile(filepath.Join(src, "at.xml"), at, 0o644)
	os.WriteFile(filepath.Join(src, "past.xml"), past, 0o644)
	os.Symlink("at.xml", filepath.Join(src, "link-at.xml"))
	os.Symlink("past.xml", filepath.Join(src, "link-past.xml"))
	for _, name := range []string{"at.xml", "link-at.xml"} {
		got, err := r.Read(filepath.Join(src, name))
		if err != nil || !bytes.Equal(got, at) {
			t.Errorf("%s at the limit: %d bytes, %v", name, len(got), err)
		}
		if got, err := r.ReadTemp(filepath.Join(src, name)); err != nil || !bytes.Equal(got, at) {
			t.Errorf("%s at the limit, into the reader's buffer: %d bytes, %v", name, len(got), err)
		}
	}
	for _, name := range []string{"past.xml", "link-past.xml"} {
		_, err := r.Read(filepath.Join(src, name))
		var se *Error
		if !errors.As(err, &se) || se.Reason != gen.SourceErrorReasonTooLarge || !se.XML {
			t.Errorf("%s one past the limit: %v", name, err)
		}
	}
}

// What is not a regular file inside the sources is refused with the
// contract's reason, and a FIFO never blocks the read.
func TestReadRefusals(t *testing.T) {
	r, src, outside := newReader(t, 1<<10)
	os.WriteFile(filepath.Join(outside, "secret.xml"), []byte("<x/>"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.xml"), filepath.Join(src, "out.xml"))
	os.Symlink(outside, filepath.Join(src, "outdir"))
	os.Mkdir(filepath.Join(src, "dir.xml"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(src, "fifo.xml"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want gen.SourceErrorReason
	}{
		{"missing.xml", gen.SourceErrorReasonMissing},
		{"nofolder/missing.xml", gen.SourceErrorReasonMissing},
		{"out.xml", gen.SourceErrorReasonOutsideSource},
		{"outdir/secret.xml", gen.SourceErrorReasonOutsideSource},
		{"dir.xml", gen.SourceErrorReasonNotFile},
		{"fifo.xml", gen.SourceErrorReasonNotFile},
	} {
		if _, err := r.Read(filepath.Join(src, c.name)); reasonOf(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
		if r.Exists(filepath.Join(src, c.name)) {
			t.Errorf("%s exists as a source file", c.name)
		}
	}
}

// A fork reads on its own: its directory cache and buffer are not the
// reader's.
func TestFork(t *testing.T) {
	r, src, _ := newReader(t, 1<<10)
	os.WriteFile(filepath.Join(src, "a.xml"), []byte("aaaa"), 0o644)
	if _, err := r.ReadTemp(filepath.Join(src, "a.xml")); err != nil {
		t.Fatal(err)
	}
	f := r.Fork()
	if f.dirs != nil || f.buf != nil || f.Src != r.Src || f.Limit != r.Limit {
		t.Fatalf("fork shares state: dirs %v, buf %d bytes", f.dirs != nil, cap(f.buf))
	}
	got, err := f.ReadTemp(filepath.Join(src, "a.xml"))
	if err != nil || string(got) != "aaaa" || r.buf == nil || &got[0] == &r.buf[:1][0] {
		t.Errorf("the fork's read: %q, %v", got, err)
	}
}
