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
// What waits in the queue is copied into chunks the writer owns, allocated
// outside the Go heap where the system allows (see offheap): a full queue
// then costs its size in memory and no more, because the collector does
// not count it when it decides how far the heap may grow. A frame written
// at once (sendInline with nothing queued) is written from the caller's
// memory without a copy.
type writer struct {
	out    io.Writer
	max    int
	onFail func()

	mu sync.Mutex
	// cond wakes senders waiting for room and flush waiting for the end;
	// ready wakes run, only when there is queued output for it or an end.
	// They are apart so that a frame written inline, the usual case, does
	// not wake run's goroutine for nothing: a wake of a parked goroutine
	// costs a thread wake-up, about as much as the write itself.
	cond     *sync.Cond
	ready    *sync.Cond
	parts    [][]byte // queued output in the writer's chunks, in order
	open     bool     // the last part still takes copies
	held     int      // capacity of the queued chunks plus the bytes being written
	writing  bool
	silenced bool
	failed   bool
	spare    [][]byte // written chunks kept for reuse
}

const (
	// chunkSize is the size of the writer's chunks; a piece larger than a
	// chunk gets a chunk of its own size.
	chunkSize = 64 << 10
	// copyBelow is the largest result the worker copies into a response;
	// a larger one is passed to the writer as the handler's memory.
	copyBelow = 8 << 10
	// maxSpare bounds the chunks kept for reuse.
	maxSpare = 4
)

func newWriter(out io.Writer, max int, onFail func()) *writer {
	w := &writer{out: out, max: max, onFail: onFail}
	w.cond = sync.NewCond(&w.mu)
	w.ready = sync.NewCond(&w.mu)
	return w
}

// send queues the pieces of one frame, waiting while the queue is full. A
// frame larger than the whole queue is accepted once the queue is empty.
// The pieces are copied: the caller may reuse them when send returns.
func (w *writer) send(parts ...[]byte) { w.put(parts, false) }

// sendInline is send for the worker: when nothing is queued or being
// written, it writes the frame itself, so the common case of one response
// at a time costs no goroutine hand-off, and a client that stops reading
// pauses the worker. The output still has one writer at a time. The
// reader never writes inline: it must stay free to read cancellations.
func (w *writer) sendInline(parts ...[]byte) { w.put(parts, true) }

func (w *writer) put(parts [][]byte, inline bool) {
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
		return
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
		return
	}
	for _, p := range parts {
		w.copyIn(p)
	}
	w.ready.Signal()
	w.mu.Unlock()
}

// adopt queues the pieces of one frame as they are, without a copy: they
// become the writer's, which gives them back (release) once written. The
// caller allocated them for this (offheap, or the heap) and never touches
// them again.
func (w *writer) adopt(parts ...[]byte) {
	size := 0
	for _, p := range parts {
		size += cap(p)
	}
	w.mu.Lock()
	for !w.silenced && !w.failed && w.held > 0 && w.held+size > w.max {
		w.cond.Wait()
	}
	if w.silenced || w.failed {
		w.mu.Unlock()
		for _, p := range parts {
			release(p)
		}
		return
	}
	w.parts = append(w.parts, parts...)
	w.open = false
	w.held += size
	w.ready.Signal()
	w.mu.Unlock()
}

// copyIn appends p to the open chunk, opening chunks as needed; the
// caller holds w.mu.
func (w *writer) copyIn(p []byte) {
	for len(p) > 0 {
		if !w.open || len(w.parts[len(w.parts)-1]) == cap(w.parts[len(w.parts)-1]) {
			w.parts = append(w.parts, w.chunk(len(p)))
			w.open = true
		}
		last := &w.parts[len(w.parts)-1]
		n := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:n]...)
		p = p[n:]
	}
}

// chunk returns an empty chunk for a piece of n bytes: a spare one, or a
// new one of chunkSize, or of n when n is larger. A queue bound far below
// a chunk (in tests) gets chunks to match, so that one chunk never stands
// for the whole bound.
func (w *writer) chunk(n int) []byte {
	size := chunkSize
	switch {
	case n > chunkSize:
		size = n
	case w.max/8 < chunkSize:
		size = max(w.max/8, n)
	}
	if k := len(w.spare); k > 0 && cap(w.spare[k-1]) >= size {
		c := w.spare[k-1]
		w.spare = w.spare[:k-1]
		w.held += cap(c)
		return c[:0]
	}
	c := offheap(size)
	w.held += cap(c)
	return c
}

// recycle keeps a written chunk for reuse or gives it back; the caller
// holds w.mu.
func (w *writer) recycle(c []byte) {
	if cap(c) == chunkSize && len(w.spare) < maxSpare && !w.silenced && !w.failed {
		w.spare = append(w.spare, c[:0])
		return
	}
	release(c)
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
		w.drop()
	}
	w.cond.Broadcast()
	if err != nil || len(w.parts) > 0 {
		w.ready.Signal() // output queued behind an inline write, or the end
	}
	w.mu.Unlock()
	if err != nil {
		w.onFail()
	}
}

// drop gives back every queued and spare chunk; the caller holds w.mu.
func (w *writer) drop() {
	for _, c := range w.parts {
		release(c)
	}
	for _, c := range w.spare {
		release(c)
	}
	w.parts, w.open, w.spare = nil, false, nil
	w.held = 0
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
	w.drop()
	w.cond.Broadcast()
	w.ready.Signal()
	w.mu.Unlock()
}

func (w *writer) run() {
	for {
		w.mu.Lock()
		for (len(w.parts) == 0 || w.writing) && !w.silenced && !w.failed {
			w.ready.Wait()
		}
		if w.silenced || w.failed {
			w.mu.Unlock()
			return
		}
		// Everything queued goes out in order; the open chunk is sealed,
		// so later copies start a new one.
		parts := w.parts
		w.parts, w.open = nil, false
		w.writing = true
		w.mu.Unlock()
		err := writeAll(w.out, parts)
		w.mu.Lock()
		w.writing = false
		for _, c := range parts {
			w.held -= cap(c)
			w.recycle(c)
		}
		if w.failed || w.silenced {
			w.held = 0
		}
		w.done(err)
	}
}
