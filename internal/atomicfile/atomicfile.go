// Package atomicfile writes a user's source files so that a crash at any
// moment leaves each file either as it was or as it was meant to be,
// never torn: the new bytes go to a temporary file in the same directory,
// are synced, take the original's mode, and replace the original by a
// rename, after which the directory is synced. A file is written only
// when it still holds exactly the bytes the change was computed from,
// never through a symbolic link, and is read back afterwards.
//
// A small journal in a state directory names the temporary file of the
// write in progress, so that Recover removes what a killed process left
// behind without walking the tree; a lock file in the same directory
// keeps two writers of one project apart. Changes of several files (and
// renames of files and folders) go through a journal of their own there,
// rolled back or forward by RecoverSet (set.go).
package atomicfile

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode/utf8"
)

// Errors of a write; nothing was written when one of the first four is
// returned.
var (
	// ErrChanged: the file no longer holds the bytes the change was made
	// against (it changed on disk meanwhile).
	ErrChanged = errors.New("the file changed since the change was computed")
	// ErrSymlink: the path, or a directory on the way, is a symbolic link.
	ErrSymlink = errors.New("the path goes through a symbolic link")
	// ErrNotRegular: the path is not a regular file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrBusy: another writer holds the project's lock.
	ErrBusy = errors.New("another edit of the project is in progress")
)

// VerifyError is a write whose file did not read back as written. The
// original bytes were put back when Reverted is set; otherwise the file
// holds Got and must be recovered by hand.
type VerifyError struct {
	Rel      string
	Reverted bool
	Got      []byte
	Err      error // why the revert failed, when it did
}

func (e *VerifyError) Error() string {
	if e.Reverted {
		return fmt.Sprintf("%s: did not read back as written; the old bytes were restored", e.Rel)
	}
	return fmt.Sprintf("%s: did not read back as written, and restoring the old bytes failed: %v", e.Rel, e.Err)
}

// Change is the new content of one file, against the exact bytes it was
// computed from.
type Change struct {
	Rel string // relative to the writer's root, with the OS's separators
	Old []byte
	New []byte
}

// Writer writes files below Root and keeps its lock and journal in
// State, a folder below Base (the project's directory; empty: State's
// parent). Every folder from Base to State, and every file the writer
// keeps there, is reached without following a symbolic link: one in the
// way is a *LinkError and nothing is written (statedir.go).
type Writer struct {
	Root  string
	State string
	Base  string
}

// tempPrefix starts the name of every temporary file a write makes.
const tempPrefix = ".eska-write-"

// nameLimit is the longest name of one path element, in bytes, on the
// common file systems (ext4, XFS, tmpfs, APFS); the eska IDE API's
// MaxFileNameBytes is the same bound for the names a rename gives.
const nameLimit = 255

// tempName is the name of a temporary file for the file named base: the
// prefix, as much of base as fits nameLimit (cut at a character
// boundary; it only helps a person see whose file it is) and the suffix
// that makes it unique. A file whose name is at the limit still gets a
// temporary file.
func tempName(base, suffix string) string { return tempNameWith(tempPrefix, base, suffix) }

// tempNameWith is tempName under another prefix.
func tempNameWith(prefix, base, suffix string) string {
	room := nameLimit - len(prefix) - len(suffix)
	if room < 0 {
		room = 0
	}
	if len(base) > room {
		base = base[:room]
		for len(base) > 0 && !utf8.ValidString(base) {
			base = base[:len(base)-1]
		}
	}
	return prefix + base + suffix
}

// journalName is the journal file in the state directory.
const journalName = "write-journal.json"

// The journals' bounds, on writing (a larger one is refused before
// anything is written) and on reading (a larger file is not read into
// memory: recovery then waits for a person). A write's journal names a
// temporary file; a set's holds every file's replacements and its
// caller's metadata (an undo step), so a rename of a few thousand places
// takes about a megabyte.
const (
	maxWriteJournalBytes = 64 << 10
	maxSetJournalBytes   = 32 << 20
)

// lockName is the lock file in the state directory.
const lockName = "write.lock"

// journal is what a write in progress records before it makes anything.
type journal struct {
	Temp []string `json:"temp"` // paths relative to Root
}

// path resolves rel below Root, refusing anything that leaves it or
// passes through a symbolic link, and returns the file's mode.
func (w *Writer) path(rel string) (string, fs.FileMode, error) {
	clean := filepath.Clean(rel)
	if rel == "" || filepath.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", 0, fmt.Errorf("%q is not a path below the sources", rel)
	}
	cur := w.Root
	parts := strings.Split(clean, string(filepath.Separator))
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if err != nil {
			return "", 0, err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return "", 0, fmt.Errorf("%s: %w", filepath.Join(parts[:i+1]...), ErrSymlink)
		}
		if i == len(parts)-1 {
			if !st.Mode().IsRegular() {
				return "", 0, fmt.Errorf("%s: %w", clean, ErrNotRegular)
			}
			return cur, st.Mode(), nil
		}
	}
	return "", 0, fmt.Errorf("%q is not a path below the sources", rel)
}

// Replace writes c.New over the file c.Rel, which must hold exactly
// c.Old. On success the file holds c.New, read back to prove it.
func (w *Writer) Replace(c Change) error {
	if w.Pending() {
		return ErrRecoveryRequired
	}
	path, mode, err := w.path(c.Rel)
	if err != nil {
		return err
	}
	if cur, err := os.ReadFile(path); err != nil {
		return err
	} else if !bytes.Equal(cur, c.Old) {
		return fmt.Errorf("%s: %w", c.Rel, ErrChanged)
	}
	if err := w.swap(path, c.Rel, mode, c.Old, c.New); err != nil {
		return err
	}
	got, err := os.ReadFile(path)
	if err == nil && bytes.Equal(got, c.New) {
		return nil
	}
	// The file does not hold what was written: put the old bytes back,
	// over exactly what is there now.
	ve := &VerifyError{Rel: c.Rel, Got: got}
	if err != nil {
		ve.Err = err
		return ve
	}
	if ve.Err = w.swap(path, c.Rel, mode, got, c.Old); ve.Err == nil {
		ve.Reverted = true
	}
	return ve
}

// swap replaces the file at path (which must hold want) with data
// through a temporary file in its directory, recorded in the journal
// while it exists.
func (w *Writer) swap(path, rel string, mode fs.FileMode, want, data []byte) error {
	dir := filepath.Dir(path)
	var suffix [8]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return err
	}
	tmp := filepath.Join(dir, tempName(filepath.Base(path), "-"+hex.EncodeToString(suffix[:])))
	tmpRel, _ := filepath.Rel(w.Root, tmp)
	if err := w.record(journal{Temp: []string{tmpRel}}); err != nil {
		return err
	}
	cleanup := func() {
		os.Remove(tmp)
		w.clear()
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode.Perm())
	if err != nil {
		w.clear()
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		// OpenFile's mode passed through the umask; the original's stays.
		err = f.Chmod(mode.Perm())
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		cleanup()
		return err
	}
	// The last look before the rename: the file still holds what the
	// change was made against.
	if cur, err := os.ReadFile(path); err != nil || !bytes.Equal(cur, want) {
		cleanup()
		if err != nil {
			return err
		}
		return fmt.Errorf("%s: %w", rel, ErrChanged)
	}
	if err := os.Rename(tmp, path); err != nil {
		cleanup()
		return err
	}
	err = SyncDir(dir)
	w.clear()
	if afterRename != nil {
		afterRename(path)
	}
	return err
}

// afterRename lets the tests change a file between its write and its
// reading back.
var afterRename func(path string)

// SyncDir makes a rename in dir durable. On Windows a directory cannot be
// synced (FlushFileBuffers refuses a directory handle) and NTFS journals the
// rename itself, so there it does nothing; failing there would report a
// write that succeeded as failed.
func SyncDir(dir string) error {
	return syncOpened(func() (*os.File, error) { return os.Open(dir) })
}

// SyncRoot is SyncDir for the folder root holds open, so that a rename in
// it survives a power loss: the folder synced is the one the files were
// made and renamed in, wherever its path leads by now. On Windows it does
// nothing, for SyncDir's reason (a directory handle cannot be flushed
// there, and failing would report a file that was written as not written).
func SyncRoot(root *os.Root) error {
	return syncOpened(func() (*os.File, error) { return root.Open(".") })
}

// syncOpened syncs the folder open opens, and closes it (SyncDir,
// SyncRoot); on Windows it opens nothing.
func syncOpened(open func() (*os.File, error)) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := open()
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// record writes the journal before the temporary file exists. It is not
// synced: it must outlive the process, which the page cache does; after a
// power loss it may be gone, and a temporary file it named stays behind,
// harmless, under a name no source has.
func (w *Writer) record(j journal) error {
	dir, err := w.stateDir(true)
	if err != nil {
		return err
	}
	defer dir.Close()
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	if len(data) > maxWriteJournalBytes {
		return &TooLargeError{Path: filepath.Join(w.State, journalName), Max: maxWriteJournalBytes, Size: int64(len(data))}
	}
	if err := StateFile(dir, w.State, journalName); err != nil {
		return err
	}
	f, err := dir.OpenFile(journalName, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// clear ends the journal: no temporary file is left. Removing a name
// never follows a link.
func (w *Writer) clear() {
	if dir, err := w.stateDir(false); err == nil {
		dir.Remove(journalName)
		dir.Close()
	}
}

// Recover removes what an interrupted write left behind: the temporary
// files its journal names. It returns them, relative to Root. A journal
// that is a symbolic link, or that names anything but a temporary file of
// this package below Root (reached without a link), is refused: nothing
// is removed and the error says why.
func (w *Writer) Recover() ([]string, error) {
	dir, err := w.stateDir(false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	data, err := ReadStateFile(dir, w.State, journalName, maxWriteJournalBytes)
	dir.Close()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var j journal
	if err := json.Unmarshal(data, &j); err != nil {
		// A journal cut by a crash names nothing that was created yet:
		// it is written before the temporary file.
		w.clear()
		return nil, nil
	}
	var paths []string
	for _, rel := range j.Temp {
		path, err := w.tempBelow(rel)
		if err != nil {
			return nil, fmt.Errorf("the journal %s: %w", filepath.Join(w.State, journalName), err)
		}
		paths = append(paths, path)
	}
	var removed []string
	for i, path := range paths {
		if err := os.Remove(path); err == nil {
			removed = append(removed, filepath.Clean(j.Temp[i]))
		} else if !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
	}
	w.clear()
	return removed, nil
}

// tempBelow resolves a temporary file a journal names: a name this
// package makes, in a folder below Root reached without a link.
func (w *Writer) tempBelow(rel string) (string, error) {
	if !safeRel(rel) || !IsTemp(rel) {
		return "", fmt.Errorf("%q is not a temporary file below the sources", rel)
	}
	clean := filepath.Clean(rel)
	parent := w.Root
	if d := filepath.Dir(clean); d != "." {
		var err error
		if parent, err = w.existing(d); err != nil {
			return "", err
		}
	}
	return filepath.Join(parent, filepath.Base(clean)), nil
}

// IsTemp reports a name this package gives its temporary files.
func IsTemp(name string) bool { return strings.HasPrefix(filepath.Base(name), tempPrefix) }
