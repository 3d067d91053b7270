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
	"time"

	"github.com/contractkit/contractkit/generated/aicontrol"
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

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closing bool
	wg      sync.WaitGroup
}

// Listen validates cfg, then binds and starts serving in the background.
// Unsafe settings are refused before anything is bound.
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
		cfg:   cfg,
		ln:    ln,
		host:  host,
		port:  port,
		state: newState(cfg.MaxQueuedCommands, cfg.MaxEvents),
		conns: map[net.Conn]struct{}{},
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
		c, err := s.ln.Accept()
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
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
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			c.Close()
			return
		}
		if len(s.conns) >= s.cfg.MaxConnections {
			s.mu.Unlock()
			s.state.setError(fmt.Sprintf("connection refused: %d connections already open", s.cfg.MaxConnections))
			c.Close()
			continue
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

// serve runs one connection: requests are handled one after another, and
// this goroutine is the connection's only writer.
func (s *Server) serve(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	cs := &connState{authorized: s.cfg.Token == ""}
	lr := newLineReader(c, maxLine)
	var out []byte
	for {
		if s.cfg.IdleTimeout > 0 {
			_ = c.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout))
		}
		line, err := lr.readLine()
		closeAfter := false
		switch {
		case err == nil:
			out = s.handle(out[:0], cs, line)
		case errors.Is(err, ErrLineTooLong), errors.Is(err, ErrUnterminated):
			// Framing is lost: answer, then close.
			s.state.setError(err.Error() + " from " + c.RemoteAddr().String())
			out = appendError(out[:0], newError(aicontrol.CodeInvalidRequest, err.Error(), nil))
			closeAfter = true
		default:
			if !errors.Is(err, io.EOF) && !s.isClosing() {
				var ne net.Error
				if !(errors.As(err, &ne) && ne.Timeout()) {
					s.state.setError(c.RemoteAddr().String() + ": read: " + err.Error())
				}
			}
			return
		}
		if s.cfg.WriteTimeout > 0 {
			_ = c.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		}
		if _, err := c.Write(out); err != nil {
			if !s.isClosing() {
				s.state.setError(c.RemoteAddr().String() + ": write: " + err.Error())
			}
			return
		}
		if closeAfter {
			return
		}
	}
}

func (s *Server) isClosing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closing
}

// connState is what one connection remembers between requests.
type connState struct {
	authorized bool
}

// handle answers one request line; the response, with its LF, is appended to out.
func (s *Server) handle(out []byte, cs *connState, line []byte) []byte {
	req, rerr := decodeEnvelope(line)
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
	if req.method == aicontrol.MethodAuth {
		p, err := aicontrol.DecodeAuthParams(req.params)
		if err != nil {
			return nil, invalidParams(err)
		}
		ok := s.cfg.Token == "" ||
			subtle.ConstantTimeCompare([]byte(p.Token), []byte(s.cfg.Token)) == 1
		// A failed attempt also withdraws an earlier success: the
		// connection is as authorized as the last token it presented.
		cs.authorized = ok
		if !ok {
			s.state.setError("authorization failed")
		}
		return aicontrol.AuthResult{Authorized: ok}, nil
	}
	if !cs.authorized {
		return nil, newError(aicontrol.CodeUnauthorized, "", nil)
	}
	switch req.method {
	case aicontrol.MethodPing:
		if _, err := aicontrol.DecodeEmptyParams(req.params); err != nil {
			return nil, invalidParams(err)
		}
		return aicontrol.PingResult{Ok: true}, nil
	case aicontrol.MethodStatus:
		if _, err := aicontrol.DecodeEmptyParams(req.params); err != nil {
			return nil, invalidParams(err)
		}
		return s.Status(), nil
	case aicontrol.MethodObserve:
		if _, err := aicontrol.DecodeEmptyParams(req.params); err != nil {
			return nil, invalidParams(err)
		}
		return s.state.observation(), nil
	case aicontrol.MethodEvents:
		p, err := aicontrol.DecodeEventsParams(req.params)
		if err != nil {
			return nil, invalidParams(err)
		}
		// The generated decoder has clamped afterSeq and limit and filled defaults.
		return s.state.eventsAfter(*p.AfterSeq, *p.Limit), nil
	case aicontrol.MethodAct:
		p, err := aicontrol.DecodeActParams(req.params)
		if err != nil {
			return nil, invalidParams(err)
		}
		seq, rerr := s.state.enqueue(p)
		if rerr != nil {
			return nil, rerr
		}
		return aicontrol.ActResult{Accepted: true, CommandSeq: seq}, nil
	}
	return nil, newError(aicontrol.CodeMethodNotFound, strconv.Quote(req.method), nil)
}

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

// Close stops accepting, closes every connection, waits for their
// goroutines, and completes every accepted but unfinished command with
// success=false and ShutdownMessage. It returns the sequence numbers of
// the commands it completed that way. Calling it again does nothing.
func (s *Server) Close() ([]int64, error) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return nil, nil
	}
	s.closing = true
	err := s.ln.Close()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	failed := s.state.shutdown(ShutdownMessage)
	return failed, err
}
