package agui

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// The byte limits of the stand are measured on the record as written. The
// cases below write the same value in the ways a file may: raw non-ASCII,
// escaped non-ASCII, CRLF line ends, pretty-printed. Each is built to be
// exactly the size it is asked for, counted by hand from its text.

// writing is one way of writing a value into a record.
type writing struct {
	name string
	// unit is what the filler repeats, and its size in the file; units
	// of three or six bytes and one text unit keep the text-unit limit
	// out of the way of the byte limits.
	unit string
	size int
	// open and close surround the filler; sep separates the lines of the
	// record; array writes the record as one array.
	open, close, sep string
	array            bool
}

var writings = []writing{
	{name: "raw U+2028", unit: "\u2028", size: 3, open: `{"s":"`, close: `"}`, sep: "\n"},
	{name: `escaped \u2028`, unit: `\u2028`, size: 6, open: `{"s":"`, close: `"}`, sep: "\n"},
	{name: "raw euro, CRLF lines", unit: "€", size: 3, open: `{"s":"`, close: `"}`, sep: "\r\n"},
	{name: "pretty-printed with CRLF", unit: `\u00e9`, size: 6, open: "{\r\n    \"s\" :  \"", close: "\"\r\n  }", sep: "\r\n", array: true},
}

// value returns the value written this way, exactly size bytes long.
func (w writing) value(size int) string {
	fill := size - len(w.open) - len(w.close)
	n := fill / w.size
	return w.open + strings.Repeat(w.unit, n) + strings.Repeat("x", fill-n*w.size) + w.close
}

// record writes RUN_STARTED, an event that holds a value under member,
// and RUN_FINISHED, the way w says.
func (w writing) record(kind, member, value string) []byte {
	events := []string{
		`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`,
		`{"type":"` + kind + `",` + strconv.Quote(member) + `:` + value + `}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
	}
	if w.array {
		return []byte("[" + w.sep + "  " + strings.Join(events, ","+w.sep+"  ") + w.sep + "]" + w.sep)
	}
	return []byte(strings.Join(events, w.sep) + w.sep)
}

// checkLarge checks a record without the record-size limit, which a file
// reaches before these: a snapshot or a delta is part of a record, so it
// is smaller than the largest record. Everything else is Check's.
func checkLarge(t *testing.T, data []byte) *Result {
	t.Helper()
	r, err := checkRecord(data, Options{Profile: stand, Source: t.Name()}, false)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func expectLimit(t *testing.T, r *Result, over bool, ptr, rule string) {
	t.Helper()
	switch {
	case !over && !r.Accepted:
		t.Errorf("at the limit: rejected: %v", r.Findings)
	case over && (r.Accepted || r.Findings[0].Rule != rule || r.Findings[0].Event != 1 || r.Findings[0].Pointer != ptr):
		t.Errorf("one past the limit: %v, want %s at event 1 %s", r.Findings, rule, ptr)
	}
}

//contract:proves ag-ui.stand.initial-state-bytes ag-ui.limit.initial-state-bytes
func TestInitialStateBytesAsWritten(t *testing.T) {
	t.Parallel()
	for _, w := range writings {
		t.Run(w.name, func(t *testing.T) {
			for _, over := range []bool{false, true} {
				size := contract.LimitInitialStateBytes + map[bool]int{false: 0, true: 1}[over]
				v := w.value(size)
				if len(v) != size {
					t.Fatalf("the value is %d bytes, not %d", len(v), size)
				}
				r := checkLarge(t, w.record(contract.EventStateSnapshot, nameSnapshot, v))
				expectLimit(t, r, over, "/snapshot", contract.RuleStandInitialStateBytes)
				if over && !strings.Contains(r.Findings[0].Message, strconv.Itoa(size)+" bytes") {
					t.Errorf("the finding does not give the size as written: %s", r.Findings[0].Message)
				}
			}
		})
	}
}

//contract:proves ag-ui.stand.patch-bytes ag-ui.limit.patch-bytes
func TestPatchBytesAsWritten(t *testing.T) {
	t.Parallel()
	for _, w := range writings {
		t.Run(w.name, func(t *testing.T) {
			for _, over := range []bool{false, true} {
				size := contract.LimitPatchBytes + map[bool]int{false: 0, true: 1}[over]
				// The delta is one add whose value is a string: the
				// writing's value, inside the operation, inside the list.
				inner := "" // a line of the record cannot break
				if w.array {
					inner = w.sep
				}
				op := writing{unit: w.unit, size: w.size,
					open:  "[" + inner + `{"op":"add","path":"/p","value":` + w.open,
					close: w.close + "}" + inner + "]"}
				v := op.value(size)
				if len(v) != size {
					t.Fatalf("the delta is %d bytes, not %d", len(v), size)
				}
				r := checkLarge(t, w.record(contract.EventStateDelta, nameDelta, v))
				expectLimit(t, r, over, "/delta", contract.RuleStandPatchBytes)
			}
		})
	}
}

// The defect this measure fixes: a 300 KB snapshot of raw U+2028 is 300 KB
// in the file and is accepted, not taken for the 600 KB of its escaped
// re-encoding.
//
//contract:proves ag-ui.stand.initial-state-bytes
func TestRawLineSeparatorsCountAsWritten(t *testing.T) {
	t.Parallel()
	w := writings[0]
	data := w.record(contract.EventStateSnapshot, nameSnapshot, `{"s":"`+strings.Repeat("\u2028", 100000)+`"}`)
	if len(data) > contract.LimitInputBytes {
		t.Fatalf("the record is %d bytes", len(data))
	}
	accept(t, stand, data)
}

// Values handed over in process have no file: they are measured as the
// compact JSON they stand for, each character written as itself.
//
//contract:proves ag-ui.stand.initial-state-bytes ag-ui.stand.patch-bytes ag-ui.stand.direct-input
func TestDirectInputBytes(t *testing.T) {
	t.Parallel()
	// value returns a string whose compact JSON, inside wrap bytes of
	// member and brackets, makes size bytes: raw U+2028 is three.
	value := func(wrap, size int) string {
		n := (size - wrap) / 3
		return strings.Repeat("\u2028", n) + strings.Repeat("x", size-wrap-3*n)
	}
	for _, over := range []bool{false, true} {
		extra := map[bool]int{false: 0, true: 1}[over]
		state := map[string]any{"s": value(len(`{"s":""}`), contract.LimitInitialStateBytes+extra)}
		_, err := ApplyPatch(state, []any{})
		if over != isRule(err, contract.RuleStandInitialStateBytes) || (!over && err != nil) {
			t.Errorf("state, over %v: %v", over, err)
		}
		r, err := CheckValues([]any{
			map[string]any{"type": contract.EventRunStarted, "threadId": "t", "runId": "r"},
			map[string]any{"type": contract.EventStateSnapshot, "snapshot": state},
			map[string]any{"type": contract.EventRunFinished, "threadId": "t", "runId": "r"},
		}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		expectLimit(t, r, over, "/snapshot", contract.RuleStandInitialStateBytes)
		const wrap = len(`[{"op":"add","path":"/p","value":""}]`)
		patch := []any{map[string]any{"op": "add", "path": "/p", "value": value(wrap, contract.LimitPatchBytes+extra)}}
		_, err = ApplyPatch(map[string]any{}, patch)
		if over != isRule(err, contract.RuleStandPatchBytes) || (!over && err != nil) {
			t.Errorf("patch, over %v: %v", over, err)
		}
	}
	if got := compactSize(tree(t, `{"a\n":["\u2028",1,true,null,"\u0001"]}`)); got != len(`{"a\n":["`)+3+len(`",1,true,null,"\u0001"]}`) {
		t.Errorf("compactSize = %d", got)
	}
}

// nestedJSON is an object nesting n levels ({} is one), written as
// {"x":{"x":…{}}}; path is the pointer of its innermost object.
func nestedJSON(n int) (doc any, path string) {
	var v any = map[string]any{}
	for k := 1; k < n; k++ {
		v = map[string]any{"x": v}
	}
	return v, strings.Repeat("/x", n-1)
}

// The depth limit bounds the state after every patch, not only each event:
// deltas that each stay within it must not build a deeper state. The state
// may nest as deep as a STATE_SNAPSHOT can carry it: LimitDepth-1 levels
// from its root, its snapshot being a member of its event.
//
//contract:proves ag-ui.sequence.state-depth
func TestStateDepthAfterPatches(t *testing.T) {
	limit := contract.LimitDepth - 1
	delta := func(path string, value any) ev {
		return ev{"type": contract.EventStateDelta, "delta": []any{map[string]any{"op": "add", "path": path, "value": value}}}
	}
	snapshot := ev{"type": contract.EventStateSnapshot, "snapshot": map[string]any{}}
	// First a delta puts 16 levels under /x (17 with the root); the
	// second puts `more` levels at the bottom of them.
	build := func(more int) []byte {
		first, _ := nestedJSON(16)
		_, bottom := nestedJSON(17)
		second, _ := nestedJSON(more)
		return lines(t, append([]ev{started(), snapshot, delta("/x", first), delta(bottom+"/x", second)}, ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r"})...)
	}
	atLimit, overLimit := build(limit-17), build(limit-17+1)
	for _, p := range []string{stand, v11} {
		r := accept(t, p, atLimit)
		var got any
		if err := json.Unmarshal(r.State, &got); err != nil {
			t.Fatal(err)
		}
		if d := jsonDepth(got); d != limit {
			t.Errorf("%s: state depth %d, want %d", p, d, limit)
		}
		if len(r.Warnings) != 0 {
			t.Errorf("%s: warnings %v", p, r.Warnings)
		}
	}
	reject(t, stand, overLimit, 3, "/delta/0", contract.RuleSequenceStateDepth)
	// AG-UI 1.1 applies nothing of the delta, warns, and goes on.
	r := accept(t, v11, overLimit)
	if len(r.Warnings) != 1 || r.Warnings[0].Rule != contract.RuleSequenceStateDepth || r.Warnings[0].Event != 3 {
		t.Errorf("warnings %v", r.Warnings)
	}
	var got any
	if err := json.Unmarshal(r.State, &got); err != nil || jsonDepth(got) != 17 {
		t.Errorf("state after the refused delta: depth %d (%v), want 17", jsonDepth(got), err)
	}

	// The case of the issue: five deltas, each within the event limit,
	// each putting 17 levels at the bottom of the last.
	events := []ev{started(), snapshot}
	path := ""
	for k := 0; k < 5; k++ {
		v, inner := nestedJSON(17)
		events = append(events, delta(path+"/x", v))
		path += "/x" + inner
	}
	events = append(events, ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r"})
	reject(t, stand, lines(t, events...), 3, "/delta/0", contract.RuleSequenceStateDepth)

	// Within one delta, what goes too deep and is removed again leaves the
	// state within the bound: the bound is on the state the delta leaves.
	part, inner := nestedJSON(17)
	for _, p := range []string{stand, v11} {
		r := accept(t, p, lines(t, run(snapshot, ev{"type": contract.EventStateDelta, "delta": []any{
			map[string]any{"op": "add", "path": "/d", "value": part},
			map[string]any{"op": "add", "path": "/d" + inner + "/y", "value": part},
			map[string]any{"op": "remove", "path": "/d"},
		}})...))
		if string(r.State) != "{}" || len(r.Warnings) != 0 {
			t.Errorf("%s: state %s warnings %v", p, r.State, r.Warnings)
		}
	}
	// A replace and, under AG-UI 1.1, a copy or a move are bounded alike:
	// /a holds 15 levels, put four tokens deep (19 levels) or five (20).
	fifteen, _ := nestedJSON(15)
	seed := ev{"type": contract.EventStateSnapshot, "snapshot": map[string]any{"a": fifteen, "b": map[string]any{"c": map[string]any{"d": map[string]any{"e": map[string]any{"f": map[string]any{}}}}}}}
	for _, path := range []string{"/b/c/d/e", "/b/c/d/e/f"} {
		over := path == "/b/c/d/e/f"
		for _, op := range []map[string]any{
			{"op": "replace", "path": path, "value": fifteen},
			{"op": "copy", "from": "/a", "path": path},
			{"op": "move", "from": "/a", "path": path},
		} {
			r := accept(t, v11, lines(t, run(seed, ev{"type": contract.EventStateDelta, "delta": []any{op}})...))
			if over != (len(r.Warnings) == 1 && r.Warnings[0].Rule == contract.RuleSequenceStateDepth) || (!over && len(r.Warnings) != 0) {
				t.Errorf("%v: warnings %v", op, r.Warnings)
			}
		}
	}

	// An activity's content is bounded alike (AG-UI 1.1 only has them).
	act := ev{"type": contract.EventActivitySnapshot, "messageId": "a", "activityType": "plan", "content": map[string]any{}}
	actDelta := func(path string, value any) ev {
		return ev{"type": contract.EventActivityDelta, "messageId": "a", "activityType": "plan", "patch": []any{map[string]any{"op": "add", "path": path, "value": value}}}
	}
	for _, more := range []int{limit - 17, limit - 17 + 1} {
		first, _ := nestedJSON(16)
		_, bottom := nestedJSON(17)
		second, _ := nestedJSON(more)
		r := accept(t, v11, lines(t, run(act, actDelta("/x", first), actDelta(bottom+"/x", second))...))
		var content any
		if err := json.Unmarshal(r.Messages[0].Data, &content); err != nil {
			t.Fatal(err)
		}
		over := more > limit-17
		if got := jsonDepth(content); (over && got != 17) || (!over && got != limit) {
			t.Errorf("activity, %d more levels: depth %d", more, got)
		}
		if over != (len(r.Warnings) == 1 && r.Warnings[0].Rule == contract.RuleSequenceStateDepth) {
			t.Errorf("activity, %d more levels: warnings %v", more, r.Warnings)
		}
	}

	// The Go API: a state at the limit is taken, one past it is refused,
	// and so is a patch that would take a state past it.
	for _, over := range []bool{false, true} {
		extra := map[bool]int{false: 0, true: 1}[over]
		state, _ := nestedJSON(limit + extra)
		_, err := ApplyPatch(state, []any{})
		if over != (err != nil) {
			t.Errorf("state of %d levels: %v", limit+extra, err)
		}
		base, inner := nestedJSON(limit - 2)
		value, _ := nestedJSON(2 + extra)
		out, err := ApplyPatch(base, []any{map[string]any{"op": "add", "path": inner + "/y", "value": value}})
		if over != isRule(err, contract.RuleSequenceStateDepth) || (!over && (err != nil || jsonDepth(out) != limit)) {
			t.Errorf("patch to %d levels: %v (depth %d)", limit+extra, err, jsonDepth(out))
		}
	}
}

// jsonDepth is the depth of a value decoded by encoding/json, counted as
// the limit counts it: an array or object is one level more than its
// deepest member, a scalar none.
func jsonDepth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, m := range x {
			d = max(d, jsonDepth(m))
		}
		return d + 1
	case []any:
		for _, e := range x {
			d = max(d, jsonDepth(e))
		}
		return d + 1
	}
	return 0
}
