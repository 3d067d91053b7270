package contractdiff

import (
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/contractdiff/witness"
)

// witnessed are the rules about the values a message may hold: each of
// their findings must show a witness. With witnessFree they cover the
// catalog exactly once.
var witnessed = []string{
	RuleRenamed, RuleFieldRemoved, RuleRequiredFieldAdded, RuleClosedTypeFieldAdded,
	RuleFieldNowRequired, RuleFieldNowOptional, RuleNullableRemoved, RuleNullableAdded,
	RuleTypeChanged, RuleEnumValueRemoved, RuleEnumValueAdded, RuleVariantRemoved,
	RuleVariantAdded, RuleOpennessChanged, RuleMaxLengthLowered, RuleMinLengthRaised,
	RulePatternChanged, RuleMaximumLowered, RuleMinimumRaised, RuleItemBoundsNarrowed,
	RuleBoundWidened, RuleConstChanged, RuleClampRemoved, RuleUnknownFieldsNarrowed,
	RuleUnknownFieldsWidened, RuleExactlyOneOfChanged, RuleLimitNarrowed, RuleLimitWidened,
	RuleToleratedRemoval, RuleFieldAdded, RuleCompatibleChange, RuleRequestMemberIgnored,
}

// TestWitnessFreeRules: every catalog rule is either witness-free or
// witnessed, never both, so that a new rule is classified on purpose and
// TestOracle does not skip it by default.
func TestWitnessFreeRules(t *testing.T) {
	w := map[string]bool{}
	for _, id := range witnessed {
		if witnessFree[id] {
			t.Errorf("rule %s is both witnessed and witness-free", id)
		}
		w[id] = true
	}
	inCatalog := map[string]bool{}
	for _, r := range catalog {
		inCatalog[r.ID] = true
		if !w[r.ID] && !witnessFree[r.ID] {
			t.Errorf("rule %s is neither witnessed nor witness-free: classify it", r.ID)
		}
	}
	for id := range witnessFree {
		if !inCatalog[id] {
			t.Errorf("witness-free rule %s is not in the catalog", id)
		}
	}
	for id := range w {
		if !inCatalog[id] {
			t.Errorf("witnessed rule %s is not in the catalog", id)
		}
	}
}

// TestOracleFailsWithoutWitness: a finding of a value rule that set no
// probe, or whose probe found no witness, is an oracle failure, not a
// finding the oracle skips.
func TestOracleFailsWithoutWitness(t *testing.T) {
	for _, rule := range witnessed {
		if witnessFree[rule] {
			continue
		}
		f := Finding{Rule: rule, Target: "demo.type.t/fields/x"}
		if msg := missingWitness(f); !strings.Contains(msg, "set no probe") {
			t.Errorf("%s without a probe: %q, want a failure", rule, msg)
		}
		f.Probe = witness.Probe{Type: "demo.type.t", Field: "x", Op: witness.OpOmit, Want: witness.Narrows}
		if msg := missingWitness(f); !strings.Contains(msg, "no witness for probe") {
			t.Errorf("%s with a probe but no witness: %q, want a failure", rule, msg)
		}
	}
}
