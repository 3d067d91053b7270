package livecheck

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/contractkit/contractkit/agui"
	contract "github.com/contractkit/contractkit/generated/agui"
)

// events is a run of AG-UI 1.1 as server-sent events: started, one text
// message, finished.
const events = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
	"data: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n\n" +
	"data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"hi\"}\n\n" +
	"data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n" +
	"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"

// reading reports whether a reading goroutine of ReadBody is still there
// a moment after ReadBody returned. The goroutine hands over its last
// piece just before it ends, and ReadBody returns after that piece; on a
// loaded machine the goroutine may still be seen on its way out, so it is
// looked for again for up to a second. One that is stuck stays.
func reading() bool {
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(time.Second); ; time.Sleep(time.Millisecond) {
		if !strings.Contains(string(buf[:runtime.Stack(buf, true)]), "livecheck.(*Run).ReadBody.func") {
			return false
		}
		if time.Now().After(deadline) {
			return true
		}
	}
}

// lateEnd is a body whose reads take a while to return an error, as a
// connection being torn down does. returned is set when such a read has
// returned: a ReadBody that left while its goroutine was still in one
// would be seen.
type lateEnd struct {
	r        io.Reader
	returned atomic.Bool
}

func (l *lateEnd) Read(b []byte) (int, error) {
	n, err := l.r.Read(b)
	if err != nil {
		time.Sleep(50 * time.Millisecond)
		l.returned.Store(true)
	}
	return n, err
}

// newRun starts a run under AG-UI 1.1 that saves its lines in saved and
// its findings in found.
func newRun(t *testing.T, saved *bytes.Buffer, found *[]agui.Finding) *Run {
	t.Helper()
	r, err := New(agui.Options{Profile: contract.ProfileAgUI11}, func(line []byte) error {
		saved.Write(line)
		saved.WriteByte('\n')
		return nil
	}, func(f agui.Finding) { *found = append(*found, f) })
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// readWhole reads body through r with hooks and ends the run.
func readWhole(t *testing.T, r *Run, body io.Reader, hooks Hooks) *agui.Result {
	t.Helper()
	if err := r.ReadBody(body, hooks); err != nil {
		t.Fatal(err)
	}
	res, err := r.End()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkSaved checks in file mode the record a run saved.
func checkSaved(t *testing.T, saved *bytes.Buffer) *agui.Result {
	t.Helper()
	file, err := agui.Check(saved.Bytes(), agui.Options{Profile: contract.ProfileAgUI11})
	if err != nil {
		t.Fatal(err)
	}
	return file
}

// A body read a byte at a time, or in many pieces that make more batches
// than wait at once, is checked and saved the same: every event, in order,
// and the same result the record gives in file mode.
func TestReadBodyWhole(t *testing.T) {
	big := strings.Repeat(events, max(8*PieceSize/len(events), 2*Batches*BatchEvents/5)+1)
	for name, body := range map[string]io.Reader{
		"one byte a read": iotest.OneByteReader(strings.NewReader(events)),
		"half a piece":    iotest.HalfReader(strings.NewReader(events)),
		"many pieces":     strings.NewReader(big),
	} {
		t.Run(name, func(t *testing.T) {
			var saved bytes.Buffer
			var found []agui.Finding
			r := newRun(t, &saved, &found)
			checked := 0
			res := readWhole(t, r, body, Hooks{Checked: func() { checked++ }})
			file := checkSaved(t, &saved)
			if res.Accepted != file.Accepted || res.Events != file.Events || len(res.Findings) != len(file.Findings) || len(found) != len(res.Findings) {
				t.Errorf("live: accepted %v, %d events, %d findings (%d reported); file: %v, %d, %d", res.Accepted, res.Events, len(res.Findings), len(found), file.Accepted, file.Events, len(file.Findings))
			}
			if name != "many pieces" && (res.Events != 5 || !res.Accepted) {
				t.Errorf("%d events, accepted %v: %v", res.Events, res.Accepted, res.Findings)
			}
			if checked == 0 {
				t.Error("Checked was never called")
			}
			if reading() {
				t.Error("the reading goroutine outlived ReadBody")
			}
		})
	}
}

// What the two goroutines of ReadBody find is what one finds, and what
// the saved record gives in file mode: a sequence finding early on, many
// events after it that are only read, then a reading finding that takes
// its place; or the record's byte limit passed with the checker still
// at work. The events are read a few bytes at a time and whole pieces at
// a time, so that the hand-overs fall everywhere.
func TestReadBodyMatchesFile(t *testing.T) {
	filler := strings.Repeat("data: {\"type\":\"STEP_STARTED\",\"stepName\":\"s\"}\n\n", Batches*BatchEvents+500) // more than wait at once, fewer than the event limit
	for name, stream := range map[string]string{
		"sequence, then reading": events[:len(events)/3] + "data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"none\"}\n\n" + filler + "data: {\"a\":1,\"a\":2}\n\n",
		"sequence only":          "data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"none\"}\n\n" + filler,
		"past the byte limit":    events[:len(events)/2] + strings.Repeat("data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\""+strings.Repeat("y", 1000)+"\"}\n\n", contract.LimitInputBytes/1000+1),
	} {
		for _, pieces := range []string{"small", "whole"} {
			t.Run(name+"/"+pieces, func(t *testing.T) {
				var body io.Reader = strings.NewReader(stream)
				if pieces == "small" {
					body = iotest.HalfReader(iotest.DataErrReader(strings.NewReader(stream)))
				}
				var saved bytes.Buffer
				var found []agui.Finding
				r := newRun(t, &saved, &found)
				res := readWhole(t, r, body, Hooks{})
				serial := newRun(t, new(bytes.Buffer), new([]agui.Finding))
				serial.Write([]byte(stream))
				one, err := serial.End()
				if err != nil {
					t.Fatal(err)
				}
				file := checkSaved(t, &saved)
				show := func(r *agui.Result) string { return fmt.Sprint(r.Accepted, r.Events, r.Findings, r.Warnings) }
				if show(res) != show(file) || show(res) != show(one) {
					t.Errorf("two goroutines: %s\none:          %s\nfile:         %s", show(res), show(one), show(file))
				}
				if len(res.Findings) == 0 {
					t.Fatal("the stream was accepted; it is built to be rejected")
				}
				last := res.Findings[len(res.Findings)-1]
				if len(found) == 0 || found[len(found)-1] != last {
					t.Errorf("reported %v; the result ends with %v", found, last)
				}
				if res.Events != r.Stream.Events() && last.Rule != contract.RuleReaderInputBytes {
					t.Errorf("the result counts %d events, the stream %d", res.Events, r.Stream.Events())
				}
			})
		}
	}
}

// A stream cut mid-way ends ReadBody with a BodyError that carries the
// cause, after the events before the cut were checked, and no reading
// goroutine is left.
func TestReadBodyCut(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte(events[:len(events)/2]))
		pw.CloseWithError(io.ErrUnexpectedEOF)
	}()
	var saved bytes.Buffer
	var found []agui.Finding
	r := newRun(t, &saved, &found)
	err := r.ReadBody(&lateEnd{r: pr}, Hooks{})
	var broke *BodyError
	if !errors.As(err, &broke) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v, want a BodyError of the cut", err)
	}
	if r.Stream.Events() != 2 {
		t.Errorf("%d events checked before the cut, want 2", r.Stream.Events())
	}
	if reading() {
		t.Error("the reading goroutine outlived ReadBody")
	}
}

// A body that goes silent is given up by whoever watches it (the idle
// timeout cancels the request): the blocked read returns, ReadBody returns
// its BodyError, and no reading goroutine is left. Arrived is called for
// each read, so the watch can tell silence from a slow stream.
func TestReadBodyIdle(t *testing.T) {
	pr, pw := io.Pipe()
	errIdle := errors.New("idle")
	go pw.Write([]byte(events[:len(events)/2]))
	watch := time.AfterFunc(time.Hour, func() { pw.CloseWithError(errIdle) })
	defer watch.Stop()
	arrived := 0
	var saved bytes.Buffer
	var found []agui.Finding
	r := newRun(t, &saved, &found)
	err := r.ReadBody(&lateEnd{r: pr}, Hooks{Arrived: func() {
		arrived++
		watch.Reset(50 * time.Millisecond)
	}})
	if !errors.Is(err, errIdle) {
		t.Fatalf("got %v, want the idle cause", err)
	}
	if arrived < 2 {
		t.Errorf("Arrived called %d times, want one for the data and one for the end", arrived)
	}
	if reading() {
		t.Error("the reading goroutine outlived ReadBody")
	}
}

// When reading stops before the body ends (an event larger than the
// record's limit), ReadBody calls Interrupt so that the connection is
// given up, returns the checking error (not a BodyError), and leaves no
// reading goroutine, although the agent never ended the stream.
func TestReadBodyCheckerStops(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte(events[:len(events)/2]))
		pw.Write([]byte("data: \"" + strings.Repeat("x", contract.LimitInputBytes) + "\"\n\n"))
		// The agent goes on sending nothing: only Interrupt ends the read.
	}()
	var saved bytes.Buffer
	var found []agui.Finding
	r := newRun(t, &saved, &found)
	interrupted := false
	err := r.ReadBody(&lateEnd{r: pr}, Hooks{Interrupt: func() {
		interrupted = true
		pr.CloseWithError(errors.New("interrupted"))
	}})
	var broke *BodyError
	if err == nil || errors.As(err, &broke) || !strings.Contains(err.Error(), "the record's limit") {
		t.Fatalf("got %v, want the checker's error about the limit", err)
	}
	if !interrupted {
		t.Error("Interrupt was not called")
	}
	if reading() {
		t.Error("the reading goroutine outlived ReadBody")
	}
	pw.CloseWithError(io.ErrClosedPipe)
}

// A panic in report (or a test's Fatal in it, which ends the goroutine)
// leaves ReadBody while the agent is still sending. The reading goroutine
// is stopped and waited for before the panic goes on: whether it is
// blocked on a read (given up through Interrupt) or waits for a list the
// checking goroutine will never give back.
func TestReadBodyReportPanics(t *testing.T) {
	first := "data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"none\"}\n\n"
	for _, c := range []struct{ name, stream string }{
		{"blocked read", first},
		{"every list taken", first + strings.Repeat("data: {\"type\":\"STEP_STARTED\",\"stepName\":\"s\"}\n\n", 2*Batches*BatchEvents)},
	} {
		for _, how := range []string{"panic", "Goexit"} {
			t.Run(c.name+"/"+how, func(t *testing.T) {
				pr, pw := io.Pipe()
				go func() {
					pw.Write([]byte(c.stream))
					// The agent goes on sending nothing: only Interrupt
					// ends the read.
				}()
				defer pw.CloseWithError(io.ErrClosedPipe)
				body := &lateEnd{r: pr}
				var interrupted atomic.Bool
				hooks := Hooks{Interrupt: func() {
					interrupted.Store(true)
					pr.CloseWithError(errors.New("interrupted"))
				}}
				r, err := New(agui.Options{Profile: contract.ProfileAgUI11}, nil, func(agui.Finding) {
					if how == "panic" {
						panic("report failed")
					}
					runtime.Goexit()
				})
				if err != nil {
					t.Fatal(err)
				}
				left := make(chan any, 1)
				go func() {
					goexit := true
					defer func() {
						if goexit {
							left <- "Goexit"
						}
					}()
					defer func() {
						if v := recover(); v != nil {
							goexit = false
							left <- v
						}
					}()
					r.ReadBody(body, hooks)
					goexit = false
					left <- "returned"
				}()
				select {
				case v := <-left:
					if want := map[string]any{"panic": "report failed", "Goexit": "Goexit"}[how]; v != want {
						t.Errorf("ReadBody left by %v, want %v", v, want)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("ReadBody did not leave after report's " + how)
				}
				if !interrupted.Load() {
					t.Error("Interrupt was not called")
				}
				if c.name == "blocked read" && !body.returned.Load() {
					t.Error("the " + how + " went on while the reading goroutine was still reading")
				}
				if reading() {
					t.Error("the reading goroutine outlived ReadBody")
				}
			})
		}
	}
}

// An error of saving a line stops checking: ReadBody returns it, wrapped.
func TestReadBodySaveFails(t *testing.T) {
	full := errors.New("disk full")
	r, err := New(agui.Options{Profile: contract.ProfileAgUI11}, func([]byte) error { return full }, func(agui.Finding) {})
	if err != nil {
		t.Fatal(err)
	}
	err = r.ReadBody(strings.NewReader(events), Hooks{Interrupt: func() {}})
	if !errors.Is(err, full) || !strings.Contains(err.Error(), "saving the record") {
		t.Fatalf("got %v", err)
	}
	if reading() {
		t.Error("the reading goroutine outlived ReadBody")
	}
}

// bufParts saves the parts of an event too large to hold into a buffer,
// as the commands save them into a record file.
type bufParts struct {
	b     *bytes.Buffer
	start int
	open  bool
}

func (p *bufParts) Part(b []byte) error {
	if !p.open {
		p.start, p.open = p.b.Len(), true
	}
	p.b.Write(b)
	return nil
}

func (p *bufParts) EndPart(keep bool) error {
	switch {
	case keep:
		p.b.WriteByte('\n')
	case p.open:
		p.b.Truncate(p.start)
	}
	p.open = false
	return nil
}

// failingParts is a PartSaver whose EndPart fails for the ending named.
type failingParts struct {
	bufParts
	failKeep, failDrop bool
}

var errPartsFailed = errors.New("the parts could not be ended")

func (p *failingParts) EndPart(keep bool) error {
	if (keep && p.failKeep) || (!keep && p.failDrop) {
		return errPartsFailed
	}
	return p.bufParts.EndPart(keep)
}

// When a stream ends inside an event too large to hold and the PartSaver
// cannot drop the bytes it saved of it, the record holds a line no event
// sent: End gives no verdict but says so, wrapping the saver's error, and
// so the record is not kept as the run's. Its neighbours: the same cut with
// a saver that drops the bytes gives the verdict of the record saved; the
// event ended instead, a saver that cannot keep it stops the run while it
// is read; and a run saving nothing has nothing to drop.
func TestDropThatFailsIsNotSilent(t *testing.T) {
	start := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"
	big := "data: {\"type\":\"CUSTOM\",\"name\":\"n\",\"value\":1" + strings.Repeat(" ", contract.LimitInputBytes) + "}"
	run := func(parts PartSaver, save bool, stream string) (*agui.Result, error, error) {
		var saved bytes.Buffer
		var found []agui.Finding
		r := newRun(t, &saved, &found)
		if !save {
			r.save = nil
		}
		r.Parts = parts
		readErr := r.ReadBody(strings.NewReader(stream), Hooks{})
		res, err := r.End()
		return res, err, readErr
	}
	// Cut inside the event: the drop fails.
	res, err, readErr := run(&failingParts{bufParts: bufParts{b: new(bytes.Buffer)}, failDrop: true}, true, start+big)
	if readErr != nil || res != nil || !errors.Is(err, errPartsFailed) || !strings.Contains(err.Error(), "saving the record: the stream ended inside an event of more than") {
		t.Errorf("a drop that fails: read %v, result %v, End %v", readErr, res, err)
	}
	// The drop succeeds: the verdict is that of the run cut.
	res, err, readErr = run(&failingParts{bufParts: bufParts{b: new(bytes.Buffer)}, failKeep: true}, true, start+big)
	if readErr != nil || err != nil || res.Accepted || res.Findings[0].Rule != contract.RuleSequenceRunComplete {
		t.Errorf("a drop that succeeds: read %v, End %v, result %v", readErr, err, res)
	}
	// The event ends: keeping it fails while the stream is read.
	_, err, readErr = run(&failingParts{bufParts: bufParts{b: new(bytes.Buffer)}, failKeep: true}, true, start+big+"\n\n")
	if !errors.Is(readErr, errPartsFailed) || !strings.Contains(readErr.Error(), "saving the record") {
		t.Errorf("a keep that fails: read %v, End %v", readErr, err)
	}
	// Nothing saved: the same cut has nothing to drop.
	res, err, readErr = run(&failingParts{bufParts: bufParts{b: new(bytes.Buffer)}, failDrop: true}, false, start+big)
	if readErr != nil || err != nil || res.Accepted || res.Findings[0].Rule != contract.RuleSequenceRunComplete {
		t.Errorf("nothing saved: read %v, End %v, result %v", readErr, err, res)
	}
}

// An event whose record stays within the byte limit (its data one byte
// shorter than the limit, with the newline the limit) is held and checked;
// one byte more and the record passes the limit: the verdict is
// ag-ui.reader.input-bytes as in file mode, the event's bytes are saved as
// they came, not held, and the record saved gives the same result. A
// comment or a field line past the limit is dropped, as the standard lets a
// reader drop it, and stops nothing; an event the stream ends inside is
// not an event, and the record loses its bytes again. Wherever the stream
// is cut into pieces.
func TestEventPastTheByteLimit(t *testing.T) {
	const start = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`
	const finish = `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
	// JSON white space fills the event: it counts towards no limit but
	// the bytes.
	fill := func(n int) string {
		return `{"type":"CUSTOM","name":"n","value":1` + strings.Repeat(" ", n-len(`{"type":"CUSTOM","name":"n","value":1}`)) + `}`
	}
	long := strings.Repeat("c", contract.LimitInputBytes+10)
	for _, tc := range []struct {
		name   string
		stream string
		record string // the record saved
		rule   string // the one finding (reported as found), or "" for accepted
	}{
		{"data one under the limit", "data: " + fill(contract.LimitInputBytes-1) + "\n\n",
			fill(contract.LimitInputBytes-1) + "\n", contract.RuleSequenceFirstEvent},
		{"data at the limit", "data: " + start + "\n\ndata: " + fill(contract.LimitInputBytes) + "\n\ndata: " + finish + "\n\n",
			start + "\n" + fill(contract.LimitInputBytes) + "\n" + finish + "\n", contract.RuleReaderInputBytes},
		{"in two data lines", "data: " + start + "\n\ndata: " + fill(contract.LimitInputBytes/2) + "\ndata: " + fill(contract.LimitInputBytes/2) + "\n\n",
			start + "\n" + fill(contract.LimitInputBytes/2) + "\r" + fill(contract.LimitInputBytes/2) + "\n", contract.RuleReaderInputBytes},
		{"a long comment", ":" + long + "\r\ndata: " + start + "\n\n: " + long + "\ndata: " + finish + "\n\n",
			start + "\n" + finish + "\n", ""},
		{"a long event field", "data: " + start + "\n\nevent: " + long + "\nid: " + long + "\ndata: " + finish + "\n\n",
			start + "\n" + finish + "\n", ""},
		{"cut inside a large event", "data: " + start + "\n\ndata: " + fill(contract.LimitInputBytes+5),
			start + "\n", contract.RuleSequenceRunComplete},
	} {
		for _, cut := range []int{len(tc.stream), 1, len(tc.stream) / 2, len(tc.stream) - 3} {
			var saved bytes.Buffer
			var found []agui.Finding
			r := newRun(t, &saved, &found)
			r.Parts = &bufParts{b: &saved}
			res := readWhole(t, r, io.MultiReader(strings.NewReader(tc.stream[:cut]), strings.NewReader(tc.stream[cut:])), Hooks{})
			what := fmt.Sprintf("%s, cut at %d", tc.name, cut)
			if saved.String() != tc.record {
				t.Fatalf("%s: saved %d bytes, want %d", what, saved.Len(), len(tc.record))
			}
			if tc.rule == "" {
				if !res.Accepted || len(found) != 0 {
					t.Errorf("%s: accepted %v, found %v", what, res.Accepted, found)
				}
			} else if res.Accepted || len(res.Findings) != 1 || res.Findings[0].Rule != tc.rule || len(found) != 1 || found[0].Rule != tc.rule {
				t.Errorf("%s: accepted %v, findings %v, reported %v; want %s", what, res.Accepted, res.Findings, found, tc.rule)
			}
			file := checkSaved(t, &saved)
			if fmt.Sprint(file.Accepted, file.Findings, file.Events) != fmt.Sprint(res.Accepted, res.Findings, res.Events) {
				t.Errorf("%s: live %v %v %d, file %v %v %d", what, res.Accepted, res.Findings, res.Events, file.Accepted, file.Findings, file.Events)
			}
		}
	}
	// Without a PartSaver, a run that saves its record cannot save such
	// an event, and says so.
	var saved bytes.Buffer
	var found []agui.Finding
	r := newRun(t, &saved, &found)
	if _, err := r.Write([]byte("data: " + fill(contract.LimitInputBytes) + "\n\n")); err == nil || !strings.Contains(err.Error(), "the record's limit") {
		t.Errorf("no PartSaver: %v", err)
	}
	r.End()
}

// A finding at the end of a data line names the character the agent ended
// the line with (the line feed the data lines join with stands for it): a
// line feed, or a carriage return for a line ended with CR or CRLF. The
// saved record holds a carriage return there, and checking it names that.
// It holds after a BOM, which the offsets do not count, and wherever the
// pieces split the stream, the CR of a CRLF in one piece and its LF in the
// next among them. The rest of the result is the same.
func TestFindingNamesTheCharacterSent(t *testing.T) {
	const (
		lfInString = "invalid control character U+000A in string (byte 36 "
		crInString = "invalid control character U+000D in string (byte 36 "
		lfInTrue   = `invalid character '\n' in literal true`
		crInTrue   = `invalid character '\r' in literal true`
	)
	start := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"
	for _, tc := range []struct{ stream, live, file string }{
		{start + "data: {\"type\":\"STEP_STARTED\",\"stepName\":\"a\ndata: b\"}\n\n", lfInString, crInString},
		{start + "data: {\"type\":\"STEP_STARTED\",\"x\":tr\ndata: ue}\n\n", lfInTrue, crInTrue},
		// Sent as CR, alone or before LF, it is named CR, live as in
		// the file.
		{start + "data: {\"type\":\"STEP_STARTED\",\"stepName\":\"a\rdata: b\"}\n\n", crInString, crInString},
		{start + "data: {\"type\":\"STEP_STARTED\",\"stepName\":\"a\r\ndata: b\"}\r\n\r\n", crInString, crInString},
		{start + "data: {\"type\":\"STEP_STARTED\",\"x\":tr\r\ndata: ue}\n\n", crInTrue, crInTrue},
		// Each line of one event is named by its own end.
		{start + "data: {\"type\":\"STEP_STARTED\",\r\ndata: \"stepName\":\"a\ndata: b\"}\n\n", "invalid control character U+000A in string (byte 37 ", "invalid control character U+000D in string (byte 37 "},
		{start + "data: {\"type\":\"STEP_STARTED\",\ndata: \"stepName\":\"a\rdata: b\"}\n\n", "invalid control character U+000D in string (byte 37 ", "invalid control character U+000D in string (byte 37 "},
		// A BOM before the stream moves no offset.
		{"\uFEFF" + start + "data: {\"type\":\"STEP_STARTED\",\"stepName\":\"a\ndata: b\"}\n\n", lfInString, crInString},
		{"\uFEFF" + strings.ReplaceAll(start, "\n", "\r\n") + "data: {\"type\":\"STEP_STARTED\",\"stepName\":\"a\r\ndata: b\"}\r\n\r\n", crInString, crInString},
		// A line feed where JSON allows white space is no finding; one
		// elsewhere in the event does not change the character named.
		{start + "data: {\"type\":\ndata: \"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n", "", ""},
		{start + "data: {\"type\":\r\ndata: \"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\r\n\r\n", "", ""},
		{start + "data: {\"type\":\ndata: \"STEP_STARTED\",\"stepName\":\"a\x01\"}\n\n", "invalid control character U+0001 in string", "invalid control character U+0001 in string"},
		{start + "data: {\"type\":\rdata: \"STEP_STARTED\",\"stepName\":\"a\x01\"}\n\n", "invalid control character U+0001 in string", "invalid control character U+0001 in string"},
	} {
		// Whole, inside the BOM, and around the last data line's start
		// (between CR and LF for a CRLF before it).
		j := strings.LastIndex(tc.stream, "data: ")
		for _, cut := range []int{len(tc.stream), 1, 2, j - 2, j - 1, j} {
			what := fmt.Sprintf("%q cut at %d", tc.stream, cut)
			var saved bytes.Buffer
			var found []agui.Finding
			r := newRun(t, &saved, &found)
			res := readWhole(t, r, io.MultiReader(strings.NewReader(tc.stream[:cut]), strings.NewReader(tc.stream[cut:])), Hooks{})
			file := checkSaved(t, &saved)
			if tc.live == "" {
				if !res.Accepted || !file.Accepted {
					t.Errorf("%s: live %v, file %v", what, res.Findings, file.Findings)
				}
				continue
			}
			if len(res.Findings) != 1 || len(file.Findings) != 1 || len(found) != 1 || !strings.Contains(res.Findings[0].Message, tc.live) || !strings.Contains(found[0].Message, tc.live) || !strings.Contains(file.Findings[0].Message, tc.file) {
				t.Errorf("%s: live %v, reported %v, file %v", what, res.Findings, found, file.Findings)
				continue
			}
			lf, ff := res.Findings[0], file.Findings[0]
			lf.Message, ff.Message = "", ""
			if lf != ff || res.Accepted != file.Accepted || res.Events != file.Events {
				t.Errorf("%s: live %v, file %v", what, res.Findings, file.Findings)
			}
		}
	}
}

// An event whose data is empty or white space holds no JSON value: a
// client fails the run on it, and a record has no line for it (the line
// form skips blank lines), so the run stops there, saying so, rather than
// skip it and accept the stream. An event with no data is no event, and a
// comment is none either; data that is JSON but not an object is an event,
// checked as one.
func TestBlankEventStops(t *testing.T) {
	start := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"
	for _, blank := range []string{"data: \n\n", "data:\n\n", "data\n\n", "data:\ndata:\n\n", "data: \t\r\n\r\n", "data:  \rdata:\t\r\r"} {
		var saved bytes.Buffer
		var found []agui.Finding
		r := newRun(t, &saved, &found)
		_, err := r.Write([]byte(start + blank + start))
		if err == nil || !strings.Contains(err.Error(), "after 1 events, an event whose data is empty or white space") {
			t.Errorf("%q: %v", blank, err)
		}
		r.End()
	}
	// One too large to hold is no different.
	var saved bytes.Buffer
	var found []agui.Finding
	r := newRun(t, &saved, &found)
	r.Parts = &bufParts{b: &saved}
	if _, err := r.Write([]byte(start + "data: " + strings.Repeat(" ", contract.LimitInputBytes+10) + "\ndata:\t\n\n")); err == nil || !strings.Contains(err.Error(), "after 1 events, an event whose data is empty or white space") {
		t.Errorf("a blank event past the byte limit: %v", err)
	}
	r.End()
	for _, notBlank := range []string{"event: x\n\n", ": data\n\n", "id: 1\n\n", "data: 1\n\n", "data: \"\"\n\n"} {
		var saved bytes.Buffer
		var found []agui.Finding
		r := newRun(t, &saved, &found)
		if _, err := r.Write([]byte(start + notBlank)); err != nil {
			t.Errorf("%q: %v", notBlank, err)
		}
		r.End()
	}
}
