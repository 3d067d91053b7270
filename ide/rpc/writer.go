package rpc

import (
	"io"
	"sync"
)

// writer is the only owner of the output. Its queue is bounded by what it
// really holds: the capacity of every buffer queued or being written, not
// only the frames' lengths. When it is full, senders wait, so a client
// that stops reading slows the worker down instead of growing memory.
//
// Small frames are copied into chunks the writer owns, so a flood of short
// responses costs one buffer per chunkSize bytes (and one write each)
// rather than one allocation and one write per frame; large pieces are
// queued as they are, without a copy.
type writer struct {
	out    io.Writer
	max    int
	onFail func()

	mu       sync.Mutex
	cond     *sync.Cond
	parts    [][]byte // queued output, in order
	owned    []bool   // aligned with parts: a chunk of the writer's own
	tail     bool     // the last part is an owned chunk still taking copies
	held     int      // capacity of the queued parts plus the bytes being written
	writing  bool
	silenced bool
	failed   bool
	spare    [][]byte // written chunks kept for reuse
}

const (
	// chunkSize is the size of the writer's own chunks.
	chunkSize = 64 << 10
	// copyBelow is the largest piece the writer copies into a chunk; larger
	// pieces are queued as the caller's memory.
	copyBelow = 8 << 10
	// maxSpare bounds the chunks kept for reuse.
	maxSpare = 4
)

func newWriter(out io.Writer, max int, onFail func()) *writer {
	w := &writer{out: out, max: max, onFail: onFail}
	w.cond = sync.NewCond(&w.mu)
	return w
}

// send queues the pieces of one frame, waiting while the queue is full. A
// frame larger than the whole queue is accepted once the queue is empty.
// It reports whether the writer kept any piece (queued it without a
// copy); if not, the caller may reuse its memory.
func (w *writer) send(parts ...[]byte) (kept bool) { return w.put(parts, false) }

// sendInline is send for the worker: when nothing is queued or being
// written, it writes the frame itself, so the common case of one response
// at a time costs no goroutine hand-off, and a client that stops reading
// pauses the worker. The output still has one writer at a time. The
// reader never writes inline: it must stay free to read cancellations.
func (w *writer) sendInline(parts ...[]byte) (kept bool) { return w.put(parts, true) }

func (w *writer) put(parts [][]byte, inline bool) (kept bool) {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	w.mu.Lock()
	for !w.silenced && !w.failed && w.held > 0 && w.held+size > w.max {
		w.cond.Wait()
	}
	if w.silenced || w.failed {
		w.mu.Unlock()
		return false
	}
	if inline && !w.writing && len(w.parts) == 0 {
		w.writing = true
		w.held += size
		w.mu.Unlock()
		err := writeAll(w.out, parts)
		w.mu.Lock()
		w.writing = false
		if w.held -= size; w.silenced || w.failed {
			w.held = 0
		}
		w.done(err)
		return false
	}
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		if len(p) < copyBelow {
			w.copyIn(p)
			continue
		}
		w.parts = append(w.parts, p)
		w.owned = append(w.owned, false)
		w.tail = false
		w.held += cap(p)
		kept = true
	}
	w.cond.Broadcast()
	w.mu.Unlock()
	return kept
}

// copyIn appends p to the open chunk, opening chunks as needed.
func (w *writer) copyIn(p []byte) {
	for len(p) > 0 {
		if !w.tail || len(w.parts[len(w.parts)-1]) == cap(w.parts[len(w.parts)-1]) {
			var c []byte
			if n := len(w.spare); n > 0 {
				c, w.spare = w.spare[n-1][:0], w.spare[:n-1]
			} else {
				// A queue bound far below a chunk (in tests) gets chunks to
				// match, so that one chunk never stands for the whole bound.
				c = make([]byte, 0, min(chunkSize, max(w.max/8, len(p))))
			}
			w.parts = append(w.parts, c)
			w.owned = append(w.owned, true)
			w.tail = true
			w.held += cap(c)
		}
		last := &w.parts[len(w.parts)-1]
		n := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:n]...)
		p = p[n:]
	}
}

// waitRoom waits until the queue can take n more bytes (or is empty), so
// that a response of up to n bytes built next never has to wait with its
// memory held outside the count. It reports false once nothing more will
// be written.
func (w *writer) waitRoom(n int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.silenced && !w.failed && w.held > 0 && w.held+n > w.max {
		w.cond.Wait()
	}
	return !w.silenced && !w.failed
}

// done records the end of a write, under w.mu, which it releases; a
// failure is the end of the output.
func (w *writer) done(err error) {
	if err != nil {
		// Broken stdout: nothing more can be delivered.
		w.failed = true
		w.parts, w.owned, w.tail = nil, nil, false
		w.held = 0
	}
	w.cond.Broadcast()
	w.mu.Unlock()
	if err != nil {
		w.onFail()
	}
}

func writeAll(out io.Writer, parts [][]byte) error {
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		if _, err := out.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// flush waits until every queued frame is written (or dropped).
func (w *writer) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for (len(w.parts) > 0 || w.writing) && !w.silenced && !w.failed {
		w.cond.Wait()
	}
}

// silence drops queued frames and refuses new ones.
func (w *writer) silence() {
	w.mu.Lock()
	w.silenced = true
	w.parts, w.owned, w.tail, w.spare = nil, nil, false, nil
	w.held = 0
	w.cond.Broadcast()
	w.mu.Unlock()
}

// holding reports the bytes the queue holds now.
func (w *writer) holding() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.held
}

func (w *writer) run() {
	for {
		w.mu.Lock()
		for (len(w.parts) == 0 || w.writing) && !w.silenced && !w.failed {
			w.cond.Wait()
		}
		if w.silenced || w.failed {
			w.mu.Unlock()
			return
		}
		// Everything queued goes out in order; the open chunk is sealed,
		// so later copies start a new one.
		parts, owned := w.parts, w.owned
		w.parts, w.owned, w.tail = nil, nil, false
		w.writing = true
		w.mu.Unlock()
		err := writeAll(w.out, parts)
		w.mu.Lock()
		w.writing = false
		for i, p := range parts {
			w.held -= cap(p)
			if owned[i] && len(w.spare) < maxSpare && err == nil && !w.silenced {
				w.spare = append(w.spare, p[:0])
			}
		}
		if w.failed || w.silenced {
			w.held = 0
		}
		w.done(err)
	}
}
