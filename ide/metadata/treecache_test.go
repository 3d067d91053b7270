package metadata

import (
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// The properties of an object and of everything its descriptor defines
// inline come from one parse of that descriptor.
func TestOwnerParsedOnce(t *testing.T) {
	h := openConfiguration(t)
	p := h.b.s.projects[0]
	for _, id := range []string{"catalog:Товары", "catalog:Товары/attribute:Артикул", "catalog:Товары/attribute:Связи",
		"catalog:Товары/attribute:Длина", "catalog:Товары/tabular-section:Цены", "catalog:Товары/tabular-section:Цены/attribute:Цена",
		"catalog:Товары/command:Печать", "catalog:Товары/attribute:Артикул"} {
		if _, err := h.b.Properties(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: gen.ObjectID(id)}); err != nil {
			t.Fatalf("%s: %s", id, errText(err))
		}
	}
	if p.r.Full != 1 {
		t.Errorf("the catalog's descriptor was parsed %d times for its own properties and those of its inline objects", p.r.Full)
	}
}

// With a budget that holds one tree at a time, every answer is the same
// as with room for all of them: dropped trees are parsed again, predefined
// items reattached to their file; only one tree is kept at any time.
func TestTreeBudget(t *testing.T) {
	roomy := openConfiguration(t)
	want := walkAll(roomy)
	want = append(want, walkAll(roomy)...)

	tight := openConfiguration(t)
	p := tight.b.s.projects[0]
	p.trees.SetLimit(1)
	got := walkAll(tight)
	got = append(got, walkAll(tight)...)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		for i := range want {
			if i >= len(got) || got[i] != want[i] {
				t.Fatalf("answers differ at %d:\n%s\n%s", i, want[i], got[min(i, len(got)-1)])
			}
		}
	}
	if n := p.trees.Len(); n != 1 {
		t.Errorf("%d trees kept with a budget of one byte", n)
	}
	if roomy.b.s.projects[0].r.Full >= p.r.Full {
		t.Errorf("%d parses with room for every tree, %d with room for one", roomy.b.s.projects[0].r.Full, p.r.Full)
	}
	if _, bytes, _ := p.trees.Newest(); p.trees.Used() != bytes || bytes == 0 {
		t.Errorf("%d bytes counted for the one tree kept, which counts %d", p.trees.Used(), bytes)
	}
	// A predefined file that no longer holds the items the tree shows is
	// a change without an event: source_changed, not another item's data.
	writeTree(t, tight.root, map[string]string{"src/Catalogs/Товары/Ext/Predefined.xml": strings.Replace(predefined, "Вложенный", "Другой", 1)})
	tight.b.Properties(gen.ObjectParams{SessionID: tight.sid, ProjectID: tight.pid, ObjectID: "catalog:Товары"}) // drops the predefined tree
	_, err := tight.b.Properties(gen.ObjectParams{SessionID: tight.sid, ProjectID: tight.pid, ObjectID: "catalog:Товары/predefined-item:Основной/predefined-item:Вложенный"})
	if kindOf(err) != "source_changed" {
		t.Errorf("a predefined item renamed in the file: %s", errText(err))
	}
}
