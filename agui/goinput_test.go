package agui

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	contract "github.com/contractkit/contractkit/generated/agui"
)

type marshals struct{}

func (marshals) MarshalJSON() ([]byte, error) { panic("a method of the input was called") }

type texty int

func (*texty) MarshalText() ([]byte, error) { panic("a method of the input was called") }

//contract:proves ag-ui.stand.direct-input
func TestCheckValues(t *testing.T) {
	events := []any{
		map[string]any{"type": contract.EventRunStarted, "threadId": "t", "runId": "r"},
		map[string]any{"type": contract.EventStateSnapshot, "snapshot": map[string]any{"n": 1.5, "i": int64(7), "u": uint8(3), "ok": true, "none": nil, "list": []string{"a"}}},
		map[string]string{"type": contract.EventRunFinished, "threadId": "t", "runId": "r"},
	}
	r, err := CheckValues(events, Options{Source: "values"})
	if err != nil || !r.Accepted {
		t.Fatalf("CheckValues: %v %v", err, r.Findings)
	}
	if string(r.State) != `{"i":7,"list":["a"],"n":1.5,"none":null,"ok":true,"u":3}` {
		t.Errorf("state %s", r.State)
	}

	// Shared references without a cycle are accepted; the copy keeps the
	// values, not the identity.
	shared := map[string]any{"k": []any{1}}
	r, err = CheckValues([]any{
		map[string]any{"type": contract.EventRunStarted, "threadId": "t", "runId": "r"},
		map[string]any{"type": contract.EventStateSnapshot, "snapshot": map[string]any{"a": shared, "b": shared}},
	}, Options{})
	if err != nil || !r.Accepted || string(r.State) != `{"a":{"k":[1]},"b":{"k":[1]}}` {
		t.Fatalf("shared references: %v %v %s", err, r.Findings, r.State)
	}

	cyclicMap := map[string]any{}
	cyclicMap["self"] = cyclicMap
	cyclicSlice := make([]any, 1)
	cyclicSlice[0] = cyclicSlice
	type node struct{ Next *node }
	ptrLoop := &[]any{nil}
	(*ptrLoop)[0] = ptrLoop
	var nilMarshal *texty
	bad := []struct {
		name  string
		value any
		rule  string
		ptr   string
	}{
		{"map cycle", cyclicMap, contract.RuleStandDirectInput, "/snapshot/self"},
		{"slice cycle", cyclicSlice, contract.RuleStandDirectInput, "/snapshot/0"},
		{"pointer cycle", ptrLoop, contract.RuleStandDirectInput, "/snapshot/0"},
		{"function", func() {}, contract.RuleStandDirectInput, "/snapshot"},
		{"channel", make(chan int), contract.RuleStandDirectInput, "/snapshot"},
		{"complex", complex(1, 2), contract.RuleStandDirectInput, "/snapshot"},
		{"struct", node{}, contract.RuleStandDirectInput, "/snapshot"},
		{"struct with tags", time.Time{}, contract.RuleStandDirectInput, "/snapshot"},
		{"int keys", map[int]any{1: 1}, contract.RuleStandDirectInput, "/snapshot"},
		{"JSON marshaler", map[string]any{"m": marshals{}}, contract.RuleStandDirectInput, "/snapshot/m"},
		{"text marshaler", map[string]any{"m": nilMarshal}, contract.RuleStandDirectInput, "/snapshot/m"},
		{"NaN", map[string]any{"n": math.NaN()}, contract.RuleStandDirectInput, "/snapshot/n"},
		{"infinity", map[string]any{"n": math.Inf(-1)}, contract.RuleStandDirectInput, "/snapshot/n"},
		{"invalid UTF-8", map[string]any{"s": "\xff"}, contract.RuleReaderUnpairedSurrogates, "/snapshot/s"},
		{"surrogate in UTF-8", map[string]any{"\xed\xa0\x80": 1}, contract.RuleReaderUnpairedSurrogates, "/snapshot/\xed\xa0\x80"},
		{"negative zero", map[string]any{"z": math.Copysign(0, -1)}, contract.RuleReaderNegativeZero, "/snapshot/z"},
		{"unsafe integer", map[string]any{"i": int64(1) << 53}, contract.RuleReaderIntegerRange, "/snapshot/i"},
		{"bad json.Number", map[string]any{"n": json.Number("1x")}, contract.RuleStandDirectInput, "/snapshot/n"},
		{"too deep", deep(contract.LimitDepth + 1), contract.RuleReaderDepth, "/snapshot" + strings.Repeat("/0", contract.LimitDepth-1)},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			r, err := CheckValues([]any{
				map[string]any{"type": contract.EventRunStarted, "threadId": "t", "runId": "r"},
				map[string]any{"type": contract.EventStateSnapshot, "snapshot": b.value},
			}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Accepted {
				t.Fatal("accepted")
			}
			if f := r.Findings[0]; f.Rule != b.rule || f.Event != 1 || f.Pointer != b.ptr {
				t.Errorf("finding %v; want %s at %q", f, b.rule, b.ptr)
			}
		})
	}
	// The depth limit is the file's: one level less is accepted.
	r, _ = CheckValues([]any{
		map[string]any{"type": contract.EventRunStarted, "threadId": "t", "runId": "r"},
		map[string]any{"type": contract.EventStateSnapshot, "snapshot": deep(contract.LimitDepth)},
		map[string]any{"type": contract.EventRunFinished, "threadId": "t", "runId": "r"},
	}, Options{Profile: v11})
	if !r.Accepted {
		t.Errorf("depth at the limit: %v", r.Findings)
	}
	if _, err := CheckValues(nil, Options{}); err == nil {
		t.Error("no events: no error")
	}
}

// deep returns a value that, as an event's snapshot, nests to the given
// depth counted from the event: the event is level 1, the snapshot 2.
func deep(depth int) any {
	var v any = []any{}
	for i := 3; i <= depth; i++ {
		v = []any{v}
	}
	return v
}

// ApplyPatch copies its state and its patch under the stand's reading
// limits, each with budgets of its own: at each limit the input is
// applied, one past it is refused with the reader's rule, where the count
// crosses the limit.
func TestApplyPatchReadingLimits(t *testing.T) {
	zeros := func(n int) []any { return make([]any, n) } // nil elements: null values
	add := func(value any) []any {
		return []any{map[string]any{"op": "add", "path": "/p", "value": value}}
	}
	// A state is counted as its STATE_SNAPSHOT counts it, where its root
	// is level 2: it may nest LimitDepth-1 levels from its root.
	deepState, _ := nestedJSON(contract.LimitDepth - 1)
	deeperState, _ := nestedJSON(contract.LimitDepth)
	// The patch's strings besides the value: op, add, path, /p, value.
	const patchText = 2 + 3 + 4 + 2 + 5
	cases := []struct {
		name         string
		state, patch any // at the limit
		overState    any
		overPatch    any
		in, ptr      string // where one past is refused
		rule         string
	}{
		// The root object and the array are two values; each element one.
		{"state values", map[string]any{"a": zeros(contract.LimitValues - 2)}, []any{},
			map[string]any{"a": zeros(contract.LimitValues - 1)}, []any{},
			"state", "/a/" + strconv.Itoa(contract.LimitValues-2), contract.RuleReaderValues},
		// The list, the operation, its op and path, the value array: five.
		{"patch values", map[string]any{}, add(zeros(contract.LimitValues - 5)),
			map[string]any{}, add(zeros(contract.LimitValues - 4)),
			"patch", "/0/value/" + strconv.Itoa(contract.LimitValues-5), contract.RuleReaderValues},
		// The member name s is one text unit.
		{"state text", map[string]any{"s": strings.Repeat("x", contract.LimitTextUnits-1)}, []any{},
			map[string]any{"s": strings.Repeat("x", contract.LimitTextUnits)}, []any{},
			"state", "/s", contract.RuleReaderTextUnits},
		{"patch text", map[string]any{}, add(strings.Repeat("x", contract.LimitTextUnits-patchText)),
			map[string]any{}, add(strings.Repeat("x", contract.LimitTextUnits-patchText+1)),
			"patch", "/0/value", contract.RuleReaderTextUnits},
		{"state depth", deepState, []any{}, deeperState, []any{},
			"state", strings.Repeat("/x", contract.LimitDepth-1), contract.RuleReaderDepth},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := ApplyPatch(c.state, c.patch); err != nil {
				t.Fatalf("at the limit: %v", err)
			}
			_, err := ApplyPatch(c.overState, c.overPatch)
			fe, ok := err.(*FindingError)
			if !ok || fe.In != c.in || fe.Rule != c.rule || fe.Pointer != c.ptr {
				t.Fatalf("one past the limit: %v; want %s: %s at %q", err, c.in, c.rule, c.ptr)
			}
		})
	}
}
