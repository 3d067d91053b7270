package agui

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// The sequence checker keeps two lifetimes for an id (see idTable): whether
// it is open and who owns it hold for one run; its place in the result and
// the name it was opened with hold for the record, until a messages
// snapshot restates the messages. These records reuse ids across runs and
// around snapshots to hold each fact to its lifetime.
func TestIDLifetimes(t *testing.T) {
	start, content, end := contract.EventTextMessageStart, contract.EventTextMessageContent, contract.EventTextMessageEnd
	errEv := ev{"type": contract.EventRunError, "message": "boom"}
	tag := func(e ev, sub string) ev { e["subagentRunId"] = sub; return e }
	var events []ev
	runs := func(rs ...[]ev) []byte {
		events = nil
		for _, r := range rs {
			events = append(events, r...)
		}
		return lines(t, events...)
	}

	// An open message does not outlive its run: after RUN_ERROR the next
	// run may open the id again, and may not continue it unopened.
	r := accept(t, v11, runs([]ev{started(), text(start, "m"), text(content, "m", "delta", "a"), errEv},
		run(text(start, "m"), text(content, "m", "delta", "b"), text(end, "m"))))
	if len(r.Messages) != 1 || r.Messages[0].Content != "ab" || !r.Messages[0].Complete {
		t.Errorf("reopened in a new run: messages %+v", r.Messages)
	}
	reject(t, v11, runs([]ev{started(), text(start, "m"), errEv}, run(text(content, "m", "delta", "b"))), 4, "/messageId", contract.RuleSequenceTextMessage)
	call := ev{"type": contract.EventToolCallStart, "toolCallId": "c", "toolCallName": "f"}
	reject(t, v11, runs([]ev{started(), call, errEv}, run(ev{"type": contract.EventToolCallEnd, "toolCallId": "c"})), 4, "/toolCallId", contract.RuleSequenceToolCall)
	reject(t, v11, runs([]ev{started(), text(contract.EventReasoningStart, "x"), errEv}, run(text(contract.EventReasoningEnd, "x"))), 4, "/messageId", contract.RuleSequenceReasoning)
	// What was open in a failed run is not listed when the next finishes.
	accept(t, v11, runs([]ev{started(), text(start, "m"), call, text(contract.EventReasoningStart, "x"),
		text(contract.EventReasoningMessageStart, "y", "role", "reasoning"), errEv}, run()))

	// The place in the result and the name outlive the run: a later run
	// extends the same message, and may not rename it.
	reject(t, v11, runs(run(text(start, "m", "name", "bot"), text(end, "m")), run(text(start, "m", "name", "other"), text(end, "m"))),
		5, "/name", contract.RuleSequenceTextMessage)
	r = accept(t, v11, runs(run(text(start, "m", "name", "bot"), text(content, "m", "delta", "a"), text(end, "m")),
		run(text(start, "n"), text(end, "n"), text(start, "m", "name", "bot"), text(content, "m", "delta", "b"), text(end, "m"))))
	if len(r.Messages) != 2 || r.Messages[0].ID != "m" || r.Messages[0].Content != "ab" || r.Messages[1].ID != "n" {
		t.Errorf("message across runs: %+v", r.Messages)
	}

	// A snapshot restates the messages: the name a message was opened with
	// gives way to the one the snapshot states, and an id it left out
	// opens a message of its own at the end, under any name.
	snap := ev{"type": contract.EventMessagesSnapshot, "messages": []any{map[string]any{"id": "m", "role": "assistant", "content": "a", "name": "other"}}}
	r = accept(t, v11, runs(run(text(start, "n", "name", "x"), text(end, "n"), text(start, "m", "name", "bot"), text(end, "m"), snap,
		text(start, "m", "name", "other"), text(content, "m", "delta", "b"), text(end, "m"),
		text(start, "n", "name", "y"), text(content, "n", "delta", "c"), text(end, "n"))))
	if len(r.Messages) != 2 || r.Messages[0].ID != "m" || r.Messages[0].Content != "ab" || r.Messages[1].ID != "n" || r.Messages[1].Content != "c" {
		t.Errorf("after a snapshot: messages %+v", r.Messages)
	}
	reject(t, v11, runs(run(text(start, "m", "name", "bot"), text(end, "m"), snap, text(start, "m", "name", "bot"), text(end, "m"))), 4, "/name", contract.RuleSequenceTextMessage)
	// A tool call's place holds for the record: a snapshot does not
	// restate it, nor does a new run.
	endC := ev{"type": contract.EventToolCallEnd, "toolCallId": "c"}
	r = accept(t, v11, runs(run(call, ev{"type": contract.EventToolCallArgs, "toolCallId": "c", "delta": "{"}, endC, snap),
		run(call, ev{"type": contract.EventToolCallArgs, "toolCallId": "c", "delta": "}"}, endC)))
	if len(r.ToolCalls) != 1 || r.ToolCalls[0].Arguments != "{}" {
		t.Errorf("tool call across runs and a snapshot: %+v", r.ToolCalls)
	}

	// Owners hold for one run: another run may give the id to another
	// agent, the same run may not.
	accept(t, v11, runs(run(tag(text(start, "m"), "s1"), text(end, "m")), run(tag(text(start, "m"), "s2"), text(end, "m"))))
	reject(t, v11, runs(run(tag(text(start, "m"), "s1"), text(end, "m"), tag(text(start, "m"), "s2"))), 3, "/subagentRunId", contract.RuleSequenceAttribution)
	accept(t, v11, runs(run(tag(call, "s1"), endC), run(tag(call, "s2"), endC)))
	// A reasoning span and its message share their owner, in one run only.
	rs, re := contract.EventReasoningStart, contract.EventReasoningEnd
	ms, me := contract.EventReasoningMessageStart, contract.EventReasoningMessageEnd
	reject(t, v11, runs(run(tag(text(rs, "x"), "s1"), tag(text(ms, "x", "role", "reasoning"), "s2"))), 2, "/subagentRunId", contract.RuleSequenceAttribution)
	accept(t, v11, runs(run(tag(text(rs, "x"), "s1"), text(re, "x")), run(tag(text(ms, "x", "role", "reasoning"), "s2"), text(me, "x"))))
	// A snapshot's owners are the run's: they bind what follows in it.
	tagged := ev{"type": contract.EventMessagesSnapshot, "messages": []any{map[string]any{"id": "m", "role": "assistant", "content": "a", "subagentRunId": "s1"}}}
	reject(t, v11, runs(run(tagged, tag(text(start, "m"), "s2"))), 2, "/subagentRunId", contract.RuleSequenceAttribution)
	accept(t, v11, runs(run(tagged), run(tag(text(start, "m"), "s2"), text(end, "m"))))
}

// An entry's record facts share one generation: a messages snapshot
// (newRecord) forgets all of them at once, and setting one of them
// afterwards brings none of the others back. The checker reads an id's
// place before the message it names unlisted, so a stale unlisted message
// revived by setIndex would be hidden behind the place today; held here,
// the table keeps its word whatever reads it.
func TestRecordFactsShareTheirGeneration(t *testing.T) {
	type facts struct {
		index, answered, unlisted bool
		name                      msgName
	}
	read := func(tab *idTable, e *idEntry) facts {
		_, listed := tab.indexOf(e)
		_, held := tab.unlistedOf(e)
		return facts{listed, tab.isAnswered(e), held, tab.nameOf(e)}
	}
	named := msgName{name: "bot", set: true, known: true}
	for _, c := range []struct {
		what string
		set  func(*idTable, *idEntry)
		want facts
	}{
		{"place", func(tab *idTable, e *idEntry) { tab.setIndex(e, 0) }, facts{index: true}},
		{"name", func(tab *idTable, e *idEntry) { tab.setName(e, named) }, facts{name: named}},
		{"answered", func(tab *idTable, e *idEntry) { tab.setAnswered(e) }, facts{answered: true}},
		{"unlisted", func(tab *idTable, e *idEntry) { tab.setUnlisted(e, unlisted{role: "tool", call: "c"}) }, facts{unlisted: true}},
	} {
		var tab idTable
		e := tab.entry("u")
		tab.setIndex(e, 3)
		tab.setName(e, msgName{name: "old", set: true, known: true})
		tab.setAnswered(e)
		tab.setUnlisted(e, unlisted{role: "user"})
		tab.newRecord()
		if got := read(&tab, e); got != (facts{}) {
			t.Errorf("after newRecord: %+v; want none", got)
		}
		c.set(&tab, e)
		if got := read(&tab, e); got != c.want {
			t.Errorf("%s set after newRecord: %+v; want %+v", c.what, got, c.want)
		}
	}
}

// RUN_FINISHED names everything still open, of every kind, and only that;
// a span and a reasoning message of one id are two entities.
func TestFinishListsOpen(t *testing.T) {
	call := ev{"type": contract.EventToolCallStart, "toolCallId": "c", "toolCallName": "f"}
	r := reject(t, v11, lines(t, run(text(contract.EventTextMessageStart, "m"), text(contract.EventTextMessageStart, "done"), text(contract.EventTextMessageEnd, "done"),
		call, text(contract.EventReasoningStart, "x"), text(contract.EventReasoningMessageStart, "x", "role", "reasoning"),
		text(contract.EventReasoningStart, "y"), ev{"type": contract.EventStepStarted, "stepName": "s"})...), 9, "", contract.RuleSequenceFinishClosesAll)
	want := `RUN_FINISHED while these are still open: reasoning message "x", reasoning span "x", reasoning span "y", step "s" of the parent agent, text message "m", tool call "c"`
	if got := r.Findings[0].Message; got != want {
		t.Errorf("finding %q\nwant    %q", got, want)
	}
}

// Stream.Open counts what is open now, each entity once, and nothing of a
// run that ended.
func TestStreamOpen(t *testing.T) {
	s, err := NewStream(Options{Profile: v11, Source: t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	sub := ev{"type": contract.EventToolCallStart, "toolCallId": "c", "toolCallName": "f", "subagentRunId": "s1"}
	for _, step := range []struct {
		e    ev
		open int
	}{
		{started(), 0},
		{text(contract.EventTextMessageStart, "m"), 1},
		{text(contract.EventReasoningStart, "m"), 2},
		{text(contract.EventReasoningMessageStart, "r", "role", "reasoning"), 3},
		{ev{"type": contract.EventStepStarted, "stepName": "s"}, 4},
		{ev{"type": contract.EventStepStarted, "stepName": "s", "subagentRunId": "s1"}, 5},
		{sub, 6},
		{text(contract.EventTextMessageEnd, "m"), 5},
		{text(contract.EventTextMessageEnd, "m"), 5}, // refused: closes nothing
	} {
		s.Event(encode(t, step.e))
		if got := s.Open(); got != step.open {
			t.Fatalf("after %v: Open() = %d, want %d", step.e, got, step.open)
		}
	}
	s2, _ := NewStream(Options{Profile: v11, Source: t.Name()})
	for _, e := range []ev{started(), text(contract.EventTextMessageStart, "m"), {"type": contract.EventRunError, "message": "x"}, started()} {
		s2.Event(encode(t, e))
	}
	if got := s2.Open(); got != 0 {
		t.Errorf("a new run: Open() = %d, want 0", got)
	}
	s2.Event(encode(t, text(contract.EventTextMessageStart, "m")))
	if got := s2.Open(); got != 1 {
		t.Errorf("reopened in the new run: Open() = %d, want 1", got)
	}
	for _, st := range []*Stream{s, s2} {
		if _, err := st.End(); err != nil {
			t.Fatal(err)
		}
	}
}

// A pooled table carries nothing from one record into the next: a record
// checked after another gets the result it gets with fresh tables, and
// the table given back holds none of the record's ids.
func TestPooledTables(t *testing.T) {
	shared := new(seqTables)
	// Every Get returns the same tables, whether the pool kept them or
	// not, once the tables earlier checks gave back are taken out.
	saved := tablePool.New
	tablePool.New = func() any { return shared }
	defer func() { tablePool.New = saved }()
	for tablePool.Get() != shared {
	}
	start, content, end := contract.EventTextMessageStart, contract.EventTextMessageContent, contract.EventTextMessageEnd
	call := func(id, name string) ev {
		return ev{"type": contract.EventToolCallStart, "toolCallId": id, "toolCallName": name}
	}
	endC := func(id string) ev { return ev{"type": contract.EventToolCallEnd, "toolCallId": id} }
	first := lines(t, run(text(start, "a"), text(end, "a"), text(start, "b"), text(end, "b"), text(start, "m", "name", "bot", "subagentRunId", "s1"),
		text(content, "m", "delta", "x"), text(end, "m"), call("c", "g"), endC("c"), text(start, "open"))...)
	second := lines(t, run(text(start, "m", "name", "other", "subagentRunId", "s2"), text(content, "m", "delta", "y"), text(end, "m"),
		call("c", "f"), endC("c"), text(start, "open"), text(end, "open"))...)
	fresh := accept(t, v11, second)
	for range 3 {
		reject(t, v11, first, 11, "", contract.RuleSequenceFinishClosesAll)
		for _, tab := range []*idTable{&shared.msgs, &shared.tools} {
			if len(tab.at) != 0 || len(tab.entries) != 0 || tab.run != 0 || tab.gen != 0 || tab.last != 0 {
				t.Fatalf("tables given back: %d ids, %d entries, run %d, gen %d, last %d", len(tab.at), len(tab.entries), tab.run, tab.gen, tab.last)
			}
			for _, e := range tab.entries[:cap(tab.entries)] {
				if e.id != "" || e.owner.sub != "" {
					t.Fatalf("tables given back keep the id %q of owner %q", e.id, e.owner.sub)
				}
			}
		}
		if cap(shared.msgs.entries) == 0 {
			t.Fatal("the record's tables were not given back to the pool")
		}
		if again := accept(t, v11, second); !reflect.DeepEqual(again, fresh) {
			t.Fatalf("after another record:\n%+v\nwith fresh tables:\n%+v", again, fresh)
		}
	}
	if !strings.Contains(fresh.Messages[0].Content, "y") {
		t.Errorf("messages %+v", fresh.Messages)
	}
}

// A profile that does not enforce text-message bracketing lets a start of
// an open message through, as the continuation of that message: the start
// is not refused, so it must not be dropped either (nor, with no entry to
// record it under, panic).
func TestUnenforcedReopen(t *testing.T) {
	base, err := LookupProfile(v11)
	if err != nil {
		t.Fatal(err)
	}
	info := base.info
	info.Name = "test-no-text-message"
	info.Rules = nil
	for _, r := range base.info.Rules {
		if r != contract.RuleSequenceTextMessage && r != contract.RuleSequenceFinishClosesAll {
			info.Rules = append(info.Rules, r)
		}
	}
	profiles()[info.Name] = newProfile(info)
	defer delete(profiles(), info.Name)
	start, content, end := contract.EventTextMessageStart, contract.EventTextMessageContent, contract.EventTextMessageEnd
	r := accept(t, info.Name, lines(t, run(text(start, "m", "role", "assistant"), text(content, "m", "delta", "a"),
		text(start, "m", "role", "assistant"), text(content, "m", "delta", "b"), text(end, "m"))...))
	if len(r.Messages) != 1 || r.Messages[0].Content != "ab" || !r.Messages[0].Complete {
		t.Errorf("messages %+v", r.Messages)
	}
}

// settle keeps a record's id tables for the next check while each has
// room for at most maxPooledList ids, as emptied keeps a list: one past
// it, in either table, they go to the collector, however few ids the
// record used of that room.
func TestSeqTablesBound(t *testing.T) {
	for _, tools := range []bool{false, true} {
		for _, c := range []struct{ room, ids int }{
			{maxPooledList, maxPooledList},
			{maxPooledList + 1, maxPooledList + 1},
			{maxPooledList, 1},
			{maxPooledList + 1, 1},
		} {
			q := &seq{}
			tab := &q.msgs
			if tools {
				tab = &q.tools
			}
			tab.size(c.room)
			for i := range c.ids {
				tab.entry(strconv.Itoa(i))
			}
			if cap(tab.entries) != c.room {
				t.Fatalf("tools %v, room %d: the table has room for %d", tools, c.room, cap(tab.entries))
			}
			other := &q.tools // the other table holds an id too
			if tools {
				other = &q.msgs
			}
			other.entry("x")
			var back seqTables
			back.settle(q)
			kept := back.msgs.entries != nil
			if kept != (c.room <= maxPooledList) || (back.tools.entries != nil) != kept {
				t.Errorf("tools %v, room %d, %d ids: kept %v, %v", tools, c.room, c.ids, kept, back.tools.entries != nil)
			}
			if kept && (len(back.msgs.entries) != 0 || len(back.tools.entries) != 0 || q.msgs.entries != nil || q.tools.entries != nil) {
				t.Errorf("tools %v, room %d, %d ids: kept tables hold %d and %d ids; the check's %d and %d", tools, c.room, c.ids,
					len(back.msgs.entries), len(back.tools.entries), len(q.msgs.entries), len(q.tools.entries))
			}
		}
	}
}

// The conversation's slots are pooled with the id tables and bounded
// alike: a list with room for maxPooledList slots is kept, emptied of the
// record's ids, and lent whole to the next check; one past it, the tables
// go to the collector with it.
func TestSeqSlotsBound(t *testing.T) {
	for _, room := range []int{maxPooledList, maxPooledList + 1} {
		q := &seq{slots: make([]slot, 0, room)}
		q.resetSlots()
		for i := range room {
			q.appendSlot(nil, strconv.Itoa(i), "assistant", -1)
		}
		q.msgs.entry("x")
		q.tools.entry("y")
		var back seqTables
		back.settle(q)
		kept := back.slots != nil
		if kept != (room <= maxPooledList) || (back.msgs.entries != nil) != kept {
			t.Errorf("room %d: slots kept %v, tables kept %v", room, kept, back.msgs.entries != nil)
		}
		if !kept {
			continue
		}
		if len(back.slots) != 0 || cap(back.slots) != room || q.slots != nil {
			t.Errorf("room %d: kept slots %d of %d, the check's %v", room, len(back.slots), cap(back.slots), q.slots != nil)
		}
		for k, sl := range back.slots[:room] {
			if sl.id != "" {
				t.Fatalf("room %d: the kept slot %d holds the record's id %q", room, k, sl.id)
			}
		}
		var next seq
		back.lend(&next)
		if cap(next.slots) != room || len(next.slots) != 0 || next.head != -1 || next.tail != -1 {
			t.Errorf("room %d: lent %d slots of room %d, head %d, tail %d", room, len(next.slots), cap(next.slots), next.head, next.tail)
		}
	}
}

// A step finished by an agent that did not start it is refused with the
// name of the one that did, whether that is the parent agent or a
// subagent; a step of a failed run is not open in the next.
func TestOpenStepsOwners(t *testing.T) {
	s := stepEvent
	st, fin := contract.EventStepStarted, contract.EventStepFinished
	for _, c := range []struct {
		events []ev
		want   string
	}{
		{run(s(st, "a"), s(fin, "a", "s1")), `the step "a" is open under the parent agent, not subagent "s1"`},
		{run(s(st, "a", "s1"), s(fin, "a")), `the step "a" is open under subagent "s1", not the parent agent`},
		{run(s(st, "a", "s1"), s(fin, "a", "s2")), `the step "a" is open under subagent "s1", not subagent "s2"`},
		{run(s(st, "b"), s(fin, "a")), `the step "a" of the parent agent was not started`},
	} {
		r := reject(t, v11, lines(t, c.events...), 2, "/stepName", contract.RuleSequenceStep)
		if got := r.Findings[0].Message; !strings.HasPrefix(got, c.want) {
			t.Errorf("finding %q; want %q", got, c.want)
		}
	}
	reject(t, v11, lines(t, started(), s(st, "a"), ev{"type": contract.EventRunError, "message": "x"}, started(), s(fin, "a")),
		4, "/stepName", contract.RuleSequenceStep)
	accept(t, v11, lines(t, started(), s(st, "a"), ev{"type": contract.EventRunError, "message": "x"}, started(), s(st, "a"), s(fin, "a"), run()[1]))
}
