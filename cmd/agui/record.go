package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/contractkit/contractkit/internal/atomicfile"
)

// recordFile writes the events of a live stream into a record file as they
// arrive, one event per line. The bytes go to a temporary file beside the
// target, which takes the target's name only when the record is complete
// (synced, then renamed), so a cut run or a crash never leaves a torn
// record under the name the user gave. The target is a regular file or
// nothing: never a link, a device, a pipe or a folder. It is replaced only
// if it is still the file it was when the record began (the snapshot),
// keeping its permissions; a name that was free then is taken only if it
// is still free, so a record never replaces another.
type recordFile struct {
	path string
	tmp  *os.File
	w    *bufio.Writer
	// had is the target as the record found it; nil, it was free.
	had fs.FileInfo
	// nextFree, when set, lets commit take the next free name (a tap's
	// run-…-001-2.ndjson) instead of failing when the name was taken
	// meanwhile.
	nextFree bool
	// lost is why the record could not be written, once that happened:
	// the run is checked on without it.
	lost error
	// onLost is told, once, that the record was lost.
	onLost func(error)
}

// recordTempPrefix starts the name of a record being written.
const recordTempPrefix = ".agui-record-"

// targetProblem says why path cannot take a record: it is not a regular
// file (a link, a folder, a device, a pipe, a socket). It returns the
// file as it is now, or nil when the name is free.
func targetProblem(path string) (fs.FileInfo, error) {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case st.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("%s is a symbolic link; agui writes a record only to a file of its own", path)
	case st.IsDir():
		return nil, fmt.Errorf("%s is a directory, not a record file", path)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is %s, not a regular file; agui saves a record as a new file or in place of a regular one", path, fileKind(st.Mode()))
	case st.Mode().Perm()&0o200 == 0:
		// A file made read-only is one someone means to keep; a rename
		// would replace it all the same.
		return nil, fmt.Errorf("%s is read-only; agui does not replace it", path)
	}
	return st, nil
}

// fileKind names a kind of file that is not a regular one.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// createTemp makes a new temporary file in dir, with the given
// permissions (less the umask). The error names the folder, not the
// temporary file the user never asked for.
func createTemp(dir string, perm fs.FileMode) (*os.File, error) {
	var suffix [8]byte
	rand.Read(suffix[:])
	f, err := os.OpenFile(filepath.Join(dir, recordTempPrefix+hex.EncodeToString(suffix[:])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot write a file in the folder %s: %w", dir, err)
	}
	return f, nil
}

// checkFolder says whether records can be written in dir: it makes a
// temporary file there and removes it.
func checkFolder(dir string) error {
	f, err := createTemp(dir, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// createRecord starts a record to be saved as path, replacing the
// regular file there, if any.
func createRecord(path string) (*recordFile, error) {
	had, err := targetProblem(path)
	if err != nil {
		return nil, err
	}
	return newRecord(path, had)
}

// createRunRecord starts a record to be saved as path or, should that
// name be taken when the record is complete, under the next free name
// (path with -2, -3, … before its extension): a tap's records never
// replace a file, another tap's record among them.
func createRunRecord(path string) (*recordFile, error) {
	r, err := newRecord(path, nil)
	if err == nil {
		r.nextFree = true
	}
	return r, err
}

// newRecord starts a record to be saved as path, where had is found
// (nil: nothing).
func newRecord(path string, had fs.FileInfo) (*recordFile, error) {
	// A new record is created as any new file is (0666 less the umask);
	// one that replaces a file has that file's permissions from the
	// start, so a private file's record is never readable by others.
	perm := fs.FileMode(0o666)
	if had != nil {
		perm = had.Mode().Perm()
	}
	tmp, err := createTemp(filepath.Dir(path), perm)
	if err != nil {
		return nil, err
	}
	return &recordFile{path: path, tmp: tmp, had: had, w: bufio.NewWriterSize(tmp, 64<<10)}, nil
}

// event writes one event's line.
func (r *recordFile) event(line []byte) error {
	if _, err := r.w.Write(line); err != nil {
		return err
	}
	return r.w.WriteByte('\n')
}

// save is the record's part in a run: it writes each event's line, and
// when a write fails it drops the record, says so once (onLost), and
// lets the run be checked to its end without it.
func (r *recordFile) save(line []byte) error {
	if r.lost != nil {
		return nil
	}
	if err := r.event(line); err != nil {
		r.lose(err)
	}
	return nil
}

// lose drops the record for err.
func (r *recordFile) lose(err error) {
	r.lost = r.writing(err)
	r.discard()
	if r.onLost != nil {
		r.onLost(r.lost)
	}
}

// recordParts saves into a record the line of an event too large to hold,
// as it arrives (livecheck.PartSaver); a line the stream ended inside is
// cut off the record again. A write that fails loses the record as a
// line's would (recordFile.save): the run is checked on without it.
type recordParts struct {
	rec   *recordFile
	start int64 // where the line began in the file
	open  bool
}

func (p *recordParts) Part(b []byte) error {
	if p.rec.lost != nil {
		return nil
	}
	if err := p.part(b); err != nil {
		p.rec.lose(err)
	}
	return nil
}

func (p *recordParts) part(b []byte) error {
	if !p.open {
		if err := p.rec.w.Flush(); err != nil {
			return err
		}
		at, err := p.rec.tmp.Seek(0, io.SeekCurrent)
		if err != nil {
			return err
		}
		p.start, p.open = at, true
	}
	_, err := p.rec.w.Write(b)
	return err
}

func (p *recordParts) EndPart(keep bool) error {
	if p.rec.lost != nil {
		p.open = false
		return nil
	}
	if err := p.endPart(keep); err != nil {
		p.rec.lose(err)
	}
	return nil
}

func (p *recordParts) endPart(keep bool) error {
	was := p.open
	p.open = false
	if keep {
		return p.rec.w.WriteByte('\n')
	}
	if !was {
		return nil
	}
	if err := p.rec.w.Flush(); err != nil {
		return err
	}
	if err := p.rec.tmp.Truncate(p.start); err != nil {
		return err
	}
	_, err := p.rec.tmp.Seek(p.start, io.SeekStart)
	return err
}

// commit puts the record in place and returns the name it has; it fails,
// removing the temporary file, when the record was lost or the target is
// no longer what it was when the record began.
func (r *recordFile) commit() (string, error) {
	if r.lost != nil {
		return "", r.lost
	}
	err := r.w.Flush()
	if err == nil && r.had != nil {
		// The umask may have taken bits the replaced file had.
		err = r.tmp.Chmod(r.had.Mode().Perm())
	}
	if err == nil {
		err = r.tmp.Sync()
	}
	if cerr := r.tmp.Close(); err == nil {
		err = cerr
	}
	name := r.path
	if err == nil {
		name, err = r.place()
	}
	if err != nil {
		os.Remove(r.tmp.Name())
		return "", r.writing(err)
	}
	// The record is in place: a folder that cannot be synced does not
	// undo that.
	atomicfile.SyncDir(filepath.Dir(name))
	return name, nil
}

// place gives the complete temporary file its name: over the file the
// record found, if that is still there unchanged, or as a new file.
func (r *recordFile) place() (string, error) {
	if r.had != nil {
		now, err := os.Lstat(r.path)
		if err != nil || !os.SameFile(now, r.had) || !now.Mode().IsRegular() || now.Size() != r.had.Size() || !now.ModTime().Equal(r.had.ModTime()) {
			return "", fmt.Errorf("%s changed while the run was recorded; it is left as it is", r.path)
		}
		return r.path, os.Rename(r.tmp.Name(), r.path)
	}
	name := r.path
	for n := 2; ; n++ {
		err := placeNew(r.tmp.Name(), name)
		if !errors.Is(err, fs.ErrExist) {
			return name, err
		}
		if !r.nextFree || n > 999 {
			return "", fmt.Errorf("%s was made by another program while the run was recorded; agui does not replace it", name)
		}
		ext := filepath.Ext(r.path)
		name = fmt.Sprintf("%s-%d%s", strings.TrimSuffix(r.path, ext), n, ext)
	}
}

// placeNew renames tmp to name only if name is free: a hard link fails
// when the name is taken, which a rename would replace. Where links are
// not to be had (some file systems), it looks first and renames.
func placeNew(tmp, name string) error {
	err := os.Link(tmp, name)
	if err == nil {
		return os.Remove(tmp)
	}
	if errors.Is(err, fs.ErrExist) {
		return fs.ErrExist
	}
	if _, lerr := os.Lstat(name); lerr == nil {
		return fs.ErrExist
	} else if !errors.Is(lerr, fs.ErrNotExist) {
		return lerr
	}
	return os.Rename(tmp, name)
}

// writing says that writing the record failed, naming the file the user
// knows of, not the temporary one the system names.
func (r *recordFile) writing(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return fmt.Errorf("writing %s: %w", r.path, pe.Err)
	case errors.As(err, &le):
		return fmt.Errorf("writing %s: %w", r.path, le.Err)
	}
	return err
}

// discard drops the record.
func (r *recordFile) discard() {
	r.tmp.Close()
	os.Remove(r.tmp.Name())
}
