package agui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/contractkit/contractkit/agui/sse"
	contract "github.com/contractkit/contractkit/generated/agui"
)

// largeStream is a record of the stand at its event limit: 1994 events in the
// array form, 167 KB, with streamed text, tool calls, steps and
// state deltas, every one of them valid.
func largeStream(tb testing.TB) []byte {
	tb.Helper()
	events := []ev{started(), snapshot(ev{"counter": 0, "items": []any{}})}
	sentence := "The quick brown fox jumps over the lazy dog, then checks the forecast again. "
	k := 0
	for len(events) < contract.LimitEvents-1 {
		k++
		id := fmt.Sprintf("m%d", k)
		step := fmt.Sprintf("step %d", k)
		block := []ev{
			{"type": contract.EventStepStarted, "stepName": step},
			text(contract.EventTextMessageStart, id, "role", "assistant"),
			text(contract.EventTextMessageContent, id, "delta", sentence),
			text(contract.EventTextMessageContent, id, "delta", sentence[:40]),
			text(contract.EventTextMessageEnd, id),
			{"type": contract.EventToolCallStart, "toolCallId": "c" + id, "toolCallName": "lookup", "parentMessageId": id},
			{"type": contract.EventToolCallArgs, "toolCallId": "c" + id, "delta": `{"query":"forecast","page":` + fmt.Sprint(k) + `}`},
			{"type": contract.EventToolCallEnd, "toolCallId": "c" + id},
			{"type": contract.EventToolCallResult, "messageId": "t" + id, "toolCallId": "c" + id, "content": "12 results"},
			delta(ev{"op": "replace", "path": "/counter", "value": k}, ev{"op": "add", "path": "/items/-", "value": []any{k, 1234567, 7654321}}),
			{"type": contract.EventStepFinished, "stepName": step},
		}
		if len(events)+len(block) > contract.LimitEvents-1 {
			break
		}
		events = append(events, block...)
	}
	events = append(events, ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r"})
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, e := range events {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.Write(encode(tb, e))
	}
	b.WriteString("\n]\n")
	return b.Bytes()
}

// largeFramed is the large record and its events one after another, each
// written between before and after: the forms a stream and its saved
// record take.
func largeFramed(tb testing.TB, before, after string) (record, framed []byte) {
	record = largeStream(tb)
	var out bytes.Buffer
	for _, text := range eventTexts(tb, record) {
		out.WriteString(before)
		out.Write(text)
		out.WriteString(after)
	}
	return record, out.Bytes()
}

// largeSSE is the large record and its events as server-sent events,
// each on one data line: 1,994 events, 204 KB framed.
func largeSSE(tb testing.TB) (record, body []byte) { return largeFramed(tb, "data: ", "\n\n") }

func TestLargeStreamIsValid(t *testing.T) {
	t.Parallel()
	data := largeStream(t)
	for _, p := range []string{stand, v11} {
		r := accept(t, p, data)
		if r.Events < contract.LimitEvents-20 {
			t.Errorf("%s: only %d events", p, r.Events)
		}
	}
	if len(data) > contract.LimitInputBytes || !json.Valid(data) {
		t.Errorf("the stream is %d bytes, valid JSON %v", len(data), json.Valid(data))
	}
}

func benchCheck(b *testing.B, profile string) {
	data := largeStream(b)
	r, err := Check(data, Options{Profile: profile})
	if err != nil || !r.Accepted {
		b.Fatalf("the stream is not accepted: %v %v", err, r.Findings)
	}
	b.SetBytes(int64(len(data)))
	perEvent(b, r.Events, func() {
		for i := 0; i < b.N; i++ {
			if _, err := Check(data, Options{Profile: profile}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// perEvent times loop, which makes the b.N operations of a benchmark of
// eventsPerOp events each, and reports the events checked a second and
// what the loop allocated an event: agui-bench prints these figures for
// every form of checking without counting the events itself.
func perEvent(b *testing.B, eventsPerOp int, loop func()) {
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	loop()
	b.StopTimer()
	runtime.ReadMemStats(&after)
	events := float64(eventsPerOp) * float64(b.N)
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/events, "allocs/event")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/events, "B/event")
}

// BenchmarkAGUICheckStand checks the large stream under the stand.
func BenchmarkAGUICheckStand(b *testing.B) { benchCheck(b, stand) }

// BenchmarkAGUICheck11 checks it under AG-UI 1.1.
func BenchmarkAGUICheck11(b *testing.B) { benchCheck(b, v11) }

// largeLines is the large record as a live check saves it (--save): its
// events one to a line, NDJSON.
func largeLines(tb testing.TB) (record, lines []byte) { return largeFramed(tb, "", "\n") }

// benchCheckLines checks the large record in the form a live stream's
// record takes, an event to a line: the file mode a stream checked live
// compares with event for event, each read on its own. Throughput is
// counted in the bytes of the array form, as for every other benchmark
// here, so that all compare directly.
func benchCheckLines(b *testing.B, profile string) {
	data, lines := largeLines(b)
	file, err := Check(data, Options{Profile: profile})
	if err != nil {
		b.Fatal(err)
	}
	if r, err := Check(lines, Options{Profile: profile}); err != nil || !r.Accepted || r.Events != file.Events {
		b.Fatalf("the record as lines is not accepted with the array's %d events: %v %v", file.Events, err, r)
	}
	b.SetBytes(int64(len(data)))
	perEvent(b, file.Events, func() {
		for i := 0; i < b.N; i++ {
			if _, err := Check(lines, Options{Profile: profile}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAGUICheckLinesStand and BenchmarkAGUICheckLines11 check the
// large record as NDJSON, under each profile.
func BenchmarkAGUICheckLinesStand(b *testing.B) { benchCheckLines(b, stand) }
func BenchmarkAGUICheckLines11(b *testing.B)    { benchCheckLines(b, v11) }

// benchLive checks the large stream as a live stream: its events framed
// as server-sent events, read in pieces of 32 KiB (as the command reads a
// connection) by agui/sse and checked by a Stream. Throughput is counted
// in the bytes of the record, as for Check, so the two compare directly.
func benchLive(b *testing.B, profile string) {
	data, body := largeSSE(b)
	check := func() *Result {
		s, err := NewStream(Options{Profile: profile})
		if err != nil {
			b.Fatal(err)
		}
		p := sse.New(contract.LimitInputBytes, func(e sse.Event) error {
			s.Event(s.Line(e.Data))
			return nil
		})
		for rest := body; len(rest) > 0; {
			n := min(len(rest), 32<<10)
			p.Write(rest[:n])
			rest = rest[n:]
		}
		p.Close()
		r, err := s.End()
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	r := check()
	if !r.Accepted {
		b.Fatalf("the stream is not accepted live: %v", r.Findings)
	}
	b.SetBytes(int64(len(data)))
	perEvent(b, r.Events, func() {
		for i := 0; i < b.N; i++ {
			check()
		}
	})
}

// BenchmarkAGUILiveStand and BenchmarkAGUILive11 check the large stream
// live, under each profile.
func BenchmarkAGUILiveStand(b *testing.B) { benchLive(b, stand) }
func BenchmarkAGUILive11(b *testing.B)    { benchLive(b, v11) }

// BenchmarkAGUIJSONValidFloor is encoding/json's Valid over the same bytes:
// the floor no checker that reads every byte can beat.
func BenchmarkAGUIJSONValidFloor(b *testing.B) {
	data := largeStream(b)
	events := bytes.Count(data, []byte("\n")) - 1
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if !json.Valid(data) {
			b.Fatal("invalid")
		}
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// besideBlock is the number of checks, and then of Valid runs, in each
// block benchBesideValid alternates: on the large record here about 50 ms
// of checks and 35 ms of Valid (0.75 and 0.52 ms a run), long enough for
// each to run with the caches its own repetitions leave, as in its own
// benchmark, and short enough that a drift of the machine's speed reaches
// both alike.
const besideBlock = 64

// benchBesideValid checks the large record and runs encoding/json.Valid
// over the same bytes in alternating blocks, and reports Valid's time over
// the check's (x-Valid): the file mode's throughput as a fraction of the
// floor's, taken in one run. BenchmarkAGUICheck* and
// BenchmarkAGUIJSONValidFloor give the same ratio from two benchmarks
// seconds apart; on a shared machine whose speed drifts within minutes
// (Valid's moved between 300 and 413 MB/s in one morning), the ratio in
// alternation is the steadier of the two.
func benchBesideValid(b *testing.B, profile string) {
	data := largeStream(b)
	if r, err := Check(data, Options{Profile: profile}); err != nil || !r.Accepted {
		b.Fatalf("the stream is not accepted: %v %v", err, r)
	}
	b.ResetTimer()
	var checking, valid time.Duration
	for done := 0; done < b.N; {
		n := min(besideBlock, b.N-done)
		start := time.Now()
		for range n {
			if _, err := Check(data, Options{Profile: profile}); err != nil {
				b.Fatal(err)
			}
		}
		mid := time.Now()
		for range n {
			if !json.Valid(data) {
				b.Fatal("invalid")
			}
		}
		valid += time.Since(mid)
		checking += mid.Sub(start)
		done += n
	}
	b.ReportMetric(valid.Seconds()/checking.Seconds(), "x-Valid")
}

// BenchmarkAGUICheckBesideValidStand and BenchmarkAGUICheckBesideValid11
// take file mode ÷ Valid in alternation, under each profile.
func BenchmarkAGUICheckBesideValidStand(b *testing.B) { benchBesideValid(b, stand) }
func BenchmarkAGUICheckBesideValid11(b *testing.B)    { benchBesideValid(b, v11) }

// replacesRecord is a record of AG-UI 1.1 whose snapshot holds a state of
// 15,000 members and whose one delta replaces 3,716 of them: a patch that
// took seconds when every operation copied the state it changed. It stays
// within the reader's limits (values, text, size).
func replacesRecord(tb testing.TB) []byte {
	tb.Helper()
	const members, replaces = 15000, 3716
	var b bytes.Buffer
	b.WriteString(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n")
	b.WriteString(`{"type":"STATE_SNAPSHOT","snapshot":{`)
	for i := 0; i < members; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	b.WriteString("}}\n" + `{"type":"STATE_DELTA","delta":[`)
	for i := 0; i < replaces; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"op":"replace","path":"/k%d","value":%d}`, i*members/replaces, -i)
	}
	b.WriteString("]}\n" + `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}` + "\n")
	return b.Bytes()
}

// The patch of replacesRecord applies whole: every replaced member holds
// its new value and no other changed.
func TestReplacesRecord(t *testing.T) {
	t.Parallel()
	r := accept(t, v11, replacesRecord(t))
	var state map[string]int
	if err := json.Unmarshal(r.State, &state); err != nil || len(state) != 15000 {
		t.Fatalf("state of %d members: %v", len(state), err)
	}
	if state["k0"] != 0 || state["k4"] != -1 || state["k5"] != 5 || state["k14995"] != -3715 {
		t.Errorf("k0 %d k4 %d k5 %d k14995 %d", state["k0"], state["k4"], state["k5"], state["k14995"])
	}
}

// BenchmarkAGUIPatchReplaces checks replacesRecord: one delta of 3,716
// replaces on a 15,000-member state, applied atomically with an undo log.
func BenchmarkAGUIPatchReplaces(b *testing.B) {
	data := replacesRecord(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r, err := Check(data, Options{Profile: v11})
		if err != nil || !r.Accepted {
			b.Fatalf("%v %v", err, r.Findings)
		}
	}
}

// BenchmarkAGUINodeReference runs the reference verifier of @ag-ui/client
// (enforcement, chunk expansion, verification) on Node over the same
// bytes, in the same run. Node measures itself for about three seconds;
// its per-record time, events/s and MB/s are reported as node-* metrics.
// The ns/op of this benchmark is the wall time of the whole node process
// and means nothing.
func BenchmarkAGUINodeReference(b *testing.B) {
	dir := nodeVerifier(b)
	data := largeStream(b)
	file := filepath.Join(b.TempDir(), "large.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		b.Fatal(err)
	}
	var res struct {
		Outcome, Error                         string
		NsPerRun, EventsPerSecond, MbPerSecond float64
	}
	for i := 0; i < b.N; i++ {
		cmd := exec.Command("node", "verify.mjs", "bench", file, "3")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("node: %v", err)
		}
		if err := json.Unmarshal(bytes.TrimSpace(out), &res); err != nil {
			b.Fatalf("node output %q: %v", out, err)
		}
		if res.Outcome != "completed" {
			b.Fatalf("the reference rejects the stream: %s", res.Error)
		}
	}
	b.ReportMetric(res.NsPerRun, "node-ns/record")
	b.ReportMetric(res.EventsPerSecond, "node-events/s")
	b.ReportMetric(res.MbPerSecond, "node-MB/s")
}
