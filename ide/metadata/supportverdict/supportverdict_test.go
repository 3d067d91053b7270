package supportverdict

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/designer"
	gen "github.com/contractkit/contractkit/generated/ide"
)

const (
	vendor = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
	locked = "11111111-1111-1111-1111-111111111111" // rule 0: not editable
	open   = "22222222-2222-2222-2222-222222222222" // rule 1: editable
	gone   = "33333333-3333-3333-3333-333333333333" // rule 2: removed from support
	own    = "44444444-4444-4444-4444-444444444444" // no rule
)

// rules is a support file of one vendor with the three rules above;
// changes 0 allows changes, 1 forbids them.
func rules(t *testing.T, changes int) *designer.Support {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "\ufeff{6,%d,1,%s,%d,%s,\"3.1.1\",\"Фирма\",\"БСП\",3", changes, own, changes, vendor)
	for mode, u := range []string{locked, open, gone} {
		fmt.Fprintf(&b, ",%d,0,%s,%s", mode, u, u)
	}
	b.WriteString(",0,0,1}")
	s, err := designer.ParseSupport("ParentConfigurations.bin", []byte(b.String()), designer.DefaultSupportLimits)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func show(v Verdict) string {
	return fmt.Sprintf("mode=%s unknown=%v reason=%s supplier=%s inherited=%s ro=%v", v.Mode, v.Unknown, v.Reason, v.Supplier, v.Inherited, v.ReadOnly)
}

// The first rule up the chain decides, up to the top-level object; a
// predefined item has no rule of its own; a failure, an ambiguity or a
// missing uuid makes the verdict unknown and read-only; a configuration
// that forbids changes makes every object read-only.
func TestDecide(t *testing.T) {
	s := rules(t, 0)
	root := Link{ID: "configuration:К", UUID: own, Top: true}
	cases := []struct {
		name  string
		s     *designer.Support
		err   error
		chain []Link
		want  string
	}{
		{"locked", s, nil, []Link{{ID: "catalog:A", UUID: locked, Top: true}, root},
			"mode=not_editable unknown=false reason= supplier=" + vendor + " inherited= ro=true"},
		{"inherited from the owner", s, nil, []Link{{ID: "catalog:B/attribute:X", UUID: own}, {ID: "catalog:B", UUID: open, Top: true}, root},
			"mode=editable_with_support unknown=false reason= supplier=" + vendor + " inherited=catalog:B ro=false"},
		{"the object's own rule first", s, nil, []Link{{ID: "catalog:B/attribute:Y", UUID: gone}, {ID: "catalog:B", UUID: open, Top: true}, root},
			"mode=removed_from_support unknown=false reason= supplier=" + vendor + " inherited= ro=false"},
		{"the project's own object", s, nil, []Link{{ID: "catalog:C", UUID: own, Top: true}, root},
			"mode=not_supported unknown=false reason= supplier= inherited= ro=false"},
		{"a predefined item", s, nil, []Link{{ID: "catalog:A/predefined-item:P", Predef: true}, {ID: "catalog:A", UUID: locked, Top: true}, root},
			"mode=not_editable unknown=false reason= supplier=" + vendor + " inherited=catalog:A ro=true"},
		{"no support file", nil, nil, []Link{{ID: "catalog:A", UUID: locked, Top: true}, root},
			"mode=not_supported unknown=false reason= supplier= inherited= ro=false"},
		{"unreadable rules", s, errors.New("bad"), []Link{{ID: "catalog:A", UUID: locked, Top: true}, root},
			"mode= unknown=true reason=support_unreadable supplier= inherited= ro=true"},
		{"a failure up the chain", s, nil, []Link{{ID: "catalog:B/attribute:X", UUID: own}, {ID: "catalog:B", Top: true, Failure: gen.SupportReasonSourceChanged}, root},
			"mode= unknown=true reason=source_changed supplier= inherited= ro=true"},
		{"ambiguous", s, nil, []Link{{ID: "catalog:A", UUID: locked, Top: true, Ambiguous: true}, root},
			"mode= unknown=true reason=ambiguous supplier= inherited= ro=true"},
		{"no uuid", s, nil, []Link{{ID: "catalog:A", Top: true}, root},
			"mode= unknown=true reason=no_uuid supplier= inherited= ro=true"},
		{"changes forbidden", rules(t, 1), nil, []Link{{ID: "catalog:B", UUID: open, Top: true}, root},
			"mode=not_editable unknown=false reason=changes_disabled supplier=" + vendor + " inherited= ro=true"},
		{"changes forbidden, own object", rules(t, 1), nil, []Link{{ID: "catalog:C", UUID: own, Top: true}, root},
			"mode=not_supported unknown=false reason=changes_disabled supplier= inherited= ro=true"},
	}
	for _, c := range cases {
		if got := show(Decide(c.s, c.err, c.chain)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// The facts of a descriptor: its object, the objects it declares with
// descriptors of their own, its inline objects by relative id, and the
// names declared twice; an unreadable one is invalid.
func TestFactsOf(t *testing.T) {
	if f := FactsOf("s", nil); !f.Invalid || f.Sum != "s" {
		t.Errorf("no descriptor: %+v", f)
	}
	d := &designer.Descriptor{Object: &designer.Object{Name: "Конф", UUID: strings.ToUpper(own), Children: nil}}
	info, _ := designer.KindOfTag("Configuration")
	d.Object.Info = info
	cat, _ := designer.KindOfTag("Catalog")
	attr, _ := designer.KindOfTag("Attribute")
	d.Object.Children = []*designer.Child{
		{Info: cat, Name: "Товары"},
		{Info: attr, Name: "Реквизит", Inline: &designer.Object{Info: attr, Name: "Реквизит", UUID: strings.ToUpper(open)}},
		{Name: "Неизвестный"},
	}
	d.Diagnostics = []designer.Diagnostic{{Code: designer.DiagDuplicateIdentity, Details: [][2]string{{"kind", "catalog"}, {"name", "Товары"}}}}
	f := FactsOf("sum", d)
	if f.Invalid || f.UUID != own || f.Name != "Конф" || !f.Declared["catalog:Товары"] || len(f.Declared) != 1 ||
		!f.InlineHas("attribute:Реквизит") || f.Inline["attribute:Реквизит"] != open || !f.Dups["catalog:Товары"] {
		t.Errorf("facts %+v", f)
	}
}
