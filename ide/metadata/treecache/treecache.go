// Package treecache is the budget of a project's parsed element trees in
// the eska IDE backend: the whole descriptors read for properties and the
// predefined data of their owners. The least recently used trees beyond
// the budget are dropped, through the owner's callback, and parsed again
// when asked for; the skeleton of the metadata tree and the search index
// never depend on them.
package treecache

import (
	"container/list"
	"encoding/xml"
	"unsafe"

	"github.com/contractkit/contractkit/designer"
)

// Cache keeps the sizes of the trees in memory, by key, least recently
// used first out.
type Cache[K comparable] struct {
	limit   int
	used    int
	order   *list.List // of *entry[K], most recently used in front
	entries map[K]*list.Element
	evicted func(K) // drops every pointer into an evicted tree
}

type entry[K comparable] struct {
	key   K
	bytes int
}

// New returns a cache of at most limit bytes (as Bytes estimates them);
// evicted is called with the key of each tree the budget drops.
func New[K comparable](limit int, evicted func(K)) *Cache[K] {
	return &Cache[K]{limit: limit, order: list.New(), entries: map[K]*list.Element{}, evicted: evicted}
}

// SetLimit changes the budget; it applies from the next Add.
func (t *Cache[K]) SetLimit(limit int) { t.limit = limit }

// Touch marks a tree as just used.
func (t *Cache[K]) Touch(k K) {
	if e, ok := t.entries[k]; ok {
		t.order.MoveToFront(e)
	}
}

// Add records a tree just parsed and evicts the least recently used ones
// while the budget is exceeded; the new one always stays.
func (t *Cache[K]) Add(k K, bytes int) {
	t.Drop(k)
	t.entries[k] = t.order.PushFront(&entry[K]{key: k, bytes: bytes})
	t.used += bytes
	for t.used > t.limit && t.order.Len() > 1 {
		t.Evict(t.order.Back().Value.(*entry[K]).key)
	}
}

// Drop forgets a tree without calling evicted (the owner's objects are
// being dropped or read again).
func (t *Cache[K]) Drop(k K) {
	if e, ok := t.entries[k]; ok {
		t.used -= e.Value.(*entry[K]).bytes
		t.order.Remove(e)
		delete(t.entries, k)
	}
}

// Evict drops a tree and, through evicted, every pointer into it.
func (t *Cache[K]) Evict(k K) {
	t.Drop(k)
	t.evicted(k)
}

// Len is the number of trees kept.
func (t *Cache[K]) Len() int { return t.order.Len() }

// Used is the sum of the sizes of the trees kept.
func (t *Cache[K]) Used() int { return t.used }

// Newest is the most recently used tree and its size.
func (t *Cache[K]) Newest() (K, int, bool) {
	if t.order.Len() == 0 {
		var none K
		return none, 0, false
	}
	e := t.order.Front().Value.(*entry[K])
	return e.key, e.bytes, true
}

// Bytes estimates the memory of an element tree: the elements, their
// slices of children and attributes, and their strings.
func Bytes(el *designer.Element) int {
	if el == nil {
		return 0
	}
	n := int(unsafe.Sizeof(*el)) + len(el.Space) + len(el.Local) + len(el.Text) +
		cap(el.Children)*int(unsafe.Sizeof(el)) + cap(el.Attrs)*int(unsafe.Sizeof(xml.Attr{}))
	for _, a := range el.Attrs {
		n += len(a.Value)
	}
	for _, c := range el.Children {
		n += Bytes(c)
	}
	return n
}
