package agui

import (
	"encoding/json"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// shown is what a result shows of a message: its id, role and text, and
// its data when it has some.
type shown struct{ id, role, content, data string }

// wantMessages fails unless the result shows exactly these messages.
func wantMessages(t *testing.T, what string, r *Result, want ...shown) {
	t.Helper()
	got := make([]shown, len(r.Messages))
	for i, m := range r.Messages {
		got[i] = shown{m.ID, m.Role, m.Content, string(m.Data)}
	}
	if len(got) != len(want) {
		t.Errorf("%s: shows %+v; want %+v", what, got, want)
		return
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: shows %+v; want %+v", what, got, want)
			return
		}
	}
}

// wantWarnings fails unless the result warns exactly at these events, at
// the pointer under the rule.
func wantWarnings(t *testing.T, what string, r *Result, ptr, rule string, events ...int) {
	t.Helper()
	ok := len(r.Warnings) == len(events)
	for i := 0; ok && i < len(events); i++ {
		w := r.Warnings[i]
		ok = w.Event == events[i] && w.Pointer == ptr && w.Rule == rule
	}
	if !ok {
		t.Errorf("%s: warnings %v; want %s at %s of events %v", what, r.Warnings, rule, ptr, events)
	}
}

// A start with no role states the contract's default, assistant: one that
// reopens another speaker's message is refused, on every path, and what
// the result shows stops before it, so no speaker's text is shown under
// another's role.
//
//contract:proves ag-ui.sequence.text-message
func TestReopenWithoutRole(t *testing.T) {
	start, content, end := contract.EventTextMessageStart, contract.EventTextMessageContent, contract.EventTextMessageEnd
	reopened := func(role string, more ...any) []ev {
		first := text(start, "m")
		if role != "" {
			first["role"] = role
		}
		return run(first, text(content, "m", "delta", "question"), text(end, "m"),
			text(start, "m", more...), text(content, "m", "delta", " agent text"), text(end, "m"))
	}
	for _, p := range []string{stand, v11} {
		// The tester's s1: the agent's text would be shown as the user's.
		r := reject(t, p, lines(t, reopened("user")...), 4, "/messageId", contract.RuleSequenceTextMessage)
		wantMessages(t, p+": user reopened with no role", r, shown{"m", "user", "question", ""})
		if msg := r.Findings[0].Message; !strings.Contains(msg, `no role, which means "assistant", but the conversation holds it as "user"`) || !strings.HasSuffix(msg, "state it") {
			t.Errorf("%s: the finding %q does not say the absent role means assistant, nor to state it", p, msg)
		}
		rejectDirect(t, p, reopened("user"), 4, "/messageId", contract.RuleSequenceTextMessage)
		for _, role := range []string{"developer", "system"} {
			r = reject(t, p, lines(t, reopened(role)...), 4, "/messageId", contract.RuleSequenceTextMessage)
			wantMessages(t, p+": "+role+" reopened with no role", r, shown{"m", role, "question", ""})
		}
		// The same role stated again continues the message.
		r = accept(t, p, lines(t, reopened("user", "role", "user")...))
		wantMessages(t, p+": user reopened as user", r, shown{"m", "user", "question agent text", ""})
		// An assistant's message, opened with or without its role, is
		// continued by a start with none, and by one that states it.
		for _, first := range []string{"", "assistant"} {
			r = accept(t, p, lines(t, reopened(first)...))
			wantMessages(t, p+": assistant reopened with no role", r, shown{"m", "assistant", "question agent text", ""})
			r = accept(t, p, lines(t, reopened(first, "role", "assistant")...))
			wantMessages(t, p+": assistant reopened as assistant", r, shown{"m", "assistant", "question agent text", ""})
			reject(t, p, lines(t, reopened(first, "role", "user")...), 4, "/role", contract.RuleSequenceTextMessage)
		}
	}

	// The tester's q2: a user's message that a snapshot states, reopened by
	// a start with no role, in an event or in a chunk.
	snap := ev{"type": contract.EventMessagesSnapshot, "messages": []any{map[string]any{"id": "u", "role": "user", "content": "transfer 10"}}}
	r := reject(t, v11, lines(t, run(snap, text(start, "u"), text(content, "u", "delta", " to mallory"), text(end, "u"))...), 2, "/messageId", contract.RuleSequenceTextMessage)
	wantMessages(t, "snapshot's user message reopened with no role", r, shown{"u", "user", "transfer 10", ""})
	r = reject(t, v11, lines(t, run(snap, text(contract.EventTextMessageChunk, "u", "delta", " to mallory"))...), 2, "/messageId", contract.RuleSequenceTextMessage)
	wantMessages(t, "snapshot's user message reopened by a chunk", r, shown{"u", "user", "transfer 10", ""})
	r = accept(t, v11, lines(t, run(snap, text(start, "u", "role", "user"), text(content, "u", "delta", " to bob"), text(end, "u"))...))
	wantMessages(t, "snapshot's user message reopened as user", r, shown{"u", "user", "transfer 10 to bob", ""})
}

// A messages snapshot that restates an open message under another role
// put another speaker's message in its place: what the stream sends for
// the open message after it is not shown, and a warning says so, as for a
// snapshot that leaves the open message out.
//
//contract:proves ag-ui.sequence.text-message ag-ui.sequence.reasoning ag-ui.event.messages-snapshot
func TestSnapshotRestatesOpenMessage(t *testing.T) {
	start, content, end := contract.EventTextMessageStart, contract.EventTextMessageContent, contract.EventTextMessageEnd
	rs, rc, re := contract.EventReasoningMessageStart, contract.EventReasoningMessageContent, contract.EventReasoningMessageEnd
	snapshot := func(role string) ev {
		return ev{"type": contract.EventMessagesSnapshot, "messages": []any{map[string]any{"id": "m", "role": role, "content": "hi"}}}
	}
	// The tester's s3: an assistant's message restated as the user's.
	r := accept(t, v11, lines(t, run(text(start, "m", "role", "assistant"), snapshot("user"), text(content, "m", "delta", "X"), text(end, "m"))...))
	wantMessages(t, "assistant restated as user", r, shown{"m", "user", "hi", ""})
	wantWarnings(t, "assistant restated as user", r, "/messageId", contract.RuleSequenceTextMessage, 3)
	if len(r.Warnings) == 1 && !strings.Contains(r.Warnings[0].Message, `"m" is open as "assistant", but a snapshot since it opened restated its id as "user"`) {
		t.Errorf("the warning %q does not name both roles", r.Warnings[0].Message)
	}
	// A user's message restated as the assistant's, and a reasoning
	// message restated as an answer.
	r = accept(t, v11, lines(t, run(text(start, "m", "role", "user"), snapshot("assistant"), text(content, "m", "delta", "X"), text(end, "m"))...))
	wantMessages(t, "user restated as assistant", r, shown{"m", "assistant", "hi", ""})
	wantWarnings(t, "user restated as assistant", r, "/messageId", contract.RuleSequenceTextMessage, 3)
	r = accept(t, v11, lines(t, run(text(rs, "m", "role", "reasoning"), snapshot("assistant"), text(rc, "m", "delta", "X"), text(rc, "m", "delta", "Y"), text(re, "m"))...))
	wantMessages(t, "reasoning restated as assistant", r, shown{"m", "assistant", "hi", ""})
	wantWarnings(t, "reasoning restated as assistant", r, "/messageId", contract.RuleSequenceReasoning, 3, 4)
	// An activity snapshot on the id of an open answer puts an activity in
	// its place just as well.
	activity := ev{"type": contract.EventActivitySnapshot, "messageId": "m", "activityType": "PLAN", "content": map[string]any{"x": 1}}
	r = accept(t, v11, lines(t, run(text(start, "m", "role", "assistant"), activity, text(content, "m", "delta", "X"), text(end, "m"))...))
	wantMessages(t, "assistant replaced by an activity", r, shown{"m", "activity", "", `{"x":1}`})
	// The replacement is said (ag-ui.sequence.activity-snapshot), and so
	// is the content that no longer has a message to go to.
	if w := r.Warnings; len(w) != 2 || w[0].Event != 2 || w[0].Rule != contract.RuleSequenceActivitySnapshot || w[1].Event != 3 || w[1].Rule != contract.RuleSequenceTextMessage || w[1].Pointer != "/messageId" {
		t.Errorf("assistant replaced by an activity: warnings %v; want %s at event 2, %s at event 3", w, contract.RuleSequenceActivitySnapshot, contract.RuleSequenceTextMessage)
	}
	// Restated under its own role, the message goes on.
	r = accept(t, v11, lines(t, run(text(start, "m", "role", "user"), snapshot("user"), text(content, "m", "delta", "X"), text(end, "m"))...))
	wantMessages(t, "user restated as user", r, shown{"m", "user", "hiX", ""})
	wantWarnings(t, "user restated as user", r, "", "")
	r = accept(t, v11, lines(t, run(text(rs, "m", "role", "reasoning"), snapshot("reasoning"), text(rc, "m", "delta", "X"), text(re, "m"))...))
	wantMessages(t, "reasoning restated as reasoning", r, shown{"m", "reasoning", "hiX", ""})
	wantWarnings(t, "reasoning restated as reasoning", r, "", "")
	// Once closed, the message is the snapshot's: a start that keeps its
	// role continues it, one that does not is refused.
	closed := []ev{text(start, "m", "role", "assistant"), snapshot("user"), text(content, "m", "delta", "X"), text(end, "m")}
	r = accept(t, v11, lines(t, run(append(closed, text(start, "m", "role", "user"), text(content, "m", "delta", "!"), text(end, "m"))...)...))
	wantMessages(t, "restated, then reopened as user", r, shown{"m", "user", "hi!", ""})
	reject(t, v11, lines(t, run(append(closed, text(start, "m"), text(end, "m"))...)...), 5, "/messageId", contract.RuleSequenceTextMessage)
}

// A reasoning message is bracketed by ids of its own kind, but it is a
// message of the conversation, where an id names one message: a reasoning
// start on the id of a text message, a user's message or an answer, and a
// text start on a reasoning message's id, are refused, so reasoning is
// never shown as an answer nor an answer as reasoning.
//
//contract:proves ag-ui.sequence.reasoning ag-ui.sequence.text-message
func TestReasoningAndTextShareNoID(t *testing.T) {
	start, content, end := contract.EventTextMessageStart, contract.EventTextMessageContent, contract.EventTextMessageEnd
	rs, rc, re := contract.EventReasoningMessageStart, contract.EventReasoningMessageContent, contract.EventReasoningMessageEnd
	answer := []ev{text(start, "m", "role", "assistant"), text(content, "m", "delta", "hello"), text(end, "m")}
	thought := []ev{text(rs, "m", "role", "reasoning"), text(rc, "m", "delta", "thought"), text(re, "m")}
	then := func(first []ev, more ...ev) []byte {
		return lines(t, run(append(append([]ev{}, first...), more...)...)...)
	}

	// r1: reasoning after the answer of the same id.
	r := reject(t, v11, then(answer, text(rs, "m", "role", "reasoning"), text(rc, "m", "delta", "secret thought"), text(re, "m")), 4, "/role", contract.RuleSequenceReasoning)
	wantMessages(t, "reasoning on an answer's id", r, shown{"m", "assistant", "hello", ""})
	// r2: the answer after reasoning of the same id, with no role or with one.
	r = reject(t, v11, then(thought, text(start, "m"), text(content, "m", "delta", "visible answer"), text(end, "m")), 4, "/messageId", contract.RuleSequenceTextMessage)
	wantMessages(t, "answer on a reasoning id", r, shown{"m", "reasoning", "thought", ""})
	reject(t, v11, then(thought, text(start, "m", "role", "assistant"), text(end, "m")), 4, "/role", contract.RuleSequenceTextMessage)
	// r3: both open at once.
	r = reject(t, v11, lines(t, run(text(start, "m", "role", "assistant"), text(rs, "m", "role", "reasoning"), text(rc, "m", "delta", "X"),
		text(content, "m", "delta", "Y"), text(re, "m"), text(end, "m"))...), 2, "/role", contract.RuleSequenceReasoning)
	wantMessages(t, "reasoning while an answer of its id is open", r, shown{"m", "assistant", "", ""})
	reject(t, v11, lines(t, run(text(rs, "m", "role", "reasoning"), text(start, "m"), text(end, "m"), text(re, "m"))...), 2, "/messageId", contract.RuleSequenceTextMessage)
	// q1: reasoning on the id of a user's message a snapshot states.
	snap := ev{"type": contract.EventMessagesSnapshot, "messages": []any{map[string]any{"id": "u", "role": "user", "content": "transfer 10"}}}
	r = reject(t, v11, lines(t, run(snap, text(rs, "u", "role", "reasoning"), text(rc, "u", "delta", " to mallory"), text(re, "u"))...), 2, "/role", contract.RuleSequenceReasoning)
	wantMessages(t, "reasoning on a user's id", r, shown{"u", "user", "transfer 10", ""})

	// Neighbours: a reasoning message reopened as reasoning continues it,
	// one a snapshot states included; a reasoning span may share the id
	// of the answer it precedes (a span is not a message); distinct ids
	// are two messages.
	r = accept(t, v11, then(thought, text(rs, "m", "role", "reasoning"), text(rc, "m", "delta", " more"), text(re, "m")))
	wantMessages(t, "reasoning reopened", r, shown{"m", "reasoning", "thought more", ""})
	snapR := ev{"type": contract.EventMessagesSnapshot, "messages": []any{map[string]any{"id": "x", "role": "reasoning", "content": "a"}}}
	r = accept(t, v11, lines(t, run(snapR, text(rs, "x", "role", "reasoning"), text(rc, "x", "delta", "b"), text(re, "x"))...))
	wantMessages(t, "snapshot's reasoning reopened", r, shown{"x", "reasoning", "ab", ""})
	r = accept(t, v11, lines(t, run(text(contract.EventReasoningStart, "m"), text(contract.EventReasoningEnd, "m"), answer[0], answer[1], answer[2])...))
	wantMessages(t, "a span and an answer of one id", r, shown{"m", "assistant", "hello", ""})
	r = accept(t, v11, then(answer, text(rs, "n", "role", "reasoning"), text(rc, "n", "delta", "thought"), text(re, "n")))
	wantMessages(t, "distinct ids", r, shown{"m", "assistant", "hello", ""}, shown{"n", "reasoning", "thought", ""})
}

// A name a messages snapshot gives a message is the message's name: a
// start that reopens it with another is refused, as one that reopens a
// message opened with a name; a snapshot that gives none leaves the
// message without a name.
//
//contract:proves ag-ui.sequence.text-message ag-ui.event.messages-snapshot
func TestSnapshotNameKept(t *testing.T) {
	start, content, end := contract.EventTextMessageStart, contract.EventTextMessageContent, contract.EventTextMessageEnd
	snapshot := func(role string, name ...string) ev {
		m := map[string]any{"id": "m", "role": role, "content": "hi"}
		if len(name) > 0 {
			m["name"] = name[0]
		}
		return ev{"type": contract.EventMessagesSnapshot, "messages": []any{m}}
	}
	reopen := func(snap ev, role string, more ...any) []byte {
		return lines(t, run(snap, text(start, "m", append([]any{"role", role}, more...)...), text(content, "m", "delta", "X"), text(end, "m"))...)
	}
	// The tester's s4.
	r := reject(t, v11, reopen(snapshot("assistant", "alice"), "assistant", "name", "bob"), 2, "/name", contract.RuleSequenceTextMessage)
	wantMessages(t, "alice renamed bob", r, shown{"m", "assistant", "hi", ""})
	reject(t, v11, reopen(snapshot("assistant"), "assistant", "name", "bob"), 2, "/name", contract.RuleSequenceTextMessage)
	reject(t, v11, reopen(snapshot("user", "carol"), "user", "name", "dave"), 2, "/name", contract.RuleSequenceTextMessage)
	for _, c := range []struct {
		what string
		snap ev
		role string
		more []any
	}{
		{"the same name", snapshot("assistant", "alice"), "assistant", []any{"name", "alice"}},
		{"no name stated", snapshot("assistant", "alice"), "assistant", nil},
		{"no name at all", snapshot("assistant"), "assistant", nil},
		{"a user's name", snapshot("user", "carol"), "user", []any{"name", "carol"}},
		{"a developer's name", snapshot("developer", "ops"), "developer", []any{"name", "ops"}},
		{"a system name", snapshot("system", "sys"), "system", []any{"name", "sys"}},
	} {
		r := accept(t, v11, reopen(c.snap, c.role, c.more...))
		wantMessages(t, c.what, r, shown{"m", c.role, "hiX", ""})
	}
}

// An ACTIVITY_DELTA patches an activity message only: a message of any
// other role is left as it was, with a warning, whether its content is
// text or data (a user's or a tool's content with parts), as the
// reference client skips a delta whose target is not an activity.
//
//contract:proves ag-ui.sequence.activity-delta
func TestActivityDeltaTargetsActivities(t *testing.T) {
	delta := func(id, path string) ev {
		return ev{"type": contract.EventActivityDelta, "messageId": id, "activityType": "PLAN",
			"patch": []any{ev{"op": "replace", "path": path, "value": "pay 1000"}}}
	}
	const partsJSON = `[{"type":"text","text":"pay 10"}]`
	parts := json.RawMessage(partsJSON)
	snapshot := func(msgs ...map[string]any) ev {
		list := make([]any, len(msgs))
		for i, m := range msgs {
			list[i] = m
		}
		return ev{"type": contract.EventMessagesSnapshot, "messages": list}
	}
	// The tester's a3: a user's content with parts.
	r := accept(t, v11, lines(t, run(snapshot(map[string]any{"id": "u", "role": "user", "content": parts}), delta("u", "/0/text"))...))
	wantMessages(t, "user's parts", r, shown{"u", "user", "", partsJSON})
	wantWarnings(t, "user's parts", r, "/messageId", contract.RuleSequenceActivityDelta, 2)
	// A tool's content with parts, a user's text and an assistant's text.
	r = accept(t, v11, lines(t, run(snapshot(map[string]any{"id": "t", "role": "tool", "toolCallId": "c", "content": parts}), delta("t", "/0/text"))...))
	wantMessages(t, "tool's parts", r, shown{"t", "tool", "", partsJSON})
	wantWarnings(t, "tool's parts", r, "/messageId", contract.RuleSequenceActivityDelta, 2)
	r = accept(t, v11, lines(t, run(snapshot(map[string]any{"id": "u", "role": "user", "content": "pay 10"}), delta("u", ""))...))
	wantMessages(t, "user's text", r, shown{"u", "user", "pay 10", ""})
	wantWarnings(t, "user's text", r, "/messageId", contract.RuleSequenceActivityDelta, 2)
	r = accept(t, v11, lines(t, run(text(contract.EventTextMessageStart, "m"), text(contract.EventTextMessageEnd, "m"), delta("m", ""))...))
	wantMessages(t, "assistant's text", r, shown{"m", "assistant", "", ""})
	wantWarnings(t, "assistant's text", r, "/messageId", contract.RuleSequenceActivityDelta, 3)
	// An activity is patched, whether an activity snapshot or a messages
	// snapshot stated it.
	plan := map[string]any{"id": "a", "role": "activity", "activityType": "PLAN", "content": map[string]any{"step": "pay 10"}}
	r = accept(t, v11, lines(t, run(snapshot(plan), delta("a", "/step"))...))
	wantMessages(t, "activity in a snapshot", r, shown{"a", "activity", "", `{"step":"pay 1000"}`})
	wantWarnings(t, "activity in a snapshot", r, "", "")
	r = accept(t, v11, lines(t, run(ev{"type": contract.EventActivitySnapshot, "messageId": "a", "activityType": "PLAN", "content": map[string]any{"step": "pay 10"}}, delta("a", "/step"))...))
	wantMessages(t, "activity", r, shown{"a", "activity", "", `{"step":"pay 1000"}`})
	wantWarnings(t, "activity", r, "", "")
}

// planSnapshot is an ACTIVITY_SNAPSHOT of a PLAN activity on id, with
// replace when it is not nil.
func planSnapshot(id string, replace any) ev {
	e := ev{"type": contract.EventActivitySnapshot, "messageId": id, "activityType": "PLAN", "content": map[string]any{"x": 1}}
	if replace != nil {
		e["replace"] = replace
	}
	return e
}

// An ACTIVITY_SNAPSHOT on the id of a message that is not an activity
// puts the activity in its place, as the reference client does, and says
// which message it replaced; with replace false it changes nothing and
// says the activity is not shown. On an activity, neither warns. Before,
// a user's or the agent's message turned into an activity in silence.
//
//contract:proves ag-ui.sequence.activity-snapshot
func TestActivitySnapshotOverAMessage(t *testing.T) {
	activity := planSnapshot
	user := ev{"type": contract.EventMessagesSnapshot, "messages": []any{map[string]any{"id": "u", "role": "user", "content": "pay 10"}}}
	assistant := []ev{text(contract.EventTextMessageStart, "m"), text(contract.EventTextMessageContent, "m", "delta", "hello"), text(contract.EventTextMessageEnd, "m")}

	// The tester's a1: the agent's message, replaced (replace absent).
	r := accept(t, v11, lines(t, run(append(assistant, activity("m", nil))...)...))
	wantMessages(t, "assistant's message", r, shown{"m", "activity", "", `{"x":1}`})
	wantWarnings(t, "assistant's message", r, "/messageId", contract.RuleSequenceActivitySnapshot, 4)
	if len(r.Warnings) == 1 && !strings.Contains(r.Warnings[0].Message, `of role "assistant"`) {
		t.Errorf("the warning %q does not name the role of the message it replaced", r.Warnings[0].Message)
	}
	// A user's message, replace true, then replace false.
	r = accept(t, v11, lines(t, run(user, activity("u", true))...))
	wantMessages(t, "user's message", r, shown{"u", "activity", "", `{"x":1}`})
	wantWarnings(t, "user's message", r, "/messageId", contract.RuleSequenceActivitySnapshot, 2)
	if len(r.Warnings) == 1 && !strings.Contains(r.Warnings[0].Message, `of role "user", which is no longer shown`) {
		t.Errorf("the warning %q does not say the user's message is no longer shown", r.Warnings[0].Message)
	}
	r = accept(t, v11, lines(t, run(user, activity("u", false))...))
	wantMessages(t, "user's message, replace false", r, shown{"u", "user", "pay 10", ""})
	wantWarnings(t, "user's message, replace false", r, "/messageId", contract.RuleSequenceActivitySnapshot, 2)
	if len(r.Warnings) == 1 && !strings.Contains(r.Warnings[0].Message, `of role "user", not an activity, and replace is false: the activity is not shown`) {
		t.Errorf("the warning %q does not say the activity is not shown", r.Warnings[0].Message)
	}
	// Neighbours: a new activity, and an activity replaced by another,
	// draw no warning.
	r = accept(t, v11, lines(t, run(activity("a", nil), activity("a", true), activity("a", false))...))
	wantMessages(t, "an activity", r, shown{"a", "activity", "", `{"x":1}`})
	wantWarnings(t, "an activity", r, "/messageId", contract.RuleSequenceActivitySnapshot)
}
