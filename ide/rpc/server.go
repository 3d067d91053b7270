package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Exit codes of the process the transport runs in.
const (
	ExitClean      = gen.ExitCodeClean             // exit after shutdown, or end of input between frames
	ExitNoShutdown = gen.ExitCodeAbandoned         // exit without shutdown, or stdout closed under us
	ExitFraming    = gen.ExitCodeProtocolViolation // the frame boundary is lost
)

// lifecycle states, as invalid_state reports them.
const (
	stateUninitialized = string(gen.LifecycleStateUninitialized)
	stateInitialized   = string(gen.LifecycleStateInitialized)
	stateClosing       = string(gen.LifecycleStateClosing)
)

// Server runs the transport: a reader that checks frames and envelopes and
// marks cancellations as soon as they arrive, one worker that executes
// requests in arrival order, and one writer that owns the output.
//
// Reader and worker are roles, not goroutines. Two goroutines take turns
// (leader/follower): the one holding the reader role reads a frame; when
// no work is queued or running, it keeps that frame and takes the worker
// role too, and runs the request at once. It keeps the reader role,
// dormant, while the request runs: waking the other goroutine to read
// costs as much as a short request itself, so the role is handed over
// only when the work lasts (a timer, at most 2×handOffAfter after the
// work began), when a handler waits on its context's Done, and before
// background work goes on past one step. A request that ends first
// leaves this goroutine to read the next frame with no other goroutine
// woken; one that lasts has a reader beside it, which sees a
// $/cancelRequest as soon as it arrives. When requests arrive faster than
// they run, the reader keeps reading and the worker drains the queue, in
// the order of arrival.
type Server struct {
	cfg Config

	mu          sync.Mutex
	readerFree  *sync.Cond // a goroutine waits here for the reader role
	workerIdle  *sync.Cond // Run waits here for the worker role to be let go
	jobs        queue
	pending     map[idKey]*request
	queuedBytes int
	reading     bool        // a goroutine holds the reader role
	working     bool        // a goroutine holds the worker role
	dormant     bool        // the worker holds the reader role too and does not read
	phase       uint64      // counts the dormant stretches, for the hand-off timer
	seenPhase   uint64      // the phase the armed timer saw when it was set
	timerArmed  bool        // handOff is set to fire
	handOff     *time.Timer // hands a dormant reader role over when the work lasts
	calling     bool        // the worker is inside Handler.Call or Handler.Notify
	stopped     bool        // no more jobs will run
	ended       atomic.Bool // stopped, for readers without mu
	exitQueued  bool        // an exit notification was read and waits its turn

	fr *FrameReader // the reader role's

	// The worker role's: the lifecycle state and the buffer single
	// responses are built in, kept while the writer does not hold on to it.
	state   string
	b       builder
	first   []byte
	scratch []byte

	diagMu sync.Mutex
	diags  int

	w *writer

	exitOnce sync.Once
	exitCode chan int
}

// job is one frame's worth of work, executed as a unit in arrival order.
type job struct {
	canned  [][]byte // a ready frame (an envelope error) that keeps its place in line
	owned   bool     // the writer adopts canned instead of copying it
	items   []item
	reqs    []*request // aligned with items: the request, or nil for other items
	batch   bool
	size    int
	charged bool // size counts against MaxQueuedBytes until the job has run

	// Storage for a frame holding one message, the usual case, so that it
	// costs one allocation instead of one per slice.
	oneItem [1]item
	oneReq  [1]*request
	req     request

	body []byte // the frame the job was read from
	buf  []byte // a buffer for the next frame, when the job is reused
}

// Jobs of one message are reused with their frame buffer: the handler
// gets a request's params only for the length of its call.
var jobPool = sync.Pool{New: func() any { return new(job) }}

// recycleBelow bounds the frame buffers kept with reused jobs.
const recycleBelow = 4 << 10

func newJob() *job { return jobPool.Get().(*job) }

// recycle gives j back to the pool, keeping body's memory for a later
// frame when it is small. A batch's job is not reused: its items and
// requests are its own allocations.
func (j *job) recycle(body []byte) {
	if j.batch || j.canned != nil {
		return
	}
	buf := body[:0]
	if cap(buf) > recycleBelow {
		buf = nil
	}
	*j = job{buf: buf}
	jobPool.Put(j)
}

// queue is the FIFO of jobs; it reuses its storage once drained. waiting
// mirrors its length for readers that do not hold Server.mu.
type queue struct {
	items   []*job
	head    int
	waiting atomic.Int32
	arrived chan struct{} // closed by the next push; made when background work waits on it
}

func (q *queue) len() int { return len(q.items) - q.head }

func (q *queue) push(j *job) {
	q.items = append(q.items, j)
	q.waiting.Add(1)
	if q.arrived != nil {
		close(q.arrived)
		q.arrived = nil
	}
}

func (q *queue) pop() (j *job) {
	j, q.items[q.head] = q.items[q.head], nil
	if q.head++; q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	q.waiting.Add(-1)
	return j
}

// idle is the context background work runs with: its Err turns non-nil
// as soon as a request is waiting or the conversation has ended, so a
// handler can do several bounded steps while nothing waits and still let
// a request in after the step in hand.
type idle struct{ s *Server }

var errRequestWaiting = errors.New("a request is waiting")

func (c idle) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c idle) Value(any) any               { return nil }

// Done is closed when the next job arrives (or the conversation ends). A
// caller checks Err after taking it: a job that arrived before needs no
// channel.
func (c idle) Done() <-chan struct{} {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	c.s.wakeReader() // only a reader can close it
	if c.s.stopped {
		return closed
	}
	if c.s.jobs.arrived == nil {
		c.s.jobs.arrived = make(chan struct{})
	}
	return c.s.jobs.arrived
}

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (c idle) Err() error {
	if c.s.jobs.waiting.Load() > 0 || c.s.ended.Load() {
		return errRequestWaiting
	}
	return nil
}

// reuseLimit bounds the buffer the worker keeps between responses.
const reuseLimit = 64 << 10

// idKey identifies an id: 1 and "1" differ, "a" and "\u0061" do not.
type idKey struct {
	text   string // the decoded string, or the number's literal
	number bool
}

// request is a pending request: registered by the reader, finished by the
// worker. It is also the context its handler runs with, so that a request
// costs no allocation of its own for cancellation; the done channel is
// made only when a handler asks for it.
type request struct {
	key       idKey
	s         *Server
	done      chan struct{}
	cancelled bool // guarded by Server.mu
	started   bool // guarded by Server.mu
}

// cancel marks r cancelled; the caller holds s.mu.
func (r *request) cancel() {
	if r.cancelled {
		return
	}
	r.cancelled = true
	if r.done != nil {
		close(r.done)
	}
}

func (r *request) Deadline() (time.Time, bool) { return time.Time{}, false }
func (r *request) Value(any) any               { return nil }

func (r *request) Done() <-chan struct{} {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.s.wakeReader() // a cancellation arrives through the reader
	if r.done == nil {
		r.done = make(chan struct{})
		if r.cancelled {
			close(r.done)
		}
	}
	return r.done
}

func (r *request) Err() error {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.cancelled {
		return context.Canceled
	}
	return nil
}

// NewServer returns a transport for cfg.
func NewServer(cfg Config) *Server {
	s := &Server{cfg: cfg, pending: map[idKey]*request{}, state: stateUninitialized, exitCode: make(chan int, 1)}
	s.readerFree = sync.NewCond(&s.mu)
	s.workerIdle = sync.NewCond(&s.mu)
	s.handOff = time.AfterFunc(time.Hour, s.handOffTimer)
	s.handOff.Stop()
	return s
}

// Run serves in until the conversation ends and returns the exit code:
// 0 after exit following shutdown or at end of input between frames, 1
// after exit without shutdown or when out is closed, 2 on a framing error.
func (s *Server) Run(in io.Reader, out io.Writer) int {
	s.w = newWriter(out, s.cfg.Limits.MaxWriterQueueBytes, func() { s.finish(ExitNoShutdown) })
	go s.w.run()
	s.fr = NewFrameReader(in, s.cfg.Limits.MaxHeaderBytes, s.cfg.Limits.MaxRequestBytes)
	s.reading = true
	go s.follow(false)
	go s.follow(true)
	code := <-s.exitCode
	// The handler is the worker's alone, so Close never runs beside a call
	// or a background step: it waits until the worker role is let go.
	// That is prompt between bounded steps; when the worker is inside a
	// request or notification (cancelled by now), the exit does not wait
	// for it and Close runs once the call returns.
	closeHandler := func() {
		s.mu.Lock()
		for s.working {
			s.workerIdle.Wait()
		}
		s.mu.Unlock()
		s.cfg.Handler.Close()
	}
	s.mu.Lock()
	calling := s.calling
	s.mu.Unlock()
	if calling {
		go closeHandler()
	} else {
		closeHandler()
	}
	return code
}

// finish ends the conversation with code; the first call wins.
func (s *Server) finish(code int) {
	s.exitOnce.Do(func() {
		s.mu.Lock()
		s.stopped = true
		s.ended.Store(true)
		if s.jobs.arrived != nil {
			close(s.jobs.arrived)
			s.jobs.arrived = nil
		}
		for _, r := range s.pending {
			r.cancel()
		}
		s.readerFree.Broadcast()
		s.handOff.Stop()
		s.mu.Unlock()
		s.exitCode <- code
	})
}

// silence drops every response not yet written, for endings after which
// nothing more may appear on stdout.
func (s *Server) silence() { s.w.silence() }

// follow is one of the two goroutines: it waits for the reader role (the
// leader starts with it), then reads, and works when its turn comes.
func (s *Server) follow(leader bool) {
	for {
		if !leader {
			s.mu.Lock()
			for s.reading && !s.stopped {
				s.readerFree.Wait()
			}
			if s.stopped {
				s.mu.Unlock()
				return
			}
			s.reading = true
			s.mu.Unlock()
		}
		leader = false
		if !s.lead() {
			return
		}
	}
}

// lead plays the reader role until it ends or this goroutine takes the
// worker role for a frame it read; it then runs the worker role, and
// reads on if the reader role is still its own, or returns true to wait
// for it again.
func (s *Server) lead() bool {
	for {
		j := newJob()
		body, err := s.fr.ReadFrameInto(j.buf)
		if err != nil {
			s.endOfInput(err)
			return false
		}
		alive, work := s.frame(j, body)
		if !alive {
			return false
		}
		if work && !s.work() {
			return true // the reader role was handed over while it worked
		}
	}
}

// handOffAfter is how long work runs with the reader role dormant before
// the timer hands it over: between one and two of it, since the timer is
// armed once for many short stretches and acts on a stretch it has seen
// twice. A $/cancelRequest for a request that runs longer is read at most
// this late, and one for a handler waiting on Done at once.
const handOffAfter = 500 * time.Microsecond

// goDormant marks the reader role dormant for the work this goroutine
// is about to do; the caller holds s.mu. The timer is armed only when it
// is not already, so that a stream of short requests costs one timer
// wake per handOffAfter, not one per request.
func (s *Server) goDormant() {
	s.dormant = true
	s.phase++
	if !s.timerArmed {
		s.timerArmed = true
		s.seenPhase = s.phase
		s.handOff.Reset(handOffAfter)
	}
}

// handOffTimer hands the reader role over when the stretch of work it saw
// when it was armed is still going on; when another stretch is, it looks
// again one period later.
func (s *Server) handOffTimer() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timerArmed = false
	switch {
	case !s.dormant || s.stopped:
	case s.phase == s.seenPhase:
		s.wakeReader()
	default:
		s.timerArmed = true
		s.seenPhase = s.phase
		s.handOff.Reset(handOffAfter)
	}
}

// wakeReader hands a dormant reader role to the other goroutine; the
// caller holds s.mu.
func (s *Server) wakeReader() {
	if !s.dormant {
		return
	}
	s.dormant = false
	s.reading = false
	s.readerFree.Signal()
}

// endOfInput applies the end of the input. A clean end between frames
// abandons pending work without further responses and exits 0, unless an
// exit notification was read before it: frames read before the end are
// handled first, so that exit decides the code.
func (s *Server) endOfInput(err error) {
	if !errors.Is(err, io.EOF) {
		s.silence()
		s.diag("framing")
		s.finish(ExitFraming)
		return
	}
	s.mu.Lock()
	exitQueued := s.exitQueued
	s.mu.Unlock()
	if exitQueued {
		return // the worker reaches the exit and ends the conversation
	}
	s.silence()
	s.finish(ExitClean)
}

// frame handles one well-framed body for the reader. It reports whether
// the conversation goes on and whether the caller took the worker role
// for the job it queued.
func (s *Server) frame(j *job, body []byte) (alive, work bool) {
	j.size = len(body)
	queued := false
	defer func() {
		if !queued {
			j.recycle(body) // answered by the reader, or nothing to do
		}
	}()
	items, batch, frameErr := s.parseFrameInto(body, j.oneItem[:0])
	if frameErr != nil {
		return s.answer(AppendFrame(nil, appendError(nil, s.cfg.JSONRPCVersion, nil, frameErr))), false
	}
	if batch && items == nil {
		// Over the batch limit: nothing runs, the answer is built as the
		// elements are read.
		if resp := s.oversizeBatch(body); resp != nil {
			return s.answerOwned(resp), false
		}
		return true, false
	}
	j.batch = batch
	// The items the worker gets are filtered into the same storage.
	j.items = items[:0]
	var immediate [][]byte // single-message answers that need no worker
	var keyBuf [8]idKey
	keys := keyBuf[:0]
	exit := false
	for _, it := range items {
		if it.failure != nil {
			if !batch {
				immediate = append(immediate, appendError(nil, s.cfg.JSONRPCVersion, it.echo, it.failure))
				continue
			}
			j.items = append(j.items, it)
			continue
		}
		m := it.msg
		if m.id == nil {
			if m.method == s.cfg.Lifecycle.CancelRequest {
				s.cancel(m.params)
				continue
			}
			switch s.cfg.Handler.Kind(m.method) {
			case Request:
				s.diag("request-without-id")
				continue
			case Unknown:
				continue
			}
			exit = exit || m.method == s.cfg.Lifecycle.Exit
			j.items = append(j.items, it)
			continue
		}
		if s.cfg.Handler.Kind(m.method) == Notification || m.method == s.cfg.Lifecycle.CancelRequest {
			if batch {
				it.failure, it.echo = s.cfg.Codes.methodNotFound(), m.id
				j.items = append(j.items, it)
				continue
			}
			immediate = append(immediate, appendError(nil, s.cfg.JSONRPCVersion, m.id, s.cfg.Codes.methodNotFound()))
			continue
		}
		for _, k := range keys {
			if k == m.key {
				return s.fatalDuplicate(), false
			}
		}
		keys = append(keys, m.key)
		j.items = append(j.items, it)
	}
	for _, r := range immediate {
		if !s.answer(AppendFrame(nil, r)) {
			return false, false
		}
	}
	if len(j.items) == 0 {
		return true, false
	}
	// Register every request of the frame at once: the queue limits are
	// checked before any of them can run.
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return false, false
	}
	for _, k := range keys {
		if s.pending[k] != nil {
			s.mu.Unlock()
			return s.fatalDuplicate(), false
		}
	}
	if len(s.pending)+len(keys) > s.cfg.Limits.MaxPendingRequests || (len(keys) > 0 && s.queuedBytes+j.size > s.cfg.Limits.MaxQueuedBytes) {
		s.mu.Unlock()
		s.refuse(j, string(gen.LimitedResourceQueue))
		return true, false
	}
	// The requests of a frame are allocated together: the job's own
	// storage for a single message, one slice for a batch.
	var store []request
	if len(j.items) == 1 {
		j.reqs = j.oneReq[:0]
	} else {
		j.reqs = make([]*request, 0, len(j.items))
		store = make([]request, len(keys))
	}
	for _, it := range j.items {
		if it.failure != nil || it.msg.id == nil {
			j.reqs = append(j.reqs, nil)
			continue
		}
		var r *request
		if len(j.items) == 1 {
			r = &j.req
		} else {
			r, store = &store[0], store[1:]
		}
		r.key, r.s = it.msg.key, s
		s.pending[r.key] = r
		j.reqs = append(j.reqs, r)
	}
	if len(keys) > 0 {
		s.queuedBytes += j.size
		j.charged = true
	}
	s.exitQueued = s.exitQueued || exit
	j.body = body
	queued = true
	s.jobs.push(j)
	if !s.working {
		s.working, work = true, true
		s.goDormant()
	}
	s.mu.Unlock()
	return true, work
}

// answer sends a response frame the reader could give by itself. It keeps
// its place after the work already queued, so responses come out in the
// order of the requests; only when the queue is at its bound does it go
// out at once, so that a flood of bad frames cannot grow memory.
func (s *Server) answer(frame ...[]byte) bool {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return false
	}
	if s.working && s.jobs.len() < s.cfg.Limits.MaxPendingRequests {
		s.jobs.push(&job{canned: frame})
		s.mu.Unlock()
		return true
	}
	s.mu.Unlock()
	s.w.send(frame...)
	return true
}

// answerOwned is answer for a frame whose pieces the writer adopts.
func (s *Server) answerOwned(frame [][]byte) bool {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		for _, p := range frame {
			release(p)
		}
		return false
	}
	if s.working && s.jobs.len() < s.cfg.Limits.MaxPendingRequests {
		s.jobs.push(&job{canned: frame, owned: true})
		s.mu.Unlock()
		return true
	}
	s.mu.Unlock()
	s.w.adopt(frame...)
	return true
}

// refuse answers every request of a job with resource_limit and runs nothing.
func (s *Server) refuse(j *job, resource string) {
	limit := s.cfg.Limits.MaxPendingRequests
	var resps [][]byte
	for _, it := range j.items {
		switch {
		case it.failure != nil:
			resps = append(resps, appendError(nil, s.cfg.JSONRPCVersion, it.echo, it.failure))
		case it.msg.id != nil:
			resps = append(resps, appendError(nil, s.cfg.JSONRPCVersion, it.msg.id, s.cfg.Errors.ResourceLimit(resource, limit)))
		}
	}
	switch {
	case len(resps) == 0:
	case j.batch:
		s.w.send(AppendFrame(nil, joinArray(resps)))
	default:
		s.w.send(AppendFrame(nil, resps[0]))
	}
}

// fatalDuplicate ends the conversation: a pending id used again breaks the
// correlation of responses, so nothing more can be trusted.
func (s *Server) fatalDuplicate() bool {
	s.diag("duplicate-pending-id")
	s.silence()
	s.finish(ExitFraming)
	return false
}

// cancel marks the request named by a $/cancelRequest as cancelled.
func (s *Server) cancel(params *strictjson.Value) {
	if params == nil {
		s.diag("cancel-bad-params")
		return
	}
	idv := params.Get(gen.CancelParamsMemberID)
	if idv == nil || !s.validID(idv) {
		s.diag("cancel-bad-params")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.pending[keyOf(idv)]; r != nil {
		// An answered or unknown id is ignored; a pending one is marked
		// and its context cancelled, for handlers that can stop early.
		r.cancel()
	}
}

// work plays the worker role: it runs the queued jobs in order, and when
// none is left at most one bounded step of background work at a time
// until there is none either; then it lets the role go. It reports
// whether the caller still holds the reader role, dormant until then.
func (s *Server) work() (keptReader bool) {
	for {
		s.mu.Lock()
		if s.stopped {
			return s.release()
		}
		if s.jobs.len() == 0 {
			s.mu.Unlock()
			if s.cfg.Handler.Background(idle{s}) {
				// More steps to come: a request must be able to turn the
				// background context, so someone reads meanwhile.
				s.mu.Lock()
				s.wakeReader()
				s.mu.Unlock()
				continue
			}
			s.mu.Lock()
			if s.jobs.len() == 0 || s.stopped {
				return s.release()
			}
			s.mu.Unlock()
			continue
		}
		j := s.jobs.pop()
		s.mu.Unlock()
		ok := s.run(j)
		if !j.batch && j.canned == nil {
			j.recycle(j.body)
		}
		if !ok {
			s.mu.Lock()
			return s.release()
		}
	}
}

// release lets the worker role go; the caller holds s.mu, which it
// releases. It reports whether the reader role is still the caller's:
// decided under the same lock that lets the worker role go, because as
// soon as it is free the other goroutine, if it reads, may take the
// worker role and make the reader role dormant as its own.
func (s *Server) release() (keptReader bool) {
	keptReader = s.dormant && !s.stopped
	s.dormant = false
	s.working = false
	s.workerIdle.Broadcast()
	s.mu.Unlock()
	return keptReader
}

// run executes one job and sends its responses; it returns false when the
// conversation ended with it (exit).
func (s *Server) run(j *job) bool {
	if j.canned != nil {
		if j.owned {
			s.w.adopt(j.canned...)
		} else {
			s.w.send(j.canned...)
		}
		return true
	}
	// Room for the largest response is waited for before anything runs,
	// so that a response never waits for the writer outside its count.
	s.w.waitRoom(s.cfg.Limits.MaxResponseBytes)
	b := &s.b
	if !j.batch {
		b.reset(s.first)
	} else {
		b.reset(nil)
		b.add([]byte{'['})
	}
	// A batch keeps a reserve for the error responses still to come; a
	// response that does not fit is replaced by response_too_large.
	budget := s.cfg.Limits.MaxResponseBytes - s.cfg.Limits.BatchReserveBytes
	n := 0
	for i, it := range j.items {
		var resp response
		switch {
		case it.failure != nil:
			resp.err = it.failure
		case it.msg.id == nil:
			if !s.notify(it.msg) {
				return false
			}
			continue
		default:
			resp = s.call(j.reqs[i], it.msg)
		}
		// Only a response that could be near a limit is measured first.
		if j.batch || resp.bulk()+sizeMargin > s.cfg.Limits.MaxResponseBytes {
			size := resp.size(s.cfg.JSONRPCVersion, it.echoID(), &s.scratch)
			if size > s.cfg.Limits.MaxResponseBytes || (j.batch && b.size()+size+2 > budget) {
				resp = response{err: s.cfg.Errors.ResponseTooLarge(s.cfg.Limits.MaxResponseBytes)}
			}
		}
		if j.batch {
			b.next()
		}
		if n > 0 {
			b.add([]byte{','})
		}
		resp.encode(b, s.cfg.JSONRPCVersion, it.echoID())
		n++
	}
	if j.charged {
		s.mu.Lock()
		s.queuedBytes -= j.size
		s.mu.Unlock()
	}
	if n == 0 {
		return true
	}
	if j.batch {
		b.add([]byte{']'})
	}
	s.w.sendInline(b.finish()...)
	if !j.batch {
		// The writer has written or copied the frame: its first piece is
		// free for the next response.
		if first := b.firstPiece(); cap(first) <= reuseLimit {
			s.first = first
		} else {
			s.first = nil
		}
	}
	*b = builder{} // nothing of the frame stays referenced
	return true
}

func (it item) echoID() []byte {
	if it.failure != nil {
		return it.echo
	}
	return it.msg.id
}

// notify runs a notification in order with requests; false means exit.
func (s *Server) notify(m message) bool {
	if m.method == s.cfg.Lifecycle.Exit {
		code := ExitNoShutdown
		if s.state == stateClosing {
			code = ExitClean
		}
		s.w.flush()
		s.finish(code)
		return false
	}
	if s.state != stateInitialized {
		return true // before initialize and while closing, notifications are ignored
	}
	s.mu.Lock()
	s.calling = true
	s.mu.Unlock()
	err := s.cfg.Handler.Notify(context.Background(), m.method, m.params)
	s.mu.Lock()
	s.calling = false
	s.mu.Unlock()
	if err != nil {
		s.diag("notification-failed")
	}
	return true
}

// response is the outcome of one request: a result or an error.
type response struct {
	result json.RawMessage
	err    *Error
}

// sizeMargin bounds what a response adds to its result or error data: the
// envelope, an id of at most MaxIDLength printable characters escaped, an
// error code and message.
const sizeMargin = 512

// bulk is the length of what a response carries beyond its envelope.
func (r response) bulk() int {
	if r.err != nil {
		return len(r.err.Data) + len(r.err.Message)
	}
	return len(r.result)
}

// call runs one request through the lifecycle and cancellation rules.
func (s *Server) call(r *request, m message) response {
	defer func() {
		s.mu.Lock()
		delete(s.pending, r.key)
		s.calling = false
		r.cancel() // its context ends with it
		s.mu.Unlock()
	}()
	s.mu.Lock()
	cancelled := r.cancelled
	r.started = true
	s.calling = true
	s.mu.Unlock()
	if cancelled {
		return response{err: s.cfg.Errors.Cancelled()}
	}
	lc := s.cfg.Lifecycle
	switch {
	case s.state == stateUninitialized && m.method != lc.Initialize,
		s.state != stateUninitialized && m.method == lc.Initialize,
		s.state == stateClosing:
		return response{err: s.cfg.Errors.InvalidState(s.state)}
	}
	result, rerr := s.safeCall(r, m)
	if rerr == nil {
		switch m.method {
		case lc.Initialize:
			s.state = stateInitialized
		case lc.Shutdown:
			s.state = stateClosing
		}
	}
	if s.cfg.Handler.Class(m.method) == ReadOnly {
		s.mu.Lock()
		cancelled = r.cancelled
		s.mu.Unlock()
		if cancelled {
			return response{err: s.cfg.Errors.Cancelled()}
		}
	}
	if rerr != nil {
		return response{err: rerr}
	}
	return response{result: result}
}

// safeCall turns a handler panic into an internal error: the wire never
// carries a stack trace, stderr gets a machine code.
func (s *Server) safeCall(ctx context.Context, m message) (result json.RawMessage, rerr *Error) {
	defer func() {
		if p := recover(); p != nil {
			s.diag("internal-error")
			result, rerr = nil, s.cfg.Codes.internal()
		}
	}()
	return s.cfg.Handler.Call(ctx, m.method, m.params)
}

// Diag writes a short machine code to stderr, at most MaxStderrDiagnostics
// times per process; it never writes payloads. Handlers share the budget.
func (s *Server) Diag(code string) { s.diag(code) }

func (s *Server) diag(code string) {
	s.diagMu.Lock()
	defer s.diagMu.Unlock()
	if s.cfg.Stderr == nil || s.diags >= s.cfg.Limits.MaxStderrDiagnostics {
		return
	}
	s.diags++
	fmt.Fprintln(s.cfg.Stderr, "eska-ide:", code)
}
