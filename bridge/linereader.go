package bridge

import (
	"bufio"
	"errors"
	"io"

	"github.com/contractkit/contractkit/generated/aicontrol"
)

// Line framing errors. A reader that returns one of them cannot find the
// next line boundary safely: the connection must be closed.
var (
	// ErrLineTooLong: the payload before LF exceeds MaxLineBytes.
	ErrLineTooLong = errors.New("request too large")
	// ErrUnterminated: the stream ended inside a line.
	ErrUnterminated = errors.New("line not terminated by LF")
)

// lineReader reads LF-terminated lines of at most max payload bytes (a CR
// before the LF is dropped and not counted). It never buffers more than
// the limit plus the CR, so memory per connection is bounded by the line
// limit whatever the peer sends.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

// newLineReader wraps r; max is the payload limit in bytes.
func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// readLine returns the next payload (without CR LF). The slice is valid
// until the next call. io.EOF means the stream ended cleanly between lines.
func (l *lineReader) readLine() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		// Payload plus an optional CR may not exceed max+1 before the LF.
		n := len(chunk)
		if err == nil {
			n-- // the LF
		}
		if len(l.buf)+n > l.max+1 {
			return nil, ErrLineTooLong
		}
		l.buf = append(l.buf, chunk...)
		switch {
		case err == nil:
			line := l.buf[:len(l.buf)-1]
			if len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			if len(line) > l.max {
				return nil, ErrLineTooLong
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(l.buf) == 0 {
				return nil, io.EOF
			}
			return nil, ErrUnterminated
		default:
			return nil, err
		}
	}
}

// maxLine is the contract's line limit.
const maxLine = aicontrol.MaxLineBytes
