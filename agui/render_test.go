package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// sized returns a result whose message text is filler long and whose state
// has enough members that its indented form is much larger than its
// compact one.
func sized(filler int) *Result {
	state := map[string]int{}
	for i := 0; i < 200; i++ {
		state[strings.Repeat("k", i%7+1)+itoa(i)] = i
	}
	raw, _ := json.Marshal(state)
	return &Result{Profile: stand, Source: "sized", Accepted: true, Findings: []Finding{}, Warnings: []Finding{},
		Messages: []Message{{ID: "m", Role: "assistant", Content: strings.Repeat("x", filler), Complete: true}},
		State:    raw}
}

func itoa(n int) string { return string(encode(&testing.T{}, n)) }

// fillerFor finds the filler length at which form renders exactly size
// bytes; every filler byte adds one byte to either form.
func fillerFor(t *testing.T, form func(*Result) []byte, size int) int {
	t.Helper()
	n := size - len(form(sized(0)))
	if got := len(form(sized(n))); got != size {
		t.Fatalf("the form does not grow one byte per filler byte: %d, want %d", got, size)
	}
	return n
}

//contract:proves ag-ui.view.output-bound ag-ui.limit.output-bytes
func TestOutputBound(t *testing.T) {
	t.Parallel()
	for _, kind := range []struct {
		name   string
		full   func(*Result) []byte
		short  func(*Result) []byte
		render func(*Result) ([]byte, error)
	}{
		{"text", func(r *Result) []byte { return r.text(false) }, func(r *Result) []byte { return r.text(true) }, (*Result).RenderText},
		{"json", func(r *Result) []byte { return r.json(false) }, func(r *Result) []byte { return r.json(true) }, (*Result).RenderJSON},
	} {
		t.Run(kind.name, func(t *testing.T) {
			limit := contract.LimitOutputBytes
			// The full form at the limit is shown as it is.
			n := fillerFor(t, kind.full, limit)
			out, err := kind.render(sized(n))
			if err != nil || !bytes.Equal(out, kind.full(sized(n))) {
				t.Errorf("full form at the limit: %d bytes, %v", len(out), err)
			}
			// One byte more: the compact form, with every value whole.
			out, err = kind.render(sized(n + 1))
			if err != nil || len(out) > limit || !bytes.Equal(out, kind.short(sized(n+1))) {
				t.Errorf("one past the limit: %d bytes, %v", len(out), err)
			}
			if !bytes.Contains(out, []byte(strings.Repeat("x", n+1))) {
				t.Error("the compact form cut the message")
			}
			// The compact form at the limit is still shown.
			c := fillerFor(t, kind.short, limit)
			out, err = kind.render(sized(c))
			if err != nil || len(out) != limit {
				t.Errorf("compact form at the limit: %d bytes, %v", len(out), err)
			}
			// One byte more: refused, explicitly, and nothing of the data shown.
			out, err = kind.render(sized(c + 1))
			var refused *RefusedError
			if !errors.As(err, &refused) || refused.Size != limit+1 {
				t.Fatalf("one past the compact limit: %v", err)
			}
			if len(out) > 1000 || bytes.Contains(out, []byte("xxxxxxxx")) || !bytes.Contains(out, []byte(contract.RuleViewOutputBound)) {
				t.Errorf("refusal notice: %q", out)
			}
			// The notice shows no state, so it does not say it shows it
			// compactly.
			if bytes.Contains(out, []byte("compactly")) {
				t.Errorf("the refusal notice claims a compact display: %q", out)
			}
		})
	}
}

//contract:proves ag-ui.view.result ag-ui.stand.boundary
func TestResultShowsDataAsData(t *testing.T) {
	evil := "\x1b[31mred\u009b2J\u2028"
	data := lines(t, started(),
		ev{"type": contract.EventTextMessageStart, "messageId": "m"},
		ev{"type": contract.EventTextMessageContent, "messageId": "m", "delta": "half a sentence"},
		ev{"type": contract.EventRunError, "message": evil, "code": "E"},
	)
	r := accept(t, stand, data)
	if r.Runs[0].Outcome.Error.Message != evil {
		t.Errorf("the error reason is not kept literally: %q", r.Runs[0].Outcome.Error.Message)
	}
	out, err := r.RenderText()
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, raw := range []string{"\x1b", "\u009b", "\u2028"} {
		if strings.Contains(s, raw) {
			t.Errorf("the report carries a raw %q from the record", raw)
		}
	}
	if !strings.Contains(s, `"\u001b[31mred\u009b2J\u2028"`) {
		t.Errorf("the error reason is not shown as a literal:\n%s", s)
	}
	if !strings.Contains(s, "Unfinished (1)") || !strings.Contains(s, `message "m"`) || !strings.Contains(s, "[UNFINISHED]") {
		t.Errorf("the unfinished message is not marked:\n%s", s)
	}
	if strings.Contains(s, "TUTORIAL EXAMPLE") {
		t.Error("a chosen record is labelled as the example")
	}
	if !strings.Contains(s, "proves neither who sent it") {
		t.Error("the report of an accepted record does not state what acceptance proves")
	}
	// The tutorial example says it is one, in both renderings.
	r, err = Check(TutorialExample(), Options{Source: "tutorial", Example: true})
	if err != nil || !r.Accepted {
		t.Fatalf("tutorial: %v %v", err, r.Findings)
	}
	txt, _ := r.RenderText()
	js, _ := r.RenderJSON()
	if !bytes.HasPrefix(txt, []byte("TUTORIAL EXAMPLE")) || !bytes.Contains(js, []byte(`"example": true`)) {
		t.Errorf("the example is not labelled:\n%s\n%s", txt, js)
	}
	var back Result
	if err := json.Unmarshal(js, &back); err != nil || !back.Accepted || back.Events != r.Events {
		t.Errorf("the JSON rendering does not read back: %v", err)
	}
}

// When the reader rejects a record, the report counts the events it read
// and says where checking stopped; the JSON form escapes C1 controls as
// the text form does.
//
//contract:proves ag-ui.view.result
func TestReportCountsAndEscapes(t *testing.T) {
	good := `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`
	for name, data := range map[string]string{
		"lines": good + "\n" + `{"type":"STEP_STARTED","stepName":"s"}` + "\n" + `{"type":"STATE_DELTA","delta":[}` + "\n",
		"array": "[" + good + `,{"type":"STEP_STARTED","stepName":"s"},{"type":"STATE_DELTA","delta":[}]`,
	} {
		r := check(t, stand, []byte(data))
		if r.Accepted || r.Findings[0].Event != 2 || r.Events != 2 {
			t.Errorf("%s: events %d, findings %v", name, r.Events, r.Findings)
		}
		out, _ := r.RenderText()
		if !strings.Contains(string(out), "Events:  2 read; checking stopped at event 2") {
			t.Errorf("%s: the report does not say where checking stopped:\n%s", name, out)
		}
	}
	c1 := "next\u0085line\u009b"
	// A raw value keeps the record's own bytes, a raw line separator
	// among them.
	// (Written by hand: encoding/json would escape it in the record.)
	interrupt := `{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"r","metadata":{"note":"a` + "\u2028" + `b"}}]}}`
	data := append(lines(t, started()), interrupt+"\n"...)
	r := accept(t, stand, append(data, lines(t, ev{"type": contract.EventRunError, "message": c1})...))
	js, err := r.RenderJSON()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsRune(js, 0x85) || bytes.ContainsRune(js, 0x9b) || !bytes.Contains(js, []byte(`next\u0085line\u009b`)) {
		t.Errorf("C1 controls are not escaped in the JSON report: %q", js)
	}
	if bytes.ContainsRune(js, 0x2028) || !bytes.Contains(js, []byte(`a\u2028b`)) {
		t.Errorf("a line separator in a raw value is not escaped in the JSON report: %q", js)
	}
	var back Result
	if err := json.Unmarshal(js, &back); err != nil || back.Runs[0].Outcome.Error.Message != c1 {
		t.Errorf("the escaped report does not read back: %v", err)
	}
}

// The result keeps nothing of the caller's bytes: while a record is checked
// its strings are those bytes, and reusing them afterwards must not change
// what the result says.
//
//contract:proves ag-ui.view.result
func TestResultOwnsItsData(t *testing.T) {
	for _, p := range []string{stand, v11} {
		data := TutorialExample()
		r := check(t, p, data)
		before, _ := r.RenderJSON()
		for i := range data {
			data[i] = 'x'
		}
		after, _ := r.RenderJSON()
		if !bytes.Equal(before, after) {
			t.Errorf("%s: the result changed with the caller's bytes:\n%s\n%s", p, before, after)
		}
	}
}

// The copies the result holds share one block; appending to one value
// must not write into the next.
func TestResultValuesDoNotOverlap(t *testing.T) {
	r := accept(t, v11, lines(t, run(
		ev{"type": contract.EventToolCallStart, "toolCallId": "c", "toolCallName": "f"},
		ev{"type": contract.EventToolCallEnd, "toolCallId": "c"},
		ev{"type": contract.EventToolCallResult, "messageId": "t", "toolCallId": "c", "content": "done"},
		ev{"type": contract.EventStateSnapshot, "snapshot": ev{"k": 1}},
	)...))
	state := string(r.State)
	_ = append(r.ToolCalls[0].Result, "XXXXXXXXXXXXXXXX"...)
	if string(r.State) != state || string(r.ToolCalls[0].Result) != `"done"` {
		t.Errorf("result %s, state %s (was %s)", r.ToolCalls[0].Result, r.State, state)
	}
}

// Checks running at once (a server checks records for several clients)
// share the cached profiles and the pooled parse memory, and each gets
// the result it would get alone.
func TestConcurrentChecks(t *testing.T) {
	records := [][]byte{TutorialExample(), largeStream(t), replacesRecord(t), lines(t, started(), runError())}
	want := make([][]byte, len(records))
	for i, data := range records {
		want[i], _ = check(t, v11, data).RenderJSON()
	}
	done := make(chan error)
	for g := 0; g < 8; g++ {
		go func() {
			for k := 0; k < 3; k++ {
				i := (g + k) % len(records)
				r, err := Check(records[i], Options{Profile: v11, Source: t.Name()})
				if err != nil {
					done <- err
					return
				}
				if got, _ := r.RenderJSON(); !bytes.Equal(got, want[i]) {
					done <- fmt.Errorf("record %d checked at once with others differs", i)
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
