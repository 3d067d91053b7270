package agui

import (
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// A MESSAGES_SNAPSHOT speaks for the kinds of message it holds. As the
// reference client merges it, an activity it does not speak for (it holds
// no activity, and its metadata names no authoritative types, or names
// others) stays in the conversation, and so does a reasoning message
// while it holds none; a message shown already keeps its place. What the
// result shows is what a client shows, and the id of a message kept goes
// on naming it, so a start under another role on it is refused. Before,
// every message the snapshot did not list was dropped and its id was free.
//
//contract:proves ag-ui.sequence.text-message
func TestSnapshotKeepsWhatItDoesNotSpeakFor(t *testing.T) {
	start, end := contract.EventTextMessageStart, contract.EventTextMessageEnd
	activity := func(id, kind string, n int) ev {
		return ev{"type": contract.EventActivitySnapshot, "messageId": id, "activityType": kind, "content": map[string]any{"s": n}}
	}
	user := map[string]any{"id": "u", "role": "user", "content": "q"}
	search := map[string]any{"id": "a2", "role": "activity", "activityType": "SEARCH", "content": map[string]any{}}
	snapshot := func(md any, messages ...any) ev {
		e := ev{"type": contract.EventMessagesSnapshot, "messages": messages}
		if md != nil {
			e["metadata"] = md
		}
		return e
	}
	types := func(list any) any {
		return map[string]any{"@ag-ui/client": map[string]any{"authoritativeActivityTypes": list}}
	}
	plan, other := activity("a1", "PLAN", 1), activity("a3", "SEARCH", 3)
	shownPlan, shownOther := shown{"a1", "activity", "", `{"s":1}`}, shown{"a3", "activity", "", `{"s":3}`}
	shownUser, shownSearch := shown{"u", "user", "q", ""}, shown{"a2", "activity", "", "{}"}
	for _, c := range []struct {
		name   string
		events []ev
		want   []shown
	}{
		{"no activity in the snapshot: kept, in its place", []ev{plan, text(start, "m"), text(end, "m"), snapshot(nil, user)}, []shown{shownPlan, shownUser}},
		{"other metadata: kept", []ev{plan, snapshot(map[string]any{"other": 1}, user)}, []shown{shownPlan, shownUser}},
		{"an activity in the snapshot: replaced", []ev{plan, snapshot(nil, user, search)}, []shown{shownUser, shownSearch}},
		{"the client's metadata without the list: as without it", []ev{plan, snapshot(map[string]any{"@ag-ui/client": map[string]any{"x": 1}}, user, search)}, []shown{shownUser, shownSearch}},
		{"types named: those leave", []ev{plan, other, snapshot(types([]any{"PLAN"}), user)}, []shown{shownOther, shownUser}},
		{"types null: all leave", []ev{plan, other, snapshot(types(nil), user)}, []shown{shownUser}},
		{"a list of no types: all stay", []ev{plan, snapshot(types([]any{}), user, search)}, []shown{shownPlan, shownUser, shownSearch}},
		{"a list that is not of types: all stay", []ev{plan, snapshot(types([]any{1}), user, search)}, []shown{shownPlan, shownUser, shownSearch}},
		{"client metadata null: all stay", []ev{plan, snapshot(map[string]any{"@ag-ui/client": nil}, user, search)}, []shown{shownPlan, shownUser, shownSearch}},
		{"client metadata not an object: all stay", []ev{plan, other, snapshot(map[string]any{"@ag-ui/client": 5}, user, search)}, []shown{shownPlan, shownOther, shownUser, shownSearch}},
		{"the type a delta gave", []ev{plan, {"type": contract.EventActivityDelta, "messageId": "a1", "activityType": "SEARCH", "patch": []any{}}, other, snapshot(types([]any{"SEARCH"}), user)}, []shown{shownUser}},
		{"the type a snapshot gave", []ev{snapshot(nil, search), plan, snapshot(types([]any{"SEARCH"}), user)}, []shown{shownPlan, shownUser}},
		{"reasoning, none in the snapshot: kept", []ev{text(contract.EventReasoningMessageStart, "r1", "role", "reasoning"), text(contract.EventReasoningMessageContent, "r1", "delta", "hm"), text(contract.EventReasoningMessageEnd, "r1"), snapshot(nil, user)},
			[]shown{{"r1", "reasoning", "hm", ""}, shownUser}},
		{"reasoning, some in the snapshot: replaced", []ev{text(contract.EventReasoningMessageStart, "r1", "role", "reasoning"), text(contract.EventReasoningMessageEnd, "r1"), snapshot(nil, user, map[string]any{"id": "r2", "role": "reasoning", "content": "x"})},
			[]shown{shownUser, {"r2", "reasoning", "x", ""}}},
		{"restated in place, new ones after", []ev{text(start, "m"), text(end, "m"), snapshot(nil, user, map[string]any{"id": "m", "role": "assistant", "content": "a"})},
			[]shown{{"m", "assistant", "a", ""}, shownUser}},
	} {
		r := accept(t, v11, lines(t, run(c.events...)...))
		wantMessages(t, c.name, r, c.want...)
		if len(r.Warnings) != 0 {
			t.Errorf("%s: warnings %v", c.name, r.Warnings)
		}
	}

	// The id of a message kept names it still; one that left is free.
	userStart := func(id string) ev { return text(start, id, "role", "user") }
	n := len(run(plan, snapshot(nil, user)))
	reject(t, v11, lines(t, run(plan, snapshot(nil, user), userStart("a1"))...), n-1, "/role", contract.RuleSequenceTextMessage)
	reasoning := []ev{text(contract.EventReasoningMessageStart, "r1", "role", "reasoning"), text(contract.EventReasoningMessageEnd, "r1"), snapshot(nil, user)}
	reject(t, v11, lines(t, run(append(reasoning, userStart("r1"))...)...), len(reasoning)+1, "/role", contract.RuleSequenceTextMessage)
	r := accept(t, v11, lines(t, run(plan, snapshot(nil, user, search), userStart("a1"), text(end, "a1"))...))
	wantMessages(t, "the replaced activity's id, free", r, shownUser, shownSearch, shown{"a1", "user", "", ""})
}

// A snapshot that lists an id twice is ambiguous: a client merging it keeps
// the last of the two where the conversation held the id already, and both
// where it did not, as the reference client does. The result shows the
// same, and a warning names the second listing.
//
//contract:proves ag-ui.sequence.text-message
func TestSnapshotRepeatsAnID(t *testing.T) {
	start, end := contract.EventTextMessageStart, contract.EventTextMessageEnd
	twice := ev{"type": contract.EventMessagesSnapshot, "messages": []any{
		map[string]any{"id": "x", "role": "user", "content": "one"},
		map[string]any{"id": "y", "role": "user", "content": "other"},
		map[string]any{"id": "x", "role": "assistant", "content": "two"},
	}}
	r := accept(t, v11, lines(t, run(text(start, "x", "role", "user"), text(end, "x"), twice)...))
	wantWarnings(t, "an id held already, listed twice", r, "/messages/2", contract.RuleSequenceTextMessage, 3)
	wantMessages(t, "an id held already, listed twice", r, shown{"x", "assistant", "two", ""}, shown{"y", "user", "other", ""})
	if len(r.Warnings) > 0 && !strings.Contains(r.Warnings[0].Message, `"x" again (messages 0 and 2)`) {
		t.Errorf("the warning %q does not name both listings", r.Warnings[0].Message)
	}
	r = accept(t, v11, lines(t, run(twice)...))
	wantWarnings(t, "a new id listed twice", r, "/messages/2", contract.RuleSequenceTextMessage, 1)
	wantMessages(t, "a new id listed twice", r, shown{"x", "user", "one", ""}, shown{"y", "user", "other", ""}, shown{"x", "assistant", "two", ""})
	// Neighbour: each id once, no warning.
	once := ev{"type": contract.EventMessagesSnapshot, "messages": []any{
		map[string]any{"id": "x", "role": "user", "content": "one"},
		map[string]any{"id": "y", "role": "user", "content": "other"},
	}}
	r = accept(t, v11, lines(t, run(once)...))
	wantWarnings(t, "each id once", r, "", "")
}
