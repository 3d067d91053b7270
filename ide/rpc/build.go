package rpc

import (
	"encoding/json"
	"strconv"

	"github.com/contractkit/contractkit/runtime/strictjson"
)

// headRoom is the room kept in front of a frame's body for its header,
// "Content-Length: " with up to 20 digits and the blank line: the header
// is written last, when the length is known, so the body is never copied
// to put a header in front of it.
const headRoom = len(lengthField) + 20 + len("\r\n\r\n")

// builder assembles one outgoing frame as pieces for the writer: small
// output is appended to buffers of its own, started every chunkSize bytes
// so that a long batch answer grows without copying what it has, and a
// large result is taken as the handler's memory, not copied.
type builder struct {
	parts  [][]byte // finished pieces; the first begins with headRoom
	buf    []byte   // the piece being appended to
	sealed int      // body bytes in parts
	base   []byte   // the first piece from its start, once finished
	few    [3][]byte
	// alloc makes the buffers after the first; nil means the heap.
	alloc func(n int) []byte
}

// reset starts a frame in first, a buffer the caller may reuse, or in a
// new one.
func (b *builder) reset(first []byte) {
	if cap(first) < headRoom {
		first = make([]byte, 0, 512)
	}
	*b = builder{buf: first[:headRoom]}
	b.parts = b.few[:0]
}

// size is the body length so far.
func (b *builder) size() int {
	n := b.sealed + len(b.buf)
	if len(b.parts) == 0 {
		n -= headRoom
	}
	return n
}

func (b *builder) add(p []byte) { b.buf = append(b.buf, p...) }

// seal finishes the current piece.
func (b *builder) seal() {
	if len(b.parts) == 0 {
		b.sealed += len(b.buf) - headRoom
	} else {
		b.sealed += len(b.buf)
	}
	if len(b.buf) > 0 || len(b.parts) == 0 {
		b.parts = append(b.parts, b.buf)
	}
	b.buf = nil
}

// borrow adds p as a piece of its own.
func (b *builder) borrow(p []byte) {
	b.seal()
	b.parts = append(b.parts, p)
	b.sealed += len(p)
}

// next is called between the responses of a batch: past chunkSize bytes
// a new buffer begins.
func (b *builder) next() {
	if len(b.buf) >= chunkSize {
		b.seal()
		if b.alloc != nil {
			b.buf = b.alloc(chunkSize + chunkSize/4)
		} else {
			b.buf = make([]byte, 0, chunkSize+chunkSize/4)
		}
	}
}

// finish writes the header and returns the frame's pieces.
func (b *builder) finish() [][]byte {
	b.seal()
	var h [headRoom]byte
	head := append(h[:0], lengthField...)
	head = strconv.AppendInt(head, int64(b.sealed), 10)
	head = append(head, "\r\n\r\n"...)
	b.base = b.parts[0]
	start := headRoom - len(head)
	copy(b.base[start:], head)
	b.parts[0] = b.base[start:]
	return b.parts
}

// firstPiece returns the frame's first buffer from its start, for reuse.
func (b *builder) firstPiece() []byte { return b.base[:0] }

// encode adds one response to b. A large result is borrowed, not copied.
func (r response) encode(b *builder, version string, id []byte) {
	if r.err != nil {
		b.buf = appendError(b.buf, version, id, r.err)
		return
	}
	b.buf = appendHead(b.buf, version, id)
	b.buf = append(b.buf, `,"result":`...)
	res := r.result
	if len(res) == 0 {
		res = null
	}
	if len(res) >= copyBelow {
		b.borrow(res)
	} else {
		b.buf = append(b.buf, res...)
	}
	b.buf = append(b.buf, '}')
}

// size is the length of the encoded response; scratch is a buffer it may
// use and keep.
func (r response) size(version string, id []byte, scratch *[]byte) int {
	if r.err != nil {
		*scratch = appendError((*scratch)[:0], version, id, r.err)
		return len(*scratch)
	}
	*scratch = appendHead((*scratch)[:0], version, id)
	n := len(*scratch) + len(`,"result":`) + len(r.result) + 1
	if len(r.result) == 0 {
		n += len(null)
	}
	return n
}

var null = json.RawMessage("null")

// appendError writes an error response body with the id as the client
// wrote it.
func appendError(out []byte, version string, id []byte, e *Error) []byte {
	out = appendHead(out, version, id)
	out = append(out, `,"error":{"code":`...)
	out = strictjson.AppendInt(out, e.Code)
	out = append(out, `,"message":`...)
	out = strictjson.AppendString(out, e.Message)
	if len(e.Data) > 0 {
		out = append(out, `,"data":`...)
		out = append(out, e.Data...)
	}
	return append(out, "}}"...)
}

func appendHead(out []byte, version string, id []byte) []byte {
	out = append(out, `{"jsonrpc":`...)
	out = strictjson.AppendString(out, version)
	out = append(out, `,"id":`...)
	if id == nil {
		return append(out, "null"...)
	}
	return append(out, id...)
}

func joinArray(items [][]byte) []byte {
	n := 2
	for _, it := range items {
		n += len(it) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
	}
	return append(out, ']')
}
