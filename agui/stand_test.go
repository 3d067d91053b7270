package agui

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

func finished(outcome any) ev {
	return ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r", "outcome": outcome}
}

func started() ev { return ev{"type": contract.EventRunStarted, "threadId": "t", "runId": "r"} }

// ended ends the run of events with RUN_ERROR unless their last event
// already ends it: a run that fails closes whatever is still open.
func ended(events ...ev) []ev {
	switch events[len(events)-1]["type"] {
	case contract.EventRunFinished, contract.EventRunError:
		return events
	}
	return append(events, ev{"type": contract.EventRunError, "message": "stopped"})
}

//contract:proves ag-ui.stand.events ag-ui.unsupported.custom-events ag-ui.unsupported.nested-agents ag-ui.profile.stand
func TestStandEvents(t *testing.T) {
	t.Parallel()
	p, err := LookupProfile(stand)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Events()); n != 14 {
		t.Errorf("the stand accepts %d events, want its 14", n)
	}
	cases := []struct {
		event ev
		rule  string
	}{
		{ev{"type": contract.EventMessagesSnapshot, "messages": []any{}}, contract.RuleStandEvents},
		{ev{"type": contract.EventReasoningStart, "messageId": "x"}, contract.RuleStandEvents},
		{ev{"type": contract.EventTextMessageChunk, "messageId": "m", "delta": "x"}, contract.RuleStandEvents},
		{ev{"type": contract.EventActivitySnapshot, "messageId": "a", "activityType": "x", "content": ev{}}, contract.RuleStandEvents},
		{ev{"type": contract.EventCustom, "name": "x", "value": 1}, contract.RuleUnsupportedCustomEvents},
		{ev{"type": contract.EventRaw, "event": ev{}}, contract.RuleUnsupportedCustomEvents},
		{ev{"type": "FUTURE_EVENT"}, contract.RuleUnsupportedCustomEvents},
		{ev{"type": contract.EventSubagentStarted, "subagentRunId": "s", "name": "n"}, contract.RuleUnsupportedNestedAgents},
		{ev{"type": contract.EventSubagentFinished, "subagentRunId": "s"}, contract.RuleUnsupportedNestedAgents},
		{ev{"type": contract.EventSubagentError, "subagentRunId": "s", "message": "m"}, contract.RuleUnsupportedNestedAgents},
	}
	for _, c := range cases {
		t.Run(c.event["type"].(string), func(t *testing.T) {
			data := lines(t, started(), c.event)
			reject(t, stand, data, 1, "/type", c.rule)
		})
	}
	// Every one of the fourteen is accepted in its place.
	accept(t, stand, TutorialExample())
}

//contract:proves ag-ui.unsupported.nested-agents ag-ui.unsupported.unknown-fields ag-ui.unsupported.usage-run-input ag-ui.unsupported.resume ag-ui.unsupported.response-schema-expiry
func TestStandUnsupportedMembers(t *testing.T) {
	interrupt := func(extra ev) ev {
		in := ev{"id": "i1", "reason": "approval"}
		for k, v := range extra {
			in[k] = v
		}
		return finished(ev{"type": "interrupt", "interrupts": []any{in}})
	}
	cases := []struct {
		name  string
		event ev
		ptr   string
		rule  string
	}{
		{"subagent attribution", ev{"type": contract.EventTextMessageStart, "messageId": "m", "subagentRunId": "s1"}, "/subagentRunId", contract.RuleUnsupportedNestedAgents},
		{"subagent on an interrupt", interrupt(ev{"subagentRunId": "s1"}), "/outcome/interrupts/0/subagentRunId", contract.RuleUnsupportedNestedAgents},
		{"unknown member", ev{"type": contract.EventStepStarted, "stepName": "s", "futureProp": 1}, "/futureProp", contract.RuleUnsupportedUnknownFields},
		{"unknown nested member", interrupt(ev{"priority": "high"}), "/outcome/interrupts/0/priority", contract.RuleUnsupportedUnknownFields},
		{"usage on RUN_FINISHED", ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r", "usage": []any{ev{"model": "m"}}}, "/usage/0", contract.RuleUnsupportedUsageRunInput},
		{"usage on RUN_ERROR", ev{"type": contract.EventRunError, "message": "x", "usage": []any{ev{"inputTokens": 1}}}, "/usage/0", contract.RuleUnsupportedUsageRunInput},
		{"response schema", interrupt(ev{"responseSchema": ev{"type": "object"}}), "/outcome/interrupts/0/responseSchema", contract.RuleUnsupportedResponseSchemaExpiry},
		{"expiry", interrupt(ev{"expiresAt": "2030-01-01T00:00:00Z"}), "/outcome/interrupts/0/expiresAt", contract.RuleUnsupportedResponseSchemaExpiry},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reject(t, stand, lines(t, started(), c.event), 1, c.ptr, c.rule)
			// AG-UI 1.1 describes all of these except the unknown members,
			// which it strips with a warning. (A RUN_ERROR ends what the
			// event left open.)
			r := accept(t, v11, lines(t, ended(started(), c.event)...))
			if c.rule == contract.RuleUnsupportedUnknownFields && (len(r.Warnings) != 1 || r.Warnings[0].Pointer != c.ptr) {
				t.Errorf("1.1 warnings %v", r.Warnings)
			}
		})
	}
	input := func(extra ev) ev {
		in := ev{"threadId": "t", "runId": "r", "messages": []any{}}
		for k, v := range extra {
			in[k] = v
		}
		return ev{"type": contract.EventRunStarted, "threadId": "t", "runId": "r", "input": in}
	}
	reject(t, stand, lines(t, input(nil)), 0, "/input", contract.RuleUnsupportedUsageRunInput)
	// Resume entries are named as a resume, not merely as run input.
	reject(t, stand, lines(t, input(ev{"resume": []any{ev{"interruptId": "i1", "status": "resolved"}}})), 0, "/input/resume/0", contract.RuleUnsupportedResume)
	// A second run after an interrupt would be a resume in a file: the
	// stand allows one run.
	reject(t, stand, lines(t, started(), interrupt(nil), started()), 2, "", contract.RuleStandRuns)
}

//contract:proves ag-ui.stand.runs ag-ui.limit.runs
func TestStandRuns(t *testing.T) {
	one := run()
	accept(t, stand, lines(t, one...))
	two := append(append([]ev{}, one...), one...)
	reject(t, stand, lines(t, two...), len(one), "", contract.RuleStandRuns)
	accept(t, v11, lines(t, two...))
	if contract.LimitRuns != 1 {
		t.Fatalf("the test assumes the limit of one run per record, the spec says %d", contract.LimitRuns)
	}
}

func delta(ops ...any) ev { return ev{"type": contract.EventStateDelta, "delta": ops} }

func snapshot(s any) ev { return ev{"type": contract.EventStateSnapshot, "snapshot": s} }

//contract:proves ag-ui.stand.patch-operations ag-ui.limit.patch-operations
func TestStandPatchOperationsLimit(t *testing.T) {
	ops := func(n int) []any {
		var out []any
		for i := 0; i < n; i++ {
			out = append(out, ev{"op": "add", "path": "/k" + strconv.Itoa(i), "value": i})
		}
		return out
	}
	accept(t, stand, lines(t, run(delta(ops(contract.LimitPatchOperations)...))...))
	reject(t, stand, lines(t, run(delta(ops(contract.LimitPatchOperations+1)...))...), 1, "/delta", contract.RuleStandPatchOperations)
	accept(t, v11, lines(t, run(delta(ops(contract.LimitPatchOperations+1)...))...))
}

//contract:proves ag-ui.unsupported.copy-move ag-ui.unsupported.remove-root ag-ui.stand.state-root ag-ui.stand.state-atomicity
func TestStandStateRules(t *testing.T) {
	base := snapshot(ev{"a": 1, "list": []any{1, 2}})
	cases := []struct {
		name   string
		events []ev
		event  int
		ptr    string
		rule   string
	}{
		{"copy", []ev{base, delta(ev{"op": "copy", "from": "/a", "path": "/b"})}, 2, "/delta/0", contract.RuleUnsupportedCopyMove},
		{"move", []ev{base, delta(ev{"op": "move", "from": "/a", "path": "/b"})}, 2, "/delta/0", contract.RuleUnsupportedCopyMove},
		{"remove root", []ev{base, delta(ev{"op": "remove", "path": ""})}, 2, "/delta/0/path", contract.RuleUnsupportedRemoveRoot},
		{"array snapshot", []ev{snapshot([]any{1})}, 1, "/snapshot", contract.RuleStandStateRoot},
		{"null snapshot", []ev{snapshot(nil)}, 1, "/snapshot", contract.RuleStandStateRoot},
		{"replace root by array", []ev{base, delta(ev{"op": "replace", "path": "", "value": []any{}})}, 2, "/delta", contract.RuleStandStateRoot},
		{"a later operation fails", []ev{base, delta(ev{"op": "add", "path": "/b", "value": 2}, ev{"op": "remove", "path": "/missing"})}, 2, "/delta/1/path", contract.RuleStandStateAtomicity},
		{"a test fails", []ev{base, delta(ev{"op": "replace", "path": "/a", "value": 5}, ev{"op": "test", "path": "/a", "value": 1})}, 2, "/delta/1", contract.RuleStandStateAtomicity},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := reject(t, stand, lines(t, append([]ev{started()}, c.events...)...), c.event, c.ptr, c.rule)
			// The rejected delta leaves the state as it was.
			if c.event == 2 && string(r.State) != `{"a":1,"list":[1,2]}` {
				t.Errorf("state after a rejected delta: %s", r.State)
			}
		})
	}
	// The same unappliable delta under AG-UI 1.1 is a warning, and the
	// state is kept.
	r := accept(t, v11, lines(t, run(base, delta(ev{"op": "add", "path": "/b", "value": 2}, ev{"op": "remove", "path": "/missing"}))...))
	if len(r.Warnings) != 1 || r.Warnings[0].Rule != contract.RuleSequenceStateDelta || string(r.State) != `{"a":1,"list":[1,2]}` {
		t.Errorf("1.1: warnings %v state %s", r.Warnings, r.State)
	}
	// A delta before any snapshot applies to an empty object.
	r = accept(t, stand, lines(t, run(delta(ev{"op": "add", "path": "/x", "value": true}))...))
	if string(r.State) != `{"x":true}` {
		t.Errorf("state %s", r.State)
	}
}

//contract:proves ag-ui.stand.interrupts ag-ui.limit.interrupts ag-ui.stand.outcomes
func TestStandInterruptsAndOutcomes(t *testing.T) {
	interrupts := func(n int) ev {
		var list []any
		for i := 0; i < n; i++ {
			list = append(list, ev{"id": "i" + strconv.Itoa(i), "reason": "approval", "message": "ok?", "toolCallId": "c", "metadata": ev{"k": []any{1}}})
		}
		return finished(ev{"type": "interrupt", "interrupts": list})
	}
	r := accept(t, stand, lines(t, started(), interrupts(contract.LimitInterrupts)))
	oc := r.Runs[0].Outcome
	if oc.Kind != OutcomeInterrupt || len(oc.Interrupts) != contract.LimitInterrupts {
		t.Fatalf("outcome %+v", oc)
	}
	if in := oc.Interrupts[7]; in.ID != "i7" || in.Reason != "approval" || in.Message != "ok?" || in.ToolCallID != "c" || string(in.Metadata) != `{"k":[1]}` {
		t.Errorf("interrupt shown as %+v", in)
	}
	reject(t, stand, lines(t, started(), interrupts(contract.LimitInterrupts+1)), 1, "/outcome", contract.RuleStandInterrupts)
	accept(t, v11, lines(t, started(), interrupts(contract.LimitInterrupts+1)))

	for kind, outcome := range map[string]any{OutcomeSuccess: ev{"type": "success"}, OutcomeInterrupt: ev{"type": "interrupt", "interrupts": []any{ev{"id": "i", "reason": "r"}}}} {
		if r := accept(t, stand, lines(t, started(), finished(outcome))); r.Runs[0].Outcome.Kind != kind {
			t.Errorf("outcome %v shown as %s", outcome, r.Runs[0].Outcome.Kind)
		}
	}
	r = accept(t, stand, lines(t, started(), ev{"type": contract.EventRunError, "message": "model unreachable", "code": "E1"}))
	if oc := r.Runs[0].Outcome; oc.Kind != OutcomeError || oc.Error.Message != "model unreachable" || oc.Error.Code != "E1" {
		t.Errorf("error outcome %+v", oc)
	}
	reject(t, stand, lines(t, started(), finished(ev{"type": "cancelled"})), 1, "/outcome", contract.RuleStandOutcomes)
	if r := accept(t, v11, lines(t, started(), finished(ev{"type": "cancelled"}))); r.Runs[0].Outcome.Kind != OutcomeCancelled {
		t.Errorf("1.1 cancelled shown as %s", r.Runs[0].Outcome.Kind)
	}
}

//contract:proves ag-ui.stand.metadata
func TestStandMetadata(t *testing.T) {
	in := func(md any) ev {
		return finished(ev{"type": "interrupt", "interrupts": []any{ev{"id": "i", "reason": "r", "metadata": md}}})
	}
	reject(t, stand, lines(t, started(), in("not an object")), 1, "/outcome/interrupts/0/metadata", contract.RuleStandMetadata)
	reject(t, stand, lines(t, ev{"type": contract.EventRunStarted, "threadId": "t", "runId": "r", "metadata": []any{}}), 0, "/metadata", contract.RuleStandMetadata)
	// Content is data: any value under a key, null included, executable or not.
	r := accept(t, stand, lines(t, started(), in(ev{"script": "rm -rf /", "null": nil})))
	if got := string(r.Runs[0].Outcome.Interrupts[0].Metadata); got != `{"null":null,"script":"rm -rf /"}` {
		t.Errorf("metadata shown as %s", got)
	}
	// Under AG-UI 1.1 the same value is an ordinary malformed member.
	reject(t, v11, lines(t, started(), in(7)), 1, "/outcome/interrupts/0/metadata", contract.RuleStructureEventSchema)
}

//contract:proves ag-ui.stand.tool-result ag-ui.stand.no-tool-execution ag-ui.event.tool-call-result
func TestStandToolCalls(t *testing.T) {
	call := []ev{
		{"type": contract.EventToolCallStart, "toolCallId": "c", "toolCallName": "delete_everything"},
		{"type": contract.EventToolCallArgs, "toolCallId": "c", "delta": `{"path":"/"}`},
		{"type": contract.EventToolCallEnd, "toolCallId": "c"},
	}
	result := ev{"type": contract.EventToolCallResult, "messageId": "t", "toolCallId": "c", "content": "done"}
	r := accept(t, stand, lines(t, run(append(append([]ev{}, call...), result)...)...))
	tc := r.ToolCalls[0]
	if tc.Name != "delete_everything" || tc.Arguments != `{"path":"/"}` || !tc.Complete || string(tc.Result) != `"done"` {
		t.Errorf("tool call shown as %+v", tc)
	}
	reject(t, stand, lines(t, run(result)...), 1, "/toolCallId", contract.RuleStandToolResult)
	reject(t, stand, lines(t, started(), call[0], result), 2, "/toolCallId", contract.RuleStandToolResult)
	reject(t, stand, lines(t, append(append([]ev{started()}, call...), result, result)...), 5, "/toolCallId", contract.RuleStandToolResult)
	accept(t, v11, lines(t, run(result)...))
	// No tool is executed: the package and the command hold no code that
	// could run a process, open a connection or fetch a URL.
	noImports(t, "os/exec", "net", "net/http", "plugin", "syscall")
}

// networkFiles are the files of cmd/agui that may use the network.
var networkFiles = []string{
	filepath.Join("../cmd/agui", "serve.go"),
	filepath.Join("../cmd/agui", "live.go"),
	filepath.Join("../cmd/agui", "tap.go"),
}

// noImports fails if a non-test Go file of this package or of cmd/agui,
// other than networkFiles, imports one of the packages.
func noImports(t *testing.T, pkgs ...string) {
	t.Helper()
	for _, dir := range []string{".", "../cmd/agui"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s: %v", dir, err)
		}
		for _, f := range files {
			// agui serve listens on loopback for the stand page and dials
			// nothing; cmd/agui's TestServeNeverDials holds it to that.
			// The live check and the tap of AG-UI 1.1 are the command's
			// only network clients, and they refuse the stand profile
			// (TestLiveCheckConnectionProblems, TestTapRefusals); the
			// checker itself, this package, imports no network at all.
			if strings.HasSuffix(f, "_test.go") || slices.Contains(networkFiles, f) {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				for _, p := range pkgs {
					if path == p || strings.HasPrefix(path, p+"/") {
						t.Errorf("%s imports %s", f, path)
					}
				}
			}
		}
	}
}

//contract:proves ag-ui.unsupported.network ag-ui.unsupported.agent-auth
func TestStandNoNetworkNoCredentials(t *testing.T) {
	// No transport: nothing imports the network, so nothing can connect
	// or reconnect (the command refuses URLs; its tests show that).
	noImports(t, "net", "crypto/tls")
	// No agent authorisation: nothing reads a credential from the
	// environment or gives a record an identity.
	for _, dir := range []string{".", "../cmd/agui"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, call := range []string{"os.Getenv", "os.LookupEnv", "os.Environ"} {
				if strings.Contains(string(src), call) {
					t.Errorf("%s calls %s", f, call)
				}
			}
		}
	}
	// The result model has no field for an identity: a record carries none.
	var res Result
	b, _ := json.Marshal(res)
	for _, word := range []string{"token", "auth", "identity", "credential"} {
		if strings.Contains(strings.ToLower(string(b)), word) {
			t.Errorf("the result model names %q", word)
		}
	}
}
