//go:build !aicontrol_disabled

package bridge

import (
	"bytes"
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

// envelopeOptions bound the work of one line by the contract's value and
// depth limits, whatever the line's length: a line of a million zeros is
// refused after the limit's worth of them, and no tree is built for it.
var envelopeOptions = strictjson.Options{MaxValues: aicontrol.MaxValuesPerLine, MaxDepth: aicontrol.MaxNestingDepth}

// decodeEnvelope applies the envelope checks in the contract's order of
// precedence: malformed UTF-8 or JSON (an empty line too) is a parse error
// with id null; a line over the value limit, a value that is not an
// object, or an object with repeated member names, is an invalid request
// with id null; a wrong jsonrpc, a missing, empty or non-string method, or
// params that are not an object are invalid requests that echo the id; an
// id that is neither a string nor an integer cannot be echoed and is an
// invalid request with id null.
//
// The read is lazy: the line is validated without building a tree, and
// only the top-level members are looked at. params stays text until the
// method that owns it decodes it, so nothing is built for a request that
// is refused as unauthorized or unknown.
//
// The id is echoed byte for byte as the client wrote it: "1" stays a
// string, 1.0 stays 1.0, so a client can compare it with what it sent.
func decodeEnvelope(line []byte) (request, *rpcError) {
	if err := strictjson.Valid(line, envelopeOptions); err != nil {
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
	var jsonrpc, rawID, method, params []byte
	i := skipSpace(line, 0)
	if line[i] != '{' {
		return request{}, newError(aicontrol.CodeInvalidRequest, "request is not a JSON object", nil)
	}
	// The line is valid JSON, so the scan below needs no error handling:
	// it only finds where each top-level member's value starts and ends.
	for i = skipSpace(line, i+1); line[i] == '"'; {
		keyEnd := skipString(line, i)
		key := line[i:keyEnd]
		start := skipSpace(line, skipSpace(line, keyEnd)+1) // past the colon
		end := skipValue(line, start)
		switch {
		case memberIs(key, "jsonrpc"):
			jsonrpc = line[start:end]
		case memberIs(key, "id"):
			rawID = line[start:end]
		case memberIs(key, "method"):
			method = line[start:end]
		case memberIs(key, "params"):
			params = line[start:end]
		}
		i = skipSpace(line, end)
		if line[i] == ',' {
			i = skipSpace(line, i+1)
		}
	}
	id := echoID(rawID)
	if len(jsonrpc) == 0 || jsonrpc[0] != '"' || !memberIs(jsonrpc, aicontrol.JSONRPCVersion) {
		return request{}, newError(aicontrol.CodeInvalidRequest, `jsonrpc must be "`+aicontrol.JSONRPCVersion+`"`, id)
	}
	m, ok := stringValue(method)
	if !ok || m == "" {
		return request{}, newError(aicontrol.CodeInvalidRequest, "method must be a non-empty string", id)
	}
	if params == nil {
		params = emptyParams
	} else if params[0] != '{' {
		return request{}, newError(aicontrol.CodeInvalidRequest, "params must be an object", id)
	}
	if id == nil {
		return request{}, newError(aicontrol.CodeInvalidRequest, "id must be a string or an integer", nil)
	}
	return request{id: id, method: m, params: params}, nil
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

// knownNames are the method names, so that a known method costs no string.
var knownNames = func() map[string]string {
	m := map[string]string{}
	for _, info := range aicontrol.Methods {
		m[info.Name] = info.Name
	}
	return m
}()

// stringValue decodes a JSON string's text (quotes included); ok is false
// for any other value.
func stringValue(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		if s, ok := knownNames[string(body)]; ok {
			return s, true
		}
		return string(body), true
	}
	v, err := strictjson.Parse(raw, strictjson.Options{})
	if err != nil {
		return "", false
	}
	return v.Str, true
}

// memberIs reports whether a member name or another JSON string (quotes
// included) is name; an escaped spelling such as "\u0069d" is decoded first.
func memberIs(key []byte, name string) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		return len(key) == len(name)+2 && string(key[1:len(key)-1]) == name
	}
	s, ok := stringValue(key)
	return ok && s == name
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index after the valid JSON value that starts at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\r' && b[i] != '\n' {
		i++
	}
	return i
}
