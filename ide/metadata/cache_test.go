package metadata

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata/diskcache"
	"github.com/contractkit/contractkit/ide/metadata/signedfile"
)

// plain is the transcript of a walk without the disk cache: what every
// session with the cache must answer too.
func plain(t *testing.T, files map[string]string) []string {
	t.Helper()
	h := newHarness(t, files)
	off := false
	info, err := h.b.Open(gen.OpenParams{Start: ToPath(h.root), Selection: gen.SelectionCurrent{}, DiskCache: &off}, gen.Grants{})
	if err != nil {
		t.Fatal(errText(err))
	}
	h.sid, h.pid, h.rootID = info.SessionID, info.Projects[0].ProjectID, info.Projects[0].Root
	return walkAll(h)
}

// session opens h's project with the disk cache, walks it, indexes it,
// and returns the walk, the hits of a search and the cache.
func (h *harness) cachedSession(query string) ([]string, []string, *diskcache.Cache) {
	h.t.Helper()
	if h.b.s != nil {
		h.b.Close(gen.SessionParams{SessionID: h.sid})
	}
	h.open(h.root, gen.SelectionCurrent{})
	walk := walkAll(h)
	h.b.Index(gen.IndexParams{SessionID: h.sid, ProjectID: h.pid, Action: gen.IndexActionStart})
	for h.b.Background() {
	}
	r, err := h.b.Search(gen.SearchParams{SessionID: h.sid, ProjectID: h.pid, Text: query})
	if err != nil {
		h.t.Fatal(errText(err))
	}
	var hits []string
	for _, hit := range r.Hits {
		hits = append(hits, string(hit.ObjectID))
	}
	return walk, hits, h.b.s.projects[0].r.Cache
}

func sameWalk(t *testing.T, what string, got, want []string) {
	t.Helper()
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("%s: the answers differ from a session without the cache at %d:\n%s\n%s", what, i, want[i], got[min(i, len(got)-1)])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d answers, want %d", what, len(got), len(want))
	}
}

func entryPath(root, rel string) string {
	shard, name := diskcache.EntryName(rel)
	return filepath.Join(root, filepath.FromSlash(diskcache.Dir), shard, name)
}

// forged is an entry for rel whose content says what the forger wants,
// framed as the cache frames entries, with the checksum sign computes.
func forged(rel, sum, synonym string, sign func(body []byte) []byte) []byte {
	e := diskcache.Entry{Format: diskcache.Format, Path: rel, SHA256: sum, Version: "2.17",
		Object: &diskcache.Object{Tag: "Catalog", Name: "Товары", UUID: "00000000-0000-0000-0000-000000000001",
			Synonyms: [][2]string{{"ru", synonym}}}}
	body, _ := json.Marshal(e)
	return []byte(diskcache.Magic + strconv.Itoa(diskcache.Format) + " " + hex.EncodeToString(sign(body)) + "\n" + string(body))
}

// keyed signs as the cache does, with key.
func keyed(key []byte) func([]byte) []byte {
	return func(body []byte) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(diskcache.Magic))
		m.Write(body)
		return m.Sum(nil)
	}
}

// unkeyed is a checksum anyone can compute.
func unkeyed(body []byte) []byte {
	s := sha256.Sum256(append([]byte(diskcache.Magic), body...))
	return s[:]
}

// Entries planted with the right name and source hash but made-up content,
// truncated, or swapped between files are discarded and rebuilt: no
// session ever answers from them, and the next session hits again.
//
//contract:proves eska-ide-api.limits.disk-cache
func TestCacheEntriesVerified(t *testing.T) {
	files := configurationFixture()
	want := plain(t, files)
	h := newHarness(t, files)
	first, _, c := h.cachedSession("Товары")
	sameWalk(t, "first session", first, want)
	if c.Writes == 0 || c.Rejected != 0 {
		t.Fatalf("first session: %d writes, %d rejected", c.Writes, c.Rejected)
	}
	// A second session hits every entry; what it still misses has no
	// entry at all (a descriptor that does not parse).
	_, _, c = h.cachedSession("Товары")
	unparsed := c.Misses
	if c.Hits == 0 || c.Rejected != 0 {
		t.Fatalf("second session: %d hits, %d rejected", c.Hits, c.Rejected)
	}
	const catalog = "Catalogs/Товары.xml"
	src, _ := os.ReadFile(filepath.Join(h.root, "src", filepath.FromSlash(catalog)))
	sum := sha(src)

	// Planted: the forger knows the format and the source's hash, signs
	// with a key of its own, and also tries an unkeyed checksum.
	for i, entry := range [][]byte{
		forged(catalog, sum, "ВЫДУМАНО", keyed([]byte("a key that is not this user's one"))),
		forged(catalog, sum, "ВЫДУМАНО", unkeyed),
	} {
		if err := os.WriteFile(entryPath(h.root, catalog), entry, 0o644); err != nil {
			t.Fatal(err)
		}
		walk, hits, c := h.cachedSession("ВЫДУМАНО")
		sameWalk(t, "a planted entry", walk, want)
		if len(hits) != 0 || c.Rejected != 1 {
			t.Fatalf("planted entry %d: search hits %v, %d rejected", i, hits, c.Rejected)
		}
		// Discarded and rebuilt: the next session hits it.
		if _, _, c := h.cachedSession("Товары"); c.Rejected != 0 || c.Misses != unparsed {
			t.Fatalf("after the planted entry %d was rebuilt: %d rejected, %d misses", i, c.Rejected, c.Misses)
		}
	}
	// The real key, though, makes a valid entry: the check is the MAC.
	key, err := os.ReadFile(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "eska", signedfile.KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(entryPath(h.root, catalog), forged(catalog, sum, "ПОДПИСАНО", keyed(key)), 0o644)
	if _, hits, _ := h.cachedSession("ПОДПИСАНО"); len(hits) != 1 {
		t.Fatalf("an entry signed with the user's key was not read (hits %v): the test's forgery is not the cache's format", hits)
	}
	h.cachedSession("Товары") // leaves the forged-but-signed entry in place, so:
	os.Remove(entryPath(h.root, catalog))
	h.cachedSession("Товары")

	entries, _ := filepath.Glob(filepath.Join(h.root, filepath.FromSlash(diskcache.Dir), "*", "*.entry"))
	if len(entries) < 5 {
		t.Fatalf("%d entries", len(entries))
	}
	// Truncated: every entry cut in half.
	for _, e := range entries {
		raw, _ := os.ReadFile(e)
		os.WriteFile(e, raw[:len(raw)/2], 0o644)
	}
	walk, _, c := h.cachedSession("Товары")
	sameWalk(t, "truncated entries", walk, want)
	if c.Rejected != len(entries) || c.Hits != 0 {
		t.Fatalf("truncated entries: %d rejected of %d, %d hits", c.Rejected, len(entries), c.Hits)
	}
	// Swapped: each entry moved to another file's place.
	contents := make([][]byte, len(entries))
	for i, e := range entries {
		contents[i], _ = os.ReadFile(e)
	}
	for i, e := range entries {
		os.WriteFile(e, contents[(i+1)%len(entries)], 0o644)
	}
	walk, _, c = h.cachedSession("Товары")
	sameWalk(t, "swapped entries", walk, want)
	if c.Rejected != len(entries) || c.Hits != 0 {
		t.Fatalf("swapped entries: %d rejected of %d, %d hits", c.Rejected, len(entries), c.Hits)
	}
	// A link in an entry's place, to another entry, is not followed.
	os.Remove(entries[0])
	if err := os.Symlink(entries[1], entries[0]); err != nil {
		t.Fatal(err)
	}
	walk, _, c = h.cachedSession("Товары")
	sameWalk(t, "an entry that is a link", walk, want)
	if c.Rejected != 1 {
		t.Fatalf("a link in an entry's place: %d rejected", c.Rejected)
	}
	if st, err := os.Lstat(entries[0]); err != nil || st.Mode()&os.ModeSymlink != 0 {
		t.Errorf("the link was not replaced by a rebuilt entry")
	}
}

// A cache directory reached through a symbolic link, whether it leads out
// of the project or not, is not used: nothing is written through it, the
// session answers as without a cache, and stderr says so.
//
//contract:proves eska-ide-api.limits.disk-cache
func TestCacheNeverThroughALink(t *testing.T) {
	files := configurationFixture()
	want := plain(t, files)
	for _, link := range []string{".eska", ".eska/cache", ".eska/cache/metadata"} {
		t.Run(link, func(t *testing.T) {
			h := newHarness(t, files)
			var diags []string
			h.b.Diag = func(c string) { diags = append(diags, c) }
			outside := t.TempDir()
			parent := filepath.Dir(filepath.Join(h.root, filepath.FromSlash(link)))
			os.MkdirAll(parent, 0o755)
			if err := os.Symlink(outside, filepath.Join(h.root, filepath.FromSlash(link))); err != nil {
				t.Fatal(err)
			}
			walk, _, c := h.cachedSession("Товары")
			sameWalk(t, "a linked cache directory", walk, want)
			if c.Writes != 0 || c.Hits != 0 {
				t.Errorf("%d writes, %d hits through the link", c.Writes, c.Hits)
			}
			if left, _ := os.ReadDir(outside); len(left) != 0 {
				t.Errorf("%d files written through the link", len(left))
			}
			if len(diags) != 1 || diags[0] != diskcache.DiagLink {
				t.Errorf("stderr: %q", diags)
			}
		})
	}
}

// Without a usable key (its folder cannot be made) there is no cache:
// nothing is written in the project, and stderr says so.
func TestCacheWithoutKey(t *testing.T) {
	files := configurationFixture()
	want := plain(t, files)
	h := newHarness(t, files)
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	h.b.KeyDir = filepath.Join(blocker, "eska") // under a regular file: cannot be made
	var diags []string
	h.b.Diag = func(c string) { diags = append(diags, c) }
	before := snapshot(t, h.root)
	walk, _, c := h.cachedSession("Товары")
	sameWalk(t, "no key", walk, want)
	if c != nil || len(diags) != 1 || diags[0] != diskcache.DiagNoKey {
		t.Errorf("cache %v, stderr %q", c, diags)
	}
	if !sameSnapshot(before, snapshot(t, h.root)) {
		t.Error("the project changed on disk")
	}
}
