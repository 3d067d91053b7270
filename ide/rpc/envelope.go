package rpc

import (
	"errors"
	"strconv"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Error is an error response object.
type Error struct {
	Code    int64
	Message string
	Data    []byte // raw JSON of the data member; nil when absent
}

func (e *Error) Error() string { return strconv.FormatInt(e.Code, 10) + " " + e.Message }

// message is one validated envelope: a request when id != nil, else a notification.
type message struct {
	id     []byte // raw JSON of the id, as the client wrote it
	key    idKey  // the id's identity
	method string
	// params is the params object, a subtree of the frame's one parse
	// (GC-owned: its strings are copies, not views of the frame buffer),
	// or nil when absent; the handler decodes it without parsing again.
	params *strictjson.Value
}

// item is one element of a frame: a valid message or the error response
// an invalid one gets (failure.id is the id to echo, nil for null).
type item struct {
	msg     message
	failure *Error
	echo    []byte // id echoed with failure
}

// parseFrame classifies a well-framed body. A non-nil frameErr means the
// whole frame gets one error response with id null; batch reports whether
// the body was an array, and a batch without items is one over the item
// limit.
func (s *Server) parseFrame(body []byte) (items []item, batch bool, frameErr *Error) {
	return s.parseFrameInto(body, nil)
}

// parseFrameInto is parseFrame appending the items of a single message to
// dst, so that the common frame can use storage its job already has.
func (s *Server) parseFrameInto(body []byte, dst []item) (items []item, batch bool, frameErr *Error) {
	opt := strictjson.Options{MaxDepth: s.cfg.Limits.MaxDepth}
	if isArray(body) {
		// A batch is checked whole without building its tree, and counted:
		// one over the limit is answered element by element (oversizeBatch)
		// so that its memory stays near the size of the answer.
		if err := strictjson.Valid(body, opt); err != nil {
			return nil, false, s.jsonError(err)
		}
		switch n := countElems(body); {
		case n == 0:
			return nil, true, s.cfg.Codes.invalidRequest("empty batch")
		case n > s.cfg.Limits.MaxBatchItems:
			return nil, true, nil
		}
	}
	v, err := strictjson.Parse(body, opt)
	if err != nil {
		return nil, false, s.jsonError(err)
	}
	switch v.Kind {
	case strictjson.Object:
		return append(dst[:0], s.checkEnvelope(v, body)), false, nil
	case strictjson.Array:
		items = make([]item, len(v.Elems))
		for i, e := range v.Elems {
			items[i] = s.checkEnvelope(e, body)
		}
		return items, true, nil
	}
	return nil, false, s.cfg.Codes.invalidRequest("a message is an object or an array of objects")
}

// jsonError is the answer to a body strictjson refuses.
func (s *Server) jsonError(err error) *Error {
	var se *strictjson.Error
	if errors.As(err, &se) && (se.Kind == strictjson.ErrDepth || se.Kind == strictjson.ErrDuplicateKey) {
		// Valid JSON the server will not execute: too deep, or ambiguous.
		return s.cfg.Codes.invalidRequest(se.Msg)
	}
	return s.cfg.Codes.parse()
}

// checkEnvelope applies the envelope rules to one message value.
func (s *Server) checkEnvelope(v *strictjson.Value, body []byte) item {
	if v.Kind != strictjson.Object {
		return item{failure: s.cfg.Codes.invalidRequest("a message is an object")}
	}
	var id []byte
	var key idKey
	if iv := v.Get("id"); iv != nil {
		if !s.validID(iv) {
			return item{failure: s.cfg.Codes.invalidRequest("id must be a non-empty ASCII string of at most " +
				strconv.Itoa(s.cfg.Limits.MaxIDLength) + " characters or an integer from 0 to 2^53-1")}
		}
		id = body[iv.Start:iv.End]
		key = keyOf(iv)
	}
	if j := v.Get("jsonrpc"); j == nil || j.Kind != strictjson.String || j.Str != s.cfg.JSONRPCVersion {
		return item{failure: s.cfg.Codes.invalidRequest(`jsonrpc must be "` + s.cfg.JSONRPCVersion + `"`), echo: id}
	}
	m := v.Get("method")
	if m == nil || m.Kind != strictjson.String || m.Str == "" {
		return item{failure: s.cfg.Codes.invalidRequest("method must be a non-empty string"), echo: id}
	}
	var params *strictjson.Value
	if p := v.Get("params"); p != nil {
		switch p.Kind {
		case strictjson.Object:
			params = p
		case strictjson.Array:
			return item{failure: s.cfg.Codes.invalidParams("positional params are not supported"), echo: id}
		default:
			return item{failure: s.cfg.Codes.invalidRequest("params must be an object"), echo: id}
		}
	}
	return item{msg: message{id: id, key: key, method: m.Str, params: params}}
}

// validID accepts a non-empty printable-ASCII string up to the id length
// limit, or an integer written as plain digits from 0 to 2^53-1. 1 and "1"
// are different ids; 1.0 and 1e0 are refused rather than read as 1, so
// that every accepted id has one spelling.
func (s *Server) validID(v *strictjson.Value) bool {
	switch v.Kind {
	case strictjson.String:
		if v.Str == "" || len(v.Str) > s.cfg.Limits.MaxIDLength {
			return false
		}
		for i := 0; i < len(v.Str); i++ {
			if v.Str[i] < 0x20 || v.Str[i] > 0x7e {
				return false
			}
		}
		return true
	case strictjson.Number:
		lit := v.Str
		if lit == "" || (len(lit) > 1 && lit[0] == '0') {
			return false
		}
		for i := 0; i < len(lit); i++ {
			if lit[i] < '0' || lit[i] > '9' {
				return false
			}
		}
		n, ok := v.Int64()
		return ok && n >= 0 && n <= gen.MaxIntegerRequestID
	}
	return false
}

// keyOf returns the identity of a valid id.
func keyOf(v *strictjson.Value) idKey {
	return idKey{text: v.Str, number: v.Kind == strictjson.Number}
}
