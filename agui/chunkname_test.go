package agui

import (
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// A finding caused by a chunk names the chunk, the event the record sent,
// not the start or the arguments it was expanded into, which the record
// does not hold; its rule and pointer are those of the member the chunk
// sent. The same start or arguments sent as themselves are named as
// themselves. Before, a refused TEXT_MESSAGE_CHUNK was reported as a
// TEXT_MESSAGE_START, and a TOOL_CALL_CHUNK as a TOOL_CALL_START; a
// REASONING_MESSAGE_CHUNK refused for its role was pointed at /role, which
// it does not hold.
//
//contract:proves ag-ui.sequence.text-message ag-ui.sequence.tool-call ag-ui.sequence.reasoning
func TestChunkFindingsNameTheChunk(t *testing.T) {
	tc, tool := contract.EventTextMessageChunk, contract.EventToolCallChunk
	user := map[string]any{"id": "u", "role": "user", "content": "q"}
	in := inputRun(t, user)
	named := func(m ...any) ev {
		e := ev{}
		for i := 0; i+1 < len(m); i += 2 {
			e[m[i].(string)] = m[i+1]
		}
		return e
	}
	opened := []ev{text(contract.EventTextMessageStart, "m", "role", "assistant", "name", "a"), text(contract.EventTextMessageEnd, "m")}
	called := []ev{toolStart("c", "read_file"), toolEnd("c")}
	answered := []ev{toolStart("c", "read_file"), toolArgs("c", "{"), toolResult("t1", "c", "ok"), toolEnd("c")}
	for _, c := range []struct {
		name       string
		data       []byte
		event      int
		ptr, rule  string
		sent, verb string
	}{
		{"text, no role, on an input message", in(named("type", tc, "messageId", "u", "delta", "x")), 1, "/messageId", contract.RuleSequenceTextMessage, tc, "opens"},
		{"text start, no role, on an input message", in(text(contract.EventTextMessageStart, "u")), 1, "/messageId", contract.RuleSequenceTextMessage, contract.EventTextMessageStart, "opens"},
		{"text, another role", in(named("type", tc, "messageId", "u", "role", "developer", "delta", "x")), 1, "/role", contract.RuleSequenceTextMessage, tc, "opens"},
		{"text, another name", lines(t, run(append(opened, named("type", tc, "messageId", "m", "name", "b", "delta", "x"))...)...), 3, "/name", contract.RuleSequenceTextMessage, tc, "reopens"},
		{"text start, another name", lines(t, run(append(opened, text(contract.EventTextMessageStart, "m", "name", "b"))...)...), 3, "/name", contract.RuleSequenceTextMessage, contract.EventTextMessageStart, "reopens"},
		{"tool, another tool", lines(t, run(append(called, named("type", tool, "toolCallId", "c", "toolCallName", "delete_all", "delta", "{}"))...)...), 3, "/toolCallName", contract.RuleSequenceToolCall, tool, "reopens"},
		{"tool start, another tool", lines(t, run(append(called, toolStart("c", "delete_all"))...)...), 3, "/toolCallName", contract.RuleSequenceToolCall, contract.EventToolCallStart, "reopens"},
		{"tool, answered", lines(t, run(append(answered, named("type", tool, "toolCallId", "c", "toolCallName", "read_file", "delta", "}"))...)...), 5, "/toolCallId", contract.RuleSequenceToolCall, tool, "reopens"},
		{"tool, in a user's message", in(named("type", tool, "toolCallId", "c", "toolCallName", "f", "parentMessageId", "u")), 1, "/parentMessageId", contract.RuleSequenceToolCall, tool, "opens"},
		{"tool start, in a user's message", in(ev{"type": contract.EventToolCallStart, "toolCallId": "c", "toolCallName": "f", "parentMessageId": "u"}), 1, "/parentMessageId", contract.RuleSequenceToolCall, contract.EventToolCallStart, "opens"},
		{"tool start after a text chunk", in(named("type", tc, "messageId", "m", "role", "assistant", "delta", "x"), ev{"type": contract.EventToolCallStart, "toolCallId": "c", "toolCallName": "f", "parentMessageId": "u"}), 2, "/parentMessageId", contract.RuleSequenceToolCall, contract.EventToolCallStart, "opens"},
		{"reasoning, on an input message", in(named("type", contract.EventReasoningMessageChunk, "messageId", "u", "delta", "x")), 1, "/messageId", contract.RuleSequenceReasoning, contract.EventReasoningMessageChunk, "opens"},
		{"reasoning start, on an input message", in(ev{"type": contract.EventReasoningMessageStart, "messageId": "u", "role": "reasoning"}), 1, "/role", contract.RuleSequenceReasoning, contract.EventReasoningMessageStart, "opens"},
		{"text after the run", lines(t, append(run(), named("type", tc, "messageId", "m", "delta", "x"))...), 2, "", contract.RuleSequenceClosedRun, tc, "after"},
	} {
		r := check(t, v11, c.data)
		if r.Accepted || len(r.Findings) == 0 {
			t.Errorf("%s: accepted; want %s at event %d", c.name, c.rule, c.event)
			continue
		}
		f := r.Findings[0]
		if f.Rule != c.rule || f.Event != c.event || f.Pointer != c.ptr {
			t.Errorf("%s: finding %v; want %s at event %d %q", c.name, f, c.rule, c.event, c.ptr)
		}
		if want := c.sent + " " + c.verb + " "; !strings.HasPrefix(f.Message, want) {
			t.Errorf("%s: %q; want it to begin %q", c.name, f.Message, want)
		}
	}
	// The warning of a chunk that continues an input message names it too.
	r := accept(t, v11, in(named("type", tc, "messageId", "u", "role", "user", "delta", "x")))
	if len(r.Warnings) != 1 || !strings.HasPrefix(r.Warnings[0].Message, tc+" continues ") || r.Warnings[0].Event != 1 {
		t.Errorf("warnings %v; want one naming %s at event 1", r.Warnings, tc)
	}
}
