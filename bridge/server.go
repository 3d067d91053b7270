//go:build !aicontrol_disabled

package bridge

import (
	"container/list"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/errdetail"
	"github.com/contractkit/contractkit/runtime/genrt"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// ShutdownMessage is the message of the command_completed event that Close
// appends for every accepted command still unfinished.
const ShutdownMessage = "listener closed before the command completed"

// Server is a running listener.
type Server struct {
	cfg   Config
	ln    net.Listener
	host  string
	port  int
	state *state
	auth  *authLimiter

	// lingering bounds the connections that are being closed gracefully
	// (their answer written, their bytes read and dropped for a moment);
	// past it, a closing connection is closed at once.
	lingering chan struct{}
	// slotFreed wakes a WaitWhenFull accept loop when an authorized slot frees.
	slotFreed chan struct{}
	done      chan struct{} // closed when Close starts

	mu         sync.Mutex
	conns      map[net.Conn]*connState
	lingerers  map[net.Conn]struct{} // connections being closed gracefully, cut short by Close
	authorized int                   // connections holding an authorized slot (pool.go)
	strangers  *list.List            // connections not yet authorized, oldest first (pool.go)
	closing    bool
	wg         sync.WaitGroup
}

// listenTCP binds; tests replace it to see what would be resolved and to
// fake a bound address.
var listenTCP = net.Listen

// Listen validates cfg, then binds and starts serving in the background.
// Unsafe settings are refused before anything is bound; Config.Warnings
// tells the risks of the settings it accepts. The name localhost is never
// resolved: it binds the loopback literal. After binding, a listener
// without AllowRemote checks that the address it got is loopback, and
// refuses to serve otherwise.
func Listen(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	host, port, _ := SplitAddr(cfg.Addr) // Validate has checked it
	ln, err := listenTCP("tcp", net.JoinHostPort(LiteralHost(host), strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("bridge: listen: %w", err)
	}
	if !cfg.AllowRemote {
		if err := CheckLoopbackAddr(ln.Addr()); err != nil {
			ln.Close()
			return nil, fmt.Errorf("bridge: listen on %s: %w", cfg.Addr, err)
		}
	}
	boundHost, portStr, _ := net.SplitHostPort(ln.Addr().String())
	boundPort, _ := strconv.Atoi(portStr)
	s := &Server{
		cfg:       cfg,
		ln:        ln,
		host:      boundHost,
		port:      boundPort,
		state:     newState(cfg.MaxQueuedCommands, cfg.MaxEvents),
		auth:      newAuthLimiter(cfg),
		lingering: make(chan struct{}, cfg.MaxConnections+cfg.MaxUnauthenticatedConnections),
		slotFreed: make(chan struct{}, 1),
		done:      make(chan struct{}),
		conns:     map[net.Conn]*connState{},
		lingerers: map[net.Conn]struct{}{},
		strangers: list.New(),
	}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr returns the bound address (with the real port when Config.Addr asked for 0).
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		// A WaitWhenFull listener accepts only while an authorized slot is
		// free: until then the kernel keeps new connections in the
		// backlog, unanswered.
		if s.cfg.WaitWhenFull && !s.waitForSlot() {
			return
		}
		c, err := s.ln.Accept()
		if err != nil {
			if s.isClosing() {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			s.state.setError("accept: " + err.Error())
			time.Sleep(10 * time.Millisecond) // e.g. out of file descriptors: do not spin
			continue
		}
		cs := &connState{authorized: s.cfg.Token == "", kicked: make(chan struct{}), conn: c}
		s.mu.Lock()
		admitted := false
		for !s.closing {
			if admitted = s.admitLocked(cs); admitted || !s.cfg.WaitWhenFull {
				break
			}
			// An authorized slot was taken while Accept waited: the
			// connection waits, unanswered, as it would in the backlog.
			s.mu.Unlock()
			s.waitForSlot() // false when Close starts: closing is then set
			s.mu.Lock()
		}
		if s.closing {
			if admitted {
				s.releaseLocked(cs)
			}
			s.mu.Unlock()
			c.Close()
			return
		}
		if !admitted {
			s.mu.Unlock()
			s.turnAway(c)
			continue
		}
		s.conns[c] = cs
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c, cs)
	}
}

// turnAway answers a connection that found every authorized slot taken
// with one too-many-connections line, unasked, and closes it gracefully
// (see farewell). The line is written at once: a fresh socket's buffer
// takes it without waiting. A refused connection is nobody's action on
// the listener, so it leaves status.lastError alone.
func (s *Server) turnAway(c net.Conn) {
	line := appendError(nil, newError(aicontrol.CodeTooManyConnections, s.slotsTaken(), nil))
	if !s.takeLinger() {
		_ = c.SetWriteDeadline(time.Now().Add(s.cfg.CloseDrain))
		_, _ = c.Write(line)
		c.Close()
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.giveLinger()
		s.farewell(c, line)
	}()
}

// serve runs one connection: requests are handled one after another, and
// this goroutine is the connection's only writer.
func (s *Server) serve(c net.Conn, cs *connState) {
	defer s.wg.Done()
	graceful := false
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.releaseLocked(cs)
		s.mu.Unlock()
		if graceful && s.takeLinger() {
			s.linger(c)
			s.giveLinger()
			return
		}
		c.Close()
	}()
	lr := newLineReader(c, maxLine)
	if !cs.authorized {
		s.startAuthDeadline(c, cs)
	}
	var out []byte
	idle := lazyDeadline{set: c.SetReadDeadline, d: s.cfg.IdleTimeout}
	write := lazyDeadline{set: c.SetWriteDeadline, d: s.cfg.WriteTimeout}
	for {
		if cs.authorized {
			lr.max = maxLine
			idle.push()
		} else {
			// A stranger may only send auth: a short line is enough.
			lr.max = aicontrol.MaxUnauthenticatedLineBytes
		}
		// What a connection does is recorded in status.lastError only
		// while it is authorized: strangers cannot overwrite the error the
		// real client reads.
		trusted := cs.authorized
		line, err := lr.readLine()
		closeAfter := false
		switch {
		case err == nil:
			out = s.handle(out[:0], cs, line)
			switch {
			case cs.authorized && !trusted:
				idle.reset() // the auth deadline gives way to the idle timeout
			case !cs.authorized && trusted:
				s.startAuthDeadline(c, cs)
			}
			closeAfter = cs.closeAfter
		case errors.Is(err, ErrLineTooLong), errors.Is(err, ErrUnterminated):
			// Framing is lost: answer, then close.
			if trusted {
				s.state.setError(err.Error() + " from " + c.RemoteAddr().String())
			}
			out = appendError(out[:0], newError(aicontrol.CodeInvalidRequest, err.Error(), nil))
			closeAfter = true
		case cs.evicted():
			out = appendError(out[:0], newError(aicontrol.CodeTooManyConnections, s.evictedMessage(), nil))
			closeAfter = true
		default:
			if !errors.Is(err, io.EOF) && !s.isClosing() && trusted {
				var ne net.Error
				if !errors.As(err, &ne) || !ne.Timeout() {
					s.state.setError(c.RemoteAddr().String() + ": read: " + err.Error())
				}
			}
			return
		}
		if cs.holdBack > 0 {
			if !s.sleep(cs.holdBack, cs.kicked) {
				return
			}
			cs.holdBack = 0
		}
		write.push()
		if _, err := c.Write(out); err != nil {
			if trusted && !s.isClosing() {
				s.state.setError(c.RemoteAddr().String() + ": write: " + err.Error())
			}
			// A peer that does not read its answers gets a reset: ending
			// gracefully would leave the unsent bytes, and the socket,
			// with the kernel until it gave up on the peer.
			abort(c)
			return
		}
		if cs.hasAnswering {
			cs.seen.Store(cs.answering)
			cs.hasAnswering = false
		}
		if closeAfter {
			graceful = true
			return
		}
	}
}

// abort makes the coming close reset the connection at once, dropping
// whatever is still unsent.
func abort(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
}

// takeLinger reserves one graceful close; giveLinger returns it.
func (s *Server) takeLinger() bool {
	select {
	case s.lingering <- struct{}{}:
		return true
	default:
		return false
	}
}

func (s *Server) giveLinger() { <-s.lingering }

// farewell writes one unasked line and closes the connection gracefully.
func (s *Server) farewell(c net.Conn, line []byte) {
	_ = c.SetWriteDeadline(time.Now().Add(s.cfg.CloseDrain))
	if _, err := c.Write(line); err != nil {
		abort(c)
		c.Close()
		return
	}
	s.linger(c)
}

// linger closes a connection whose last answer has been written without
// throwing that answer away: closing a socket with unread bytes resets
// it, and a reset makes the peer's kernel drop the answer before the peer
// reads it. So the write side is closed first (the peer reads the answer,
// then the end of the stream), and the peer's bytes are read and dropped,
// at most one line limit of them and for at most CloseDrain, before the
// socket is closed.
func (s *Server) linger(c net.Conn) {
	defer c.Close()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	_ = c.SetReadDeadline(time.Now().Add(s.cfg.CloseDrain))
	// Registered after its deadline is set, so that Close, which moves
	// the deadline of every registered connection into the past, wins.
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	s.lingerers[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.lingerers, c)
		s.mu.Unlock()
	}()
	_, _ = io.Copy(io.Discard, io.LimitReader(c, maxLine))
}

// startAuthDeadline gives an unauthorized connection AuthDeadline to
// authorize, from now; no line it sends moves the deadline. A connection
// evicted from the strangers' pool keeps the deadline the eviction set,
// in the past.
func (s *Server) startAuthDeadline(c net.Conn, cs *connState) {
	_ = c.SetReadDeadline(time.Now().Add(s.cfg.AuthDeadline))
	if cs.evicted() {
		_ = c.SetReadDeadline(time.Unix(1, 0))
	}
}

// lazyDeadline keeps a connection's read or write deadline at d from now,
// moving it at most every eighth of d: moving a runtime timer on every
// line costs more than a small request does, and a connection is still
// cut off between 7/8 and all of d after its last line. d <= 0 means no
// deadline.
type lazyDeadline struct {
	set   func(time.Time) error
	d     time.Duration
	armed time.Time // when the deadline was last moved; zero: not set
}

func (l *lazyDeadline) push() {
	if l.d <= 0 {
		if l.armed.IsZero() {
			_ = l.set(time.Time{}) // cleared once; nothing to move afterwards
			l.armed = time.Now()
		}
		return
	}
	now := time.Now()
	if l.armed.IsZero() || now.Sub(l.armed) > l.d/8 {
		_ = l.set(now.Add(l.d))
		l.armed = now
	}
}

// reset makes the next push set the deadline, after something else
// (the auth deadline) has used the same timer.
func (l *lazyDeadline) reset() { l.armed = time.Time{} }

// sleep waits d, or less if Close starts or kicked is closed; it reports
// whether it waited all of d.
func (s *Server) sleep(d time.Duration, kicked <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.done:
		return false
	case <-kicked:
		return false
	}
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// connState is what one connection remembers between requests.
type connState struct {
	authorized   bool
	authFailures int
	// holdBack delays the answer being written; closeAfter closes the
	// connection once it is written. Both are set by a failed auth.
	holdBack   time.Duration
	closeAfter bool

	// The connection's place in the listener's pools (pool.go), under
	// Server.mu: counted when it holds an authorized slot, elem when it
	// waits among the strangers.
	counted bool
	elem    *list.Element
	// kicked is closed when the connection is evicted from the strangers'
	// pool; conn is what the eviction interrupts.
	kicked   chan struct{}
	kickOnce sync.Once
	conn     net.Conn

	// following is set once the connection asks for events, and seen is the
	// newest event seq an events answer has covered: Close keeps serving a
	// follower until it has seen the completions Close appended.
	following atomic.Bool
	seen      atomic.Int64
	// answering is the seq an events answer covers until that answer is
	// written: Close must not count it as seen while it is still in out.
	answering    int64
	hasAnswering bool
}

// kick marks the connection evicted and interrupts its read: a read
// deadline in the past ends a blocked read at once, and startAuthDeadline
// keeps it in the past.
func (cs *connState) kick() {
	cs.kickOnce.Do(func() {
		close(cs.kicked)
		if cs.conn != nil {
			_ = cs.conn.SetReadDeadline(time.Unix(1, 0))
		}
	})
}

// evicted reports whether kick has run.
func (cs *connState) evicted() bool {
	select {
	case <-cs.kicked:
		return true
	default:
		return false
	}
}

// trees hold the parsed request lines. A line's tree lives until its
// answer is written into out; its memory then serves the next line of any
// connection, so a busy listener allocates no trees, and an idle one
// holds none once the collector has emptied the pool (a connection does
// not keep a tree, which could be as large as the value limit allows,
// between its lines).
var trees = sync.Pool{New: func() any { return new(strictjson.Arena) }}

// handle answers one request line; the response, with its LF, is appended to out.
func (s *Server) handle(out []byte, cs *connState, line []byte) []byte {
	tree := trees.Get().(*strictjson.Arena)
	defer func() {
		tree.Reset()
		trees.Put(tree)
	}()
	// Only a connection authorized when its request came may write
	// status.lastError: strangers' mistakes are not the client's news.
	trusted := cs.authorized
	req, rerr := decodeEnvelope(tree, line)
	if rerr != nil {
		if trusted {
			s.state.setError(errorSummary(rerr.code, ""))
		}
		return appendError(out, rerr)
	}
	result, rerr := s.dispatch(cs, req)
	if rerr != nil {
		rerr.id = req.id
		method := req.method
		if _, known := aicontrol.LookupMethod(method); !known {
			method = "" // an unknown method name is the client's payload
		}
		if trusted {
			s.state.setError(errorSummary(rerr.code, method))
		}
		return appendError(out, rerr)
	}
	return appendResult(out, req.id, result)
}

// errorSummary is what status.lastError shows of a rejected request: the
// error's name and the method, never a value the client sent, since that
// could be a payload or a token.
func errorSummary(code int64, method string) string {
	info, _ := aicontrol.LookupError(code)
	if method == "" {
		return info.Message
	}
	return info.Message + " (" + method + ")"
}

// dispatch runs a method after the envelope checks, in the contract's
// order: auth is always allowed; every other method needs an authorized
// connection, then valid params.
func (s *Server) dispatch(cs *connState, req request) (json.Marshaler, *rpcError) {
	// The strict policy, the one the contract's byte decoders apply:
	// unknown members of a closed object are errors.
	var d genrt.Decoder
	if req.method == aicontrol.MethodAuth {
		p, err := aicontrol.DecodeAuthParamsTree(req.params, &d)
		if err != nil {
			return nil, invalidParams(err)
		}
		ok := s.cfg.Token == "" ||
			subtle.ConstantTimeCompare([]byte(p.Token), []byte(s.cfg.Token)) == 1
		if ok && !s.promote(cs) {
			// Evicted from the strangers' pool meanwhile, or every
			// authorized slot was taken since the connection was accepted.
			cs.authorized, cs.closeAfter = false, true
			msg := s.slotsTaken()
			if cs.evicted() {
				msg = s.evictedMessage()
			}
			return nil, newError(aicontrol.CodeTooManyConnections, msg, nil)
		}
		// A failed attempt also withdraws an earlier success: the
		// connection is as authorized as the last token it presented.
		if !ok && cs.authorized {
			s.state.setError("authorization failed")
			s.demote(cs)
		}
		cs.authorized = ok
		if !ok {
			cs.authFailures++
			cs.holdBack, cs.closeAfter = s.auth.fail(time.Now(), cs.authFailures)
		}
		return aicontrol.AuthResult{Authorized: ok}, nil
	}
	if !cs.authorized {
		return nil, newError(aicontrol.CodeUnauthorized, "", nil)
	}
	// ping, status and observe take EmptyParams, an object whose members
	// are ignored: the envelope has already checked that params is one.
	switch req.method {
	case aicontrol.MethodPing:
		return pingResult, nil
	case aicontrol.MethodStatus:
		return s.Status(), nil
	case aicontrol.MethodObserve:
		return s.state.observation(), nil
	case aicontrol.MethodEvents:
		p, err := aicontrol.DecodeEventsParamsTree(req.params, &d)
		if err != nil {
			return nil, invalidParams(err)
		}
		// The generated decoder has clamped afterSeq and limit and filled defaults.
		res := s.state.eventsAfter(*p.AfterSeq, *p.Limit)
		cs.following.Store(true)
		seen := *p.AfterSeq
		if n := len(res.Events); n > 0 {
			seen = res.Events[n-1].Seq
		}
		cs.answering, cs.hasAnswering = seen, true
		return res, nil
	case aicontrol.MethodAct:
		p, err := aicontrol.DecodeActParamsTree(req.params, &d)
		if err != nil {
			return nil, invalidParams(err)
		}
		seq, rerr := s.state.enqueue(ownActParams(p))
		if rerr != nil {
			return nil, rerr
		}
		return aicontrol.ActResult{Accepted: true, CommandSeq: seq}, nil
	}
	return nil, newError(aicontrol.CodeMethodNotFound, "unknown method "+strconv.Quote(req.method), nil)
}

// pingResult is ping's answer, which never changes, encoded once by the
// contract's encoder: the cheapest request costs no encoding.
var pingResult json.Marshaler = func() encoded {
	b, _ := aicontrol.PingResult{Ok: true}.MarshalJSON() // a constant true cannot fail to encode
	return b
}()

// encoded is a result already in its wire form.
type encoded []byte

func (e encoded) MarshalJSON() ([]byte, error) { return e, nil }

// invalidParams is the answer to params the contract's decoder refused:
// the failing pointer within params and the reason go in the data.
func invalidParams(err error) *rpcError {
	d := errdetail.Of(err)
	if d.Pointer == nil {
		return newError(aicontrol.CodeInvalidParams, d.Reason, nil)
	}
	ad := aicontrol.ErrorDetail(d)
	return &rpcError{code: aicontrol.CodeInvalidParams, detail: &ad}
}

// Status reports the listener's state; lastError never holds a payload or a token.
func (s *Server) Status() aicontrol.StatusResult {
	st := s.state
	st.mu.Lock()
	defer st.mu.Unlock()
	return aicontrol.StatusResult{
		Running:           !st.closed,
		Host:              s.host,
		Port:              int64(s.port),
		QueuedCommands:    int64(len(st.queue)),
		MaxQueuedCommands: int64(st.maxQueue),
		Events:            int64(st.count),
		MaxEvents:         int64(st.maxEvents),
		ObservationSeq:    st.obsSeq,
		LastError:         st.lastError,
	}
}

// PublishObservation replaces the observation snapshot with obs, which
// must encode as a JSON object; it is copied, so the caller may change it
// afterwards. It returns the new observationSeq.
func (s *Server) PublishObservation(obs any) (int64, error) {
	raw, err := toJSON(obs)
	if err != nil {
		return 0, err
	}
	return s.state.publish(raw)
}

// Drain removes up to max accepted commands from the queue, oldest first
// (max <= 0: all). Each must later be completed with Complete.
func (s *Server) Drain(max int) []Command { return s.state.drain(max) }

// Wake is signalled (without blocking the listener) whenever a command is
// accepted, so a client loop can sleep until there is work.
func (s *Server) Wake() <-chan struct{} { return s.state.wake }

// Complete appends the command_completed event of an accepted command:
// its success, a short stable message, and extra project members (which
// cannot replace the contract's own). It returns the event's seq.
func (s *Server) Complete(seq int64, success bool, message string, extra map[string]any) (int64, error) {
	var raw map[string]json.RawMessage
	if len(extra) > 0 {
		raw = make(map[string]json.RawMessage, len(extra))
		for k, v := range extra {
			b, err := json.Marshal(v)
			if err != nil {
				return 0, fmt.Errorf("bridge: extra member %q: %w", k, err)
			}
			raw[k] = b
		}
	}
	return s.state.complete(seq, success, message, raw)
}

// AppendEvent appends a project event: a value that encodes as a JSON
// object with a non-empty string type other than command_completed. It
// returns the event's seq.
func (s *Server) AppendEvent(event any) (int64, error) {
	raw, err := toJSON(event)
	if err != nil {
		return 0, err
	}
	return s.state.appendEvent(raw)
}

func toJSON(v any) ([]byte, error) {
	switch x := v.(type) {
	case json.RawMessage:
		return x, nil
	case []byte:
		return x, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("bridge: %w", err)
	}
	return b, nil
}

// Close stops accepting, completes every accepted but unfinished command
// with success=false and ShutdownMessage, and closes the connections. A
// connection that follows events is served until it has read those
// completions (or until ShutdownGrace passes), so that a client waiting
// for its command sees the failed completion instead of a closed
// connection; act is refused meanwhile. Close returns the sequence numbers
// of the commands it completed. Calling it again does nothing.
func (s *Server) Close() ([]int64, error) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return nil, nil
	}
	s.closing = true
	close(s.done)
	err := s.ln.Close()
	for c := range s.lingerers {
		_ = c.SetReadDeadline(time.Unix(1, 0)) // their answers are written: stop draining
	}
	s.mu.Unlock()
	failed := s.state.shutdown(ShutdownMessage)
	final := s.state.latest()
	deadline := time.Now().Add(s.cfg.ShutdownGrace)
	for {
		waiting := 0
		s.mu.Lock()
		for c, cs := range s.conns {
			if cs.following.Load() && cs.seen.Load() < final && time.Now().Before(deadline) {
				waiting++
				continue
			}
			c.Close()
		}
		s.mu.Unlock()
		if waiting == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.wg.Wait()
	return failed, err
}
