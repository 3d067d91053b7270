package main

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
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
// nothing: never a link, a device, a pipe or a folder, nor reached through
// a link someone else may plant or change (onTheWay). It is replaced only if it is still the file it was
// when the record began (the snapshot: the same file, mode, size and time,
// and the same bytes), keeping its permissions; a name that was free then
// is taken only if it is still free, so a record never replaces another.
type recordFile struct {
	path string
	// dir is the target's folder, opened when the record began (held
	// open, it stays that folder wherever its path leads by now);
	// tmpName is the temporary file's name in it.
	dir     *os.Root
	tmpName string
	tmp     *os.File
	w       *bufio.Writer
	// had is the target as the record found it; nil, it was free.
	had fs.FileInfo
	// sum is the SHA-256 of the bytes had held when the record began.
	sum [sha256.Size]byte
	// nextFree, when set, lets commit take the next free name (a tap's
	// run-…-001-2.ndjson) instead of failing when the name was taken
	// meanwhile.
	nextFree bool
	// lost is why the record could not be written, once that happened:
	// the run is checked on without it.
	lost error
	// onLost is told, once, that the record was lost.
	onLost func(error)
	// tmpLeft, once the record is in place, is why its temporary name
	// could not be removed (placeNew), nil when it was: the record is
	// kept all the same.
	tmpLeft error
}

// recordTempPrefix starts the name of a record being written.
const recordTempPrefix = ".agui-record-"

// maxCompared is the largest file a record replaces: before the rename,
// the file is read again and its bytes compared with those it held when
// the record began, and that costs a read of the whole file at the start
// and at the end. A larger file is refused at the start, before the run
// is asked for (a test lowers it).
var maxCompared int64 = 256 << 20

// targetProblem says why path cannot take a record: it is reached through
// an untrusted link, it is not a regular file (a link, a folder, a device, a pipe, a
// socket), this process may not write it, or it is too large to compare.
// It returns the file as it is now, or nil when the name is free.
func targetProblem(path string) (fs.FileInfo, error) {
	st, err := onTheWay(path)
	switch {
	case err != nil:
		return nil, err
	case st == nil:
		return nil, nil
	case st.IsDir():
		return nil, fmt.Errorf("%s is a directory, not a record file", path)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is %s, not a regular file; agui saves a record as a new file or in place of a regular one", path, fileKind(st.Mode()))
	case st.Size() > maxCompared:
		return nil, fmt.Errorf("%s holds %d bytes, more than the %d agui compares before it replaces a file; save under another name, or move it away", path, st.Size(), maxCompared)
	}
	// Asked of the path cleaned, as onTheWay looked at it: "x/../f"
	// is f beside x, whatever x is.
	if err := readOnly(filepath.Clean(path), st); err != nil {
		return nil, err
	}
	return st, nil
}

// onTheWay looks at each part of the way to path and at path itself
// (atomicfile.TrustedWay): path itself may not be a link, and a link on
// the way is followed only when it is trusted (it belongs to root or to
// this user, and no one else may change the folder it is in), since one
// that someone else may plant or change could send the record somewhere
// else than the user meant; a file where a folder belongs can take no
// record. The way starts at the root of an absolute path, or at the
// working folder for a relative one (the working folder itself may be
// reached through links: it is the user's). It returns path as Lstat
// sees it, nil when it does not exist.
func onTheWay(path string) (fs.FileInfo, error) {
	st, err := atomicfile.TrustedWay(path)
	return st, wayProblem(path, err)
}

// folderOnTheWay is onTheWay for a folder records are made in (a tap's
// --dir): a trusted link there is on the way to them, and followed.
func folderOnTheWay(dir string) (fs.FileInfo, error) {
	st, err := atomicfile.TrustedFolderWay(dir)
	return st, wayProblem(dir, err)
}

// wayProblem says in one line what on the way to path stops the record.
func wayProblem(path string, err error) error {
	var le *atomicfile.LinkError
	var ue *atomicfile.UntrustedLinkError
	var te *atomicfile.TooManyLinksError
	var nd *atomicfile.NotDirError
	switch {
	case errors.As(err, &le):
		return fmt.Errorf("%s is a symbolic link; agui does not write a record in place of a link (give the file's own path)", path)
	case errors.As(err, &ue):
		return fmt.Errorf("%s: %s is a symbolic link agui does not follow: %s (a link on the way is followed only when it belongs to root or this user and no one else may change its folder; give the folder's own path)", path, ue.Path, ue.Why)
	case errors.As(err, &te):
		return fmt.Errorf("%s: more than %d symbolic links on the way, the last %s (a loop of links?)", path, atomicfile.MaxLinks, te.Path)
	case errors.As(err, &nd):
		return fmt.Errorf("%s: %s is not a folder, so nothing can be made in it", path, nd.Path)
	}
	return err
}

// digest returns the SHA-256 of the bytes of the regular file at path,
// which must still be the file want describes (opened without following
// a link, then compared) and hold no more than maxCompared bytes.
func digest(path string, want fs.FileInfo) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	// Cleaned as onTheWay and the folder's opening clean it: the file
	// read is the one they looked at.
	f, err := atomicfile.OpenNoFollow(filepath.Clean(path))
	if err != nil {
		return sum, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return sum, err
	}
	if !os.SameFile(st, want) || !st.Mode().IsRegular() {
		return sum, errTargetChanged
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxCompared+1))
	if err != nil {
		return sum, err
	}
	if n > maxCompared {
		return sum, errTargetChanged
	}
	h.Sum(sum[:0])
	return sum, nil
}

// readOnly says why the file st at path is not one this process may
// replace (atomicfile.WriteDenied): a file made read-only is one someone
// means to keep, and one this user may not write is not agui's to replace,
// though a rename would replace either all the same.
func readOnly(path string, st fs.FileInfo) error {
	err := atomicfile.WriteDenied(path, st)
	var de *atomicfile.DeniedError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, atomicfile.ErrNoWriteBit):
		return fmt.Errorf("%s is read-only; agui does not replace it", path)
	case errors.Is(err, atomicfile.ErrNotWritable) && errors.As(err, &de):
		return fmt.Errorf("%s is read-only to this user (%v); agui does not replace it", path, de.Err)
	case errors.Is(err, atomicfile.ErrStickyOwner):
		return fmt.Errorf("%s belongs to another user in a sticky folder, where only its owner may replace it; agui does not replace it", path)
	}
	return err
}

// folderLooked, when set (by a test), is called in place once the folder
// has been looked at, before the file: there a test swaps the folder.
var folderLooked func()

// errTargetChanged is a target that is not the snapshot any more.
var errTargetChanged = errors.New("the file is not the one the record began with")

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

// openFolder opens the folder dir, in which a record's temporary file is
// made, written, and renamed or removed: all through the folder opened
// once, so that a folder moved or swapped for a link meanwhile takes
// nothing (place looks that the path still leads to it). It is opened by
// a walk with open folders (atomicfile.OpenFolder), following only the
// links onTheWay trusts: a folder on the way swapped for a link after
// onTheWay looked cannot have the record made elsewhere. The error names
// the folder, not a temporary file the user never asked for.
func openFolder(dir string) (*os.Root, error) {
	root, err := atomicfile.OpenFolder(dir)
	var fc *atomicfile.FolderChangedError
	switch {
	case err == nil:
		return root, nil
	case errors.As(err, &fc):
		return nil, fmt.Errorf("%s: a folder on the way was replaced while agui opened it; nothing is written", dir)
	}
	if werr := wayProblem(dir, err); werr != err {
		return nil, werr
	}
	return nil, cannotWriteIn(dir, err)
}

// folderOpening, when set (by a test), is called in place before a
// record's folder is opened (for --save, once the way to the file was
// looked at by name); and wayLooked in place once the way was looked at
// again, before the folder is.
var folderOpening, wayLooked func()

// cannotWriteIn says that no file can be made in the folder dir.
func cannotWriteIn(dir string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot write a file in the folder %s: %w", dir, err)
}

// createTemp makes a new temporary file in the opened folder dir, with
// the given permissions (less the umask), and returns it with its name.
func createTemp(root *os.Root, dir string, perm fs.FileMode) (*os.File, string, error) {
	var suffix [8]byte
	rand.Read(suffix[:])
	name := recordTempPrefix + hex.EncodeToString(suffix[:])
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, "", cannotWriteIn(dir, err)
	}
	return f, name, nil
}

// checkFolder says whether records can be written in dir: it makes a
// temporary file there and removes it.
func checkFolder(dir string) error {
	root, err := openFolder(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	f, name, err := createTemp(root, dir, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	return root.Remove(name)
}

// createRecord starts a record to be saved as path, replacing the
// regular file there, if any.
func createRecord(path string) (*recordFile, error) {
	had, err := targetProblem(path)
	if err != nil {
		return nil, err
	}
	var sum [sha256.Size]byte
	if had != nil {
		if sum, err = digest(path, had); errors.Is(err, errTargetChanged) {
			return nil, fmt.Errorf("%s changed while agui looked at it; it is left as it is", path)
		} else if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("%s cannot be read (%v), and agui replaces a file only once it has read it; it is left as it is", path, err)
		}
	}
	r, err := newRecord(path, had)
	if err == nil {
		r.sum = sum
	}
	return r, err
}

// createRunRecord starts a record to be saved as path or, should that
// name be taken when the record is complete, under the next free name
// (path with -2, -3, … before its extension): a tap's records never
// replace a file, another tap's record among them. The way to the
// folder is judged as the folder is opened (openFolder): a look at it by
// name first would walk it twice on every run.
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
	dir := filepath.Dir(path)
	if folderOpening != nil {
		folderOpening()
	}
	root, err := openFolder(dir)
	if err != nil {
		return nil, err
	}
	tmp, name, err := createTemp(root, dir, perm)
	if err != nil {
		root.Close()
		return nil, err
	}
	return &recordFile{path: path, dir: root, tmpName: name, tmp: tmp, had: had, w: bufio.NewWriterSize(tmp, 64<<10)}, nil
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
		r.dir.Remove(r.tmpName)
		r.dir.Close()
		return "", r.writing(err)
	}
	// The record is in place: a folder that cannot be synced does not
	// undo that. The folder synced is the one opened, which the rename
	// was made in, not whatever its path leads to by now.
	syncFolder(r.dir)
	r.dir.Close()
	return name, nil
}

// syncFolder syncs a record's opened folder (a test watches it).
var syncFolder = atomicfile.SyncRoot

// place gives the complete temporary file its name: over the file the
// record found, if that is still there unchanged, or as a new file.
func (r *recordFile) place() (string, error) {
	// The way is looked at again: a link put on it while the run was
	// recorded must not take the record elsewhere.
	now, err := onTheWay(r.path)
	if err != nil {
		return "", err
	}
	if wayLooked != nil {
		wayLooked()
	}
	// The folder as the path leads to it now, through the trusted links
	// on the way (walked with open folders, as at the start): the one
	// opened at the start, or the record is not put.
	dir := filepath.Dir(r.path)
	again, err := atomicfile.OpenFolder(dir)
	if werr := wayProblem(r.path, err); werr != err {
		return "", werr
	}
	var at, was fs.FileInfo
	if err == nil {
		at, err = again.Stat(".")
		again.Close()
	}
	if err == nil {
		was, err = r.dir.Stat(".")
	}
	if err != nil || !os.SameFile(at, was) {
		return "", fmt.Errorf("%s: the folder %s was moved or replaced while the run was recorded; the record is not put in its place", r.path, dir)
	}
	if folderLooked != nil {
		folderLooked()
	}
	if r.had != nil {
		// The last look before the rename: the same file, with the same
		// mode, size and time, and the same bytes (a rewrite that kept
		// the size and set the time back is a change all the same).
		// The file is the one in the folder opened at the start, which
		// the rename replaces, as well as the one the path leads to: a
		// folder swapped between the looks cannot put another file in
		// the snapshot's place.
		same := now != nil && os.SameFile(now, r.had) && now.Mode() == r.had.Mode() && now.Size() == r.had.Size() && now.ModTime().Equal(r.had.ModTime())
		if same {
			in, err := r.dir.Lstat(filepath.Base(r.path))
			same = err == nil && os.SameFile(in, r.had)
		}
		if same {
			sum, err := digest(r.path, r.had)
			same = err == nil && sum == r.sum
		}
		if !same {
			return "", fmt.Errorf("%s changed while the run was recorded; it is left as it is", r.path)
		}
		return r.path, r.dir.Rename(r.tmpName, filepath.Base(r.path))
	}
	name := r.path
	for n := 2; ; n++ {
		left, err := placeNew(r.dir, r.tmpName, filepath.Base(name))
		if !errors.Is(err, fs.ErrExist) {
			r.tmpLeft = left
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
// not to be had (some file systems), it looks first and renames. Once
// the link is made the record is in place: should tmp then not be
// removed, that is left (why), not an error.
func placeNew(dir *os.Root, tmp, name string) (left, err error) {
	err = dir.Link(tmp, name)
	if err == nil {
		return removeLinked(dir, tmp), nil
	}
	if errors.Is(err, fs.ErrExist) {
		return nil, fs.ErrExist
	}
	if _, lerr := dir.Lstat(name); lerr == nil {
		return nil, fs.ErrExist
	} else if !errors.Is(lerr, fs.ErrNotExist) {
		return nil, lerr
	}
	return nil, dir.Rename(tmp, name)
}

// removeLinked removes a record's temporary name once the record is
// linked under its own (a test makes it fail).
var removeLinked = (*os.Root).Remove

// leftNote says, when the record's temporary name stayed beside it
// (tmpLeft), that the record saved as name is kept and which name to
// remove by hand; "" when none stayed.
func (r *recordFile) leftNote(name string) string {
	if r.tmpLeft == nil {
		return ""
	}
	err := r.tmpLeft
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Sprintf("%s is kept, but its temporary name %s could not be removed (%v); remove it by hand", name, filepath.Join(filepath.Dir(name), r.tmpName), err)
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
	r.dir.Remove(r.tmpName)
	r.dir.Close()
}
