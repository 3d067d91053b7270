package metadata

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/contractkit/contractkit/designer"
)

// CacheDir is where a project keeps its derived metadata cache, relative
// to the project's directory. Nothing else is ever written.
const CacheDir = ".eska/cache/metadata"

// cacheFormat versions the entries; an entry of another format is a miss
// and is overwritten.
const cacheFormat = 1

// diskCache keeps, per descriptor file, what the tree and the index need
// of it (names, kinds, synonyms, children, diagnostics), keyed by the
// SHA-256 of the file's bytes. A hit saves the XML parse; the bytes are
// always read and hashed, so a cached summary is never staler than the
// file. Properties need the element tree and parse the file again.
type diskCache struct {
	dir string
	// Counters, for tests and the benchmark.
	hits, misses, writes, failures int
}

type cacheEntry struct {
	Format      int          `json:"format"`
	SHA256      string       `json:"sha256"`
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

func (c *diskCache) entryPath(path string) string {
	h := sha256.Sum256([]byte(path))
	name := hex.EncodeToString(h[:])
	return filepath.Join(c.dir, name[:2], name+".json")
}

// peek returns the descriptor a valid entry describes, or nil. It only
// reads, so the prefetching goroutine may call it.
func (c *diskCache) peek(path string, sum string) *designer.Descriptor {
	raw, err := os.ReadFile(c.entryPath(path))
	if err != nil {
		return nil
	}
	var e cacheEntry
	if json.Unmarshal(raw, &e) != nil || e.Format != cacheFormat || e.SHA256 != sum {
		return nil
	}
	d := &designer.Descriptor{Path: path, Version: e.Version}
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
// the cache folder, then renamed, so a reader never sees half an entry.
// A failure only costs the next open a parse.
func (c *diskCache) store(path, sum string, d *designer.Descriptor) {
	e := cacheEntry{Format: cacheFormat, SHA256: sum, Version: d.Version}
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
	raw, err := json.Marshal(e)
	if err != nil {
		c.failures++
		return
	}
	dst := c.entryPath(path)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		c.failures++
		return
	}
	f, err := os.CreateTemp(filepath.Dir(dst), ".entry-*")
	if err != nil {
		c.failures++
		return
	}
	_, werr := f.Write(raw)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), dst) != nil {
		os.Remove(f.Name())
		c.failures++
		return
	}
	c.writes++
}

func sha(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}
