package agui

import (
	"fmt"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// Texts streamed in many small deltas, interleaved, and past the length
// from which they grow in a builder, are shown as the concatenation of
// their deltas; a messages snapshot that puts other messages at the same
// places, and texts streamed after it, are not mixed up with them.
func TestLongStreamedTexts(t *testing.T) {
	t.Parallel()
	var events []ev
	var a, b, args, d strings.Builder
	for i := range 300 {
		if i == 0 {
			events = append(events,
				text(contract.EventTextMessageStart, "a", "role", "assistant"),
				text(contract.EventTextMessageStart, "b", "role", "assistant"),
				ev{"type": contract.EventToolCallStart, "toolCallId": "c", "toolCallName": "lookup"})
		}
		da, db, dc := fmt.Sprintf("a%d ", i), fmt.Sprintf("é%d|", i%7), fmt.Sprintf(`"%d",`, i)
		a.WriteString(da)
		b.WriteString(db)
		args.WriteString(dc)
		events = append(events,
			text(contract.EventTextMessageContent, "a", "delta", da),
			text(contract.EventTextMessageContent, "b", "delta", db),
			ev{"type": contract.EventToolCallArgs, "toolCallId": "c", "delta": dc})
	}
	events = append(events,
		text(contract.EventTextMessageEnd, "a"), text(contract.EventTextMessageEnd, "b"),
		ev{"type": contract.EventToolCallEnd, "toolCallId": "c"})
	check := func(r *Result, want map[string]string, wantArgs string) {
		t.Helper()
		got := map[string]string{}
		for _, m := range r.Messages {
			got[m.ID] = m.Content
		}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("message %s: %d bytes %q…, want %d bytes %q…", id, len(got[id]), prefix(got[id]), len(w), prefix(w))
			}
		}
		if len(r.Messages) != len(want) {
			t.Errorf("%d messages, want %d", len(r.Messages), len(want))
		}
		if len(r.ToolCalls) != 1 || r.ToolCalls[0].Arguments != wantArgs {
			t.Errorf("tool calls %d, arguments %q…, want %q…", len(r.ToolCalls), prefix(r.ToolCalls[0].Arguments), prefix(wantArgs))
		}
	}
	data := lines(t, run(events...)...)
	r := accept(t, v11, data)
	check(r, map[string]string{"a": a.String(), "b": b.String()}, args.String())
	checkLive(t, v11, data, r)

	// After a snapshot that restates the conversation as one message, a
	// new message takes the second place, which b held.
	events = append(events, ev{"type": contract.EventMessagesSnapshot, "messages": []any{ev{"id": "s", "role": "user", "content": strings.Repeat("s", 400)}}},
		text(contract.EventTextMessageStart, "d", "role", "assistant"))
	for i := range 200 {
		delta := fmt.Sprintf("d%d ", i)
		d.WriteString(delta)
		events = append(events, text(contract.EventTextMessageContent, "d", "delta", delta))
	}
	events = append(events, text(contract.EventTextMessageEnd, "d"))
	data = lines(t, run(events...)...)
	r = accept(t, v11, data)
	check(r, map[string]string{"s": strings.Repeat("s", 400), "d": d.String()}, args.String())
	checkLive(t, v11, data, r)
}

func prefix(s string) string { return s[:min(len(s), 40)] }

// streamLines checks data, a record's lines, as a live stream, one line
// an event, and returns the stream's result.
func streamLines(t *testing.T, profile string, data []byte) *Result {
	t.Helper()
	s, err := NewStream(Options{Profile: profile})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		s.Event(s.Line([]byte(line)))
	}
	r, err := s.End()
	if err != nil {
		t.Fatalf("live: %v", err)
	}
	return r
}

// checkLive checks data as a live stream, line by line, and fails unless
// the result shows the messages and tool calls file shows.
func checkLive(t *testing.T, profile string, data []byte, file *Result) {
	t.Helper()
	r := streamLines(t, profile, data)
	if !r.Accepted {
		t.Fatalf("live: %v", r)
	}
	if fmt.Sprint(r.Messages) != fmt.Sprint(file.Messages) || fmt.Sprint(r.ToolCalls) != fmt.Sprint(file.ToolCalls) {
		t.Errorf("live shows other messages or tool calls than the file")
	}
}
