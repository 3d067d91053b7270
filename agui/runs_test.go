package agui

import (
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// Run identity and completeness.

func runError(extra ...any) ev {
	e := ev{"type": contract.EventRunError, "message": "boom"}
	for i := 0; i+1 < len(extra); i += 2 {
		e[extra[i].(string)] = extra[i+1]
	}
	return e
}

//contract:proves ag-ui.sequence.run-identity
func TestRunIdentity(t *testing.T) {
	for _, p := range []string{stand, v11} {
		reject(t, p, lines(t, started(), ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "other"}), 1, "/runId", contract.RuleSequenceRunIdentity)
		reject(t, p, lines(t, started(), ev{"type": contract.EventRunFinished, "threadId": "other", "runId": "r"}), 1, "/threadId", contract.RuleSequenceRunIdentity)
		// A RUN_ERROR that names another run is a failure of another run,
		// whether it ends the active run or follows the finished one.
		reject(t, p, lines(t, started(), runError("runId", "other")), 1, "/runId", contract.RuleSequenceRunIdentity)
		reject(t, p, lines(t, started(), runError("threadId", "other")), 1, "/threadId", contract.RuleSequenceRunIdentity)
		reject(t, p, lines(t, append(run(), runError("runId", "other"))...), 2, "/runId", contract.RuleSequenceRunIdentity)
	}
	// The same members naming the right run are undescribed material: the
	// stand refuses them, AG-UI 1.1 strips them with a warning.
	reject(t, stand, lines(t, started(), runError("runId", "r")), 1, "/runId", contract.RuleUnsupportedUnknownFields)
	r := accept(t, v11, lines(t, started(), runError("runId", "r", "threadId", "t")))
	if len(r.Warnings) != 2 || r.Warnings[0].Rule != contract.RuleToleranceUnknownMembers {
		t.Errorf("warnings %v", r.Warnings)
	}
	// Before any run there is nothing to compare with.
	accept(t, v11, lines(t, runError("runId", "r0")))
	// The run that ends is the active one: after a new RUN_STARTED the
	// identity is the new run's.
	accept(t, v11, lines(t, started(), runError(), ev{"type": contract.EventRunStarted, "threadId": "t", "runId": "r2"},
		ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r2"}))
	reject(t, v11, lines(t, started(), runError(), ev{"type": contract.EventRunStarted, "threadId": "t", "runId": "r2"},
		ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r"}), 3, "/runId", contract.RuleSequenceRunIdentity)
}

//contract:proves ag-ui.sequence.one-thread
func TestOneThread(t *testing.T) {
	other := ev{"type": contract.EventRunStarted, "threadId": "t2", "runId": "r2"}
	reject(t, v11, lines(t, append(run(), other)...), 2, "/threadId", contract.RuleSequenceOneThread)
	reject(t, v11, lines(t, started(), runError(), other), 2, "/threadId", contract.RuleSequenceOneThread)
	// Under the stand the second run is refused as what it is first: a run
	// on another thread.
	reject(t, stand, lines(t, append(run(), other)...), 2, "/threadId", contract.RuleSequenceOneThread)
	same := ev{"type": contract.EventRunStarted, "threadId": "t", "runId": "r2"}
	r := accept(t, v11, lines(t, append(run(), same, ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r2"})...))
	if len(r.Runs) != 2 {
		t.Errorf("runs %+v", r.Runs)
	}
	// A run that failed before it started names no thread: the next run's
	// is the record's.
	accept(t, v11, lines(t, runError(), other, ev{"type": contract.EventRunFinished, "threadId": "t2", "runId": "r2"}))
}

//contract:proves ag-ui.sequence.interrupt-ids
func TestInterruptIDs(t *testing.T) {
	interrupts := func(ids ...string) ev {
		var list []any
		for _, id := range ids {
			list = append(list, ev{"id": id, "reason": "approval"})
		}
		return finished(ev{"type": "interrupt", "interrupts": list})
	}
	for _, p := range []string{stand, v11} {
		reject(t, p, lines(t, started(), interrupts("a", "b", "a")), 1, "/outcome/interrupts/2/id", contract.RuleSequenceInterruptIds)
		r := accept(t, p, lines(t, started(), interrupts("a", "b", "c")))
		if len(r.Runs[0].Outcome.Interrupts) != 3 {
			t.Errorf("%s: interrupts %+v", p, r.Runs[0].Outcome.Interrupts)
		}
	}
}

//contract:proves ag-ui.sequence.run-complete ag-ui.stand.unfinished-run
func TestRecordEndsInsideRun(t *testing.T) {
	cut := lines(t, started(), text(contract.EventTextMessageStart, "m"), text(contract.EventTextMessageContent, "m", "delta", "half"))
	// AG-UI 1.1: a stream cut inside its run fails the run.
	r := reject(t, v11, cut, FileLevel, "", contract.RuleSequenceRunComplete)
	if r.Events != 3 || len(r.Unfinished) != 2 || r.Unfinished[0] != (Unfinished{Kind: UnfinishedRun, ID: "r"}) {
		t.Errorf("1.1: events %d unfinished %+v", r.Events, r.Unfinished)
	}
	// The stand shows it, unfinished items apart, and says plainly that
	// the run did not finish.
	r = accept(t, stand, cut)
	if r.Runs[0].Outcome.Kind != OutcomeUnfinished || len(r.Unfinished) != 2 ||
		r.Unfinished[0] != (Unfinished{Kind: UnfinishedRun, ID: "r"}) || r.Unfinished[1] != (Unfinished{Kind: "message", ID: "m"}) {
		t.Errorf("stand: runs %+v unfinished %+v", r.Runs, r.Unfinished)
	}
	out, err := r.RenderText()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `Verdict: ACCEPTED, but the run did not finish: the record ends inside run "r"`) ||
		!strings.Contains(string(out), contract.RuleStandUnfinishedRun) {
		t.Errorf("the verdict does not say the run did not finish:\n%s", out)
	}
	// A record whose run ended is not marked.
	for _, p := range []string{stand, v11} {
		for _, end := range []ev{run()[1], runError()} {
			if r := accept(t, p, lines(t, started(), end)); len(r.Unfinished) != 0 {
				t.Errorf("%s: %v: unfinished %+v", p, end["type"], r.Unfinished)
			}
		}
	}
}

//contract:proves ag-ui.stand.runs ag-ui.sequence.closed-run
func TestStandRunCounting(t *testing.T) {
	// A RUN_ERROR before any RUN_STARTED is a run that failed before it
	// started; under the stand it is the record's one run.
	r := accept(t, stand, lines(t, runError()))
	if len(r.Runs) != 1 || r.Runs[0].RunID != "" || r.Runs[0].Outcome.Kind != OutcomeError {
		t.Errorf("runs %+v", r.Runs)
	}
	out, _ := r.RenderText()
	if !strings.Contains(string(out), "a run that failed before it started: error") {
		t.Errorf("the run is not shown as what it is:\n%s", out)
	}
	reject(t, stand, lines(t, runError(), started(), run()[1]), 1, "", contract.RuleStandRuns)
	if r := accept(t, v11, lines(t, runError(), started(), run()[1])); len(r.Runs) != 2 {
		t.Errorf("1.1: runs %+v", r.Runs)
	}
	// A RUN_ERROR after RUN_FINISHED is the late failure of the same run:
	// one run, failed, with what it declared still shown.
	interrupted := finished(ev{"type": "interrupt", "interrupts": []any{ev{"id": "i", "reason": "approval"}}})
	r = accept(t, stand, lines(t, started(), interrupted, runError("code", "FLUSH")))
	oc := r.Runs[0].Outcome
	if len(r.Runs) != 1 || oc.Kind != OutcomeError || !oc.FailedAfterFinish || oc.Error.Code != "FLUSH" || len(oc.Interrupts) != 1 {
		t.Errorf("late failure: runs %+v", r.Runs)
	}
	out, _ = r.RenderText()
	if !strings.Contains(string(out), "after it had finished (RUN_ERROR after RUN_FINISHED)") {
		t.Errorf("the late failure is not shown as what it is:\n%s", out)
	}
	// Nothing but RUN_STARTED may follow a RUN_ERROR, a late one included.
	reject(t, stand, lines(t, append(run(), runError(), runError())...), 3, "", contract.RuleSequenceClosedRun)
}

//contract:proves ag-ui.tolerance.optional-null
func TestOptionalNull(t *testing.T) {
	call := ev{"type": contract.EventToolCallStart, "toolCallId": "c", "toolCallName": "f", "parentMessageId": nil}
	end := ev{"type": contract.EventToolCallEnd, "toolCallId": "c"}
	r := accept(t, v11, lines(t, run(call, end)...))
	if len(r.Warnings) != 1 || r.Warnings[0].Rule != contract.RuleToleranceOptionalNull || r.Warnings[0].Pointer != "/parentMessageId" || r.Warnings[0].Event != 1 {
		t.Errorf("warnings %v", r.Warnings)
	}
	if r.ToolCalls[0].ParentMessageID != "" {
		t.Errorf("tool call %+v", r.ToolCalls[0])
	}
	reject(t, stand, lines(t, run(call, end)...), 1, "/parentMessageId", contract.RuleStructureEventSchema)
	// Deep inside an event, and for members typed as any non-null value.
	snap := ev{"type": contract.EventMessagesSnapshot, "messages": []any{ev{"id": "u", "role": "user", "content": "hi", "name": nil}}}
	r = accept(t, v11, lines(t, run(snap, ev{"type": contract.EventStepStarted, "stepName": "s", "rawEvent": nil}, ev{"type": contract.EventStepFinished, "stepName": "s"})...))
	if len(r.Warnings) != 2 || r.Warnings[0].Pointer != "/messages/0/name" || r.Warnings[1].Pointer != "/rawEvent" {
		t.Errorf("warnings %v", r.Warnings)
	}
	r = accept(t, v11, lines(t, started(), ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r", "outcome": nil, "result": nil}))
	if r.Runs[0].Outcome.Kind != OutcomeSuccess || len(r.Warnings) != 2 {
		t.Errorf("outcome %+v warnings %v", r.Runs[0].Outcome, r.Warnings)
	}
	// A null in a required member is malformed in every profile.
	for _, p := range []string{stand, v11} {
		reject(t, p, lines(t, run(ev{"type": contract.EventStepStarted, "stepName": nil})...), 1, "/stepName", contract.RuleStructureEventSchema)
	}
}

//contract:proves ag-ui.sequence.activity-delta
func TestActivityDeltaWarnings(t *testing.T) {
	snapshot := ev{"type": contract.EventActivitySnapshot, "messageId": "a", "activityType": "search", "content": ev{"found": 0}}
	missing := ev{"type": contract.EventActivityDelta, "messageId": "never", "activityType": "search", "patch": []any{ev{"op": "replace", "path": "/found", "value": 1}}}
	failing := ev{"type": contract.EventActivityDelta, "messageId": "a", "activityType": "search", "patch": []any{ev{"op": "replace", "path": "/found", "value": 2}, ev{"op": "remove", "path": "/nope"}}}
	r := accept(t, v11, lines(t, run(snapshot, missing, failing)...))
	want := []Finding{{Event: 2, Pointer: "/messageId"}, {Event: 3, Pointer: "/patch/1"}}
	if len(r.Warnings) != len(want) {
		t.Fatalf("warnings %v", r.Warnings)
	}
	for i, w := range want {
		if got := r.Warnings[i]; got.Event != w.Event || got.Pointer != w.Pointer || got.Rule != contract.RuleSequenceActivityDelta {
			t.Errorf("warning %d: %v, want %s at event %d %s", i, got, contract.RuleSequenceActivityDelta, w.Event, w.Pointer)
		}
	}
	// Neither created a message nor changed the activity.
	if len(r.Messages) != 1 || string(r.Messages[0].Data) != `{"found":0}` {
		t.Errorf("messages %+v", r.Messages)
	}
}

// A RUN_STARTED that is refused changes nothing of what the result shows
// about the runs before it: a run that finished is shown finished, a run
// that failed is shown failed, and neither is listed as unfinished. Before,
// the refused start had already cleared the end of the run before it, and
// the finished run was listed as unfinished beside its own outcome. What
// the earlier run left open stays listed as it was.
//
//contract:proves ag-ui.stand.runs ag-ui.sequence.one-thread ag-ui.view.result
func TestRefusedRunStartKeepsEarlierRuns(t *testing.T) {
	other := ev{"type": contract.EventRunStarted, "threadId": "t2", "runId": "r2"}
	again := ev{"type": contract.EventRunStarted, "threadId": "t", "runId": "r2"}
	callC := ev{"type": contract.EventToolCallStart, "toolCallId": "c", "toolCallName": "a"}
	stepS := stepEvent(contract.EventStepStarted, "s")
	msgM := text(contract.EventTextMessageStart, "m")
	type tc struct {
		name, profile string
		events        []ev
		event         int
		rule          string
		outcome       string
		unfinished    []Unfinished
	}
	var cases []tc
	for _, p := range []string{stand, v11} {
		// The tester's u2: a second run on another thread.
		cases = append(cases, tc{"finished, other thread", p, append(run(), other), 2, contract.RuleSequenceOneThread, OutcomeSuccess, nil},
			tc{"failed, other thread", p, []ev{started(), runError(), other}, 2, contract.RuleSequenceOneThread, OutcomeError, nil},
			tc{"failed with a call open, other thread", p, []ev{started(), callC, runError(), other}, 3, contract.RuleSequenceOneThread, OutcomeError,
				[]Unfinished{{Kind: UnfinishedToolCall, ID: "c"}}})
	}
	// The stand's one run: u1 (the same ids again), u4, u6, u8.
	cases = append(cases,
		tc{"finished, same ids", stand, append(run(), started()), 2, contract.RuleStandRuns, OutcomeSuccess, nil},
		tc{"finished late failure", stand, append(run(), runError(), again), 3, contract.RuleStandRuns, OutcomeError, nil},
		tc{"failed with a call open", stand, []ev{started(), callC, runError(), again}, 3, contract.RuleStandRuns, OutcomeError,
			[]Unfinished{{Kind: UnfinishedToolCall, ID: "c"}}},
		tc{"failed with a step open", stand, []ev{started(), stepS, runError(), again}, 3, contract.RuleStandRuns, OutcomeError,
			[]Unfinished{{Kind: UnfinishedStep, ID: "s"}}},
		tc{"failed with a message open", stand, []ev{started(), msgM, runError(), again}, 3, contract.RuleStandRuns, OutcomeError,
			[]Unfinished{{Kind: UnfinishedMessage, ID: "m"}}},
		tc{"failed before it started", stand, []ev{runError(), again}, 1, contract.RuleStandRuns, OutcomeError, nil},
	)
	for _, c := range cases {
		ptr := ""
		if c.rule == contract.RuleSequenceOneThread {
			ptr = "/threadId"
		}
		r := reject(t, c.profile, lines(t, c.events...), c.event, ptr, c.rule)
		if len(r.Runs) != 1 || r.Runs[0].Outcome.Kind != c.outcome {
			t.Errorf("%s, %s: runs %+v; want the one run, %s", c.profile, c.name, r.Runs, c.outcome)
		}
		if len(r.Unfinished) != len(c.unfinished) {
			t.Errorf("%s, %s: unfinished %+v; want %+v", c.profile, c.name, r.Unfinished, c.unfinished)
			continue
		}
		for k := range c.unfinished {
			if r.Unfinished[k] != c.unfinished[k] {
				t.Errorf("%s, %s: unfinished %+v; want %+v", c.profile, c.name, r.Unfinished, c.unfinished)
			}
		}
		out, err := r.RenderText()
		if err != nil {
			t.Fatal(err)
		}
		if c.unfinished == nil && strings.Contains(string(out), "Unfinished") {
			t.Errorf("%s, %s: the report lists something unfinished:\n%s", c.profile, c.name, out)
		}
	}
	// The neighbour: under AG-UI 1.1 the same second run on the record's
	// thread is admitted; both runs are shown as they ended, none unfinished.
	for _, events := range [][]ev{append(run(), again, finishedR2()), {started(), stepS, stepEvent(contract.EventStepFinished, "s"), runError(), again, finishedR2()}} {
		r := accept(t, v11, lines(t, events...))
		if len(r.Runs) != 2 || r.Runs[1].Outcome.Kind != OutcomeSuccess || len(r.Unfinished) != 0 {
			t.Errorf("1.1: runs %+v unfinished %+v", r.Runs, r.Unfinished)
		}
	}
}

func finishedR2() ev { return ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r2"} }
