package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/contractkit/contractkit/internal/strictjson"
)

// Exit codes of the process the transport runs in.
const (
	ExitClean      = 0 // exit after shutdown, or end of input between frames
	ExitNoShutdown = 1 // exit without shutdown, or stdout closed under us
	ExitFraming    = 2 // the frame boundary is lost
)

// lifecycle states, as invalid_state reports them.
const (
	stateUninitialized = "uninitialized"
	stateInitialized   = "initialized"
	stateClosing       = "closing"
)

// Server runs the transport: a reader that checks frames and envelopes and
// marks cancellations as soon as they arrive, one worker that executes
// requests in arrival order, and one writer that owns the output.
type Server struct {
	cfg Config

	mu          sync.Mutex
	cond        *sync.Cond
	jobs        []*job
	pending     map[string]*request // pending request ids → request
	queuedBytes int
	busy        bool // the worker is running a job
	calling     bool // the worker is inside Handler.Call or Handler.Notify
	stopped     bool // no more jobs will run
	silenced    bool // no more output will be written

	state string // touched only by the worker

	// Buffers the worker reuses for single responses: the body as it is
	// built and the frame around it. A frame the writer keeps (queued, not
	// written inline) is given up, and buffers grown past reuseLimit are
	// dropped, so neither ever holds a large response for long.
	body, frameBuf []byte

	diagMu sync.Mutex
	diags  int

	w *writer

	exitOnce sync.Once
	exitCode chan int
}

// job is one frame's worth of work, executed as a unit in arrival order.
type job struct {
	canned  []byte // a ready response (an envelope error) that keeps its place in line
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
}

// reuseLimit bounds the buffers the worker keeps between responses.
const reuseLimit = 64 << 10

// request is a pending request: registered by the reader, finished by the worker.
type request struct {
	key       string
	cancel    context.CancelFunc
	ctx       context.Context
	cancelled bool // guarded by Server.mu
	started   bool // guarded by Server.mu
}

// NewServer returns a transport for cfg.
func NewServer(cfg Config) *Server {
	s := &Server{cfg: cfg, pending: map[string]*request{}, state: stateUninitialized, exitCode: make(chan int, 1)}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// Run serves in until the conversation ends and returns the exit code:
// 0 after exit following shutdown or at end of input between frames, 1
// after exit without shutdown or when out is closed, 2 on a framing error.
func (s *Server) Run(in io.Reader, out io.Writer) int {
	s.w = newWriter(out, s.cfg.Limits.MaxWriterQueueBytes, func() { s.finish(ExitNoShutdown) })
	go s.w.run()
	worked := make(chan struct{})
	go func() {
		defer close(worked)
		s.work()
	}()
	go s.read(in)
	code := <-s.exitCode
	// The handler is the worker's alone, so Close never runs beside a call
	// or a background step: it waits until the worker has seen the stop.
	// That is prompt between bounded steps; when the worker is inside a
	// request or notification (whose context is cancelled by now), the
	// exit does not wait for it and Close runs once the worker returns.
	closeHandler := func() { <-worked; s.cfg.Handler.Close() }
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
		for _, r := range s.pending {
			r.cancel()
		}
		s.cond.Broadcast()
		s.mu.Unlock()
		s.exitCode <- code
	})
}

// silence drops every response not yet written, for endings after which
// nothing more may appear on stdout.
func (s *Server) silence() {
	s.mu.Lock()
	s.silenced = true
	s.mu.Unlock()
	s.w.silence()
}

func (s *Server) read(in io.Reader) {
	fr := NewFrameReader(in, s.cfg.Limits.MaxHeaderBytes, s.cfg.Limits.MaxRequestBytes)
	for {
		body, err := fr.ReadFrame()
		if err != nil {
			s.silence()
			if errors.Is(err, io.EOF) {
				// End of input between frames: pending work is abandoned
				// without further responses.
				s.finish(ExitClean)
			} else {
				s.diag("framing")
				s.finish(ExitFraming)
			}
			return
		}
		if !s.frame(body) {
			return
		}
	}
}

// frame handles one well-framed body on the reader; it returns false when
// the conversation has ended.
func (s *Server) frame(body []byte) bool {
	j := &job{size: len(body)}
	items, batch, frameErr := s.parseFrameInto(body, j.oneItem[:0])
	if frameErr != nil {
		return s.answer(appendError(nil, s.cfg.JSONRPCVersion, nil, frameErr))
	}
	if batch && len(items) > s.cfg.Limits.MaxBatchItems {
		// Nothing of an oversize batch runs: requests are refused, invalid
		// items get their errors, notifications are dropped.
		var resps [][]byte
		for _, it := range items {
			switch {
			case it.failure != nil:
				resps = append(resps, appendError(nil, s.cfg.JSONRPCVersion, it.echo, it.failure))
			case it.msg.id != nil:
				resps = append(resps, appendError(nil, s.cfg.JSONRPCVersion, it.msg.id, s.cfg.Errors.ResourceLimit("batch", s.cfg.Limits.MaxBatchItems)))
			}
		}
		if len(resps) > 0 {
			return s.answer(joinArray(resps))
		}
		return true
	}
	j.batch = batch
	// The items the worker gets are filtered into the same storage.
	j.items = items[:0]
	var immediate [][]byte // single-message answers that need no worker
	var keyBuf [8]string
	keys := keyBuf[:0]
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
			j.items = append(j.items, it)
			continue
		}
		if s.cfg.Handler.Kind(m.method) == Notification || m.method == s.cfg.Lifecycle.CancelRequest {
			resp := appendError(nil, s.cfg.JSONRPCVersion, m.id, s.cfg.Codes.methodNotFound())
			if batch {
				it.failure, it.echo = s.cfg.Codes.methodNotFound(), m.id
				j.items = append(j.items, it)
				continue
			}
			immediate = append(immediate, resp)
			continue
		}
		key := m.key
		for _, k := range keys {
			if k == key {
				return s.fatalDuplicate()
			}
		}
		keys = append(keys, key)
		j.items = append(j.items, it)
	}
	for _, r := range immediate {
		if !s.answer(r) {
			return false
		}
	}
	if len(j.items) == 0 {
		return true
	}
	// Register every request of the frame at once: the queue limits are
	// checked before any of them can run.
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return false
	}
	for _, k := range keys {
		if s.pending[k] != nil {
			s.mu.Unlock()
			return s.fatalDuplicate()
		}
	}
	if len(s.pending)+len(keys) > s.cfg.Limits.MaxPendingRequests || (len(keys) > 0 && s.queuedBytes+j.size > s.cfg.Limits.MaxQueuedBytes) {
		s.mu.Unlock()
		s.refuse(j, "queue")
		return true
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
		r.ctx, r.cancel = context.WithCancel(context.Background())
		r.key = it.msg.key
		s.pending[r.key] = r
		j.reqs = append(j.reqs, r)
	}
	if len(keys) > 0 {
		s.queuedBytes += j.size
		j.charged = true
	}
	s.jobs = append(s.jobs, j)
	s.cond.Signal()
	s.mu.Unlock()
	return true
}

// answer sends a response the reader could give by itself. It keeps its
// place after the work already queued, so responses come out in the order
// of the requests; only when the queue is at its bound does it go out at
// once, so that a flood of bad frames cannot grow memory.
func (s *Server) answer(resp []byte) bool {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return false
	}
	if (len(s.jobs) > 0 || s.busy) && len(s.jobs) < s.cfg.Limits.MaxPendingRequests {
		s.jobs = append(s.jobs, &job{canned: resp})
		s.cond.Signal()
		s.mu.Unlock()
		return true
	}
	s.mu.Unlock()
	s.send(resp)
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
		s.send(joinArray(resps))
	default:
		s.send(resps[0])
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
func (s *Server) cancel(params []byte) {
	v, err := strictjson.Parse(params, strictjson.Options{})
	if err != nil || v == nil {
		s.diag("cancel-bad-params")
		return
	}
	idv := v.Get("id")
	if idv == nil || !s.validID(idv) {
		s.diag("cancel-bad-params")
		return
	}
	key := idKey(idv)
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.pending[key]; r != nil {
		// An answered or unknown id is ignored; a pending one is marked
		// and its context cancelled, for handlers that can stop early.
		r.cancelled = true
		r.cancel()
	}
}

func (s *Server) work() {
	for {
		s.mu.Lock()
		for len(s.jobs) == 0 && !s.stopped {
			s.mu.Unlock()
			// Between requests, at most one bounded step of background work.
			if s.cfg.Handler.Background(context.Background()) {
				s.mu.Lock()
				continue
			}
			s.mu.Lock()
			if len(s.jobs) == 0 && !s.stopped {
				s.cond.Wait()
			}
		}
		if s.stopped {
			s.mu.Unlock()
			return
		}
		j := s.jobs[0]
		s.jobs = s.jobs[1:]
		s.busy = true
		s.mu.Unlock()
		ok := s.run(j)
		s.mu.Lock()
		s.busy = false
		s.mu.Unlock()
		if !ok {
			return
		}
	}
}

// run executes one job and sends its responses; it returns false when the
// conversation ended with it (exit).
func (s *Server) run(j *job) bool {
	if j.canned != nil {
		s.sendFrame(j.canned)
		return true
	}
	var resps [][]byte
	// A single response is built in the worker's reusable buffer; those of
	// a batch are kept apart until they are joined.
	var buf []byte
	if !j.batch {
		buf = s.body[:0]
	}
	// A batch keeps a reserve for the error responses still to come; a
	// response that does not fit is replaced by response_too_large.
	total := 2 // the brackets
	budget := s.cfg.Limits.MaxResponseBytes - s.cfg.Limits.BatchReserveBytes
	for i, it := range j.items {
		var resp []byte
		switch {
		case it.failure != nil:
			resp = appendError(buf, s.cfg.JSONRPCVersion, it.echo, it.failure)
		case it.msg.id == nil:
			if !s.notify(it.msg) {
				return false
			}
			continue
		default:
			resp = s.call(j.reqs[i], it.msg, buf)
		}
		if len(resp) > s.cfg.Limits.MaxResponseBytes || (j.batch && total+len(resp) > budget) {
			resp = appendError(nil, s.cfg.JSONRPCVersion, it.echoID(), s.cfg.Errors.ResponseTooLarge(s.cfg.Limits.MaxResponseBytes))
		}
		total += len(resp) + 1
		resps = append(resps, resp)
	}
	if j.charged {
		s.mu.Lock()
		s.queuedBytes -= j.size
		s.mu.Unlock()
	}
	switch {
	case len(resps) == 0:
	case j.batch:
		s.sendFrame(joinArray(resps))
	default:
		s.sendFrame(resps[0])
		if cap(resps[0]) <= reuseLimit {
			s.body = resps[0][:0]
		} else {
			s.body = nil
		}
	}
	return true
}

// sendFrame frames a response body in the worker's reusable frame buffer
// and hands it to the writer, keeping the buffer when the frame was
// written inline and so is no longer referenced.
func (s *Server) sendFrame(body []byte) {
	frame := AppendFrame(s.frameBuf[:0], body)
	if s.w.sendInline(frame) || cap(frame) > reuseLimit {
		s.frameBuf = nil
	} else {
		s.frameBuf = frame[:0]
	}
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

// call runs one request through the lifecycle and cancellation rules.
func (s *Server) call(r *request, m message, out []byte) []byte {
	defer func() {
		s.mu.Lock()
		delete(s.pending, r.key)
		s.calling = false
		s.mu.Unlock()
		r.cancel()
	}()
	s.mu.Lock()
	cancelled := r.cancelled
	r.started = true
	s.calling = true
	s.mu.Unlock()
	if cancelled {
		return appendError(out, s.cfg.JSONRPCVersion, m.id, s.cfg.Errors.Cancelled())
	}
	lc := s.cfg.Lifecycle
	switch {
	case s.state == stateUninitialized && m.method != lc.Initialize,
		s.state != stateUninitialized && m.method == lc.Initialize,
		s.state == stateClosing:
		return appendError(out, s.cfg.JSONRPCVersion, m.id, s.cfg.Errors.InvalidState(s.state))
	}
	result, rerr := s.safeCall(r.ctx, m)
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
			return appendError(out, s.cfg.JSONRPCVersion, m.id, s.cfg.Errors.Cancelled())
		}
	}
	if rerr != nil {
		return appendError(out, s.cfg.JSONRPCVersion, m.id, rerr)
	}
	return appendResult(out, s.cfg.JSONRPCVersion, m.id, result)
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

// send queues one response body for the writer.
func (s *Server) send(body []byte) { s.w.send(AppendFrame(nil, body)) }

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

// appendResult and appendError write response bodies with the id as the
// client wrote it.
func appendResult(out []byte, version string, id []byte, result json.RawMessage) []byte {
	out = appendHead(out, version, id)
	out = append(out, `,"result":`...)
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	out = append(out, result...)
	return append(out, '}')
}

func appendError(out []byte, version string, id []byte, e *Error) []byte {
	out = appendHead(out, version, id)
	out = append(out, `,"error":{"code":`...)
	out = strictjson.AppendInt(out, e.Code)
	out = append(out, `,"message":`...)
	out = strictjson.AppendString(out, e.Message)
	if len(e.Data) > 0 {
		out = append(out, `,"data":`...)
		out = append(out, e.Data...)
	}
	return append(out, "}}"...)
}

func appendHead(out []byte, version string, id []byte) []byte {
	out = append(out, `{"jsonrpc":`...)
	out = strictjson.AppendString(out, version)
	out = append(out, `,"id":`...)
	if id == nil {
		return append(out, "null"...)
	}
	return append(out, id...)
}

func joinArray(items [][]byte) []byte {
	n := 2
	for _, it := range items {
		n += len(it) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	return append(out, ']')
}
