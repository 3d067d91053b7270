// Package textindex is the search index of the eska IDE backend over the
// names and synonyms of metadata objects: exact, prefix and substring
// matches, ranked, a page at a time.
package textindex

import (
	"bytes"
	"container/heap"
	"unicode"
	"unicode/utf8"

	"github.com/contractkit/contractkit/designer"
)

// Record is what the index holds: a metadata object, by its pointer.
type Record interface {
	comparable
	// IndexSlot is where the index keeps, in the record, its record
	// number plus one (0 before it has one), so that Has is one look.
	IndexSlot() *int32
	IndexName() string
	IndexSynonyms() []designer.Text
	// IndexID orders hits of one rank and name (the ObjectId).
	IndexID() string
}

// Index is the search structure over the indexed records' names and
// synonyms. Their lower-cased texts (a zero byte in a text is dropped: it
// separates texts, and cannot be typed) are packed one after another (each
// followed by a zero byte) into blocks of about blockBytes; a block keeps
// a bit set of the pairs of adjacent characters its texts hold. A query is
// looked for only in the blocks that hold every pair of adjacent
// characters of the query, and there with bytes.Index; a match is mapped
// back to its text by binary search, and the best ranked hits are kept in
// a heap of the page's size. Blocks are never reallocated as the index
// grows. Removing a record only marks it; the index is rebuilt when
// removed texts make up half of it.
type Index[R Record] struct {
	blocks []*block
	recs   []R       // by record number; the zero R once removed
	names  []textRef // aligned with recs: where the record's name is
	live   int       // records present
	bytes  int       // text bytes in all blocks
	dead   int       // text bytes of removed records
	// blockLimit is where a block closes; tests make it small.
	blockLimit int

	// Scratch of search, reused: see there.
	epoch uint32
	stamp []uint32
	rank  []int8
	found []int32
}

// block is a run of whole texts.
type block struct {
	text   []byte
	fields []textField
	pairs  [pairBits / 64]uint64
}

// textField is one text of a record: its name or one of its synonyms.
type textField struct {
	off int32 // where the text starts in its block
	rec int32
	syn int32 // -1 for the name, else the index of the synonym
}

// textRef finds a text: its block and its field there.
type textRef struct{ block, field int32 }

const (
	blockBytes = 16 << 10 // a block closes at the first text boundary past this
	pairBits   = 4096
)

// New returns an empty index.
func New[R Record]() *Index[R] { return &Index[R]{blockLimit: blockBytes} }

// Add records o under a new record number; one already present is
// replaced, since its names may have been read again.
func (t *Index[R]) Add(o R) {
	if t.Has(o) {
		var none R
		t.recs[*o.IndexSlot()-1] = none
		t.live--
	}
	rec := int32(len(t.recs))
	t.recs = append(t.recs, o)
	*o.IndexSlot() = rec + 1
	t.live++
	t.names = append(t.names, t.addText(rec, -1, o.IndexName()))
	for i, s := range o.IndexSynonyms() {
		t.addText(rec, int32(i), s.Content)
	}
}

func (t *Index[R]) addText(rec, syn int32, s string) textRef {
	if len(t.blocks) == 0 || len(t.blocks[len(t.blocks)-1].text) >= t.blockLimit {
		t.blocks = append(t.blocks, &block{text: make([]byte, 0, t.blockLimit+t.blockLimit/8)})
	}
	b := t.blocks[len(t.blocks)-1]
	off := len(b.text)
	// Lower-cased and its pairs marked in one pass.
	prev := rune(-1)
	for _, r := range s {
		if r == 0 {
			continue
		}
		r = toLower(r)
		b.text = utf8.AppendRune(b.text, r)
		if prev >= 0 {
			h := pairHash(prev, r)
			b.pairs[h/64] |= 1 << (h % 64)
		}
		prev = r
	}
	b.text = append(b.text, 0)
	t.bytes += len(b.text) - off
	b.fields = append(b.fields, textField{off: int32(off), rec: rec, syn: syn})
	return textRef{block: int32(len(t.blocks) - 1), field: int32(len(b.fields) - 1)}
}

// toLower is the mapping strings.ToLower applies to each character, with
// the Latin and the Russian alphabets worked out directly.
func toLower(r rune) rune {
	switch {
	case r < utf8.RuneSelf:
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	case 'А' <= r && r <= 'Я':
		return r + ('а' - 'А')
	case 'а' <= r && r <= 'я':
		return r
	}
	return unicode.ToLower(r)
}

// eachPair calls fn with the hash of every pair of adjacent characters.
func eachPair(text []byte, fn func(h uint32)) {
	prev := rune(-1)
	for len(text) > 0 {
		r, n := utf8.DecodeRune(text)
		text = text[n:]
		if prev >= 0 {
			fn(pairHash(prev, r))
		}
		prev = r
	}
}

// pairHash places a pair of adjacent characters in a block's bit set.
func pairHash(a, b rune) uint32 { return (uint32(a)*0x9E3779B1 ^ uint32(b)) % pairBits }

// Len is the number of records present.
func (t *Index[R]) Len() int { return t.live }

// Has reports whether o has a record here.
func (t *Index[R]) Has(o R) bool {
	rec := *o.IndexSlot()
	return rec > 0 && int(rec) <= len(t.recs) && t.recs[rec-1] == o
}

// Remove drops the records that match.
func (t *Index[R]) Remove(match func(o R) bool) {
	var none R
	for i, o := range t.recs {
		if o != none && match(o) {
			t.recs[i] = none
			t.live--
		}
	}
	t.dead = 0
	for _, b := range t.blocks {
		for i, f := range b.fields {
			if t.recs[f.rec] == none {
				t.dead += int(b.end(i)-f.off) + 1
			}
		}
	}
	if t.dead > t.bytes/2 {
		t.compact()
	}
}

// compact rebuilds the index from the records still present.
func (t *Index[R]) compact() {
	old := t.recs
	*t = Index[R]{blockLimit: t.blockLimit, epoch: t.epoch}
	var none R
	for _, o := range old {
		if o != none {
			t.Add(o)
		}
	}
}

// end is where field i's text ends in the block (at its zero byte).
func (b *block) end(i int) int32 {
	if i+1 < len(b.fields) {
		return b.fields[i+1].off - 1
	}
	return int32(len(b.text) - 1)
}

// Hit is a match with its rank: 0 an exact name, 1 an exact synonym,
// 2 and 3 a prefix of either, 4 and 5 a substring.
type Hit[R Record] struct {
	Record R
	Rank   int
	name   []byte // the lower-cased name, for ties
}

// Search returns the best limit hits for the query q (already trimmed
// and lower-cased) and whether there were more. With lang, synonyms of
// other languages do not match.
func (t *Index[R]) Search(q []byte, limit int, lang *string) ([]Hit[R], bool) {
	q = bytes.ReplaceAll(q, []byte{0}, nil) // texts never hold one
	if len(q) == 0 {
		return nil, false
	}
	var want [pairBits / 64]uint64
	pairs := 0
	eachPair(q, func(h uint32) { want[h/64] |= 1 << (h % 64); pairs++ })
	// The best rank of each record found, kept in arrays reused from
	// search to search: a record's entry is valid when its stamp is this
	// search's.
	t.epoch++
	if len(t.stamp) < len(t.recs) {
		t.stamp = append(t.stamp, make([]uint32, len(t.recs)-len(t.stamp))...)
		t.rank = append(t.rank, make([]int8, len(t.recs)-len(t.rank))...)
	}
	found := t.found[:0]
	var none R
	for _, b := range t.blocks {
		if pairs > 0 && !covers(&b.pairs, &want) {
			continue
		}
		pos, fi := 0, 0
		for pos < len(b.text) {
			m := bytes.Index(b.text[pos:], q)
			if m < 0 {
				break
			}
			m += pos
			// The text the match lies in: the last field starting at or
			// before it. A match never spans a zero byte (queries have none).
			lo, hi := fi, len(b.fields)
			for lo+1 < hi {
				mid := (lo + hi) / 2
				if int(b.fields[mid].off) <= m {
					lo = mid
				} else {
					hi = mid
				}
			}
			fi = lo
			f := b.fields[fi]
			fend := int(b.end(fi))
			pos = fend + 1 // the first match in a text decides its rank
			o := t.recs[f.rec]
			if o == none || (f.syn >= 0 && lang != nil && o.IndexSynonyms()[f.syn].Lang != *lang) {
				continue
			}
			base := 0
			if f.syn >= 0 {
				base = 1
			}
			var rank int
			switch {
			case m == int(f.off) && fend-m == len(q):
				rank = base // exact
			case m == int(f.off):
				rank = base + 2 // prefix
			default:
				rank = base + 4 // substring
			}
			switch {
			case t.stamp[f.rec] != t.epoch:
				t.stamp[f.rec], t.rank[f.rec] = t.epoch, int8(rank)
				found = append(found, f.rec)
			case int8(rank) < t.rank[f.rec]:
				t.rank[f.rec] = int8(rank)
			}
		}
	}
	t.found = found
	// Only the ranks that reach into the page need their names compared:
	// every hit of a better rank is in, every hit of a worse one out.
	var perRank [6]int
	for _, rec := range found {
		perRank[t.rank[rec]]++
	}
	cut, better := len(perRank), 0
	for r, n := range perRank {
		if better+n >= limit {
			cut = r
			break
		}
		better += n
	}
	h := &hitHeap[R]{}
	for _, rec := range found {
		rank := int(t.rank[rec])
		if rank > cut {
			continue
		}
		ref := t.names[rec]
		b := t.blocks[ref.block]
		x := Hit[R]{Record: t.recs[rec], Rank: rank, name: b.text[b.fields[ref.field].off:b.end(int(ref.field))]}
		if h.Len() < limit {
			heap.Push(h, x)
		} else if limit > 0 && before(x, (*h)[0]) {
			(*h)[0] = x
			heap.Fix(h, 0)
		}
	}
	out := make([]Hit[R], h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(Hit[R])
	}
	return out, len(found) > limit
}

func covers(have, want *[pairBits / 64]uint64) bool {
	for i := range want {
		if have[i]&want[i] != want[i] {
			return false
		}
	}
	return true
}

// before is the order of hits: rank, then lower-cased name, then ObjectId.
func before[R Record](a, b Hit[R]) bool {
	if a.Rank != b.Rank {
		return a.Rank < b.Rank
	}
	if c := bytes.Compare(a.name, b.name); c != 0 {
		return c < 0
	}
	return a.Record.IndexID() < b.Record.IndexID()
}

// hitHeap keeps the worst of the kept hits on top.
type hitHeap[R Record] []Hit[R]

func (h hitHeap[R]) Len() int           { return len(h) }
func (h hitHeap[R]) Less(i, j int) bool { return before(h[j], h[i]) }
func (h hitHeap[R]) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap[R]) Push(x any)        { *h = append(*h, x.(Hit[R])) }
func (h *hitHeap[R]) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
