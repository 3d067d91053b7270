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
func (w *writer) send(frame []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for !w.silenced && !w.failed && w.bytes > 0 && w.bytes+len(frame) > w.max {
		w.cond.Wait()
	}
	if w.silenced || w.failed {
		return
	}
	w.queue = append(w.queue, frame)
	w.bytes += len(frame)
	w.cond.Broadcast()
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
		for len(w.queue) == 0 && !w.silenced && !w.failed {
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
			return
		}
	}
}
