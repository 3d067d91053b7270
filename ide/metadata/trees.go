package metadata

import (
	"container/list"
	"encoding/xml"
	"unsafe"

	"github.com/contractkit/contractkit/designer"
)

// TreeBudget is the most memory, in bytes as treeBytes estimates it, that
// a project keeps in parsed element trees: the whole descriptors read for
// properties and the predefined data of their owners. The least recently
// used trees beyond it are dropped and parsed again when asked for; the
// skeleton of the tree and the index never depend on them.
const TreeBudget = 32 << 20

// trees is the project's cache of element trees, least recently used
// first out. An entry is an owner of a descriptor file: its own element
// and those of its inline descendants point into one tree, or its
// predefined items into the tree of its Predefined.xml.
type trees struct {
	limit   int
	used    int
	order   *list.List // of *treeEntry, most recently used in front
	entries map[treeKey]*list.Element
}

type treeKey struct {
	owner  *object
	predef bool // the owner's predefined items, not its descriptor
}

type treeEntry struct {
	key   treeKey
	bytes int
}

func newTrees(limit int) *trees {
	return &trees{limit: limit, order: list.New(), entries: map[treeKey]*list.Element{}}
}

// touch marks a tree as just used.
func (t *trees) touch(k treeKey) {
	if e, ok := t.entries[k]; ok {
		t.order.MoveToFront(e)
	}
}

// add records a tree just parsed and drops the least recently used ones
// while the budget is exceeded; the new one always stays.
func (t *trees) add(k treeKey, bytes int) {
	t.drop(k)
	t.entries[k] = t.order.PushFront(&treeEntry{key: k, bytes: bytes})
	t.used += bytes
	for t.used > t.limit && t.order.Len() > 1 {
		t.evict(t.order.Back().Value.(*treeEntry).key)
	}
}

// drop forgets a tree without touching the objects (they are being
// dropped or reread).
func (t *trees) drop(k treeKey) {
	if e, ok := t.entries[k]; ok {
		t.used -= e.Value.(*treeEntry).bytes
		t.order.Remove(e)
		delete(t.entries, k)
	}
}

// dropOwner forgets both trees of an owner.
func (t *trees) dropOwner(o *object) {
	t.drop(treeKey{owner: o})
	t.drop(treeKey{owner: o, predef: true})
}

// evict drops a tree and every pointer into it.
func (t *trees) evict(k treeKey) {
	t.drop(k)
	if k.predef {
		var clear func(items []*object)
		clear = func(items []*object) {
			for _, it := range items {
				it.el = nil
				clear(it.children)
			}
		}
		clear(k.owner.rare().predef)
		return
	}
	var clear func(o *object)
	clear = func(o *object) {
		o.el = nil
		for _, c := range o.children {
			if !c.own {
				clear(c)
			}
		}
	}
	clear(k.owner)
}

// treeBytes estimates the memory of an element tree: the elements, their
// slices of children and attributes, and their strings.
func treeBytes(el *designer.Element) int {
	if el == nil {
		return 0
	}
	n := int(unsafe.Sizeof(*el)) + len(el.Space) + len(el.Local) + len(el.Text) +
		cap(el.Children)*int(unsafe.Sizeof(el)) + cap(el.Attrs)*int(unsafe.Sizeof(xml.Attr{}))
	for _, a := range el.Attrs {
		n += len(a.Value)
	}
	for _, c := range el.Children {
		n += treeBytes(c)
	}
	return n
}
