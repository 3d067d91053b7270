package agui

import (
	"strconv"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// The stand's bounds on a state and a patch hold alike on every way in: a
// record read from a file, events handed over as Go values (CheckValues)
// and a state and a patch handed to ApplyPatch. At the limit all three
// take the input; one past it all three refuse it under the same rule, and
// say the same thing but for what they call the value and how they
// measured it.
//
//contract:proves ag-ui.stand.initial-state-bytes ag-ui.stand.patch-operations ag-ui.stand.patch-bytes ag-ui.sequence.state-depth ag-ui.stand.direct-input
func TestStateLimitsEveryWayIn(t *testing.T) {
	t.Parallel()
	// filler is a string whose compact JSON inside wrap bytes of member
	// and brackets makes size bytes. encoding/json writes a euro sign as
	// itself, so the record as written is that compact JSON too; it is one
	// text unit and three bytes, which keeps the text limit out of the way.
	filler := func(wrap, size int) string {
		n := (size - wrap) / 3
		return strings.Repeat("€", n) + strings.Repeat("x", size-wrap-3*n)
	}
	cases := []struct {
		name, rule string
		limit      int
		// at returns a state and a patch that reach n of the bound.
		at func(n int) (state any, patch []any)
	}{
		{"state bytes", contract.RuleStandInitialStateBytes, contract.LimitInitialStateBytes, func(n int) (any, []any) {
			return map[string]any{"s": filler(len(`{"s":""}`), n)}, []any{}
		}},
		{"patch operations", contract.RuleStandPatchOperations, contract.LimitPatchOperations, func(n int) (any, []any) {
			var ops []any
			for i := 0; i < n; i++ {
				ops = append(ops, map[string]any{"op": "add", "path": "/k" + strconv.Itoa(i), "value": i})
			}
			return map[string]any{}, ops
		}},
		{"patch bytes", contract.RuleStandPatchBytes, contract.LimitPatchBytes, func(n int) (any, []any) {
			const wrap = len(`[{"op":"add","path":"/p","value":""}]`)
			return map[string]any{}, []any{map[string]any{"op": "add", "path": "/p", "value": filler(wrap, n)}}
		}},
		{"state depth", contract.RuleSequenceStateDepth, contract.LimitDepth, func(n int) (any, []any) {
			base, inner := nestedJSON(contract.LimitDepth - 2)
			value, _ := nestedJSON(n - contract.LimitDepth + 2)
			return base, []any{map[string]any{"op": "add", "path": inner + "/y", "value": value}}
		}},
	}
	// same words a finding of one way in as another's: the value's name
	// and the measure, and the part after a semicolon (what became of the
	// state), differ by design.
	same := strings.NewReplacer("the snapshot", "the state", "the delta", "the patch", asWritten, asCompact)
	gist := func(msg string) string {
		msg, _, _ = strings.Cut(same.Replace(msg), ";")
		return msg
	}
	for _, c := range cases {
		for _, over := range []bool{false, true} {
			n := c.limit + map[bool]int{false: 0, true: 1}[over]
			state, patch := c.at(n)
			events := []ev{snapshot(state), delta(patch...)}
			file := checkLarge(t, lines(t, run(events...)...))
			values, err := CheckValues([]any{run(events...)[0], events[0], events[1], run()[1]}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, goErr := ApplyPatch(state, patch)
			if !over {
				if !file.Accepted || !values.Accepted || goErr != nil {
					t.Errorf("%s at the limit (%d): file %v, values %v, ApplyPatch %v", c.name, n, file.Findings, values.Findings, goErr)
				}
				continue
			}
			if file.Accepted || values.Accepted || !isRule(goErr, c.rule) {
				t.Fatalf("%s one past the limit (%d): file %v, values %v, ApplyPatch %v; want %s from each", c.name, n, file.Findings, values.Findings, goErr, c.rule)
			}
			msgs := []string{file.Findings[0].Message, values.Findings[0].Message, goErr.(*FindingError).Message}
			if file.Findings[0].Rule != c.rule || values.Findings[0].Rule != c.rule {
				t.Errorf("%s one past the limit: rules %s and %s, want %s", c.name, file.Findings[0].Rule, values.Findings[0].Rule, c.rule)
			}
			for _, m := range msgs {
				if gist(m) != gist(msgs[2]) || !strings.Contains(m, strconv.Itoa(c.limit)) {
					t.Errorf("%s one past the limit: the ways in say different things, or not the limit %d:\n%s", c.name, c.limit, strings.Join(msgs, "\n"))
					break
				}
			}
		}
	}
}
