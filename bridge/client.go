package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// DefaultCallTimeout bounds one call (write and read) when neither the
// context nor ClientConfig sets a deadline.
const DefaultCallTimeout = 10 * time.Second

// ClientConfig says where and how to connect.
type ClientConfig struct {
	Host string // default aicontrol.DefaultHost
	Port int    // default aicontrol.DefaultPort; 1..65535
	// Token is presented by Auth. Take it from an environment variable or a
	// secret store; the client never logs or reports it.
	Token string
	// AllowRemote permits a non-loopback host. The protocol has no TLS:
	// token and payloads cross the network in plain text.
	AllowRemote bool
	// Timeout bounds each call (default DefaultCallTimeout).
	Timeout time.Duration
}

// Errors of a response that breaks the contract. Each is distinct, so a
// caller or a test can tell what the peer did wrong; after any of them
// the connection is closed, since the stream can no longer be trusted.
var (
	ErrNoResponse        = errors.New("connection closed without a response")
	ErrMissingLF         = errors.New("response not terminated by LF")
	ErrResponseTooLong   = errors.New("response line exceeds the line limit")
	ErrInvalidUTF8       = errors.New("response is not valid UTF-8")
	ErrInvalidJSON       = errors.New("response is not valid JSON")
	ErrResponseNotObject = errors.New("response is not a JSON object")
	ErrWrongJSONRPC      = errors.New(`response jsonrpc is not "` + aicontrol.JSONRPCVersion + `"`)
	ErrIDMismatch        = errors.New("response id does not match the request id")
	ErrAmbiguousResponse = errors.New("response must hold exactly one of result and error")
	ErrMalformedError    = errors.New("response error object is malformed")
	ErrInvalidResult     = errors.New("response result does not match the contract")
	ErrRequestTooLarge   = errors.New("request exceeds the line limit")
	ErrInvalidArgument   = errors.New("invalid argument")
	ErrClientClosed      = errors.New("client connection closed")
	// ErrPeerClosed: the listener had closed the connection before the
	// request was written, so nothing was sent and a caller may send the
	// request again on a new connection. (Where the platform cannot tell,
	// the request fails with ErrNoResponse instead.)
	ErrPeerClosed = errors.New("the listener had closed the connection; the request was not sent")
)

// RemoteError is an error response: the server's code, its message (the
// error table's literal for the code) and its data, raw.
type RemoteError struct {
	Code    int64
	Message string
	Data    json.RawMessage
}

// Error spells the code, the message and, when the data is the
// contract's ErrorDetail, the pointer and the reason it carries.
func (e *RemoteError) Error() string {
	s := fmt.Sprintf("remote error %d: %s", e.Code, e.Message)
	if d, ok := e.Detail(); ok {
		if d.Pointer != nil {
			s += ": " + strictjson.DisplayPointer(*d.Pointer)
		}
		s += ": " + d.Reason
	}
	return s
}

// Detail decodes the data as the contract's ErrorDetail: what was wrong
// in the request (the failing pointer within params, the reason). It
// reports false when the error has no data or other data.
func (e *RemoteError) Detail() (aicontrol.ErrorDetail, bool) {
	if len(e.Data) == 0 {
		return aicontrol.ErrorDetail{}, false
	}
	d, err := aicontrol.DecodeErrorDetail(e.Data)
	return d, err == nil
}

// Client is one connection to a listener. Calls are sequential: a call
// sends its request and reads its response before the next call starts.
type Client struct {
	mu      sync.Mutex
	conn    net.Conn
	lr      *lineReader
	nextID  int64
	token   string
	timeout time.Duration
	broken  error
	probe   *closeProbe // tells whether the listener has closed conn

	addr   string    // host:port, to dial again when turned away
	served bool      // a call on this connection got an answer
	dialed time.Time // when Dial was called
}

// turnedAwayRetry is how long a client keeps dialling again when a
// listener turns it away because every connection slot is taken. A slot
// held by a connection that has just closed is freed a moment later, and
// the refusal comes before the listener reads anything, so the first
// request can safely be sent again on a new connection.
const turnedAwayRetry = 2 * time.Second

// CheckClientConfig checks the settings locally, before any I/O.
func CheckClientConfig(cfg ClientConfig) (host string, port int, err error) {
	host, port = cfg.Host, cfg.Port
	if host == "" {
		host = aicontrol.DefaultHost
	}
	if port == 0 {
		port = aicontrol.DefaultPort
	}
	if port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("%w: port %d is not in 1..65535", ErrInvalidArgument, port)
	}
	if !IsLoopback(host) && !cfg.AllowRemote {
		return "", 0, fmt.Errorf("%w: host %q is not loopback; allowing it needs an explicit opt-in", ErrInvalidArgument, host)
	}
	if cfg.Timeout < 0 {
		return "", 0, fmt.Errorf("%w: negative timeout", ErrInvalidArgument)
	}
	return host, port, nil
}

// Dial connects to a listener. It does not authorize: call Auth. When the
// listener answers the first call with too-many-connections (every slot
// taken), the call is sent again on a new connection for up to two
// seconds after Dial, since a slot is often freed a moment later.
func Dial(ctx context.Context, cfg ClientConfig) (*Client, error) {
	host, port, err := CheckClientConfig(cfg)
	if err != nil {
		return nil, err
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = DefaultCallTimeout
	}
	// localhost is dialled as the loopback literal: the token must not
	// follow a resolver's idea of the name off the machine.
	addr := net.JoinHostPort(LiteralHost(host), strconv.Itoa(port))
	conn, err := dialTCP(ctx, addr, timeout)
	if err != nil {
		return nil, err
	}
	return &Client{conn: conn, lr: newLineReader(conn, maxLine), probe: newCloseProbe(conn), token: cfg.Token, timeout: timeout, addr: addr, dialed: time.Now()}, nil
}

func dialTCP(ctx context.Context, addr string, timeout time.Duration) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	return d.DialContext(ctx, "tcp", addr)
}

// Close closes the connection.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken == nil {
		c.broken = ErrClientClosed
	}
	return c.conn.Close()
}

// Call sends one request and returns the raw result. params must encode
// as a JSON object (nil sends {}).
func (c *Client) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if method == "" {
		return nil, fmt.Errorf("%w: empty method", ErrInvalidArgument)
	}
	raw := json.RawMessage("{}")
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("%w: params: %v", ErrInvalidArgument, err)
		}
		raw = b
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return nil, c.broken
	}
	c.nextID++
	id := c.nextID
	line, err := aicontrol.Request{ID: aicontrol.RequestIDFromInteger(id), Method: method, Params: raw}.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidArgument, err)
	}
	if len(line) > maxLine {
		return nil, fmt.Errorf("%w: %d bytes", ErrRequestTooLarge, len(line))
	}
	deadline := time.Now().Add(c.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	line = append(line, '\n')
	// A deadline of an earlier call may have passed: clear it, so that
	// the look at the socket is not refused.
	_ = c.conn.SetDeadline(deadline)
	if c.lr.r.Buffered() == 0 && c.probe.peerClosed() {
		return nil, c.fail(ErrPeerClosed)
	}
	for {
		result, err := c.roundTrip(ctx, line, id, deadline)
		var re *RemoteError
		switch {
		case err == nil:
			c.served = true
			return result, nil
		case errors.As(err, &re) && re.Code == aicontrol.CodeTooManyConnections && !c.served &&
			time.Since(c.dialed) < turnedAwayRetry && time.Now().Before(deadline):
			if err := c.redial(ctx); err != nil {
				return nil, c.fail(err)
			}
		case errors.As(err, &re):
			c.served = true
			return nil, err
		default:
			return nil, c.fail(err)
		}
	}
}

// roundTrip writes one request line and reads its response.
func (c *Client) roundTrip(ctx context.Context, line []byte, id int64, deadline time.Time) (json.RawMessage, error) {
	_ = c.conn.SetDeadline(deadline)
	conn := c.conn
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := c.conn.Write(line); err != nil {
		// A listener that turned this connection away may have closed it
		// already; its answer is still in the read buffer.
		if resp, rerr := c.lr.readLine(); rerr == nil {
			if _, cerr := checkResponse(resp, id); isTurnedAway(cerr) {
				return nil, cerr
			}
		}
		return nil, ctxErr(ctx, err)
	}
	resp, err := c.lr.readLine()
	if err != nil {
		switch {
		case errors.Is(err, io.EOF):
			err = ErrNoResponse
		case errors.Is(err, ErrUnterminated):
			err = ErrMissingLF
		case errors.Is(err, ErrLineTooLong):
			err = ErrResponseTooLong
		default:
			err = ctxErr(ctx, err)
		}
		return nil, err
	}
	return checkResponse(resp, id)
}

func isTurnedAway(err error) bool {
	var re *RemoteError
	return errors.As(err, &re) && re.Code == aicontrol.CodeTooManyConnections
}

// redial replaces a connection the listener turned away, after a pause.
func (c *Client) redial(ctx context.Context) error {
	c.conn.Close()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(50 * time.Millisecond):
	}
	conn, err := dialTCP(ctx, c.addr, c.timeout)
	if err != nil {
		return err
	}
	c.conn, c.lr, c.probe = conn, newLineReader(conn, maxLine), newCloseProbe(conn)
	return nil
}

func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// fail marks the connection unusable and closes it.
func (c *Client) fail(err error) error {
	c.broken = err
	c.conn.Close()
	return err
}

// checkResponse applies the client's view of the response envelope.
func checkResponse(line []byte, id int64) (json.RawMessage, error) {
	v, err := strictjson.Parse(line, strictjson.Options{})
	if err != nil {
		var se *strictjson.Error
		if errors.As(err, &se) && se.Kind == strictjson.ErrUTF8 {
			return nil, fmt.Errorf("%w: %s", ErrInvalidUTF8, se.Msg)
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalidJSON, err)
	}
	if v.Kind != strictjson.Object {
		return nil, ErrResponseNotObject
	}
	if j := v.Get("jsonrpc"); j == nil || j.Kind != strictjson.String || j.Str != aicontrol.JSONRPCVersion {
		return nil, ErrWrongJSONRPC
	}
	res, rerr := v.Get("result"), v.Get("error")
	if (res == nil) == (rerr == nil) {
		return nil, ErrAmbiguousResponse
	}
	idv := v.Get("id")
	switch {
	case idv == nil:
		return nil, fmt.Errorf("%w: no id", ErrIDMismatch)
	case idv.Kind == strictjson.Null && rerr != nil:
		// The server could not read the request far enough to find its id.
	default:
		if n, ok := idv.Int64(); !ok || idv.Kind != strictjson.Number || n != id {
			return nil, fmt.Errorf("%w: sent %d, got %s", ErrIDMismatch, id, line[idv.Start:idv.End])
		}
	}
	if rerr != nil {
		e, err := aicontrol.DecodeErrorObject(line[rerr.Start:rerr.End])
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformedError, err)
		}
		return nil, &RemoteError{Code: e.Code, Message: e.Message, Data: e.Data}
	}
	return json.RawMessage(line[res.Start:res.End]), nil
}

// as turns a generated decoder into a function of Call's results, so a
// typed method reads as as(decoder)(c.Call(...)).
func as[T any](decode func([]byte) (T, error)) func(json.RawMessage, error) (T, error) {
	return func(raw json.RawMessage, err error) (T, error) {
		var zero T
		if err != nil {
			return zero, err
		}
		v, err := decode(raw)
		if err != nil {
			return zero, fmt.Errorf("%w: %v", ErrInvalidResult, err)
		}
		return v, nil
	}
}

// Auth presents the configured token and reports whether the connection
// is now authorized.
func (c *Client) Auth(ctx context.Context) (bool, error) {
	return c.AuthWith(ctx, c.token)
}

// AuthWith presents another token (for tests of rejection).
func (c *Client) AuthWith(ctx context.Context, token string) (bool, error) {
	r, err := as(aicontrol.DecodeAuthResult)(c.Call(ctx, aicontrol.MethodAuth, aicontrol.AuthParams{Token: token}))
	return r.Authorized, err
}

// Ping checks the transport.
func (c *Client) Ping(ctx context.Context) (aicontrol.PingResult, error) {
	return as(aicontrol.DecodePingResult)(c.Call(ctx, aicontrol.MethodPing, nil))
}

// Status reads the listener's state.
func (c *Client) Status(ctx context.Context) (aicontrol.StatusResult, error) {
	return as(aicontrol.DecodeStatusResult)(c.Call(ctx, aicontrol.MethodStatus, nil))
}

// Observe reads the latest observation.
func (c *Client) Observe(ctx context.Context) (aicontrol.ObserveResult, error) {
	return as(aicontrol.DecodeObserveResult)(c.Call(ctx, aicontrol.MethodObserve, nil))
}

// Events reads events after afterSeq (>= 0), at most limit (> 0; the
// server clamps it to its maximum).
func (c *Client) Events(ctx context.Context, afterSeq, limit int64) (aicontrol.EventsResult, error) {
	if afterSeq < 0 {
		return aicontrol.EventsResult{}, fmt.Errorf("%w: afterSeq %d is negative", ErrInvalidArgument, afterSeq)
	}
	if limit <= 0 {
		return aicontrol.EventsResult{}, fmt.Errorf("%w: limit %d is not positive", ErrInvalidArgument, limit)
	}
	p := aicontrol.EventsParams{AfterSeq: &afterSeq, Limit: &limit}
	return as(aicontrol.DecodeEventsResult)(c.Call(ctx, aicontrol.MethodEvents, p))
}

// Act queues a command; its type must not be empty.
func (c *Client) Act(ctx context.Context, cmd aicontrol.ActParams) (aicontrol.ActResult, error) {
	if cmd.Type == "" {
		return aicontrol.ActResult{}, fmt.Errorf("%w: empty command type", ErrInvalidArgument)
	}
	return as(aicontrol.DecodeActResult)(c.Call(ctx, aicontrol.MethodAct, cmd))
}
