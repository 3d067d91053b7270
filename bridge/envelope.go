//go:build !aicontrol_disabled

package bridge

import (
	"errors"

	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// request is an envelope that passed every envelope check. Its method,
// params and id share the memory of the line and of the connection's tree
// arena: they are valid while the line is handled, and whatever outlives
// the request is copied (see ownActParams).
type request struct {
	id     []byte // the id exactly as the client wrote it
	method string
	params *strictjson.Value // the params object; emptyParams when absent
}

// rpcError is an error response: its code, the detail that goes in its
// data and the id to echo (nil echoes null). The message is always the
// error table's literal for the code, so a client that matches it keeps
// working; what was wrong in this request travels in data.
type rpcError struct {
	code   int64
	detail *aicontrol.ErrorDetail // nil: the error carries no data
	id     []byte
}

// newError is the error of a code whose data states reason ("" for none).
func newError(code int64, reason string, id []byte) *rpcError {
	e := &rpcError{code: code, id: id}
	if reason != "" {
		e.detail = &aicontrol.ErrorDetail{Reason: reason}
	}
	return e
}

// message is the error table's literal for the code.
func (e *rpcError) message() string {
	info, _ := aicontrol.LookupError(e.code)
	return info.Message
}

// emptyParams is what an absent params reads as: an empty object. The
// decoders only read it.
var emptyParams = &strictjson.Value{Kind: strictjson.Object}

// envelopeOptions bound the work of one line by the contract's value and
// depth limits, whatever the line's length: a line of a million zeros is
// refused after the limit's worth of them.
var envelopeOptions = strictjson.Options{MaxValues: aicontrol.MaxValuesPerLine, MaxDepth: aicontrol.MaxNestingDepth}

// treeOptions parse the line with its strings borrowed from the line, so
// the parse copies nothing.
var treeOptions = func() strictjson.Options {
	o := envelopeOptions
	o.Borrow = true
	return o
}()

// decodeEnvelope applies the envelope checks in the contract's order of
// precedence: malformed UTF-8 or JSON (an empty line too) is a parse error
// with id null; a line over the value limit, a value that is not an
// object, or an object with repeated member names, is an invalid request
// with id null; a wrong jsonrpc, a missing, empty or non-string method, or
// params that are not an object are invalid requests that echo the id; an
// id that is neither a string nor an integer cannot be echoed and is an
// invalid request with id null.
//
// The line is parsed once, into a, and params stays that tree: the method
// that owns it decodes the tree, so no request is parsed twice. The
// arena's memory is reused from line to line, so the tree costs no
// allocation on a warm listener.
//
// The read is lazy about params: they are parsed with the line but
// decoded only by the method that owns them, so a request refused as
// unauthorized or unknown never has its params read, and a stranger's
// line (at most MaxUnauthenticatedLineBytes) costs one tree in reused
// memory.
//
// The id is echoed byte for byte as the client wrote it: "1" stays a
// string, 1.0 stays 1.0, so a client can compare it with what it sent.
func decodeEnvelope(a *strictjson.Arena, line []byte) (request, *rpcError) {
	if len(line) >= overValueLimitBytes {
		// A line long enough to break the value limit is checked without a
		// tree first, so that a peer sending such lines costs no tree.
		if err := strictjson.Valid(line, envelopeOptions); err != nil {
			return envelopeError(err)
		}
	}
	v, err := strictjson.ParseIn(a, line, treeOptions)
	if err != nil {
		return envelopeError(err)
	}
	if v.Kind != strictjson.Object {
		return request{}, newError(aicontrol.CodeInvalidRequest, "request is not a JSON object", nil)
	}
	// Member names are unique (the parse refuses repeats), so one pass
	// finds each member.
	var jsonrpc, rawID, method, params *strictjson.Value
	for i := range v.Members {
		switch m := &v.Members[i]; m.Key {
		case "jsonrpc":
			jsonrpc = m.Value
		case "id":
			rawID = m.Value
		case "method":
			method = m.Value
		case "params":
			params = m.Value
		}
	}
	var id []byte
	if rawID != nil {
		id = echoID(line[rawID.Start:rawID.End])
	}
	if jsonrpc == nil || jsonrpc.Kind != strictjson.String || jsonrpc.Str != aicontrol.JSONRPCVersion {
		return request{}, newError(aicontrol.CodeInvalidRequest, `jsonrpc must be "`+aicontrol.JSONRPCVersion+`"`, id)
	}
	if method == nil || method.Kind != strictjson.String || method.Str == "" {
		return request{}, newError(aicontrol.CodeInvalidRequest, "method must be a non-empty string", id)
	}
	m := method.Str
	if known, ok := knownNames[m]; ok {
		m = known // the contract's own string, not the line's memory
	}
	if params == nil {
		params = emptyParams
	} else if params.Kind != strictjson.Object {
		return request{}, newError(aicontrol.CodeInvalidRequest, "params must be an object", id)
	}
	if id == nil {
		return request{}, newError(aicontrol.CodeInvalidRequest, "id must be a string or an integer", nil)
	}
	return request{id: id, method: m, params: params}, nil
}

// overValueLimitBytes is the shortest line that can hold more values than
// the contract's limit: a value takes at least two bytes (a digit and a
// comma, or a pair of brackets), so n bytes hold at most (n+1)/2 values.
// Shorter lines, every ordinary request among them, are parsed once; the
// largest tree one can build (the limit's worth of values, about 1.4 MiB
// for a 32 KiB line of zeros) lives in pooled memory that the next line
// reuses.
const overValueLimitBytes = 2 * aicontrol.MaxValuesPerLine

// envelopeError is the answer to a line that is not one JSON value within
// the limits.
func envelopeError(err error) (request, *rpcError) {
	var se *strictjson.Error
	if errors.As(err, &se) && (se.Kind == strictjson.ErrDuplicateKey || se.Kind == strictjson.ErrDepth || se.Kind == strictjson.ErrValues) {
		// Well-formed JSON whose meaning is ambiguous, unreasonably deep or large.
		return request{}, newError(aicontrol.CodeInvalidRequest, se.Msg, nil)
	}
	msg := "invalid JSON"
	if se != nil {
		msg = se.Msg
	}
	return request{}, newError(aicontrol.CodeParseError, msg, nil)
}

// echoID returns the raw text of an id the contract's RequestID type
// accepts (a string or an integer), or nil.
func echoID(raw []byte) []byte {
	switch {
	case len(raw) == 0:
		return nil
	case raw[0] == '"':
		return raw
	case isShortInteger(raw):
		return raw
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		// 1.0 and 3e1 are integers too; the contract's decoder decides.
		if _, err := aicontrol.DecodeRequestID(raw); err == nil {
			return raw
		}
	}
	return nil
}

// isShortInteger reports plain decimal digits, optionally negative, short
// enough to be an exact integer in every JSON reader (under 2^53).
func isShortInteger(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 15 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// knownNames are the method names, so that a known method is the
// contract's string rather than one borrowed from the line.
var knownNames = func() map[string]string {
	m := map[string]string{}
	for _, info := range aicontrol.Methods {
		m[info.Name] = info.Name
	}
	return m
}()
