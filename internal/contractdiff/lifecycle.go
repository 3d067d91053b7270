package contractdiff

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/contractkit/contractkit/internal/spec"
)

// The life of an element: deprecated before it is removed, reserved once
// removed, never reused with another meaning, and a breaking change comes
// with a new major version.

// removal reports what a removal skipped: a deprecation in the baseline,
// and a reservation of its wire name now.
func (c *comparer) removal(w where, e element) {
	if e.deprecatable && e.stab != spec.Deprecated {
		c.add(RuleRemovedWithoutDeprecation, w, 0, quote(string(e.stab)), "",
			"%s was removed without being deprecated first (its stability at the baseline is %s)", e.name, e.stab)
	}
	if e.reserveKind != "" && spec.Reserves(c.cur.Reserved, e.reserveKind, e.reserveKey) == nil {
		c.add(RuleRemovedNotReserved, w, 0, quote(e.reserveKind+" "+e.reserveKey), "",
			"%s was removed but %s %s is not in the spec's reserved list", e.name, e.reserveKind, e.reserveKey)
	}
}

// reuse reports an added element whose wire name the baseline reserved.
func (c *comparer) reuse(w where, e element) {
	if e.reserveKind == "" {
		return
	}
	if r := spec.Reserves(c.base.Reserved, e.reserveKind, e.reserveKey); r != nil {
		c.add(RuleReservedReused, w, 0, quote("reserved "+e.reserveKind+" "+e.reserveKey), e.signature,
			"%s reuses %s %s, which was removed in %s and reserved: peers built before the removal still give it the old meaning", e.name, e.reserveKind, e.reserveKey, r.Since)
	}
}

// renames pairs removed and added elements of the same shape: the wire
// name changed, which peers see as a removal and an addition at once, so
// it is reported once. Pairs form in id order, whatever the spec's order.
func renames[T any](c *comparer, s section[T], gone *[]string, added []string, taken map[string]bool,
	bview, aview map[string]element, bByID, aByID map[string]T) {
	if len(*gone) == 0 || len(added) == 0 {
		return
	}
	shapes := map[string]string{}
	for _, nid := range added {
		if !taken[nid] {
			shapes[nid] = s.shape(aByID[nid])
		}
	}
	for _, id := range append([]string(nil), *gone...) {
		sh := s.shape(bByID[id])
		for _, nid := range added {
			if taken[nid] || shapes[nid] != sh {
				continue
			}
			taken[nid] = true
			*gone = remove(*gone, id)
			c.renamedElement(bview[id], aview[nid])
			break
		}
	}
}

// renamedElement reports one rename of a wire name.
func (c *comparer) renamedElement(be, ae element) {
	w := where{target: be.id, ptr: ae.ptr, stab: be.stab, name: be.name, basePtr: be.ptr}
	c.add(RuleRenamed, w, 0, quote(be.reserveKey), quote(ae.reserveKey),
		"%s was renamed to %s on the wire (same shape, new id %s): peers that use the old name lose it", be.name, ae.name, ae.id)
	if e := be; e.reserveKind != "" && spec.Reserves(c.cur.Reserved, e.reserveKind, e.reserveKey) == nil {
		c.add(RuleRemovedNotReserved, w, 0, quote(e.reserveKind+" "+e.reserveKey), "",
			"the old %s %s was removed by the rename to %s but is not in the spec's reserved list", e.reserveKind, e.reserveKey, ae.reserveKey)
	}
}

// reservations compares the reserved lists: a reservation that is gone
// lets a name come back with another meaning.
func (c *comparer) reservations() {
	collect := func(d *spec.Domain) map[string]*spec.Reservation {
		m := map[string]*spec.Reservation{}
		for _, r := range d.Reserved {
			m[c.dom+"/reserved/"+escape(r.Kind+" "+r.Key())] = r
		}
		for _, t := range d.Types {
			for _, r := range t.Reserved {
				m[t.ID+"/reserved/"+escape(r.Key())] = r
			}
		}
		return m
	}
	b, a := collect(c.base), collect(c.cur)
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if a[k] != nil {
			continue
		}
		r := b[k]
		ptr := "/reserved"
		if i := strings.Index(k, "/reserved/"); i >= 0 && k[:i] != c.dom {
			if t := c.typeByID(c.cur, k[:i]); t != nil {
				ptr = t.Ptr
			}
		}
		c.add(RuleReservationRemoved, where{target: k, ptr: ptr, name: "reservation " + r.Key(), basePtr: r.Ptr}, 0,
			quote(r.Key()), "", "the reservation of %s (since %s) was removed: it may now come back with another meaning", r.Key(), r.Since)
	}
	added := make([]string, 0, len(a))
	for k := range a {
		if b[k] == nil {
			added = append(added, k)
		}
	}
	sort.Strings(added)
	for _, k := range added {
		r := a[k]
		c.add(RuleEntryAdded, where{target: k, ptr: r.Ptr, name: "reservation " + r.Key()}, 0, "", quote(r.Key()),
			"%s is now reserved", r.Key())
	}
}

func (c *comparer) typeByID(d *spec.Domain, id string) *spec.Type {
	for _, t := range d.Types {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// majorBump reports breaking changes that the domain's version does not
// announce: its major number stayed the same.
func (c *comparer) majorBump() {
	n := 0
	for _, f := range c.out {
		if f.Blocking() {
			n++
		}
	}
	if n == 0 {
		return
	}
	bm, am := major(c.base.Header.Version), major(c.cur.Header.Version)
	if am > bm {
		return
	}
	// The finding is about the version, but a pull request rarely
	// touches the version line, so it is annotated at the first change
	// that needs the bump, where the diff shows it.
	first := c.firstBlocking()
	w := where{target: c.dom + "/version", ptr: "/domain/version", stab: c.base.Header.Stability, name: "domain " + c.dom}
	version := fmt.Sprintf("%s now, %s at the baseline", c.cur.Header.Version, c.base.Header.Version)
	if c.cur.Header.Version == c.base.Header.Version {
		version = "the version is " + c.cur.Header.Version + " at both"
	}
	still := fmt.Sprintf("the major version is still %d", am)
	if am < bm {
		still = fmt.Sprintf("the major version went down from %d to %d", bm, am)
	}
	c.add(RuleBreakingWithoutMajorBump, w, 0, quote(c.base.Header.Version), quote(c.cur.Header.Version),
		"%s without a new major version: %s (%s); the first is %s at %s",
		plural(n, "breaking change"), still, version, first.Rule, first.Target)
	f := &c.out[len(c.out)-1]
	f.Pointer, f.Line, f.BaselinePointer = first.Pointer, first.Line, first.BaselinePointer
}

// firstBlocking returns the blocking finding that reports list first.
func (c *comparer) firstBlocking() Finding {
	var bl []Finding
	for _, f := range c.out {
		if f.Blocking() {
			bl = append(bl, f)
		}
	}
	SortFindings(bl)
	return bl[0]
}

// major is the first number of a version, or 0.
func major(v string) int {
	head, _, _ := strings.Cut(v, ".")
	n, _ := strconv.Atoi(head)
	return n
}

// plural writes "1 problem" or "2 problems".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// parties compares the two ends of the protocol: who they are and what
// this repository implements decides how every change is judged.
func (c *comparer) parties() {
	if len(c.base.Header.Parties) != 2 {
		return // the baseline did not say; its judgements used the defaults
	}
	for _, end := range []string{spec.ClientEnd, spec.ServerEnd} {
		b, a := c.base.PartyAt(end), c.cur.PartyAt(end)
		w := where{target: c.dom + "/parties/" + end, ptr: "/domain/parties", stab: c.base.Header.Stability, name: "the " + end + " party"}
		for i, p := range c.cur.Header.Parties {
			if p.End == end {
				w.ptr = "/domain/parties/" + strconv.Itoa(i)
			}
		}
		if b.Name != a.Name || b.Implemented != a.Implemented {
			sig := func(p *spec.Party) string {
				return canonical(map[string]any{"name": p.Name, "implemented": p.Implemented})
			}
			c.add(RulePartiesChanged, w, 0, sig(b), sig(a), "the %s end is now %s (implemented here: %v), was %s (implemented here: %v)",
				end, a.Name, a.Implemented, b.Name, b.Implemented)
		}
		c.text(w, "title", b.Title, a.Title)
		c.text(w, "description", b.Description, a.Description)
	}
}
