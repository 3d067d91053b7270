package designer

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// This file is a hand-written scanner for Designer XML. It builds the same
// *Element tree that encoding/xml's Decoder.Token (Strict, no entity map,
// UTF-8 only) would let ParseXML build, at a fraction of the cost: one
// pass over the bytes, no token values, names interned, elements and
// attributes allocated in slabs.
//
// It accepts exactly what encoding/xml accepts, quirks included (no
// whitespace needed between attributes, duplicate attributes kept,
// undeclared prefixes kept as the namespace, an XML declaration anywhere),
// with one deliberate exception: outside the root element, only XML white
// space may stand between comments and processing instructions, where
// encoding/xml lets any text, reference or CDATA section through.

const xmlURL = "http://www.w3.org/XML/1998/namespace"

// Character classes of bytes.
const (
	clText  = 1 << iota // plain in character data: no check or decoding needed
	clAttr              // plain in an attribute value (quotes are not)
	clName              // may be part of a name (bytes >= 0x80 included)
	clSpace             // XML white space: space, tab, CR, LF
)

var class = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		plain := b == '\t' || b == '\n' || (b >= 0x20 && b < 0x80)
		if plain && b != '<' && b != '&' && b != ']' {
			t[c] |= clText
		}
		if plain && b != '<' && b != '&' && b != '"' && b != '\'' {
			t[c] |= clAttr
		}
		if 'A' <= b && b <= 'Z' || 'a' <= b && b <= 'z' || '0' <= b && b <= '9' ||
			b == '_' || b == ':' || b == '.' || b == '-' || b >= 0x80 {
			t[c] |= clName
		}
		if b == ' ' || b == '\t' || b == '\r' || b == '\n' {
			t[c] |= clSpace
		}
	}
	return t
}()

// isInCharacterRange reports whether r is an XML Char.
func isInCharacterRange(r rune) bool {
	return r == 0x09 ||
		r == 0x0A ||
		r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

type nsBinding struct{ prefix, uri string }

type openElement struct {
	el                 *Element // nil when the element is skipped
	nameStart, nameEnd int      // the qualified name as written, for the end tag
	nsMark, kidMark    int
	state              uint8 // what of the element is built: a st constant
	// hadKid is set when a child element was skipped: the element then
	// has no Text, as when its children are built.
	hadKid bool
}

// States of an open element: what the scanner builds of it and of its
// children. ParseXML builds everything (stFull); the summary scan of
// ParseDescriptorSummary builds only the skeleton a descriptor's
// interpretation reads, and skips the rest, checked but not built:
//
//	root (stRoot)
//	  first child: the object (stObject); later children: stShell
//	object: Properties (stProps), ChildObjects (stChildObjects)
//	Properties: Name, ConfigurationExtensionPurpose (stShell), Synonym (stSynonym)
//	Synonym: item (stItem)
//	item: lang, content (stShell)
//	ChildObjects: every entry, an object again (stObject)
//
// Children are chosen by local name only, whatever their namespace; what
// is built is exactly what ParseXML builds of it (name, attributes, text,
// Mixed, range), except that its Children list lacks the skipped ones.
const (
	stFull  uint8 = iota // built with all of its subtree
	stSkip               // not built, nor is anything inside
	stShell              // built, its children skipped
	stRoot
	stObject
	stProps
	stSynonym
	stItem
	stChildObjects
)

type rawAttr struct {
	prefix, local, value string
}

// Text modes: what the innermost open element has collected since its
// last start or end tag.
const (
	textNone = iota
	textSpan // data[spanStart:spanEnd], with CRs made LFs if spanCR
	textBuf  // buf, decoded
)

const (
	internMaxLen = 32      // longer strings are not interned
	internSize   = 1 << 12 // entries of the intern table, a power of two
	internMask   = internSize - 1
)

type scanner struct {
	path string
	data []byte
	base int64
	lim  Limits

	open  []openElement
	ns    []nsBinding
	nsGen int // counts changes of ns
	// The last lookup in ns, valid while nsGen is nsCacheGen.
	nsCache    nsBinding
	nsCacheGen int
	nsCacheOK  bool
	kids       []*Element // children of open elements, innermost last
	attrs      []rawAttr  // of the start tag being read
	root       *Element

	textMode           int
	spanStart, spanEnd int
	spanCR             bool   // the span has CRs, to become LFs
	buf                []byte // decoded character data
	vbuf               []byte // decoded attribute value

	// intern is a direct-mapped cache of short strings: names, and short
	// values such as "true" or "xs:string", shared by the trees built.
	intern *[internSize]string

	elemSlab []Element
	attrSlab []xml.Attr
	kidSlab  []*Element
	attrGrow int
	kidGrow  int

	// summary selects the summary scan: only the elements the states
	// above keep are built, in scratch memory the scanner keeps from one
	// file to the next, and copied out at the end into three arrays of
	// the exact sizes (see compact).
	summary     bool
	scratch     [][]Element // chunks of scratchChunk elements
	nScratch    int         // elements of scratch in use
	attrScratch []xml.Attr
	kidScratch  []*Element
}

const (
	scratchChunk     = 256
	maxScratchChunks = 32 // kept from one file to the next: about 1 MB
)

var scannerPool = sync.Pool{New: func() any {
	return &scanner{intern: new([internSize]string)}
}}

// scan parses body, the file without its BOM; base is the BOM's length.
// It checks that body is UTF-8 as it goes: every byte is read as part of
// a name, character data, an attribute value, or is checked as part of a
// comment or processing instruction. It builds the whole tree or, if
// summary, only the descriptor skeleton (see the st constants); both check
// the whole of body alike and fail alike.
func scan(path string, body []byte, base int64, lim Limits, summary bool) (*Element, error) {
	s := scannerPool.Get().(*scanner)
	s.path, s.data, s.base, s.lim, s.summary = path, body, base, lim, summary
	root, err := s.run()
	s.release()
	scannerPool.Put(s)
	if err != nil && !utf8.Valid(body) {
		// Invalid UTF-8 anywhere is the error, whatever else is wrong
		// and wherever.
		return nil, &ParseError{Path: path, Reason: ReasonMalformed, Offset: -1, Msg: "not valid UTF-8"}
	}
	return root, err
}

// release drops every reference to the file and to the tree.
func (s *scanner) release() {
	clear(s.open[:cap(s.open)])
	clear(s.kids[:cap(s.kids)])
	clear(s.ns[:cap(s.ns)])
	clear(s.attrs[:cap(s.attrs)])
	s.open, s.kids, s.ns, s.attrs = s.open[:0], s.kids[:0], s.ns[:0], s.attrs[:0]
	s.nsGen++
	s.nsCache = nsBinding{}
	s.path, s.data, s.root = "", nil, nil
	s.elemSlab, s.attrSlab, s.kidSlab = nil, nil, nil
	s.attrGrow, s.kidGrow = 0, 0
	s.summary = false
	for i := 0; i*scratchChunk < s.nScratch; i++ {
		clear(s.scratch[i][:min(scratchChunk, s.nScratch-i*scratchChunk)])
	}
	if len(s.scratch) > maxScratchChunks {
		clear(s.scratch[maxScratchChunks:])
		s.scratch = s.scratch[:maxScratchChunks]
	}
	s.nScratch = 0
	clear(s.attrScratch)
	clear(s.kidScratch)
	s.attrScratch, s.kidScratch = s.attrScratch[:0], s.kidScratch[:0]
	if cap(s.attrScratch) > 1<<14 {
		s.attrScratch = nil
	}
	if cap(s.kidScratch) > 1<<16 {
		s.kidScratch = nil
	}
	s.textMode = textNone
	if cap(s.buf) > 1<<20 {
		s.buf = nil
	}
	if cap(s.vbuf) > 1<<20 {
		s.vbuf = nil
	}
}

func (s *scanner) fail(reason string, off int, msg string) error {
	return &ParseError{Path: s.path, Reason: reason, Offset: s.base + int64(off), Msg: msg}
}

// syntax is a malformed-input error in the style of encoding/xml's
// SyntaxError: the line of the offending byte, then what is wrong.
func (s *scanner) syntax(off int, msg string) error {
	off = min(off, len(s.data))
	line := 1 + bytes.Count(s.data[:off], []byte{'\n'})
	return s.fail(ReasonMalformed, off, fmt.Sprintf("line %d: %s", line, msg))
}

func (s *scanner) eof() error { return s.syntax(len(s.data), "unexpected EOF") }

func (s *scanner) illegal(p int, r rune) error {
	return s.syntax(p, fmt.Sprintf("illegal character code %U", r))
}

// str returns b as a string, interned when short.
func (s *scanner) str(b []byte) string {
	if len(b) > internMaxLen {
		return string(b)
	}
	return s.internBytes(b)
}

func (s *scanner) internBytes(b []byte) string {
	e := &s.intern[hashBytes(b)&internMask]
	if *e == string(b) {
		return *e
	}
	v := string(b)
	*e = v
	return v
}

func hashBytes(b []byte) uint64 {
	const m = 0x9E3779B97F4A7C15
	h := uint64(len(b)) * m
	for len(b) >= 8 {
		h = (h ^ binary.LittleEndian.Uint64(b)) * m
		h ^= h >> 29
		b = b[8:]
	}
	for _, c := range b {
		h = (h ^ uint64(c)) * m
	}
	return h ^ h>>32
}

// Slabs: elements, attribute lists and child lists are cut from arrays
// shared by the tree. Elements are counted ahead: a file has at most one
// per '<' and, with end tags, about half that. Attributes and children
// slabs double from small. Slabs stay under 32 KB, the size beyond which
// the runtime allocates whole pages, slower to get and to give back.
const (
	maxElemSlab = 256  // 120 bytes each
	maxAttrSlab = 512  // 48 bytes each
	maxKidSlab  = 2048 // 8 bytes each
)

func (s *scanner) newElement(pos int) *Element {
	if s.summary {
		i := s.nScratch / scratchChunk
		if i == len(s.scratch) {
			s.scratch = append(s.scratch, make([]Element, scratchChunk))
		}
		el := &s.scratch[i][s.nScratch%scratchChunk]
		s.nScratch++
		return el
	}
	if len(s.elemSlab) == 0 {
		n := bytes.Count(s.data[pos:], []byte{'<'})/2 + 1
		s.elemSlab = make([]Element, min(n, maxElemSlab))
	}
	el := &s.elemSlab[0]
	s.elemSlab = s.elemSlab[1:]
	return el
}

func (s *scanner) newAttrs(n int) []xml.Attr {
	if s.summary {
		// The slice may be left behind in an old array when the
		// scratch grows: its attributes are written once, right away.
		m := len(s.attrScratch)
		s.attrScratch = append(s.attrScratch, make([]xml.Attr, n)...)
		return s.attrScratch[m : m+n : m+n]
	}
	if len(s.attrSlab) < n {
		s.attrGrow = min(max(2*s.attrGrow, 8), maxAttrSlab)
		s.attrSlab = make([]xml.Attr, max(n, s.attrGrow))
	}
	a := s.attrSlab[:n:n]
	s.attrSlab = s.attrSlab[n:]
	return a
}

func (s *scanner) newKids(n int) []*Element {
	if len(s.kidSlab) < n {
		s.kidGrow = min(max(2*s.kidGrow, 8), maxKidSlab)
		s.kidSlab = make([]*Element, max(n, s.kidGrow))
	}
	k := s.kidSlab[:n:n]
	s.kidSlab = s.kidSlab[n:]
	return k
}

// emptyAttrs is what an element without attributes gets: encoding/xml
// gives a non-nil empty slice, and the trees must be equal.
var emptyAttrs = []xml.Attr{}

func (s *scanner) run() (*Element, error) {
	data := s.data
	n := len(data)
	p := 0
	var err error
	for p < n {
		if data[p] != '<' {
			if len(s.open) == 0 {
				start := p
				p = s.skipSpace(p)
				if p < n && data[p] != '<' {
					return nil, s.syntax(start, "text outside the root element")
				}
				continue
			}
			if p, err = s.charData(p); err != nil {
				return nil, err
			}
			continue
		}
		if p+1 >= n {
			return nil, s.eof()
		}
		switch data[p+1] {
		case '/':
			p, err = s.endTag(p)
		case '?':
			p, err = s.procInst(p)
		case '!':
			p, err = s.bang(p)
		default:
			p, err = s.startTag(p)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(s.open) > 0 {
		return nil, s.eof()
	}
	if s.root == nil {
		return nil, s.fail(ReasonMalformed, 0, "no root element")
	}
	if s.summary {
		root := s.compact()
		if root == nil {
			// compact's own check: the scanner, not the input, decides the
			// order, so this is a defect here; it is reported, not raised.
			return nil, s.fail(ReasonMalformed, 0, "internal error: the summary tree is out of order")
		}
		return root, nil
	}
	return s.root, nil
}

// compact copies the tree built in scratch memory out into an array of
// its elements, one of their attributes and one of their child lists,
// and returns its root, or nil if the elements are not in preorder. The elements were built in document order, which
// is the tree's preorder: the root first, each element's children after
// it, each child's subtree before the next child.
func (s *scanner) compact() *Element {
	n := s.nScratch
	els := make([]Element, n)
	nAttrs := 0
	for i := 0; i*scratchChunk < n; i++ {
		chunk := s.scratch[i][:min(scratchChunk, n-i*scratchChunk)]
		copy(els[i*scratchChunk:], chunk)
		for j := range chunk {
			nAttrs += len(chunk[j].Attrs)
		}
	}
	attrs := make([]xml.Attr, nAttrs)
	kids := make([]*Element, n-1)
	for i := range els {
		el := &els[i]
		if k := len(el.Attrs); k > 0 {
			copy(attrs, el.Attrs)
			el.Attrs, attrs = attrs[:k:k], attrs[k:]
		}
	}
	if next, _ := relink(els, kids, 0); next != n {
		return nil
	}
	return &els[0]
}

// relink points the children of els[i] at their copies, the elements
// after it in preorder, and returns the index after its subtree and what
// is left of kids.
func relink(els []Element, kids []*Element, i int) (int, []*Element) {
	el := &els[i]
	k := len(el.Children)
	next := i + 1
	if k == 0 {
		return next, kids
	}
	el.Children, kids = kids[:k:k], kids[k:]
	for j := range el.Children {
		el.Children[j] = &els[next]
		next, kids = relink(els, kids, next)
	}
	return next, kids
}

// name reads a name at p: the longest run of name bytes (ASCII name
// characters and all of UTF-8 beyond ASCII), which must then be a valid
// XML name. It returns the end of the name, where its first colon is and
// how many colons it has. An empty name is no error here: the caller
// says what was expected.
func (s *scanner) name(p int) (end, colon, colons int, err error) {
	data := s.data
	q := p
	ascii := true
	colon = -1
	for q < len(data) {
		c := data[q]
		if class[c]&clName == 0 {
			break
		}
		if c == ':' {
			if colons == 0 {
				colon = q
			}
			colons++
		} else if c >= 0x80 {
			ascii = false
		}
		q++
	}
	if q >= len(data) {
		return q, colon, colons, s.eof()
	}
	if q == p {
		return q, colon, colons, nil
	}
	if ascii {
		c := data[p]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_' || c == ':') {
			return q, colon, colons, s.syntax(p, "invalid XML name: "+string(data[p:q]))
		}
	} else if !isName(data[p:q]) {
		return q, colon, colons, s.syntax(p, "invalid XML name: "+string(data[p:q]))
	}
	return q, colon, colons, nil
}

// qname splits a name read by name as encoding/xml does: one colon with
// something on both sides makes a prefix, otherwise the whole name is the
// local name. (Two colons are an error the caller reports.)
func (s *scanner) qname(p, end, colon, colons int) (prefix, local string) {
	if colons == 1 && colon > p && colon < end-1 {
		return s.internBytes(s.data[p:colon]), s.internBytes(s.data[colon+1 : end])
	}
	return "", s.internBytes(s.data[p:end])
}

func (s *scanner) skipSpace(p int) int {
	for p < len(s.data) && class[s.data[p]]&clSpace != 0 {
		p++
	}
	return p
}

func (s *scanner) lookup(prefix string) (string, bool) {
	if s.nsCacheGen == s.nsGen && s.nsCache.prefix == prefix {
		return s.nsCache.uri, s.nsCacheOK
	}
	for i := len(s.ns) - 1; i >= 0; i-- {
		if s.ns[i].prefix == prefix {
			s.nsCache, s.nsCacheGen, s.nsCacheOK = s.ns[i], s.nsGen, true
			return s.ns[i].uri, true
		}
	}
	s.nsCache, s.nsCacheGen, s.nsCacheOK = nsBinding{prefix: prefix}, s.nsGen, false
	return "", false
}

// startTag reads a start tag at p (data[p] == '<').
func (s *scanner) startTag(p int) (int, error) {
	data := s.data
	n := len(data)
	start := p
	nameStart := p + 1
	nameEnd, colon, colons, err := s.name(nameStart)
	if err != nil {
		return 0, err
	}
	if nameEnd == nameStart || colons > 1 {
		return 0, s.syntax(nameStart, "expected element name after <")
	}
	state := stFull
	if s.summary {
		state = s.childState(nameStart, nameEnd, colon, colons)
	}
	keep := state != stSkip
	var prefix, local string
	if keep {
		prefix, local = s.qname(nameStart, nameEnd, colon, colons)
	}
	p = nameEnd
	attrs := s.attrs[:0]
	empty := false
	for {
		p = s.skipSpace(p)
		if p >= n {
			return 0, s.eof()
		}
		c := data[p]
		if c == '/' {
			if p+1 >= n {
				return 0, s.eof()
			}
			if data[p+1] != '>' {
				return 0, s.syntax(p+1, "expected /> in element")
			}
			p += 2
			empty = true
			break
		}
		if c == '>' {
			p++
			break
		}
		// Like encoding/xml, no white space is required before an
		// attribute.
		aEnd, aColon, aColons, err := s.name(p)
		if err != nil {
			return 0, err
		}
		if aEnd == p || aColons > 1 {
			return 0, s.syntax(p, "expected attribute name in element")
		}
		var aPrefix, aLocal string
		if keep {
			aPrefix, aLocal = s.qname(p, aEnd, aColon, aColons)
		}
		p = s.skipSpace(aEnd)
		if p >= n {
			return 0, s.eof()
		}
		if data[p] != '=' {
			return 0, s.syntax(p, "attribute name without = in element")
		}
		p = s.skipSpace(p + 1)
		if p >= n {
			return 0, s.eof()
		}
		q := data[p]
		if q != '"' && q != '\'' {
			return 0, s.syntax(p, "unquoted or missing attribute value in element")
		}
		var value string
		if value, p, err = s.attrValue(p+1, q, keep); err != nil {
			return 0, err
		}
		if keep {
			attrs = append(attrs, rawAttr{aPrefix, aLocal, value})
		}
	}
	s.attrs = attrs

	// Namespace declarations apply to the element's own name and to all
	// of its attributes, wherever they stand among them.
	nsMark := len(s.ns)
	for _, a := range attrs {
		if a.prefix == "xmlns" {
			s.ns = append(s.ns, nsBinding{a.local, a.value})
		} else if a.prefix == "" && a.local == "xmlns" {
			s.ns = append(s.ns, nsBinding{"", a.value})
		}
	}
	if len(s.ns) != nsMark {
		s.nsGen++
	}

	if len(s.open) >= s.lim.MaxDepth {
		return 0, s.fail(ReasonTooDeep, start, fmt.Sprintf("elements nest deeper than %d", s.lim.MaxDepth))
	}
	if s.root != nil && len(s.open) == 0 {
		return 0, s.fail(ReasonMalformed, start, "a second root element")
	}

	if !keep {
		// A skipped element has a parent (the root is always kept) and
		// declares nothing: its attributes were checked, not kept.
		parent := &s.open[len(s.open)-1]
		parent.hadKid = true
		if parent.el != nil && s.textMode != textNone && !s.blank() {
			parent.el.Mixed = true
		}
		s.textMode = textNone
		s.open = append(s.open, openElement{nameStart: nameStart, nameEnd: nameEnd, nsMark: nsMark, kidMark: len(s.kids), state: stSkip})
		if empty {
			s.closeElement(p)
		}
		return p, nil
	}

	el := s.newElement(start)
	el.Local = local
	el.Start = s.base + int64(start)
	// Name translation as encoding/xml's Decoder.translate does it.
	switch {
	case prefix == "xmlns":
		el.Space = prefix
	case prefix == "xml":
		el.Space = xmlURL
	case prefix == "" && local == "xmlns":
	default:
		if uri, ok := s.lookup(prefix); ok {
			el.Space = uri
		} else {
			el.Space = prefix
		}
	}
	if len(attrs) == 0 {
		el.Attrs = emptyAttrs
	} else {
		el.Attrs = s.newAttrs(len(attrs))
		for i, a := range attrs {
			space := a.prefix
			switch a.prefix {
			case "", "xmlns":
			case "xml":
				space = xmlURL
			default:
				if uri, ok := s.lookup(a.prefix); ok {
					space = uri
				}
			}
			el.Attrs[i] = xml.Attr{Name: xml.Name{Space: space, Local: a.local}, Value: a.value}
		}
	}

	if len(s.open) > 0 {
		if s.textMode != textNone && !s.blank() {
			s.open[len(s.open)-1].el.Mixed = true
		}
		s.kids = append(s.kids, el)
	} else {
		s.root = el
	}
	s.textMode = textNone
	s.open = append(s.open, openElement{el: el, nameStart: nameStart, nameEnd: nameEnd, nsMark: nsMark, kidMark: len(s.kids), state: state})
	if empty {
		s.closeElement(p)
	}
	return p, nil
}

// childState is the state of an element about to open, in the summary
// scan: what of it to build, by the state of its parent and its local
// name (as qname splits it).
func (s *scanner) childState(nameStart, nameEnd, colon, colons int) uint8 {
	if len(s.open) == 0 {
		return stRoot
	}
	top := &s.open[len(s.open)-1]
	local := s.data[nameStart:nameEnd]
	if colons == 1 && colon > nameStart && colon < nameEnd-1 {
		local = s.data[colon+1 : nameEnd]
	}
	switch top.state {
	case stRoot:
		// The object is the root's first child; the others are only
		// reported.
		if len(s.kids) > top.kidMark {
			return stShell
		}
		return stObject
	case stObject:
		switch string(local) {
		case "Properties":
			return stProps
		case "ChildObjects":
			return stChildObjects
		}
	case stProps:
		switch string(local) {
		case "Name", "ConfigurationExtensionPurpose":
			return stShell
		case "Synonym":
			return stSynonym
		}
	case stSynonym:
		if string(local) == "item" {
			return stItem
		}
	case stItem:
		if string(local) == "lang" || string(local) == "content" {
			return stShell
		}
	case stChildObjects:
		return stObject
	}
	return stSkip
}

// endTag reads an end tag at p (data[p:p+2] == "</").
func (s *scanner) endTag(p int) (int, error) {
	data := s.data
	nameStart := p + 2
	// Most often the end tag is right: the open element's name, already
	// checked, then a byte that cannot continue a name.
	if len(s.open) > 0 {
		top := &s.open[len(s.open)-1]
		open := data[top.nameStart:top.nameEnd]
		if e := nameStart + len(open); e < len(data) && class[data[e]]&clName == 0 && bytes.Equal(data[nameStart:e], open) {
			if data[e] == '>' {
				s.closeElement(e + 1)
				return e + 1, nil
			}
		}
	}
	nameEnd, _, colons, err := s.name(nameStart)
	if err != nil {
		return 0, err
	}
	if nameEnd == nameStart || colons > 1 {
		return 0, s.syntax(nameStart, "expected element name after </")
	}
	name := data[nameStart:nameEnd]
	p = s.skipSpace(nameEnd)
	if p >= len(data) {
		return 0, s.eof()
	}
	if data[p] != '>' {
		return 0, s.syntax(p, "invalid characters between </"+string(name)+" and >")
	}
	p++
	if len(s.open) == 0 {
		return 0, s.syntax(nameStart, "unexpected end element </"+string(name)+">")
	}
	// The same prefix and local name as written, as encoding/xml
	// requires: equal strings, since splitting a name is a function of it.
	top := &s.open[len(s.open)-1]
	if open := data[top.nameStart:top.nameEnd]; !bytes.Equal(open, name) {
		return 0, s.syntax(nameStart, "element <"+string(open)+"> closed by </"+string(name)+">")
	}
	s.closeElement(p)
	return p, nil
}

// closeElement ends the innermost open element; end is just past its '>'.
func (s *scanner) closeElement(end int) {
	top := s.open[len(s.open)-1]
	s.open = s.open[:len(s.open)-1]
	el := top.el
	if el == nil {
		// Skipped: nothing to build, no namespaces declared.
		s.textMode = textNone
		return
	}
	el.End = s.base + int64(end)
	k := len(s.kids) - top.kidMark
	if k > 0 {
		if s.summary {
			m := len(s.kidScratch)
			s.kidScratch = append(s.kidScratch, s.kids[top.kidMark:]...)
			el.Children = s.kidScratch[m : m+k : m+k]
		} else {
			el.Children = s.newKids(k)
			copy(el.Children, s.kids[top.kidMark:])
		}
		clear(s.kids[top.kidMark:])
		s.kids = s.kids[:top.kidMark]
	}
	if k > 0 || top.hadKid {
		if s.textMode != textNone && !s.blank() {
			el.Mixed = true
		}
	} else {
		switch s.textMode {
		case textSpan:
			if s.spanCR {
				s.buf = appendLF(s.buf[:0], s.data[s.spanStart:s.spanEnd])
				el.Text = s.str(s.buf)
			} else {
				el.Text = s.str(s.data[s.spanStart:s.spanEnd])
			}
		case textBuf:
			el.Text = s.str(s.buf)
		}
	}
	s.textMode = textNone
	if len(s.ns) != top.nsMark {
		clear(s.ns[top.nsMark:])
		s.ns = s.ns[:top.nsMark]
		s.nsGen++
	}
}

// blank reports whether the collected text is all white space, as
// strings.TrimSpace sees it. CRs not yet made LFs do not matter: both are
// white space.
func (s *scanner) blank() bool {
	switch s.textMode {
	case textSpan:
		return len(bytes.TrimSpace(s.data[s.spanStart:s.spanEnd])) == 0
	case textBuf:
		return len(bytes.TrimSpace(s.buf)) == 0
	}
	return true
}

// appendLF appends src to dst with CR LF and lone CR made LF.
func appendLF(dst, src []byte) []byte {
	for {
		i := bytes.IndexByte(src, '\r')
		if i < 0 {
			return append(dst, src...)
		}
		dst = append(append(dst, src[:i]...), '\n')
		src = src[i+1:]
		if len(src) > 0 && src[0] == '\n' {
			src = src[1:]
		}
	}
}

// addSpan adds data[a:b], which needs no decoding but, if cr, turning its
// CRs into LFs, to the collected text.
func (s *scanner) addSpan(a, b int, cr bool) {
	if s.textMode == textNone {
		s.textMode, s.spanStart, s.spanEnd, s.spanCR = textSpan, a, b, cr
		return
	}
	s.toBuf()
	if cr {
		s.buf = appendLF(s.buf, s.data[a:b])
	} else {
		s.buf = append(s.buf, s.data[a:b]...)
	}
}

// toBuf turns the collected text into buf, for more to be appended.
func (s *scanner) toBuf() {
	switch s.textMode {
	case textNone:
		s.buf = s.buf[:0]
	case textSpan:
		if s.spanCR {
			s.buf = appendLF(s.buf[:0], s.data[s.spanStart:s.spanEnd])
		} else {
			s.buf = append(s.buf[:0], s.data[s.spanStart:s.spanEnd]...)
		}
	}
	s.textMode = textBuf
}

// charData reads character data inside an element, up to the next '<'.
func (s *scanner) charData(p int) (int, error) {
	data := s.data
	n := len(data)
	start := p
	cr := false
	for p < n {
		c := data[p]
		if class[c]&clText != 0 {
			p++
			continue
		}
		switch c {
		case '<':
			s.addSpan(start, p, cr)
			return p, nil
		case '\r':
			cr = true
			p++
		case ']':
			if p+2 < n && data[p+1] == ']' && data[p+2] == '>' {
				return 0, s.syntax(p, "unescaped ]]> not in CDATA section")
			}
			p++
		case '&':
			s.toBuf()
			var err error
			s.buf, p, err = s.decode(s.buf, start, 0)
			return p, err
		default:
			if c >= 0xC2 && c <= 0xDF && p+1 < n && data[p+1]&0xC0 == 0x80 {
				p += 2 // Cyrillic
				continue
			}
			if c < 0x80 {
				return 0, s.illegal(p, rune(c))
			}
			var err error
			if p, err = s.char(p); err != nil {
				return 0, err
			}
		}
	}
	s.addSpan(start, p, cr)
	return p, nil
}

// char checks the UTF-8 sequence at p (data[p] >= 0x80) and that it is an
// XML character, and returns the position after it. Cyrillic, two bytes,
// is the common case.
func (s *scanner) char(p int) (int, error) {
	d := s.data
	if c := d[p]; c >= 0xC2 && c <= 0xDF && p+1 < len(d) && d[p+1]&0xC0 == 0x80 {
		return p + 2, nil
	}
	r, size := utf8.DecodeRune(d[p:])
	if r == utf8.RuneError && size == 1 {
		return 0, s.syntax(p, "invalid UTF-8")
	}
	if r == 0xFFFE || r == 0xFFFF {
		return 0, s.illegal(p, r)
	}
	return p + size, nil
}

// attrValue reads an attribute value after its opening quote q, returning
// it (if keep, else "": the value is only checked) and the position past
// the closing quote.
func (s *scanner) attrValue(p int, q byte, keep bool) (string, int, error) {
	data := s.data
	n := len(data)
	start := p
	for p < n {
		c := data[p]
		if class[c]&clAttr != 0 {
			p++
			continue
		}
		switch c {
		case q:
			if !keep {
				return "", p + 1, nil
			}
			return s.str(data[start:p]), p + 1, nil
		case '"', '\'':
			p++
		case '<':
			return "", 0, s.syntax(p, "unescaped < inside quoted string")
		case '&', '\r':
			var err error
			if s.vbuf, p, err = s.decode(s.vbuf[:0], start, q); err != nil {
				return "", 0, err
			}
			if !keep {
				return "", p, nil
			}
			return s.str(s.vbuf), p, nil
		default:
			if c >= 0xC2 && c <= 0xDF && p+1 < n && data[p+1]&0xC0 == 0x80 {
				p += 2 // Cyrillic
				continue
			}
			if c < 0x80 {
				return "", 0, s.illegal(p, rune(c))
			}
			var err error
			if p, err = s.char(p); err != nil {
				return "", 0, err
			}
		}
	}
	return "", 0, s.eof()
}

// decode appends the character data (q == 0) or attribute value at p to
// dst, resolving references and turning CR LF and lone CR into LF, up to
// '<' (character data) or the closing quote (attribute value, whose end it
// returns past the quote).
func (s *scanner) decode(dst []byte, p int, q byte) ([]byte, int, error) {
	data := s.data
	n := len(data)
	plain := uint8(clText)
	if q != 0 {
		plain = clAttr
	}
	for p < n {
		// A run of bytes to copy as they are.
		start := p
		for p < n {
			c := data[p]
			if class[c]&plain != 0 {
				p++
				continue
			}
			if c >= 0x80 {
				next, err := s.char(p)
				if err != nil {
					return dst, 0, err
				}
				p = next
				continue
			}
			if q != 0 && c != q && (c == '"' || c == '\'') {
				p++
				continue
			}
			break
		}
		dst = append(dst, data[start:p]...)
		if p >= n {
			break
		}
		switch c := data[p]; {
		case c == '<':
			if q != 0 {
				return dst, 0, s.syntax(p, "unescaped < inside quoted string")
			}
			return dst, p, nil
		case q != 0 && c == q:
			return dst, p + 1, nil
		case c == '\r':
			dst = append(dst, '\n')
			p++
			if p < n && data[p] == '\n' {
				p++
			}
		case c == '&':
			var err error
			if dst, p, err = s.reference(dst, p); err != nil {
				return dst, 0, err
			}
		case c == ']' && q == 0:
			if p+2 < n && data[p+1] == ']' && data[p+2] == '>' {
				return dst, 0, s.syntax(p, "unescaped ]]> not in CDATA section")
			}
			dst = append(dst, c)
			p++
		default:
			return dst, 0, s.illegal(p, rune(c))
		}
	}
	if q != 0 {
		return dst, 0, s.eof()
	}
	return dst, p, nil
}

var entities = [...]struct {
	name string // with the semicolon
	r    byte
}{{"lt;", '<'}, {"gt;", '>'}, {"amp;", '&'}, {"apos;", '\''}, {"quot;", '"'}}

// reference decodes the entity or character reference at p (data[p] ==
// '&') onto dst. Only the five predefined entities exist; a character
// reference is &#N; or &#xH; (a lower-case x, as encoding/xml has it).
func (s *scanner) reference(dst []byte, p int) ([]byte, int, error) {
	data := s.data
	n := len(data)
	q := p + 1
	if q < n && data[q] == '#' {
		q++
		hex := q < n && data[q] == 'x'
		if hex {
			q++
		}
		digits := q
		var v uint64
	Digits:
		for q < n {
			c := data[q]
			var d uint64
			switch {
			case '0' <= c && c <= '9':
				d = uint64(c - '0')
			case hex && 'a' <= c && c <= 'f':
				d = uint64(c-'a') + 10
			case hex && 'A' <= c && c <= 'F':
				d = uint64(c-'A') + 10
			default:
				break Digits
			}
			if v <= unicode.MaxRune { // once past it, v only grows
				if hex {
					v = v*16 + d
				} else {
					v = v*10 + d
				}
			}
			q++
		}
		if q >= n {
			return dst, 0, s.eof()
		}
		if data[q] != ';' || q == digits || v > unicode.MaxRune {
			return dst, 0, s.syntax(p, "invalid character entity "+string(data[p:q+1]))
		}
		r := rune(v)
		if !utf8.ValidRune(r) {
			r = utf8.RuneError // a surrogate, as string(rune(v)) has it
		}
		if !isInCharacterRange(r) {
			return dst, 0, s.illegal(p, r)
		}
		return utf8.AppendRune(dst, r), q + 1, nil
	}
	rest := data[q:]
	for _, e := range entities {
		if len(rest) >= len(e.name) && string(rest[:len(e.name)]) == e.name {
			return append(dst, e.r), q + len(e.name), nil
		}
	}
	end := q
	for end < n && class[data[end]]&clName != 0 {
		end++
	}
	if end >= n {
		return dst, 0, s.eof()
	}
	return dst, 0, s.syntax(p, "invalid character entity "+string(data[p:end+1]))
}

// procInst skips a processing instruction at p (data[p:p+2] == "<?"),
// checking an XML declaration's version and encoding. Like encoding/xml,
// it takes any PI with the target xml for a declaration, wherever it is.
func (s *scanner) procInst(p int) (int, error) {
	data := s.data
	tStart := p + 2
	tEnd, _, _, err := s.name(tStart)
	if err != nil {
		return 0, err
	}
	if tEnd == tStart {
		return 0, s.syntax(tStart, "expected target name after <?")
	}
	q := s.skipSpace(tEnd)
	i := bytes.Index(data[q:], []byte("?>"))
	if i < 0 {
		return 0, s.eof()
	}
	end := q + i + 2
	if !utf8.Valid(data[q : q+i]) {
		return 0, s.syntax(q, "invalid UTF-8")
	}
	if string(data[tStart:tEnd]) == "xml" {
		content := string(data[q : q+i])
		if ver := procInstParam("version", content); ver != "" && ver != "1.0" {
			return 0, s.fail(ReasonMalformed, end, fmt.Sprintf("xml: unsupported version %q; only version 1.0 is supported", ver))
		}
		if enc := procInstParam("encoding", content); enc != "" && !strings.EqualFold(enc, "utf-8") {
			return 0, s.fail(ReasonMalformed, end, fmt.Sprintf("xml: opening charset %q: encoding %q is not UTF-8", enc, enc))
		}
	}
	return end, nil
}

// procInstParam is encoding/xml's procInst: the param="..." or
// param='...' value out of s, "" if not found. Its quirks are kept on
// purpose, so that the same declarations pass.
func procInstParam(param, s string) string {
	param = param + "="
	lenp := len(param)
	i := 0
	var sep byte
	for i < len(s) {
		sub := s[i:]
		k := strings.Index(sub, param)
		if k < 0 || lenp+k >= len(sub) {
			return ""
		}
		i += lenp + k + 1
		if c := sub[lenp+k]; c == '\'' || c == '"' {
			sep = c
			break
		}
	}
	if sep == 0 {
		return ""
	}
	j := strings.IndexByte(s[i:], sep)
	if j < 0 {
		return ""
	}
	return s[i : i+j]
}

// bang reads what starts with "<!" at p: a comment or a CDATA section.
// Anything else is a directive, which is refused.
func (s *scanner) bang(p int) (int, error) {
	data := s.data
	n := len(data)
	if p+2 >= n {
		return 0, s.eof()
	}
	switch data[p+2] {
	case '-':
		if p+3 >= n {
			return 0, s.eof()
		}
		if data[p+3] != '-' {
			return 0, s.syntax(p+3, "invalid sequence <!- not part of <!--")
		}
		q := p + 4
		i := bytes.Index(data[q:], []byte("--"))
		if i < 0 || q+i+2 >= n {
			return 0, s.eof()
		}
		if data[q+i+2] != '>' {
			return 0, s.syntax(q+i+2, `invalid sequence "--" not allowed in comments`)
		}
		if !utf8.Valid(data[q : q+i]) {
			return 0, s.syntax(q, "invalid UTF-8")
		}
		return q + i + 3, nil
	case '[':
		q := p + 3
		for i := 0; i < len("CDATA["); i++ {
			if q+i >= n {
				return 0, s.eof()
			}
			if data[q+i] != "CDATA["[i] {
				return 0, s.syntax(q+i, "invalid <![ sequence")
			}
		}
		q += len("CDATA[")
		i := bytes.Index(data[q:], []byte("]]>"))
		if i < 0 {
			return 0, s.syntax(n, "unexpected EOF in CDATA section")
		}
		if len(s.open) == 0 {
			return 0, s.syntax(p, "text outside the root element")
		}
		if err := s.cdata(q, q+i); err != nil {
			return 0, err
		}
		return q + i + 3, nil
	}
	return 0, s.fail(ReasonMalformed, p, "a DTD or other directive is not allowed")
}

// cdata adds the content of a CDATA section, data[a:b], to the collected
// text.
func (s *scanner) cdata(a, b int) error {
	data := s.data
	cr := false
	for p := a; p < b; {
		c := data[p]
		switch {
		case c >= 0x80:
			var err error
			if p, err = s.char(p); err != nil {
				return err
			}
			continue
		case c == '\r':
			cr = true
		case c < 0x20 && c != '\t' && c != '\n':
			return s.illegal(p, rune(c))
		}
		p++
	}
	s.addSpan(a, b, cr)
	return nil
}

// isName reports whether b is an XML name as encoding/xml checks it:
// a first character from the table first, the rest from first or second.
func isName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	c, n := utf8.DecodeRune(b)
	if c == utf8.RuneError && n == 1 {
		return false
	}
	if !unicode.Is(first, c) {
		return false
	}
	for n < len(b) {
		b = b[n:]
		c, n = utf8.DecodeRune(b)
		if c == utf8.RuneError && n == 1 {
			return false
		}
		if !unicode.Is(first, c) && !unicode.Is(second, c) {
			return false
		}
	}
	return true
}

// The name character tables of encoding/xml (Go 1.26, BSD licence), cut
// from Appendix B of XML 1.0: first is Letter | '_' | ':', second the
// rest of NameChar.

var first = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x003A, 0x003A, 1},
		{0x0041, 0x005A, 1},
		{0x005F, 0x005F, 1},
		{0x0061, 0x007A, 1},
		{0x00C0, 0x00D6, 1},
		{0x00D8, 0x00F6, 1},
		{0x00F8, 0x00FF, 1},
		{0x0100, 0x0131, 1},
		{0x0134, 0x013E, 1},
		{0x0141, 0x0148, 1},
		{0x014A, 0x017E, 1},
		{0x0180, 0x01C3, 1},
		{0x01CD, 0x01F0, 1},
		{0x01F4, 0x01F5, 1},
		{0x01FA, 0x0217, 1},
		{0x0250, 0x02A8, 1},
		{0x02BB, 0x02C1, 1},
		{0x0386, 0x0386, 1},
		{0x0388, 0x038A, 1},
		{0x038C, 0x038C, 1},
		{0x038E, 0x03A1, 1},
		{0x03A3, 0x03CE, 1},
		{0x03D0, 0x03D6, 1},
		{0x03DA, 0x03E0, 2},
		{0x03E2, 0x03F3, 1},
		{0x0401, 0x040C, 1},
		{0x040E, 0x044F, 1},
		{0x0451, 0x045C, 1},
		{0x045E, 0x0481, 1},
		{0x0490, 0x04C4, 1},
		{0x04C7, 0x04C8, 1},
		{0x04CB, 0x04CC, 1},
		{0x04D0, 0x04EB, 1},
		{0x04EE, 0x04F5, 1},
		{0x04F8, 0x04F9, 1},
		{0x0531, 0x0556, 1},
		{0x0559, 0x0559, 1},
		{0x0561, 0x0586, 1},
		{0x05D0, 0x05EA, 1},
		{0x05F0, 0x05F2, 1},
		{0x0621, 0x063A, 1},
		{0x0641, 0x064A, 1},
		{0x0671, 0x06B7, 1},
		{0x06BA, 0x06BE, 1},
		{0x06C0, 0x06CE, 1},
		{0x06D0, 0x06D3, 1},
		{0x06D5, 0x06D5, 1},
		{0x06E5, 0x06E6, 1},
		{0x0905, 0x0939, 1},
		{0x093D, 0x093D, 1},
		{0x0958, 0x0961, 1},
		{0x0985, 0x098C, 1},
		{0x098F, 0x0990, 1},
		{0x0993, 0x09A8, 1},
		{0x09AA, 0x09B0, 1},
		{0x09B2, 0x09B2, 1},
		{0x09B6, 0x09B9, 1},
		{0x09DC, 0x09DD, 1},
		{0x09DF, 0x09E1, 1},
		{0x09F0, 0x09F1, 1},
		{0x0A05, 0x0A0A, 1},
		{0x0A0F, 0x0A10, 1},
		{0x0A13, 0x0A28, 1},
		{0x0A2A, 0x0A30, 1},
		{0x0A32, 0x0A33, 1},
		{0x0A35, 0x0A36, 1},
		{0x0A38, 0x0A39, 1},
		{0x0A59, 0x0A5C, 1},
		{0x0A5E, 0x0A5E, 1},
		{0x0A72, 0x0A74, 1},
		{0x0A85, 0x0A8B, 1},
		{0x0A8D, 0x0A8D, 1},
		{0x0A8F, 0x0A91, 1},
		{0x0A93, 0x0AA8, 1},
		{0x0AAA, 0x0AB0, 1},
		{0x0AB2, 0x0AB3, 1},
		{0x0AB5, 0x0AB9, 1},
		{0x0ABD, 0x0AE0, 0x23},
		{0x0B05, 0x0B0C, 1},
		{0x0B0F, 0x0B10, 1},
		{0x0B13, 0x0B28, 1},
		{0x0B2A, 0x0B30, 1},
		{0x0B32, 0x0B33, 1},
		{0x0B36, 0x0B39, 1},
		{0x0B3D, 0x0B3D, 1},
		{0x0B5C, 0x0B5D, 1},
		{0x0B5F, 0x0B61, 1},
		{0x0B85, 0x0B8A, 1},
		{0x0B8E, 0x0B90, 1},
		{0x0B92, 0x0B95, 1},
		{0x0B99, 0x0B9A, 1},
		{0x0B9C, 0x0B9C, 1},
		{0x0B9E, 0x0B9F, 1},
		{0x0BA3, 0x0BA4, 1},
		{0x0BA8, 0x0BAA, 1},
		{0x0BAE, 0x0BB5, 1},
		{0x0BB7, 0x0BB9, 1},
		{0x0C05, 0x0C0C, 1},
		{0x0C0E, 0x0C10, 1},
		{0x0C12, 0x0C28, 1},
		{0x0C2A, 0x0C33, 1},
		{0x0C35, 0x0C39, 1},
		{0x0C60, 0x0C61, 1},
		{0x0C85, 0x0C8C, 1},
		{0x0C8E, 0x0C90, 1},
		{0x0C92, 0x0CA8, 1},
		{0x0CAA, 0x0CB3, 1},
		{0x0CB5, 0x0CB9, 1},
		{0x0CDE, 0x0CDE, 1},
		{0x0CE0, 0x0CE1, 1},
		{0x0D05, 0x0D0C, 1},
		{0x0D0E, 0x0D10, 1},
		{0x0D12, 0x0D28, 1},
		{0x0D2A, 0x0D39, 1},
		{0x0D60, 0x0D61, 1},
		{0x0E01, 0x0E2E, 1},
		{0x0E30, 0x0E30, 1},
		{0x0E32, 0x0E33, 1},
		{0x0E40, 0x0E45, 1},
		{0x0E81, 0x0E82, 1},
		{0x0E84, 0x0E84, 1},
		{0x0E87, 0x0E88, 1},
		{0x0E8A, 0x0E8D, 3},
		{0x0E94, 0x0E97, 1},
		{0x0E99, 0x0E9F, 1},
		{0x0EA1, 0x0EA3, 1},
		{0x0EA5, 0x0EA7, 2},
		{0x0EAA, 0x0EAB, 1},
		{0x0EAD, 0x0EAE, 1},
		{0x0EB0, 0x0EB0, 1},
		{0x0EB2, 0x0EB3, 1},
		{0x0EBD, 0x0EBD, 1},
		{0x0EC0, 0x0EC4, 1},
		{0x0F40, 0x0F47, 1},
		{0x0F49, 0x0F69, 1},
		{0x10A0, 0x10C5, 1},
		{0x10D0, 0x10F6, 1},
		{0x1100, 0x1100, 1},
		{0x1102, 0x1103, 1},
		{0x1105, 0x1107, 1},
		{0x1109, 0x1109, 1},
		{0x110B, 0x110C, 1},
		{0x110E, 0x1112, 1},
		{0x113C, 0x1140, 2},
		{0x114C, 0x1150, 2},
		{0x1154, 0x1155, 1},
		{0x1159, 0x1159, 1},
		{0x115F, 0x1161, 1},
		{0x1163, 0x1169, 2},
		{0x116D, 0x116E, 1},
		{0x1172, 0x1173, 1},
		{0x1175, 0x119E, 0x119E - 0x1175},
		{0x11A8, 0x11AB, 0x11AB - 0x11A8},
		{0x11AE, 0x11AF, 1},
		{0x11B7, 0x11B8, 1},
		{0x11BA, 0x11BA, 1},
		{0x11BC, 0x11C2, 1},
		{0x11EB, 0x11F0, 0x11F0 - 0x11EB},
		{0x11F9, 0x11F9, 1},
		{0x1E00, 0x1E9B, 1},
		{0x1EA0, 0x1EF9, 1},
		{0x1F00, 0x1F15, 1},
		{0x1F18, 0x1F1D, 1},
		{0x1F20, 0x1F45, 1},
		{0x1F48, 0x1F4D, 1},
		{0x1F50, 0x1F57, 1},
		{0x1F59, 0x1F5B, 0x1F5B - 0x1F59},
		{0x1F5D, 0x1F5D, 1},
		{0x1F5F, 0x1F7D, 1},
		{0x1F80, 0x1FB4, 1},
		{0x1FB6, 0x1FBC, 1},
		{0x1FBE, 0x1FBE, 1},
		{0x1FC2, 0x1FC4, 1},
		{0x1FC6, 0x1FCC, 1},
		{0x1FD0, 0x1FD3, 1},
		{0x1FD6, 0x1FDB, 1},
		{0x1FE0, 0x1FEC, 1},
		{0x1FF2, 0x1FF4, 1},
		{0x1FF6, 0x1FFC, 1},
		{0x2126, 0x2126, 1},
		{0x212A, 0x212B, 1},
		{0x212E, 0x212E, 1},
		{0x2180, 0x2182, 1},
		{0x3007, 0x3007, 1},
		{0x3021, 0x3029, 1},
		{0x3041, 0x3094, 1},
		{0x30A1, 0x30FA, 1},
		{0x3105, 0x312C, 1},
		{0x4E00, 0x9FA5, 1},
		{0xAC00, 0xD7A3, 1},
	},
}

var second = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x002D, 0x002E, 1},
		{0x0030, 0x0039, 1},
		{0x00B7, 0x00B7, 1},
		{0x02D0, 0x02D1, 1},
		{0x0300, 0x0345, 1},
		{0x0360, 0x0361, 1},
		{0x0387, 0x0387, 1},
		{0x0483, 0x0486, 1},
		{0x0591, 0x05A1, 1},
		{0x05A3, 0x05B9, 1},
		{0x05BB, 0x05BD, 1},
		{0x05BF, 0x05BF, 1},
		{0x05C1, 0x05C2, 1},
		{0x05C4, 0x0640, 0x0640 - 0x05C4},
		{0x064B, 0x0652, 1},
		{0x0660, 0x0669, 1},
		{0x0670, 0x0670, 1},
		{0x06D6, 0x06DC, 1},
		{0x06DD, 0x06DF, 1},
		{0x06E0, 0x06E4, 1},
		{0x06E7, 0x06E8, 1},
		{0x06EA, 0x06ED, 1},
		{0x06F0, 0x06F9, 1},
		{0x0901, 0x0903, 1},
		{0x093C, 0x093C, 1},
		{0x093E, 0x094C, 1},
		{0x094D, 0x094D, 1},
		{0x0951, 0x0954, 1},
		{0x0962, 0x0963, 1},
		{0x0966, 0x096F, 1},
		{0x0981, 0x0983, 1},
		{0x09BC, 0x09BC, 1},
		{0x09BE, 0x09BF, 1},
		{0x09C0, 0x09C4, 1},
		{0x09C7, 0x09C8, 1},
		{0x09CB, 0x09CD, 1},
		{0x09D7, 0x09D7, 1},
		{0x09E2, 0x09E3, 1},
		{0x09E6, 0x09EF, 1},
		{0x0A02, 0x0A3C, 0x3A},
		{0x0A3E, 0x0A3F, 1},
		{0x0A40, 0x0A42, 1},
		{0x0A47, 0x0A48, 1},
		{0x0A4B, 0x0A4D, 1},
		{0x0A66, 0x0A6F, 1},
		{0x0A70, 0x0A71, 1},
		{0x0A81, 0x0A83, 1},
		{0x0ABC, 0x0ABC, 1},
		{0x0ABE, 0x0AC5, 1},
		{0x0AC7, 0x0AC9, 1},
		{0x0ACB, 0x0ACD, 1},
		{0x0AE6, 0x0AEF, 1},
		{0x0B01, 0x0B03, 1},
		{0x0B3C, 0x0B3C, 1},
		{0x0B3E, 0x0B43, 1},
		{0x0B47, 0x0B48, 1},
		{0x0B4B, 0x0B4D, 1},
		{0x0B56, 0x0B57, 1},
		{0x0B66, 0x0B6F, 1},
		{0x0B82, 0x0B83, 1},
		{0x0BBE, 0x0BC2, 1},
		{0x0BC6, 0x0BC8, 1},
		{0x0BCA, 0x0BCD, 1},
		{0x0BD7, 0x0BD7, 1},
		{0x0BE7, 0x0BEF, 1},
		{0x0C01, 0x0C03, 1},
		{0x0C3E, 0x0C44, 1},
		{0x0C46, 0x0C48, 1},
		{0x0C4A, 0x0C4D, 1},
		{0x0C55, 0x0C56, 1},
		{0x0C66, 0x0C6F, 1},
		{0x0C82, 0x0C83, 1},
		{0x0CBE, 0x0CC4, 1},
		{0x0CC6, 0x0CC8, 1},
		{0x0CCA, 0x0CCD, 1},
		{0x0CD5, 0x0CD6, 1},
		{0x0CE6, 0x0CEF, 1},
		{0x0D02, 0x0D03, 1},
		{0x0D3E, 0x0D43, 1},
		{0x0D46, 0x0D48, 1},
		{0x0D4A, 0x0D4D, 1},
		{0x0D57, 0x0D57, 1},
		{0x0D66, 0x0D6F, 1},
		{0x0E31, 0x0E31, 1},
		{0x0E34, 0x0E3A, 1},
		{0x0E46, 0x0E46, 1},
		{0x0E47, 0x0E4E, 1},
		{0x0E50, 0x0E59, 1},
		{0x0EB1, 0x0EB1, 1},
		{0x0EB4, 0x0EB9, 1},
		{0x0EBB, 0x0EBC, 1},
		{0x0EC6, 0x0EC6, 1},
		{0x0EC8, 0x0ECD, 1},
		{0x0ED0, 0x0ED9, 1},
		{0x0F18, 0x0F19, 1},
		{0x0F20, 0x0F29, 1},
		{0x0F35, 0x0F39, 2},
		{0x0F3E, 0x0F3F, 1},
		{0x0F71, 0x0F84, 1},
		{0x0F86, 0x0F8B, 1},
		{0x0F90, 0x0F95, 1},
		{0x0F97, 0x0F97, 1},
		{0x0F99, 0x0FAD, 1},
		{0x0FB1, 0x0FB7, 1},
		{0x0FB9, 0x0FB9, 1},
		{0x20D0, 0x20DC, 1},
		{0x20E1, 0x3005, 0x3005 - 0x20E1},
		{0x302A, 0x302F, 1},
		{0x3031, 0x3035, 1},
		{0x3099, 0x309A, 1},
		{0x309D, 0x309E, 1},
		{0x30FC, 0x30FE, 1},
	},
}
