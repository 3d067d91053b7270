package disposition

import (
	"strings"
	"testing"
	"time"

	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/contractdiff/witness"
	"github.com/contractkit/contractkit/internal/spec"
)

var today = time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)

func removal() contractdiff.Finding {
	return contractdiff.Finding{Domain: "demo", Rule: contractdiff.RuleMethodRemoved, Severity: contractdiff.Breaking,
		Target: "demo.method.get", Before: "method get (client-to-server)", BaselineStability: spec.Stable,
		File: "spec/demo.json", Pointer: "/methods", Line: 3}
}

func diffOf(fs ...contractdiff.Finding) *contractdiff.Diff {
	return &contractdiff.Diff{Domains: []contractdiff.DomainDiff{{Domain: "demo", File: "spec/demo.json", Status: contractdiff.Compared, Findings: fs}}}
}

// entryFor is what a person makes of the printed template.
func entryFor(f contractdiff.Finding, expires string, i int) *Entry {
	e := Template(f, today)
	e.Reason, e.Migration, e.Owner, e.Issue, e.Expires = "Unused.", "Call list.", "@ann", "#12", expires
	e.Pointer, e.Line = "/dispositions/"+string(rune('0'+i)), i+2
	return &e
}

func file(es ...*Entry) *File { return &File{Path: FileName, Entries: es} }

func TestApplyMissingPrintsTemplate(t *testing.T) {
	warn := contractdiff.Finding{Domain: "demo", Rule: contractdiff.RuleEnumValueAdded, Severity: contractdiff.Warning, Target: "demo.type.status/values/stale", After: `"stale"`}
	r := Apply(Input{Diff: diffOf(removal(), warn), File: file(), Today: today})
	if r.Status != Blocked {
		t.Errorf("status %s, want blocked", r.Status)
	}
	fs := r.Findings()
	if fs[0].State != Missing || fs[1].State != NotNeeded {
		t.Errorf("states %s, %s", fs[0].State, fs[1].State)
	}
	if len(r.Templates) != 1 {
		t.Fatalf("%d templates, want 1", len(r.Templates))
	}
	tm := r.Templates[0]
	f := removal()
	if tm.ChangeID != f.ChangeID() || tm.Rule != f.Rule || tm.Target != f.Target || tm.Domain != "demo" {
		t.Errorf("template %+v does not name the finding", tm)
	}
	if tm.Expires != "2027-02-27" {
		t.Errorf("template expires %s, want 90 days after %s", tm.Expires, today.Format(DateLayout))
	}
	for _, s := range []string{tm.Reason, tm.Migration, tm.Owner, tm.Issue} {
		if !strings.HasPrefix(s, Placeholder) {
			t.Errorf("template text %q does not start with the placeholder", s)
		}
	}
	if n, missing := r.Count(contractdiff.Breaking); n != 1 || missing != 1 {
		t.Errorf("Count(breaking) = %d, %d", n, missing)
	}
	// The template, as printed, parses once its placeholders are filled.
	js := JSON(r.Templates)
	filled := strings.NewReplacer("TODO: why removing it is acceptable to those who still use it", "x", "TODO: what they use instead", "y",
		"TODO: the person or team answering for it", "z", "TODO: the issue that tracks it", "w").Replace(js)
	pf, err := Parse("d.json", []byte(`{"dispositions": `+filled+`}`), schema(t))
	if err != nil {
		t.Fatalf("filled template: %v\n%s", err, filled)
	}
	if r := Apply(Input{Diff: diffOf(removal()), File: pf, Today: today}); r.Status != Pass {
		t.Errorf("with the filled template: status %s, problems %v", r.Status, r.Problems)
	}
	// Unfilled, it still parses, but every placeholder is a problem, the
	// run is blocked, and no second template is printed for the change.
	uf, err := Parse("d.json", []byte(`{"dispositions": `+js+`}`), schema(t))
	if err != nil {
		t.Fatalf("unfilled template: %v", err)
	}
	if len(uf.Problems) != 4 || !strings.Contains(uf.Problems[0].String(), "d.json:/dispositions/0/reason: reason still holds the template's placeholder") {
		t.Errorf("unfilled template: problems %v", uf.Problems)
	}
	ur := Apply(Input{Diff: diffOf(removal()), File: uf, Today: today})
	if ur.Status != Blocked || len(ur.Templates) != 0 || len(ur.Problems) != 4 || ur.Findings()[0].State != Missing {
		t.Errorf("unfilled template: status %s, %d templates, problems %v", ur.Status, len(ur.Templates), ur.Problems)
	}
}

func TestApplyAccepted(t *testing.T) {
	e := entryFor(removal(), "2026-11-29", 0) // valid through today
	r := Apply(Input{Diff: diffOf(removal()), File: file(e), Today: today})
	if r.Status != Pass || len(r.Problems) != 0 || len(r.Templates) != 0 {
		t.Fatalf("status %s, problems %v, templates %v", r.Status, r.Problems, r.Templates)
	}
	if j := r.Findings()[0]; j.State != Accepted || j.Disposition != e {
		t.Errorf("state %s, disposition %v", j.State, j.Disposition)
	}
}

// The same entry no longer matches once the change itself is different.
func TestApplyChangedChangeIsBlockedAgain(t *testing.T) {
	f := contractdiff.Finding{Domain: "demo", Rule: contractdiff.RuleLimitNarrowed, Severity: contractdiff.Breaking,
		Target: "demo.limit.items/value", Before: "10", After: "8", BaselineStability: spec.Stable}
	e := entryFor(f, "2030-01-01", 0)
	g := f
	g.After = "6"
	r := Apply(Input{Diff: diffOf(g), File: file(e), Today: today})
	if r.Status != Blocked || r.Findings()[0].State != Missing || len(r.Templates) != 1 {
		t.Fatalf("status %s, state %s, templates %d", r.Status, r.Findings()[0].State, len(r.Templates))
	}
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].String(), FileName+":/dispositions/0/changeId: stale: the change at demo.limit.items/value is now change "+g.ChangeID()) {
		t.Errorf("problems %v, want the old entry reported stale", r.Problems)
	}
	// The new template keeps what the person wrote.
	if tm := r.Templates[0]; tm.ChangeID != g.ChangeID() || tm.Reason != e.Reason || tm.Migration != e.Migration || tm.Owner != e.Owner || tm.Issue != e.Issue {
		t.Errorf("template %+v does not keep the texts of %+v", tm, e)
	}
}

func TestApplyExpired(t *testing.T) {
	e := entryFor(removal(), "2026-11-28", 0) // the day before today
	r := Apply(Input{Diff: diffOf(removal()), File: file(e), Today: today})
	if r.Status != Blocked || r.Findings()[0].State != Missing {
		t.Fatalf("status %s, state %s", r.Status, r.Findings()[0].State)
	}
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].String(), "/dispositions/0/expires: expired on 2026-11-28, and the change still needs it") {
		t.Errorf("problems %v", r.Problems)
	}
	// A renewal, not a second template: same change, later date, same texts.
	if len(r.Templates) != 0 || len(r.Renewals) != 1 {
		t.Fatalf("%d templates, %d renewals", len(r.Templates), len(r.Renewals))
	}
	if n := r.Renewals[0]; n.ChangeID != e.ChangeID || n.Reason != e.Reason || n.Expires != "2027-02-27" {
		t.Errorf("renewal %+v", n)
	}
}

func TestApplyStaleAndSettled(t *testing.T) {
	stale := entryFor(removal(), "2030-01-01", 0)
	other := removal()
	other.Target = "demo.method.put"
	settled := entryFor(other, "2030-01-01", 1)
	base := file(settled)
	r := Apply(Input{Diff: diffOf(), File: file(stale, settled), Baseline: base, Today: today})
	if r.Status != Blocked {
		t.Errorf("status %s, want blocked", r.Status)
	}
	// Without a history (a folder baseline), the message cannot tell an
	// undone change from one made before the baseline, and says so.
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Msg, "stale: no change of this comparison is change "+stale.ChangeID+" (rule method-removed at demo.method.get)") ||
		!strings.Contains(r.Problems[0].Msg, "the change was either undone or made before the baseline (a folder baseline has no history to tell which); either way nothing here needs the entry, so delete it") || r.Problems[0].Pointer != "/dispositions/0/changeId" {
		t.Errorf("problems %v, want entry 0 stale, to delete", r.Problems)
	}
	if len(r.Settled) != 1 || r.Settled[0] != settled {
		t.Errorf("settled %v, want entry 1: the baseline has it already", r.Settled)
	}
	// Without the stale one, a settled entry alone does not block.
	if r := Apply(Input{Diff: diffOf(), File: file(settled), Baseline: base, Today: today}); r.Status != Pass {
		t.Errorf("only a settled entry: status %s, problems %v", r.Status, r.Problems)
	}
}

// TestApplyLanded: an entry that matches no change of the comparison and
// that the baseline's dispositions file lacks is asked about once, of the
// baseline's history: found there, it is settled (a disposition added
// after its change reached the baseline); found nowhere, the problem says
// the change exists on neither side and what was searched.
func TestApplyLanded(t *testing.T) {
	landedF := removal()
	landedF.Target = "demo.method.put"
	landed := entryFor(landedF, "2030-01-01", 0)
	goneF := removal()
	goneF.Target = "demo.method.gone"
	gone := entryFor(goneF, "2030-01-01", 1)
	listedF := removal()
	listedF.Target = "demo.method.listed"
	listed := entryFor(listedF, "2030-01-01", 2)
	needed := entryFor(removal(), "2030-01-01", 3)
	var asked []*Entry
	const searched = "none of the 3 commits of abc's history that changed spec/demo.json"
	r := Apply(Input{Diff: diffOf(removal()), File: file(landed, gone, listed, needed), Baseline: file(listed), Today: today,
		Landed: func(es []*Entry) map[*Entry]Landing {
			asked = append(asked, es...)
			return map[*Entry]Landing{
				landed: {Commit: "0123456789abcdef", Rule: contractdiff.RuleEntryAdded, Searched: searched},
				gone:   {Searched: searched},
			}
		}})
	// Only the entries neither this comparison nor the baseline's file
	// accounts for are searched.
	if len(asked) != 2 || asked[0] != landed || asked[1] != gone {
		t.Errorf("history asked about %v, want entries 0 and 1", asked)
	}
	if len(r.Settled) != 2 || r.Settled[0] != landed || r.Settled[1] != listed {
		t.Errorf("settled %v, want entries 0 (by history) and 2 (by the baseline's file)", r.Settled)
	}
	if l := r.SettledBy[landed]; l.Commit != "0123456789abcdef" || l.Rule != contractdiff.RuleEntryAdded {
		t.Errorf("entry 0 settled by %+v", l)
	}
	if _, ok := r.SettledBy[listed]; ok {
		t.Errorf("entry 2 is settled by the baseline's file, not by a commit")
	}
	want := "stale: change " + gone.ChangeID + " (rule method-removed at demo.method.gone) is not a change of this comparison, and " +
		searched + " made it either: it exists on neither side, so nothing needs this entry; delete it"
	if len(r.Problems) != 1 || r.Problems[0].Msg != want || r.Problems[0].Pointer != "/dispositions/1/changeId" {
		t.Errorf("problems %v, want entry 1: %s", r.Problems, want)
	}
	if r.Status != Blocked || r.Findings()[0].State != Accepted {
		t.Errorf("status %s, finding %s", r.Status, r.Findings()[0].State)
	}
	// Found in the history, nothing blocks.
	r = Apply(Input{Diff: diffOf(removal()), File: file(landed, needed), Baseline: file(), Today: today,
		Landed: func(es []*Entry) map[*Entry]Landing { return map[*Entry]Landing{landed: {Commit: "0123456789abcdef"}} }})
	if r.Status != Pass || len(r.Problems) != 0 {
		t.Errorf("landed entry: status %s, problems %v", r.Status, r.Problems)
	}
	// Nothing to ask: the history is not searched.
	Apply(Input{Diff: diffOf(removal()), File: file(needed), Baseline: file(), Today: today,
		Landed: func(es []*Entry) map[*Entry]Landing { t.Errorf("history searched for %v", es); return nil }})
}

// An entry whose change id is right but whose other members are not was
// edited by hand: it matches nothing and says so.
func TestApplyMismatch(t *testing.T) {
	e := entryFor(removal(), "2030-01-01", 0)
	e.Target = "demo.method.other"
	r := Apply(Input{Diff: diffOf(removal()), File: file(e), Today: today})
	if r.Status != Blocked || r.Findings()[0].State != Missing {
		t.Fatalf("status %s, state %s", r.Status, r.Findings()[0].State)
	}
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Msg, "but the entry says rule method-removed at demo.method.other") {
		t.Errorf("problems %v", r.Problems)
	}
}

func TestApplyInternalNeverBlocks(t *testing.T) {
	f := removal()
	f.BaselineStability = spec.Internal
	r := Apply(Input{Diff: diffOf(f), File: file(), Today: today})
	if r.Status != Pass || r.Findings()[0].State != InternalOnly || len(r.Templates) != 0 {
		t.Errorf("status %s, state %s, templates %d", r.Status, r.Findings()[0].State, len(r.Templates))
	}
}

func TestApplyBootstrap(t *testing.T) {
	d := &contractdiff.Diff{Domains: []contractdiff.DomainDiff{{Domain: "demo", File: "spec/demo.json", Status: contractdiff.Bootstrap}}}
	live := entryFor(removal(), "2030-01-01", 0)
	// Without a baseline an entry cannot be stale.
	r := Apply(Input{Diff: d, File: file(live), NoBaseline: true, Today: today})
	if r.Status != Bootstrap || len(r.Problems) != 0 {
		t.Errorf("status %s, problems %v", r.Status, r.Problems)
	}
	// Every domain new is a bootstrap too, even with a baseline commit.
	if r := Apply(Input{Diff: d, File: file(live), Today: today}); r.Status != Bootstrap {
		t.Errorf("all domains new: status %s, problems %v", r.Status, r.Problems)
	}
	// An expired entry is an error all the same: expiry does not need a baseline.
	old := entryFor(removal(), "2026-01-01", 0)
	if r := Apply(Input{Diff: d, File: file(old), NoBaseline: true, Today: today}); r.Status != Blocked {
		t.Errorf("expired entry at bootstrap: status %s", r.Status)
	}
}

// The template asks the question of the way the change goes: a widening
// is not called a narrowing (issue 30).
func TestTemplateFollowsWay(t *testing.T) {
	today := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		rule         string
		want         witness.Want
		reason, migr string
	}{
		{contractdiff.RuleLimitWidened, 0, "widening is acceptable to receivers", "receivers do to accept"},
		{contractdiff.RuleNullableAdded, witness.Widens, "widening", "receivers"},
		{contractdiff.RuleEnumValueAdded, witness.Widens, "widening", "receivers"},
		{contractdiff.RuleFieldNowOptional, witness.Widens, "widening", "receivers"},
		{contractdiff.RuleNullableRemoved, witness.Narrows, "narrowing is acceptable to the senders", "senders do to keep working"},
		{contractdiff.RuleMethodRemoved, 0, "removing it", "use instead"},
		{contractdiff.RuleTypeChanged, witness.Either, "this change is acceptable", "peers do"},
	} {
		f := contractdiff.Finding{Domain: "demo", Rule: c.rule, Target: "demo.x", Probe: witness.Probe{Op: witness.OpSet, Want: c.want}}
		tm := Template(f, today)
		if !strings.Contains(tm.Reason, c.reason) || !strings.Contains(tm.Migration, c.migr) || !strings.HasPrefix(tm.Reason, Placeholder) {
			t.Errorf("%s: reason %q, migration %q; want %q, %q", c.rule, tm.Reason, tm.Migration, c.reason, c.migr)
		}
	}
}
