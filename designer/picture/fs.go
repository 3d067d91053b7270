package picture

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

const (
	descriptorFile = "Picture.xml"
	// pictureDir is the directory Designer keeps the referenced file in:
	// the descriptor's name without its extension.
	pictureDir = "Picture"
)

// rootDir is the export root with its symlinks resolved, so that
// containment can be checked by comparing real paths.
//
// Files are opened through an os.Root as well: the containment check on
// real paths gives the precise status, and os.Root guarantees that a
// symlink swapped in after that check still cannot lead the read outside.
type rootDir struct {
	real string
	fs   *os.Root
}

func openRoot(dir string) (*rootDir, *failure) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, failf(StatusInvalid, "source root cannot be made absolute")
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, ioFailure(err, "source root")
	}
	if !fi.IsDir() {
		// Nothing can exist below a file, so the picture is missing.
		return nil, failf(StatusMissing, "source root is not a directory")
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, ioFailure(err, "source root")
	}
	fsys, err := os.OpenRoot(real)
	if err != nil {
		return nil, ioFailure(err, "source root")
	}
	return &rootDir{real: real, fs: fsys}, nil
}

func (r *rootDir) close() { r.fs.Close() }

func (r *rootDir) load(name string, l Limits) Preview {
	ext := filepath.Join(r.real, "CommonPictures", name, "Ext")
	desc, f := r.readFile(filepath.Join(ext, descriptorFile), l.XML, "Picture.xml")
	if f != nil {
		return f.preview()
	}
	ref, f := parseDescriptor(desc, l)
	if f != nil {
		return f.preview()
	}
	// The real layout first, the specification's literal wording second.
	var data []byte
	for _, dir := range []string{filepath.Join(ext, pictureDir), ext} {
		data, f = r.readPicture(filepath.Join(dir, ref), l)
		if f == nil || f.status != StatusMissing {
			break
		}
	}
	if f != nil {
		return f.preview()
	}
	if isZip(data) {
		return selectFromArchive(data, l)
	}
	mime, ok := Sniff(data)
	if !ok {
		return fail(StatusUnsupported, "the referenced file is not a supported image format")
	}
	return Preview{Status: StatusReady, MIMEType: mime, Data: data, FileName: ref}
}

// resolve returns the real path of p after checking that it exists, is a
// regular file and lies inside the source root. The existence check comes
// first so that a missing file is reported as missing even when a dangling
// symlink points outside: nothing outside is ever read in that case.
func (r *rootDir) resolve(p, what string) (string, int64, *failure) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", 0, ioFailure(err, what)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", 0, ioFailure(err, what)
	}
	if !within(r.real, real) {
		return "", 0, failf(StatusInvalid, what+" resolves outside the source root")
	}
	if !fi.Mode().IsRegular() {
		return "", 0, failf(StatusInvalid, what+" is not a regular file")
	}
	return real, fi.Size(), nil
}

// readFile reads a whole file that must not exceed limit bytes. The size is
// checked before reading and the read itself is bounded, because the file
// may grow between the two.
func (r *rootDir) readFile(p string, limit int64, what string) ([]byte, *failure) {
	real, size, f := r.resolve(p, what)
	if f != nil {
		return nil, f
	}
	if size > limit {
		return nil, failf(StatusTooLarge, what+" is over the size limit")
	}
	fh, f := r.openRegular(real, what)
	if f != nil {
		return nil, f
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, ioFailure(err, what)
	}
	if int64(len(b)) > limit {
		return nil, failf(StatusTooLarge, what+" is over the size limit")
	}
	return b, nil
}

// readPicture reads the referenced file. Whether the archive or the picture
// limit applies depends on the content, not on the name, so the first bytes
// are read before the size is judged.
func (r *rootDir) readPicture(p string, l Limits) ([]byte, *failure) {
	const what = "the referenced file"
	real, size, f := r.resolve(p, what)
	if f != nil {
		return nil, f
	}
	if size > max(l.Archive, l.Picture) {
		return nil, failf(StatusTooLarge, what+" is over the size limit")
	}
	fh, f := r.openRegular(real, what)
	if f != nil {
		return nil, f
	}
	defer fh.Close()
	head := make([]byte, 4)
	n, err := io.ReadFull(fh, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, ioFailure(err, what)
	}
	head = head[:n]
	limit, detail := l.Picture, what+" is over the picture size limit"
	if isZip(head) {
		limit, detail = l.Archive, what+" is over the archive size limit"
	}
	if size > limit {
		return nil, failf(StatusTooLarge, detail)
	}
	rest, err := io.ReadAll(io.LimitReader(fh, limit+1-int64(len(head))))
	if err != nil {
		return nil, ioFailure(err, what)
	}
	b := append(head, rest...)
	if int64(len(b)) > limit {
		return nil, failf(StatusTooLarge, detail)
	}
	return b, nil
}

// openRegular opens a file that resolve found regular and checks again on
// the open handle, so that a file swapped for a FIFO or a directory in
// between is not read from.
func (r *rootDir) openRegular(real, what string) (*os.File, *failure) {
	rel, err := filepath.Rel(r.real, real)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, failf(StatusInvalid, what+" resolves outside the source root")
	}
	fh, err := r.fs.Open(rel)
	if err != nil {
		return nil, ioFailure(err, what)
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, ioFailure(err, what)
	}
	if !fi.Mode().IsRegular() {
		fh.Close()
		return nil, failf(StatusInvalid, what+" is not a regular file")
	}
	return fh, nil
}

// within reports whether p is root or below it; both must be real paths.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && filepath.IsLocal(rel)
}

// ioFailure maps a file-system error to a status. A path whose parent is a
// file cannot exist either, so ENOTDIR counts as missing; a symlink loop is
// a broken reference rather than a passing I/O problem.
func ioFailure(err error, what string) *failure {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return failf(StatusMissing, what+" does not exist")
	case errors.Is(err, syscall.ELOOP):
		return failf(StatusInvalid, what+" is a symlink loop")
	case errors.Is(err, fs.ErrPermission):
		return failf(StatusUnavailable, what+" is not readable: permission denied")
	default:
		return failf(StatusUnavailable, what+" could not be read")
	}
}
