package agui

import (
	"encoding/json"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

func text(kind, id string, more ...any) ev {
	e := ev{"type": kind, "messageId": id}
	for i := 0; i+1 < len(more); i += 2 {
		e[more[i].(string)] = more[i+1]
	}
	return e
}

//contract:proves ag-ui.sequence.first-event ag-ui.sequence.one-active-run ag-ui.sequence.closed-run ag-ui.event.run-started ag-ui.event.run-finished ag-ui.event.run-error
func TestRunLifecycle(t *testing.T) {
	step := ev{"type": contract.EventStepStarted, "stepName": "s"}
	errEv := ev{"type": contract.EventRunError, "message": "boom"}
	for _, p := range []string{stand, v11} {
		reject(t, p, lines(t, step), 0, "", contract.RuleSequenceFirstEvent)
		reject(t, p, lines(t, started(), started()), 1, "", contract.RuleSequenceOneActiveRun)
		reject(t, p, lines(t, append(run(), step)...), 2, "", contract.RuleSequenceClosedRun)
		reject(t, p, lines(t, started(), errEv, step), 2, "", contract.RuleSequenceClosedRun)
		// A record may open with RUN_ERROR, and RUN_ERROR may follow a
		// finished run: both are delivered, neither rejects the record.
		r := accept(t, p, lines(t, errEv))
		if len(r.Runs) != 1 || r.Runs[0].Outcome.Kind != OutcomeError || r.Runs[0].Outcome.Error.Message != "boom" {
			t.Errorf("%s: runs %+v", p, r.Runs)
		}
		// A RUN_ERROR after RUN_FINISHED is the late failure of that run,
		// not a run of its own.
		r = accept(t, p, lines(t, append(run(), errEv)...))
		if oc := r.Runs[0].Outcome; len(r.Runs) != 1 || oc.Kind != OutcomeError || !oc.FailedAfterFinish || oc.Error.Message != "boom" {
			t.Errorf("%s: late error: runs %+v", p, r.Runs)
		}
	}
	// A new run after an error or a finished run (AG-UI 1.1 only: the stand
	// holds one run per record).
	accept(t, v11, lines(t, started(), errEv, started(), finished(ev{"type": "success"})))
	accept(t, v11, lines(t, append(run(), run()...)...))
}

//contract:proves ag-ui.sequence.finish-closes-all ag-ui.sequence.text-message ag-ui.event.text-message-start ag-ui.event.text-message-content ag-ui.event.text-message-end
func TestTextMessages(t *testing.T) {
	start, content, end := contract.EventTextMessageStart, contract.EventTextMessageContent, contract.EventTextMessageEnd
	for _, p := range []string{stand, v11} {
		reject(t, p, lines(t, run(text(content, "m", "delta", "x"))...), 1, "/messageId", contract.RuleSequenceTextMessage)
		reject(t, p, lines(t, run(text(end, "m"))...), 1, "/messageId", contract.RuleSequenceTextMessage)
		reject(t, p, lines(t, run(text(start, "m"), text(start, "m"))...), 2, "/messageId", contract.RuleSequenceTextMessage)
		reject(t, p, lines(t, run(text(start, "m"))...), 2, "", contract.RuleSequenceFinishClosesAll)
		// Deltas concatenate in order; a closed message may be reopened and
		// its new content appends.
		r := accept(t, p, lines(t, run(
			text(start, "m", "role", "user"), text(content, "m", "delta", "Hello, "), text(end, "m"),
			text(start, "m", "role", "user"), text(content, "m", "delta", "world."), text(end, "m"))...))
		if len(r.Messages) != 1 || r.Messages[0].Content != "Hello, world." || r.Messages[0].Role != "user" || !r.Messages[0].Complete {
			t.Errorf("%s: messages %+v", p, r.Messages)
		}
	}
}

//contract:proves ag-ui.sequence.tool-call ag-ui.event.tool-call-start ag-ui.event.tool-call-args ag-ui.event.tool-call-end
func TestToolCalls(t *testing.T) {
	startC := ev{"type": contract.EventToolCallStart, "toolCallId": "c", "toolCallName": "f"}
	args := ev{"type": contract.EventToolCallArgs, "toolCallId": "c", "delta": "{}"}
	end := ev{"type": contract.EventToolCallEnd, "toolCallId": "c"}
	for _, p := range []string{stand, v11} {
		reject(t, p, lines(t, run(args)...), 1, "/toolCallId", contract.RuleSequenceToolCall)
		reject(t, p, lines(t, run(end)...), 1, "/toolCallId", contract.RuleSequenceToolCall)
		reject(t, p, lines(t, run(startC, startC)...), 2, "/toolCallId", contract.RuleSequenceToolCall)
		reject(t, p, lines(t, run(startC, args)...), 3, "", contract.RuleSequenceFinishClosesAll)
		r := accept(t, p, lines(t, run(startC, args, args, end)...))
		if r.ToolCalls[0].Arguments != "{}{}" {
			t.Errorf("%s: arguments %q", p, r.ToolCalls[0].Arguments)
		}
	}
	// An unfinished proposal is marked as such.
	r := accept(t, stand, lines(t, started(), startC, args))
	if len(r.Unfinished) != 2 || r.Unfinished[1].Kind != "tool call" || r.ToolCalls[0].Complete {
		t.Errorf("unfinished %+v", r.Unfinished)
	}
}

// stepEvent is a step event of kind for the step name, attributed to the
// subagent sub when one is given.
func stepEvent(kind, name string, sub ...string) ev {
	e := ev{"type": kind, "stepName": name}
	if len(sub) > 0 {
		e["subagentRunId"] = sub[0]
	}
	return e
}

//contract:proves ag-ui.sequence.step ag-ui.event.step-started ag-ui.event.step-finished
func TestSteps(t *testing.T) {
	s := stepEvent
	st, fin := contract.EventStepStarted, contract.EventStepFinished
	for _, p := range []string{stand, v11} {
		reject(t, p, lines(t, run(s(fin, "a"))...), 1, "/stepName", contract.RuleSequenceStep)
		reject(t, p, lines(t, run(s(st, "a"), s(st, "a"))...), 2, "/stepName", contract.RuleSequenceStep)
		reject(t, p, lines(t, run(s(st, "a"))...), 2, "", contract.RuleSequenceFinishClosesAll)
	}
	// A subagent may run a step of the same name as its parent; a step is
	// finished by whoever started it.
	accept(t, v11, lines(t, run(s(st, "tools"), s(st, "tools", "s1"), s(fin, "tools", "s1"), s(fin, "tools"))...))
	reject(t, v11, lines(t, run(s(st, "tools"), s(fin, "tools", "s1"))...), 2, "/stepName", contract.RuleSequenceStep)
	r := accept(t, stand, lines(t, started(), s(st, "a"), s(fin, "a"), s(st, "b")))
	if len(r.Steps) != 2 || !r.Steps[0].Complete || r.Steps[1].Complete || r.Unfinished[1] != (Unfinished{Kind: "step", ID: "b"}) {
		t.Errorf("steps %+v unfinished %+v", r.Steps, r.Unfinished)
	}
}

//contract:proves ag-ui.sequence.reasoning ag-ui.event.reasoning-start ag-ui.event.reasoning-end ag-ui.event.reasoning-message-start ag-ui.event.reasoning-message-content ag-ui.event.reasoning-message-end
func TestReasoning(t *testing.T) {
	rs, re := contract.EventReasoningStart, contract.EventReasoningEnd
	ms, mc, me := contract.EventReasoningMessageStart, contract.EventReasoningMessageContent, contract.EventReasoningMessageEnd
	r := accept(t, v11, lines(t, run(text(rs, "x"), text(ms, "x", "role", "reasoning"), text(mc, "x", "delta", "hm"), text(me, "x"), text(re, "x"))...))
	if len(r.Messages) != 1 || r.Messages[0].Role != "reasoning" || r.Messages[0].Content != "hm" {
		t.Errorf("messages %+v", r.Messages)
	}
	reject(t, v11, lines(t, run(text(mc, "x", "delta", "orphan"))...), 1, "/messageId", contract.RuleSequenceReasoning)
	reject(t, v11, lines(t, run(text(re, "x"))...), 1, "/messageId", contract.RuleSequenceReasoning)
	reject(t, v11, lines(t, run(text(rs, "x"), text(rs, "x"))...), 2, "/messageId", contract.RuleSequenceReasoning)
	reject(t, v11, lines(t, run(text(rs, "x"))...), 2, "", contract.RuleSequenceFinishClosesAll)
	reject(t, v11, lines(t, run(text(ms, "x", "role", "assistant"))...), 1, "/role", contract.RuleStructureEventSchema)
}

//contract:proves ag-ui.sequence.subagent ag-ui.event.subagent-started ag-ui.event.subagent-finished ag-ui.event.subagent-error
func TestSubagents(t *testing.T) {
	start := func(id string, parent ...string) ev {
		e := ev{"type": contract.EventSubagentStarted, "subagentRunId": id, "name": "n"}
		if len(parent) > 0 {
			e["parentSubagentRunId"] = parent[0]
		}
		return e
	}
	fin := func(id string) ev { return ev{"type": contract.EventSubagentFinished, "subagentRunId": id} }
	errE := func(id string) ev {
		return ev{"type": contract.EventSubagentError, "subagentRunId": id, "message": "m"}
	}
	accept(t, v11, lines(t, run(start("a"), start("b", "a"), errE("b"), fin("a"))...))
	reject(t, v11, lines(t, run(fin("a"))...), 1, "/subagentRunId", contract.RuleSequenceSubagent)
	reject(t, v11, lines(t, run(start("a"), start("a"))...), 2, "/subagentRunId", contract.RuleSequenceSubagent)
	reject(t, v11, lines(t, run(start("a"), fin("a"), start("a"))...), 3, "/subagentRunId", contract.RuleSequenceSubagent)
	reject(t, v11, lines(t, run(start("b", "a"))...), 1, "/parentSubagentRunId", contract.RuleSequenceSubagent)
	reject(t, v11, lines(t, run(start("a"))...), 2, "", contract.RuleSequenceFinishClosesAll)
}

//contract:proves ag-ui.sequence.attribution ag-ui.event.reasoning-encrypted-value
func TestAttribution(t *testing.T) {
	tag := func(e ev, sub string) ev { e["subagentRunId"] = sub; return e }
	start, content := contract.EventTextMessageStart, contract.EventTextMessageContent
	// An untagged continuation agrees with any owner.
	accept(t, v11, lines(t, run(tag(text(start, "m"), "s1"), text(content, "m", "delta", "x"), text(contract.EventTextMessageEnd, "m"))...))
	reject(t, v11, lines(t, run(tag(text(start, "m"), "s1"), tag(text(content, "m", "delta", "x"), "s2"))...), 2, "/subagentRunId", contract.RuleSequenceAttribution)
	// An untagged opener belongs to the parent agent.
	reject(t, v11, lines(t, run(text(start, "m"), tag(text(content, "m", "delta", "x"), "s1"))...), 2, "/subagentRunId", contract.RuleSequenceAttribution)
	// A tool call belongs to its parent message's owner.
	call := ev{"type": contract.EventToolCallStart, "toolCallId": "c", "toolCallName": "f", "parentMessageId": "m"}
	reject(t, v11, lines(t, run(tag(text(start, "m"), "s1"), tag(call, "s2"))...), 2, "/subagentRunId", contract.RuleSequenceAttribution)
	// An encrypted value may name an unknown entity, not one of another owner.
	enc := func(sub string) ev {
		e := ev{"type": contract.EventReasoningEncryptedValue, "subtype": "message", "entityId": "m", "encryptedValue": "b3BhcXVl"}
		if sub != "" {
			e["subagentRunId"] = sub
		}
		return e
	}
	accept(t, v11, lines(t, run(enc("s9"))...))
	reject(t, v11, lines(t, run(tag(text(start, "m"), "s1"), text(contract.EventTextMessageEnd, "m"), enc("s2"))...), 3, "/subagentRunId", contract.RuleSequenceAttribution)
	// Under the stand null is not a way to say "the parent agent"; AG-UI 1.1
	// reads it as an absent attribution.
	reject(t, stand, lines(t, run(text(start, "m", "subagentRunId", nil))...), 1, "/subagentRunId", contract.RuleStructureEventSchema)
	r := accept(t, v11, lines(t, run(text(start, "m", "subagentRunId", nil), text(contract.EventTextMessageEnd, "m"))...))
	if len(r.Warnings) != 1 || r.Warnings[0].Rule != contract.RuleToleranceOptionalNull || r.Messages[0].Subagent != "" {
		t.Errorf("null attribution: warnings %v messages %+v", r.Warnings, r.Messages)
	}
}

//contract:proves ag-ui.sequence.chunks ag-ui.event.text-message-chunk ag-ui.event.tool-call-chunk ag-ui.event.reasoning-message-chunk
func TestChunks(t *testing.T) {
	chunk := func(kind string, kv ...any) ev {
		e := ev{"type": kind}
		for i := 0; i+1 < len(kv); i += 2 {
			e[kv[i].(string)] = kv[i+1]
		}
		return e
	}
	tc, tool, rc := contract.EventTextMessageChunk, contract.EventToolCallChunk, contract.EventReasoningMessageChunk
	r := accept(t, v11, lines(t, run(chunk(tc, "messageId", "m", "delta", "Hel"), chunk(tc, "delta", "lo"),
		chunk(tool, "toolCallId", "c", "toolCallName", "f", "delta", "{"), chunk(tool, "delta", "}"),
		chunk(rc, "messageId", "r", "delta", "why"))...))
	if len(r.Messages) != 2 || r.Messages[0].Content != "Hello" || !r.Messages[0].Complete || r.Messages[1].Content != "why" {
		t.Errorf("messages %+v", r.Messages)
	}
	if r.ToolCalls[0].Arguments != "{}" || !r.ToolCalls[0].Complete {
		t.Errorf("tool calls %+v", r.ToolCalls)
	}
	reject(t, v11, lines(t, run(chunk(tc, "delta", "x"))...), 1, "", contract.RuleSequenceChunks)
	reject(t, v11, lines(t, run(chunk(tool, "toolCallId", "c"))...), 1, "", contract.RuleSequenceChunks)
	reject(t, v11, lines(t, run(chunk(tool, "toolCallName", "f"))...), 1, "", contract.RuleSequenceChunks)
	reject(t, v11, lines(t, run(chunk(rc, "delta", "x"))...), 1, "", contract.RuleSequenceChunks)
	reject(t, v11, lines(t, run(chunk(tc, "messageId", "m", "role", "user"), chunk(tc, "messageId", "m", "role", "assistant"))...), 2, "/role", contract.RuleSequenceChunks)
	reject(t, v11, lines(t, run(chunk(tool, "toolCallId", "c", "toolCallName", "f"), chunk(tool, "toolCallId", "c", "toolCallName", "g"))...), 2, "/toolCallName", contract.RuleSequenceChunks)
	// CUSTOM closes the stream; RAW does not.
	custom := ev{"type": contract.EventCustom, "name": "n", "value": 1}
	raw := ev{"type": contract.EventRaw, "event": 1}
	reject(t, v11, lines(t, run(chunk(tc, "messageId", "m", "delta", "a"), custom, chunk(tc, "delta", "b"))...), 3, "", contract.RuleSequenceChunks)
	accept(t, v11, lines(t, run(chunk(tc, "messageId", "m", "delta", "a"), raw, chunk(tc, "delta", "b"))...))
	// Two producers with open streams: an id-less, untagged chunk is ambiguous.
	reject(t, v11, lines(t, run(chunk(tc, "messageId", "a", "subagentRunId", "s1"), chunk(tc, "messageId", "b", "subagentRunId", "s2"), chunk(tc, "delta", "?"))...), 3, "", contract.RuleSequenceChunks)
}

//contract:proves ag-ui.tolerance.unknown-events ag-ui.tolerance.unknown-members ag-ui.tolerance.unknown-variants ag-ui.tolerance.protocol-version ag-ui.sequence.state-delta ag-ui.profile.ag-ui-1.1
func TestTolerance(t *testing.T) {
	r := accept(t, v11, lines(t, run(
		ev{"type": "FUTURE_EVENT", "x": 1},
		ev{"type": contract.EventStepStarted, "stepName": "s", "futureProp": true},
		ev{"type": contract.EventStepFinished, "stepName": "s", "metadata": ev{"open": "by key"}},
		ev{"type": contract.EventStateDelta, "delta": []any{ev{"op": "increment", "path": "/n"}, ev{"op": "add", "path": "/n", "value": 1, "extra": "kept"}}},
		ev{"type": contract.EventMessagesSnapshot, "messages": []any{ev{"id": "u", "role": "user", "content": []any{
			ev{"type": "text", "text": "a"}, ev{"type": "hologram"}, ev{"type": "image", "source": ev{"type": "carrier-pigeon"}}, ev{"type": "text", "text": "b"}}}}},
	)...))
	want := []Finding{
		{Event: 1, Pointer: "/type", Rule: contract.RuleToleranceUnknownEvents},
		{Event: 2, Pointer: "/futureProp", Rule: contract.RuleToleranceUnknownMembers},
		{Event: 4, Pointer: "/delta/0", Rule: contract.RuleToleranceUnknownVariants},
		{Event: 5, Pointer: "/messages/0/content/1", Rule: contract.RuleToleranceUnknownVariants},
		{Event: 5, Pointer: "/messages/0/content/2", Rule: contract.RuleToleranceUnknownVariants},
	}
	if len(r.Warnings) != len(want) {
		t.Fatalf("warnings %v", r.Warnings)
	}
	for i, w := range want {
		got := r.Warnings[i]
		if got.Event != w.Event || got.Pointer != w.Pointer || got.Rule != w.Rule {
			t.Errorf("warning %d: %v, want %v", i, got, w)
		}
	}
	if string(r.State) != `{"n":1}` || r.Messages[0].Data == nil {
		t.Errorf("state %s messages %+v", r.State, r.Messages)
	}
	var parts []map[string]any
	if err := json.Unmarshal(r.Messages[0].Data, &parts); err != nil || len(parts) != 2 {
		t.Errorf("content kept %s", r.Messages[0].Data)
	}
	// An unknown variant in an optional position is removed with the
	// member; a wrong kind there stays fatal.
	r = accept(t, v11, lines(t, started(), finished(ev{"type": "paused"})))
	if r.Warnings[0].Pointer != "/outcome" || r.Runs[0].Outcome.Kind != OutcomeSuccess {
		t.Errorf("outcome %+v warnings %v", r.Runs[0].Outcome, r.Warnings)
	}
	reject(t, v11, lines(t, started(), finished([]any{ev{"type": "success"}})), 1, "/outcome", contract.RuleStructureEventSchema)
	// A wrong value of an enumeration is malformed, not unknown.
	reject(t, v11, lines(t, run(text(contract.EventTextMessageStart, "m", "role", "narrator"))...), 1, "/role", contract.RuleStructureEventSchema)
	// Newer or unreadable protocol versions draw a warning.
	for v, warns := range map[string]bool{"1.1": false, "1.0": false, "01.01": false, "1.2": true, "1.10": true, "2.0": true, "draft": true, "1": true, "1.1.0": true, "+1.1": true, "1.-1": true} {
		r := accept(t, v11, lines(t, ev{"type": contract.EventRunStarted, "threadId": "t", "runId": "r", "protocolVersion": v}, run()[1]))
		if got := len(r.Warnings) == 1 && r.Warnings[0].Rule == contract.RuleToleranceProtocolVersion; got != warns {
			t.Errorf("version %s: warnings %v", v, r.Warnings)
		}
	}
}

//contract:proves ag-ui.structure.event-type ag-ui.structure.event-schema ag-ui.structure.message-content
func TestStructure(t *testing.T) {
	for _, p := range []string{stand, v11} {
		reject(t, p, lines(t, ev{"threadId": "t"}), 0, "/type", contract.RuleStructureEventType)
		reject(t, p, lines(t, ev{"type": 7}), 0, "/type", contract.RuleStructureEventType)
		reject(t, p, lines(t, ev{"type": contract.EventRunStarted, "threadId": "t"}), 0, "/runId", contract.RuleStructureEventSchema)
		reject(t, p, lines(t, run(text(contract.EventTextMessageContent, "m", "delta", 42))...), 1, "/delta", contract.RuleStructureEventSchema)
	}
	result := func(content any) ev {
		return ev{"type": contract.EventToolCallResult, "messageId": "t", "toolCallId": "c", "content": content}
	}
	accept(t, v11, lines(t, run(result("text"), result([]any{ev{"type": "text", "text": "x"}}))...))
	reject(t, v11, lines(t, run(result(ev{"text": "x"}))...), 1, "/content", contract.RuleStructureMessageContent)
	reject(t, v11, lines(t, run(result([]any{ev{"type": "text"}}))...), 1, "/content/0/text", contract.RuleStructureMessageContent)
	snap := ev{"type": contract.EventMessagesSnapshot, "messages": []any{ev{"id": "u", "role": "user", "content": 5}}}
	reject(t, v11, lines(t, run(snap)...), 1, "/messages/0/content", contract.RuleStructureMessageContent)
}

// Every event of AG-UI 1.1 is accepted by the ag-ui-1.1 profile in a
// place where it belongs.
//
//contract:proves ag-ui.event.state-snapshot ag-ui.event.state-delta ag-ui.event.messages-snapshot ag-ui.event.activity-snapshot ag-ui.event.activity-delta ag-ui.event.raw ag-ui.event.custom
func TestEveryEvent(t *testing.T) {
	events := run(
		ev{"type": contract.EventStateSnapshot, "snapshot": ev{"a": 1}},
		ev{"type": contract.EventStateDelta, "delta": []any{ev{"op": "replace", "path": "/a", "value": 2}}},
		ev{"type": contract.EventMessagesSnapshot, "messages": []any{ev{"id": "u", "role": "user", "content": "hi"}}},
		ev{"type": contract.EventActivitySnapshot, "messageId": "a", "activityType": "search", "content": ev{"found": 0}},
		ev{"type": contract.EventActivityDelta, "messageId": "a", "activityType": "search", "patch": []any{ev{"op": "replace", "path": "/found", "value": 3}}},
		ev{"type": contract.EventActivityDelta, "messageId": "never", "activityType": "search", "patch": []any{ev{"op": "replace", "path": "/x", "value": 3}}},
		ev{"type": contract.EventRaw, "event": ev{"anything": true}},
		ev{"type": contract.EventCustom, "name": "n", "value": []any{1}},
	)
	r := accept(t, v11, lines(t, events...))
	if string(r.State) != `{"a":2}` {
		t.Errorf("state %s", r.State)
	}
	if len(r.Messages) != 2 || string(r.Messages[1].Data) != `{"found":3}` {
		t.Errorf("messages %+v", r.Messages)
	}
	p, _ := LookupProfile(v11)
	if len(p.Events()) != len(contract.Events) {
		t.Errorf("the 1.1 profile accepts %d of %d events", len(p.Events()), len(contract.Events))
	}
}

//contract:proves ag-ui.structure.non-null
func TestNonNullValues(t *testing.T) {
	reject(t, stand, lines(t, run(ev{"type": contract.EventStepStarted, "stepName": "s", "rawEvent": nil})...), 1, "/rawEvent", contract.RuleStructureNonNull)
	reject(t, stand, lines(t, started(), ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r", "result": nil}), 1, "/result", contract.RuleStructureNonNull)
	for _, p := range []string{stand, v11} {
		accept(t, p, lines(t, run(ev{"type": contract.EventStepStarted, "stepName": "s", "rawEvent": ev{"x": nil}}, ev{"type": contract.EventStepFinished, "stepName": "s", "rawEvent": 0})...))
	}
	// A null where the contract allows any value, state among them, is data.
	accept(t, v11, lines(t, run(ev{"type": contract.EventStateSnapshot, "snapshot": nil}, ev{"type": contract.EventCustom, "name": "n", "value": nil})...))
}

// A closed message or tool call may be opened again, and the start
// continues the same entity: what it states must agree with what the
// entity was opened with; what it leaves out restates nothing, but for a
// message's role, whose default is assistant (see TestReopenWithoutRole).
// A start that disagrees is refused, and what the result shows stops
// before it.
//
//contract:proves ag-ui.sequence.text-message ag-ui.sequence.tool-call
func TestReopenedIdentity(t *testing.T) {
	start, end := contract.EventTextMessageStart, contract.EventTextMessageEnd
	content := contract.EventTextMessageContent
	call := func(name string, more ...any) ev {
		e := ev{"type": contract.EventToolCallStart, "toolCallId": "c", "toolCallName": name}
		for i := 0; i+1 < len(more); i += 2 {
			e[more[i].(string)] = more[i+1]
		}
		return e
	}
	args := func(d string) ev { return ev{"type": contract.EventToolCallArgs, "toolCallId": "c", "delta": d} }
	endC := ev{"type": contract.EventToolCallEnd, "toolCallId": "c"}
	for _, p := range []string{stand, v11} {
		// The case of the issue: read_file reopened as delete_all.
		r := reject(t, p, lines(t, run(call("read_file"), args(`{"p":1}`), endC, call("delete_all"), args(`{"x":2}`), endC)...), 4, "/toolCallName", contract.RuleSequenceToolCall)
		if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "read_file" || r.ToolCalls[0].Arguments != `{"p":1}` {
			t.Errorf("%s: shown %+v; want read_file with only its own arguments", p, r.ToolCalls)
		}
		// The same tool again continues the call.
		r = accept(t, p, lines(t, run(call("read_file"), args(`{"p":`), endC, call("read_file"), args(`1}`), endC)...))
		if len(r.ToolCalls) != 1 || r.ToolCalls[0].Arguments != `{"p":1}` || !r.ToolCalls[0].Complete {
			t.Errorf("%s: tool calls %+v", p, r.ToolCalls)
		}
		// The parent message: another one, or one where there was none, is
		// refused; the same one, or none stated, continues the call.
		m := []ev{text(start, "m"), text(end, "m")}
		withParent := func(more ...ev) []byte {
			return lines(t, run(append(append(append([]ev{}, m...), call("f", "parentMessageId", "m"), endC), more...)...)...)
		}
		reject(t, p, withParent(text(start, "n"), text(end, "n"), call("f", "parentMessageId", "n"), endC), 7, "/parentMessageId", contract.RuleSequenceToolCall)
		reject(t, p, lines(t, run(call("f"), endC, text(start, "m"), text(end, "m"), call("f", "parentMessageId", "m"), endC)...), 5, "/parentMessageId", contract.RuleSequenceToolCall)
		r = accept(t, p, withParent(call("f", "parentMessageId", "m"), endC, call("f"), endC))
		if r.ToolCalls[0].ParentMessageID != "m" {
			t.Errorf("%s: parent %q", p, r.ToolCalls[0].ParentMessageID)
		}

		// A message reopened under another role: user text must not be
		// shown as assistant text, nor the other way round.
		r = reject(t, p, lines(t, run(text(start, "m", "role", "assistant"), text(content, "m", "delta", "a"), text(end, "m"),
			text(start, "m", "role", "user"), text(content, "m", "delta", "u"), text(end, "m"))...), 4, "/role", contract.RuleSequenceTextMessage)
		if len(r.Messages) != 1 || r.Messages[0].Role != "assistant" || r.Messages[0].Content != "a" {
			t.Errorf("%s: shown %+v", p, r.Messages)
		}
		reject(t, p, lines(t, run(text(start, "m", "role", "user"), text(end, "m"), text(start, "m", "role", "assistant"), text(end, "m"))...), 3, "/role", contract.RuleSequenceTextMessage)
		accept(t, p, lines(t, run(text(start, "m", "role", "user"), text(end, "m"), text(start, "m", "role", "user"), text(end, "m"))...))
		// The name: another one, or one where there was none, is refused.
		reject(t, p, lines(t, run(text(start, "m", "name", "bot"), text(end, "m"), text(start, "m", "name", "other"), text(end, "m"))...), 3, "/name", contract.RuleSequenceTextMessage)
		reject(t, p, lines(t, run(text(start, "m"), text(end, "m"), text(start, "m", "name", "bot"), text(end, "m"))...), 3, "/name", contract.RuleSequenceTextMessage)
		accept(t, p, lines(t, run(text(start, "m", "name", "bot"), text(end, "m"), text(start, "m", "name", "bot"), text(end, "m"), text(start, "m"), text(end, "m"))...))
	}
	// A reasoning message's id reopened as a text message would show
	// reasoning as conversation.
	rm := contract.EventReasoningMessageStart
	reject(t, v11, lines(t, run(text(rm, "x", "role", "reasoning"), text(contract.EventReasoningMessageEnd, "x"),
		text(start, "x", "role", "assistant"), text(end, "x"))...), 3, "/role", contract.RuleSequenceTextMessage)
	// A message restated by a snapshot keeps the snapshot's role.
	snap := ev{"type": contract.EventMessagesSnapshot, "messages": []any{map[string]any{"id": "m", "role": "user", "content": "hi"}}}
	reject(t, v11, lines(t, run(snap, text(start, "m", "role", "assistant"), text(end, "m"))...), 2, "/role", contract.RuleSequenceTextMessage)
	accept(t, v11, lines(t, run(snap, text(start, "m", "role", "user"), text(end, "m"))...))
}

// A messages snapshot that leaves out a message still streaming takes it
// from the conversation: the content that follows is not shown at all,
// neither under the message at its old place nor as a panic, and a warning
// says so. Before, the content went to the first message of the snapshot,
// or, after an empty snapshot, the check panicked.
//
//contract:proves ag-ui.sequence.text-message ag-ui.sequence.reasoning ag-ui.event.messages-snapshot
func TestSnapshotDropsOpenMessage(t *testing.T) {
	start, content, end := contract.EventTextMessageStart, contract.EventTextMessageContent, contract.EventTextMessageEnd
	user := map[string]any{"id": "u", "role": "user", "content": "q"}
	for _, c := range []struct {
		name     string
		snapshot []any
		open     []ev
		cont     []ev
		rule     string
	}{
		{"text, empty snapshot", []any{}, []ev{text(start, "m", "role", "assistant")}, []ev{text(content, "m", "delta", "hi"), text(end, "m")}, contract.RuleSequenceTextMessage},
		{"text", []any{user}, []ev{text(start, "m", "role", "assistant")}, []ev{text(content, "m", "delta", "hi"), text(end, "m")}, contract.RuleSequenceTextMessage},
		// A snapshot that holds no reasoning message keeps the open one
		// (TestSnapshotKeepsWhatItDoesNotSpeakFor); one that holds some
		// speaks for them all.
		{"reasoning", []any{user, map[string]any{"id": "r2", "role": "reasoning", "content": "q"}}, []ev{text(contract.EventReasoningMessageStart, "m", "role", "reasoning")},
			[]ev{text(contract.EventReasoningMessageContent, "m", "delta", "hi"), text(contract.EventReasoningMessageEnd, "m")}, contract.RuleSequenceReasoning},
	} {
		snap := ev{"type": contract.EventMessagesSnapshot, "messages": c.snapshot}
		events := append(append(append([]ev{}, c.open...), snap), c.cont...)
		r := accept(t, v11, lines(t, run(events...)...))
		if len(r.Messages) != len(c.snapshot) {
			t.Errorf("%s: messages %+v; want the snapshot's alone", c.name, r.Messages)
		}
		for _, m := range r.Messages {
			if m.Content != "q" {
				t.Errorf("%s: %q shows %q; want only what the snapshot sent", c.name, m.ID, m.Content)
			}
		}
		if len(r.Warnings) != 1 || r.Warnings[0].Rule != c.rule || r.Warnings[0].Event != 3 || r.Warnings[0].Pointer != "/messageId" {
			t.Errorf("%s: warnings %+v; want one for the content at event 3", c.name, r.Warnings)
		}
	}
	// A message the snapshot keeps goes on in its place, before the
	// snapshot's new messages, as the reference client merges them.
	kept := ev{"type": contract.EventMessagesSnapshot, "messages": []any{user, map[string]any{"id": "m", "role": "assistant", "content": "a"}}}
	r := accept(t, v11, lines(t, run(text(start, "m", "role", "assistant"), kept, text(content, "m", "delta", "b"), text(end, "m"))...))
	if len(r.Messages) != 2 || r.Messages[0].Content != "ab" || r.Messages[1].Content != "q" || len(r.Warnings) != 0 {
		t.Errorf("kept: messages %+v, warnings %+v", r.Messages, r.Warnings)
	}
}
