package rpc

import (
	"io"
	"sync"
)

// writer is the only owner of the output. Its queue is bounded in bytes:
// when it is full, senders wait, so a client that stops reading slows the
// worker down instead of growing memory without end.
type writer struct {
	out    io.Writer
	max    int
	onFail func()

	mu       sync.Mutex
	cond     *sync.Cond
	queue    [][]byte
	bytes    int
	silenced bool
	failed   bool
	writing  bool
}

func newWriter(out io.Writer, max int, onFail func()) *writer {
	w := &writer{out: out, max: max, onFail: onFail}
	w.cond = sync.NewCond(&w.mu)
	return w
}

// send queues a frame, waiting while the queue is full. A frame larger
// than the whole queue is sent alone once the queue is empty.
func (w *writer) send(frame []byte) { w.put(frame, false) }

// sendInline is send for the worker: when nothing is queued or being
// written, it writes the frame itself, so the common case of one response
// at a time costs no goroutine handoff, and a client that stops reading
// pauses the worker. The output still has one writer at a time. The
// reader never writes inline: it must stay free to read cancellations.
// It reports whether the writer kept the frame (queued it): if not, the
// caller may reuse its memory.
func (w *writer) sendInline(frame []byte) (kept bool) { return w.put(frame, true) }

func (w *writer) put(frame []byte, inline bool) (kept bool) {
	w.mu.Lock()
	for !w.silenced && !w.failed && w.bytes > 0 && w.bytes+len(frame) > w.max {
		w.cond.Wait()
	}
	if w.silenced || w.failed {
		w.mu.Unlock()
		return false
	}
	if inline && !w.writing && len(w.queue) == 0 {
		w.writing = true
		w.bytes += len(frame)
		w.mu.Unlock()
		w.write(frame)
		return false
	}
	w.queue = append(w.queue, frame)
	w.bytes += len(frame)
	w.cond.Broadcast()
	w.mu.Unlock()
	return true
}

// write writes one frame that the caller has marked as being written, and
// reports a failure as the end of the output.
func (w *writer) write(frame []byte) {
	_, err := w.out.Write(frame)
	w.mu.Lock()
	w.writing = false
	w.bytes -= len(frame)
	if err != nil {
		// Broken stdout: nothing more can be delivered.
		w.failed = true
		w.queue = nil
		w.bytes = 0
	}
	w.cond.Broadcast()
	w.mu.Unlock()
	if err != nil {
		w.onFail()
	}
}

// flush waits until every queued frame is written (or dropped).
func (w *writer) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for (len(w.queue) > 0 || w.writing) && !w.silenced && !w.failed {
		w.cond.Wait()
	}
}

// silence drops queued frames and refuses new ones.
func (w *writer) silence() {
	w.mu.Lock()
	w.silenced = true
	w.queue = nil
	w.bytes = 0
	w.cond.Broadcast()
	w.mu.Unlock()
}

func (w *writer) run() {
	for {
		w.mu.Lock()
		for (len(w.queue) == 0 || w.writing) && !w.silenced && !w.failed {
			w.cond.Wait()
		}
		if w.silenced || w.failed {
			w.mu.Unlock()
			return
		}
		frame := w.queue[0]
		w.queue = w.queue[1:]
		w.writing = true
		w.mu.Unlock()
		w.write(frame)
	}
}
