package agui

import (
	"strconv"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// The kind table finds every event of the contract at its index, and no
// other name: not a name that differs in one byte, in case or in length,
// nor one that shares the bytes the table hashes.
func TestEventKinds(t *testing.T) {
	t.Parallel()
	eventNames := map[string]bool{} // the names, known apart from the table
	for _, e := range contract.Events {
		eventNames[e.Name] = true
	}
	for want, e := range contract.Events {
		if got, ok := eventKinds.lookup(e.Name); !ok || got != want {
			t.Errorf("%s: kind %d %v, want %d", e.Name, got, ok, want)
		}
		n := len(e.Name)
		near := []string{
			strings.ToLower(e.Name),
			e.Name + "_",
			e.Name[:n-1],
			e.Name[:1] + strings.Repeat("X", n-2) + e.Name[n-1:], // the same length, first and last byte
			e.Name[:n/2] + "_" + e.Name[n/2+1:],                  // one hashed byte changed
		}
		if n > 3 {
			near = append(near, e.Name[:1]+"Q"+e.Name[2:]) // one byte the hash skips changed
		}
		for _, name := range near {
			if eventNames[name] {
				continue
			}
			if k, ok := eventKinds.lookup(name); ok {
				t.Errorf("%q is found as kind %d (%s)", name, k, contract.Events[k].Name)
			}
		}
	}
	for _, name := range []string{"", "X", "CUSTOM ", " RAW"} {
		if k, ok := eventKinds.lookup(name); ok {
			t.Errorf("%q is found as kind %d", name, k)
		}
	}
}

// The rule table finds every rule of the contract at its index and no
// near miss, and Has answers for every rule and profile what the profile's
// list of rules says.
func TestRuleNumbers(t *testing.T) {
	t.Parallel()
	for want, r := range contract.Rules {
		if got, ok := ruleNumbers.lookup(r.ID); !ok || got != want {
			t.Errorf("%s: number %d %v, want %d", r.ID, got, ok, want)
		}
		for _, near := range []string{r.ID + ".", r.ID[:len(r.ID)-1], strings.ToUpper(r.ID), r.ID[:len(r.ID)/2] + "~" + r.ID[len(r.ID)/2+1:]} {
			if k, ok := ruleNumbers.lookup(near); ok {
				t.Errorf("%q is found as rule %d (%s)", near, k, contract.Rules[k].ID)
			}
		}
	}
	for _, name := range ProfileNames() {
		p, _ := LookupProfile(name)
		listed := map[string]bool{}
		for _, r := range p.Rules() {
			listed[r] = true
		}
		for _, r := range contract.Rules {
			if p.Has(r.ID) != listed[r.ID] {
				t.Errorf("%s: Has(%s) is %v, the profile lists it: %v", name, r.ID, p.Has(r.ID), listed[r.ID])
			}
		}
		if p.Has("") || p.Has("ag-ui.no-such-rule") {
			t.Errorf("%s has a rule the contract does not", name)
		}
		// The tables are the profile's only record of what it lists, so
		// every name it lists must be one they know.
		for _, r := range p.Rules() {
			if _, ok := ruleNumbers.lookup(r); !ok || !p.Has(r) {
				t.Errorf("%s lists %s, which Has does not answer for", name, r)
			}
		}
		accepted := map[string]bool{}
		for _, e := range p.Events() {
			accepted[e] = true
			if _, ok := eventKinds.lookup(e); !ok {
				t.Errorf("%s lists the event %s, which the contract has no kind for", name, e)
			}
		}
		for _, e := range contract.Events {
			if p.Accepts(e.Name) != accepted[e.Name] {
				t.Errorf("%s: Accepts(%s) is %v, the profile lists it: %v", name, e.Name, p.Accepts(e.Name), accepted[e.Name])
			}
		}
		if p.Accepts("") || p.Accepts("NO_SUCH_EVENT") {
			t.Errorf("%s accepts an event the contract does not have", name)
		}
	}
}

// A name table holds at most half as many names as it has slots, so that a
// lookup of a name it does not hold always meets an empty slot: at that
// many it finds each of them and no other, one more is refused.
func TestNameTableLimit(t *testing.T) {
	t.Parallel()
	const most = nameSlots / 2
	table := &nameTable{}
	name := func(i int) string { return "NAME_" + strconv.Itoa(i) }
	for i := range most {
		table.add(name(i), i)
	}
	for i := range most {
		if got, ok := table.lookup(name(i)); !ok || got != i {
			t.Errorf("%s: %d %v, want %d", name(i), got, ok, i)
		}
	}
	for _, other := range []string{"", name(most), "NAME_", "name_0"} {
		if got, ok := table.lookup(other); ok {
			t.Errorf("%q is found as %d", other, got)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("a table of %d names took one more", most)
		}
	}()
	table.add(name(most), most)
}
