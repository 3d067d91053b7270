// Package metadata is the Designer XML backend of the eska IDE API: it
// opens the projects a manifest selects, serves the Configurator tree,
// objects, properties and sources lazily from the XML, keeps a search
// index built between requests, and applies the client's file events.
// It writes a source only when the client edits it (edit.go).
//
// Requests run on the transport's single worker, so a session's state is
// not locked and changes only between requests; the goroutines a step
// starts (indexing's read-ahead, rename's file scan) work on copies, and
// the disk cache locks its own directory handle.
package metadata

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/contractkit/contractkit/designer"
	"github.com/contractkit/contractkit/ide/metadata/diskcache"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// object is one metadata object the project knows: declared in a
// descriptor already read. Its own children become known when its
// descriptor is read (inline objects are known at once).
type object struct {
	id     string
	info   *designer.KindInfo // nil for an element of unknown kind
	tag    string             // the XML element name
	name   string
	parent *object // the metadata owner; nil for the project root

	desc   string // the descriptor file that defines it (its own, or its owner's)
	own    bool   // desc is a file of its own, read on demand
	loaded bool
	rec    int32  // its record in the search index, plus one; 0 before it has one
	dir    string // the folder of its subordinate files and Ext

	err      error // reading its descriptor failed
	el       *designer.Element
	ns       scope // namespace declarations of its own descriptor's root
	uuid     string
	synonyms []designer.Text
	diags    []designer.Diagnostic // of its own descriptor, or of its own element
	children []*object             // ChildObjects in XML order, unknown ones included

	more *objectMore // what few objects have; nil until one of its fields is set
}

// objectMore holds the fields of an object that only owners, predefined
// items and the root use. Most objects of a large configuration are
// attributes and other leaves: keeping these fields out of object saves
// about a hundred bytes on each (13 MiB on SSL 3.1 × 16).
type objectMore struct {
	// Predefined items, for the kinds that have them.
	predefLoaded bool
	predefErr    error
	predef       []*object
	description  string // a predefined item's Description

	external bool // the root of an external processor or report
	modules  []designer.ModuleRole
	modsDone bool

	kinds map[designer.Kind]int // children by kind, once counted (kindCount)
}

// noMore is what rare returns for an object without objectMore: all zero,
// never written.
var noMore objectMore

// rare returns o's objectMore for reading: a shared zero value when it has
// none. Writers use rareForWrite.
func (o *object) rare() *objectMore {
	if o.more == nil {
		return &noMore
	}
	return o.more
}

// rareForWrite returns o's objectMore, made when it has none.
func (o *object) rareForWrite() *objectMore {
	if o.more == nil {
		o.more = &objectMore{}
	}
	return o.more
}

func (o *object) kind() designer.Kind {
	if o.info == nil {
		return ""
	}
	return o.info.Kind
}

// unsupported reports an object the tree shows only in the unsupported
// group: an unknown kind, or a known kind its owner cannot hold.
func (o *object) unsupported() bool {
	if o.info == nil {
		return true
	}
	if o.parent == nil || o.info.Kind == designer.KindPredefinedItem {
		return false
	}
	return !o.parent.holds(o.info.Kind)
}

// holds reports whether an owner shows children of kind in its tree.
func (o *object) holds(kind designer.Kind) bool {
	if o.info == nil {
		return false
	}
	if o.info.Kind == designer.KindConfiguration {
		return true
	}
	for _, c := range o.collections() {
		if c == kind {
			return true
		}
	}
	return false
}

// collections are the child kinds an object shows. An external data
// processor has no commands.
func (o *object) collections() []designer.Kind {
	if o.info == nil || o.info.Unsupported {
		return nil
	}
	if o.rare().external && o.info.Kind == designer.KindDataProcessor {
		var out []designer.Kind
		for _, c := range o.info.Collections {
			if c != designer.KindCommand {
				out = append(out, c)
			}
		}
		return out
	}
	return o.info.Collections
}

// reasonChanged marks a file that no longer says what the tree read from
// it: it changed without a file event. The contract calls that
// source_changed, and the client refreshes.
const reasonChanged = "changed"

// sourceError is a failure to read a file, with the contract's reason.
type sourceError struct {
	path   string
	reason gen.SourceErrorReason // missing, io, outside_source, not_file, too_large, or a parse reason
	xml    bool                  // the file was read but is not valid XML metadata
	err    error
}

func (e *sourceError) Error() string { return fmt.Sprintf("%s: %s: %v", e.path, e.reason, e.err) }
func (e *sourceError) Unwrap() error { return e.err }

// reader reads files of one project's source tree. It refuses anything
// that resolves outside the tree, and never writes.
type reader struct {
	src    string // the source directory, symlinks resolved
	srcDir string // the source directory as the manifest names it
	limit  designer.Limits
	dirs   map[string]string // directory → its real path, for the containment check
	cache  *diskcache.Cache  // nil unless the session asked for the disk cache
	full   int               // whole descriptors parsed, for tests
	buf    []byte            // readTemp's buffer; each copy of a reader needs its own
}

// realDir returns the real path of a directory. Each directory costs one
// Lstat the first time, its parent's answer being kept: a tree has
// thousands of files in comparatively few folders.
func (r *reader) realDir(dir string) (string, error) {
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
func (r *reader) resolve(path string) (string, os.FileInfo, error) {
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

// forgetDirs drops the directory cache: a refresh or a file event may
// follow renamed or relinked folders.
func (r *reader) forgetDirs() { r.dirs = nil }

// read returns a file's bytes, checked to lie inside the sources. The
// kind and size are checked before the file is opened, so a FIFO never
// blocks the worker.
func (r *reader) read(path string) ([]byte, error) { return r.readInto(path, nil) }

// readTemp is read into the reader's own buffer, for a caller that is
// done with the bytes before the next read: parsing copies what it keeps.
func (r *reader) readTemp(path string) ([]byte, error) {
	data, err := r.readInto(path, r.buf)
	if cap(data) > cap(r.buf) && cap(data) <= maxTempBuffer {
		r.buf = data[:0]
	}
	return data, err
}

// maxTempBuffer bounds the buffer a reader keeps for readTemp.
const maxTempBuffer = 1 << 20

// readInto is read into buf when it is large enough.
func (r *reader) readInto(path string, buf []byte) ([]byte, error) {
	dir, base := filepath.Split(path)
	realDir, err := r.realDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &sourceError{path: path, reason: gen.SourceErrorReasonMissing, err: err}
		}
		return nil, &sourceError{path: path, reason: gen.SourceErrorReasonIo, err: err}
	}
	// A file that is not a link, in a folder inside the sources, is read
	// with one open, one stat and its reads; a link takes the long way.
	if real := filepath.Join(realDir, base); within(r.src, real) {
		if data, done, err := r.readPlain(path, real, buf); done {
			return data, err
		}
	}
	real, st, err := r.resolve(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &sourceError{path: path, reason: gen.SourceErrorReasonMissing, err: err}
		}
		return nil, &sourceError{path: path, reason: gen.SourceErrorReasonIo, err: err}
	}
	if !within(r.src, real) {
		return nil, &sourceError{path: path, reason: gen.SourceErrorReasonOutsideSource, err: errors.New("resolves outside the source directory")}
	}
	if !st.Mode().IsRegular() {
		return nil, &sourceError{path: path, reason: gen.SourceErrorReasonNotFile, err: errors.New("not a regular file")}
	}
	if st.Size() > int64(r.limit.MaxBytes) {
		return nil, r.tooLarge(path, st.Size())
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, &sourceError{path: path, reason: gen.SourceErrorReasonIo, err: err}
	}
	defer f.Close()
	// One read of the size Lstat gave. A file rewritten meanwhile reads
	// short or cut off; the client's file event for that write makes the
	// owner read again.
	data := sized(buf, int(st.Size()))
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, &sourceError{path: path, reason: gen.SourceErrorReasonIo, err: err}
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
func (r *reader) tooLarge(path string, size int64) error {
	return &sourceError{path: path, reason: gen.SourceErrorReasonTooLarge, xml: true, err: fmt.Errorf("%d bytes is over the limit of %d", size, r.limit.MaxBytes)}
}

// exists reports whether a regular file exists inside the sources.
func (r *reader) exists(path string) bool {
	real, st, err := r.resolve(path)
	return err == nil && within(r.src, real) && st.Mode().IsRegular()
}

func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// descriptor reads one descriptor file, from the disk cache when an
// entry for exactly these bytes exists. A descriptor from the cache has
// no element tree; element() parses the file when one is needed.
func (r *reader) descriptor(path string) (*designer.Descriptor, error) {
	return r.settle(r.fetch(path))
}

// fetched is a descriptor read, perhaps on the index's prefetching
// goroutine; settle completes it on the worker.
type fetched struct {
	d        *designer.Descriptor
	err      error
	rel, sum string
	hit      bool // from the disk cache
	rejected bool // the cache held an entry that failed its checks
	store    bool // parsed; the cache wants its entry
}

// fetch reads and parses a descriptor, or takes it from the disk cache.
// It touches nothing shared but the files, so it may run beside the
// worker on a copy of the reader.
func (r *reader) fetch(path string) fetched {
	if r.cache == nil {
		d, err := r.parse(path)
		return fetched{d: d, err: err}
	}
	data, err := r.readTemp(path)
	if err != nil {
		return fetched{err: err}
	}
	f := fetched{sum: diskcache.Sum(data)}
	f.rel, _ = filepath.Rel(r.srcDir, path)
	d, res := r.cache.Peek(f.rel, f.sum)
	switch res {
	case diskcache.Hit:
		f.d, f.hit = d, true
		return f
	case diskcache.Rejected:
		f.rejected = true
	}
	f.d, f.err = r.parseBytes(path, data)
	f.store = f.err == nil
	return f
}

// settle does the worker's part of a fetch: the cache's counters and the
// entry of a freshly parsed descriptor.
func (r *reader) settle(f fetched) (*designer.Descriptor, error) {
	if r.cache != nil && f.sum != "" {
		if f.hit {
			r.cache.Hits++
		} else {
			r.cache.Misses++
		}
		if f.rejected {
			r.cache.Rejected++
		}
		if f.store {
			r.cache.Store(f.rel, f.sum, f.d)
		}
	}
	return f.d, f.err
}

// parse reads one descriptor file for the tree and the index: its
// skeleton only (kinds, names, synonyms, children, diagnostics). The
// element tree it returns is partial; element() parses the whole file
// when properties need it.
func (r *reader) parse(path string) (*designer.Descriptor, error) {
	data, err := r.readTemp(path)
	if err != nil {
		return nil, err
	}
	return r.parseBytes(path, data)
}

func (r *reader) parseBytes(path string, data []byte) (*designer.Descriptor, error) {
	d, err := designer.ParseDescriptorSummary(path, data, r.limit)
	return r.interpret(path, d, err)
}

// parseFull reads and parses one descriptor file with its whole element
// tree.
func (r *reader) parseFull(path string) (*designer.Descriptor, error) {
	r.full++
	data, err := r.read(path)
	if err != nil {
		return nil, err
	}
	d, err := designer.ParseDescriptor(path, data, r.limit)
	return r.interpret(path, d, err)
}

// interpret maps a parse failure to the contract's xml_invalid reasons.
func (r *reader) interpret(path string, d *designer.Descriptor, err error) (*designer.Descriptor, error) {
	if err != nil {
		var pe *designer.ParseError
		if errors.As(err, &pe) {
			return nil, &sourceError{path: path, reason: gen.SourceErrorReason(pe.Reason), xml: true, err: err}
		}
		return nil, err
	}
	return d, nil
}
