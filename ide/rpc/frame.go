// Package rpc is the transport of the eska IDE API: JSON-RPC 2.0 messages
// in Content-Length frames over a byte stream (the process's stdin and
// stdout), with a reader that checks framing and envelopes and marks
// cancellations, one FIFO worker, and one writer that owns the output.
package rpc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// FramingError is a fatal framing problem: the frame boundary is lost and
// the stream cannot be resynchronised, so the process exits with code 2.
type FramingError struct{ Msg string }

func (e *FramingError) Error() string { return "framing: " + e.Msg }

func framingf(format string, args ...any) error {
	return &FramingError{Msg: fmt.Sprintf(format, args...)}
}

// ErrEOFInFrame: the stream ended inside a frame (exit 2, like any
// framing error); io.EOF alone means it ended cleanly between frames.
var ErrEOFInFrame = &FramingError{Msg: "end of input inside a frame"}

// FrameReader reads Content-Length frames. It never buffers more than the
// header limit plus the body limit.
type FrameReader struct {
	r         *bufio.Reader
	maxHeader int
	maxBody   int
	header    []byte
}

// NewFrameReader reads frames from r with the given limits in bytes: the
// header block (lines and the empty line, CRLFs included) and the body.
func NewFrameReader(r io.Reader, maxHeader, maxBody int) *FrameReader {
	return &FrameReader{r: bufio.NewReaderSize(r, 64<<10), maxHeader: maxHeader, maxBody: maxBody}
}

// ReadFrame returns the next body. At a clean end of input between frames
// it returns io.EOF; every other failure is a *FramingError.
func (f *FrameReader) ReadFrame() ([]byte, error) { return f.ReadFrameInto(nil) }

// ReadFrameInto is ReadFrame reading the body into buf when its capacity
// is enough.
func (f *FrameReader) ReadFrameInto(buf []byte) ([]byte, error) {
	length := -1
	f.header = f.header[:0]
	first := true
	for {
		line, err := f.readHeaderLine(first)
		if err != nil {
			return nil, err
		}
		first = false
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isToken(line[:colon]) {
			return nil, framingf("malformed header line %q", truncate(line))
		}
		name, value := line[:colon], bytes.Trim(line[colon+1:], " \t")
		// Header names are ASCII tokens (checked above), so a fold over
		// ASCII is the whole case-insensitive comparison, with no copy.
		switch {
		case bytes.EqualFold(name, contentLength):
			if length >= 0 {
				return nil, framingf("Content-Length repeated")
			}
			n, err := parseLength(value)
			if err != nil {
				return nil, err
			}
			length = n
		case bytes.EqualFold(name, contentType):
			if err := checkContentType(string(value)); err != nil {
				return nil, err
			}
		default:
			// Unknown headers are ignored.
		}
	}
	if length < 0 {
		return nil, framingf("no Content-Length header")
	}
	if length > f.maxBody {
		return nil, framingf("body of %d bytes exceeds the limit of %d", length, f.maxBody)
	}
	var body []byte
	if cap(buf) >= length {
		body = buf[:length]
	} else {
		body = make([]byte, length)
	}
	if _, err := io.ReadFull(f.r, body); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, ErrEOFInFrame
		}
		return nil, err
	}
	return body, nil
}

// lengthField starts the header of every frame written.
const lengthField = gen.ContentLengthHeader + ": "

var (
	contentLength = []byte(gen.ContentLengthHeader) // compared case-insensitively
	contentType   = []byte("content-type")
)

// readHeaderLine reads one CRLF-terminated header line (without CRLF),
// counting it against the header limit. A bare LF is fatal.
func (f *FrameReader) readHeaderLine(first bool) ([]byte, error) {
	start := len(f.header)
	for {
		c, err := f.r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if first && len(f.header) == start {
					return nil, io.EOF
				}
				return nil, ErrEOFInFrame
			}
			return nil, err
		}
		if len(f.header) >= f.maxHeader {
			return nil, framingf("header exceeds the limit of %d bytes", f.maxHeader)
		}
		f.header = append(f.header, c)
		switch {
		case c == '\n':
			line := f.header[start:]
			if len(line) < 2 || line[len(line)-2] != '\r' {
				return nil, framingf("header line ends with LF instead of CRLF")
			}
			return line[:len(line)-2], nil
		case c == '\r':
			// Checked when the LF arrives: a CR must be followed by LF.
			next, err := f.r.Peek(1)
			if err == nil && next[0] != '\n' {
				return nil, framingf("CR not followed by LF in the header")
			}
		case c >= 0x80 || (c < 0x20 && c != '\t'):
			return nil, framingf("non-ASCII or control byte 0x%02x in the header", c)
		}
	}
}

// parseLength accepts a positive decimal without sign or leading zeros.
func parseLength(v []byte) (int, error) {
	if len(v) == 0 || v[0] == '0' || len(v) > 18 {
		return 0, framingf("Content-Length %q is not a positive decimal", v)
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, framingf("Content-Length %q is not a positive decimal", v)
		}
		n = n*10 + int(c-'0') // at most 18 digits: no overflow
	}
	return n, nil
}

// checkContentType accepts any media type whose charset, if given, is UTF-8.
func checkContentType(v string) error {
	for _, param := range strings.Split(v, ";")[1:] {
		k, val, _ := strings.Cut(strings.TrimSpace(param), "=")
		if strings.EqualFold(strings.TrimSpace(k), "charset") {
			val = strings.Trim(strings.TrimSpace(val), `"`)
			if !strings.EqualFold(val, "utf-8") && !strings.EqualFold(val, "utf8") {
				return framingf("Content-Type charset %q is not UTF-8", val)
			}
		}
	}
	return nil
}

func isToken(s []byte) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?={}`, c) >= 0 {
			return false
		}
	}
	return true
}

func truncate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// AppendFrame appends a frame holding body.
func AppendFrame(out, body []byte) []byte {
	// The header is at most 16+19+4 bytes: grow once, not three times.
	out = slices.Grow(out, 39+len(body))
	out = append(out, lengthField...)
	out = strconv.AppendInt(out, int64(len(body)), 10)
	out = append(out, "\r\n\r\n"...)
	return append(out, body...)
}
