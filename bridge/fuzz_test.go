//go:build !aicontrol_disabled

package bridge

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// FuzzLineReader feeds arbitrary bytes, in chunks of a fuzzed size, to the
// line reader with a small limit: it never panics, never returns a line
// over the limit, and what it returns is exactly the input's lines.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"", "\n", "a\nb\n", "a\r\n", "abc", "abcdefghij\n", "x\r\r\n", "\r\n\r\n", "12345678\n12345678\r\n"} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		const max = 8
		var r io.Reader = bytes.NewReader(data)
		if chunk%4 == 1 {
			r = iotest.OneByteReader(r)
		} else if chunk%4 == 2 {
			r = iotest.HalfReader(r)
		}
		lr := newLineReader(r, max)
		var got [][]byte
		var err error
		for {
			var line []byte
			line, err = lr.readLine()
			if err != nil {
				break
			}
			if len(line) > max {
				t.Fatalf("line of %d bytes over the limit %d", len(line), max)
			}
			got = append(got, append([]byte(nil), line...))
		}
		if !errors.Is(err, io.EOF) && !errors.Is(err, ErrLineTooLong) && !errors.Is(err, ErrUnterminated) {
			t.Fatalf("unexpected error %v", err)
		}
		// Every returned line is the next line of the input, minus one CR.
		rest := data
		for _, l := range got {
			i := bytes.IndexByte(rest, '\n')
			want := bytes.TrimSuffix(rest[:i], []byte("\r"))
			if !bytes.Equal(l, want) {
				t.Fatalf("line %q, input line %q", l, rest[:i])
			}
			rest = rest[i+1:]
		}
		switch {
		case errors.Is(err, io.EOF) && len(rest) != 0:
			t.Fatalf("EOF with %d unread bytes", len(rest))
		case errors.Is(err, ErrUnterminated) && (len(rest) == 0 || bytes.IndexByte(rest, '\n') >= 0):
			t.Fatalf("unterminated, but rest %q", rest)
		case errors.Is(err, ErrLineTooLong):
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				i = len(rest)
			}
			if len(bytes.TrimSuffix(rest[:i], []byte("\r"))) <= max && i < len(rest) {
				t.Fatalf("line %q refused as too long", rest[:i])
			}
		}
	})
}

// FuzzEnvelope runs arbitrary request lines through the envelope checks
// and the response encoder: never a panic, and every response is a line
// the contract's response envelope accepts.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}`,
		`{"jsonrpc":"2.0","id":"x","method":"act","params":{"type":"move","x":1}}`,
		`{"jsonrpc":"2.0","id":1.0,"method":"events","params":{"afterSeq":-1,"limit":1e9}}`,
		`{"jsonrpc":"2.0","method":"ping"}`, `[]`, ``, `{"id":{}}`, `{"a":1,"a":2}`, "\xff",
		`{"\u006aso\u006erpc":"2\u002e0","i\u0064":-12,"method":"\u0070ing","params":{"a":"}]\"["}}`, ` { "id" : "a\"b" , "jsonrpc" : "2.0" , "method" : "x" , "params" : [ ] } `,
	} {
		f.Add([]byte(s))
	}
	s := &Server{cfg: Config{}.withDefaults(), state: newState(4, 4)}
	// One connection for every input, as on the wire: each line's tree
	// reuses the memory the lines before it left in the arena.
	cs := &connState{authorized: true}
	var arena strictjson.Arena
	f.Fuzz(func(t *testing.T, line []byte) {
		cs.authorized = true
		out := s.handle(nil, cs, line)
		if len(out) == 0 || out[len(out)-1] != '\n' || bytes.Count(out, []byte("\n")) != 1 {
			t.Fatalf("response %q is not one line", out)
		}
		resp, err := aicontrol.DecodeResponse(out[:len(out)-1])
		if err != nil {
			t.Fatalf("response %q breaks the envelope: %v", out, err)
		}
		arena.Reset()
		req, rerr := decodeEnvelope(&arena, line)
		want, werr := decodeEnvelopeTree(line)
		switch {
		case (rerr == nil) != (werr == nil):
			t.Fatalf("request %q: arena read %+v %v, fresh read %+v %v", line, req, rerr, want, werr)
		case rerr != nil && (rerr.code != werr.code || !bytes.Equal(rerr.id, werr.id)):
			t.Fatalf("request %q: arena read error %d id %q, fresh read %d id %q", line, rerr.code, rerr.id, werr.code, werr.id)
		case rerr == nil && (req.method != want.method || !bytes.Equal(req.id, want.id) || !bytes.Equal(paramsText(line, req), paramsText(line, want))):
			t.Fatalf("request %q: arena read %q %q %q, fresh read %q %q %q", line, req.id, req.method, paramsText(line, req), want.id, want.method, paramsText(line, want))
		}
		if rerr == nil {
			if req.method == "" || !bytes.Equal(idText(t, out), req.id) {
				t.Fatalf("request %q: id %q echoed as %q", line, req.id, idText(t, out))
			}
			if req.params.Kind != strictjson.Object {
				t.Fatalf("params %q are not an object", paramsText(line, req))
			}
		} else if resp.Error == nil || resp.Error.Code != rerr.code {
			t.Fatalf("request %q: envelope error %d, response %q", line, rerr.code, out)
		}
		s.Drain(0)
	})
}

// decodeEnvelopeTree is the envelope read written plainly: the whole line
// parsed afresh, without an arena, then the checks by look-up. The fuzz
// target holds the listener's read, in a reused arena, to it.
func decodeEnvelopeTree(line []byte) (request, *rpcError) {
	v, err := strictjson.Parse(line, strictjson.Options{MaxValues: aicontrol.MaxValuesPerLine})
	if err != nil {
		var se *strictjson.Error
		if errors.As(err, &se) && (se.Kind == strictjson.ErrDuplicateKey || se.Kind == strictjson.ErrDepth || se.Kind == strictjson.ErrValues) {
			return request{}, newError(aicontrol.CodeInvalidRequest, se.Msg, nil)
		}
		return request{}, newError(aicontrol.CodeParseError, "", nil)
	}
	if v.Kind != strictjson.Object {
		return request{}, newError(aicontrol.CodeInvalidRequest, "", nil)
	}
	var id []byte
	if idv := v.Get("id"); idv != nil && (idv.Kind == strictjson.String || idv.Kind == strictjson.Number) {
		if _, err := aicontrol.DecodeRequestID(line[idv.Start:idv.End]); err == nil {
			id = line[idv.Start:idv.End]
		}
	}
	if j := v.Get("jsonrpc"); j == nil || j.Kind != strictjson.String || j.Str != aicontrol.JSONRPCVersion {
		return request{}, newError(aicontrol.CodeInvalidRequest, "", id)
	}
	m := v.Get("method")
	if m == nil || m.Kind != strictjson.String || m.Str == "" {
		return request{}, newError(aicontrol.CodeInvalidRequest, "", id)
	}
	params := emptyParams
	if p := v.Get("params"); p != nil {
		if p.Kind != strictjson.Object {
			return request{}, newError(aicontrol.CodeInvalidRequest, "", id)
		}
		params = p
	}
	if id == nil {
		return request{}, newError(aicontrol.CodeInvalidRequest, "", nil)
	}
	return request{id: id, method: m.Str, params: params}, nil
}

// paramsText is the text of a request's params as the line wrote them,
// "{}" when it has none.
func paramsText(line []byte, r request) []byte {
	if r.params == emptyParams {
		return []byte("{}")
	}
	return line[r.params.Start:r.params.End]
}

func idText(t *testing.T, out []byte) []byte {
	v, err := strictjson.Parse(out[:len(out)-1], strictjson.Options{})
	if err != nil {
		t.Fatal(err)
	}
	id := v.Get("id")
	return out[id.Start:id.End]
}
