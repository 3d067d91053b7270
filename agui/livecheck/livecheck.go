// Package livecheck is the live path of agui check --url and agui tap: an
// AG-UI event stream as an agent sends it over HTTP (server-sent events),
// framed by agui/sse, each event checked by an agui.Stream as it arrives.
// The commands and the loopback benchmark run this one path, so that what
// the benchmark measures is what a user gets.
package livecheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/contractkit/contractkit/agui"
	"github.com/contractkit/contractkit/agui/internal/recordtext"
	"github.com/contractkit/contractkit/agui/sse"
	contract "github.com/contractkit/contractkit/generated/agui"
)

// MediaSSE is the media type of the AG-UI SSE encoding, the one agui
// reads.
const MediaSSE = "text/event-stream"

// Client reads answers as they are sent: it asks for no compression and
// decompresses nothing, so a compressed stream is reported, not read. Its
// read buffer stays the transport's default (4 KiB): with a buffer as large
// as a piece, the body of a large chunk is copied twice, into the buffer
// and out of it, where a Read of a piece at least as large as the buffer
// bypasses it; the loopback benchmark spent ~15% more CPU with 64 KiB.
//
// It follows no redirect: the client of Go re-sends a run redirected with
// 301, 302 or 303 as a GET without its body, so the agent at the new
// address would answer a request that is not the run; and a 307 or 308
// would check an agent other than the one named. The redirect is the
// answer, and the caller reports it.
var Client = func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableCompression = true
	return &http.Client{Transport: t, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}()

// Post sends a run request, whose body is a RunAgentInput, asking for an
// event stream; headers are 'Name: value' lines added to the request. A
// header named there replaces Post's own of that name (Content-Type,
// Accept), and Host names the host the request is for.
func Post(ctx context.Context, target string, body []byte, headers []string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", MediaSSE)
	given := map[string]bool{}
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ":")
		name, value = http.CanonicalHeaderKey(strings.TrimSpace(name)), strings.TrimSpace(value)
		if name == "Host" {
			// Go sends the Host of the request, not of its headers.
			req.Host = value
			continue
		}
		if !given[name] {
			given[name] = true
			req.Header.Del(name)
		}
		req.Header.Add(name, value)
	}
	return Client.Do(req)
}

// Run is one run's event stream, checked (and saved) as it arrives.
type Run struct {
	// Stream is the checker of the run's events.
	Stream *agui.Stream
	save   func(line []byte) error
	report func(agui.Finding)
	// handoff, while ReadBody reads, takes the events read to the
	// checking goroutine; nil, each event is checked as soon as it is
	// read (Write).
	handoff *handoff
	// Parts, when set beside save, saves the line of an event too large
	// to hold as it arrives; without it such an event stops the run when
	// there is a record to save.
	Parts PartSaver

	// The fields above are set before the body is read and only read
	// after, by both goroutines (the checking one reads Stream and report
	// for every event). What follows is the reading goroutine's, written
	// for every event: a cache line apart, so that its writes do not move
	// the line the checking one reads (agui.Stream keeps its halves apart
	// alike).
	_ [128]byte

	parser *sse.Parser
	// parsed is the number of events read so far.
	parsed int
	// spilled is the size of the event being spilled so far, nonSpace
	// whether it holds anything but white space; crs is where its bytes
	// become the record's.
	spilled  int
	nonSpace bool
	crs      []byte
	// dropErr is why the saved bytes of an event the stream ended inside
	// could not be dropped (spill.Drop).
	dropErr error
}

// A PartSaver saves the line of an event too large to hold, part by part:
// its bytes as they arrive (line feeds already carriage returns, as Line
// makes them), then its end.
type PartSaver interface {
	Part(b []byte) error
	// EndPart ends the line: kept (its newline follows), or dropped when
	// the stream ended before the event did, which was then never sent
	// as an event.
	EndPart(keep bool) error
}

// spill takes the data of an event too large to hold (sse.Spill): it is
// saved as it arrives, and only its size is checked (agui.Stream.Oversized).
type spill struct{ r *Run }

func (sp spill) Data(b []byte) error {
	r := sp.r
	if r.save != nil {
		if r.Parts == nil {
			return r.tooLarge()
		}
		for rest := b; len(rest) > 0; {
			n := min(len(rest), 32<<10)
			r.crs = recordtext.Append(r.crs[:0], rest[:n])
			if err := r.Parts.Part(r.crs); err != nil {
				return fmt.Errorf("saving the record: %w", err)
			}
			rest = rest[n:]
		}
	}
	r.spilled += len(b)
	if !r.nonSpace && !recordtext.IsBlank(b) {
		r.nonSpace = true
	}
	return nil
}

// Drop drops the saved bytes of an event the stream ended inside. When the
// PartSaver cannot, the record holds them as a line of its own, which no
// event sent: it must not be kept as the record of the run, so End says
// so (dropErr) instead of giving a verdict.
func (sp spill) Drop() error {
	r := sp.r
	r.spilled, r.nonSpace = 0, false
	if r.save != nil && r.Parts != nil {
		if err := r.Parts.EndPart(false); err != nil {
			r.dropErr = fmt.Errorf("saving the record: the stream ended inside an event of more than %d bytes, whose bytes saved so far could not be dropped: %w", contract.LimitInputBytes, err)
			return r.dropErr
		}
	}
	return nil
}

// blank is the error of an event whose data holds no JSON value.
func (r *Run) blank() error {
	return fmt.Errorf("after %d events, an event whose data is empty or white space: it holds no JSON value, so a client's JSON parse fails on it and the run with it (@ag-ui/client's does); a record has no line for it (its line form skips blank lines), so agui cannot judge the stream as the record it would save", r.parsed)
}

// tooLarge is the error of an event the run cannot hold or save.
func (r *Run) tooLarge() error {
	return fmt.Errorf("after %d events, an event of more than %d bytes, the record's limit: agui does not hold it", r.parsed, contract.LimitInputBytes)
}

// New starts a run. save, when not nil, is given each event's line (the
// record's line, see agui.Stream.Line) before it is checked; report is
// called with each finding and warning as it is found.
func New(opt agui.Options, save func(line []byte) error, report func(agui.Finding)) (*Run, error) {
	s, err := agui.NewStream(opt)
	if err != nil {
		return nil, err
	}
	r := &Run{Stream: s, save: save, report: report}
	// An event whose line fits in a record within the byte limit is held
	// and checked; a larger one passes the limit whatever it says, so its
	// bytes are saved as they arrive, not held, and only its size is
	// checked. A comment or other line past the limit is dropped (the
	// event needs none of it), so no line stops the run.
	r.parser = sse.New(contract.LimitInputBytes-1, r.event)
	r.parser.Spill = spill{r}
	return r, nil
}

// event takes one event as the parser framed it: saved, read, and
// checked now or handed to the checking goroutine.
func (r *Run) event(e sse.Event) error {
	if e.Spilled {
		if !r.nonSpace {
			return r.blank()
		}
		p, ok := r.Stream.Oversized(r.spilled, true)
		r.spilled, r.nonSpace = 0, false
		if !ok {
			return r.tooLarge()
		}
		if r.save != nil {
			if err := r.Parts.EndPart(true); err != nil {
				return fmt.Errorf("saving the record: %w", err)
			}
		}
		r.parsed = p.Events()
		if r.handoff != nil {
			return r.handoff.add(p)
		}
		r.check(p)
		return nil
	}
	if recordtext.IsBlank(e.Data) {
		return r.blank()
	}
	line := r.Stream.LineWithCRs(e.Data, e.CRs)
	if r.save != nil {
		if err := r.save(line); err != nil {
			return fmt.Errorf("saving the record: %w", err)
		}
	}
	p := r.Stream.Parse(line)
	r.parsed = p.Events()
	if r.handoff != nil {
		return r.handoff.add(p)
	}
	r.check(p)
	return nil
}

// check checks one event read and reports what it found.
func (r *Run) check(p agui.Parsed) {
	for _, f := range r.Stream.Check(p) {
		r.report(f)
	}
}

// Write reads the next bytes of the stream, as they came, and checks the
// events they complete. (The parser has a Spill: no event or line is too
// large for it, and an event the run cannot take stops it in spill or
// event, with tooLarge.)
func (r *Run) Write(b []byte) (int, error) { return r.parser.Write(b) }

// SawCR reports whether a line of the stream so far ended with CR, alone
// or before LF (sse.Parser.SawCR). It is read once the body is read: after
// ReadBody, or on the goroutine that calls Write.
func (r *Run) SawCR() bool { return r.parser.SawCR() }

// End ends the stream and returns its result. What the end of the stream
// itself breaks (a run cut before it finished) is found now, and reported.
// It returns an *agui.InputError when the stream held no event, and an
// error that says so when the record being saved could not be ended as
// the stream was (the saved bytes of an event the stream ended inside
// could not be dropped).
func (r *Run) End() (*agui.Result, error) {
	r.parser.Close()
	stopped := r.Stream.Stopped()
	res, err := r.Stream.End()
	if r.dropErr != nil {
		return nil, r.dropErr
	}
	if err == nil && !stopped {
		for _, f := range res.Findings {
			r.report(f)
		}
	}
	return res, err
}

// PieceSize is the size of the pieces ReadBody reads the body in. Larger
// pieces cost more, not less: one of 64 or 128 KiB has left the cache by
// the time its last bytes are framed (the loopback benchmark spent 15% and
// 30% more CPU than with 32 KiB).
const PieceSize = 32 << 10

// Events read wait to be checked in batches of up to BatchEvents, at most
// Batches of them: the memory this takes is bounded, however far the
// network is ahead. A batch is handed over when it is full or a piece
// ends, whichever comes first: in batches of a whole piece, the checking
// goroutine waited for the first piece of every stream to be read and the
// reading one for the last to be checked, and a 204 KB stream is only
// seven pieces.
const (
	BatchEvents = 64
	Batches     = 16
)

// piecePool keeps the buffers of runs that ended for the next run: a
// process that reads stream after stream through ReadBody (a server, the
// benchmark; agui tap gives its streams to Write) would otherwise
// allocate one a stream, and the collector would have that to do.
var piecePool = sync.Pool{New: func() any { return new([PieceSize]byte) }}

// batchPool keeps the lists of events that waited to be checked, for the
// same reason.
var batchPool = sync.Pool{New: func() any { s := make([]agui.Parsed, 0, BatchEvents); return &s }}

// BodyError is an error of reading the body (the connection broke, the
// request was cancelled), as opposed to one of checking what was read.
type BodyError struct{ Err error }

func (e *BodyError) Error() string { return e.Err.Error() }
func (e *BodyError) Unwrap() error { return e.Err }

// Hooks are what the caller of ReadBody sees of the reading.
type Hooks struct {
	// Arrived is called after each read from the body, on the reading
	// goroutine (an idle timer's reset).
	Arrived func()
	// Checked is called after the events of each piece are checked, on
	// the caller's goroutine (a progress line).
	Checked func()
	// Interrupt is called when reading stops before the body ended (an
	// event too large to hold, a line that could not be saved, a panic
	// in a hook or in report): it should give the connection up (cancel
	// the request's context), so that a read waiting on it returns.
	Interrupt func()
}

// batch is a list of events read, handed to the checking goroutine.
type batch struct {
	events *[]agui.Parsed
	// pieceEnd is set on the last batch of a piece read.
	pieceEnd bool
	err      error // from the body, on the last batch
	stopErr  error // from framing or saving, on the last batch
}

// handoff takes the events the reading goroutine reads to the checking
// one.
type handoff struct {
	free chan *[]agui.Parsed
	full chan batch
	cur  *[]agui.Parsed // the batch being filled; nil until an event comes
	// quit is closed when the checking goroutine leaves ReadBody other
	// than by its returns (a panic in a hook, a test's Fatal in report):
	// nothing will give lists back, and the reader must not wait for one.
	quit chan struct{}
}

// errQuit stops the reading goroutine once the checking one has left.
var errQuit = errors.New("livecheck: the checking goroutine left ReadBody")

// take makes sure there is a batch being filled, waiting for a free list
// if need be; it is false once quit is closed.
func (h *handoff) take() bool {
	if h.cur != nil {
		return true
	}
	select {
	case h.cur = <-h.free:
		return true
	case <-h.quit:
		return false
	}
}

// add adds an event to the batch being filled, handing it over once full.
// full has room for every list, so handing over never waits.
func (h *handoff) add(p agui.Parsed) error {
	if !h.take() {
		return errQuit
	}
	*h.cur = append(*h.cur, p)
	if len(*h.cur) == BatchEvents {
		h.send(batch{}) // the batch is taken: send cannot wait for one
	}
	return nil
}

// send hands over the batch being filled, empty as it may be, with b's
// marks; it is false once quit is closed.
func (h *handoff) send(b batch) bool {
	if !h.take() {
		return false
	}
	b.events = h.cur
	h.full <- b
	h.cur = nil
	return true
}

// ReadBody reads body to its end into the run and returns nil, a
// *BodyError when reading it failed, or the error Write would have
// returned.
//
// Reading and checking are two halves that run side by side: a goroutine
// of its own reads the body a piece at a time, frames its events, saves
// their lines and parses them (agui.Stream.Parse), while the caller's
// goroutine checks the events read before, in order (agui.Stream.Check),
// and calls report and the hooks. Waiting for the network, the system
// calls, the HTTP chunked decoding and the parsing then overlap with
// checking instead of adding to it. The goroutine has ended when ReadBody
// returns, however the stream ended; if a hook or report panics, the
// goroutine is stopped (with Interrupt, should it be reading) and waited
// for before the panic goes on.
func (r *Run) ReadBody(body io.Reader, h Hooks) error {
	ho := &handoff{free: make(chan *[]agui.Parsed, Batches), full: make(chan batch, Batches), quit: make(chan struct{})}
	for range Batches {
		ho.free <- batchPool.Get().(*[]agui.Parsed)
	}
	r.handoff = ho
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := piecePool.Get().(*[PieceSize]byte)
		defer piecePool.Put(buf)
		for {
			n, err := body.Read(buf[:])
			if h.Arrived != nil {
				h.Arrived()
			}
			var stopErr error
			if n > 0 {
				_, stopErr = r.Write(buf[:n])
			}
			if errors.Is(stopErr, errQuit) || !ho.send(batch{pieceEnd: n > 0, err: err, stopErr: stopErr}) {
				return
			}
			if err != nil || stopErr != nil {
				return
			}
		}
	}()
	returned := false
	defer func() {
		if !returned {
			// A panic or Goexit on this goroutine: the lists may be
			// anywhere, and the collector has them.
			close(ho.quit)
			if h.Interrupt != nil {
				h.Interrupt()
			}
			<-done
			r.handoff = nil
			return
		}
		// The last batch was the reader's last act: every list is back.
		<-done
		r.handoff = nil
		for range Batches {
			batchPool.Put(<-ho.free)
		}
	}()
	err := r.checkBatches(ho, h)
	returned = true
	return err
}

// checkBatches checks the batches the reading goroutine hands over until
// its last, and returns what ended the stream.
func (r *Run) checkBatches(ho *handoff, h Hooks) error {
	for {
		b := <-ho.full
		for _, e := range *b.events {
			r.check(e)
		}
		clear(*b.events) // what they refer to is the stream's to keep or free
		*b.events = (*b.events)[:0]
		ho.free <- b.events
		if b.stopErr != nil {
			if h.Interrupt != nil {
				h.Interrupt()
			}
			return b.stopErr
		}
		if b.pieceEnd && h.Checked != nil {
			h.Checked()
		}
		switch {
		case b.err == io.EOF:
			return nil
		case b.err != nil:
			return &BodyError{b.err}
		}
	}
}
