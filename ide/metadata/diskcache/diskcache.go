// Package diskcache is the derived metadata cache of an eska project: per
// descriptor file, what the tree and the index need of it, signed so that
// an entry a repository planted is never trusted.
package diskcache

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/contractkit/contractkit/designer"
	"github.com/contractkit/contractkit/ide/metadata/signedfile"
	"github.com/contractkit/contractkit/internal/atomicfile"
)

// Dir is where a project keeps its derived metadata cache, relative
// to the project's directory. Nothing else is written in the project.
const Dir = ".eska/cache/metadata"

// Format versions the entries; an entry of another format is a miss
// and is overwritten.
const Format = 2

// Magic opens every entry file, followed by the format and the MAC
// (package signedfile frames the entry).
const Magic = "eska-metadata-cache/"

// maxEntryBytes bounds what is read of one entry: an entry is a summary
// of a descriptor, far smaller than the descriptor limit.
const maxEntryBytes = 4 << 20

// tempPrefix begins the name of an entry being written (Store); no
// reader looks at such a name.
const tempPrefix = ".entry-"

// staleTemp is the age past which a temporary entry file is one a killed
// process left: a live Store renames its file within moments of making it.
const staleTemp = time.Minute

// Diagnostics on stderr when the cache cannot be used; the session goes on
// without it.
const (
	DiagLink  = "disk-cache-off:link"
	DiagNoKey = "disk-cache-off:no-key"
)

// Cache keeps, per descriptor file, what the tree and the index need
// of it (names, kinds, synonyms, children, diagnostics). It is derived
// data and never trusted: an entry names the source file it was made from
// and the SHA-256 of that file's bytes, and carries an HMAC-SHA256 of its
// whole content under a key kept outside the project, so an entry that
// was planted, truncated, edited or moved to another file's place fails
// the check, is discarded, and the file is parsed and the entry written
// anew. A hit saves the XML parse; the bytes are always read and hashed.
//
// The cache directory is reached from the project directory one
// component at a time, never through a symbolic link; when a component
// is a link or not a directory, the cache is off for the session and
// stderr says so.
type Cache struct {
	project string // the project's directory
	signed  signedfile.Kind
	diag    func(code string)

	mu     sync.Mutex
	dir    *os.Root // Dir, once opened
	absent bool     // Dir did not exist when looked for; the first write makes it
	off    bool     // the cache is not used any more this session

	// swept holds the shards whose left temporary files Store has
	// removed this session; the worker's alone, like Store.
	swept map[string]bool

	// Counters, for tests and the benchmark. Hits, Misses and Rejected
	// are counted by the reader; all are the worker's alone.
	Hits, Misses, Writes, Failures, Rejected int
}

// New prepares the cache of a project. It returns nil, after a
// diagnostic, when there is no key to sign entries with (keyDir holds the
// key: signedfile.LoadKey).
func New(project, keyDir string, diag func(string)) *Cache {
	key, err := signedfile.LoadKey(keyDir)
	if err != nil {
		diag(DiagNoKey)
		return nil
	}
	c := &Cache{project: project, signed: signedfile.Kind{Magic: Magic, Format: Format, Key: key}, diag: diag}
	c.root(false) // an existing directory is checked now; a missing one is made on the first write
	return c
}

// root returns the opened cache directory, opening it (and with create,
// making the missing parts of it) on first use. A component that is a
// link or not a directory turns the cache off.
func (c *Cache) root(create bool) *os.Root {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.off || c.dir != nil || (c.absent && !create) {
		return c.dir
	}
	// The walk is the one eska's edit state takes (internal/atomicfile):
	// one folder at a time, none a link, each opened as an os.Root.
	dir, err := atomicfile.OpenStateDir(c.project, filepath.FromSlash(Dir), create)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			c.absent = true
		} else {
			c.turnOff(DiagLink)
		}
		return nil
	}
	c.dir = dir
	return dir
}

// turnOff stops using the cache; the caller holds c.mu.
func (c *Cache) turnOff(code string) {
	c.off = true
	c.diag(code)
}

// Close releases the cache directory.
func (c *Cache) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dir != nil {
		c.dir.Close()
		c.dir = nil
	}
	c.off = true
}

// Entry is what an entry file holds after its header line.
type Entry struct {
	Format      int     `json:"format"`
	Path        string  `json:"path"`   // the source file, relative to the sources, with slashes
	SHA256      string  `json:"sha256"` // of the source file's bytes
	Version     string  `json:"version"`
	Object      *Object `json:"object,omitempty"`
	Diagnostics []Diag  `json:"diagnostics,omitempty"`
}

// Object is an object of a descriptor, as an entry keeps it.
type Object struct {
	Tag      string      `json:"tag"`
	Name     string      `json:"name"`
	UUID     string      `json:"uuid,omitempty"`
	Synonyms [][2]string `json:"synonyms,omitempty"`
	Children []Child     `json:"children,omitempty"`
}

// Child is a child element of an object, as an entry keeps it.
type Child struct {
	Tag    string  `json:"tag"`
	Name   string  `json:"name"`
	Start  int64   `json:"start"`
	End    int64   `json:"end"`
	Inline *Object `json:"inline,omitempty"`
}

// Diag is a diagnostic of a descriptor, as an entry keeps it.
type Diag struct {
	Code    string      `json:"code"`
	Range   *[2]int64   `json:"range,omitempty"`
	Details [][2]string `json:"details,omitempty"`
}

// EntryName is where the entry of a source file lives in the cache
// directory: two hex digits of shard, then the whole SHA-256 of the path.
func EntryName(rel string) (shard, name string) {
	h := sha256.Sum256([]byte(filepath.ToSlash(rel)))
	name = hex.EncodeToString(h[:])
	return name[:2], name + ".entry"
}

// PeekResult says what a look into the cache found.
type PeekResult int

const (
	Miss     PeekResult = iota // no entry
	Hit                        // a valid entry for these bytes
	Rejected                   // an entry that failed its checks
)

// Peek returns the descriptor a valid entry describes. It only reads, so
// the prefetching goroutines may call it.
func (c *Cache) Peek(rel, sum string) (*designer.Descriptor, PeekResult) {
	dir := c.root(false)
	if dir == nil {
		return nil, Miss
	}
	shard, name := EntryName(rel)
	raw, err := readEntry(dir, filepath.Join(shard, name))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, Miss
		}
		return nil, Rejected
	}
	d := c.verify(raw, rel, sum)
	if d == nil {
		return nil, Rejected
	}
	return d, Hit
}

// readEntry reads a regular file of the cache directory, never more than
// maxEntryBytes, and refuses anything else (a link to another entry, a
// FIFO, a directory).
func readEntry(dir *os.Root, name string) ([]byte, error) {
	st, err := dir.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > maxEntryBytes {
		return nil, errors.New("not an entry")
	}
	f, err := dir.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fst, err := f.Stat(); err != nil || !os.SameFile(st, fst) {
		return nil, errors.New("the entry changed while it was opened")
	}
	return io.ReadAll(io.LimitReader(f, maxEntryBytes))
}

// verify checks an entry's signature, format, source path and source
// hash, and decodes it; anything wrong is nil.
func (c *Cache) verify(raw []byte, rel, sum string) *designer.Descriptor {
	var e Entry
	if c.signed.Open(raw, &e) != nil || e.Format != Format || e.Path != filepath.ToSlash(rel) || e.SHA256 != sum {
		return nil
	}
	d := &designer.Descriptor{Path: rel, Version: e.Version}
	for _, cd := range e.Diagnostics {
		dg := designer.Diagnostic{Code: cd.Code, Details: cd.Details}
		if cd.Range != nil {
			dg.Range = &designer.Range{Start: cd.Range[0], End: cd.Range[1]}
		}
		d.Diagnostics = append(d.Diagnostics, dg)
	}
	if e.Object != nil {
		obj, ok := fromCached(e.Object)
		if !ok {
			return nil
		}
		d.Object = obj
	}
	return d
}

func fromCached(co *Object) (*designer.Object, bool) {
	info, ok := designer.KindOfTag(co.Tag)
	if !ok {
		return nil, false
	}
	o := &designer.Object{Info: info, Name: co.Name, UUID: co.UUID}
	for _, s := range co.Synonyms {
		o.Synonyms = append(o.Synonyms, designer.Text{Lang: s[0], Content: s[1]})
	}
	for _, cc := range co.Children {
		ch := &designer.Child{Tag: cc.Tag, Name: cc.Name, Range: designer.Range{Start: cc.Start, End: cc.End}}
		ch.Info, _ = designer.KindOfTag(cc.Tag)
		if cc.Inline != nil {
			in, ok := fromCached(cc.Inline)
			if !ok {
				return nil, false
			}
			ch.Inline = in
		}
		o.Children = append(o.Children, ch)
	}
	return o, true
}

func toCached(o *designer.Object) *Object {
	co := &Object{Tag: o.El.Local, Name: o.Name, UUID: o.UUID}
	for _, s := range o.Synonyms {
		co.Synonyms = append(co.Synonyms, [2]string{s.Lang, s.Content})
	}
	for _, c := range o.Children {
		cc := Child{Tag: c.Tag, Name: c.Name, Start: c.Range.Start, End: c.Range.End}
		if c.Inline != nil {
			cc.Inline = toCached(c.Inline)
		}
		co.Children = append(co.Children, cc)
	}
	return co
}

// Store writes the entry of a parsed descriptor: to a temporary file in
// the entry's shard, then renamed into place, so a reader never sees half
// an entry (and one that did would fail its MAC). A failure only costs
// the next open a parse.
func (c *Cache) Store(rel, sum string, d *designer.Descriptor) {
	dir := c.root(true)
	if dir == nil {
		return
	}
	e := Entry{Format: Format, Path: filepath.ToSlash(rel), SHA256: sum, Version: d.Version}
	if d.Object != nil {
		e.Object = toCached(d.Object)
	}
	for _, dg := range d.Diagnostics {
		cd := Diag{Code: dg.Code, Details: dg.Details}
		if dg.Range != nil {
			cd.Range = &[2]int64{dg.Range.Start, dg.Range.End}
		}
		e.Diagnostics = append(e.Diagnostics, cd)
	}
	raw, err := c.signed.Seal(e)
	if err != nil {
		c.Failures++
		return
	}
	shard, name := EntryName(rel)
	st, err := dir.Lstat(shard)
	if errors.Is(err, fs.ErrNotExist) {
		if err = dir.Mkdir(shard, 0o755); err == nil || errors.Is(err, fs.ErrExist) {
			st, err = dir.Lstat(shard)
		}
	}
	if err != nil || !st.IsDir() {
		c.Failures++
		return
	}
	if !c.swept[shard] {
		sweepTemps(dir, shard, time.Now().Add(-staleTemp))
		if c.swept == nil {
			c.swept = map[string]bool{}
		}
		c.swept[shard] = true
	}
	var suffix [8]byte
	rand.Read(suffix[:])
	tmp := filepath.Join(shard, tempPrefix+hex.EncodeToString(suffix[:]))
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		c.Failures++
		return
	}
	_, werr := f.Write(raw)
	cerr := f.Close()
	if werr != nil || cerr != nil || dir.Rename(tmp, filepath.Join(shard, name)) != nil {
		dir.Remove(tmp)
		c.Failures++
		return
	}
	c.Writes++
}

// sweepTemps removes from a shard the temporary entry files older than
// before: what a process killed between making one and renaming it left.
// It runs once per shard and session, on the first Store there, so a
// cache that is only read costs nothing; a failure only leaves the file.
func sweepTemps(dir *os.Root, shard string, before time.Time) {
	f, err := dir.Open(shard)
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, n := range names {
		if !strings.HasPrefix(n, tempPrefix) {
			continue
		}
		p := filepath.Join(shard, n)
		if st, err := dir.Lstat(p); err == nil && st.Mode().IsRegular() && st.ModTime().Before(before) {
			dir.Remove(p)
		}
	}
}

// Sum is the SHA-256 of a source file's bytes, as an entry names it.
func Sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}
