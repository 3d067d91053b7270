package contractdiff

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/contractkit/contractkit/internal/spec"
)

var ruleIDPattern = regexp.MustCompile(`^[a-z]+(-[a-z0-9]+)*$`)

// Every rule has a stable kebab-case id, a known severity and every text
// in both languages; a Russian text is a translation, not a copy.
func TestCatalogComplete(t *testing.T) {
	rules := Rules()
	if len(rules) != len(catalog) {
		t.Fatalf("Rules() returned %d of %d rules", len(rules), len(catalog))
	}
	for _, r := range rules {
		if !ruleIDPattern.MatchString(r.ID) {
			t.Errorf("rule id %q is not kebab-case", r.ID)
		}
		if r.Severity.Rank() == len(Severities) {
			t.Errorf("%s: unknown severity %q", r.ID, r.Severity)
		}
		if LookupRule(r.ID) != r {
			t.Errorf("LookupRule(%q) does not return the rule", r.ID)
		}
		for name, txt := range map[string]spec.Text{
			"title": r.Title, "description": r.Description, "why": r.Why, "trigger": r.Trigger,
			"example context": r.Example.Context, "resolution": r.Resolution,
		} {
			if strings.TrimSpace(txt.EN) == "" || strings.TrimSpace(txt.RU) == "" {
				t.Errorf("%s: %s lacks a language: %+v", r.ID, name, txt)
			}
			if txt.EN == txt.RU && words(txt.EN) >= 2 {
				t.Errorf("%s: the Russian %s is a copy of the English one", r.ID, name)
			}
			if name != "title" && !hasCyrillic(txt.RU) {
				t.Errorf("%s: the Russian %s has no Russian word: %q", r.ID, name, txt.RU)
			}
		}
		if r.Example.Before == "" && r.Example.After == "" {
			t.Errorf("%s: the example shows neither side", r.ID)
		}
		for _, frag := range []string{r.Example.Before, r.Example.After} {
			if frag != "" && !json.Valid([]byte(frag)) {
				t.Errorf("%s: example fragment is not JSON: %s", r.ID, frag)
			}
		}
	}
	if LookupRule("no-such-rule") != nil {
		t.Error("LookupRule found a rule that does not exist")
	}
}

// Reports list findings by severity: the order is fixed.
func TestSeverityRank(t *testing.T) {
	want := []Severity{Breaking, Warning, Additive, Policy, Documentation}
	for i, s := range want {
		if got := s.Rank(); got != i {
			t.Errorf("%s.Rank() = %d, want %d", s, got, i)
		}
	}
	if got := Severity("fatal").Rank(); got != len(want) {
		t.Errorf("unknown severity ranks %d, want %d", got, len(want))
	}
	rules := Rules()
	for i := 1; i < len(rules); i++ {
		a, b := rules[i-1], rules[i]
		if a.Severity.Rank() > b.Severity.Rank() || a.Severity == b.Severity && a.ID > b.ID {
			t.Errorf("Rules() lists %s (%s) before %s (%s)", a.ID, a.Severity, b.ID, b.Severity)
		}
	}
}

func words(s string) int { return len(strings.Fields(s)) }

func hasCyrillic(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Cyrillic, r) {
			return true
		}
	}
	return false
}

// The change id is fixed by its parts: the same parts give the same id, and
// moving text from one part to the next gives another.
func TestChangeID(t *testing.T) {
	a := ChangeID("demo", "method-removed", "demo.method.get", "method get", "")
	if a != ChangeID("demo", "method-removed", "demo.method.get", "method get", "") {
		t.Fatal("the same parts gave two ids")
	}
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(a) {
		t.Errorf("change id %q is not 32 hex digits", a)
	}
	for _, other := range []string{
		ChangeID("demo", "method-removed", "demo.method.get", "", "method get"),
		ChangeID("demo", "method-removed", "demo.method.ge", "tmethod get", ""),
		ChangeID("demo2", "method-removed", "demo.method.get", "method get", ""),
		ChangeID("demo", "event-removed", "demo.method.get", "method get", ""),
	} {
		if other == a {
			t.Errorf("different parts gave the same id %s", a)
		}
	}
	f := Finding{Domain: "demo", Rule: "method-removed", Target: "demo.method.get", Before: "method get"}
	if f.ChangeID() != a {
		t.Errorf("Finding.ChangeID() = %s, want %s", f.ChangeID(), a)
	}
}

func TestBlocking(t *testing.T) {
	for _, c := range []struct {
		sev  Severity
		stab spec.Stability
		want bool
	}{
		{Breaking, spec.Stable, true},
		{Breaking, spec.Experimental, true},
		{Breaking, spec.Deprecated, true},
		{Breaking, "", true}, // an element that did not exist at the baseline
		{Breaking, spec.Internal, false},
		{Warning, spec.Stable, false},
		{Additive, spec.Stable, false},
	} {
		f := Finding{Severity: c.sev, BaselineStability: c.stab}
		if got := f.Blocking(); got != c.want {
			t.Errorf("%s finding on a %q element: Blocking() = %v, want %v", c.sev, c.stab, got, c.want)
		}
	}
}
