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
var Client = func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableCompression = true
	return &http.Client{Transport: t}
}()

// Post sends a run request, whose body is a RunAgentInput, asking for an
// event stream; headers are 'Name: value' lines added to the request.
func Post(ctx context.Context, target string, body []byte, headers []string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", MediaSSE)
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ":")
		req.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	return Client.Do(req)
}

// Run is one run's event stream, checked (and saved) as it arrives.
type Run struct {
	// Stream is the checker of the run's events.
	Stream *agui.Stream
	parser *sse.Parser
	report func(agui.Finding)
}

// New starts a run. save, when not nil, is given each event's line (the
// record's line, see agui.Stream.Line) before it is checked; report is
// called with each finding and warning as it is found.
func New(opt agui.Options, save func(line []byte) error, report func(agui.Finding)) (*Run, error) {
	s, err := agui.NewStream(opt)
	if err != nil {
		return nil, err
	}
	r := &Run{Stream: s, report: report}
	// One event larger than the record's byte limit could not be saved
	// or checked whole; the parser holds no more than that.
	r.parser = sse.New(contract.LimitInputBytes, func(e sse.Event) error {
		line := s.Line(e.Data)
		if save != nil {
			if err := save(line); err != nil {
				return fmt.Errorf("saving the record: %w", err)
			}
		}
		for _, f := range s.Event(line) {
			report(f)
		}
		return nil
	})
	return r, nil
}

// Write reads the next bytes of the stream, as they came.
func (r *Run) Write(b []byte) (int, error) {
	n, err := r.parser.Write(b)
	if errors.Is(err, sse.ErrTooLarge) {
		return n, fmt.Errorf("after %d events, an event of more than %d bytes, the record's limit: agui does not hold it", r.Stream.Events(), contract.LimitInputBytes)
	}
	return n, err
}

// End ends the stream and returns its result. What the end of the stream
// itself breaks (a run cut before it finished) is found now, and reported.
func (r *Run) End() (*agui.Result, error) {
	r.parser.Close()
	stopped := r.Stream.Stopped()
	res, err := r.Stream.End()
	if err == nil && !stopped {
		for _, f := range res.Findings {
			r.report(f)
		}
	}
	return res, err
}

// PieceSize is the size of the pieces ReadBody reads the body in, and
// Pieces how many it holds at most: the memory it takes is fixed. Larger
// pieces cost more, not less: a piece is checked after it was read, and
// one of 64 or 128 KiB has left the cache by then (the loopback benchmark
// spent 15% and 30% more CPU than with 32 KiB).
const (
	PieceSize = 32 << 10
	Pieces    = 4
)

// piecePool keeps the rings of runs that ended for the next run: a
// process that checks stream after stream (agui tap, a server, the
// benchmark) would otherwise allocate 128 KiB a stream, which doubled the
// bytes the loopback benchmark allocated and the collector's work.
var piecePool = sync.Pool{New: func() any { return new([PieceSize]byte) }}

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
	// Checked is called after each piece is checked, on the caller's
	// goroutine (a progress line).
	Checked func()
	// Interrupt is called when checking stops before the body ended: it
	// must make a Read blocked on the body return (cancel the request's
	// context), so that the reading goroutine ends.
	Interrupt func()
}

// ReadBody reads body to its end into the run and returns nil, a
// *BodyError when reading it failed, or the error Write returned.
//
// The body is read on a goroutine of its own into a ring of Pieces
// buffers while the run checks the piece read before: waiting for the
// network, the system calls and the HTTP chunked decoding then overlap
// with checking instead of adding to it. The goroutine has ended when
// ReadBody returns, however the stream ended.
func (r *Run) ReadBody(body io.Reader, h Hooks) error {
	type piece struct {
		b   []byte
		err error
	}
	free := make(chan []byte, Pieces)
	full := make(chan piece, Pieces)
	var ring [Pieces]*[PieceSize]byte
	for i := range ring {
		ring[i] = piecePool.Get().(*[PieceSize]byte)
		free <- ring[i][:]
	}
	// Every return below waits for the goroutine first, and the parser
	// keeps nothing of a piece after Write: the ring is free again.
	defer func() {
		for _, b := range ring {
			piecePool.Put(b)
		}
	}()
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			var buf []byte
			select {
			case buf = <-free:
			case <-quit:
				return
			}
			n, err := body.Read(buf)
			if h.Arrived != nil {
				h.Arrived()
			}
			// full has room for every buffer, so this never blocks.
			full <- piece{buf[:n], err}
			if err != nil {
				return
			}
		}
	}()
	for {
		p := <-full
		if len(p.b) > 0 {
			if _, err := r.Write(p.b); err != nil {
				close(quit)
				if h.Interrupt != nil {
					h.Interrupt()
				}
				<-done
				return err
			}
			if h.Checked != nil {
				h.Checked()
			}
		}
		switch {
		case p.err == io.EOF:
			<-done
			return nil
		case p.err != nil:
			<-done
			return &BodyError{p.err}
		}
		free <- p.b[:cap(p.b)]
	}
}
