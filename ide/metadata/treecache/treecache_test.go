package treecache

import (
	"slices"
	"testing"

	"github.com/contractkit/contractkit/designer"
)

// The budget evicts the least recently used trees, never the one just
// added; a touched tree counts as just used; a dropped one is not
// evicted.
func TestBudget(t *testing.T) {
	var evicted []string
	c := New(10, func(k string) { evicted = append(evicted, k) })
	c.Add("a", 4)
	c.Add("b", 4)
	c.Touch("a")
	c.Add("c", 4) // 12 > 10: b is the least recently used
	if !slices.Equal(evicted, []string{"b"}) || c.Len() != 2 || c.Used() != 8 {
		t.Fatalf("evicted %v, %d trees of %d bytes", evicted, c.Len(), c.Used())
	}
	c.Drop("a")
	if !slices.Equal(evicted, []string{"b"}) || c.Used() != 4 {
		t.Fatalf("a drop evicted: %v, %d bytes", evicted, c.Used())
	}
	c.Add("big", 100) // over the budget alone: kept, the others go
	if k, n, ok := c.Newest(); !ok || k != "big" || n != 100 || c.Len() != 1 || !slices.Equal(evicted, []string{"b", "c"}) {
		t.Fatalf("newest %q %d %v, %d trees, evicted %v", k, n, ok, c.Len(), evicted)
	}
	c.Add("big", 3) // added again: counted once, with its new size
	if c.Used() != 3 || c.Len() != 1 {
		t.Fatalf("re-added: %d bytes, %d trees", c.Used(), c.Len())
	}
	c.SetLimit(2)
	c.Add("d", 1)
	if !slices.Equal(evicted, []string{"b", "c", "big"}) || c.Used() != 1 {
		t.Fatalf("after a smaller limit: evicted %v, %d bytes", evicted, c.Used())
	}
}

// A tree weighs more than its parts' strings, and a child adds to it.
func TestBytes(t *testing.T) {
	if Bytes(nil) != 0 {
		t.Error("no tree weighs something")
	}
	leaf := &designer.Element{Local: "Name", Text: "Товары"}
	parent := &designer.Element{Local: "Properties", Children: []*designer.Element{leaf}}
	if Bytes(leaf) <= len("Name")+len("Товары") || Bytes(parent) <= Bytes(leaf) {
		t.Errorf("leaf %d bytes, parent %d", Bytes(leaf), Bytes(parent))
	}
}

// The budget is a limit on the bytes kept: trees that fill it exactly all
// stay; one byte past it evicts the least recently used.
func TestBudgetAtTheLimit(t *testing.T) {
	var evicted []string
	c := New(10, func(k string) { evicted = append(evicted, k) })
	c.Add("a", 4)
	c.Add("b", 6) // 10 bytes: at the limit
	if len(evicted) != 0 || c.Len() != 2 || c.Used() != 10 {
		t.Fatalf("at the limit: evicted %v, %d trees of %d bytes", evicted, c.Len(), c.Used())
	}
	c.Add("b", 7) // 11 bytes: one past it
	if !slices.Equal(evicted, []string{"a"}) || c.Len() != 1 || c.Used() != 7 {
		t.Fatalf("one byte past the limit: evicted %v, %d trees of %d bytes", evicted, c.Len(), c.Used())
	}
}
