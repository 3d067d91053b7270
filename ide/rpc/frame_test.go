package rpc

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

const (
	testMaxHeader = 128
	testMaxBody   = 32
)

func readAll(t *testing.T, r io.Reader) ([]string, error) {
	t.Helper()
	fr := NewFrameReader(r, testMaxHeader, testMaxBody)
	var bodies []string
	for {
		b, err := fr.ReadFrame()
		if err != nil {
			return bodies, err
		}
		bodies = append(bodies, string(b))
	}
}

func frame(body string) string { return string(AppendFrame(nil, []byte(body))) }

//contract:proves eska-ide-api.framing.headers eska-ide-api.framing.content-length
func TestFrames(t *testing.T) {
	input := frame(`{"a":1}`) + frame(`[]`) +
		"content-length: 2\r\nX-Unknown: whatever\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}" +
		"CONTENT-LENGTH:\t4 \r\n\r\n\"é\""
	want := []string{`{"a":1}`, `[]`, `{}`, `"é"`}
	for name, r := range map[string]io.Reader{
		"whole":        strings.NewReader(input),
		"byte by byte": iotest.OneByteReader(strings.NewReader(input)),
		"halves":       iotest.HalfReader(strings.NewReader(input)),
		"data and EOF": iotest.DataErrReader(strings.NewReader(input)),
	} {
		got, err := readAll(t, r)
		if !errors.Is(err, io.EOF) || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
}

// Limits: a header block and a body exactly at their limits are read; one
// byte more is fatal.
func TestFrameLimits(t *testing.T) {
	body := strings.Repeat("x", testMaxBody)
	if got, err := readAll(t, strings.NewReader(frame(body))); err != io.EOF || len(got) != 1 {
		t.Errorf("body at the limit: %v %v", got, err)
	}
	if _, err := readAll(t, strings.NewReader(frame(body+"x"))); !isFraming(err) {
		t.Errorf("body one past the limit: %v", err)
	}
	// "Content-Length: 1\r\n" is 19 bytes; pad with an unknown header to reach exactly the limit.
	pad := func(total int) string {
		h := "Content-Length: 1\r\n"
		rest := total - len(h) - len("X: \r\n") - 2
		return h + "X: " + strings.Repeat("p", rest) + "\r\n\r\n"
	}
	if h := pad(testMaxHeader); len(h) != testMaxHeader {
		t.Fatalf("test header has %d bytes", len(h))
	}
	if got, err := readAll(t, strings.NewReader(pad(testMaxHeader)+"1")); err != io.EOF || len(got) != 1 {
		t.Errorf("header at the limit: %v %v", got, err)
	}
	if _, err := readAll(t, strings.NewReader(pad(testMaxHeader+1)+"1")); !isFraming(err) {
		t.Errorf("header one past the limit: %v", err)
	}
	// A header that never ends is cut off at the limit, not buffered.
	if _, err := readAll(t, strings.NewReader(strings.Repeat("a", 10*testMaxHeader))); !isFraming(err) {
		t.Errorf("endless header: %v", err)
	}
}

func isFraming(err error) bool {
	var fe *FramingError
	return errors.As(err, &fe)
}

//contract:proves eska-ide-api.framing.fatal
func TestFatalFraming(t *testing.T) {
	for name, in := range map[string]string{
		"negative length":       "Content-Length: -1\r\n\r\n",
		"zero length":           "Content-Length: 0\r\n\r\n",
		"leading zero":          "Content-Length: 01\r\n\r\nx",
		"plus sign":             "Content-Length: +1\r\n\r\nx",
		"not a number":          "Content-Length: one\r\n\r\nx",
		"empty length":          "Content-Length: \r\n\r\nx",
		"repeated length":       "Content-Length: 1\r\nContent-Length: 1\r\n\r\nx",
		"no length":             "Content-Type: application/vscode-jsonrpc\r\n\r\nx",
		"LF instead of CRLF":    "Content-Length: 1\n\nx",
		"LF ending the header":  "Content-Length: 1\r\n\nx",
		"CR without LF":         "Content-Length: 1\r\r\n\r\nx",
		"no colon":              "Content-Length 1\r\n\r\nx",
		"space in name":         "Content Length: 1\r\n\r\nx",
		"non-ASCII header":      "Content-Length: 1\r\nX-Name: é\r\n\r\nx",
		"wrong charset":         "Content-Length: 1\r\nContent-Type: application/vscode-jsonrpc; charset=latin-1\r\n\r\nx",
		"EOF in the header":     "Content-Length: 1\r\n",
		"EOF in the body":       "Content-Length: 5\r\n\r\nab",
		"garbage before header": "xyz" + frame("{}"),
	} {
		got, err := readAll(t, strings.NewReader(in))
		if !isFraming(err) {
			t.Errorf("%s: %q, %v; want a framing error", name, got, err)
		}
	}
	if _, err := readAll(t, strings.NewReader("")); err != io.EOF {
		t.Errorf("empty input: %v, want io.EOF", err)
	}
	if _, err := readAll(t, strings.NewReader(frame("{}"))); err != io.EOF {
		t.Errorf("clean end: %v", err)
	}
}

func FuzzFrameReader(f *testing.F) {
	f.Add([]byte(frame(`{"a":1}`)+frame("[]")), uint8(0))
	f.Add([]byte("Content-Length: 1\r\nContent-Length: 1\r\n\r\n"), uint8(1))
	f.Add([]byte("content-length:\t2\r\nx: y\r\n\r\n{}"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		var r io.Reader = bytes.NewReader(data)
		if mode%2 == 1 {
			r = iotest.OneByteReader(r)
		}
		fr := NewFrameReader(r, testMaxHeader, testMaxBody)
		total := 0
		for {
			b, err := fr.ReadFrame()
			if err != nil {
				if !errors.Is(err, io.EOF) && !isFraming(err) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(b) == 0 || len(b) > testMaxBody {
				t.Fatalf("body of %d bytes", len(b))
			}
			total += len(b)
			if total > len(data) {
				t.Fatal("read more body bytes than the input holds")
			}
		}
	})
}
