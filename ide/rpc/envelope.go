package rpc

import (
	"errors"
	"strconv"

	"github.com/contractkit/contractkit/internal/genrt"
	"github.com/contractkit/contractkit/internal/strictjson"
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
	key    string // the id's identity (see idKey)
	method string
	params []byte // raw params object, or nil when absent
}

// item is one element of a frame: a valid message or the error response
// an invalid one gets (failure.id is the id to echo, nil for null).
type item struct {
	msg     message
	failure *Error
	echo    []byte // id echoed with failure
}

// parseFrame classifies a well-framed body. A nil items slice with a
// non-nil frameErr means the whole frame gets one error response with id
// null; batch reports whether the body was an array.
func (s *Server) parseFrame(body []byte) (items []item, batch bool, frameErr *Error) {
	return s.parseFrameInto(body, nil)
}

// parseFrameInto is parseFrame appending the items of a single message to
// dst, so that the common frame can use storage its job already has.
func (s *Server) parseFrameInto(body []byte, dst []item) (items []item, batch bool, frameErr *Error) {
	v, err := strictjson.Parse(body, strictjson.Options{MaxDepth: s.cfg.Limits.MaxDepth})
	if err != nil {
		var se *strictjson.Error
		if errors.As(err, &se) && (se.Kind == strictjson.ErrDepth || se.Kind == strictjson.ErrDuplicateKey) {
			// Valid JSON the server will not execute: too deep, or ambiguous.
			return nil, false, s.cfg.Codes.invalidRequest(se.Msg)
		}
		return nil, false, s.cfg.Codes.parse()
	}
	switch v.Kind {
	case strictjson.Object:
		return append(dst[:0], s.checkEnvelope(v, body)), false, nil
	case strictjson.Array:
		if len(v.Elems) == 0 {
			return nil, true, s.cfg.Codes.invalidRequest("empty batch")
		}
		items = make([]item, len(v.Elems))
		for i, e := range v.Elems {
			items[i] = s.checkEnvelope(e, body)
		}
		return items, true, nil
	}
	return nil, false, s.cfg.Codes.invalidRequest("a message is an object or an array of objects")
}

// checkEnvelope applies the envelope rules to one message value.
func (s *Server) checkEnvelope(v *strictjson.Value, body []byte) item {
	if v.Kind != strictjson.Object {
		return item{failure: s.cfg.Codes.invalidRequest("a message is an object")}
	}
	var id []byte
	var key string
	if iv := v.Get("id"); iv != nil {
		if !s.validID(iv) {
			return item{failure: s.cfg.Codes.invalidRequest("id must be a non-empty ASCII string of at most " +
				strconv.Itoa(s.cfg.Limits.MaxIDLength) + " characters or an integer from 0 to 2^53-1")}
		}
		id = body[iv.Start:iv.End]
		key = idKey(iv)
	}
	if j := v.Get("jsonrpc"); j == nil || j.Kind != strictjson.String || j.Str != s.cfg.JSONRPCVersion {
		return item{failure: s.cfg.Codes.invalidRequest(`jsonrpc must be "` + s.cfg.JSONRPCVersion + `"`), echo: id}
	}
	m := v.Get("method")
	if m == nil || m.Kind != strictjson.String || m.Str == "" {
		return item{failure: s.cfg.Codes.invalidRequest("method must be a non-empty string"), echo: id}
	}
	var params []byte
	if p := v.Get("params"); p != nil {
		switch p.Kind {
		case strictjson.Object:
			params = body[p.Start:p.End]
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
		return ok && n >= 0 && n <= genrt.MaxSafeInteger
	}
	return false
}

// idKey identifies an id: 1 and "1" differ, "a" and "\u0061" do not.
func idKey(v *strictjson.Value) string {
	if v.Kind == strictjson.String {
		return "s" + v.Str
	}
	return "n" + v.Str
}
