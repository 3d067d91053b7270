package main

import (
	"encoding/json"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// The state depth bound holds on the command line as in the package:
// five deltas, each within the event depth limit and each nesting 17
// levels under the last, are refused under the stand, and under AG-UI 1.1
// the deltas past the bound are skipped, so the JSON report stays within
// the depth that any recursive reader is built for.
//
//contract:proves ag-ui.sequence.state-depth
func TestStateDepthOnTheCommandLine(t *testing.T) {
	nested := func(n int) string { return strings.Repeat(`{"x":`, n-1) + "{}" + strings.Repeat("}", n-1) }
	var b strings.Builder
	b.WriteString(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n")
	b.WriteString(`{"type":"STATE_SNAPSHOT","snapshot":{}}` + "\n")
	path := ""
	for k := 0; k < 5; k++ {
		b.WriteString(`{"type":"STATE_DELTA","delta":[{"op":"add","path":"` + path + `/x","value":` + nested(17) + `}]}` + "\n")
		path += "/x" + strings.Repeat("/x", 16)
	}
	b.WriteString(`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}` + "\n")
	file := write(t, "deep.ndjson", b.String())

	code, out, _ := runAgui(t, "", "check", "--json", file)
	var rep struct {
		Findings []struct {
			Event int
			Rule  string
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitRejected || len(rep.Findings) != 1 ||
		rep.Findings[0].Rule != contract.RuleSequenceStateDepth || rep.Findings[0].Event != 3 {
		t.Errorf("stand: exit %d, %v\n%s", code, err, out)
	}
	code, out, _ = runAgui(t, "", "check", "--json", "--profile", contract.ProfileAgUI11, file)
	var rep11 struct {
		Accepted bool
		Warnings []struct{ Rule string }
		State    json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &rep11); err != nil || code != exitAccepted || len(rep11.Warnings) != 4 {
		t.Fatalf("ag-ui-1.1: exit %d, %v\n%s", code, err, out)
	}
	// The deepest the report's state goes: count open brackets.
	depth, deepest := 0, 0
	for _, c := range string(rep11.State) {
		switch c {
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	if deepest != 18 {
		t.Errorf("ag-ui-1.1: the state nests %d levels, want 18 (the first delta's)", deepest)
	}
}
