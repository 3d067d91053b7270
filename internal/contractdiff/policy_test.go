package contractdiff

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

func policySchema(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile("../../spec/contract-diff-policy.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func policyJSON(entries ...string) string {
	return `{"severities": [` + strings.Join(entries, ",") + `]}`
}

func override(rule, severity, reason string, domains ...string) string {
	m := map[string]any{"rule": rule, "severity": severity, "reason": reason}
	if len(domains) > 0 {
		m["domains"] = domains
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// An override sets the severity of a rule, in its domains or in all, and
// the finding says why.
func TestPolicyApplies(t *testing.T) {
	p, err := ParsePolicy("p.json", []byte(policyJSON(
		override(RuleRemovedWithoutDeprecation, "breaking", "Deprecate first."),
		override(RuleTranslationStale, "documentation", "English leads here.", "demo"),
		override(RuleTranslationStale, "breaking", "Not in other.", "other"),
	)), policySchema(t))
	if err != nil {
		t.Fatal(err)
	}
	fs := []Finding{
		{Domain: "demo", Rule: RuleRemovedWithoutDeprecation, Severity: Policy},
		{Domain: "demo", Rule: RuleTranslationStale, Severity: Warning},
		{Domain: "third", Rule: RuleTranslationStale, Severity: Warning},
	}
	p.apply(fs)
	if fs[0].Severity != Breaking || fs[0].Overridden != "Deprecate first." || !fs[0].Blocking() {
		t.Errorf("all domains: %+v", fs[0])
	}
	if fs[1].Severity != Documentation || fs[1].Overridden != "English leads here." {
		t.Errorf("named domain: %+v", fs[1])
	}
	if fs[2].Severity != Warning || fs[2].Overridden != "" {
		t.Errorf("a domain no override names: %+v", fs[2])
	}
}

// A raised rule blocks in a real comparison, and the version finding
// counts it.
func TestPolicyInCompare(t *testing.T) {
	base, err := os.ReadFile("testdata/base.json")
	if err != nil {
		t.Fatal(err)
	}
	meta := metaSchemaFS(t)
	b := parseSpec(t, meta, "base", base)
	cur := parseSpec(t, meta, "current", applyEdits(t, base, []string{"remove /methods/demo.method.get"}))
	p, err := ParsePolicy("p.json", []byte(policyJSON(override(RuleMethodRemoved, "warning", "Nobody calls get."))), policySchema(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range CompareWith(b, cur, p) {
		if f.Rule == RuleMethodRemoved && (f.Severity != Warning || f.Blocking()) {
			t.Errorf("lowered rule: %+v", f)
		}
		if f.Rule == RuleBreakingWithoutMajorBump {
			t.Errorf("no breaking change is left, yet %s: %s", f.Rule, f.Message)
		}
	}
}

func TestPolicyProblems(t *testing.T) {
	s := policySchema(t)
	for _, c := range []struct{ name, data, want string }{
		{"not JSON", `{"severities": [}`, "p.json: invalid JSON"},
		{"unknown rule", policyJSON(override("no-such-rule", "breaking", "x")), `p.json:/severities/0/rule: unknown rule "no-such-rule"`},
		{"unknown severity", policyJSON(override(RuleTextChanged, "fatal", "x")), "p.json:/severities/0/severity"},
		{"no reason", `{"severities": [{"rule": "text-changed", "severity": "warning"}]}`, "p.json:/severities/0: missing properties: 'reason'"},
		{"blank reason", policyJSON(override(RuleTextChanged, "warning", "  ")), "p.json:/severities/0/reason"},
		{"twice", policyJSON(override(RuleTextChanged, "warning", "a"), override(RuleTextChanged, "policy", "b")), "p.json:/severities/1: rule text-changed is already set for * by /severities/0"},
		{"unknown member", `{"severities": [], "extra": 1}`, "p.json:/: additionalProperties 'extra' not allowed"},
		// The whole document is "/" whatever found the problem.
		{"a number beyond float64", `1e400`, "p.json:/: the number 1e400 is outside the range of a 64-bit float"},
	} {
		_, err := ParsePolicy("p.json", []byte(c.data), s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// Every limit of the policy file holds at the limit and fails one past it.
func TestPolicyLimits(t *testing.T) {
	s := policySchema(t)
	if _, err := ParsePolicy("p.json", []byte(policyJSON(override(RuleTextChanged, "warning", strings.Repeat("x", 2000)))), s); err != nil {
		t.Errorf("a reason of 2000 characters: %v", err)
	}
	if _, err := ParsePolicy("p.json", []byte(policyJSON(override(RuleTextChanged, "warning", strings.Repeat("x", 2001)))), s); err == nil || !strings.Contains(err.Error(), "/severities/0/reason") {
		t.Errorf("a reason of 2001 characters: %v", err)
	}
	many := func(n int) []byte {
		var es []string
		for i := 0; i < n; i++ {
			es = append(es, override(RuleTextChanged, "warning", "x", fmt.Sprintf("d%d", i)))
		}
		return []byte(policyJSON(es...))
	}
	pad := func(n int) []byte {
		doc := policyJSON(override(RuleTextChanged, "warning", "x"))
		return []byte(doc + strings.Repeat(" ", n-len(doc)))
	}
	if _, err := ParsePolicy("p.json", pad(MaxPolicyBytes), s); err != nil {
		t.Errorf("a file of %d bytes: %v", MaxPolicyBytes, err)
	}
	if _, err := ParsePolicy("p.json", pad(MaxPolicyBytes+1), s); err == nil || err.Error() != fmt.Sprintf("p.json: the file is %d bytes; the limit is %d", MaxPolicyBytes+1, MaxPolicyBytes) {
		t.Errorf("a file of %d bytes: %v", MaxPolicyBytes+1, err)
	}
	if _, err := ParsePolicy("p.json", many(200), s); err != nil {
		t.Errorf("200 overrides: %v", err)
	}
	if _, err := ParsePolicy("p.json", many(201), s); err == nil || !strings.Contains(err.Error(), "p.json:/severities") {
		t.Errorf("201 overrides: %v", err)
	}
}

// A policy file is read from a repository; whatever it holds gives a
// policy or an error, never a panic.
func FuzzParsePolicy(f *testing.F) {
	s := policySchema(f)
	f.Add([]byte(policyJSON(override(RuleTextChanged, "warning", "x", "demo"))))
	f.Add([]byte(`{"severities": [{"rule": 1}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePolicy("p.json", data, s)
		if err == nil {
			p.apply([]Finding{{Domain: "demo", Rule: RuleTextChanged, Severity: Documentation}})
		}
	})
}

// A number no 64-bit float holds is refused by pointer before the schema.
func TestPolicyNumberBeyondFloat64(t *testing.T) {
	_, err := ParsePolicy("p.json", []byte(`{"severities": [{"rule": 1e1000100}]}`), policySchema(t))
	if err == nil || !strings.Contains(err.Error(), "p.json:/severities/0/rule: the number 1e1000100 is outside the range of a 64-bit float") {
		t.Errorf("got %v", err)
	}
}

// Nesting: maxPolicyDepth levels reach the schema (which wants objects in
// severities), one more does not get past the JSON reader.
func TestPolicyDepthLimit(t *testing.T) {
	nest := func(n int) []byte {
		return []byte(`{"severities": [` + strings.Repeat("[", n-2) + strings.Repeat("]", n-2) + `]}`)
	}
	_, err := ParsePolicy("p.json", nest(maxPolicyDepth), policySchema(t))
	if err == nil || strings.Contains(err.Error(), "invalid JSON") || !strings.Contains(err.Error(), "p.json:/severities/0: ") {
		t.Errorf("depth %d: err = %v, want a schema problem at /severities/0", maxPolicyDepth, err)
	}
	_, err = ParsePolicy("p.json", nest(maxPolicyDepth+1), policySchema(t))
	if err == nil || !strings.HasPrefix(err.Error(), "p.json: invalid JSON: ") {
		t.Errorf("depth %d: err = %v, want invalid JSON", maxPolicyDepth+1, err)
	}
}
