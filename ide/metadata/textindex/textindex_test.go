package textindex

import (
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contractkit/contractkit/designer"
)

// object is a record as the backend's objects are: by pointer, with an
// ObjectId, a name and synonyms.
type object struct {
	id, name string
	synonyms []designer.Text
	rec      int32
}

func (o *object) IndexSlot() *int32              { return &o.rec }
func (o *object) IndexName() string              { return o.name }
func (o *object) IndexSynonyms() []designer.Text { return o.synonyms }
func (o *object) IndexID() string                { return o.id }

// referenceSearch is the plain definition of search: every record's name
// and synonyms lower-cased and compared with the query one by one.
func referenceSearch(objs []*object, q string, limit int, lang *string) ([]string, bool) {
	q = strings.ReplaceAll(q, "\x00", "")
	if q == "" {
		return nil, false
	}
	type ranked struct {
		o    *object
		rank int
		name string
	}
	var hits []ranked
	for _, o := range objs {
		best := -1
		consider := func(s string, base int) {
			s = strings.ToLower(strings.ReplaceAll(s, "\x00", ""))
			rank := -1
			switch {
			case s == q:
				rank = base
			case strings.HasPrefix(s, q):
				rank = base + 2
			case strings.Contains(s, q):
				rank = base + 4
			}
			if rank >= 0 && (best < 0 || rank < best) {
				best = rank
			}
		}
		consider(o.name, 0)
		for _, s := range o.synonyms {
			if lang == nil || s.Lang == *lang {
				consider(s.Content, 1)
			}
		}
		if best >= 0 {
			hits = append(hits, ranked{o, best, strings.ToLower(strings.ReplaceAll(o.name, "\x00", ""))})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.o.id < b.o.id
	})
	var out []string
	for i, h := range hits {
		if i == limit {
			break
		}
		out = append(out, h.o.id+" "+strconv.Itoa(h.rank))
	}
	return out, len(hits) > limit
}

func indexSearch(t *Index[*object], q string, limit int, lang *string) ([]string, bool) {
	hits, more := t.Search([]byte(q), limit, lang)
	var out []string
	for _, h := range hits {
		out = append(out, h.Record.id+" "+strconv.Itoa(h.Rank))
	}
	return out, more
}

var letters = []string{"а", "б", "Б", "о", "О", "к", "a", "b", "B", "o", "İ", "ς", "Σ", " ", "_", "1", "ё", "Ё", "\x00"}

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(letters[r.Intn(len(letters))])
	}
	return b.String()
}

// checkIndex compares the index with the reference on queries taken from
// the texts and made up.
func checkIndex(t *testing.T, r *rand.Rand, ix *Index[*object], live []*object) {
	t.Helper()
	ru, en := "ru", "en"
	for i := 0; i < 30; i++ {
		var q string
		if i%3 == 0 || len(live) == 0 {
			q = randomText(r, 1+r.Intn(3))
		} else {
			o := live[r.Intn(len(live))]
			s := []rune(o.name)
			if len(o.synonyms) > 0 && r.Intn(2) == 0 {
				s = []rune(o.synonyms[r.Intn(len(o.synonyms))].Content)
			}
			if len(s) == 0 {
				continue
			}
			a := r.Intn(len(s))
			q = string(s[a : a+1+r.Intn(len(s)-a)])
		}
		q = strings.ToLower(q)
		limit := 1 + r.Intn(20)
		for _, lang := range []*string{nil, &ru, &en} {
			want, wantMore := referenceSearch(live, q, limit, lang)
			got, gotMore := indexSearch(ix, q, limit, lang)
			if strings.Join(got, "|") != strings.Join(want, "|") || gotMore != wantMore {
				t.Fatalf("query %q limit %d lang %v:\n got %v %v\nwant %v %v", q, limit, lang, got, gotMore, want, wantMore)
			}
		}
	}
}

// The index answers every query as the plain definition does, while
// records are added, replaced and removed (and the blob compacted).
func TestTextIndexMatchesReference(t *testing.T) {
	r := rand.New(rand.NewSource(18))
	ix := New[*object]()
	ix.blockLimit = 200 // many blocks of few texts
	var all []*object
	for round := 0; round < 6; round++ {
		for i := 0; i < 300; i++ {
			o := &object{id: "catalog:" + strconv.Itoa(len(all)), name: randomText(r, 1+r.Intn(12))}
			for k := r.Intn(3); k > 0; k-- {
				o.synonyms = append(o.synonyms, designer.Text{Lang: []string{"ru", "en", "und"}[r.Intn(3)], Content: randomText(r, r.Intn(20))})
			}
			all = append(all, o)
			ix.Add(o)
		}
		// Some records are read again, some dropped by prefix.
		for i := 0; i < 100; i++ {
			ix.Add(all[r.Intn(len(all))])
		}
		cut := "catalog:" + strconv.Itoa(r.Intn(10))
		ix.Remove(func(o *object) bool { return strings.HasPrefix(o.id, cut) })
		var live []*object
		for _, o := range all {
			if ix.Has(o) {
				live = append(live, o)
			}
		}
		if ix.live != len(live) {
			t.Fatalf("live %d, counted %d", ix.live, len(live))
		}
		checkIndex(t, r, ix, live)
	}
}

// FuzzTextIndex checks the index against the reference on arbitrary texts
// and queries: the block filter and the blob must never lose or invent a
// hit.
func FuzzTextIndex(f *testing.F) {
	f.Add("Контрагенты", "Контрагенты поставщиков", "агент", uint8(3))
	f.Add("ΣΊΣΥΦΟΣ", "İstanbul", "ς", uint8(1))
	f.Add("a\x00b", "", "\x00", uint8(0))
	f.Fuzz(func(t *testing.T, name, synonym, query string, limit uint8) {
		ix := New[*object]()
		ix.blockLimit = 64 // many blocks of few texts
		var objs []*object
		for i := 0; i < 50; i++ {
			o := &object{id: "o:" + strconv.Itoa(i), name: name + strconv.Itoa(i%7)}
			if i%2 == 0 {
				o.synonyms = []designer.Text{{Lang: "ru", Content: synonym}}
			}
			objs = append(objs, o)
			ix.Add(o)
		}
		q := strings.ToLower(strings.TrimSpace(query))
		want, wantMore := referenceSearch(objs, q, int(limit), nil)
		got, gotMore := indexSearch(ix, q, int(limit), nil)
		if strings.Join(got, "|") != strings.Join(want, "|") || gotMore != wantMore {
			t.Fatalf("query %q:\n got %v %v\nwant %v %v", q, got, gotMore, want, wantMore)
		}
	})
}

// The shortcuts of toLower agree with strings.ToLower on every character.
func TestToLower(t *testing.T) {
	for r := rune(0); r <= 0x10FFFF; r++ {
		if !utf8.ValidRune(r) {
			continue // not a character a string can hold
		}
		if got, want := toLower(r), []rune(strings.ToLower(string(r))); len(want) != 1 || got != want[0] {
			t.Fatalf("%U: %U, strings.ToLower gives %U", r, got, want[0])
		}
	}
}

// The index is rebuilt when removed texts make up more than half of its
// bytes: at exactly half it is kept as it is, one byte past it rebuilt.
// (Each text costs its bytes and one zero byte.)
func TestCompactAtHalf(t *testing.T) {
	for _, c := range []struct {
		removed, kept string
		compacted     bool
	}{
		{"ab", "cd", false}, // 3 of 6 bytes removed: half
		{"abc", "d", true},  // 4 of 6 bytes: one past half
	} {
		ix := New[*object]()
		gone, stays := &object{id: "catalog:1", name: c.removed}, &object{id: "catalog:2", name: c.kept}
		ix.Add(gone)
		ix.Add(stays)
		if ix.bytes != 6 {
			t.Fatalf("%q and %q make %d bytes, want 6", c.removed, c.kept, ix.bytes)
		}
		ix.Remove(func(o *object) bool { return o == gone })
		compacted := ix.dead == 0 && ix.bytes == len(c.kept)+1
		if compacted != c.compacted || ix.Len() != 1 {
			t.Errorf("%d of 6 bytes removed: compacted %v (bytes %d, dead %d, %d records), want %v",
				len(c.removed)+1, compacted, ix.bytes, ix.dead, ix.Len(), c.compacted)
		}
		if hits, _ := ix.Search([]byte(c.kept), 10, nil); len(hits) != 1 || hits[0].Record != stays {
			t.Errorf("after removing %q, %q is found %d times", c.removed, c.kept, len(hits))
		}
	}
}
