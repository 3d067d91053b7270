package atomicfile

// The state directory (the lock, the journals, and the edit history the
// IDE keeps beside them) lies inside the user's project, where anyone who
// can commit to the repository can put a symbolic link. Its files are
// therefore reached from the project's directory one folder at a time,
// each checked not to be a link and opened as an os.Root, so that no
// write of eska's own lands outside the project, and a link in the way is
// reported instead of followed.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LinkError is a folder or file of eska's state (below the project's
// directory) that is a symbolic link: nothing is written through it.
type LinkError struct {
	Path string // the link, as the caller named the state path
}

func (e *LinkError) Error() string {
	return e.Path + ": is a symbolic link; eska does not write through links"
}

// NotDirError is a component of a state path that exists but is not a
// folder.
type NotDirError struct{ Path string }

func (e *NotDirError) Error() string {
	return e.Path + ": is not a folder; eska keeps its state in a folder there"
}

// OpenStateDir opens the folder rel (with the OS's separators) below
// base without following a symbolic link in any of its components; with
// create the missing ones are made. A component that is a link is a
// *LinkError, one that is not a folder a *NotDirError; a missing one
// (without create) is fs.ErrNotExist. The caller closes the root.
func OpenStateDir(base, rel string, create bool) (*os.Root, error) {
	clean := filepath.Clean(rel)
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s: the state folder is not below %s", rel, base)
	}
	dir, err := os.OpenRoot(base)
	if err != nil {
		return nil, err
	}
	if clean == "." {
		return dir, nil
	}
	at := base
	for _, name := range strings.Split(clean, string(filepath.Separator)) {
		at = filepath.Join(at, name)
		st, err := dir.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) && create {
			if err = dir.Mkdir(name, 0o755); err == nil || errors.Is(err, fs.ErrExist) {
				st, err = dir.Lstat(name)
			}
		}
		if err == nil && st.Mode()&fs.ModeSymlink != 0 {
			err = &LinkError{Path: at}
		} else if err == nil && !st.IsDir() {
			err = &NotDirError{Path: at}
		}
		var next *os.Root
		if err == nil {
			// OpenRoot confines what follows to this folder even if the
			// name was swapped for a link since the Lstat.
			next, err = dir.OpenRoot(name)
		}
		dir.Close()
		if err != nil {
			return nil, err
		}
		dir = next
	}
	return dir, nil
}

// StateFile checks that name, in an opened state folder at dirPath, is
// not a symbolic link (a missing one is fine: it is about to be made).
func StateFile(dir *os.Root, dirPath, name string) error {
	st, err := dir.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return &LinkError{Path: filepath.Join(dirPath, name)}
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %w", filepath.Join(dirPath, name), ErrNotRegular)
	}
	return nil
}

// ReadStateFile reads a regular file of an opened state folder, refusing
// a link and anything longer than max bytes (max < 0: no bound).
func ReadStateFile(dir *os.Root, dirPath, name string, max int64) ([]byte, error) {
	st, err := dir.Lstat(name)
	if err != nil {
		return nil, err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return nil, &LinkError{Path: filepath.Join(dirPath, name)}
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dirPath, name), ErrNotRegular)
	}
	if max >= 0 && st.Size() > max {
		return nil, &TooLargeError{Path: filepath.Join(dirPath, name), Max: max}
	}
	f, err := dir.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fst, err := f.Stat(); err != nil || !os.SameFile(st, fst) {
		return nil, fmt.Errorf("%s: changed while it was opened", filepath.Join(dirPath, name))
	}
	var r io.Reader = f
	if max >= 0 {
		r = io.LimitReader(f, max+1)
	}
	data, err := io.ReadAll(r)
	if err == nil && max >= 0 && int64(len(data)) > max {
		return nil, &TooLargeError{Path: filepath.Join(dirPath, name), Max: max}
	}
	return data, err
}

// TooLargeError is a state file longer than its bound.
type TooLargeError struct {
	Path string
	Max  int64
	Size int64 // when known (a journal refused before it was written)
}

func (e *TooLargeError) Error() string {
	if e.Size > 0 {
		return fmt.Sprintf("%s: %d bytes, longer than %d", e.Path, e.Size, e.Max)
	}
	return fmt.Sprintf("%s: longer than %d bytes", e.Path, e.Max)
}

// WriteStateFile replaces name in an opened state folder durably: a
// temporary file there, synced, renamed over it, and the folder synced.
// A link in place of the file or of the temporary file is refused.
func WriteStateFile(dir *os.Root, dirPath, name string, data []byte) error {
	if err := StateFile(dir, dirPath, name); err != nil {
		return err
	}
	tmp := name + ".tmp"
	if err := StateFile(dir, dirPath, tmp); err != nil {
		return err
	}
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = dir.Rename(tmp, name)
	}
	if err != nil {
		dir.Remove(tmp)
		return err
	}
	return SyncRoot(dir)
}

// stateDir opens the writer's state folder (see OpenStateDir), making it
// with create.
func (w *Writer) stateDir(create bool) (*os.Root, error) {
	base := w.Base
	if base == "" {
		base = filepath.Dir(w.State)
	}
	rel, err := filepath.Rel(base, w.State)
	if err != nil {
		return nil, err
	}
	return OpenStateDir(base, rel, create)
}
