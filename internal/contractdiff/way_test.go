package contractdiff

import (
	"testing"

	"github.com/contractkit/contractkit/internal/contractdiff/witness"
)

// A finding's way is its rule's when the rule is a removal, whatever its
// witness shows; otherwise a witness that narrows or widens decides, and
// without one the rule's own way stands (WayChange for a rule whose
// direction depends on the edit, or for a rule the catalog lacks).
func TestFindingWay(t *testing.T) {
	cases := []struct {
		rule string
		want witness.Want
		way  Way
	}{
		{RuleFieldRemoved, 0, WayRemoval},
		{RuleFieldRemoved, witness.Widens, WayRemoval},
		{RuleRenamed, witness.Narrows, WayRemoval},
		{RuleMaxLengthLowered, 0, WayNarrowing},
		{RuleEnumValueAdded, 0, WayWidening},
		{RulePatternChanged, 0, WayChange},
		{RulePatternChanged, witness.Narrows, WayNarrowing},
		{RulePatternChanged, witness.Widens, WayWidening},
		{RuleMaxLengthLowered, witness.Widens, WayWidening},
		{"no-such-rule", 0, WayChange},
	}
	for _, c := range cases {
		f := &Finding{Rule: c.rule}
		f.Probe.Want = c.want
		if got := f.Way(); got != c.way {
			t.Errorf("%s with want %d: Way() = %d, want %d", c.rule, c.want, got, c.way)
		}
	}
}
