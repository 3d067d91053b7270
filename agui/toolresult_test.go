package agui

import (
	"encoding/json"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// Tool results: every result a record sends is shown, and a call's
// arguments are only those its result answered.

func toolStart(id, name string) ev {
	return ev{"type": contract.EventToolCallStart, "toolCallId": id, "toolCallName": name}
}

func toolArgs(id, delta string) ev {
	return ev{"type": contract.EventToolCallArgs, "toolCallId": id, "delta": delta}
}

// inputRun returns a maker of records of one run whose RUN_STARTED
// carries an input holding messages (AG-UI 1.1), around the events given.
func inputRun(t *testing.T, messages ...any) func(events ...ev) []byte {
	in := ev{"threadId": "t", "runId": "r", "messages": messages}
	return func(events ...ev) []byte {
		all := run(events...)
		all[0] = ev{"type": contract.EventRunStarted, "threadId": "t", "runId": "r", "input": in}
		return lines(t, all...)
	}
}

func toolEnd(id string) ev { return ev{"type": contract.EventToolCallEnd, "toolCallId": id} }

func toolResult(msg, id string, content any) ev {
	return ev{"type": contract.EventToolCallResult, "messageId": msg, "toolCallId": id, "content": content}
}

// Under AG-UI 1.1 a result that cannot be shown beside its call (no start
// of the call in the record, or the call shows its first result already)
// is shown as the tool message it is, with a warning; under the stand it
// rejects the record. Before, the first kind was dropped and the second
// replaced the first result, both silently.
//
//contract:proves ag-ui.sequence.tool-result ag-ui.stand.tool-result ag-ui.view.result
func TestEveryToolResultShown(t *testing.T) {
	call := []ev{toolStart("c", "read_file"), toolEnd("c")}
	withCall := func(more ...ev) []byte { return lines(t, run(append(append([]ev{}, call...), more...)...)...) }
	tool := func(id, content, answers string) Message {
		return Message{ID: id, Role: "tool", Content: content, ToolCallID: answers, Complete: true}
	}
	warned := func(what string, r *Result, events ...int) {
		t.Helper()
		wantWarnings(t, what, r, "/toolCallId", contract.RuleSequenceToolResult, events...)
	}
	messages := func(r *Result, want ...Message) {
		t.Helper()
		if len(r.Messages) != len(want) {
			t.Fatalf("messages %+v; want %+v", r.Messages, want)
		}
		for k := range want {
			if got := r.Messages[k]; got.ID != want[k].ID || got.Role != want[k].Role || got.Content != want[k].Content ||
				got.ToolCallID != want[k].ToolCallID || got.Complete != want[k].Complete || string(got.Data) != string(want[k].Data) {
				t.Errorf("message %d: %+v; want %+v", k, got, want[k])
			}
		}
	}

	// t1: a result for a call the record never started.
	orphan := lines(t, run(toolResult("tm", "zz", "orphan result"))...)
	r := accept(t, v11, orphan)
	warned("a result for a call never started", r, 1)
	messages(r, tool("tm", "orphan result", "zz"))
	if len(r.ToolCalls) != 0 {
		t.Errorf("a proposal was invented: %+v", r.ToolCalls)
	}
	out, err := r.RenderText()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `tool "tm" (result of tool call "zz"): "orphan result"`) || !strings.Contains(string(out), "Warnings (1): what AG-UI 1.1 tolerates, and what was done with it\n") {
		t.Errorf("the report does not show the result:\n%s", out)
	}
	js, err := r.RenderJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"toolCallId": "zz"`) || !strings.Contains(string(js), `"orphan result"`) {
		t.Errorf("the JSON does not show the result:\n%s", js)
	}
	reject(t, stand, orphan, 1, "/toolCallId", contract.RuleStandToolResult)

	// r7: two results for one call; and a third.
	twice := withCall(toolResult("tm", "c", "first"), toolResult("tm2", "c", "second"))
	r = accept(t, v11, twice)
	warned("two results", r, 4)
	if string(r.ToolCalls[0].Result) != `"first"` {
		t.Errorf("the first result was replaced: %+v", r.ToolCalls[0])
	}
	messages(r, tool("tm2", "second", "c"))
	r = accept(t, v11, withCall(toolResult("tm", "c", "first"), toolResult("tm2", "c", "second"), toolResult("tm3", "c", "third")))
	warned("three results", r, 4, 5)
	messages(r, tool("tm2", "second", "c"), tool("tm3", "third", "c"))
	r = reject(t, stand, twice, 4, "/toolCallId", contract.RuleStandToolResult)
	if string(r.ToolCalls[0].Result) != `"first"` || len(r.Messages) != 0 {
		t.Errorf("stand: shown %+v %+v", r.ToolCalls, r.Messages)
	}

	// A subagent's result keeps its subagent, as its call would.
	subStarted := ev{"type": contract.EventSubagentStarted, "subagentRunId": "s1", "name": "n"}
	subResult := toolResult("tm", "zz", "sub result")
	subResult["subagentRunId"] = "s1"
	r = accept(t, v11, lines(t, run(subStarted, subResult, ev{"type": contract.EventSubagentFinished, "subagentRunId": "s1"})...))
	if len(r.Messages) != 1 || r.Messages[0].Subagent != "s1" || r.Messages[0].ToolCallID != "zz" {
		t.Errorf("a subagent's result: %+v; want its tool message under subagent s1", r.Messages)
	}

	// Content parts stay data, as in a messages snapshot.
	parts := []any{ev{"type": "text", "text": "a"}}
	r = accept(t, v11, lines(t, run(toolResult("tm", "zz", parts))...))
	want := tool("tm", "", "zz")
	want.Data = json.RawMessage(`[{"text":"a","type":"text"}]`)
	messages(r, want)

	// The neighbours: one result per call is shown with its call, in both
	// profiles, with no message and no warning.
	for _, p := range []string{stand, v11} {
		r = accept(t, p, withCall(toolResult("tm", "c", "ok")))
		if string(r.ToolCalls[0].Result) != `"ok"` || len(r.Messages) != 0 || len(r.Warnings) != 0 {
			t.Errorf("%s: shown %+v %+v, warnings %v", p, r.ToolCalls, r.Messages, r.Warnings)
		}
	}
	// Under AG-UI 1.1 a result may come before the call's end.
	r = accept(t, v11, lines(t, run(toolStart("c", "f"), toolArgs("c", "{}"), toolResult("tm", "c", "ok"), toolEnd("c"))...))
	if tc := r.ToolCalls[0]; tc.Arguments != "{}" || string(tc.Result) != `"ok"` || !tc.Complete || len(r.Warnings) != 0 {
		t.Errorf("result before the end: %+v, warnings %v", tc, r.Warnings)
	}
	// A result before its call's start answers no call shown; the call that
	// starts after it is a call of its own, without a result.
	r = accept(t, v11, lines(t, run(toolResult("tm", "c", "early"), toolStart("c", "f"), toolEnd("c"))...))
	warned("a result before its call", r, 1)
	messages(r, tool("tm", "early", "c"))
	if r.ToolCalls[0].Result != nil {
		t.Errorf("the early result was put under the later call: %+v", r.ToolCalls[0])
	}
}

// A call a result has answered takes no more arguments: reopening it, or
// continuing it under AG-UI 1.1, where a result may come before the end,
// is refused, and what the result shows stops before it. Before, r6's
// reopened call was shown with the arguments {"p":1}{"p":2} under the
// result "ok", which answered only the first.
//
//contract:proves ag-ui.sequence.tool-call
func TestAnsweredCallTakesNoMoreArguments(t *testing.T) {
	for _, p := range []string{stand, v11} {
		r := reject(t, p, lines(t, run(toolStart("c", "read_file"), toolArgs("c", `{"p":1}`), toolEnd("c"), toolResult("tm", "c", "ok"),
			toolStart("c", "read_file"), toolArgs("c", `{"p":2}`), toolEnd("c"))...), 5, "/toolCallId", contract.RuleSequenceToolCall)
		if len(r.ToolCalls) != 1 || r.ToolCalls[0].Arguments != `{"p":1}` || string(r.ToolCalls[0].Result) != `"ok"` {
			t.Errorf("%s: shown %+v; want the call with the arguments its result answered", p, r.ToolCalls)
		}
		// The neighbour: reopened before its result, the call continues, and
		// the result answers all its arguments.
		r = accept(t, p, lines(t, run(toolStart("c", "read_file"), toolArgs("c", `{"p":`), toolEnd("c"),
			toolStart("c", "read_file"), toolArgs("c", `1}`), toolEnd("c"), toolResult("tm", "c", "ok"))...))
		if tc := r.ToolCalls[0]; len(r.ToolCalls) != 1 || tc.Arguments != `{"p":1}` || string(tc.Result) != `"ok"` || !tc.Complete {
			t.Errorf("%s: shown %+v", p, r.ToolCalls)
		}
	}
	// AG-UI 1.1 lets a result come before the end; arguments after it are
	// refused, the end is not.
	r := reject(t, v11, lines(t, run(toolStart("c", "f"), toolArgs("c", `{"p":1}`), toolResult("tm", "c", "ok"), toolArgs("c", `{"p":2}`), toolEnd("c"))...),
		4, "/toolCallId", contract.RuleSequenceToolCall)
	if r.ToolCalls[0].Arguments != `{"p":1}` {
		t.Errorf("arguments %q", r.ToolCalls[0].Arguments)
	}
	// A result for a call the record did not start answers no call shown:
	// starting that call afterwards is not a reopening of an answered call.
	accept(t, v11, lines(t, run(toolResult("tm", "c", "early"), toolStart("c", "f"), toolArgs("c", "{}"), toolEnd("c"))...))
}

// A tool message a MESSAGES_SNAPSHOT restates keeps the call it answers
// and why the tool failed, in the result, the text report and the JSON, as
// a TOOL_CALL_RESULT's does: before, the snapshot's toolCallId and error
// were dropped.
//
//contract:proves ag-ui.view.result
func TestSnapshotToolMessageNamesItsCall(t *testing.T) {
	snap := ev{"type": contract.EventMessagesSnapshot, "messages": []any{
		map[string]any{"id": "a", "role": "assistant", "content": "", "toolCalls": []any{map[string]any{"id": "c", "type": "function", "function": map[string]any{"name": "read_file", "arguments": "{}"}}}},
		map[string]any{"id": "t", "role": "tool", "content": "12 lines", "toolCallId": "c", "error": "line 13 unreadable"},
		map[string]any{"id": "u", "role": "user", "content": "thanks"},
	}}
	r := check(t, contract.ProfileAgUI11, lines(t, run(snap)...))
	if !r.Accepted || len(r.Messages) != 3 {
		t.Fatalf("accepted %v, messages %+v", r.Accepted, r.Messages)
	}
	for k, want := range []string{"", "c", ""} {
		if got := r.Messages[k].ToolCallID; got != want {
			t.Errorf("message %q answers %q; want %q", r.Messages[k].ID, got, want)
		}
	}
	if r.Messages[1].Error != "line 13 unreadable" || r.Messages[0].Error != "" || r.Messages[2].Error != "" {
		t.Errorf("the tool's failure is shown as %q, %q, %q; want it on the tool message alone", r.Messages[0].Error, r.Messages[1].Error, r.Messages[2].Error)
	}
	out, err := r.RenderText()
	if err != nil || !strings.Contains(string(out), `tool "t" (result of tool call "c"): "12 lines"`+"\n"+`    the tool failed: "line 13 unreadable"`) {
		t.Errorf("the text report does not name the call the tool message answers and why it failed (%v):\n%s", err, out)
	}
	js, err := r.RenderJSON()
	var report struct {
		Messages []struct {
			ID         string `json:"id"`
			ToolCallID string `json:"toolCallId"`
			Error      string `json:"error"`
		} `json:"messages"`
	}
	if err == nil {
		err = json.Unmarshal(js, &report)
	}
	if err != nil || len(report.Messages) != 3 || report.Messages[1].ToolCallID != "c" || report.Messages[0].ToolCallID != "" || report.Messages[1].Error != "line 13 unreadable" {
		t.Errorf("the JSON report does not name the call the tool message answers: %v %s", err, js)
	}
}

// A tool result shown as its own message takes its messageId, as every
// message of the conversation does: a start that later names the id
// reopens a tool message and is refused for its role, and a result whose
// id names a message shown already says so. Before, both gave two
// messages of one id, the second accepted silently.
//
//contract:proves ag-ui.sequence.tool-result
func TestToolResultMessageTakesItsID(t *testing.T) {
	startM1 := ev{"type": contract.EventTextMessageStart, "messageId": "m1"}
	contentM1 := ev{"type": contract.EventTextMessageContent, "messageId": "m1", "delta": "x"}
	endM1 := ev{"type": contract.EventTextMessageEnd, "messageId": "m1"}

	// The result first: the start on its id is refused.
	r := check(t, contract.ProfileAgUI11, lines(t, run(toolResult("m1", "zz", "orphan"), startM1, contentM1, endM1)...))
	if r.Accepted || len(r.Findings) != 1 || r.Findings[0].Event != 2 || r.Findings[0].Rule != contract.RuleSequenceTextMessage || r.Findings[0].Pointer != "/messageId" {
		t.Errorf("a start on the id of a tool result's message: accepted %v, findings %v; want %s at event 2 /messageId", r.Accepted, r.Findings, contract.RuleSequenceTextMessage)
	}
	if len(r.Messages) != 1 || r.Messages[0].Role != "tool" || r.Messages[0].Content != "orphan" {
		t.Errorf("messages %+v; want the tool message alone", r.Messages)
	}

	// The message first, then results on its id: each is shown, each
	// draws the warning that the id is shared.
	r = check(t, contract.ProfileAgUI11, lines(t, run(startM1, contentM1, endM1, toolResult("m1", "zz", "one"), toolResult("m1", "yy", "two"))...))
	if !r.Accepted || len(r.Messages) != 3 {
		t.Fatalf("accepted %v, messages %+v", r.Accepted, r.Messages)
	}
	var shared []int
	for _, w := range r.Warnings {
		if w.Pointer == "/messageId" && w.Rule == contract.RuleSequenceToolResult {
			shared = append(shared, w.Event)
		}
	}
	if len(shared) != 2 || shared[0] != 4 || shared[1] != 5 {
		t.Errorf("warnings %v; want the shared id said at events 4 and 5", r.Warnings)
	}
	if !strings.Contains(r.Warnings[1].Message, `"m1" names the assistant message`) {
		t.Errorf("the warning %q does not name the message the id names", r.Warnings[1].Message)
	}

	// Neighbour: a result with an id of its own takes no other's.
	r = check(t, contract.ProfileAgUI11, lines(t, run(startM1, contentM1, endM1, toolResult("m2", "zz", "one"))...))
	if !r.Accepted || len(r.Warnings) != 1 || r.Warnings[0].Pointer != "/toolCallId" {
		t.Errorf("a result with its own id: accepted %v, warnings %v; want the one warning of its call", r.Accepted, r.Warnings)
	}
}

// The messageId of a result shown beside its call names a tool message of
// the conversation all the same, as the reference client adds one for
// every result: a start that later names it is refused for its role, in
// both profiles, rather than shown as an assistant's message that the
// reference would append to the tool's. And a result beside its call whose
// messageId names a message held already is refused by the stand and said
// under AG-UI 1.1. Before, both passed in silence.
//
//contract:proves ag-ui.sequence.text-message ag-ui.sequence.reasoning ag-ui.sequence.tool-result ag-ui.stand.tool-result
func TestResultBesideItsCallNamesAToolMessage(t *testing.T) {
	start, content, end := contract.EventTextMessageStart, contract.EventTextMessageContent, contract.EventTextMessageEnd
	answered := []ev{toolStart("c", "read_file"), toolEnd("c"), toolResult("tm", "c", "ok")}
	then := func(first []ev, more ...ev) []byte {
		return lines(t, run(append(append([]ev{}, first...), more...)...)...)
	}
	besideOnly := func(what string, r *Result) {
		t.Helper()
		if len(r.ToolCalls) != 1 || string(r.ToolCalls[0].Result) != `"ok"` {
			t.Errorf("%s: tool calls %+v; want the call with its result", what, r.ToolCalls)
		}
		wantMessages(t, what, r)
	}
	for _, p := range []string{stand, v11} {
		// The case that failed: a start with no role, then one with a role.
		r := reject(t, p, then(answered, text(start, "tm"), text(content, "tm", "delta", "hi"), text(end, "tm")), 4, "/messageId", contract.RuleSequenceTextMessage)
		besideOnly(p+": a start with no role on the result's id", r)
		if msg := r.Findings[0].Message; !strings.Contains(msg, `holds it as "tool" (the result of the tool call "c", shown beside the call)`) || strings.Contains(msg, "state it") {
			t.Errorf("%s: the finding %q does not say the id names the result shown beside its call, or asks for a role no start can state", p, msg)
		}
		for _, role := range []string{"assistant", "user", "system", "developer"} {
			r = reject(t, p, then(answered, text(start, "tm", "role", role), text(end, "tm")), 4, "/role", contract.RuleSequenceTextMessage)
			besideOnly(p+": a start as "+role+" on the result's id", r)
		}
		// Neighbours: a start on an id of its own is a message of its own;
		// a result whose id names no message draws no warning.
		r = accept(t, p, then(answered, text(start, "m"), text(content, "m", "delta", "hi"), text(end, "m")))
		wantMessages(t, p+": a start on another id", r, shown{"m", "assistant", "hi", ""})
		if len(r.Warnings) != 0 || string(r.ToolCalls[0].Result) != `"ok"` {
			t.Errorf("%s: a start on another id: warnings %v, calls %+v", p, r.Warnings, r.ToolCalls)
		}

		// A result beside its call on the id of a message shown already:
		// an assistant's, a user's, another result's.
		answer := []ev{text(start, "m"), text(content, "m", "delta", "hello"), text(end, "m")}
		user := []ev{text(start, "u", "role", "user"), text(content, "u", "delta", "read it"), text(end, "u")}
		for _, c := range []struct {
			what   string
			before []ev
			id     string
			event  int
			shown  []shown
			names  string
		}{
			{"an assistant's id", answer, "m", 6, []shown{{"m", "assistant", "hello", ""}}, `"m" names the assistant message shown already`},
			{"a user's id", user, "u", 6, []shown{{"u", "user", "read it", ""}}, `"u" names the user message shown already`},
			{"another result's id", []ev{toolStart("b", "list"), toolEnd("b"), toolResult("x", "b", "first")}, "x", 6, nil, `"x" names the tool message (the result of the tool call "b", shown beside the call)`},
		} {
			events := append(append(append([]ev{}, c.before...), toolStart("c", "read_file"), toolEnd("c")), toolResult(c.id, "c", "ok"))
			if p == stand {
				r = reject(t, p, lines(t, run(events...)...), c.event, "/messageId", contract.RuleStandToolResult)
				if k := len(r.ToolCalls) - 1; r.ToolCalls[k].ID != "c" || r.ToolCalls[k].Result != nil {
					t.Errorf("stand: %s: the refused result is shown: %+v", c.what, r.ToolCalls)
				}
			} else {
				r = accept(t, p, lines(t, run(events...)...))
				wantWarnings(t, c.what, r, "/messageId", contract.RuleSequenceToolResult, c.event)
				if k := len(r.ToolCalls) - 1; r.ToolCalls[k].ID != "c" || string(r.ToolCalls[k].Result) != `"ok"` {
					t.Errorf("%s: the result is not shown beside its call: %+v", c.what, r.ToolCalls)
				}
			}
			wantMessages(t, p+": "+c.what, r, c.shown...)
			if msg := r.Warnings; p == v11 && len(msg) == 1 && !strings.Contains(msg[0].Message, c.names) {
				t.Errorf("%s: the warning %q does not name the message the id names", c.what, msg[0].Message)
			}
			if p == stand && !strings.Contains(r.Findings[0].Message, c.names) {
				t.Errorf("stand: %s: the finding %q does not name the message the id names", c.what, r.Findings[0].Message)
			}
		}
	}

	// AG-UI 1.1: a reasoning message and a chunk on the result's id are
	// refused as well.
	r := reject(t, v11, then(answered, text(contract.EventReasoningMessageStart, "tm", "role", "reasoning"), text(contract.EventReasoningMessageEnd, "tm")), 4, "/role", contract.RuleSequenceReasoning)
	besideOnly("a reasoning message on the result's id", r)
	r = reject(t, v11, then(answered, text(contract.EventTextMessageChunk, "tm", "delta", "hi")), 4, "/messageId", contract.RuleSequenceTextMessage)
	besideOnly("a chunk on the result's id", r)
	// The shared id keeps naming the message it named first: the answer
	// it names goes on.
	r = accept(t, v11, then([]ev{text(start, "m"), text(content, "m", "delta", "hello"), text(end, "m"), toolStart("c", "f"), toolEnd("c"), toolResult("m", "c", "ok")},
		text(start, "m"), text(content, "m", "delta", " again"), text(end, "m")))
	wantMessages(t, "the answer after a result on its id", r, shown{"m", "assistant", "hello again", ""})
	// A messages snapshot restates the conversation: one that leaves the
	// result out leaves its id free.
	snap := ev{"type": contract.EventMessagesSnapshot, "messages": []any{map[string]any{"id": "u", "role": "user", "content": "hi"}}}
	r = accept(t, v11, then(answered, snap, text(start, "tm"), text(content, "tm", "delta", "x"), text(end, "tm")))
	wantMessages(t, "a start on the result's id after a snapshot left it out", r, shown{"u", "user", "hi", ""}, shown{"tm", "assistant", "x", ""})
}

// The messages of a run's input are messages of the conversation, which
// the reference client holds under their ids though the result does not
// show them: a start on such an id under another role is refused, rather
// than shown as a message of its own that the reference would append to
// the input's; one under the message's role is shown with what the record
// sends, and a warning says the message began in the input. A result on
// such an id says so too. Before, all passed in silence.
//
//contract:proves ag-ui.sequence.text-message ag-ui.sequence.reasoning ag-ui.sequence.tool-result
func TestInputMessagesNameTheirIDs(t *testing.T) {
	start, content, end := contract.EventTextMessageStart, contract.EventTextMessageContent, contract.EventTextMessageEnd
	withInput := inputRun(t,
		map[string]any{"id": "u", "role": "user", "content": "transfer 10"},
		map[string]any{"id": "a", "role": "assistant", "content": "which account?"},
	)
	// The case that failed: the agent's text on the user's id.
	r := reject(t, v11, withInput(text(start, "u"), text(content, "u", "delta", " to mallory"), text(end, "u")), 1, "/messageId", contract.RuleSequenceTextMessage)
	wantMessages(t, "a start with no role on a user's input id", r)
	if msg := r.Findings[0].Message; !strings.Contains(msg, `holds it as "user" (a message of the run's input, which the result does not show)`) || !strings.HasSuffix(msg, "state it") {
		t.Errorf("the finding %q does not say the id names a message of the input", msg)
	}
	reject(t, v11, withInput(text(start, "u", "role", "assistant"), text(end, "u")), 1, "/role", contract.RuleSequenceTextMessage)
	reject(t, v11, withInput(text(start, "a", "role", "user"), text(end, "a")), 1, "/role", contract.RuleSequenceTextMessage)
	reject(t, v11, withInput(text(contract.EventTextMessageChunk, "u", "delta", "x")), 1, "/messageId", contract.RuleSequenceTextMessage)
	r = reject(t, v11, withInput(text(contract.EventReasoningMessageStart, "u", "role", "reasoning"), text(contract.EventReasoningMessageEnd, "u")), 1, "/role", contract.RuleSequenceReasoning)
	wantMessages(t, "reasoning on a user's input id", r)

	// Under the message's role the start goes on, and a warning says that
	// what the input held is not shown: the assistant's, with no role or
	// with it, and the user's with its role stated.
	for _, c := range []struct {
		what  string
		start ev
		want  shown
	}{
		{"the assistant's, no role", text(start, "a"), shown{"a", "assistant", " the first", ""}},
		{"the assistant's, as assistant", text(start, "a", "role", "assistant"), shown{"a", "assistant", " the first", ""}},
		{"the user's, as user", text(start, "u", "role", "user"), shown{"u", "user", " the first", ""}},
	} {
		r = accept(t, v11, withInput(c.start, text(content, c.want.id, "delta", " the first"), text(end, c.want.id)))
		wantMessages(t, c.what, r, c.want)
		wantWarnings(t, c.what, r, "/messageId", contract.RuleSequenceTextMessage, 1)
		if len(r.Warnings) == 1 && !strings.Contains(r.Warnings[0].Message, "a message of the run's input") {
			t.Errorf("%s: the warning %q does not say the message began in the input", c.what, r.Warnings[0].Message)
		}
	}

	// A result on an input message's id, beside its call or on its own.
	r = accept(t, v11, withInput(toolStart("c", "f"), toolEnd("c"), toolResult("u", "c", "ok")))
	wantWarnings(t, "a result beside its call on a user's input id", r, "/messageId", contract.RuleSequenceToolResult, 3)
	if len(r.Warnings) == 1 && !strings.Contains(r.Warnings[0].Message, `"u" names the user message (a message of the run's input`) {
		t.Errorf("the warning %q does not name the input's message", r.Warnings[0].Message)
	}
	r = accept(t, v11, withInput(toolResult("u", "zz", "ok")))
	if len(r.Warnings) != 2 || r.Warnings[1].Pointer != "/messageId" || r.Warnings[1].Rule != contract.RuleSequenceToolResult {
		t.Errorf("a result on its own on a user's input id: warnings %v; want the call's, then the id's", r.Warnings)
	} else if msg := r.Warnings[1].Message; !strings.HasSuffix(msg, `"u" names the user message (a message of the run's input, which the result does not show); the result is shown all the same, as a tool message of its own under that id`) {
		// Not "beside it": the input's message is not shown.
		t.Errorf("the warning %q does not say where the result is shown", msg)
	}

	// Neighbours: an id the input does not hold is a message of its own,
	// with no warning; a messages snapshot that leaves the input's message
	// out leaves its id free.
	r = accept(t, v11, withInput(text(start, "m"), text(content, "m", "delta", "done"), text(end, "m")))
	wantMessages(t, "a start on a new id", r, shown{"m", "assistant", "done", ""})
	wantWarnings(t, "a start on a new id", r, "", "")
	snap := ev{"type": contract.EventMessagesSnapshot, "messages": []any{map[string]any{"id": "a", "role": "assistant", "content": "which account?"}}}
	r = accept(t, v11, withInput(snap, text(start, "u"), text(content, "u", "delta", "x"), text(end, "u")))
	wantMessages(t, "a start on an id a snapshot left out", r, shown{"a", "assistant", "which account?", ""}, shown{"u", "assistant", "x", ""})
	wantWarnings(t, "a start on an id a snapshot left out", r, "", "")
}

// An ACTIVITY_SNAPSHOT on the id of a message the result does not list (a
// tool result shown beside its call, a message of the run's input) is
// said as one on a message shown is: the reference client puts the
// activity in that message's place, or, with replace false, changes
// nothing, and the activity is not shown. Before, it was shown as a new
// activity in silence either way.
//
//contract:proves ag-ui.sequence.activity-snapshot
func TestActivitySnapshotOnUnlistedIDs(t *testing.T) {
	activity := planSnapshot
	withInput := inputRun(t,
		map[string]any{"id": "u", "role": "user", "content": "pay 10"},
		map[string]any{"id": "p", "role": "activity", "activityType": "PLAN", "content": map[string]any{"x": 0}},
	)
	answered := []ev{toolStart("c", "read_file"), toolEnd("c"), toolResult("tm", "c", "ok")}
	planned := shown{"tm", "activity", "", `{"x":1}`}

	r := accept(t, v11, lines(t, run(append(answered, activity("tm", nil))...)...))
	wantMessages(t, "a result's id, replaced", r, planned)
	wantWarnings(t, "a result's id, replaced", r, "/messageId", contract.RuleSequenceActivitySnapshot, 4)
	if len(r.Warnings) == 1 && !strings.Contains(r.Warnings[0].Message, `of role "tool" (the result of the tool call "c", shown beside the call)`) {
		t.Errorf("the warning %q does not name the result", r.Warnings[0].Message)
	}
	r = accept(t, v11, lines(t, run(append(answered, activity("tm", false))...)...))
	wantMessages(t, "a result's id, replace false", r)
	wantWarnings(t, "a result's id, replace false", r, "/messageId", contract.RuleSequenceActivitySnapshot, 4)

	r = accept(t, v11, withInput(activity("u", true)))
	wantMessages(t, "a user's input id, replaced", r, shown{"u", "activity", "", `{"x":1}`})
	wantWarnings(t, "a user's input id, replaced", r, "/messageId", contract.RuleSequenceActivitySnapshot, 1)
	r = accept(t, v11, withInput(activity("u", false)))
	wantMessages(t, "a user's input id, replace false", r)
	wantWarnings(t, "a user's input id, replace false", r, "/messageId", contract.RuleSequenceActivitySnapshot, 1)

	// Neighbours: an activity of the input is replaced, or left as it is
	// with replace false, in silence, as one shown is; a new id is a new
	// activity.
	r = accept(t, v11, withInput(activity("p", nil)))
	wantMessages(t, "an input's activity, replaced", r, shown{"p", "activity", "", `{"x":1}`})
	wantWarnings(t, "an input's activity, replaced", r, "", "")
	r = accept(t, v11, withInput(activity("p", false)))
	wantMessages(t, "an input's activity, replace false", r)
	wantWarnings(t, "an input's activity, replace false", r, "", "")
	r = accept(t, v11, withInput(activity("n", false)))
	wantMessages(t, "a new activity", r, shown{"n", "activity", "", `{"x":1}`})
	wantWarnings(t, "a new activity", r, "", "")
}

// A tool call is proposed in an assistant message: a TOOL_CALL_START whose
// parentMessageId names a message the conversation holds under another
// role (a user's, a tool result's, an activity, one of the run's input) is
// refused in both profiles, rather than shown as that message's proposal.
// A parent that is an assistant message, or one the record has not named
// yet, takes the call; a call with no parent opens one under its own id.
//
//contract:proves ag-ui.sequence.tool-call ag-ui.sequence.text-message ag-ui.sequence.tool-result ag-ui.stand.tool-result
func TestToolCallParentIsAnAssistantMessage(t *testing.T) {
	start, content, end := contract.EventTextMessageStart, contract.EventTextMessageContent, contract.EventTextMessageEnd
	inParent := func(parent string) ev {
		e := toolStart("c", "read_file")
		e["parentMessageId"] = parent
		return e
	}
	user := []ev{text(start, "u", "role", "user"), text(content, "u", "delta", "read it"), text(end, "u")}
	answer := []ev{text(start, "m"), text(content, "m", "delta", "reading"), text(end, "m")}
	answered := []ev{toolStart("b", "list"), toolEnd("b"), toolResult("tm", "b", "ok")}
	then := func(first []ev, more ...ev) []byte {
		return lines(t, run(append(append([]ev{}, first...), more...)...)...)
	}
	for _, p := range []string{stand, v11} {
		// The case: the call shown as the user's proposal.
		r := reject(t, p, then(user, inParent("u"), toolEnd("c")), 4, "/parentMessageId", contract.RuleSequenceToolCall)
		if msg := r.Findings[0].Message; !strings.Contains(msg, `in the user message "u" shown already`) {
			t.Errorf("%s: the finding %q does not name the user's message", p, msg)
		}
		for _, tc := range r.ToolCalls {
			if tc.ID == "c" {
				t.Errorf("%s: the refused call is shown: %+v", p, r.ToolCalls)
			}
		}
		wantMessages(t, p+": a call in the user's message", r, shown{"u", "user", "read it", ""})
		// A tool result's message, shown beside its call.
		r = reject(t, p, then(answered, inParent("tm"), toolEnd("c")), 4, "/parentMessageId", contract.RuleSequenceToolCall)
		if msg := r.Findings[0].Message; !strings.Contains(msg, `in the tool message "tm" (the result of the tool call "b", shown beside the call)`) {
			t.Errorf("%s: the finding %q does not name the result's message", p, msg)
		}

		// Neighbours: an assistant's message, an id not named yet, no parent.
		r = accept(t, p, then(answer, inParent("m"), toolEnd("c")))
		if len(r.ToolCalls) != 1 || r.ToolCalls[0].ParentMessageID != "m" {
			t.Errorf("%s: a call in the assistant's message: %+v", p, r.ToolCalls)
		}
		r = accept(t, p, then(user, inParent("n"), toolEnd("c")))
		if len(r.ToolCalls) != 1 || r.ToolCalls[0].ParentMessageID != "n" {
			t.Errorf("%s: a call in a message not named yet: %+v", p, r.ToolCalls)
		}
		// That message is the assistant's the call opened: a start that
		// names it later begins its text as the assistant's, silently, and
		// one under another role is refused.
		r = accept(t, p, then([]ev{inParent("n"), toolEnd("c")}, text(start, "n"), text(content, "n", "delta", "done"), text(end, "n")))
		wantMessages(t, p+": the text of the message a call opened", r, shown{"n", "assistant", "done", ""})
		if len(r.Warnings) != 0 || len(r.ToolCalls) != 1 || r.ToolCalls[0].ParentMessageID != "n" {
			t.Errorf("%s: the text of the message a call opened: warnings %v, calls %+v", p, r.Warnings, r.ToolCalls)
		}
		r = reject(t, p, then([]ev{inParent("n"), toolEnd("c")}, text(start, "n", "role", "user"), text(end, "n")), 3, "/role", contract.RuleSequenceTextMessage)
		if msg := r.Findings[0].Message; !strings.Contains(msg, `holds it as "assistant" (the message the tool call "c" was opened in)`) {
			t.Errorf("%s: the finding %q does not name the message the call opened", p, msg)
		}
		// A result is a tool message of its own, not that message.
		if p == stand {
			reject(t, p, then([]ev{inParent("n"), toolEnd("c")}, toolResult("n", "c", "ok")), 3, "/messageId", contract.RuleStandToolResult)
		} else {
			r = accept(t, p, then([]ev{inParent("n"), toolEnd("c")}, toolResult("n", "c", "ok")))
			wantWarnings(t, "a result on the id of the message its call opened", r, "/messageId", contract.RuleSequenceToolResult, 3)
		}
		accept(t, p, then(user, toolStart("c", "read_file"), toolEnd("c")))

		// A call with no parent opens an assistant message under its own
		// id: a start on that id under another role is refused, one as the
		// assistant begins its text; where the id names a message already,
		// that message keeps it.
		r = reject(t, p, then([]ev{toolStart("c", "read_file"), toolEnd("c")}, text(start, "c", "role", "user"), text(content, "c", "delta", "delete all"), text(end, "c")), 3, "/role", contract.RuleSequenceTextMessage)
		if msg := r.Findings[0].Message; !strings.Contains(msg, `holds it as "assistant" (the message the tool call "c" was opened in)`) {
			t.Errorf("%s: the finding %q does not name the message the call opened", p, msg)
		}
		wantMessages(t, p+": a user's start on the id of a call with no parent", r)
		r = accept(t, p, then([]ev{toolStart("c", "read_file"), toolEnd("c")}, text(start, "c"), text(content, "c", "delta", "done"), text(end, "c")))
		wantMessages(t, p+": the text of the message a call with no parent opened", r, shown{"c", "assistant", "done", ""})
		wantWarnings(t, p+": the text of the message a call with no parent opened", r, "", "")
		r = accept(t, p, then(user, toolStart("u", "read_file"), toolEnd("u"), text(start, "u", "role", "user"), text(end, "u")))
		wantMessages(t, p+": a call with no parent on the id of a user's message", r, shown{"u", "user", "read it", ""})
	}

	// AG-UI 1.1 only: an activity, and the messages of the run's input.
	activity := ev{"type": contract.EventActivitySnapshot, "messageId": "act", "activityType": "progress", "content": map[string]any{"done": 1}}
	reject(t, v11, then([]ev{activity}, inParent("act"), toolEnd("c")), 2, "/parentMessageId", contract.RuleSequenceToolCall)
	withInput := inputRun(t,
		map[string]any{"id": "iu", "role": "user", "content": "transfer 10"},
		map[string]any{"id": "ia", "role": "assistant", "content": "which account?"},
	)
	r := reject(t, v11, withInput(inParent("iu"), toolEnd("c")), 1, "/parentMessageId", contract.RuleSequenceToolCall)
	if msg := r.Findings[0].Message; !strings.Contains(msg, `in the user message "iu" (a message of the run's input`) {
		t.Errorf("the finding %q does not name the input's message", msg)
	}
	r = accept(t, v11, withInput(inParent("ia"), toolEnd("c")))
	if len(r.ToolCalls) != 1 || r.ToolCalls[0].ParentMessageID != "ia" {
		t.Errorf("a call in the input's assistant message: %+v", r.ToolCalls)
	}
}
