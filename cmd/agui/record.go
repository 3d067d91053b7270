package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// recordFile writes the events of a live stream into a record file as they
// arrive, one event per line. The bytes go to a temporary file beside the
// target, which replaces the target only when the record is complete
// (synced, then renamed), so a cut run or a crash never leaves a torn
// record under the name the user gave; the target is never written
// through a symbolic link.
type recordFile struct {
	path string
	tmp  *os.File
	w    *bufio.Writer
}

// createRecord starts a record to be saved as path.
func createRecord(path string) (*recordFile, error) {
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link; agui writes a record only to a file of its own", path)
		}
		if st.IsDir() {
			return nil, fmt.Errorf("%s is a directory, not a record file", path)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".agui-record-*")
	if err != nil {
		return nil, err
	}
	return &recordFile{path: path, tmp: tmp, w: bufio.NewWriterSize(tmp, 64<<10)}, nil
}

// event writes one event's line.
func (r *recordFile) event(line []byte) error {
	if _, err := r.w.Write(line); err != nil {
		return err
	}
	return r.w.WriteByte('\n')
}

// commit puts the record in place.
func (r *recordFile) commit() error {
	err := r.w.Flush()
	if err == nil {
		err = r.tmp.Sync()
	}
	if cerr := r.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(r.tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(r.tmp.Name(), r.path)
	}
	if err != nil {
		os.Remove(r.tmp.Name())
		return fmt.Errorf("saving the record as %s: %w", r.path, err)
	}
	if d, err := os.Open(filepath.Dir(r.path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// discard drops the record.
func (r *recordFile) discard() {
	r.tmp.Close()
	os.Remove(r.tmp.Name())
}
