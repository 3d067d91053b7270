package main

import (
	"bytes"
	"fmt"
	"io"
	"runtime/trace"
	"strings"
	"testing"
	"time"

	xtrace "golang.org/x/exp/trace"

	"github.com/contractkit/contractkit/agui"
	"github.com/contractkit/contractkit/agui/livecheck"
	contract "github.com/contractkit/contractkit/generated/agui"
)

// stream is a short valid run as server-sent events.
func stream(messages int) []byte {
	var b strings.Builder
	event := func(s string) { fmt.Fprintf(&b, "data: %s\n\n", s) }
	event(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`)
	for i := range messages {
		event(fmt.Sprintf(`{"type":"TEXT_MESSAGE_START","messageId":"m%d","role":"assistant"}`, i))
		event(fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m%d","delta":"hello"}`, i))
		event(fmt.Sprintf(`{"type":"TEXT_MESSAGE_END","messageId":"m%d"}`, i))
	}
	event(`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`)
	return []byte(b.String())
}

// traced checks runs streams through livecheck's two halves under an
// execution trace, with a pause between streams, and returns the trace.
func traced(t *testing.T, runs int, pause time.Duration) []byte {
	t.Helper()
	body := stream(200)
	var out bytes.Buffer
	if err := trace.Start(&out); err != nil {
		t.Skipf("an execution trace is already running (go test -trace): %v", err)
	}
	for range runs {
		run, err := livecheck.New(agui.Options{Profile: contract.ProfileAgUI11}, nil, func(f agui.Finding) { t.Errorf("a finding in a valid stream: %v", f) })
		if err != nil {
			t.Fatal(err)
		}
		if err := run.ReadBody(bytes.NewReader(body), livecheck.Hooks{}); err != nil {
			t.Fatal(err)
		}
		if r, err := run.End(); err != nil || !r.Accepted {
			t.Fatalf("the stream is not accepted: %v %v", err, r)
		}
		time.Sleep(pause)
	}
	trace.Stop()
	return out.Bytes()
}

// Every stream's reading half is found, its life and the gaps between
// streams are split without remainder, and the checking half is seen
// waiting in the gaps, where the test sleeps.
func TestAnalyze(t *testing.T) {
	const runs = 5
	pause := 20 * time.Millisecond
	rep, err := analyze(bytes.NewReader(traced(t, runs, pause)))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Streams != runs {
		t.Fatalf("%d streams found, want %d", rep.Streams, runs)
	}
	var lives, gaps time.Duration
	for _, d := range rep.Lives {
		lives += d
	}
	for _, d := range rep.Gaps {
		gaps += d
	}
	if lives != rep.Life || gaps != rep.Gap {
		t.Errorf("the parts do not add up: lives %v of %v, gaps %v of %v", lives, rep.Life, gaps, rep.Gap)
	}
	if rep.Life <= 0 {
		t.Errorf("the reading halves lived %v", rep.Life)
	}
	// runs-1 gaps, each at least the pause, spent by the checking half
	// asleep.
	if min := time.Duration(runs-1) * pause; rep.Gap < min || rep.Gaps[xtrace.GoWaiting] < min {
		t.Errorf("gaps %v, the checking half waiting %v of them; want at least %v", rep.Gap, rep.Gaps[xtrace.GoWaiting], min)
	}
	var out strings.Builder
	rep.print(&out)
	if !strings.HasPrefix(out.String(), fmt.Sprintf("%d streams; µs a stream\n", runs)) {
		t.Errorf("report begins %q", out.String()[:min(len(out.String()), 40)])
	}
}

// A trace with no live check in it has no stream.
func TestAnalyzeNoStream(t *testing.T) {
	var out bytes.Buffer
	if err := trace.Start(&out); err != nil {
		t.Skipf("an execution trace is already running (go test -trace): %v", err)
	}
	done := make(chan struct{})
	go func() { close(done) }()
	<-done
	trace.Stop()
	rep, err := analyze(&out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Streams != 0 || rep.Life != 0 || rep.Gap != 0 {
		t.Errorf("streams %d, life %v, gap %v in a trace without a live check", rep.Streams, rep.Life, rep.Gap)
	}
}

// Bytes that are not a trace are refused with an error, not a panic.
func TestAnalyzeNotATrace(t *testing.T) {
	for _, in := range []string{"", "go 1.26 tr", "not a trace at all", "go 1.26 trace\x00\xff\xff\xff\xff"} {
		if _, err := analyze(strings.NewReader(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// The time before a stream whose checking half is another goroutine is
// not a gap between streams (in the loopback benchmark it holds a run's
// end and the next one's setup): two goroutines check two streams each,
// one after the other, a short pause after each stream and a long one
// between the goroutines; only the short pause between two streams of
// one goroutine counts, twice.
func TestAnalyzeGapsOfOneChecker(t *testing.T) {
	const short, long = 20 * time.Millisecond, 300 * time.Millisecond
	body := stream(200)
	var out bytes.Buffer
	if err := trace.Start(&out); err != nil {
		t.Skipf("an execution trace is already running (go test -trace): %v", err)
	}
	for g := range 2 {
		if g > 0 {
			time.Sleep(long)
		}
		errs := make(chan error, 1)
		go func() {
			for range 2 {
				run, err := livecheck.New(agui.Options{Profile: contract.ProfileAgUI11}, nil, func(f agui.Finding) { t.Errorf("a finding in a valid stream: %v", f) })
				if err == nil {
					err = run.ReadBody(bytes.NewReader(body), livecheck.Hooks{})
				}
				if err != nil {
					errs <- err
					return
				}
				if r, err := run.End(); err != nil || !r.Accepted {
					errs <- fmt.Errorf("the stream is not accepted: %v %v", err, r)
					return
				}
				time.Sleep(short)
			}
			errs <- nil
		}()
		if err := <-errs; err != nil {
			trace.Stop()
			t.Fatal(err)
		}
	}
	trace.Stop()
	rep, err := analyze(&out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Streams != 4 || rep.Gapn != 2 {
		t.Fatalf("%d streams and %d gaps found, want 4 and 2", rep.Streams, rep.Gapn)
	}
	if rep.Gap < 2*short || rep.Gap >= long {
		t.Errorf("gaps %v; want the two short pauses (%v each), not the long one (%v)", rep.Gap, short, long)
	}
}

// busyReader works before every Read, on its own goroutine's time, and
// hands out at most chunk bytes a Read: a body whose reading keeps the
// reading half running while the checking half has nothing to check.
type busyReader struct {
	r     io.Reader
	work  time.Duration
	chunk int
}

func (b *busyReader) Read(p []byte) (int, error) {
	for start := time.Now(); time.Since(start) < b.work; {
	}
	return b.r.Read(p[:min(len(p), b.chunk)])
}

// A stream's life is split by the state of each half, each in its place:
// while the body's reads work, the reading half runs and the checking
// half waits for a batch.
func TestAnalyzeReaderRunsCheckerWaits(t *testing.T) {
	const work = 5 * time.Millisecond
	body := stream(200)
	chunk := len(body)/8 + 1
	var out bytes.Buffer
	if err := trace.Start(&out); err != nil {
		t.Skipf("an execution trace is already running (go test -trace): %v", err)
	}
	run, err := livecheck.New(agui.Options{Profile: contract.ProfileAgUI11}, nil, func(f agui.Finding) { t.Errorf("a finding in a valid stream: %v", f) })
	if err == nil {
		err = run.ReadBody(&busyReader{r: bytes.NewReader(body), work: work, chunk: chunk}, livecheck.Hooks{})
	}
	if err == nil {
		if r, e := run.End(); e != nil || !r.Accepted {
			err = fmt.Errorf("the stream is not accepted: %v %v", e, r)
		}
	}
	trace.Stop()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := analyze(&out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Streams != 1 {
		t.Fatalf("%d streams found, want 1", rep.Streams)
	}
	// Nine reads, each after the work. On a loaded machine the reading
	// half may wait for a core for much of it, so what is held to is the
	// time it was seen running: some of the work at least, and for most
	// of that time the checking half waiting, as it has nothing to check.
	var running time.Duration
	for p, d := range rep.Lives {
		if p.reader == xtrace.GoRunning {
			running += d
		}
	}
	if min := 9 * work / 8; running < min {
		t.Errorf("the reading half seen running for %v of the stream's %v; want at least %v (all: %v)", running, rep.Life, min, rep.Lives)
	}
	if got := rep.Lives[pair{xtrace.GoRunning, xtrace.GoWaiting}]; got < running/2 {
		t.Errorf("the reading half running and the checking half waiting for %v of the %v the reading half ran; want at least half (all: %v)", got, running, rep.Lives)
	}
}
