package agui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"runtime/metrics"
	"slices"
	"testing"
	"testing/iotest"
	"time"

	"github.com/contractkit/contractkit/agui"
	"github.com/contractkit/contractkit/agui/livecheck"
	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/internal/cputime"
)

// loopbackRuns is the number of streams of the large record one operation
// of benchLoopback checks: 600 × 167 KB, 100 MB of record bytes in all.
const loopbackRuns = 600

// loopback is a server on 127.0.0.1 that answers every run request with
// body as an event stream, and the run request's body.
func loopback(b *testing.B, body []byte) (*httptest.Server, []byte) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", livecheck.MediaSSE)
		w.Write(body)
	}))
	b.Cleanup(srv.Close)
	b.Cleanup(livecheck.Client.CloseIdleConnections)
	return srv, []byte(`{"threadId":"t","runId":"r","messages":[],"state":{},"tools":[],"context":[],"forwardedProps":{}}`)
}

// benchLoopback checks 100 MB of live streams over one loopback connection:
// the server sends the large record as server-sent events for each of
// loopbackRuns run requests, which one client makes in turn over the one
// kept-alive connection. Each stream goes the way agui check --url takes
// it, through agui/livecheck: its run request and client, its reading of
// the body (read, framed and parsed on a goroutine of its own while the
// events before are checked), agui/sse and a Stream. One stream cannot be
// 100 MB and still be checked: both profiles reject a record past 524,288
// bytes and only count what comes after. Throughput is counted in the
// record's bytes, as for Check; the largest live heap seen after a stream
// (heap-MB) shows the memory stays flat over the 100 MB. Two more figures
// say where the time goes: the cores the process kept busy, its CPU time
// over the wall time (cpus: 2 would be both halves and the server always
// at work on a machine of two), and the time from a run request to its
// answer's headers, a stream (request-µs), which no checking overlaps.
func benchLoopback(b *testing.B, profile string) {
	data, body := agui.LargeSSE(b)
	events := recordEvents(b, data)
	srv, input := loopback(b, body)
	conns := 0
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if !info.Reused {
			conns++
		}
	}}
	traced := httptrace.WithClientTrace(context.Background(), trace)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := uint64(0)
	var requests time.Duration
	check := func() {
		ctx, cancel := context.WithCancel(traced)
		defer cancel()
		sent := time.Now()
		resp, err := livecheck.Post(ctx, srv.URL, input, nil)
		if err != nil {
			b.Fatal(err)
		}
		requests += time.Since(sent)
		run, err := livecheck.New(agui.Options{Profile: profile}, nil, func(f agui.Finding) { b.Fatalf("a finding in a valid stream: %v", f) })
		if err != nil {
			b.Fatal(err)
		}
		if err := run.ReadBody(resp.Body, livecheck.Hooks{Interrupt: cancel}); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		r, err := run.End()
		if err != nil || !r.Accepted || r.Events != events {
			b.Fatalf("the stream is not accepted live with the record's %d events: %v %v", events, err, r)
		}
		metrics.Read(sample)
		heap = max(heap, sample[0].Value.Uint64())
	}
	b.SetBytes(int64(len(data)) * loopbackRuns)
	var cpu time.Duration
	cpuOK := false
	agui.PerEvent(b, events*loopbackRuns, func() {
		var cpu0 time.Duration
		// The kernel's count, not the execution trace's, which counts a
		// goroutine in a system call as running even while its thread
		// waits in the kernel: only it tells how many cores the live path
		// keeps busy.
		cpu0, cpuOK = cputime.Process()
		for i := 0; i < b.N; i++ {
			for range loopbackRuns {
				check()
			}
		}
		cpu1, _ := cputime.Process()
		cpu = cpu1 - cpu0
	})
	if conns != 1 {
		b.Fatalf("the streams came over %d connections, not one", conns)
	}
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
	if cpuOK {
		b.ReportMetric(float64(cpu)/float64(b.Elapsed()), "cpus")
	}
	b.ReportMetric(float64(requests.Microseconds())/float64(b.N*loopbackRuns), "request-µs")
}

// BenchmarkAGUILoopbackStand and BenchmarkAGUILoopback11 check 100 MB of
// live streams over one loopback connection, under each profile.
func BenchmarkAGUILoopbackStand(b *testing.B) { benchLoopback(b, contract.ProfileStand) }
func BenchmarkAGUILoopback11(b *testing.B)    { benchLoopback(b, contract.ProfileAgUI11) }

// BenchmarkAGUILoopbackFloor makes the same loopbackRuns run requests of
// the same server as benchLoopback and reads each answer to its end in
// pieces of livecheck.PieceSize, checking nothing: the exchange alone, the
// floor of live checking over loopback. A stream checked live cannot take
// less than the exchange and the check together, so the throughput it can
// reach at most, for a checker of the file mode's speed, is
// 1 / (1/file + 1/floor).
func BenchmarkAGUILoopbackFloor(b *testing.B) {
	data, body := agui.LargeSSE(b)
	srv, input := loopback(b, body)
	buf := make([]byte, livecheck.PieceSize)
	b.SetBytes(int64(len(data)) * loopbackRuns)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for range loopbackRuns {
			resp, err := livecheck.Post(context.Background(), srv.URL, input, nil)
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{resp.Body}, buf)
			resp.Body.Close()
			if err != nil || n != int64(len(body)) {
				b.Fatalf("read %d of %d bytes: %v", n, len(body), err)
			}
		}
	}
}

// benchReadBody checks the large record as an event stream held in
// memory, the way a live stream is read (livecheck's ReadBody: framed and
// parsed on one goroutine, checked on the other) but without the network:
// beside BenchmarkAGUILive11, which frames, parses and checks on one
// goroutine (as the stand page does), it shows what the two halves
// running side by side buy.
func benchReadBody(b *testing.B, profile string) {
	data, body := agui.LargeSSE(b)
	events := recordEvents(b, data)
	b.SetBytes(int64(len(data)))
	agui.PerEvent(b, events, func() {
		for i := 0; i < b.N; i++ {
			run, err := livecheck.New(agui.Options{Profile: profile}, nil, func(f agui.Finding) { b.Fatalf("a finding in a valid stream: %v", f) })
			if err != nil {
				b.Fatal(err)
			}
			if err := run.ReadBody(bytes.NewReader(body), livecheck.Hooks{}); err != nil {
				b.Fatal(err)
			}
			if r, err := run.End(); err != nil || !r.Accepted || r.Events != events {
				b.Fatalf("the stream is not accepted live with the record's %d events: %v %v", events, err, r)
			}
		}
	})
}

// recordEvents is the number of events of a record, as Check counts them
// under the stand.
func recordEvents(tb testing.TB, record []byte) int {
	tb.Helper()
	r, err := agui.Check(record, agui.Options{Profile: contract.ProfileStand})
	if err != nil {
		tb.Fatal(err)
	}
	return r.Events
}

// The large record, read through ReadBody a few bytes at a time (its
// reading and checking halves on two goroutines, under the race detector
// in make test), gives the result Check gives for the record ReadBody
// saved, under each profile: tolerance edits, joined texts, patches and
// all.
func TestReadBodyLargeStream(t *testing.T) {
	record, body := agui.LargeSSE(t)
	events := recordEvents(t, record)
	for _, profile := range []string{contract.ProfileStand, contract.ProfileAgUI11} {
		var saved bytes.Buffer
		run, err := livecheck.New(agui.Options{Profile: profile}, func(line []byte) error {
			saved.Write(line)
			saved.WriteByte('\n')
			return nil
		}, func(f agui.Finding) { t.Errorf("%s: a finding in a valid stream: %v", profile, f) })
		if err != nil {
			t.Fatal(err)
		}
		if err := run.ReadBody(iotest.HalfReader(bytes.NewReader(body)), livecheck.Hooks{}); err != nil {
			t.Fatal(err)
		}
		live, err := run.End()
		if err != nil {
			t.Fatal(err)
		}
		file, err := agui.Check(saved.Bytes(), agui.Options{Profile: profile})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(live)
		want, _ := json.Marshal(file)
		if !live.Accepted || live.Events != events || !bytes.Equal(got, want) {
			t.Errorf("%s: live accepted %v with %d events; the result equals the file's: %v", profile, live.Accepted, live.Events, bytes.Equal(got, want))
		}
	}
}

// BenchmarkAGUIReadBodyStand and BenchmarkAGUIReadBody11 check the large
// stream held in memory through livecheck's ReadBody, under each profile.
func BenchmarkAGUIReadBodyStand(b *testing.B) { benchReadBody(b, contract.ProfileStand) }
func BenchmarkAGUIReadBody11(b *testing.B)    { benchReadBody(b, contract.ProfileAgUI11) }

// BenchmarkAGUIHandoffWake measures what one hand-over between the live
// path's two halves costs on this machine, checking nothing: the time from
// a channel send that wakes a goroutine waiting on it to the moment that
// goroutine runs, while the sender goes on working, as the reading half
// goes on reading after it hands a batch to a checker that waits. Between
// sends the sender works long enough for the waiting goroutine's core to
// fall idle, as the checker's does when it has caught up. The median and
// the 90th percentile go in wake-µs and wake-p90-µs: loopback ÷ file mode
// stays below what the halves could reach side by side by about these
// times the number of waits a stream.
func BenchmarkAGUIHandoffWake(b *testing.B) {
	wake := make(chan time.Time)
	woke := make(chan time.Duration, 1)
	go func() {
		for sent := range wake {
			woke <- time.Since(sent)
		}
	}()
	defer close(wake)
	work := func(d time.Duration) {
		for start := time.Now(); time.Since(start) < d; {
		}
	}
	waits := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		work(200 * time.Microsecond)
		wake <- time.Now()
		// Working while waiting for the report: a sender that blocked would
		// give its own core to the woken goroutine, which is not what the
		// reading half does.
		for waited := false; !waited; {
			select {
			case d := <-woke:
				waits = append(waits, d)
				waited = true
			default:
			}
		}
	}
	b.StopTimer()
	slices.Sort(waits)
	b.ReportMetric(float64(waits[len(waits)/2].Nanoseconds())/1e3, "wake-µs")
	b.ReportMetric(float64(waits[len(waits)*9/10].Nanoseconds())/1e3, "wake-p90-µs")
}
