package agui

import (
	"encoding/json"
	"math"
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
