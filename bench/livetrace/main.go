// Command livetrace reads an execution trace of live checks made through
// livecheck's ReadBody, as agui check --url and the loopback benchmark
// make them (agui tap reads a stream on one goroutine: it has no two
// halves), stream by stream, and prints where a stream's time goes: how
// long its two halves (livecheck's reading goroutine and the goroutine
// that checks) each ran, waited for a core, or waited for the other, and
// what came between one stream's reading half ending and the next one's
// starting.
//
// Usage, from bench/livetrace (a module of its own):
//
//	go run . TRACE
//
// make agui-trace takes such a trace of the loopback benchmark and reads
// it. A stream is the life of one reading goroutine, the one
// livecheck.(*Run).ReadBody starts; the goroutine that started it is the
// checking half. The trace counts a goroutine in a system call as
// running even while its thread waits in the kernel, so the times below
// are the scheduler's view, not CPU time: the loopback benchmark reports
// the cores the process kept busy beside them.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/exp/trace"
)

// readerStart is the function whose goroutines are the reading halves:
// a goroutine that starts in a function literal of ReadBody reads one
// stream. (The goroutine's start, not the stack that created it: the
// collector's workers are created on whatever stack first allocates.)
const readerStart = "/agui/livecheck.(*Run).ReadBody.func"

func main() {
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: livetrace TRACE\n\nReads an execution trace of live checks (go test -trace, runtime/trace) and prints where a stream's time goes.\n")
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "livetrace:", err)
		os.Exit(1)
	}
	defer f.Close()
	rep, err := analyze(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "livetrace: %s: %v\n", flag.Arg(0), err)
		os.Exit(1)
	}
	if rep.Streams == 0 {
		fmt.Fprintf(os.Stderr, "livetrace: %s: no stream: no goroutine started in %s\n", flag.Arg(0), readerStart)
		os.Exit(1)
	}
	rep.print(os.Stdout)
}

// report is what analyze found, summed over the streams.
type report struct {
	Streams int
	// Life is the time from each reading goroutine's creation to its end;
	// Lives splits it by the states of the two halves.
	Life  time.Duration
	Lives map[pair]time.Duration
	// Gap is the time from a reading goroutine's end to the next one's
	// creation by the same checking half, over Gapn such gaps; Gaps splits
	// it by the checking half's state. The time before a stream whose
	// checking half is another goroutine is left out: it is not between
	// two streams of one live check (in a benchmark, it holds the end of
	// one run of the function and the setup of the next).
	Gap  time.Duration
	Gapn int
	Gaps map[trace.GoState]time.Duration
}

// pair is the state of the reading and of the checking half at once.
type pair struct{ reader, checker trace.GoState }

// analyze reads a trace and sums each stream's time by the states of its
// halves.
func analyze(r io.Reader) (*report, error) {
	tr, err := trace.NewReader(r)
	if err != nil {
		return nil, err
	}
	rep := &report{Lives: map[pair]time.Duration{}, Gaps: map[trace.GoState]time.Duration{}}
	gap := map[trace.GoState]time.Duration{} // since the last stream ended
	const none = trace.NoGoroutine
	reader, checker := none, none
	var readerState, checkerState trace.GoState
	var last, started, ended trace.Time
	for {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		now := ev.Time()
		if last != 0 {
			d := now.Sub(last)
			switch {
			case reader != none:
				rep.Lives[pair{readerState, checkerState}] += d
			case ended != 0:
				gap[checkerState] += d
			}
		}
		last = now
		if ev.Kind() != trace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != trace.ResourceGoroutine {
			continue
		}
		id := st.Resource.Goroutine()
		from, to := st.Goroutine()
		if from == trace.GoNotExist && reader == none && startsIn(st, readerStart) {
			c := ev.Goroutine()
			if ended != 0 && c == checker {
				// The gap before this stream counts only now that a
				// stream of the same checking half follows it: the time
				// after the last one is not between streams.
				rep.Gap += now.Sub(ended)
				rep.Gapn++
				for k, d := range gap {
					rep.Gaps[k] += d
				}
			}
			clear(gap)
			reader, readerState, started = id, to, now
			if c != checker {
				// A checking half seen for the first time: its state
				// is running, as it creates the reader.
				checker, checkerState = c, trace.GoRunning
			}
			continue
		}
		switch id {
		case reader:
			readerState = to
			if to == trace.GoNotExist {
				rep.Life += now.Sub(started)
				rep.Streams++
				reader, ended = none, now
			}
		case checker:
			checkerState = to
		}
	}
	return rep, nil
}

// startsIn reports whether st, a goroutine's creation, starts the
// goroutine in a function whose name contains fn.
func startsIn(st trace.StateTransition, fn string) bool {
	for f := range st.Stack.Frames() {
		return strings.Contains(f.Func, fn) // the first frame is where it starts
	}
	return false
}

// print writes the report, in microseconds a stream, and the gaps in
// microseconds a gap.
func (rep *report) print(w io.Writer) {
	per := func(n int) func(time.Duration) string {
		return func(d time.Duration) string {
			if n == 0 {
				return fmt.Sprintf("%8s", "-")
			}
			return fmt.Sprintf("%8.1f", float64(d/time.Duration(n))/1e3)
		}
	}
	us := per(rep.Streams)
	fmt.Fprintf(w, "%d streams; µs a stream\n", rep.Streams)
	fmt.Fprintf(w, "%s  the reading half's life\n", us(rep.Life))
	both := rep.Lives[pair{trace.GoRunning, trace.GoRunning}]
	readerOnly := rep.Lives[pair{trace.GoRunning, trace.GoRunnable}] + rep.Lives[pair{trace.GoRunning, trace.GoWaiting}]
	checkerOnly := rep.Lives[pair{trace.GoRunnable, trace.GoRunning}] + rep.Lives[pair{trace.GoWaiting, trace.GoRunning}]
	fmt.Fprintf(w, "%s    both halves running\n", us(both))
	fmt.Fprintf(w, "%s    the reading half running, the checking half runnable (waiting for a core)\n", us(rep.Lives[pair{trace.GoRunning, trace.GoRunnable}]))
	fmt.Fprintf(w, "%s    the reading half running, the checking half waiting (for a batch)\n", us(rep.Lives[pair{trace.GoRunning, trace.GoWaiting}]))
	fmt.Fprintf(w, "%s    the checking half running, the reading half runnable (waiting for a core)\n", us(rep.Lives[pair{trace.GoRunnable, trace.GoRunning}]))
	fmt.Fprintf(w, "%s    the checking half running, the reading half waiting (for the body or a free list)\n", us(rep.Lives[pair{trace.GoWaiting, trace.GoRunning}]))
	fmt.Fprintf(w, "%s    the rest (system calls, both waiting or runnable)\n", us(rep.Life-both-readerOnly-checkerOnly))
	us = per(rep.Gapn)
	fmt.Fprintf(w, "%d gaps between two streams of one checking half; µs a gap\n", rep.Gapn)
	fmt.Fprintf(w, "%s  from one reading half's end to the next one's start\n", us(rep.Gap))
	fmt.Fprintf(w, "%s    the checking half running (its last batches, End, the next request)\n", us(rep.Gaps[trace.GoRunning]))
	fmt.Fprintf(w, "%s    the checking half runnable (waiting for a core)\n", us(rep.Gaps[trace.GoRunnable]))
	fmt.Fprintf(w, "%s    the checking half waiting (for the next answer)\n", us(rep.Gaps[trace.GoWaiting]))
	fmt.Fprintf(w, "%s    the checking half in a system call\n", us(rep.Gaps[trace.GoSyscall]))
}
