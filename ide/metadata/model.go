// Package metadata is the Designer XML backend of the eska IDE API: it
// opens the projects a manifest selects, serves the Configurator tree,
// objects, properties and sources lazily from the XML, keeps a search
// index built between requests, and applies the client's file events.
// It reads the sources and never writes them.
//
// Everything here runs on the transport's single worker, so nothing is
// locked; the state of a session changes only between requests.
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

	desc string // the descriptor file that defines it (its own, or its owner's)
	own  bool   // desc is a file of its own, read on demand
	dir  string // the folder of its subordinate files and Ext

	loaded   bool
	err      error // reading its descriptor failed
	el       *designer.Element
	ns       scope // namespace declarations of its own descriptor's root
	uuid     string
	synonyms []designer.Text
	diags    []designer.Diagnostic // of its own descriptor, or of its own element
	children []*object             // ChildObjects in XML order, unknown ones included

	// Predefined items, for the kinds that have them.
	predefLoaded bool
	predefErr    error
	predef       []*object
	description  string // a predefined item's Description

	external bool // the root of an external processor or report
	modules  []designer.ModuleRole
	modsDone bool
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
	if o.external && o.info.Kind == designer.KindDataProcessor {
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

// sourceError is a failure to read a file, with the contract's reason.
type sourceError struct {
	path   string
	reason string // missing, io, outside_source, not_file, too_large, or a parse reason
	xml    bool   // the file was read but is not valid XML metadata
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
	cache  *diskCache        // nil unless the session asked for the disk cache
}

// resolve returns the real path of a file: its directory's real path,
// kept per directory since a tree has thousands of files in few folders,
// joined with the file name, itself resolved when it is a link.
func (r *reader) resolve(path string) (string, error) {
	dir, base := filepath.Split(path)
	realDir, ok := r.dirs[dir]
	if !ok {
		var err error
		if realDir, err = filepath.EvalSymlinks(dir); err != nil {
			return "", err
		}
		if r.dirs == nil {
			r.dirs = map[string]string{}
		}
		r.dirs[dir] = realDir
	}
	real := filepath.Join(realDir, base)
	st, err := os.Lstat(real)
	if err != nil {
		return "", err
	}
	if st.Mode()&os.ModeSymlink != 0 {
		return filepath.EvalSymlinks(real)
	}
	return real, nil
}

// forgetDirs drops the directory cache: a refresh may follow renamed or
// relinked folders.
func (r *reader) forgetDirs() { r.dirs = nil }

// read returns a file's bytes, checked to lie inside the sources.
func (r *reader) read(path string) ([]byte, error) {
	real, err := r.resolve(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &sourceError{path: path, reason: "missing", err: err}
		}
		return nil, &sourceError{path: path, reason: "io", err: err}
	}
	if !within(r.src, real) {
		return nil, &sourceError{path: path, reason: "outside_source", err: errors.New("resolves outside the source directory")}
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, &sourceError{path: path, reason: "io", err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &sourceError{path: path, reason: "io", err: err}
	}
	if !st.Mode().IsRegular() {
		return nil, &sourceError{path: path, reason: "not_file", err: errors.New("not a regular file")}
	}
	if st.Size() > int64(r.limit.MaxBytes) {
		return nil, &sourceError{path: path, reason: "too_large", xml: true, err: fmt.Errorf("%d bytes is over the limit of %d", st.Size(), r.limit.MaxBytes)}
	}
	// One read of the size Stat gave, plus one byte to notice a file that
	// grew since; ReadAll's doubling would cost several reads and copies.
	data := make([]byte, st.Size()+1)
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, &sourceError{path: path, reason: "io", err: err}
	}
	if int64(n) > st.Size() {
		return nil, &sourceError{path: path, reason: "io", err: errors.New("the file changed while it was read")}
	}
	return data[:n], nil
}

// exists reports whether a regular file exists inside the sources.
func (r *reader) exists(path string) bool {
	real, err := r.resolve(path)
	if err != nil || !within(r.src, real) {
		return false
	}
	st, err := os.Stat(real)
	return err == nil && st.Mode().IsRegular()
}

func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// descriptor reads one descriptor file, from the disk cache when an
// entry for exactly these bytes exists. A descriptor from the cache has
// no element tree; element() parses the file when one is needed.
func (r *reader) descriptor(path string) (*designer.Descriptor, error) {
	if r.cache == nil {
		return r.parse(path)
	}
	data, err := r.read(path)
	if err != nil {
		return nil, err
	}
	rel, _ := filepath.Rel(r.srcDir, path)
	sum := sha(data)
	if d := r.cache.lookup(rel, sum); d != nil {
		return d, nil
	}
	d, err := r.parseBytes(path, data)
	if err == nil {
		r.cache.store(rel, sum, d)
	}
	return d, err
}

// parse reads and parses one descriptor file.
func (r *reader) parse(path string) (*designer.Descriptor, error) {
	data, err := r.read(path)
	if err != nil {
		return nil, err
	}
	return r.parseBytes(path, data)
}

func (r *reader) parseBytes(path string, data []byte) (*designer.Descriptor, error) {
	d, err := designer.ParseDescriptor(path, data, r.limit)
	if err != nil {
		var pe *designer.ParseError
		if errors.As(err, &pe) {
			return nil, &sourceError{path: path, reason: pe.Reason, xml: true, err: err}
		}
		return nil, err
	}
	return d, nil
}
