package agui

import (
	"slices"
	"testing"

	"github.com/contractkit/contractkit/runtime/strictjson"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// The checker strips unknown members because its profile lists the rule
// that says so, not because it lacks the stand's refusal: a profile
// without ag-ui.tolerance.unknown-members refuses them (issue 30, so that
// what contractdiff judges by the rule's polarity is what runs).
//
//contract:proves ag-ui.tolerance.unknown-members
func TestStrictnessFollowsTheRule(t *testing.T) {
	data := lines(t, started(), runError("runId", "r", "threadId", "t"))
	if r := accept(t, v11, data); len(r.Warnings) == 0 || r.Warnings[0].Rule != contract.RuleToleranceUnknownMembers {
		t.Fatalf("under %s: warnings %v", v11, r.Warnings)
	}
	base, err := LookupProfile(v11)
	if err != nil {
		t.Fatal(err)
	}
	info := base.info
	info.Rules = slices.DeleteFunc(slices.Clone(info.Rules), func(r string) bool { return r == contract.RuleToleranceUnknownMembers })
	p := newProfile(info)
	if p.Has(contract.RuleToleranceUnknownMembers) || !p.Has(contract.RuleReaderJSON) {
		t.Fatal("the profile made without the rule still has it, or lost another")
	}
	opt := Options{Profile: v11, Source: t.Name()}
	_, m, err := setup(opt)
	if err != nil {
		t.Fatal(err)
	}
	a := arenas.Get().(*strictjson.Arena)
	defer func() {
		a.Reset()
		arenas.Put(a)
	}()
	rec, err := readRecord(data, p, true, a)
	if err != nil {
		t.Fatal(err)
	}
	r := newChecker(p, m, opt).run(rec.events, &rec)
	if r.Accepted || len(r.Findings) == 0 || r.Findings[0].Pointer != "/runId" {
		t.Fatalf("without the rule: accepted %v, findings %v, warnings %v", r.Accepted, r.Findings, r.Warnings)
	}
	for _, w := range r.Warnings {
		if w.Rule == contract.RuleToleranceUnknownMembers {
			t.Errorf("a member stripped under a profile without the rule: %v", w)
		}
	}
}
