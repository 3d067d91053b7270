package metadata

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/contractkit/contractkit/designer"
	"github.com/contractkit/contractkit/internal/atomicfile"
)

// CacheDir is where a project keeps its derived metadata cache, relative
// to the project's directory. Nothing else is written in the project.
const CacheDir = ".eska/cache/metadata"

// KeyFile is the file, in the user's cache directory (KeyDir), that holds
// the secret every cache entry is signed with.
const KeyFile = "metadata-cache.key"

// cacheFormat versions the entries; an entry of another format is a miss
// and is overwritten.
const cacheFormat = 2

// entryMagic opens every entry file, followed by the format and the MAC.
const entryMagic = "eska-metadata-cache/"

// maxEntryBytes bounds what is read of one entry: an entry is a summary
// of a descriptor, far smaller than the descriptor limit.
const maxEntryBytes = 4 << 20

// keySize is the length of the signing key.
const keySize = 32

// Diagnostics on stderr when the cache cannot be used; the session goes on
// without it.
const (
	diagCacheOutside = "disk-cache-off:link"
	diagCacheNoKey   = "disk-cache-off:no-key"
)

// diskCache keeps, per descriptor file, what the tree and the index need
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
type diskCache struct {
	project string // the project's directory
	key     []byte
	diag    func(code string)

	mu     sync.Mutex
	dir    *os.Root // CacheDir, once opened
	absent bool     // CacheDir did not exist when looked for; the first write makes it
	off    bool     // the cache is not used any more this session

	// Counters, for tests and the benchmark; the worker's alone.
	hits, misses, writes, failures, rejected int
}

// newDiskCache prepares the cache of a project. It returns nil, after a
// diagnostic, when there is no key to sign entries with.
func newDiskCache(project, keyDir string, diag func(string)) *diskCache {
	key, err := loadKey(keyDir)
	if err != nil {
		diag(diagCacheNoKey)
		return nil
	}
	c := &diskCache{project: project, key: key, diag: diag}
	c.root(false) // an existing directory is checked now; a missing one is made on the first write
	return c
}

// loadKey reads the signing key, creating it on first use. The key is
// written to a temporary file and linked into place, so two processes
// starting at once agree on one key and neither reads half of it.
func loadKey(dir string) ([]byte, error) {
	if dir == "" {
		return nil, errors.New("no key directory")
	}
	path := filepath.Join(dir, KeyFile)
	if key, err := os.ReadFile(path); err == nil && len(key) == keySize {
		return key, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	key := make([]byte, keySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".key-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(key)
	serr := f.Sync()
	if cerr := f.Close(); werr != nil || serr != nil || cerr != nil {
		return nil, errors.Join(werr, serr, cerr)
	}
	if err := os.Link(f.Name(), path); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		// Another process was first, or a damaged key is there: a key of
		// the wrong size is replaced (entries signed with it fail their
		// check and are rebuilt).
		if old, rerr := os.ReadFile(path); rerr == nil && len(old) == keySize {
			return old, nil
		}
		if err := os.Rename(f.Name(), path); err != nil {
			return nil, err
		}
	}
	return key, nil
}

// DefaultKeyDir is where the signing key lives: eska's folder in the
// user's cache directory ($XDG_CACHE_HOME or ~/.cache on Linux).
func DefaultKeyDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "eska")
}

// root returns the opened cache directory, opening it (and with create,
// making the missing parts of it) on first use. A component that is a
// link or not a directory turns the cache off.
func (c *diskCache) root(create bool) *os.Root {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.off || c.dir != nil || (c.absent && !create) {
		return c.dir
	}
	// The walk is the one eska's edit state takes (internal/atomicfile):
	// one folder at a time, none a link, each opened as an os.Root.
	dir, err := atomicfile.OpenStateDir(c.project, filepath.FromSlash(CacheDir), create)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			c.absent = true
		} else {
			c.turnOff(diagCacheOutside)
		}
		return nil
	}
	c.dir = dir
	return dir
}

// turnOff stops using the cache; the caller holds c.mu.
func (c *diskCache) turnOff(code string) {
	c.off = true
	c.diag(code)
}

// close releases the cache directory.
func (c *diskCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dir != nil {
		c.dir.Close()
		c.dir = nil
	}
	c.off = true
}

type cacheEntry struct {
	Format      int          `json:"format"`
	Path        string       `json:"path"`   // the source file, relative to the sources, with slashes
	SHA256      string       `json:"sha256"` // of the source file's bytes
	Version     string       `json:"version"`
	Object      *cachedObj   `json:"object,omitempty"`
	Diagnostics []cachedDiag `json:"diagnostics,omitempty"`
}

type cachedObj struct {
	Tag      string        `json:"tag"`
	Name     string        `json:"name"`
	UUID     string        `json:"uuid,omitempty"`
	Synonyms [][2]string   `json:"synonyms,omitempty"`
	Children []cachedChild `json:"children,omitempty"`
}

type cachedChild struct {
	Tag    string     `json:"tag"`
	Name   string     `json:"name"`
	Start  int64      `json:"start"`
	End    int64      `json:"end"`
	Inline *cachedObj `json:"inline,omitempty"`
}

type cachedDiag struct {
	Code    string      `json:"code"`
	Range   *[2]int64   `json:"range,omitempty"`
	Details [][2]string `json:"details,omitempty"`
}

// entryName is where the entry of a source file lives in the cache
// directory: two hex digits of shard, then the whole SHA-256 of the path.
func entryName(rel string) (shard, name string) {
	h := sha256.Sum256([]byte(filepath.ToSlash(rel)))
	name = hex.EncodeToString(h[:])
	return name[:2], name + ".entry"
}

// mac signs an entry's JSON.
func (c *diskCache) mac(body []byte) []byte {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(entryMagic))
	m.Write(body)
	return m.Sum(nil)
}

// peekResult says what a look into the cache found.
type peekResult int

const (
	peekMiss     peekResult = iota // no entry
	peekHit                        // a valid entry for these bytes
	peekRejected                   // an entry that failed its checks
)

// peek returns the descriptor a valid entry describes. It only reads, so
// the prefetching goroutines may call it.
func (c *diskCache) peek(rel, sum string) (*designer.Descriptor, peekResult) {
	dir := c.root(false)
	if dir == nil {
		return nil, peekMiss
	}
	shard, name := entryName(rel)
	raw, err := readEntry(dir, filepath.Join(shard, name))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, peekMiss
		}
		return nil, peekRejected
	}
	d := c.verify(raw, rel, sum)
	if d == nil {
		return nil, peekRejected
	}
	return d, peekHit
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
func (c *diskCache) verify(raw []byte, rel, sum string) *designer.Descriptor {
	head, body, ok := bytes.Cut(raw, []byte{'\n'})
	if !ok || !bytes.HasPrefix(head, []byte(entryMagic)) {
		return nil
	}
	format, macHex, ok := bytes.Cut(head[len(entryMagic):], []byte{' '})
	if !ok || string(format) != formatString() {
		return nil
	}
	want, err := hex.DecodeString(string(macHex))
	if err != nil || !hmac.Equal(want, c.mac(body)) {
		return nil
	}
	var e cacheEntry
	if json.Unmarshal(body, &e) != nil || e.Format != cacheFormat || e.Path != filepath.ToSlash(rel) || e.SHA256 != sum {
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

func formatString() string { return strconv.Itoa(cacheFormat) }

func fromCached(co *cachedObj) (*designer.Object, bool) {
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

func toCached(o *designer.Object) *cachedObj {
	co := &cachedObj{Tag: o.El.Local, Name: o.Name, UUID: o.UUID}
	for _, s := range o.Synonyms {
		co.Synonyms = append(co.Synonyms, [2]string{s.Lang, s.Content})
	}
	for _, c := range o.Children {
		cc := cachedChild{Tag: c.Tag, Name: c.Name, Start: c.Range.Start, End: c.Range.End}
		if c.Inline != nil {
			cc.Inline = toCached(c.Inline)
		}
		co.Children = append(co.Children, cc)
	}
	return co
}

// store writes the entry of a parsed descriptor: to a temporary file in
// the entry's shard, then renamed into place, so a reader never sees half
// an entry (and one that did would fail its MAC). A failure only costs
// the next open a parse.
func (c *diskCache) store(rel, sum string, d *designer.Descriptor) {
	dir := c.root(true)
	if dir == nil {
		return
	}
	e := cacheEntry{Format: cacheFormat, Path: filepath.ToSlash(rel), SHA256: sum, Version: d.Version}
	if d.Object != nil {
		e.Object = toCached(d.Object)
	}
	for _, dg := range d.Diagnostics {
		cd := cachedDiag{Code: dg.Code, Details: dg.Details}
		if dg.Range != nil {
			cd.Range = &[2]int64{dg.Range.Start, dg.Range.End}
		}
		e.Diagnostics = append(e.Diagnostics, cd)
	}
	body, err := json.Marshal(e)
	if err != nil {
		c.failures++
		return
	}
	raw := make([]byte, 0, len(entryMagic)+4+2*sha256.Size+1+len(body))
	raw = append(raw, entryMagic...)
	raw = append(raw, formatString()...)
	raw = append(raw, ' ')
	raw = hex.AppendEncode(raw, c.mac(body))
	raw = append(raw, '\n')
	raw = append(raw, body...)
	shard, name := entryName(rel)
	st, err := dir.Lstat(shard)
	if errors.Is(err, fs.ErrNotExist) {
		if err = dir.Mkdir(shard, 0o755); err == nil || errors.Is(err, fs.ErrExist) {
			st, err = dir.Lstat(shard)
		}
	}
	if err != nil || !st.IsDir() {
		c.failures++
		return
	}
	var suffix [8]byte
	rand.Read(suffix[:])
	tmp := filepath.Join(shard, ".entry-"+hex.EncodeToString(suffix[:]))
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		c.failures++
		return
	}
	_, werr := f.Write(raw)
	cerr := f.Close()
	if werr != nil || cerr != nil || dir.Rename(tmp, filepath.Join(shard, name)) != nil {
		dir.Remove(tmp)
		c.failures++
		return
	}
	c.writes++
}

func sha(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}
