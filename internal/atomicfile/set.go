package atomicfile

// Sets: changes of several files, and renames of files and folders, made
// all or none. Before anything is touched a journal in the state
// directory records every file with the digests of its bytes before and
// after and the replacements between them, and the renames. The new
// contents are written to temporary files beside the originals and
// synced; then the journal is marked committed, and only then are the
// temporary files renamed over the originals and the renames made. A
// crash before the mark is rolled back at the next Recover (the
// temporary files go, no original was touched); a crash after it is
// rolled forward (every file gets its new bytes, every rename is made).
// A file that holds neither its old nor its new bytes stops the recovery:
// the journal stays and every write is refused until a person decides.

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/contractkit/contractkit/internal/byteedit"
)

// ErrRecoveryRequired: an interrupted set could not be recovered; its
// journal stays and no write is made until it is.
var ErrRecoveryRequired = errors.New("an interrupted multi-file write must be recovered first")

// SetFile is one file of a set: its path below the root (before the
// renames of the set), the bytes it must hold now, and the replacements
// that make its new bytes.
type SetFile struct {
	Rel   string
	Old   []byte
	Edits []byteedit.Edit
}

// Move renames a file or a folder below the root.
type Move struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Set is a change of several files, then renames, made all or none. Meta
// is the caller's and comes back from Recover after a roll forward.
type Set struct {
	Files []SetFile
	Moves []Move
	Meta  json.RawMessage
}

// setJournalName is the journal of a set in the state directory.
const setJournalName = "set-journal.json"

// Phases of a set journal.
const (
	phasePrepared  = "prepared"
	phaseCommitted = "committed"
)

type setJournal struct {
	ID    string          `json:"id"`
	Phase string          `json:"phase"`
	Files []journalFile   `json:"files"`
	Moves []Move          `json:"moves"`
	Meta  json.RawMessage `json:"meta,omitempty"`
}

type journalFile struct {
	Rel    string          `json:"rel"`   // before the renames
	Moved  string          `json:"moved"` // after them
	Before string          `json:"before"`
	After  string          `json:"after"`
	Edits  []byteedit.Edit `json:"edits"`
	Temp   string          `json:"temp"`
	mode   fs.FileMode     // not journaled: read again when needed
	newB   []byte          // the new bytes, in memory while applying
}

// SetError is a set refused before anything was written: the file (or
// rename) concerned and why.
type SetError struct {
	Rel string
	Err error
}

func (e *SetError) Error() string { return e.Rel + ": " + e.Err.Error() }
func (e *SetError) Unwrap() error { return e.Err }

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// crashAt lets the tests stop a set dead after a named step, as a kill
// would: nothing after it runs, no clean-up either.
var crashAt func(step string) bool

var errCrashed = errors.New("stopped by the test")

func crashed(step string) bool { return crashAt != nil && crashAt(step) }

// Pending reports whether a set journal waits for recovery. A state
// folder that cannot be reached (a link) holds no journal of this
// writer; the write that follows reports the link.
func (w *Writer) Pending() bool {
	dir, err := w.stateDir(false)
	if err != nil {
		return false
	}
	defer dir.Close()
	_, err = dir.Lstat(setJournalName)
	return err == nil
}

// moved maps a path through the renames of a set.
func moved(rel string, moves []Move) string {
	for _, m := range moves {
		from, to := filepath.Clean(m.From), filepath.Clean(m.To)
		switch {
		case rel == from:
			rel = to
		case strings.HasPrefix(rel, from+string(filepath.Separator)):
			rel = to + rel[len(from):]
		}
	}
	return rel
}

// existing checks that rel (a file or a folder) exists below the root
// with no symbolic link on the way.
func (w *Writer) existing(rel string) (string, error) {
	clean := filepath.Clean(rel)
	if rel == "" || filepath.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%q is not a path below the sources", rel)
	}
	cur := w.Root
	parts := strings.Split(clean, string(filepath.Separator))
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s: %w", filepath.Join(parts[:i+1]...), ErrSymlink)
		}
	}
	return cur, nil
}

// absent checks that rel does not exist and that its folder does, with
// no symbolic link on the way.
func (w *Writer) absent(rel string) (string, error) {
	clean := filepath.Clean(rel)
	dir := filepath.Dir(clean)
	parent := w.Root
	if dir != "." {
		var err error
		if parent, err = w.existing(dir); err != nil {
			return "", err
		}
	}
	path := filepath.Join(parent, filepath.Base(clean))
	if _, err := os.Lstat(path); err == nil {
		return "", fmt.Errorf("%s: %w", clean, fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return path, nil
}

// ApplySet writes a set: every file gets its new bytes and every rename
// is made, or (on an error before the commit point) nothing changes. The
// caller holds the project's lock.
func (w *Writer) ApplySet(s Set) error {
	if w.Pending() {
		return ErrRecoveryRequired
	}
	var idb [8]byte
	if _, err := rand.Read(idb[:]); err != nil {
		return err
	}
	j := setJournal{ID: hex.EncodeToString(idb[:]), Phase: phasePrepared, Moves: s.Moves, Meta: s.Meta}
	seen := map[string]bool{}
	for i, f := range s.Files {
		if seen[filepath.Clean(f.Rel)] {
			return &SetError{Rel: f.Rel, Err: errors.New("named twice in one set")}
		}
		seen[filepath.Clean(f.Rel)] = true
		path, mode, err := w.path(f.Rel)
		if err != nil {
			return &SetError{Rel: f.Rel, Err: err}
		}
		cur, err := os.ReadFile(path)
		if err != nil {
			return &SetError{Rel: f.Rel, Err: err}
		}
		if !bytes.Equal(cur, f.Old) {
			return &SetError{Rel: f.Rel, Err: ErrChanged}
		}
		nb, err := byteedit.Apply(f.Old, f.Edits)
		if err != nil {
			return &SetError{Rel: f.Rel, Err: err}
		}
		rel := filepath.Clean(f.Rel)
		tmp := filepath.Join(filepath.Dir(rel), tempName(filepath.Base(rel), "-"+j.ID+"-"+strconv.Itoa(i)))
		j.Files = append(j.Files, journalFile{Rel: rel, Moved: moved(rel, s.Moves), Before: digest(f.Old), After: digest(nb),
			Edits: f.Edits, Temp: tmp, mode: mode, newB: nb})
	}
	// Renames are checked in order, each against the tree the ones before
	// it leave.
	gone, made := map[string]bool{}, map[string]bool{}
	for _, m := range s.Moves {
		from, to := filepath.Clean(m.From), filepath.Clean(m.To)
		if _, err := w.existing(from); err != nil && !made[from] {
			return &SetError{Rel: m.From, Err: err}
		}
		if _, err := w.absent(to); err != nil && !gone[to] {
			return &SetError{Rel: m.To, Err: err}
		}
		gone[from], made[to] = true, true
		delete(gone, to)
	}
	if err := w.writeSetJournal(j); err != nil {
		return err
	}
	if crashed("journal") {
		return errCrashed
	}
	rollback := func(err error) error {
		for _, f := range j.Files {
			os.Remove(filepath.Join(w.Root, f.Temp))
		}
		w.removeSetJournal()
		return err
	}
	// The new bytes, beside each original, synced in parallel.
	files := make([]*os.File, len(j.Files))
	for i := range j.Files {
		f := &j.Files[i]
		fh, err := os.OpenFile(filepath.Join(w.Root, f.Temp), os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.mode.Perm())
		if err == nil {
			files[i] = fh
			_, err = fh.Write(f.newB)
		}
		if err == nil {
			err = fh.Chmod(f.mode.Perm())
		}
		if err != nil {
			closeAll(files)
			return rollback(&SetError{Rel: f.Rel, Err: err})
		}
		if crashed("temp") {
			return errCrashed
		}
	}
	if err := parallel(len(files), func(i int) error { return files[i].Sync() }); err != nil {
		closeAll(files)
		return rollback(err)
	}
	if err := closeAll(files); err != nil {
		return rollback(err)
	}
	// The last look: every original still holds what the set was made
	// against.
	for i, f := range j.Files {
		cur, err := os.ReadFile(filepath.Join(w.Root, f.Rel))
		if err != nil {
			return rollback(&SetError{Rel: f.Rel, Err: err})
		}
		if !bytes.Equal(cur, s.Files[i].Old) {
			return rollback(&SetError{Rel: f.Rel, Err: ErrChanged})
		}
	}
	j.Phase = phaseCommitted
	if err := w.writeSetJournal(j); err != nil {
		return rollback(err)
	}
	if crashed("commit") {
		return errCrashed
	}
	if err := w.finish(j, true); err != nil {
		if errors.Is(err, errCrashed) {
			return err
		}
		// Something refused a rename after the commit: finish what can be
		// finished at the next recovery.
		return fmt.Errorf("%w: %v", ErrRecoveryRequired, err)
	}
	return nil
}

// finish makes a committed set whole: each file's temporary file renamed
// over it (or, in recovery, its new bytes written again), the renames
// made, the folders synced and the journal removed.
func (w *Writer) finish(j setJournal, fresh bool) error {
	dirs := map[string]bool{}
	for _, f := range j.Files {
		at := f.Rel
		if !fresh && w.isMoved(j, f) {
			at = f.Moved
		}
		path := filepath.Join(w.Root, at)
		tmp := filepath.Join(w.Root, f.Temp)
		if !fresh {
			// Recovery: the file holds its old bytes or its new ones; it
			// and its temporary file are reached without a link, as the
			// journal may not be this package's.
			tmpRel := f.Temp
			if w.isMoved(j, f) {
				tmpRel = filepath.Join(filepath.Dir(f.Moved), filepath.Base(f.Temp))
			}
			var err error
			if tmp, err = w.tempBelow(tmpRel); err != nil {
				return &SetError{Rel: at, Err: err}
			}
			if path, _, err = w.path(at); err != nil {
				return &SetError{Rel: at, Err: err}
			}
			cur, err := os.ReadFile(path)
			if err != nil {
				return &SetError{Rel: at, Err: err}
			}
			switch digest(cur) {
			case f.After:
				os.Remove(tmp)
				continue
			case f.Before:
			default:
				return &SetError{Rel: at, Err: ErrChanged}
			}
			nb, err := byteedit.Apply(cur, f.Edits)
			if err != nil || digest(nb) != f.After {
				return &SetError{Rel: at, Err: fmt.Errorf("the journal's replacements do not give its new bytes")}
			}
			os.Remove(tmp)
			if err := w.swap(path, at, w.modeOf(path), cur, nb); err != nil {
				return &SetError{Rel: at, Err: err}
			}
			continue
		}
		if err := os.Rename(tmp, path); err != nil {
			return &SetError{Rel: at, Err: err}
		}
		dirs[filepath.Dir(path)] = true
		if crashed("rename") {
			return errCrashed
		}
	}
	if err := syncDirs(dirs); err != nil {
		return err
	}
	dirs = map[string]bool{}
	for _, m := range j.Moves {
		from, to := filepath.Join(w.Root, filepath.Clean(m.From)), filepath.Join(w.Root, filepath.Clean(m.To))
		_, ferr := os.Lstat(from)
		_, terr := os.Lstat(to)
		switch {
		case ferr != nil && terr == nil:
			continue // made before the crash
		case ferr == nil && errors.Is(terr, fs.ErrNotExist):
		default:
			return &SetError{Rel: m.From, Err: fmt.Errorf("cannot rename to %s: %v / %v", m.To, ferr, terr)}
		}
		if _, err := w.existing(m.From); err != nil {
			return &SetError{Rel: m.From, Err: err}
		}
		if _, err := w.absent(m.To); err != nil {
			return &SetError{Rel: m.To, Err: err}
		}
		if err := os.Rename(from, to); err != nil {
			return &SetError{Rel: m.From, Err: err}
		}
		dirs[filepath.Dir(from)], dirs[filepath.Dir(to)] = true, true
		if crashed("move") {
			return errCrashed
		}
	}
	if err := syncDirs(dirs); err != nil {
		return err
	}
	return w.removeSetJournal()
}

// isMoved reports whether the rename that carries a file was made.
func (w *Writer) isMoved(j setJournal, f journalFile) bool {
	if f.Moved == f.Rel {
		return false
	}
	_, err := os.Lstat(filepath.Join(w.Root, f.Rel))
	return errors.Is(err, fs.ErrNotExist)
}

func (w *Writer) modeOf(path string) fs.FileMode {
	if st, err := os.Lstat(path); err == nil {
		return st.Mode()
	}
	return 0o644
}

// Recovered says what Recover did with an interrupted set.
type Recovered struct {
	Forward bool            // rolled forward: the set is written
	Back    bool            // rolled back: nothing of it stays
	Meta    json.RawMessage // the set's Meta
}

// RecoverSet finishes or undoes a set a crash interrupted: a prepared set
// is rolled back, a committed one forward. When a file holds neither its
// old nor its new bytes the journal stays and ErrRecoveryRequired is
// returned with the file.
//
// A journal that is a symbolic link, or in a state folder reached through
// one, is refused, as is one naming a path outside the root.
func (w *Writer) RecoverSet() (Recovered, error) {
	dir, err := w.stateDir(false)
	if errors.Is(err, fs.ErrNotExist) {
		return Recovered{}, nil
	}
	if err != nil {
		return Recovered{}, fmt.Errorf("%w: %w", ErrRecoveryRequired, err)
	}
	dir.Remove(setJournalName + ".tmp")
	data, err := ReadStateFile(dir, w.State, setJournalName, maxSetJournalBytes)
	dir.Close()
	if errors.Is(err, fs.ErrNotExist) {
		return Recovered{}, nil
	}
	if err != nil {
		return Recovered{}, fmt.Errorf("%w: %w", ErrRecoveryRequired, err)
	}
	var j setJournal
	if err := json.Unmarshal(data, &j); err != nil {
		// Written through a renamed temporary file, a journal is whole or
		// absent; one that does not read was not made by this package.
		return Recovered{}, fmt.Errorf("%w: the journal %s does not read: %v", ErrRecoveryRequired, setJournalName, err)
	}
	for _, f := range j.Files {
		if !safeRel(f.Rel) || !safeRel(f.Moved) || !safeRel(f.Temp) || !IsTemp(f.Temp) {
			return Recovered{}, fmt.Errorf("%w: the journal names %q", ErrRecoveryRequired, f.Rel)
		}
	}
	for _, m := range j.Moves {
		if !safeRel(m.From) || !safeRel(m.To) {
			return Recovered{}, fmt.Errorf("%w: the journal names %q", ErrRecoveryRequired, m.From)
		}
	}
	switch j.Phase {
	case phasePrepared:
		// Nothing was renamed yet: only the temporary files go.
		for _, f := range j.Files {
			if tmp, err := w.tempBelow(f.Temp); err == nil {
				os.Remove(tmp)
			}
		}
		return Recovered{Back: true, Meta: j.Meta}, w.removeSetJournal()
	case phaseCommitted:
		if err := w.finish(j, false); err != nil {
			return Recovered{}, fmt.Errorf("%w: %v", ErrRecoveryRequired, err)
		}
		return Recovered{Forward: true, Meta: j.Meta}, nil
	}
	return Recovered{}, fmt.Errorf("%w: the journal's phase is %q", ErrRecoveryRequired, j.Phase)
}

func safeRel(rel string) bool {
	c := filepath.Clean(rel)
	return rel != "" && !filepath.IsAbs(c) && c != "." && c != ".." && !strings.HasPrefix(c, ".."+string(filepath.Separator))
}

// writeSetJournal writes the journal durably: a temporary file, synced,
// renamed over the journal, and the state directory synced.
func (w *Writer) writeSetJournal(j setJournal) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	// Measured as committed (its longest form), so that a set refused
	// is refused before the first write, never at its commit point.
	size := len(data)
	if j.Phase == phasePrepared {
		size += len(phaseCommitted) - len(phasePrepared)
	}
	if size > maxSetJournalBytes {
		return &TooLargeError{Path: filepath.Join(w.State, setJournalName), Max: maxSetJournalBytes, Size: int64(size)}
	}
	dir, err := w.stateDir(true)
	if err != nil {
		return err
	}
	defer dir.Close()
	return WriteStateFile(dir, w.State, setJournalName, data)
}

func (w *Writer) removeSetJournal() error {
	dir, err := w.stateDir(false)
	if err != nil {
		return err
	}
	defer dir.Close()
	if err := dir.Remove(setJournalName); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return SyncRoot(dir)
}

func closeAll(files []*os.File) error {
	var first error
	for i, f := range files {
		if f != nil {
			if err := f.Close(); err != nil && first == nil {
				first = err
			}
			files[i] = nil
		}
	}
	return first
}

func syncDirs(dirs map[string]bool) error {
	list := make([]string, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	return parallel(len(list), func(i int) error { return SyncDir(list[i]) })
}

// parallel runs fn for 0..n-1 on a few goroutines: fsyncs of different
// files overlap in the device's queue.
func parallel(n int, fn func(i int) error) error {
	const workers = 8
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		next  int
	)
	for k := 0; k < workers && k < n; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return first
}
