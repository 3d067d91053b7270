package agui

import (
	"encoding/json"
	"fmt"
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
		// The levels of the state, from its root: one fewer than its
		// snapshot has, counted from the event.
		{"state depth", contract.RuleSequenceStateDepth, contract.LimitDepth - 1, func(n int) (any, []any) {
			base, inner := nestedJSON(contract.LimitDepth - 3)
			value, _ := nestedJSON(n - contract.LimitDepth + 3)
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

// The depth of a state is one rule on every way in: the state a snapshot
// carries, the state a delta leaves and the state ApplyPatch takes and
// returns nest at most LimitDepth-1 levels from their root, which is what
// a STATE_SNAPSHOT can carry within the depth limit, counted from its
// event. So every state the checker accepts can be sent again as a
// snapshot; and a patch's values are counted as the STATE_DELTA that would
// carry them counts them. Each case is checked at the limit and one past
// it, as a record in both forms, as a live stream, through CheckValues
// and through ApplyPatch, under both profiles where they apply.
//
//contract:proves ag-ui.sequence.state-depth ag-ui.reader.depth
func TestStateDepthEveryWayIn(t *testing.T) {
	t.Parallel()
	limit := contract.LimitDepth - 1 // the levels of a state, from its root
	xs := func(n int) string { return strings.Repeat("/x", n) }
	type want struct {
		rule         string // "" when accepted
		event        int
		ptr          string // in the event
		in, inPtr    string // ApplyPatch's argument and pointer
		depth        int    // the state's depth when accepted
		warnedIn11   bool   // AG-UI 1.1 applies nothing and warns instead
		depthIfWarns int
		// msg and applyMsg are what the finding (or warning) in a record
		// and ApplyPatch's error say the depth is counted from.
		msg, applyMsg string
	}
	fromEvent := fmt.Sprintf("nest deeper than %d levels, counted from the event", contract.LimitDepth)
	asSnapshot := fmt.Sprintf("more than %d levels deep, counted from its root; a snapshot of it would pass the depth limit of %d levels, counted from the event", limit, contract.LimitDepth)
	build := func(name string, over bool) (state any, patch []any, w want) {
		extra := map[bool]int{false: 0, true: 1}[over]
		switch name {
		case "snapshot":
			// The state's deepest object is at level limit+extra+1 of
			// the event.
			state, _ = nestedJSON(limit + extra)
			w = want{depth: limit}
			if over {
				w = want{rule: contract.RuleReaderDepth, event: 1, ptr: "/snapshot" + xs(limit), in: "state", inPtr: xs(limit),
					msg: fromEvent, applyMsg: fmt.Sprintf("nest deeper than %d levels, counted from the STATE_SNAPSHOT event that would carry the state, whose root is level 2", contract.LimitDepth)}
			}
			return state, nil, w
		case "delta leaves":
			// 17 levels, then 2 (3) more at the bottom: 19 (20).
			base, inner := nestedJSON(17)
			value, _ := nestedJSON(limit - 17 + extra)
			w = want{depth: limit}
			if over {
				w = want{rule: contract.RuleSequenceStateDepth, event: 2, ptr: "/delta/0", in: "patch", inPtr: "/0", warnedIn11: true, depthIfWarns: 17,
					msg: asSnapshot, applyMsg: asSnapshot}
			}
			return base, []any{map[string]any{"op": "add", "path": inner + "/y", "value": value}}, w
		}
		// The value of an add is level 4 of its STATE_DELTA: the event,
		// the list, the operation. 17 levels reach the limit of 20.
		value, _ := nestedJSON(contract.LimitDepth - 3 + extra)
		w = want{depth: contract.LimitDepth - 3 + 1}
		if over {
			p := "/0/value" + xs(contract.LimitDepth-3)
			w = want{rule: contract.RuleReaderDepth, event: 2, ptr: "/delta" + p, in: "patch", inPtr: p,
				msg: fromEvent, applyMsg: fmt.Sprintf("nest deeper than %d levels, counted from the STATE_DELTA event that would carry the patch, whose list is level 2", contract.LimitDepth)}
		}
		return map[string]any{}, []any{map[string]any{"op": "add", "path": "/x", "value": value}}, w
	}
	// restated checks that a state shown as accepted is accepted again as
	// the snapshot of a record of its own.
	restated := func(t *testing.T, profile string, state []byte) {
		t.Helper()
		var s any
		if err := json.Unmarshal(state, &s); err != nil {
			t.Fatal(err)
		}
		if r := check(t, profile, lines(t, run(snapshot(s))...)); !r.Accepted {
			t.Errorf("the accepted state, sent as a snapshot, is rejected: %v", r.Findings)
		}
	}
	for _, name := range []string{"snapshot", "delta leaves", "delta value"} {
		for _, over := range []bool{false, true} {
			state, patch, w := build(name, over)
			events := []ev{snapshot(state)}
			if patch != nil {
				events = append(events, delta(patch...))
			}
			events = run(events...)
			for _, profile := range []string{stand, v11} {
				data := lines(t, events...)
				ways := map[string]*Result{
					"NDJSON":      check(t, profile, data),
					"array":       check(t, profile, asArray(t, events...)),
					"stream":      streamLines(t, profile, data),
					"CheckValues": checkDirect(t, profile, events),
				}
				for way, r := range ways {
					label := fmt.Sprintf("%s, %s, %s, one past %v", name, profile, way, over)
					switch {
					case w.rule == "" || (w.warnedIn11 && profile == v11):
						if !r.Accepted {
							t.Errorf("%s: rejected: %v", label, r.Findings)
							continue
						}
						var got any
						if err := json.Unmarshal(r.State, &got); err != nil {
							t.Fatalf("%s: %v", label, err)
						}
						wantDepth, wantWarn := w.depth, 0
						if w.rule != "" {
							wantDepth, wantWarn = w.depthIfWarns, 1
						}
						if d := jsonDepth(got); d != wantDepth {
							t.Errorf("%s: state depth %d, want %d", label, d, wantDepth)
						}
						if len(r.Warnings) != wantWarn || (wantWarn == 1 && (r.Warnings[0].Rule != w.rule || r.Warnings[0].Event != w.event || r.Warnings[0].Pointer != w.ptr || !strings.Contains(r.Warnings[0].Message, w.msg))) {
							t.Errorf("%s: warnings %v, want %d of %s", label, r.Warnings, wantWarn, w.rule)
						}
						restated(t, profile, r.State)
					default:
						if r.Accepted || len(r.Findings) != 1 {
							t.Errorf("%s: accepted or not one finding: %v; want %s", label, r.Findings, w.rule)
							continue
						}
						if f := r.Findings[0]; f.Rule != w.rule || f.Event != w.event || f.Pointer != w.ptr || !strings.Contains(f.Message, w.msg) {
							t.Errorf("%s: %v; want %s at event %d %s saying %q", label, f, w.rule, w.event, w.ptr, w.msg)
						}
					}
				}
			}
			// ApplyPatch holds the stand's rules.
			label := fmt.Sprintf("%s, ApplyPatch, one past %v", name, over)
			if patch == nil {
				patch = []any{}
			}
			out, err := ApplyPatch(state, patch)
			if w.rule == "" {
				if err != nil {
					t.Errorf("%s: %v", label, err)
					continue
				}
				if d := jsonDepth(out); d != w.depth {
					t.Errorf("%s: state depth %d, want %d", label, d, w.depth)
				}
				b, _ := json.Marshal(out)
				restated(t, stand, b)
				continue
			}
			fe, ok := err.(*FindingError)
			if !ok || fe.In != w.in || fe.Rule != w.rule || fe.Pointer != w.inPtr {
				t.Errorf("%s: %v; want %s: %s at %s", label, err, w.in, w.rule, w.inPtr)
				continue
			}
			// The error names the argument, not a record ApplyPatch was
			// never given.
			if msg := err.Error(); !strings.HasPrefix(msg, w.in+" at "+w.inPtr+": ") || strings.Contains(msg, "record") || !strings.Contains(msg, w.applyMsg) {
				t.Errorf("%s: the error reads %q", label, msg)
			}
		}
	}
}

// A delta's path counts one level per token, whatever the token: an array
// index, the "-" that appends, or a name written with ~1 and ~0 escapes.
// Each reaches the state bound (LimitDepth-1 levels from the root) and is
// refused one past it, under both profiles.
//
//contract:proves ag-ui.sequence.state-depth
func TestStateDepthPathTokens(t *testing.T) {
	t.Parallel()
	limit := contract.LimitDepth - 1
	arr := func(n int) any { // n nested arrays, the innermost empty
		var v any = []any{}
		for k := 1; k < n; k++ {
			v = []any{v}
		}
		return v
	}
	for _, over := range []bool{false, true} {
		extra := map[bool]int{false: 0, true: 1}[over]
		cases := []struct {
			name string
			snap any
			op   map[string]any
		}{
			// /x holds 9 arrays (10 levels with the root); appending
			// under the 9th adds its own levels below level 10.
			{"append", map[string]any{"x": arr(9)},
				map[string]any{"op": "add", "path": "/x" + strings.Repeat("/0", 8) + "/-", "value": arr(limit - 10 + extra)}},
			// "a/b" and "c~d" are two levels, then 7 more: 10 with the
			// root; the value goes one token deeper.
			{"escaped", map[string]any{"a/b": map[string]any{"c~d": nestedOf("a", 8)}},
				map[string]any{"op": "add", "path": "/a~1b/c~0d" + strings.Repeat("/a", 7) + "/z", "value": nestedOf("a", limit-10+extra)}},
		}
		for _, c := range cases {
			data := lines(t, run(snapshot(c.snap), delta(c.op))...)
			for _, profile := range []string{stand, v11} {
				r := check(t, profile, data)
				var got any
				if r.State != nil {
					if err := json.Unmarshal(r.State, &got); err != nil {
						t.Fatal(err)
					}
				}
				switch {
				case !over && (!r.Accepted || len(r.Warnings) != 0 || jsonDepth(got) != limit):
					t.Errorf("%s, %s, at the limit: %v %v, depth %d", c.name, profile, r.Findings, r.Warnings, jsonDepth(got))
				case over && profile == stand && (r.Accepted || r.Findings[0].Rule != contract.RuleSequenceStateDepth || r.Findings[0].Pointer != "/delta/0"):
					t.Errorf("%s, stand, one past: %v", c.name, r.Findings)
				case over && profile == v11 && (!r.Accepted || len(r.Warnings) != 1 || r.Warnings[0].Rule != contract.RuleSequenceStateDepth || jsonDepth(got) != 10):
					t.Errorf("%s, ag-ui-1.1, one past: %v %v, depth %d", c.name, r.Findings, r.Warnings, jsonDepth(got))
				}
			}
		}
	}
}

// nestedOf is n nested objects, each the only member name of the one
// above it, the innermost empty.
func nestedOf(name string, n int) any {
	var v any = map[string]any{}
	for k := 1; k < n; k++ {
		v = map[string]any{name: v}
	}
	return v
}
