package diskcache

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/contractkit/contractkit/designer"
)

const catalog = `<?xml version="1.0" encoding="UTF-8"?>
<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses" xmlns:v8="http://v8.1c.ru/8.1/data/core" version="2.17">
<Catalog uuid="00000000-0000-0000-0000-000000000001"><Properties><Name>Товары</Name>
<Synonym><v8:item><v8:lang>ru</v8:lang><v8:content>Товары</v8:content></v8:item></Synonym></Properties>
<ChildObjects><Attribute uuid="00000000-0000-0000-0000-000000000002"><Properties><Name>Артикул</Name></Properties></Attribute></ChildObjects>
</Catalog></MetaDataObject>
`

// parsedCatalog is the descriptor of catalog, with its path and the
// sum of its bytes, as a session stores it.
func parsedCatalog(t *testing.T) (rel, sum string, d *designer.Descriptor) {
	t.Helper()
	data := []byte(catalog)
	d, err := designer.ParseDescriptorSummary("Catalogs/Товары.xml", data, designer.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join("Catalogs", "Товары.xml"), Sum(data), d
}

// openCache opens a cache of project with a key of its own, closed when
// the test ends.
func openCache(t *testing.T, project string) *Cache {
	t.Helper()
	c := New(project, t.TempDir(), func(string) {})
	if c == nil {
		t.Fatal("no cache")
	}
	t.Cleanup(c.Close)
	return c
}

// entryPath is where a cache of project keeps the entry of rel.
func entryPath(project, rel string) string {
	shard, name := EntryName(rel)
	return filepath.Join(project, filepath.FromSlash(Dir), shard, name)
}

// An entry stored for a file's bytes is found again for those bytes
// only, by a cache with the same key; a changed entry is rejected.
func TestStorePeek(t *testing.T) {
	project, keys := t.TempDir(), t.TempDir()
	var diags []string
	c := New(project, keys, func(code string) { diags = append(diags, code) })
	if c == nil {
		t.Fatalf("no cache: %v", diags)
	}
	defer c.Close()
	rel, sum, d := parsedCatalog(t)
	if _, res := c.Peek(rel, sum); res != Miss {
		t.Fatalf("an empty cache: %v", res)
	}
	c.Store(rel, sum, d)
	if c.Writes != 1 || c.Failures != 0 {
		t.Fatalf("%d writes, %d failures", c.Writes, c.Failures)
	}
	got, res := c.Peek(rel, sum)
	if res != Hit || got.Object == nil || got.Object.Name != "Товары" || len(got.Object.Children) != 1 || got.Object.Children[0].Name != "Артикул" || got.Version != "2.17" {
		t.Fatalf("peek after store: %v %+v", res, got)
	}
	if _, res := c.Peek(rel, Sum([]byte("other bytes"))); res != Rejected {
		t.Errorf("an entry for other bytes: %v", res)
	}
	again := New(project, keys, func(string) {})
	defer again.Close()
	if _, res := again.Peek(rel, sum); res != Hit {
		t.Errorf("the next session with the same key: %v", res)
	}
	other := New(project, t.TempDir(), func(string) {})
	defer other.Close()
	if _, res := other.Peek(rel, sum); res != Rejected {
		t.Errorf("another user's key: %v", res)
	}
	path := entryPath(project, rel)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-3] ^= 1
	os.WriteFile(path, raw, 0o644)
	if _, res := c.Peek(rel, sum); res != Rejected {
		t.Errorf("a changed entry: %v", res)
	}
	if len(diags) != 0 {
		t.Errorf("diagnostics: %v", diags)
	}
}

// A cache directory reached through a link is not used, and says so.
func TestLinkTurnsOff(t *testing.T) {
	project, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(project, ".eska")); err != nil {
		t.Fatal(err)
	}
	var diags []string
	c := New(project, t.TempDir(), func(code string) { diags = append(diags, code) })
	defer c.Close()
	c.Store("a.xml", Sum(nil), &designer.Descriptor{Path: "a.xml"})
	if _, res := c.Peek("a.xml", Sum(nil)); res != Miss || c.Writes != 0 {
		t.Errorf("through a link: %v, %d writes", res, c.Writes)
	}
	if left, _ := os.ReadDir(outside); len(left) != 0 || len(diags) != 1 || diags[0] != DiagLink {
		t.Errorf("%d files written outside, diagnostics %v", len(left), diags)
	}
}

// An entry is read up to maxEntryBytes: a valid one of exactly that size
// is a hit; one byte more is rejected, though its signature is good.
func TestEntryLimit(t *testing.T) {
	project := t.TempDir()
	c := openCache(t, project)
	rel, sum, d := parsedCatalog(t)
	c.Store(rel, sum, d)
	path := entryPath(project, rel)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := bytes.Cut(raw, []byte{'\n'})
	head := len(raw) - len(body)
	for _, size := range []int{maxEntryBytes, maxEntryBytes + 1} {
		// Trailing blanks keep the body the same JSON; it is signed as is.
		padded := append(bytes.Clone(body), bytes.Repeat([]byte{' '}, size-head-len(body))...)
		entry := c.signed.Frame(Format, padded)
		if len(entry) != size {
			t.Fatalf("made an entry of %d bytes, want %d", len(entry), size)
		}
		if err := os.WriteFile(path, entry, 0o644); err != nil {
			t.Fatal(err)
		}
		want := Hit
		if size > maxEntryBytes {
			want = Rejected
		}
		if _, res := c.Peek(rel, sum); res != want {
			t.Errorf("an entry of %d bytes (limit %d): %v, want %v", size, maxEntryBytes, res, want)
		}
	}
}

// The first Store into a shard removes the temporary entry files a killed
// process left there (older than staleTemp); a younger one may be another
// session's write in progress and stays, and so does a file not named as
// a temporary entry.
func TestStoreSweepsLeftTemps(t *testing.T) {
	project := t.TempDir()
	c := openCache(t, project)
	rel, sum, d := parsedCatalog(t)
	shardDir := filepath.Dir(entryPath(project, rel))
	if err := os.MkdirAll(shardDir, 0o755); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ages := map[string]time.Duration{
		tempPrefix + "killed":     staleTemp + time.Second,
		tempPrefix + "in-flight":  staleTemp - 10*time.Second,
		"not-a-temp-but-old.note": staleTemp + time.Hour,
	}
	for name, age := range ages {
		p := filepath.Join(shardDir, name)
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	c.Store(rel, sum, d)
	if c.Writes != 1 {
		t.Fatalf("%d writes, %d failures", c.Writes, c.Failures)
	}
	for name := range ages {
		_, err := os.Lstat(filepath.Join(shardDir, name))
		if gone, want := os.IsNotExist(err), name == tempPrefix+"killed"; gone != want {
			t.Errorf("%s: removed %v, want %v (%v)", name, gone, want, err)
		}
	}
	if _, res := c.Peek(rel, sum); res != Hit {
		t.Errorf("the entry after the sweep: %v", res)
	}
}
