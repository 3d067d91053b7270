//go:build !aicontrol_disabled

package bridge

import (
	"errors"

	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/strictjson"
)

// request is an envelope that passed every envelope check.
type request struct {
	id     []byte // the id exactly as the client wrote it
	method string
	params []byte // the params object as written; "{}" when absent
}

// rpcError is an error response: its code, message and the id to echo
// (nil echoes null).
type rpcError struct {
	code int64
	msg  string
	id   []byte
}

func newError(code int64, detail string, id []byte) *rpcError {
	msg := detail
	if info, ok := aicontrol.LookupError(code); ok {
		msg = info.Message
		if detail != "" {
			msg += ": " + detail
		}
	}
	return &rpcError{code: code, msg: msg, id: id}
}

var emptyParams = []byte("{}")

// decodeEnvelope applies the envelope checks in the contract's order of
// precedence: malformed UTF-8 or JSON (an empty line too) is a parse error
// with id null; a value that is not an object, or an object with repeated
// member names, is an invalid request with id null; a wrong jsonrpc, a
// missing, empty or non-string method, or params that are not an object
// are invalid requests that echo the id; an id that is neither a string
// nor an integer cannot be echoed and is an invalid request with id null.
//
// The id is echoed byte for byte as the client wrote it: "1" stays a
// string, 1.0 stays 1.0, so a client can compare it with what it sent.
func decodeEnvelope(line []byte) (request, *rpcError) {
	v, err := strictjson.Parse(line, strictjson.Options{})
	if err != nil {
		var se *strictjson.Error
		if errors.As(err, &se) && (se.Kind == strictjson.ErrDuplicateKey || se.Kind == strictjson.ErrDepth) {
			// Well-formed JSON whose meaning is ambiguous or unreasonably deep.
			return request{}, newError(aicontrol.CodeInvalidRequest, se.Msg, nil)
		}
		msg := "invalid JSON"
		if se != nil {
			msg = se.Msg
		}
		return request{}, newError(aicontrol.CodeParseError, msg, nil)
	}
	if v.Kind != strictjson.Object {
		return request{}, newError(aicontrol.CodeInvalidRequest, "request is not a JSON object", nil)
	}
	id := echoID(v.Get("id"), line)
	if j := v.Get("jsonrpc"); j == nil || j.Kind != strictjson.String || j.Str != aicontrol.JSONRPCVersion {
		return request{}, newError(aicontrol.CodeInvalidRequest, `jsonrpc must be "`+aicontrol.JSONRPCVersion+`"`, id)
	}
	m := v.Get("method")
	if m == nil || m.Kind != strictjson.String || m.Str == "" {
		return request{}, newError(aicontrol.CodeInvalidRequest, "method must be a non-empty string", id)
	}
	params := emptyParams
	if p := v.Get("params"); p != nil {
		if p.Kind != strictjson.Object {
			return request{}, newError(aicontrol.CodeInvalidRequest, "params must be an object", id)
		}
		params = line[p.Start:p.End]
	}
	if id == nil {
		return request{}, newError(aicontrol.CodeInvalidRequest, "id must be a string or an integer", nil)
	}
	return request{id: id, method: m.Str, params: params}, nil
}

// echoID returns the raw text of an id the contract's RequestID type
// accepts (a string or an integer), or nil.
func echoID(v *strictjson.Value, line []byte) []byte {
	if v == nil || (v.Kind != strictjson.String && v.Kind != strictjson.Number) {
		return nil
	}
	raw := line[v.Start:v.End]
	if _, err := aicontrol.DecodeRequestID(raw); err != nil {
		return nil
	}
	return raw
}
