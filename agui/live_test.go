package agui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/agui/internal/recordtext"
	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// streamed checks events (their texts, as a stream delivers them) through
// a Stream and returns the result, the record they are saved as, and what
// each event reported as it arrived; the findings End adds (those of the
// record's end) come last.
func streamed(t *testing.T, profile string, texts [][]byte) (*Result, []byte, [][]Finding, error) {
	t.Helper()
	s, err := NewStream(Options{Profile: profile, Source: "live"})
	if err != nil {
		t.Fatal(err)
	}
	var rec bytes.Buffer
	var found [][]Finding
	for _, text := range texts {
		line := s.Line(text)
		rec.Write(line)
		rec.WriteByte('\n')
		found = append(found, s.Event(line))
	}
	stopped := s.Stopped()
	r, err := s.End()
	if err == nil && !stopped {
		found = append(found, r.Findings)
	}
	return r, rec.Bytes(), found, err
}

// sameAsFile fails unless checking texts live gives the result Check gives
// for the record they are saved as: the same JSON report but for the
// source, and the finding reported as it was found.
func sameAsFile(t *testing.T, name, profile string, texts [][]byte) *Result {
	t.Helper()
	live, rec, found, liveErr := streamed(t, profile, texts)
	file, fileErr := Check(rec, Options{Profile: profile, Source: "live"})
	if (liveErr == nil) != (fileErr == nil) {
		t.Fatalf("%s under %s: live error %v, file error %v", name, profile, liveErr, fileErr)
	}
	if liveErr != nil {
		return nil
	}
	a, _ := live.RenderJSON()
	b, _ := file.RenderJSON()
	if !bytes.Equal(a, b) {
		t.Fatalf("%s under %s: live and file reports differ\nlive: %s\nfile: %s", name, profile, a, b)
	}
	// Every finding of the report was reported when it was found.
	var all []Finding
	for _, f := range found {
		all = append(all, f...)
	}
	for _, f := range live.Findings {
		if !containsFinding(all, f) {
			t.Errorf("%s under %s: finding %v was not reported as it was found (%v)", name, profile, f, all)
		}
	}
	return live
}

func containsFinding(list []Finding, f Finding) bool {
	for _, g := range list {
		if g == f {
			return true
		}
	}
	return false
}

// eventTexts splits a record into the texts of its events: its lines, or
// the elements of its array as written.
func eventTexts(t testing.TB, data []byte) [][]byte {
	t.Helper()
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '[' {
		tree, err := strictjson.Parse(data, strictjson.Options{})
		if err != nil {
			return [][]byte{data} // not an array after all: one broken event
		}
		var out [][]byte
		for _, e := range tree.Elems {
			out = append(out, data[e.Start:e.End])
		}
		return out
	}
	var out [][]byte
	for line := range bytes.SplitSeq(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		out = append(out, line)
	}
	return out
}

// Live checking agrees with file checking on every record of the
// differential set, the conformance streams and hand-made cases, under
// both profiles.
func TestStreamMatchesFile(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "diff", "*"))
	if len(files) == 0 {
		t.Fatal("no records in testdata/diff")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{stand, v11} {
			sameAsFile(t, f, p, eventTexts(t, data))
		}
	}
	for _, cs := range loadConformance(t) {
		var texts [][]byte
		for _, e := range cs.Stream {
			texts = append(texts, e)
		}
		for _, p := range []string{stand, v11} {
			sameAsFile(t, cs.Name, p, texts)
		}
	}
	b := func(s ...string) [][]byte {
		var out [][]byte
		for _, x := range s {
			out = append(out, []byte(x))
		}
		return out
	}
	rs, rf := `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`, `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
	cases := map[string][][]byte{
		"accepted":        b(rs, `{"type":"TEXT_MESSAGE_START","messageId":"m"}`, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"é€😀"}`, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`, rf),
		"multi-line data": b(rs, "{\"type\":\"STEP_STARTED\",\n\"stepName\":\"s\"}", `{"type":"STEP_FINISHED","stepName":"s"}`, rf),
		// A sequence finding, then a line that is not JSON: the reading
		// finding takes its place, as it does in the file.
		"sequence then syntax": b(rs, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`, `{"type":`, rf),
		"sequence only":        b(rs, `{"type":"TEXT_MESSAGE_END","messageId":"m"}`, rf),
		"blank events":         b(rs, "  ", "\t", rf),
		"cut run":              b(rs, `{"type":"STEP_STARTED","stepName":"s"}`),
		"not an object":        b(rs, `[1]`, rf),
		"only white space":     b(" ", "\r"),
	}
	for name, texts := range cases {
		for _, p := range []string{stand, v11} {
			sameAsFile(t, name, p, texts)
		}
	}
	// A raw line feed inside a string is refused, as a raw CR is, with the
	// same result but for the character the message names: the line feed
	// sent live, the carriage return the record holds in its place. A
	// carriage return sent as one is named as one, line feeds beside it or
	// not.
	lfCases := []struct{ text, live, file string }{
		{"{\"type\":\"STEP_STARTED\",\"stepName\":\"a\nb\"}",
			"invalid control character U+000A in string (byte 36 of the event's text)", "invalid control character U+000D in string (byte 36 of the event's text)"},
		{"{\"type\":\"STEP_STARTED\",\"stepName\":\"\\u00\n41\"}",
			"invalid character '\\n' in \\u escape, expected a hex digit (byte 39 of the event's text)", "invalid character '\\r' in \\u escape, expected a hex digit (byte 39 of the event's text)"},
		{"{\"type\":\"STEP_STARTED\",\n\"stepName\":\"a\rb\"}",
			"invalid control character U+000D in string (byte 37 of the event's text)", "invalid control character U+000D in string (byte 37 of the event's text)"},
	}
	for _, lc := range lfCases {
		for _, p := range []string{stand, v11} {
			live, rec, _, err := streamed(t, p, b(rs, lc.text, rf))
			file, ferr := Check(rec, Options{Profile: p, Source: "live"})
			if err != nil || ferr != nil {
				t.Fatal(err, ferr)
			}
			if len(live.Findings) != 1 || len(file.Findings) != 1 || live.Findings[0].Message != lc.live || file.Findings[0].Message != lc.file {
				t.Errorf("%q under %s: live %v, file %v", lc.text, p, live.Findings, file.Findings)
				continue
			}
			live.Findings[0].Message = file.Findings[0].Message
			a, _ := live.RenderJSON()
			c, _ := file.RenderJSON()
			if !bytes.Equal(a, c) {
				t.Errorf("%q under %s: live and file reports differ but for the message\nlive: %s\nfile: %s", lc.text, p, a, c)
			}
		}
	}
	if _, _, _, err := streamed(t, v11, nil); err == nil {
		t.Error("an empty stream was checked; want an input error")
	}
}

// The reading limits count the record the stream is saved as: at the limit
// of events and of bytes it is accepted, one past it rejected, and the
// result is then that finding alone, as Check gives it.
//
//contract:proves ag-ui.reader.events ag-ui.reader.input-bytes
func TestStreamLimits(t *testing.T) {
	rs, rf := `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`, `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
	step := func(k int) []string {
		n := strings.Repeat("s", 1+k%7)
		return []string{`{"type":"STEP_STARTED","stepName":"` + n + `"}`, `{"type":"STEP_FINISHED","stepName":"` + n + `"}`}
	}
	for _, extra := range []int{0, 1} {
		texts := [][]byte{[]byte(rs)}
		for k := 0; len(texts) < contract.LimitEvents-1; k++ {
			for _, s := range step(k) {
				texts = append(texts, []byte(s))
			}
		}
		texts = texts[:contract.LimitEvents-1]
		if len(texts)%2 == 0 {
			// The last step would stay open: end on an event that opens
			// nothing instead.
			texts[len(texts)-1] = []byte(`{"type":"STATE_SNAPSHOT","snapshot":{}}`)
		}
		for k := 0; k < extra; k++ {
			texts = append(texts, []byte(`{"type":"STATE_SNAPSHOT","snapshot":{}}`))
		}
		texts = append(texts, []byte(rf))
		r := sameAsFile(t, "events", v11, texts)
		if over := extra > 0; over == r.Accepted || (over && (r.Findings[0].Rule != contract.RuleReaderEvents || r.Events != contract.LimitEvents)) {
			t.Errorf("%d events: accepted %v, findings %v, %d events read", len(texts), r.Accepted, r.Findings, r.Events)
		}
	}
	// Bytes: a padded last event brings the record to the limit, or one
	// byte past it.
	for _, extra := range []int{0, 1} {
		texts := [][]byte{[]byte(rs)}
		used := len(rs) + 1 + len(rf) + 1
		pad := contract.LimitInputBytes - used + extra
		texts = append(texts, []byte(rf[:len(rf)-1]+strings.Repeat(" ", pad)+"}"))
		r := sameAsFile(t, "bytes", v11, texts)
		if r.Accepted == (extra > 0) {
			t.Errorf("record of %d bytes: accepted %v, findings %v", used+pad, r.Accepted, r.Findings)
		}
		if extra > 0 && (r.Findings[0].Rule != contract.RuleReaderInputBytes || r.Events != 0) {
			t.Errorf("past the byte limit: %+v, %d events", r.Findings, r.Events)
		}
	}
}

// FuzzStream checks arbitrary lines both ways: as a live stream and as the
// record they are saved as. The reports must be the same, and the stream
// must never panic. A record whose first line opens an array is read by
// Check in the array form, which no stream is saved as; those are left out.
func FuzzStream(f *testing.F) {
	f.Add([]byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n" + `{"type":"TEXT_MESSAGE_END","messageId":"m"}` + "\n" + `{"type":`))
	f.Add([]byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n\n \n" + `{"type":"STEP_STARTED","stepName":"s"}`))
	f.Add(TutorialExample())
	f.Fuzz(func(t *testing.T, data []byte) {
		if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
			return
		}
		texts := bytes.Split(data, []byte("\n"))
		for _, p := range []string{stand, v11} {
			live, rec, _, liveErr := streamed(t, p, texts)
			file, fileErr := Check(rec, Options{Profile: p, Source: "live"})
			if (liveErr == nil) != (fileErr == nil) {
				t.Fatalf("%s: live error %v, file error %v", p, liveErr, fileErr)
			}
			if liveErr != nil {
				continue
			}
			a, _ := live.RenderJSON()
			b, _ := file.RenderJSON()
			if !bytes.Equal(a, b) {
				t.Fatalf("%s: reports differ\nlive: %s\nfile: %s", p, a, b)
			}
		}
	})
}

// Past the record's byte limit a Stream only counts: reading tens of
// megabytes of events leaves no more memory in use than the limit allows.
// (The heap is measured, not time: memory is the claim.)
func TestStreamMemoryBounded(t *testing.T) {
	s, err := NewStream(Options{Profile: v11})
	if err != nil {
		t.Fatal(err)
	}
	event := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + strings.Repeat("x", 400) + `"}`)
	s.Event(s.Line([]byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`)))
	s.Event(s.Line([]byte(`{"type":"TEXT_MESSAGE_START","messageId":"m"}`)))
	var ms runtime.MemStats
	peak := uint64(0)
	const total = 48 << 20
	for n := 0; n < total; n += len(event) + 1 {
		s.Event(s.Line(event))
		if n%(4<<20) < len(event)+1 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	r, err := s.End()
	if err != nil || r.Accepted || r.Findings[0].Rule != contract.RuleReaderInputBytes {
		t.Fatalf("%v %+v", err, r)
	}
	if peak > 24<<20 {
		t.Errorf("the heap reached %d MiB while %d MiB of events streamed past a limit of %d KiB", peak>>20, total>>20, contract.LimitInputBytes>>10)
	}
}

// The findings Event returns are the caller's: after the stream ends and
// later streams reuse its memory for their lines, they read as they did.
func TestStreamFindingsOutliveIt(t *testing.T) {
	type kept struct {
		f    Finding
		text string
	}
	var all []kept
	for _, cs := range loadConformance(t) {
		s, err := NewStream(Options{Profile: v11})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range cs.Stream {
			for _, f := range s.Event(s.Line(e)) {
				all = append(all, kept{f, fmt.Sprintf("%#v", f)})
			}
		}
		s.End()
	}
	if len(all) == 0 {
		t.Fatal("the conformance streams gave no finding")
	}
	filler := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"` + strings.Repeat("z", 1000) + `"}`)
	for range 4 {
		s, err := NewStream(Options{Profile: v11})
		if err != nil {
			t.Fatal(err)
		}
		s.Event(s.Line([]byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`)))
		s.Event(s.Line([]byte(`{"type":"TEXT_MESSAGE_START","messageId":"m"}`)))
		for range 150 {
			s.Event(s.Line(filler))
		}
		if s.Stopped() {
			t.Fatal("the filler stream stopped")
		}
		s.End()
	}
	for _, k := range all {
		if got := fmt.Sprintf("%#v", k.f); got != k.text {
			t.Errorf("a finding changed after its stream ended: %s, was %s", got, k.text)
		}
	}
}

// A result outlives the stream it came from: the lists, maps and line
// blocks a Stream and Check take from their pools and give back are used
// by the streams and records checked after, and the result shows what it
// showed when it was made.
func TestResultsOutliveThePools(t *testing.T) {
	data := largeStream(t)
	texts := eventTexts(t, data)
	live := func(texts [][]byte) *Result {
		s, err := NewStream(Options{Profile: v11})
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range texts {
			s.Event(s.Line(text))
		}
		r, err := s.End()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := live(texts)
	file := check(t, v11, data)
	want, fileWant := encode(t, first), encode(t, file)
	if len(first.Messages) == 0 || len(first.ToolCalls) == 0 || len(first.Steps) == 0 {
		t.Fatalf("the large stream shows %d messages, %d calls, %d steps", len(first.Messages), len(first.ToolCalls), len(first.Steps))
	}
	// Other streams and records, with other ids and text, reuse the memory.
	for k := range 3 {
		var other [][]byte
		for _, text := range texts {
			other = append(other, bytes.ReplaceAll(bytes.ReplaceAll(text, []byte(`":"m`), []byte(fmt.Sprintf(`":"x%d`, k))), []byte("fox"), []byte("cat")))
		}
		if r := live(other); !r.Accepted {
			t.Fatalf("another stream is rejected: %v", r.Findings)
		}
		check(t, v11, lines(t, run(text(contract.EventTextMessageStart, "y", "role", "assistant"), text(contract.EventTextMessageEnd, "y"))...))
		// A record whose texts are joined from other deltas, in the
		// memory Check joined the first record's in.
		if r := check(t, v11, bytes.ReplaceAll(data, []byte("fox"), []byte("cat"))); !r.Accepted {
			t.Fatalf("another record is rejected: %v", r.Findings)
		}
	}
	if got := encode(t, first); !bytes.Equal(got, want) {
		t.Errorf("the first stream's result changed after later streams")
	}
	if got := encode(t, file); !bytes.Equal(got, fileWant) {
		t.Errorf("the record's result changed after later checks")
	}
}

// reclaim gives the result an exact copy of a list and keeps the list's
// memory, cleared, for the next stream while its capacity is at most
// maxPooledList entries; one past it the memory goes to the collector.
func TestReclaimBound(t *testing.T) {
	for _, size := range []int{maxPooledList, maxPooledList + 1} {
		list := make([]Step, 2, size)
		list[0], list[1] = Step{Name: "a"}, Step{Name: "b"}
		spare, copied := reclaim(list)
		if len(copied) != 2 || cap(copied) != 2 || copied[0].Name != "a" || copied[1].Name != "b" {
			t.Errorf("capacity %d: the copy is %v (capacity %d)", size, copied, cap(copied))
		}
		if list[0] != (Step{}) || list[1] != (Step{}) {
			t.Errorf("capacity %d: the list's memory still refers to %v", size, list)
		}
		if kept := spare != nil; kept != (size <= maxPooledList) {
			t.Errorf("capacity %d: kept %v (length %d, capacity %d)", size, kept, len(spare), cap(spare))
		}
		if spare != nil && (len(spare) != 0 || cap(spare) != size) {
			t.Errorf("capacity %d: the spare has length %d and capacity %d", size, len(spare), cap(spare))
		}
	}
}

// Finished says the stream may end: after its run finished or failed,
// a run that failed before it started included, and not while a run is
// active or before any run.
func TestStreamFinished(t *testing.T) {
	done := ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r"}
	failed := ev{"type": contract.EventRunError, "message": "m"}
	both := []string{stand, v11}
	for _, tc := range []struct {
		name     string
		events   []ev
		profiles []string
		want     bool
	}{
		{"nothing yet", nil, both, false},
		{"a run started", []ev{started()}, both, false},
		{"a run finished", []ev{started(), done}, both, true},
		{"a run failed", []ev{started(), failed}, both, true},
		{"a run failed before it started", []ev{failed}, both, true},
		// The stand holds one run: a second is AG-UI 1.1's.
		{"a second run started", []ev{started(), done, {"type": contract.EventRunStarted, "threadId": "t", "runId": "r2"}}, []string{v11}, false},
	} {
		for _, profile := range tc.profiles {
			s, err := NewStream(Options{Profile: profile})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tc.events {
				s.Event(s.Line(encode(t, e)))
			}
			if s.Finished() != tc.want || s.Stopped() {
				t.Errorf("%s, %s: Finished %v, Stopped %v; want Finished %v", tc.name, profile, s.Finished(), s.Stopped(), tc.want)
			}
		}
	}
}

// recordtext.Append, which saves the bytes of an event too large to hold,
// and Stream.Line write the same bytes for the same text: each line feed a
// carriage return, anything else (a carriage return too) as it was. It
// appends after what dst held and leaves text as it was.
func TestRecordTextIsLine(t *testing.T) {
	s, err := NewStream(Options{Profile: contract.ProfileAgUI11})
	if err != nil {
		t.Fatal(err)
	}
	defer s.End()
	for _, text := range []string{"", "{}", "\n", "\n\n", "{\n\"a\":\r1\n}", "\n{}", "{}\n", "é\n😀\n\n\r\n"} {
		src := []byte(text)
		got := recordtext.Append([]byte("kept"), src)
		want := "kept" + strings.ReplaceAll(text, "\n", "\r")
		if string(got) != want || string(src) != text {
			t.Errorf("%q: appended %q, text now %q; want %q", text, got, src, want)
		}
		if line := s.Line(src); string(line) != want[len("kept"):] {
			t.Errorf("%q: Line %q; want %q", text, line, want[len("kept"):])
		}
	}
}
