package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/contractdiff/disposition"
	"github.com/contractkit/contractkit/internal/contractdiff/witness"
	"github.com/contractkit/contractkit/internal/spec"
)

// sample is a blocked result: a missing disposition, an accepted one, a
// changed text and a stale entry.
func sample() *Report {
	removed := contractdiff.Finding{Domain: "demo", Rule: contractdiff.RuleMethodRemoved, Severity: contractdiff.Breaking,
		Target: "demo.method.get", Before: "method get (client-to-server)", Message: "method get was removed",
		BaselineStability: spec.Stable, File: "spec/demo.json", Pointer: "/methods", Line: 40}
	lowered := contractdiff.Finding{Domain: "demo", Rule: contractdiff.RuleLimitNarrowed, Severity: contractdiff.Breaking,
		Target: "demo.limit.items/value", Before: "10", After: "8", Message: "limit demo.limit.items was lowered from 10 to 8",
		BaselineStability: spec.Stable, File: "spec/demo.json", Pointer: "/constants/0/value", Line: 12,
		Messages: []string{"method get params"},
		Witness:  witness.Witness{Message: "method get params", Type: "GetParams", JSON: `{"limit":9}`, Baseline: true}}
	text := contractdiff.Finding{Domain: "demo", Rule: contractdiff.RuleTextChanged, Severity: contractdiff.Documentation,
		Target: "demo.wire.frames/title", Before: `{"en":"Frames. Split by LF.","ru":"Кадры."}`, After: `{"en":"Frames. Split by CRLF.","ru":"Кадры."}`,
		Message: "the title of rule a | b changed", File: "spec/demo.json", Pointer: "/rules/0/title", Line: 50}
	entry := &disposition.Entry{Domain: "demo", ChangeID: lowered.ChangeID(), Rule: lowered.Rule, Target: lowered.Target,
		Reason: "r", Migration: "m", Owner: "o", Issue: "i", Expires: "2030-01-01", Pointer: "/dispositions/0", Line: 3}
	stale := &disposition.Entry{Domain: "demo", ChangeID: strings.Repeat("a", 32), Rule: "type-removed", Target: "demo.type.x",
		Reason: "r", Migration: "m", Owner: "o", Issue: "i", Expires: "2030-01-01", Pointer: "/dispositions/1", Line: 14}
	diff := &contractdiff.Diff{Domains: []contractdiff.DomainDiff{{Domain: "demo", File: "spec/demo.json", Status: contractdiff.Compared,
		Findings: []contractdiff.Finding{removed, lowered, text}}}}
	res := disposition.Apply(disposition.Input{Diff: diff, File: &disposition.File{Path: disposition.FileName, Entries: []*disposition.Entry{entry, stale}}})
	return &Report{Baseline: "HEAD~1", BaselineCommit: "0123456789abcdef0123", Current: "working tree", Dispositions: disposition.FileName, Result: res}
}

func TestSummary(t *testing.T) {
	r := sample()
	want := "contractdiff: blocked: 2 breaking (1 without disposition), 0 warning, 0 additive, 0 policy, 1 documentation in 1 domain; 1 disposition problem; baseline HEAD~1 (0123456789ab)"
	if got := Summary(r); got != want {
		t.Errorf("Summary =\n%s\nwant\n%s", got, want)
	}
	boot := &Report{Baseline: "", Result: &disposition.Result{Status: disposition.Bootstrap, Domains: []disposition.Domain{{Domain: "a"}, {Domain: "b"}}}}
	if got, want := Summary(boot), "contractdiff: bootstrap: nothing to compare, 2 domains taken as the starting point; baseline none"; got != want {
		t.Errorf("Summary =\n%s\nwant\n%s", got, want)
	}
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, sample()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"contractdiff: working tree compared with HEAD~1 (0123456789ab)\n",
		"demo  spec/demo.json  compared, 3 findings\n",
		"  BREAKING      method-removed  demo.method.get\n      method get was removed\n      spec/demo.json:40  change ",
		"disposition: accepted by /dispositions/0\n",
		"\nDisposition problems:\n  contract-change-dispositions.json:/dispositions/1/changeId: stale",
		"\nMissing dispositions: paste into the \"dispositions\" list of contract-change-dispositions.json, then replace every TODO:\n[\n  {\n    \"domain\": \"demo\",",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

func TestMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, sample()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"**Status: blocked**",
		"| Baseline | `HEAD~1 (0123456789ab)` |",
		"| breaking | `method-removed` | `demo.method.get` | method get was removed | **missing** |",
		"| breaking | `limit-narrowed` | `demo.limit.items/value` | limit demo.limit.items was lowered from 10 to 8 | accepted by /dispositions/0 |",
		// A pipe in a message must not split the table cell.
		"| the title of rule a \\| b changed |",
		// Texts are diffed a sentence per line.
		"```diff\n--- baseline/en\n+++ current/en\n@@ -1,2 +1,2 @@\n Frames.\n-Split by LF.\n+Split by CRLF.\n  (ru unchanged)\n```",
		"`contract-change-dispositions.json:/dispositions/1/changeId: stale",
		"```json\n[\n  {\n    \"domain\": \"demo\",",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}

// The JSON report keeps its documented field names.
func TestJSONFields(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, sample()); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	assertKeys(t, "report", doc, "format", "status", "summary", "baseline", "current", "counts", "domains",
		"dispositionProblems", "settledDispositions", "missingDispositions", "renewals")
	if doc["format"] != float64(JSONFormat) || doc["status"] != "blocked" {
		t.Errorf("format %v, status %v", doc["format"], doc["status"])
	}
	assertKeys(t, "baseline", doc["baseline"].(map[string]any), "label", "commit")
	assertKeys(t, "counts", doc["counts"].(map[string]any), "breaking", "warning", "additive", "policy", "documentation", "missingDispositions", "dispositionProblems")
	d := doc["domains"].([]any)[0].(map[string]any)
	assertKeys(t, "domain", d, "domain", "file", "status", "findings")
	f := d["findings"].([]any)[1].(map[string]any)
	assertKeys(t, "finding", f, "changeId", "rule", "severity", "target", "message", "before", "after", "baselineStability",
		"file", "pointer", "line", "blocking", "disposition", "dispositionEntry", "messages", "witness")
	assertKeys(t, "witness", f["witness"].(map[string]any), "message", "type", "json", "baselineAccepts", "currentAccepts")
	if f["disposition"] != "accepted" || f["dispositionEntry"] != "/dispositions/0" || f["blocking"] != true || f["line"] != float64(12) {
		t.Errorf("finding %v", f)
	}
	assertKeys(t, "problem", doc["dispositionProblems"].([]any)[0].(map[string]any), "file", "pointer", "line", "message")
	assertKeys(t, "template", doc["missingDispositions"].([]any)[0].(map[string]any), "domain", "changeId", "rule", "target",
		"reason", "migration", "owner", "issue", "expires")
}

func assertKeys(t *testing.T, what string, m map[string]any, want ...string) {
	t.Helper()
	var got []string
	for k := range m {
		got = append(got, k)
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s fields = %v, want %v", what, got, want)
	}
}

func TestGitHub(t *testing.T) {
	var b bytes.Buffer
	if err := GitHub(&b, sample()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	for _, want := range []string{
		"::error file=spec/demo.json,line=40,title=method-removed::breaking: method get was removed (demo.method.get). Disposition: missing.",
		"::warning file=spec/demo.json,line=12,title=limit-narrowed::breaking: limit demo.limit.items was lowered from 10 to 8 (demo.limit.items/value). Disposition: accepted by /dispositions/0.",
		"::notice file=spec/demo.json,line=50,title=text-changed::documentation:",
		"::error file=contract-change-dispositions.json,line=14,title=disposition::stale",
		"::group::Missing dispositions (paste into contract-change-dispositions.json and replace every TODO)",
	} {
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(l, want)
		}
		if !found {
			t.Errorf("no line starts with %q:\n%s", want, b.String())
		}
	}
}

// Workflow commands would end or split at a raw newline, and properties at
// a colon or comma.
func TestCommandEscaping(t *testing.T) {
	got := command("error", "spec/a,b:c.json", 0, "t:1,2", "50% done\nnext\rline")
	want := "::error file=spec/a%2Cb%3Ac.json,title=t%3A1%2C2::50%25 done%0Anext%0Dline"
	if got != want {
		t.Errorf("command = %q, want %q", got, want)
	}
}

// GitHub shows ten annotations of each level per step: the rest are
// counted in one more annotation, not written and lost.
func TestGitHubCap(t *testing.T) {
	var fs []contractdiff.Finding
	for i := 0; i < 25; i++ {
		fs = append(fs, contractdiff.Finding{Domain: "demo", Rule: contractdiff.RuleFieldRemoved, Severity: contractdiff.Breaking,
			Target: fmt.Sprintf("demo.type.t/fields/f%d", i), Before: "x", Message: "m", BaselineStability: spec.Stable, File: "spec/demo.json", Line: i + 1})
	}
	fs = append(fs, contractdiff.Finding{Domain: "demo", Rule: contractdiff.RuleTextChanged, Severity: contractdiff.Documentation,
		Target: "demo.type.t/title", Before: "a", After: "b", Message: "m", File: "spec/demo.json", Line: 99})
	diff := &contractdiff.Diff{Domains: []contractdiff.DomainDiff{{Domain: "demo", File: "spec/demo.json", Status: contractdiff.Compared, Findings: fs}}}
	r := &Report{Baseline: "HEAD~1", Dispositions: disposition.FileName, Result: disposition.Apply(disposition.Input{Diff: diff})}
	var b bytes.Buffer
	if err := GitHub(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "\n::error file="); n != 10-1 && n != 10 {
		t.Errorf("%d error annotations, want 10:\n%s", n, out)
	}
	if !strings.Contains(out, "::error title=contractdiff::and 15 more errors; the job summary lists every finding") {
		t.Errorf("no count of the rest:\n%s", out)
	}
	if strings.Count(out, "::notice file=") != 1 || strings.Contains(out, "more notice") {
		t.Errorf("the one notice is not written alone:\n%s", out)
	}
}

// TestSettledBy: a settled entry says how its change is known to be in
// the baseline, in text and JSON: by the baseline's dispositions file, or
// by the commit of its history that made it (and the rule that commit's
// revision judged it under, when another).
func TestSettledBy(t *testing.T) {
	mk := func(i int, target string) *disposition.Entry {
		return &disposition.Entry{Domain: "demo", ChangeID: strings.Repeat(fmt.Sprint(i), 32), Rule: contractdiff.RuleRequiredFieldAdded,
			Target: target, Reason: "r", Migration: "m", Owner: "o", Issue: "i", Expires: "2030-01-01", Pointer: fmt.Sprintf("/dispositions/%d", i)}
	}
	listed, same, other := mk(0, "demo.type.a/fields/x"), mk(1, "demo.type.b/fields/y"), mk(2, "demo.type.c/fields/z")
	diff := &contractdiff.Diff{Domains: []contractdiff.DomainDiff{{Domain: "demo", File: "spec/demo.json", Status: contractdiff.Compared}}}
	res := disposition.Apply(disposition.Input{Diff: diff, File: &disposition.File{Path: disposition.FileName, Entries: []*disposition.Entry{listed, same, other}},
		Baseline: &disposition.File{Entries: []*disposition.Entry{listed}},
		Landed: func(es []*disposition.Entry) map[*disposition.Entry]disposition.Landing {
			return map[*disposition.Entry]disposition.Landing{
				same:  {Commit: "1111111111111111aaaa", Rule: contractdiff.RuleRequiredFieldAdded},
				other: {Commit: "2222222222222222bbbb", Rule: contractdiff.RuleFieldAdded},
			}
		}})
	r := &Report{Baseline: "HEAD", BaselineCommit: "0123456789abcdef0123", Current: "working tree", Dispositions: disposition.FileName, Result: res}
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"contract-change-dispositions.json:/dispositions/0: required-field-added at demo.type.a/fields/x (the baseline's dispositions file lists it)\n",
		"contract-change-dispositions.json:/dispositions/1: required-field-added at demo.type.b/fields/y (made by commit 111111111111 of the baseline's history)\n",
		"contract-change-dispositions.json:/dispositions/2: required-field-added at demo.type.c/fields/z (made by commit 222222222222 of the baseline's history, which judged it field-added under that revision's parties)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := JSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Settled []struct {
			Pointer string `json:"pointer"`
			MadeBy  string `json:"madeBy"`
		} `json:"settledDispositions"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(doc.Settled)
	if want := "[{/dispositions/0 } {/dispositions/1 1111111111111111aaaa} {/dispositions/2 2222222222222222bbbb}]"; got != want {
		t.Errorf("settled %s, want %s", got, want)
	}
}
