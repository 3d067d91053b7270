//go:build !aicontrol_disabled

package bridge

import (
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

	// slots holds one token per open connection; a WaitWhenFull listener
	// takes one before it accepts, so extra peers wait in the backlog.
	slots chan struct{}
	// turnedAway bounds the goroutines that answer refused connections.
	turnedAway chan struct{}
	done       chan struct{} // closed when Close starts

	mu      sync.Mutex
	conns   map[net.Conn]*connState
	closing bool
	wg      sync.WaitGroup
}

// Listen validates cfg, then binds and starts serving in the background.
// Unsafe settings are refused before anything is bound; Config.Warnings
// tells the risks of the settings it accepts.
func Listen(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("bridge: listen: %w", err)
	}
	host, portStr, _ := net.SplitHostPort(ln.Addr().String())
	port, _ := strconv.Atoi(portStr)
	s := &Server{
		cfg:        cfg,
		ln:         ln,
		host:       host,
		port:       port,
		state:      newState(cfg.MaxQueuedCommands, cfg.MaxEvents),
		auth:       newAuthLimiter(cfg),
		slots:      make(chan struct{}, cfg.MaxConnections),
		turnedAway: make(chan struct{}, cfg.MaxConnections),
		done:       make(chan struct{}),
		conns:      map[net.Conn]*connState{},
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
		if s.cfg.WaitWhenFull {
			// Accept only with a free slot: until then the kernel keeps new
			// connections in the backlog, unanswered.
			select {
			case s.slots <- struct{}{}:
			case <-s.done:
				return
			}
		}
		c, err := s.ln.Accept()
		if err != nil {
			if s.cfg.WaitWhenFull {
				<-s.slots
			}
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
		if !s.cfg.WaitWhenFull {
			select {
			case s.slots <- struct{}{}:
			default:
				s.turnAway(c)
				continue
			}
		}
		cs := &connState{authorized: s.cfg.Token == ""}
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			c.Close()
			<-s.slots
			return
		}
		s.conns[c] = cs
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c, cs)
	}
}

// turnAway answers a connection that found every slot taken with one
// too-many-connections line, unasked, and closes it. The line is written
// at once (a fresh socket's buffer takes it without waiting); then the
// write side closes and the peer's request, if it sent one, is read and
// dropped for a moment, so that the close does not reset the connection
// before the peer has read the answer. Only as many refused connections
// as there are slots linger that way at a time; the rest are closed
// right after the line.
func (s *Server) turnAway(c net.Conn) {
	msg := fmt.Sprintf("all %d connection slots are taken", s.cfg.MaxConnections)
	s.state.setError("connection refused: " + msg)
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write(appendError(nil, newError(aicontrol.CodeTooManyConnections, msg, nil))); err != nil {
		c.Close()
		return
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	select {
	case s.turnedAway <- struct{}{}:
	default:
		c.Close()
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.turnedAway }()
		defer c.Close()
		buf := make([]byte, 512)
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
		}
	}()
}

// serve runs one connection: requests are handled one after another, and
// this goroutine is the connection's only writer.
func (s *Server) serve(c net.Conn, cs *connState) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
		<-s.slots
	}()
	lr := newLineReader(c, maxLine)
	if !cs.authorized {
		s.startAuthDeadline(c)
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
		line, err := lr.readLine()
		closeAfter := false
		switch {
		case err == nil:
			wasAuthorized := cs.authorized
			out = s.handle(out[:0], cs, line)
			switch {
			case cs.authorized && !wasAuthorized:
				idle.reset() // the auth deadline gives way to the idle timeout
			case !cs.authorized && wasAuthorized:
				s.startAuthDeadline(c)
			}
			closeAfter = cs.closeAfter
		case errors.Is(err, ErrLineTooLong), errors.Is(err, ErrUnterminated):
			// Framing is lost: answer, then close.
			s.state.setError(err.Error() + " from " + c.RemoteAddr().String())
			out = appendError(out[:0], newError(aicontrol.CodeInvalidRequest, err.Error(), nil))
			closeAfter = true
		default:
			if !errors.Is(err, io.EOF) && !s.isClosing() {
				var ne net.Error
				switch {
				case errors.As(err, &ne) && ne.Timeout() && !cs.authorized:
					s.state.setError("auth deadline passed for " + c.RemoteAddr().String())
				case errors.As(err, &ne) && ne.Timeout():
				default:
					s.state.setError(c.RemoteAddr().String() + ": read: " + err.Error())
				}
			}
			return
		}
		if cs.holdBack > 0 {
			if !s.sleep(cs.holdBack) {
				return
			}
			cs.holdBack = 0
		}
		write.push()
		if _, err := c.Write(out); err != nil {
			if !s.isClosing() {
				s.state.setError(c.RemoteAddr().String() + ": write: " + err.Error())
			}
			return
		}
		if cs.hasAnswering {
			cs.seen.Store(cs.answering)
			cs.hasAnswering = false
		}
		if closeAfter {
			return
		}
	}
}

// startAuthDeadline gives an unauthorized connection AuthDeadline to
// authorize, from now; no line it sends moves the deadline.
func (s *Server) startAuthDeadline(c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(s.cfg.AuthDeadline))
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

// sleep waits d, or less if Close starts; it reports whether it waited all of d.
func (s *Server) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.done:
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
	req, rerr := decodeEnvelope(tree, line)
	if rerr != nil {
		s.state.setError(errorSummary(rerr.code, ""))
		return appendError(out, rerr)
	}
	result, rerr := s.dispatch(cs, req)
	if rerr != nil {
		rerr.id = req.id
		method := req.method
		if _, known := aicontrol.LookupMethod(method); !known {
			method = "" // an unknown method name is the client's payload
		}
		s.state.setError(errorSummary(rerr.code, method))
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
		// A failed attempt also withdraws an earlier success: the
		// connection is as authorized as the last token it presented.
		cs.authorized = ok
		if !ok {
			cs.authFailures++
			cs.holdBack, cs.closeAfter = s.auth.fail(time.Now(), cs.authFailures)
			s.state.setError("authorization failed")
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
	return nil, newError(aicontrol.CodeMethodNotFound, strconv.Quote(req.method), nil)
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

func invalidParams(err error) *rpcError {
	return newError(aicontrol.CodeInvalidParams, err.Error(), nil)
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
