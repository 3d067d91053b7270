package agui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// The conversation a result shows is in the reference client's order,
// though the client holds messages the result does not show: the
// assistant message a tool call opens (shown at the call once its text
// comes), the tool message of a result beside its call (after the
// message holding the call, and the results before it), and the run's
// input (kept in its place by a messages snapshot that lists it). Each
// record is in testdata/diff, where TestDifferentialOrder runs it through
// the reference too; the messages wanted here are the reference's final
// list (node verify.mjs apply) less the ones the result shows elsewhere
// or not at all. Before, each message the result showed was placed where
// the result first showed it, and a snapshot merged over the shown ones
// alone: every case here came out in another order but three neighbours
// (a call in a message shown before, results after their calls, a second
// result), which guard what was right. On every path: bytes, values, a
// live stream.
//
//contract:proves ag-ui.sequence.text-message ag-ui.sequence.tool-result ag-ui.event.messages-snapshot
func TestConversationOrder(t *testing.T) {
	assistant := func(id, text string) shown { return shown{id, "assistant", text, ""} }
	for _, c := range []struct {
		record string
		want   []shown
	}{
		// Case 1: a call opens its parent a1; m2 comes; then a1's text.
		{"order-call-parent-then-text.ndjson", []shown{assistant("a1", "first"), assistant("m2", "second")}},
		{"order-call-parent-result-then-text.ndjson", []shown{assistant("a1", "first"), assistant("m2", "second")}},
		{"order-parentless-call-then-text.ndjson", []shown{assistant("c1", "first"), assistant("m2", "second")}},
		{"order-call-in-earlier-message.ndjson", []shown{assistant("a1", "first"), assistant("m2", "second")}},
		{"order-results-after-their-call.ndjson", []shown{assistant("a1", "first"), assistant("m2", "second")}},
		// A result under its call's parent's id does not take the id: a
		// later call under that parent is held by the assistant message,
		// and opens none (c2's text then comes last, where it is sent).
		{"order-parent-named-by-result-too.ndjson", []shown{assistant("a1", "first"), assistant("m2", "second"), assistant("m3", "third"), assistant("c2", "late")}},
		// A second result is a tool message of its own, after the first.
		{"order-second-result-after-call.ndjson", []shown{{"tm2", "tool", "two", ""}, assistant("m2", "after")}},
		// A start of a call a message of the input holds opens no message
		// under its parent, which an activity may take.
		{"order-held-call-opens-none.ndjson", []shown{{"b", "activity", "", `{"n":1}`}}},
		// A call whose message an activity replaced is held by none: its
		// start opens one, under its own id.
		{"order-call-of-replaced-message.ndjson", []shown{{"a", "activity", "", `{"n":1}`}, assistant("k1", "first"), assistant("m", "after")}},
		// A call reopened after a snapshot dropped its message opens one
		// again, under its own id, where the text then goes.
		{"order-reopened-call-after-snapshot.ndjson", []shown{{"u", "user", "hi", ""}, assistant("k1", "first"), assistant("m", "after")}},
		// Case 2: a messages snapshot over the whole conversation.
		{"order-snapshot-lists-input.ndjson", []shown{{"u", "user", "hi", ""}, assistant("a", "hello")}},
		{"order-snapshot-lists-input-reordered.ndjson", []shown{{"u1", "user", "one", ""}, {"u2", "user", "two", ""}, assistant("a", "hello"), {"n", "user", "new", ""}}},
		{"order-snapshot-lists-spliced-result.ndjson", []shown{assistant("a1", "calling"), {"tm", "tool", "done", ""}, assistant("m2", "after")}},
		{"order-snapshot-lists-call-message.ndjson", []shown{assistant("a1", ""), assistant("m2", "after")}},
		{"order-snapshot-keeps-input-activity-replaced.ndjson", []shown{{"plan", "activity", "", `{"steps":["write"]}`}, assistant("a", "hello")}},
		// Unless its metadata names the input activity's type: it leaves,
		// and the activity under its id comes last.
		{"order-snapshot-drops-input-activity-named.ndjson", []shown{assistant("a", "hello"), {"plan", "activity", "", `{"steps":["write"]}`}}},
		// An id a snapshot lists twice names the first message listed:
		// an activity replaces it, a start continues it.
		{"order-snapshot-repeats-id-activity.ndjson", []shown{{"x", "activity", "", `{"n":1}`}, assistant("x", "two")}},
		{"order-snapshot-repeats-id-text.ndjson", []shown{assistant("x", "one+more"), assistant("x", "two")}},
		// So does it once a later snapshot keeps both.
		{"order-snapshot-keeps-repeated-id.ndjson", []shown{{"b", "activity", "", `{"n":1}`}, {"b", "reasoning", "two", ""}, {"u", "user", "hi", ""}}},
		// The reference appends " more" to the input's "thinking"; the
		// result shows what the record sends, and warns.
		{"order-snapshot-keeps-input-reasoning.ndjson", []shown{{"th", "reasoning", " more", ""}, assistant("a", "hello")}},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "diff", c.record))
		if err != nil {
			t.Fatal(err)
		}
		wantMessages(t, c.record, accept(t, v11, data), c.want...)
		wantMessages(t, c.record+" as a stream", sameAsFile(t, c.record, v11, eventTexts(t, data)), c.want...)
		var events []ev
		for _, line := range eventTexts(t, data) {
			var e ev
			if err := json.Unmarshal(line, &e); err != nil {
				t.Fatalf("%s: %v", c.record, err)
			}
			events = append(events, e)
		}
		wantMessages(t, c.record+" as values", checkDirect(t, v11, events), c.want...)
	}
}

// A messages snapshot that does not list an activity or a reasoning
// message of the run's input keeps it, as it keeps one the record
// streamed (see TestSnapshotKeepsWhatItDoesNotSpeakFor): the result does
// not show it, but its id goes on naming it, so a start under another
// role is refused. Before, the snapshot freed the id, and the user's text
// was shown under it while the reference skips it. A snapshot that speaks
// for it drops it, and frees the id.
//
//contract:proves ag-ui.sequence.text-message ag-ui.event.messages-snapshot
func TestSnapshotKeepsUnshownInput(t *testing.T) {
	start, end := contract.EventTextMessageStart, contract.EventTextMessageEnd
	input := func(messages ...any) ev {
		return ev{"type": contract.EventRunStarted, "threadId": "t", "runId": "r", "input": map[string]any{
			"threadId": "t", "runId": "r", "messages": messages, "tools": []any{}, "context": []any{}, "state": map[string]any{}, "forwardedProps": map[string]any{}}}
	}
	finished := ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r"}
	plan := map[string]any{"id": "plan", "role": "activity", "activityType": "PLAN", "content": map[string]any{"steps": []any{"read"}}}
	thought := map[string]any{"id": "th", "role": "reasoning", "content": "thinking"}
	a := map[string]any{"id": "a", "role": "assistant", "content": "hello"}
	search := map[string]any{"id": "s", "role": "activity", "activityType": "SEARCH", "content": map[string]any{}}
	snapshot := func(messages ...any) ev { return ev{"type": contract.EventMessagesSnapshot, "messages": messages} }
	userStart := func(id string) ev { return text(start, id, "role", "user") }

	// Kept: a user's start on the id is refused, at the start's role.
	reject(t, v11, lines(t, input(plan), snapshot(a), userStart("plan"), text(end, "plan"), finished), 2, "/role", contract.RuleSequenceTextMessage)
	reject(t, v11, lines(t, input(thought), snapshot(a), userStart("th"), text(end, "th"), finished), 2, "/role", contract.RuleSequenceTextMessage)
	// Kept beside an input message the snapshot lists: still under its
	// own role, not the listed one's.
	reject(t, v11, lines(t, input(a, thought), snapshot(a), text(start, "th", "role", "assistant"), text(end, "th"), finished), 2, "/role", contract.RuleSequenceTextMessage)
	// Not kept: a snapshot holding an activity speaks for every activity,
	// one holding a reasoning message for every reasoning message.
	r := accept(t, v11, lines(t, input(plan), snapshot(a, search), userStart("plan"), text(end, "plan"), finished))
	wantMessages(t, "an activity of the input, dropped", r, shown{"a", "assistant", "hello", ""}, shown{"s", "activity", "", "{}"}, shown{"plan", "user", "", ""})
	r = accept(t, v11, lines(t, input(thought), snapshot(a, map[string]any{"id": "r2", "role": "reasoning", "content": "x"}), userStart("th"), text(end, "th"), finished))
	wantMessages(t, "a reasoning message of the input, dropped", r, shown{"a", "assistant", "hello", ""}, shown{"r2", "reasoning", "x", ""}, shown{"th", "user", "", ""})
}

// The longest walk placing a result makes: one message holds every call,
// each call is answered twice, and a message comes between the calls and
// their results. Each second result, a tool message of its own, goes
// after the message holding its call, stepping over every result placed
// there before it: n calls cost about n²/2 steps, within the event limit.
// The tool messages stay in the order they came, before the message
// streamed after the calls, as in the reference client.
func TestResultsOfOneMessageInOrder(t *testing.T) {
	start, content, end := contract.EventTextMessageStart, contract.EventTextMessageContent, contract.EventTextMessageEnd
	events := []ev{text(start, "a", "role", "assistant"), text(content, "a", "delta", "calling"), text(end, "a")}
	want := []shown{{"a", "assistant", "calling", ""}}
	n := (contract.LimitEvents - 8) / 4
	for k := 0; k < n; k++ {
		call := fmt.Sprintf("c%d", k)
		events = append(events,
			ev{"type": contract.EventToolCallStart, "toolCallId": call, "toolCallName": "f", "parentMessageId": "a"},
			ev{"type": contract.EventToolCallEnd, "toolCallId": call})
	}
	events = append(events, text(start, "m", "role", "assistant"), text(content, "m", "delta", "meanwhile"), text(end, "m"))
	for k := 0; k < n; k++ {
		call := fmt.Sprintf("c%d", k)
		events = append(events,
			ev{"type": contract.EventToolCallResult, "messageId": call + "-1", "toolCallId": call, "content": "one"},
			ev{"type": contract.EventToolCallResult, "messageId": call + "-2", "toolCallId": call, "content": "two"})
		want = append(want, shown{call + "-2", "tool", "two", ""})
	}
	want = append(want, shown{"m", "assistant", "meanwhile", ""})
	if len(run(events...)) > contract.LimitEvents {
		t.Fatalf("%d events, past the stand's limit the record was meant to stay within", len(run(events...)))
	}
	wantMessages(t, "results of one message", accept(t, v11, lines(t, run(events...)...)), want...)
}
