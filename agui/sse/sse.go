// Package sse reads a server-sent event stream (text/event-stream) the way
// the WHATWG HTML standard's EventSource interprets it: lines end in CR,
// LF or CRLF; one leading byte order mark is dropped; a line that starts
// with a colon is a comment; a field name runs to the first colon and one
// space after the colon is dropped; data lines join with LF; an empty line
// dispatches the event unless it has no data; whatever is pending when the
// stream ends is discarded.
//
// The parser is pushed: Write takes the stream in pieces of any size, split
// anywhere (between CR and LF, inside a field name, inside a multibyte
// character), and calls the handler once per event. It never decodes the
// bytes: the standard decodes the stream as UTF-8 with replacement, but a
// checker must see what was sent, so the data of an event is the bytes of
// its data lines as they arrived, and invalid UTF-8 is left to whoever
// reads the data. Memory is bounded by the largest event (MaxEvent), not by
// the length of the stream.
package sse

import (
	"bytes"
	"errors"
	"fmt"
)

// Event is one dispatched event.
type Event struct {
	// Type is the event's type: the last event field, or "message".
	Type string
	// Data is the event's data lines joined with LF, as they arrived. It
	// is valid only until the handler returns.
	Data []byte
	// LastEventID is the last event id the stream set, at this event.
	LastEventID string
	// Spilled is set on an event whose data went to the parser's Spill
	// (Data is then nil).
	Spilled bool
	// CRs are the offsets in Data, in order, of the line feeds that join
	// two data lines where the stream ended the first with CR (alone or
	// before LF): the standard joins data lines with LF whatever ended
	// them, and a checker that names a character must name the one that
	// was sent. Nil when every such line ended with LF alone; valid only
	// until the handler returns.
	CRs []int
}

// A Spill takes the data of an event that grows past a parser's bound,
// as it arrives, instead of the parser holding it: memory stays bounded
// by the bound however large an event is.
type Spill interface {
	// Data takes the next bytes of the event's data, in order; the LF
	// that joins two data lines comes as data too.
	Data(b []byte) error
	// Drop says that the stream ended before the event was dispatched:
	// as the standard discards such an event, it was never an event. An
	// error means the Spill could not let go of what it took: Close
	// returns it.
	Drop() error
}

// ErrTooLarge reports an event, or a line, longer than the parser's bound.
var ErrTooLarge = errors.New("event larger than the bound")

// Parser reads one event stream. The zero Parser is not usable; make one
// with New.
type Parser struct {
	handle   func(Event) error
	maxEvent int

	started bool   // the first bytes were seen (the BOM question is settled)
	head    []byte // the stream's first bytes while they may still be a BOM
	afterCR bool   // the last byte was CR: an LF right after it ends nothing
	line    []byte // the line read so far
	data    []byte // the data buffer of the event being built
	hasData bool   // a data field was seen since the last dispatch
	// pend is the event's one data line so far, as a slice of the piece
	// Write was given, while it has no other: an event of one data line
	// (the common case) is then handed over without being copied twice,
	// into line and into data. Write copies it into data before it
	// returns, and before a second data line joins it.
	pend    []byte
	pending bool
	typ     []byte // the event type buffer
	lastID  string
	err     error // sticky: the first error stops the parser
	// Spill, when set before the first Write, takes the data of an event
	// that passes the bound, which is then dispatched with Spilled set,
	// and a line that passes it but is not a data line (a comment, an
	// event type or id, a field the standard ignores) is dropped: with a
	// Spill nothing is too large. The bound then covers the data of an
	// event, joined, and each line that is not a data line; with no bound
	// (0) a Spill takes nothing.
	Spill Spill
	// spilling says the event's data goes to Spill; spillLine that the
	// rest of the line being read is a data line's, to go to Spill too;
	// spillJoin that a data line ended since, so the next data line's
	// bytes follow an LF. skip says the rest of the line being read is
	// dropped.
	spilling, spillLine, spillJoin, skip bool
	// sawCR says a line of the stream ended with CR, alone or before LF.
	sawCR bool
	// crs are the offsets in the event's data of the line feeds after
	// data lines that ended with CR (Event.CRs).
	crs []int
	// Retry is the reconnection time in milliseconds the stream last set,
	// or -1. The standard leaves reconnecting to the client; this package
	// only reports it.
	Retry int
}

// New returns a parser that calls handle for each event. maxEvent bounds
// the bytes of one line, and of the data gathered so far together with the
// line being read; 0 means no bound. An
// error from handle stops the parser and is returned by Write.
func New(maxEvent int, handle func(Event) error) *Parser {
	return &Parser{handle: handle, maxEvent: maxEvent, Retry: -1}
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// Write parses the next piece of the stream. It returns the first error
// the stream or the handler caused; after one, every Write returns it.
func (p *Parser) Write(b []byte) (int, error) {
	n := len(b)
	if p.err != nil {
		return 0, p.err
	}
	if !p.started {
		if len(p.head) == 0 && len(b) >= len(bom) {
			// The first piece settles the question at once.
			p.started = true
			b = bytes.TrimPrefix(b, bom)
		} else {
			// Hold the first bytes until they are known to be a BOM or
			// not.
			p.head = append(p.head, b...)
			if len(p.head) < len(bom) && bytes.HasPrefix(bom, p.head) {
				return n, nil
			}
			p.started = true
			b = bytes.TrimPrefix(p.head, bom)
			p.head = nil
		}
	}
	// cr is the index in b of its first CR, or -1: looked for once, and
	// again only after a line ends at it, so that a stream without CRs (the
	// usual case) is scanned for them once per piece, not once per line.
	cr := bytes.IndexByte(b, '\r')
	// Every CR of a stream ends a line: a line holds none.
	p.sawCR = p.sawCR || cr >= 0
	for len(b) > 0 {
		if p.afterCR {
			p.afterCR = false
			if b[0] == '\n' {
				b, cr = b[1:], cr-1
				continue
			}
		}
		if p.skip || p.spillLine {
			end := bytes.IndexByte(b, '\n')
			if cr >= 0 && (end < 0 || cr < end) {
				end = cr
			}
			if err := p.lineRest(b, end); err != nil {
				p.err = err
				return 0, err
			}
			if end < 0 {
				break
			}
			p.afterCR = b[end] == '\r'
			b, cr = b[end+1:], cr-(end+1)
			if p.afterCR {
				cr = bytes.IndexByte(b, '\r')
			}
			continue
		}
		if b[0] == '\n' && len(p.line) == 0 {
			// An empty line, which ends an event: no need to look for it.
			b, cr = b[1:], cr-1
			if err := p.dispatch(); err != nil {
				p.err = err
				return 0, err
			}
			continue
		}
		end := bytes.IndexByte(b, '\n')
		if len(p.line) == 0 && !p.hasData && end >= 0 && end+1 < len(b) && b[end+1] == '\n' &&
			(cr < 0 || cr > end+1) && (p.maxEvent == 0 || end <= p.maxEvent) &&
			len(b) >= 6 && string(b[:6]) == "data: " {
			// The event nearly every stream is made of: "data: ", its
			// data, and the empty line after it, all in this piece and
			// within the bound. It is handed over at once, as the line
			// machinery below would hand it over, without it.
			data := b[6:end]
			b, cr = b[end+2:], cr-(end+2)
			if err := p.dispatchOne(data); err != nil {
				p.err = err
				return 0, err
			}
			continue
		}
		if cr >= 0 && (end < 0 || cr < end) {
			end = cr
		}
		if end < 0 {
			if p.Spill != nil {
				taken, err := p.overflow(b, false)
				if err != nil {
					return 0, err
				}
				if taken {
					break
				}
			} else if err := p.grow(len(b)); err != nil {
				return 0, err
			}
			p.line = append(p.line, b...)
			break
		}
		if p.Spill != nil {
			taken, err := p.overflow(b[:end], true)
			if err != nil {
				return 0, err
			}
			if taken {
				p.afterCR = b[end] == '\r'
				b, cr = b[end+1:], cr-(end+1)
				if p.afterCR {
					cr = bytes.IndexByte(b, '\r')
				}
				continue
			}
		} else if p.maxEvent > 0 {
			if err := p.grow(end); err != nil {
				return 0, err
			}
		}
		// A line that lies whole in this piece is read where it is; one
		// that began in an earlier piece is gathered in line.
		line, inPiece := b[:end], len(p.line) == 0
		if !inPiece {
			p.line = append(p.line, line...)
			line = p.line
		}
		p.afterCR = b[end] == '\r'
		b, cr = b[end+1:], cr-(end+1)
		if p.afterCR {
			cr = bytes.IndexByte(b, '\r')
		}
		if err := p.processLine(line, inPiece); err != nil {
			p.err = err
			return 0, err
		}
		p.line = p.line[:0]
	}
	// The piece belongs to the caller once Write returns.
	p.settle()
	return n, nil
}

// SawCR reports whether a line of the stream so far ended with CR, alone
// or before LF. The standard allows CR, LF and CRLF alike, and so does
// this parser; not every client does.
func (p *Parser) SawCR() bool { return p.sawCR }

// settle copies a pending data line into the data buffer.
func (p *Parser) settle() {
	if p.pending {
		p.data = append(append(p.data, p.pend...), '\n')
		p.pend, p.pending = nil, false
	}
}

// dataLen is the length of the data buffer, with a pending line in it.
func (p *Parser) dataLen() int {
	if p.pending {
		return len(p.data) + len(p.pend) + 1
	}
	return len(p.data)
}

// grow checks that the line and the data may take n more bytes.
func (p *Parser) grow(n int) error {
	if p.maxEvent > 0 && (len(p.line)+n > p.maxEvent || p.dataLen()+len(p.line)+n > p.maxEvent) {
		p.err = fmt.Errorf("%w: an event or line of more than %d bytes", ErrTooLarge, p.maxEvent)
		return p.err
	}
	return nil
}

// lineRest takes the rest of a line that is dropped or spilled from b: up
// to end, where the line ends, or all of b when end is -1.
func (p *Parser) lineRest(b []byte, end int) error {
	part := b
	if end >= 0 {
		part = b[:end]
	}
	if p.spillLine && len(part) > 0 {
		if err := p.Spill.Data(part); err != nil {
			return err
		}
	}
	if end >= 0 {
		if p.spillLine {
			p.spillJoin = true
		}
		p.skip, p.spillLine = false, false
	}
	return nil
}

// overflow is the bound's check when a Spill is set, given the next
// bytes of the line being read (p.line holds those before); whole says
// they end it. It returns true when it took them: a line past the bound
// that is not a data line is dropped, and a data line goes to the Spill
// once the event's data passes the bound (or already has).
func (p *Parser) overflow(next []byte, whole bool) (bool, error) {
	total := len(p.line) + len(next)
	if !p.spilling && (p.maxEvent == 0 || p.dataLen()+total <= p.maxEvent) {
		// Within the bound, or with none: the line is read as it would
		// be without a Spill, whatever it is.
		return false, nil
	}
	// The line's first bytes, enough to tell a data line.
	var head [6]byte
	h := copy(head[:], p.line)
	h += copy(head[h:], next)
	// A line that is "data" alone is a data line too, its value empty.
	bare := whole && total == 4 && string(head[:4]) == "data"
	isData := bare || h >= 5 && string(head[:5]) == "data:"
	if !isData {
		if total <= p.maxEvent || (!whole && h < 5 && string(head[:h]) == "data:"[:h]) {
			return false, nil
		}
		// Past the bound, and not data: nothing the event needs.
		p.line = p.line[:0]
		p.skip = !whole
		return true, nil
	}
	prefix := 5
	if bare {
		prefix = 4
	} else if h == 6 && head[5] == ' ' {
		prefix = 6
	} else if h == 5 && !whole {
		// The space that may follow the colon has yet to come.
		return false, nil
	}
	if !p.spilling && p.dataLen()+total-prefix <= p.maxEvent {
		return false, nil
	}
	if !p.spilling {
		// The data so far, each line with the LF after it, which joins it
		// to this one.
		p.settle()
		if err := p.Spill.Data(p.data); err != nil {
			p.err = err
			return false, err
		}
		p.data, p.hasData, p.spilling = p.data[:0], true, true
	} else if p.spillJoin {
		if err := p.Spill.Data([]byte{'\n'}); err != nil {
			p.err = err
			return false, err
		}
	}
	var err error
	if prefix <= len(p.line) {
		if err = p.Spill.Data(p.line[prefix:]); err == nil {
			err = p.Spill.Data(next)
		}
	} else {
		err = p.Spill.Data(next[prefix-len(p.line):])
	}
	if err != nil {
		p.err = err
		return false, err
	}
	p.line = p.line[:0]
	p.spillJoin = whole
	p.spillLine = !whole
	return true, nil
}

// Close ends the stream. An event not yet dispatched (no empty line after
// it) is discarded, as the standard says, and a Spill told so (its error,
// if it fails to drop the event, is Close's); a stream that ended before
// its first byte-order-mark question was settled had no events.
func (p *Parser) Close() error {
	if p.spilling && p.err == nil {
		p.err = p.Spill.Drop()
	}
	p.line, p.data, p.typ, p.hasData = p.line[:0], p.data[:0], p.typ[:0], false
	p.pend, p.pending, p.crs = nil, false, p.crs[:0]
	p.spilling, p.spillLine, p.spillJoin, p.skip = false, false, false, false
	return p.err
}

// processLine handles one line; inPiece says that it lies in the piece
// being written, where a data line may stay until Write returns.
func (p *Parser) processLine(line []byte, inPiece bool) error {
	if len(line) == 0 {
		return p.dispatch()
	}
	if line[0] == ':' {
		return nil // a comment
	}
	if len(line) >= 5 && string(line[:5]) == "data:" {
		// The line nearly every event is: no need to look for its colon
		// and compare its name with every field's.
		value := line[5:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		p.addData(value, inPiece)
		return nil
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "event":
		p.typ = append(p.typ[:0], value...)
	case "data":
		p.addData(value, inPiece)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			p.lastID = string(value)
		}
	case "retry":
		if ms, ok := digits(value); ok {
			p.Retry = ms
		}
	}
	return nil // any other field is ignored
}

// addData adds the value of a data line to the event's data; inPiece says
// that it lies in the piece being written, where the event's first data
// line may stay until Write returns.
func (p *Parser) addData(value []byte, inPiece bool) {
	if p.afterCR {
		// The line ended with CR: the line feed that follows its value
		// in the data stands for it.
		p.crs = append(p.crs, p.dataLen()+len(value))
	}
	if inPiece && !p.hasData {
		p.pend, p.pending, p.hasData = value, true, true
		return
	}
	p.settle()
	p.data = append(p.data, value...)
	p.data = append(p.data, '\n')
	p.hasData = true
}

// digits reads a retry value: ASCII digits only, and not so many that they
// overflow.
func digits(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// dispatchOne dispatches an event whose data is one data line, seen
// with no event pending.
func (p *Parser) dispatchOne(data []byte) error {
	typ := "message"
	if len(p.typ) > 0 {
		typ = string(p.typ)
		p.typ = p.typ[:0]
	}
	return p.handle(Event{Type: typ, Data: data, LastEventID: p.lastID})
}

func (p *Parser) dispatch() error {
	if !p.hasData {
		// No data: the type buffer is reset and nothing is dispatched.
		p.typ = p.typ[:0]
		return nil
	}
	typ := "message"
	if len(p.typ) > 0 {
		typ = string(p.typ)
	}
	p.typ, p.hasData = p.typ[:0], false
	if p.spilling {
		p.spilling, p.spillJoin = false, false
		p.crs = p.crs[:0]
		return p.handle(Event{Type: typ, LastEventID: p.lastID, Spilled: true})
	}
	var data []byte
	if p.pending {
		data = p.pend
	} else {
		data = p.data[:len(p.data)-1] // the last LF
	}
	p.data = p.data[:0]
	p.pend, p.pending = nil, false
	crs := p.crs
	if n := len(crs); n > 0 && crs[n-1] == len(data) {
		crs = crs[:n-1] // the last line's, which joins nothing
	}
	p.crs = p.crs[:0]
	if len(crs) == 0 {
		crs = nil
	}
	return p.handle(Event{Type: typ, Data: data, LastEventID: p.lastID, CRs: crs})
}
