package rpc

import (
	"context"
	"encoding/json"
	"io"

	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Limits are the transport's bounds, in bytes unless named otherwise. The
// values come from the contract (generated/ide); the transport declares none.
type Limits struct {
	MaxHeaderBytes       int
	MaxRequestBytes      int
	MaxResponseBytes     int
	MaxDepth             int
	MaxBatchItems        int
	MaxPendingRequests   int
	MaxQueuedBytes       int
	MaxWriterQueueBytes  int
	BatchReserveBytes    int // room kept in a batch response for error responses still to come
	MaxIDLength          int
	MaxStderrDiagnostics int
}

// Codes are the JSON-RPC error codes and their default messages.
type Codes struct {
	ParseError, InvalidRequest, MethodNotFound, InvalidParams, InternalError int64
	// Message returns the default message of a code.
	Message func(code int64) string
	// InvalidParamsData returns the encoded data of an invalid-params
	// error the transport itself raises (positional params), with the
	// pointer within params and the reason; nil sends no data.
	InvalidParamsData func(pointer, reason string) []byte
}

// err is the error response of a code with its default message. The
// contract's envelope errors carry the standard message only (the eska
// fixtures fix them so), so the reason a caller gives is not sent: it
// names, at the call site, which rule refused the message. Invalid params
// alone states its reason, in data (InvalidParamsData), never in the
// message.
func (c Codes) err(code int64) *Error {
	return &Error{Code: code, Message: c.Message(code)}
}

func (c Codes) parse() *Error                    { return c.err(c.ParseError) }
func (c Codes) invalidRequest(why string) *Error { return c.err(c.InvalidRequest) }
func (c Codes) invalidParams(why string) *Error {
	e := c.err(c.InvalidParams)
	if c.InvalidParamsData != nil {
		e.Data = c.InvalidParamsData("", why)
	}
	return e
}
func (c Codes) methodNotFound() *Error { return c.err(c.MethodNotFound) }
func (c Codes) internal() *Error       { return c.err(c.InternalError) }

// DomainErrors builds the domain errors the transport itself raises.
type DomainErrors struct {
	ResourceLimit    func(resource string, limit int) *Error
	Cancelled        func() *Error
	ResponseTooLarge func(limitBytes int) *Error
	InvalidState     func(state string) *Error
}

// Lifecycle names the methods the transport handles itself.
type Lifecycle struct {
	Initialize, Shutdown, Exit, CancelRequest string
}

// Kind says what a method name is in the contract.
type Kind int

const (
	Unknown      Kind = iota
	Request           // a method: has an id, gets a response
	Notification      // never answered
)

// CancelClass says what a $/cancelRequest does to a request that has started.
type CancelClass int

const (
	// ReadOnly requests check for cancellation before their response is
	// published and answer cancelled instead.
	ReadOnly CancelClass = iota
	// Committing requests (lifecycle, refresh, index control, writes) keep
	// their real result once started: state is never rolled back.
	Committing
)

// Handler is the protocol behind the transport.
type Handler interface {
	// Kind classifies a method name.
	Kind(method string) Kind
	// Class says how cancellation affects a started request of method.
	Class(method string) CancelClass
	// Call runs a request and returns its result as JSON ("null" for a
	// null result) or an error response. params is the params object of
	// the message as the transport parsed it (nil when absent), so the
	// handler decodes it without a second parse; ctx is valid during the
	// call only.
	Call(ctx context.Context, method string, params *strictjson.Value) (json.RawMessage, *Error)
	// Notify runs a notification; an error is only diagnosed on stderr.
	Notify(ctx context.Context, method string, params *strictjson.Value) error
	// Background does bounded background work between requests and
	// reports whether there was any. It may go on to further bounded steps
	// while ctx.Err() is nil: that turns non-nil as soon as a request is
	// waiting (or the conversation has ended), and a request then waits
	// for no more than the step in hand; Done is closed then too, for a
	// step that would rather give way than wait.
	Background(ctx context.Context) bool
	// Close releases the session when the process ends. The transport calls
	// it only after the worker has stopped, so never beside another method;
	// when the worker is still inside a call at the end, Run returns without
	// waiting and Close follows once that call returns.
	Close()
}

// Config configures a Server.
type Config struct {
	Limits         Limits
	Codes          Codes
	Errors         DomainErrors
	Lifecycle      Lifecycle
	JSONRPCVersion string
	Handler        Handler
	// Stderr receives at most Limits.MaxStderrDiagnostics short machine codes.
	Stderr io.Writer
}
