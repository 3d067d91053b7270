// Package sourceread reads the files of an eska project's source tree
// for the IDE backend: it refuses anything that resolves outside the tree
// or is not a regular file, bounds what it reads, maps failures to the
// contract's source-error reasons, and parses descriptors, through the
// disk cache when the session has one. It never writes.
package sourceread

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/contractkit/contractkit/designer"
	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata/diskcache"
)

// Error is a failure to read a file, with the contract's reason.
type Error struct {
	Path   string
	Reason gen.SourceErrorReason // missing, io, outside_source, not_file, too_large, or a parse reason
	XML    bool                  // the file was read but is not valid XML metadata
	Err    error
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s: %v", e.Path, e.Reason, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// Reader reads files of one project's source tree. It refuses anything
// that resolves outside the tree, and never writes.
type Reader struct {
	Src    string // the source directory, symlinks resolved
	SrcDir string // the source directory as the manifest names it
	Limit  designer.Limits
	Cache  *diskcache.Cache // nil unless the session asked for the disk cache
	Full   int              // whole descriptors parsed, for tests

	dirs map[string]string // directory → its real path, for the containment check
	buf  []byte            // ReadTemp's buffer; each copy of a reader needs its own
}

// Fork is a copy of r for another goroutine: its directory cache and
// buffer are its own.
func (r *Reader) Fork() *Reader {
	c := *r
	c.dirs, c.buf = nil, nil
	return &c
}

// realDir returns the real path of a directory. Each directory costs one
// Lstat the first time, its parent's answer being kept: a tree has
// thousands of files in comparatively few folders.
func (r *Reader) realDir(dir string) (string, error) {
	dir = filepath.Clean(dir)
	if real, ok := r.dirs[dir]; ok {
		return real, nil
	}
	real := dir
	if parent := filepath.Dir(dir); parent != dir {
		rp, err := r.realDir(parent)
		if err != nil {
			return "", err
		}
		real = filepath.Join(rp, filepath.Base(dir))
		st, err := os.Lstat(real)
		if err != nil {
			return "", err
		}
		switch {
		case st.Mode()&os.ModeSymlink != 0:
			if real, err = filepath.EvalSymlinks(real); err != nil {
				return "", err
			}
		case !st.IsDir():
			return "", fmt.Errorf("%s: not a directory", real)
		}
	}
	if r.dirs == nil {
		r.dirs = map[string]string{}
	}
	r.dirs[dir] = real
	return real, nil
}

// resolve returns the real path of a file and what it is, following a
// link in its last element.
func (r *Reader) resolve(path string) (string, os.FileInfo, error) {
	dir, base := filepath.Split(path)
	realDir, err := r.realDir(dir)
	if err != nil {
		return "", nil, err
	}
	real := filepath.Join(realDir, base)
	st, err := os.Lstat(real)
	if err != nil {
		return "", nil, err
	}
	if st.Mode()&os.ModeSymlink != 0 {
		if real, err = filepath.EvalSymlinks(real); err != nil {
			return "", nil, err
		}
		if st, err = os.Stat(real); err != nil {
			return "", nil, err
		}
	}
	return real, st, nil
}

// ForgetDirs drops the directory cache: a refresh or a file event may
// follow renamed or relinked folders.
func (r *Reader) ForgetDirs() { r.dirs = nil }

// Read returns a file's bytes, checked to lie inside the sources. The
// kind and size are checked before the file is opened, so a FIFO never
// blocks the worker.
func (r *Reader) Read(path string) ([]byte, error) { return r.readInto(path, nil) }

// ReadTemp is read into the reader's own buffer, for a caller that is
// done with the bytes before the next read: parsing copies what it keeps.
func (r *Reader) ReadTemp(path string) ([]byte, error) {
	data, err := r.readInto(path, r.buf)
	if cap(data) > cap(r.buf) && cap(data) <= maxTempBuffer {
		r.buf = data[:0]
	}
	return data, err
}

// maxTempBuffer bounds the buffer a reader keeps for ReadTemp.
const maxTempBuffer = 1 << 20

// readInto is read into buf when it is large enough.
func (r *Reader) readInto(path string, buf []byte) ([]byte, error) {
	dir, base := filepath.Split(path)
	realDir, err := r.realDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{Path: path, Reason: gen.SourceErrorReasonMissing, Err: err}
		}
		return nil, &Error{Path: path, Reason: gen.SourceErrorReasonIo, Err: err}
	}
	// A file that is not a link, in a folder inside the sources, is read
	// with one open, one stat and its reads; a link takes the long way.
	if real := filepath.Join(realDir, base); within(r.Src, real) {
		if data, done, err := r.readPlain(path, real, buf); done {
			return data, err
		}
	}
	real, st, err := r.resolve(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{Path: path, Reason: gen.SourceErrorReasonMissing, Err: err}
		}
		return nil, &Error{Path: path, Reason: gen.SourceErrorReasonIo, Err: err}
	}
	if !within(r.Src, real) {
		return nil, &Error{Path: path, Reason: gen.SourceErrorReasonOutsideSource, Err: errors.New("resolves outside the source directory")}
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{Path: path, Reason: gen.SourceErrorReasonNotFile, Err: errors.New("not a regular file")}
	}
	if st.Size() > int64(r.Limit.MaxBytes) {
		return nil, r.tooLarge(path, st.Size())
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, &Error{Path: path, Reason: gen.SourceErrorReasonIo, Err: err}
	}
	defer f.Close()
	// One read of the size Lstat gave. A file rewritten meanwhile reads
	// short or cut off; the client's file event for that write makes the
	// owner read again.
	data := sized(buf, int(st.Size()))
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, &Error{Path: path, Reason: gen.SourceErrorReasonIo, Err: err}
	}
	return data[:n], nil
}

// sized returns buf resized to n bytes, or a new buffer when it is short.
func sized(buf []byte, n int) []byte {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]byte, n)
}

// tooLarge is the error of a file over the size limit.
func (r *Reader) tooLarge(path string, size int64) error {
	return &Error{Path: path, Reason: gen.SourceErrorReasonTooLarge, XML: true, Err: fmt.Errorf("%d bytes is over the limit of %d", size, r.Limit.MaxBytes)}
}

// Exists reports whether a regular file exists inside the sources.
func (r *Reader) Exists(path string) bool {
	real, st, err := r.resolve(path)
	return err == nil && within(r.Src, real) && st.Mode().IsRegular()
}

func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Descriptor reads one descriptor file, from the disk cache when an
// entry for exactly these bytes exists. A descriptor from the cache has
// no element tree; the backend parses the file when one is needed.
func (r *Reader) Descriptor(path string) (*designer.Descriptor, error) {
	return r.Settle(r.Fetch(path))
}

// Fetched is a descriptor read, perhaps on the index's prefetching
// goroutine; Settle completes it on the worker.
type Fetched struct {
	d        *designer.Descriptor
	err      error
	rel, sum string
	hit      bool // from the disk cache
	rejected bool // the cache held an entry that failed its checks
	store    bool // parsed; the cache wants its entry
}

// Fetch reads and parses a descriptor, or takes it from the disk cache.
// It touches nothing shared but the files, so it may run beside the
// worker on a copy of the reader.
func (r *Reader) Fetch(path string) Fetched {
	if r.Cache == nil {
		d, err := r.Parse(path)
		return Fetched{d: d, err: err}
	}
	data, err := r.ReadTemp(path)
	if err != nil {
		return Fetched{err: err}
	}
	f := Fetched{sum: diskcache.Sum(data)}
	f.rel, _ = filepath.Rel(r.SrcDir, path)
	d, res := r.Cache.Peek(f.rel, f.sum)
	switch res {
	case diskcache.Hit:
		f.d, f.hit = d, true
		return f
	case diskcache.Rejected:
		f.rejected = true
	}
	f.d, f.err = r.ParseBytes(path, data)
	f.store = f.err == nil
	return f
}

// Settle does the worker's part of a fetch: the cache's counters and the
// entry of a freshly parsed descriptor.
func (r *Reader) Settle(f Fetched) (*designer.Descriptor, error) {
	if r.Cache != nil && f.sum != "" {
		if f.hit {
			r.Cache.Hits++
		} else {
			r.Cache.Misses++
		}
		if f.rejected {
			r.Cache.Rejected++
		}
		if f.store {
			r.Cache.Store(f.rel, f.sum, f.d)
		}
	}
	return f.d, f.err
}

// Parse reads one descriptor file for the tree and the index: its
// skeleton only (kinds, names, synonyms, children, diagnostics). The
// element tree it returns is partial; the backend parses the whole file
// when properties need it.
func (r *Reader) Parse(path string) (*designer.Descriptor, error) {
	data, err := r.ReadTemp(path)
	if err != nil {
		return nil, err
	}
	return r.ParseBytes(path, data)
}

func (r *Reader) ParseBytes(path string, data []byte) (*designer.Descriptor, error) {
	d, err := designer.ParseDescriptorSummary(path, data, r.Limit)
	return r.Interpret(path, d, err)
}

// ParseFull reads and parses one descriptor file with its whole element
// tree.
func (r *Reader) ParseFull(path string) (*designer.Descriptor, error) {
	r.Full++
	data, err := r.Read(path)
	if err != nil {
		return nil, err
	}
	d, err := designer.ParseDescriptor(path, data, r.Limit)
	return r.Interpret(path, d, err)
}

// Interpret maps a parse failure to the contract's xml_invalid reasons.
func (r *Reader) Interpret(path string, d *designer.Descriptor, err error) (*designer.Descriptor, error) {
	if err != nil {
		var pe *designer.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{Path: path, Reason: gen.SourceErrorReason(pe.Reason), XML: true, Err: err}
		}
		return nil, err
	}
	return d, nil
}
