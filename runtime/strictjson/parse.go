package strictjson

import (
	"fmt"
	"math"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// DefaultMaxDepth is the nesting limit applied when Options.MaxDepth is 0.
// The parser itself does not recurse, so it needs no cap; the default
// exists for callers (generated decoders, schema validators) that walk the
// tree recursively. It equals encoding/json's own limit, so the default
// accepts exactly the nesting encoding/json accepts. A larger explicit
// MaxDepth is honoured.
const DefaultMaxDepth = 10000

// Options controls the limits and the optional leniencies of Parse and Valid.
// The zero Options is the strict default.
type Options struct {
	// MaxDepth is the maximum nesting of arrays and objects: a scalar at the
	// top level has depth 0, [] has depth 1, [[]] depth 2. 0 means
	// DefaultMaxDepth.
	MaxDepth int
	// MaxValues is the maximum number of values, counting every scalar,
	// array and object once (member names do not count). 0 means no limit
	// other than the input size.
	MaxValues int
	// AllowDuplicateKeys accepts an object that repeats a member name. Names
	// are compared after unescaping, so "a" and "\u0061" are the same name.
	// Duplicates are rejected by default because different consumers of the
	// same message disagree on which one wins.
	AllowDuplicateKeys bool
	// TextUnits, when not nil, is a budget of UTF-16 code units that the
	// member names and string values of the document may hold together,
	// counted after unescaping, the way JavaScript measures strings. The
	// parse subtracts what it reads and fails with ErrTextUnits at the
	// name or string that overdraws the budget, so one budget can span
	// several documents.
	TextUnits *int
	// Borrow lets the strings of the tree share data's memory instead of a
	// copy of it: the parse copies nothing, and the caller must leave data
	// unchanged for as long as it uses the tree or any string taken from
	// it (strings.Clone keeps one beyond that).
	Borrow bool
	// Number, when set, vets each number literal as it is read: an error it
	// returns ends the parse with ErrNumber at the literal, the error's
	// text its message. lit is valid only during the call.
	Number func(lit []byte) error
	// AllowUnpairedSurrogates accepts \uD800-\uDFFF escapes that do not form
	// a high/low pair, decoding each as U+FFFD like encoding/json. They are
	// rejected by default because such text cannot be represented in UTF-8
	// and would silently change on a round trip.
	AllowUnpairedSurrogates bool
}

// Parse parses data, which must hold exactly one JSON value optionally
// surrounded by JSON whitespace (space, tab, CR, LF), and returns its tree.
//
// Empty or whitespace-only input is ErrEmpty; a UTF-8 byte order mark is
// ErrSyntax (RFC 8259 forbids emitting one and the protocols never send
// one); invalid UTF-8 anywhere is ErrUTF8. On failure the error is an
// *Error and no partial tree is returned.
//
// The returned tree does not reference data, which the caller may reuse.
// Parse makes one string copy of data which the strings and numbers of the
// tree share (see Value).
func Parse(data []byte, opt Options) (*Value, error) {
	p := getParser(data, opt, true)
	v, err := p.run()
	putParser(p)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Valid reports whether Parse would accept data with opt, returning the same
// *Error Parse would return, or nil. It performs all the same checks
// (including duplicate names and limits) with the same code, but builds no
// tree.
func Valid(data []byte, opt Options) error {
	p := getParser(data, opt, false)
	_, err := p.run()
	putParser(p)
	if err != nil {
		return err
	}
	return nil
}

// frame is one open array or object.
type frame struct {
	v       *Value // the container being built; nil in validate-only mode
	count   int    // elements or members started so far
	base    int    // start of this container's entries in parser.elems / parser.members
	keyBase int    // start of this object's names in parser.keys
	bufBase int    // length of parser.buf when the object was opened
	key     []byte // decoded name of the current member
	// names holds the decoded names of a large object for duplicate
	// detection; small objects are scanned linearly instead.
	names map[string]struct{}
	kind  Kind // Array or Object
	// reading is true while the value of element/member count-1 is being
	// read; it decides whether an error pointer includes that element.
	reading bool
}

// mapThreshold is the member count above which duplicate detection switches
// from a linear scan to a map.
const mapThreshold = 16

type parser struct {
	data     []byte
	src      string // string copy of data (build mode only)
	pos      int
	opt      Options
	maxDepth int
	// maxValues is opt.MaxValues, or the largest int when there is no
	// limit: one comparison per value.
	maxValues int
	build     bool
	nvalues   int

	// Scratch stacks, reused across parses through parserPool, or kept
	// by the arena a document was parsed into (ParseIn).
	stack   []frame
	elems   []*Value // pending array elements of all open arrays
	members []Member // pending members of all open objects (build mode)
	keys    [][]byte // decoded names of the open objects, for duplicate checks
	// The highest lengths elems, members and keys reached: truncation does
	// not clear what it drops, putParser clears up to these.
	elemsHigh, membersHigh, keysHigh int
	buf                              []byte // decoded text of escaped strings and open objects' names

	// Allocation slabs for the tree: values and element/member slices are
	// carved out of larger blocks to avoid one allocation per value. They
	// belong to the returned tree and are never pooled.
	vals     []Value
	valsAt   int // vals[:valsAt] are handed out; an index rather than reslicing vals, which writes its pointer each time
	allocd   int // values handed out so far
	valsNext int // size of the next value slab
	ptrSlab  []*Value
	ptrNext  int
	memSlab  []Member
	memNext  int
	// arena, when set, provides the slabs instead of make (ParseIn).
	arena *Arena
}

// Slab sizing. Real documents hold about one value per 10 bytes, so the
// first value slab is sized from the input length; later slabs double up to
// maxSlab so that the unused tail of the last one stays small.
const (
	bytesPerValue = 10
	minSlab       = 4
	maxSlab       = 256
)

// maxPooledScratch bounds the scratch capacity kept in the pool, so one
// huge document does not pin memory for the life of the process.
const maxPooledScratch = 4096

var parserPool = sync.Pool{New: func() any { return new(parser) }}

func getParser(data []byte, opt Options, build bool) *parser {
	p := parserPool.Get().(*parser)
	p.start(data, opt, build)
	return p
}

// start prepares a parser whose scratch is empty for one document.
func (p *parser) start(data []byte, opt Options, build bool) {
	p.data, p.opt, p.build = data, opt, build
	p.maxDepth = opt.MaxDepth
	if p.maxDepth <= 0 {
		p.maxDepth = DefaultMaxDepth
	}
	p.maxValues = opt.MaxValues
	if p.maxValues <= 0 {
		p.maxValues = math.MaxInt // no limit
	}
	if build {
		if opt.Borrow {
			p.src = unsafe.String(unsafe.SliceData(data), len(data))
		} else {
			p.src = string(data)
		}
		p.valsNext = min(max(len(data)/bytesPerValue, minSlab), maxSlab)
		p.ptrNext = max(p.valsNext/2, minSlab)
		p.memNext = max(p.valsNext/2, minSlab)
	}
}

// putParser returns p's scratch stacks to the pool after dropping every
// reference into the caller's input and the returned tree.
func putParser(p *parser) {
	// The stacks are cleared up to the highest length this parse reached:
	// truncating them while parsing leaves what they drop in place, which
	// costs nothing per container, and clearing the whole capacity instead
	// made every small parse pay for the largest one before it.
	clear(p.stack)
	clear(p.elems[:max(len(p.elems), p.elemsHigh)])
	clear(p.members[:max(len(p.members), p.membersHigh)])
	clear(p.keys[:max(len(p.keys), p.keysHigh)])
	if p.oversize() {
		return
	}
	*p = parser{
		stack:   p.stack[:0],
		elems:   p.elems[:0],
		members: p.members[:0],
		keys:    p.keys[:0],
		buf:     p.buf[:0],
	}
	parserPool.Put(p)
}

// oversize reports whether p's scratch grew past what is worth keeping
// for another document.
func (p *parser) oversize() bool {
	return cap(p.stack) > maxPooledScratch || cap(p.elems) > maxPooledScratch ||
		cap(p.members) > maxPooledScratch || cap(p.keys) > maxPooledScratch ||
		cap(p.buf) > 16*maxPooledScratch
}

// keepFor readies p, after a document it parsed without error into an
// arena, for the arena's next document, and reports whether it is worth
// keeping. It clears nothing: a complete parse leaves no frame and no name
// behind (closeContainer clears them), and what the element and member
// stacks still hold past their length points into the arena's trees,
// which the arena keeps alive anyway. The high marks stay, so that
// putParser clears all of it if the parser ever goes back to the pool.
func (p *parser) keepFor() bool {
	if len(p.stack) != 0 || len(p.keys) != 0 || p.oversize() {
		return false
	}
	// Field by field rather than a fresh struct: start and ParseIn set
	// the rest, and each pointer written costs a write barrier while the
	// collector marks, once per line of a stream. What refers to the
	// document, its options and the arena's blocks stays until the next
	// document replaces it: the arena's trees refer to the document's
	// text anyway (see Arena), and clearing it was a tenth of the cost of
	// parsing a short line. Without Options.Borrow that text is a copy,
	// and the caller's data is kept beside it; start replaces every field
	// that comes from the document or its options.
	p.elemsHigh = max(len(p.elems), p.elemsHigh)
	p.membersHigh = max(len(p.members), p.membersHigh)
	p.elems, p.members, p.buf = p.elems[:0], p.members[:0], p.buf[:0]
	p.pos, p.nvalues, p.allocd = 0, 0, 0
	return true
}

func (p *parser) run() (*Value, *Error) {
	data := p.data
	p.skipSpace()
	if p.pos == len(data) {
		return nil, p.fail(ErrEmpty, p.pos, "empty input")
	}
	for {
		// A value starts at p.pos (whitespace already skipped).
		if p.pos >= len(data) {
			return nil, p.fail(ErrSyntax, p.pos, "unexpected end of input, expected a value")
		}
		p.nvalues++
		if p.nvalues > p.maxValues {
			return nil, p.fail(ErrValues, p.pos, fmt.Sprintf("number of values exceeds the limit of %d", p.opt.MaxValues))
		}
		start := p.pos
		var v *Value
		switch c := data[p.pos]; c {
		case '[', '{':
			if len(p.stack) >= p.maxDepth {
				return nil, p.fail(ErrDepth, p.pos, fmt.Sprintf("nesting depth exceeds the limit of %d", p.maxDepth))
			}
			kind := Array
			if c == '{' {
				kind = Object
			}
			var cv *Value
			if p.build {
				cv = p.newValue()
				cv.set(kind, false, "", start, 0) // Elems or Members and End when it closes
			}
			p.stack = append(p.stack, frame{
				v: cv, kind: kind,
				base: len(p.elems), keyBase: len(p.keys), bufBase: len(p.buf),
			})
			if kind == Object {
				p.stack[len(p.stack)-1].base = len(p.members)
			}
			p.pos++
			p.skipSpace()
			if p.pos < len(data) && data[p.pos] == c+2 { // ']' or '}'
				p.pos++
				v = p.closeContainer()
				break
			}
			f := &p.stack[len(p.stack)-1]
			if kind == Array {
				f.count++
				f.reading = true
			} else if err := p.readName(f); err != nil {
				return nil, err
			}
			continue
		case '"':
			// Most strings are plain text up to their closing quote:
			// those are read here, without a call; readString goes on
			// from the first byte that needs attention.
			var a, b, units int
			var esc bool
			if i := plainEnd(data, p.pos+1); i < len(data) && data[i] == '"' {
				a, b, units = p.pos+1, i, i-p.pos-1
				p.pos = i + 1
			} else {
				var err *Error
				if a, b, esc, units, err = p.readString(i, p.build); err != nil {
					return nil, err
				}
			}
			if !p.spend(units) {
				return nil, p.overspent(start)
			}
			if p.build {
				var str string
				if esc {
					str = string(p.buf[a:b])
					p.buf = p.buf[:a]
				} else {
					str = p.src[a:b]
				}
				v = p.newValue()
				v.set(String, false, str, start, p.pos)
			} else if esc {
				p.buf = p.buf[:a]
			}
		case 't', 'f', 'n':
			lit := "null"
			if c == 't' {
				lit = "true"
			} else if c == 'f' {
				lit = "false"
			}
			if err := p.readLiteral(lit); err != nil {
				return nil, err
			}
			if p.build {
				v = p.newValue()
				if c == 'n' {
					v.set(Null, false, "", start, p.pos)
				} else {
					v.set(Bool, c == 't', "", start, p.pos)
				}
			}
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			if err := p.readNumber(); err != nil {
				return nil, err
			}
			if p.opt.Number != nil {
				if err := p.opt.Number(data[start:p.pos]); err != nil {
					return nil, p.fail(ErrNumber, start, err.Error())
				}
			}
			if p.build {
				v = p.newValue()
				v.set(Number, false, p.src[start:p.pos], start, p.pos)
			}
		default:
			return nil, p.unexpected(p.pos, "looking for beginning of value")
		}

		// v is complete: hand it to its container and continue with the
		// container's next entry, closing containers as they end.
		for {
			if len(p.stack) == 0 {
				p.skipSpace()
				if p.pos != len(data) {
					return nil, p.unexpected(p.pos, "after top-level value")
				}
				return v, nil
			}
			f := &p.stack[len(p.stack)-1]
			f.reading = false
			if p.build {
				if f.kind == Array {
					p.elems = append(p.elems, v)
				} else {
					p.members[len(p.members)-1].Value = v
				}
			}
			p.skipSpace()
			if p.pos >= len(data) {
				return nil, p.fail(ErrSyntax, p.pos, "unexpected end of input in "+f.kind.String())
			}
			c := data[p.pos]
			if c == ',' {
				p.pos++
				p.skipSpace()
				if f.kind == Array {
					f.count++
					f.reading = true
				} else if err := p.readName(f); err != nil {
					return nil, err
				}
				break // read the next value
			}
			if f.kind == Array && c == ']' || f.kind == Object && c == '}' {
				p.pos++
				v = p.closeContainer()
				continue
			}
			if f.kind == Array {
				return nil, p.unexpected(p.pos, "after array element, expected ',' or ']'")
			}
			return nil, p.unexpected(p.pos, "after object member, expected ',' or '}'")
		}
	}
}

// closeContainer pops the innermost container, whose closing bracket has
// just been consumed, and returns its finished Value (nil when not
// building).
func (p *parser) closeContainer() *Value {
	f := &p.stack[len(p.stack)-1]
	v := f.v
	if p.build {
		v.End = p.pos
		if f.kind == Array {
			v.Elems = p.allocElems(p.elems[f.base:])
			p.elemsHigh = max(p.elemsHigh, len(p.elems))
			p.elems = p.elems[:f.base]
		} else {
			v.Members = p.allocMembers(p.members[f.base:])
			p.membersHigh = max(p.membersHigh, len(p.members))
			p.members = p.members[:f.base]
		}
	}
	if f.kind == Object {
		if len(p.keys) > f.keyBase { // validate mode only
			clear(p.keys[f.keyBase:])
			p.keys = p.keys[:f.keyBase]
		}
		p.buf = p.buf[:f.bufBase]
	}
	*f = frame{}
	p.stack = p.stack[:len(p.stack)-1]
	return v
}

// readName reads a member name and the following colon (with whitespace)
// for the object f, leaving p.pos at the member's value.
func (p *parser) readName(f *frame) *Error {
	data := p.data
	if p.pos >= len(data) {
		return p.fail(ErrSyntax, p.pos, "unexpected end of input, expected a member name")
	}
	if data[p.pos] != '"' {
		return p.unexpected(p.pos, "looking for a member name")
	}
	keyStart := p.pos
	// A plain name is read here (see the same in run).
	var a, b, units int
	var esc bool
	if i := plainEnd(data, p.pos+1); i < len(data) && data[i] == '"' {
		a, b, units = p.pos+1, i, i-p.pos-1
		p.pos = i + 1
	} else {
		var err *Error
		if a, b, esc, units, err = p.readString(i, true); err != nil {
			return err
		}
	}
	var key []byte
	if esc {
		key = p.buf[a:b] // stays in buf until the object is closed
	} else {
		key = data[a:b]
	}
	f.count++
	f.reading = true
	f.key = key
	if !p.spend(units) {
		return p.overspent(keyStart)
	}
	if p.build {
		m := Member{KeyStart: keyStart}
		if esc {
			m.Key = string(key)
		} else {
			m.Key = p.src[a:b]
		}
		p.members = append(p.members, m)
	}
	if !p.opt.AllowDuplicateKeys {
		// The first name of an object is new: no call for it in build mode.
		if p.build && len(p.members)-1 > f.base && p.seenMember(f, key) || !p.build && p.seen(f, key) {
			return p.fail(ErrDuplicateKey, keyStart, fmt.Sprintf("duplicate member name %q", key))
		}
	}
	p.skipSpace()
	if p.pos >= len(data) {
		return p.fail(ErrSyntax, p.pos, "unexpected end of input, expected ':'")
	}
	if data[p.pos] != ':' {
		return p.unexpected(p.pos, "after member name, expected ':'")
	}
	p.pos++
	p.skipSpace()
	return nil
}

// seen reports whether key was already used in object f, and records it.
func (p *parser) seen(f *frame, key []byte) bool {
	if f.names != nil {
		if _, dup := f.names[string(key)]; dup {
			return true
		}
		f.names[string(key)] = struct{}{}
		return false
	}
	prev := p.keys[f.keyBase:]
	for _, k := range prev {
		if string(k) == string(key) {
			return true
		}
	}
	p.keys = append(p.keys, key)
	if len(prev)+1 > mapThreshold {
		f.names = make(map[string]struct{}, 2*len(prev))
		for _, k := range p.keys[f.keyBase:] {
			f.names[string(k)] = struct{}{}
		}
		p.keysHigh = max(p.keysHigh, len(p.keys))
		p.keys = p.keys[:f.keyBase] // the map owns the names from now on
	}
	return false
}

// seenMember is seen in build mode, where the names read so far are the
// keys of the object's pending members (the last one is key itself): no
// second stack of them is kept.
func (p *parser) seenMember(f *frame, key []byte) bool {
	if f.names != nil {
		if _, dup := f.names[string(key)]; dup {
			return true
		}
		f.names[p.members[len(p.members)-1].Key] = struct{}{}
		return false
	}
	prev := p.members[f.base : len(p.members)-1]
	for i := range prev {
		if prev[i].Key == string(key) {
			return true
		}
	}
	if len(prev)+1 > mapThreshold {
		all := p.members[f.base:]
		f.names = make(map[string]struct{}, 2*len(prev))
		for i := range all {
			f.names[all[i].Key] = struct{}{}
		}
	}
	return false
}

func (p *parser) skipSpace() {
	// Most values in real documents follow one another with no space
	// between them: the first byte decides without a loop or a call.
	if p.pos < len(p.data) && p.data[p.pos] > ' ' {
		return
	}
	p.skipSpaces()
}

// skipSpaces is skipSpace's loop for when a space does come.
func (p *parser) skipSpaces() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) readLiteral(lit string) *Error {
	for j := 0; j < len(lit); j++ {
		k := p.pos + j
		if k >= len(p.data) {
			return p.fail(ErrSyntax, k, "unexpected end of input in literal "+lit)
		}
		if p.data[k] != lit[j] {
			return p.unexpected(k, "in literal "+lit)
		}
	}
	p.pos += len(lit)
	return nil
}

// readNumber consumes a number per the RFC 8259 grammar
//
//	number = [ "-" ] int [ frac ] [ exp ]
//
// The byte after the number is left for the caller, which rejects anything
// that cannot follow a value (so "1x" fails on the 'x').
func (p *parser) readNumber() *Error {
	data, i := p.data, p.pos
	digitAt := func(i int, what string) *Error {
		if i >= len(data) {
			return p.fail(ErrSyntax, i, "unexpected end of input in number, expected a digit "+what)
		}
		if !isDigit(data[i]) {
			return p.unexpected(i, "in number, expected a digit "+what)
		}
		return nil
	}
	if data[i] == '-' {
		i++
		if err := digitAt(i, "after '-'"); err != nil {
			return err
		}
	}
	if data[i] == '0' {
		i++
		if i < len(data) && isDigit(data[i]) {
			return p.fail(ErrSyntax, i, "invalid number: leading zero")
		}
	} else {
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	if i < len(data) && data[i] == '.' {
		i++
		if err := digitAt(i, "after decimal point"); err != nil {
			return err
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if err := digitAt(i, "in exponent"); err != nil {
			return err
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	p.pos = i
	return nil
}

// String byte classes for the scanning loop.
const (
	strPlain   = iota // printable ASCII needing no attention
	strQuote          // closing quote
	strEscape         // backslash
	strControl        // U+0000-U+001F, forbidden raw
	strHigh           // first byte of a multi-byte UTF-8 sequence (to validate)
)

var strClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c < 0x20:
			t[c] = strControl
		case c == '"':
			t[c] = strQuote
		case c == '\\':
			t[c] = strEscape
		case c >= utf8.RuneSelf:
			t[c] = strHigh
		}
	}
	return t
}()

// plainEnd returns the index of the first byte from i on that is not
// plain string text (a quote, a backslash, a control or a non-ASCII
// byte), or len(data).
func plainEnd(data []byte, i int) int {
	// The table through a pointer read before the loop: the compiler
	// then keeps its address in a register rather than computing it again
	// for every byte.
	class := plainClass
	_ = class[0] // checked for nil here, not per byte
	for i < len(data) && class[data[i]] == strPlain {
		i++
	}
	return i
}

// plainClass is strClass for plainEnd.
var plainClass = &strClass

// readString reads the string starting at p.pos (a '"') and leaves p.pos
// after its closing quote; the bytes before from are known to be plain. Without escapes it returns the content's bounds
// in p.data. With escapes it returns esc=true and, if decode is set, the
// bounds of the decoded text appended to p.buf (the caller truncates buf
// when done with it); if decode is false the escapes are only validated and
// buf is untouched. units is the length of the decoded text in UTF-16 code
// units.
func (p *parser) readString(from int, decode bool) (a, b int, esc bool, units int, err *Error) {
	data := p.data
	i := from
	mark := p.pos + 1 // start of the raw text not yet copied to buf
	units = from - mark
	bufStart := len(p.buf)
	for {
		plain := i
		for i < len(data) && strClass[data[i]] == strPlain {
			i++
		}
		units += i - plain
		if i >= len(data) {
			return 0, 0, false, 0, p.fail(ErrSyntax, i, "unexpected end of input in string")
		}
		switch strClass[data[i]] {
		case strQuote:
			p.pos = i + 1
			if !esc {
				return mark, i, false, units, nil
			}
			if decode {
				p.buf = append(p.buf, data[mark:i]...)
			}
			return bufStart, len(p.buf), true, units, nil
		case strControl:
			return 0, 0, false, 0, p.fail(ErrSyntax, i, fmt.Sprintf("invalid control character U+%04X in string", data[i]))
		case strHigh:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				return 0, 0, false, 0, p.badUTF8(i)
			}
			i += size
			units += utf16Units(r)
		case strEscape:
			if decode {
				p.buf = append(p.buf, data[mark:i]...)
			}
			esc = true
			r, n, err := p.readEscape(i)
			if err != nil {
				return 0, 0, false, 0, err
			}
			if decode {
				p.buf = utf8.AppendRune(p.buf, r)
			}
			i += n
			mark = i
			units += utf16Units(r)
		}
	}
}

// utf16Units is the number of UTF-16 code units of r: two outside the
// Basic Multilingual Plane.
func utf16Units(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// spend takes the text units of a name or string from the budget of
// Options.TextUnits and reports whether the budget holds; the caller
// returns overspent's error when it does not (apart, so that spend
// inlines).
func (p *parser) spend(units int) bool {
	t := p.opt.TextUnits
	if t == nil {
		return true
	}
	*t -= units
	return *t >= 0
}

// overspent is the error of a name or string, starting at off, that
// spent more of Options.TextUnits than was left.
func (p *parser) overspent(off int) *Error {
	return p.fail(ErrTextUnits, off, "the names and strings hold more UTF-16 code units than the limit allows")
}

// readEscape decodes the escape sequence whose backslash is at i and returns
// the rune and the number of bytes consumed. A surrogate pair written as two
// \u escapes is consumed as one rune.
func (p *parser) readEscape(i int) (rune, int, *Error) {
	data := p.data
	if i+1 >= len(data) {
		return 0, 0, p.fail(ErrSyntax, i+1, "unexpected end of input in string escape")
	}
	switch c := data[i+1]; c {
	case '"', '\\', '/':
		return rune(c), 2, nil
	case 'b':
		return '\b', 2, nil
	case 'f':
		return '\f', 2, nil
	case 'n':
		return '\n', 2, nil
	case 'r':
		return '\r', 2, nil
	case 't':
		return '\t', 2, nil
	case 'u':
	default:
		return 0, 0, p.unexpected(i+1, "in string escape")
	}
	r, err := p.readHex4(i + 2)
	if err != nil {
		return 0, 0, err
	}
	switch {
	case r < 0xD800 || r > 0xDFFF:
		return r, 6, nil
	case r < 0xDC00:
		// A high surrogate must be followed at once by a low one. A
		// malformed escape after it is reported as the syntax error it is,
		// whatever the surrogate policy.
		if i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
			r2, err := p.readHex4(i + 8)
			if err != nil {
				return 0, 0, err
			}
			if r2 >= 0xDC00 && r2 <= 0xDFFF {
				return 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00), 12, nil
			}
		} else if i+6 >= len(data) || (i+7 >= len(data) && data[i+6] == '\\') {
			// The input ends where the low half would be.
			return 0, 0, p.fail(ErrSyntax, len(data), "unexpected end of input in string")
		}
		if !p.opt.AllowUnpairedSurrogates {
			return 0, 0, p.fail(ErrSurrogate, i, fmt.Sprintf("unpaired high surrogate \\u%04X", r))
		}
		return utf8.RuneError, 6, nil
	default:
		if !p.opt.AllowUnpairedSurrogates {
			return 0, 0, p.fail(ErrSurrogate, i, fmt.Sprintf("unpaired low surrogate \\u%04X", r))
		}
		return utf8.RuneError, 6, nil
	}
}

func (p *parser) readHex4(i int) (rune, *Error) {
	var r rune
	for k := i; k < i+4; k++ {
		if k >= len(p.data) {
			return 0, p.fail(ErrSyntax, k, "unexpected end of input in \\u escape")
		}
		c := p.data[k]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, p.unexpected(k, "in \\u escape, expected a hex digit")
		}
		r = r<<4 | rune(d)
	}
	return r, nil
}

// newValue returns a Value from the current slab, allocating a new slab
// (never larger than the remaining MaxValues budget) when it is used up.
// The Value may hold what an earlier tree of an arena left in it: the
// caller writes the whole of it with set.
func (p *parser) newValue() *Value {
	if p.valsAt == len(p.vals) {
		n := p.valsNext
		if p.opt.MaxValues > 0 {
			n = min(n, p.opt.MaxValues-p.allocd)
		}
		if p.arena != nil {
			p.vals = p.arena.vals.take(max(n, 1))
		} else {
			p.vals = make([]Value, max(n, 1))
		}
		p.valsAt = 0
		p.valsNext = min(2*p.valsNext, maxSlab)
	}
	v := &p.vals[p.valsAt]
	p.valsAt++
	p.allocd++
	return v
}

// set writes all of v, a Value newValue handed out, which may hold what
// an earlier tree of an arena left in it. A pointer is written only where
// it changes: while the collector marks, every pointer written costs a
// write barrier, and most Values of a slab were scalars before and are
// again (nil Elems and Members stay as they are).
func (v *Value) set(kind Kind, b bool, str string, start, end int) {
	v.Kind, v.Bool, v.Start, v.End = kind, b, start, end
	if len(str) != 0 || len(v.Str) != 0 {
		v.Str = str
	}
	if v.Elems != nil {
		v.Elems = nil
	}
	if v.Members != nil {
		v.Members = nil
	}
}

// allocElems copies src into a slice carved from a shared block. The
// capacity is clipped so that appending to one slice cannot overwrite
// another.
func (p *parser) allocElems(src []*Value) []*Value {
	n := len(src)
	if n == 0 {
		return nil
	}
	if len(p.ptrSlab) < n && p.arena != nil {
		p.ptrSlab = p.arena.ptrs.take(n)
	} else if len(p.ptrSlab) < n {
		p.ptrSlab = make([]*Value, max(n, p.ptrNext))
		p.ptrNext = min(2*p.ptrNext, maxSlab)
	}
	s := p.ptrSlab[:n:n]
	p.ptrSlab = p.ptrSlab[n:]
	copy(s, src)
	return s
}

// allocMembers is allocElems for members.
func (p *parser) allocMembers(src []Member) []Member {
	n := len(src)
	if n == 0 {
		return nil
	}
	if len(p.memSlab) < n && p.arena != nil {
		p.memSlab = p.arena.mems.take(n)
	} else if len(p.memSlab) < n {
		p.memSlab = make([]Member, max(n, p.memNext))
		p.memNext = min(2*p.memNext, maxSlab)
	}
	s := p.memSlab[:n:n]
	p.memSlab = p.memSlab[n:]
	copy(s, src)
	return s
}

// pointer returns the JSON Pointer of the value currently being read.
func (p *parser) pointer() string {
	ptr := ""
	for i := range p.stack {
		f := &p.stack[i]
		if !f.reading {
			break
		}
		if f.kind == Array {
			ptr = AppendIndexPointer(ptr, f.count-1)
		} else {
			ptr = AppendPointer(ptr, string(f.key))
		}
	}
	return ptr
}

func (p *parser) fail(kind ErrorKind, off int, msg string) *Error {
	return &Error{Kind: kind, Offset: off, Pointer: p.pointer(), Msg: msg}
}

// unexpected reports the byte at off as not allowed where it is. A byte that
// does not start valid UTF-8 is reported as ErrUTF8 so that encoding
// problems are classified the same inside and outside strings.
func (p *parser) unexpected(off int, context string) *Error {
	c := p.data[off]
	if c < utf8.RuneSelf {
		return p.fail(ErrSyntax, off, fmt.Sprintf("invalid character %q %s", c, context))
	}
	r, size := utf8.DecodeRune(p.data[off:])
	if r == utf8.RuneError && size <= 1 {
		return p.badUTF8(off)
	}
	if r == '\uFEFF' {
		return p.fail(ErrSyntax, off, "unexpected byte order mark (U+FEFF) "+context)
	}
	return p.fail(ErrSyntax, off, fmt.Sprintf("invalid character %q (U+%04X) %s", r, r, context))
}

func (p *parser) badUTF8(off int) *Error {
	return p.fail(ErrUTF8, off, fmt.Sprintf("invalid UTF-8 byte 0x%02x", p.data[off]))
}
