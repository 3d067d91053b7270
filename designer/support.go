package designer

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// SupportFile is where a Designer export keeps its vendor support
// settings, relative to the configuration's source directory.
const SupportFile = "Ext/ParentConfigurations.bin"

// SupportMode is the edit mode a vendor's rule gives an object.
type SupportMode uint8

// The modes, as the file writes them.
const (
	// SupportNotEditable: the vendor's object may not be changed.
	SupportNotEditable SupportMode = 0
	// SupportEditable: it may be changed; vendor support is kept.
	SupportEditable SupportMode = 1
	// SupportRemoved: it was taken off the vendor's support.
	SupportRemoved SupportMode = 2
)

// restrictiveness orders modes from the most to the least restrictive.
func (m SupportMode) restrictiveness() int {
	switch m {
	case SupportNotEditable:
		return 0
	case SupportEditable:
		return 1
	}
	return 2
}

// Support is a parsed ParentConfigurations.bin: whether the configuration
// may be changed at all, and per vendor configuration the rule of each of
// its objects.
type Support struct {
	Path string
	// ChangesAllowed is false when the configuration's own mode forbids
	// every change, whatever the rules of single objects say.
	ChangesAllowed bool
	Vendors        []SupportVendor
	// Trailer counts the integers after the last vendor block; their
	// meaning is not known and they are kept only to prove that the whole
	// file was read.
	Trailer int

	byUUID map[string][]ruleRef
}

// SupportVendor is one vendor configuration the project is supported by.
type SupportVendor struct {
	// Snapshot identifies this copy of the vendor's settings; ID is the
	// vendor configuration's own stable id.
	Snapshot, ID          string
	Version, Vendor, Name string
	Rules                 []SupportRule
	Offset                int64 // where its block starts
}

// SupportRule is one object rule of a vendor.
type SupportRule struct {
	Mode SupportMode
	// Local is the object's uuid in this configuration, Original the one
	// in the vendor's; they usually agree.
	Local, Original string
	Offset          int64 // where the rule starts
}

type ruleRef struct{ vendor, rule int }

// SupportLimits bound what reading a support file may cost.
type SupportLimits struct {
	MaxBytes int // the file
	MaxDepth int // nesting of brace lists
}

// DefaultSupportLimits are far above real files (SSL 3.1's is 633 KB and
// flat) and far below what would hurt; the size is the IDE API's.
var DefaultSupportLimits = SupportLimits{MaxBytes: gen.MaxSupportFileBytes, MaxDepth: 32}

// supportFormat is the first number of every support file this reader
// knows.
const supportFormat = 6

// Rule returns the rule that decides what may be done with the object of
// the given uuid: when several vendors have one, the most restrictive,
// since changing the object would break the support of that vendor. It
// reports false when no vendor has a rule for it.
func (s *Support) Rule(uuid string) (SupportMode, int, bool) {
	refs := s.byUUID[strings.ToLower(uuid)]
	if len(refs) == 0 {
		return 0, -1, false
	}
	best := refs[0]
	for _, r := range refs[1:] {
		if s.Vendors[r.vendor].Rules[r.rule].Mode.restrictiveness() < s.Vendors[best.vendor].Rules[best.rule].Mode.restrictiveness() {
			best = r
		}
	}
	return s.Vendors[best.vendor].Rules[best.rule].Mode, best.vendor, true
}

// RuleCount is the number of object rules of all vendors.
func (s *Support) RuleCount() int {
	n := 0
	for _, v := range s.Vendors {
		n += len(v.Rules)
	}
	return n
}

// ParseSupport reads a ParentConfigurations.bin: UTF-8 (a BOM allowed)
// holding one brace list
//
//	{6, changes, vendors, <vendor block> [, 0, 0, <vendor block>]... [, <integer>]...}
//
// where changes is 0 when the configuration may be changed and 1 when it
// may not, and each vendor block is
//
//	snapshot-uuid, flag, vendor-uuid, "version", "vendor", "name", count,
//	count × (mode, flag, local-uuid [, vendor-uuid])
//
// with mode 0 (not editable), 1 (editable, support kept) or 2 (removed
// from support). Strings are quoted with "" for a quote inside. The
// integers after the last block are counted and not interpreted. Errors
// name the byte offset (the BOM counted) of what is wrong.
func ParseSupport(path string, data []byte, lim SupportLimits) (*Support, error) {
	if len(data) > lim.MaxBytes {
		return nil, &ParseError{Path: path, Reason: ReasonTooLarge, Offset: -1, Msg: fmt.Sprintf("%d bytes is over the limit of %d", len(data), lim.MaxBytes)}
	}
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, n := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			off += n
		}
		return nil, &ParseError{Path: path, Reason: ReasonMalformed, Offset: int64(off), Msg: "not UTF-8"}
	}
	root, items, err := parseBraces(path, data, lim)
	if err != nil {
		return nil, err
	}
	return interpretSupport(path, data, root, items)
}

// braceValue is one value of a brace list: a nested list, a quoted
// string or a bare token, with the bytes it covers. It holds no pointers,
// so the thousands of them in a file cost the collector nothing; a
// list's items are kept apart, in order, by the parser.
type braceValue struct {
	isList     bool
	quoted     bool
	start, end int // the token's bytes, quotes and braces included
}

// text is a bare token's bytes or a quoted string's content, unquoted.
func (v braceValue) text(data []byte) string {
	raw := data[v.start:v.end]
	if !v.quoted {
		return string(raw)
	}
	return strings.ReplaceAll(string(raw[1:len(raw)-1]), `""`, `"`)
}

// parseBraces reads the file's one brace list and returns it with its
// items (a nested list's own items are checked and not kept: no field of
// the format is a list). The nesting is bounded by lim.MaxDepth, and
// every byte is accounted for: anything but white space after the list
// is an error.
func parseBraces(path string, data []byte, lim SupportLimits) (braceValue, []braceValue, error) {
	p := &braceParser{path: path, data: data, lim: lim}
	if bytes.HasPrefix(data, bom) {
		p.pos = len(bom)
	}
	p.space()
	if p.pos >= len(data) || data[p.pos] != '{' {
		return braceValue{}, nil, p.fail(ReasonMalformed, "the file does not start with {")
	}
	p.top = make([]braceValue, 0, bytes.Count(data, []byte{','})+1)
	v, err := p.list(1)
	if err != nil {
		return braceValue{}, nil, err
	}
	p.space()
	if p.pos != len(data) {
		return braceValue{}, nil, p.fail(ReasonMalformed, "bytes after the closing }")
	}
	return v, p.top, nil
}

type braceParser struct {
	path string
	data []byte
	pos  int
	lim  SupportLimits
	top  []braceValue // the items of the outermost list
}

func (p *braceParser) fail(reason, msg string) error {
	return &ParseError{Path: p.path, Reason: reason, Offset: int64(p.pos), Msg: msg}
}

func (p *braceParser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\r', '\n':
			p.pos++
		default:
			return
		}
	}
}

// list reads a list whose { is at p.pos, at nesting depth.
func (p *braceParser) list(depth int) (braceValue, error) {
	if depth > p.lim.MaxDepth {
		return braceValue{}, p.fail(ReasonTooDeep, fmt.Sprintf("lists nested deeper than %d", p.lim.MaxDepth))
	}
	v := braceValue{isList: true, start: p.pos}
	p.pos++ // {
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		v.end = p.pos
		return v, nil
	}
	for {
		p.space()
		if p.pos >= len(p.data) {
			return braceValue{}, p.fail(ReasonMalformed, "unexpected end of file inside a list")
		}
		var item braceValue
		switch c := p.data[p.pos]; c {
		case '{':
			var err error
			if item, err = p.list(depth + 1); err != nil {
				return braceValue{}, err
			}
		case '"':
			start := p.pos
			p.pos++
			for {
				i := bytes.IndexByte(p.data[p.pos:], '"')
				if i < 0 {
					p.pos = start
					return braceValue{}, p.fail(ReasonMalformed, "a string is not closed")
				}
				p.pos += i + 1
				if p.pos < len(p.data) && p.data[p.pos] == '"' {
					p.pos++ // "" is a quote inside the string
					continue
				}
				break
			}
			item = braceValue{quoted: true, start: start, end: p.pos}
		case ',', '}':
			return braceValue{}, p.fail(ReasonMalformed, "an empty value")
		default:
			start := p.pos
			for p.pos < len(p.data) {
				c := p.data[p.pos]
				if c == ',' || c == '}' || c == '{' || c == '"' || c == ' ' || c == '\t' || c == '\r' || c == '\n' {
					break
				}
				p.pos++
			}
			item = braceValue{start: start, end: p.pos}
		}
		if depth == 1 {
			p.top = append(p.top, item)
		}
		p.space()
		if p.pos >= len(p.data) {
			return braceValue{}, p.fail(ReasonMalformed, "unexpected end of file inside a list")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			v.end = p.pos
			return v, nil
		default:
			return braceValue{}, p.fail(ReasonMalformed, "a value is not followed by , or }")
		}
	}
}

// supportReader walks the items of the top list with the checks of each
// field. What a field is called is spelt out only for an error.
type supportReader struct {
	path  string
	data  []byte
	lower string // data in lower case
	items []braceValue
	i     int
	end   int // offset of the list's closing brace, for errors at the end
}

// field names a field for errors: what it is, and of which rule and
// vendor configuration (1-based; 0 when not of one).
type field struct {
	what         string
	vendor, rule int
}

func (f field) String() string {
	s := f.what
	if f.rule > 0 {
		s += fmt.Sprintf(" of rule %d", f.rule)
	}
	if f.vendor > 0 {
		s += fmt.Sprintf(" of vendor configuration %d", f.vendor)
	}
	return s
}

func (r *supportReader) fail(at int, msg string, args ...any) error {
	return &ParseError{Path: r.path, Reason: ReasonInvalidMetadata, Offset: int64(at), Msg: fmt.Sprintf(msg, args...)}
}

// next returns the next item, or an error naming what was expected.
func (r *supportReader) next(f field) (braceValue, error) {
	if r.i >= len(r.items) {
		return braceValue{}, r.fail(r.end, "the list ends where %s was expected", f)
	}
	v := r.items[r.i]
	r.i++
	if v.isList {
		return braceValue{}, r.fail(v.start, "a nested list where %s was expected", f)
	}
	return v, nil
}

// maxSupportInt bounds the integers of the file: counts and modes are
// small, and nothing larger is meaningful.
const maxSupportInt = 1 << 30

func (r *supportReader) integer(f field) (int, int, error) {
	v, err := r.next(f)
	if err != nil {
		return 0, 0, err
	}
	raw := r.data[v.start:v.end]
	if v.quoted || len(raw) == 0 {
		return 0, 0, r.fail(v.start, "%s is %q, not a number", f, v.text(r.data))
	}
	n := 0
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, 0, r.fail(v.start, "%s is %q, not a number", f, v.text(r.data))
		}
		if n = n*10 + int(c-'0'); n > maxSupportInt {
			return 0, 0, r.fail(v.start, "%s %s is out of range", f, raw)
		}
	}
	return n, v.start, nil
}

func (r *supportReader) uuid(f field) (string, error) {
	v, err := r.next(f)
	if err != nil {
		return "", err
	}
	raw := r.data[v.start:v.end]
	if v.quoted || !isUUIDBytes(raw) {
		return "", r.fail(v.start, "%s is %q, not a uuid", f, v.text(r.data))
	}
	return r.lower[v.start:v.end], nil
}

func (r *supportReader) str(f field) (string, error) {
	v, err := r.next(f)
	if err != nil {
		return "", err
	}
	if !v.quoted {
		return "", r.fail(v.start, "%s is not a quoted string", f)
	}
	return v.text(r.data), nil
}

// peekUUID reports whether the next item is a bare uuid.
func (r *supportReader) peekUUID() bool {
	if r.i >= len(r.items) {
		return false
	}
	v := r.items[r.i]
	return !v.isList && !v.quoted && isUUIDBytes(r.data[v.start:v.end])
}

func interpretSupport(path string, data []byte, root braceValue, items []braceValue) (*Support, error) {
	// uuids are taken as substrings of one copy of the file with ASCII
	// letters in lower case (offsets stay those of data).
	lower := make([]byte, len(data))
	for i, c := range data {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	r := &supportReader{path: path, data: data, lower: string(lower), items: items, end: root.end - 1}
	format, at, err := r.integer(field{what: "the format number"})
	if err != nil {
		return nil, err
	}
	if format != supportFormat {
		return nil, r.fail(at, "format %d; this reader knows %d", format, supportFormat)
	}
	changes, at, err := r.integer(field{what: "the configuration's change mode"})
	if err != nil {
		return nil, err
	}
	if changes != 0 && changes != 1 {
		return nil, r.fail(at, "configuration change mode %d is not 0 or 1", changes)
	}
	count, at, err := r.integer(field{what: "the number of vendor configurations"})
	if err != nil {
		return nil, err
	}
	// Each vendor block takes at least its seven header items.
	if count > len(r.items)/7 {
		return nil, r.fail(at, "%d vendor configurations do not fit in %d items", count, len(r.items))
	}
	s := &Support{Path: path, ChangesAllowed: changes == 0, byUUID: map[string][]ruleRef{}}
	for vi := 0; vi < count; vi++ {
		if vi > 0 {
			// Two integers separate vendor blocks.
			for k := 0; k < 2; k++ {
				if _, _, err := r.integer(field{what: "the separator before", vendor: vi + 1}); err != nil {
					return nil, err
				}
			}
		}
		v, err := r.vendor(vi)
		if err != nil {
			return nil, err
		}
		for ri, rule := range v.Rules {
			s.byUUID[rule.Local] = append(s.byUUID[rule.Local], ruleRef{vi, ri})
		}
		s.Vendors = append(s.Vendors, v)
	}
	for r.i < len(r.items) {
		if _, _, err := r.integer(field{what: "a trailing setting"}); err != nil {
			return nil, err
		}
		s.Trailer++
	}
	return s, nil
}

func (r *supportReader) vendor(vi int) (SupportVendor, error) {
	at := r.end
	if r.i < len(r.items) {
		at = r.items[r.i].start
	}
	n := vi + 1
	v := SupportVendor{Offset: int64(at)}
	var err error
	if v.Snapshot, err = r.uuid(field{"the snapshot id", n, 0}); err != nil {
		return v, err
	}
	if _, _, err = r.integer(field{"the flag", n, 0}); err != nil {
		return v, err
	}
	if v.ID, err = r.uuid(field{"the id", n, 0}); err != nil {
		return v, err
	}
	if v.Version, err = r.str(field{"the version", n, 0}); err != nil {
		return v, err
	}
	if v.Vendor, err = r.str(field{"the vendor", n, 0}); err != nil {
		return v, err
	}
	if v.Name, err = r.str(field{"the name", n, 0}); err != nil {
		return v, err
	}
	count, at, err := r.integer(field{"the number of rules", n, 0})
	if err != nil {
		return v, err
	}
	// A rule takes at least three items.
	if count > (len(r.items)-r.i)/3 {
		return v, r.fail(at, "%d rules do not fit in the %d items left", count, len(r.items)-r.i)
	}
	v.Rules = make([]SupportRule, 0, count)
	for k := 1; k <= count; k++ {
		mode, at, err := r.integer(field{"the mode", n, k})
		if err != nil {
			return v, err
		}
		if mode > int(SupportRemoved) {
			return v, r.fail(at, "%s is %d, not 0, 1 or 2", field{"the mode", n, k}, mode)
		}
		if _, _, err := r.integer(field{"the flag", n, k}); err != nil {
			return v, err
		}
		rule := SupportRule{Mode: SupportMode(mode), Offset: int64(at)}
		if rule.Local, err = r.uuid(field{"the object uuid", n, k}); err != nil {
			return v, err
		}
		rule.Original = rule.Local
		// The vendor's own uuid of the object may be left out when it is
		// the same.
		if r.peekUUID() {
			rule.Original, _ = r.uuid(field{})
		}
		v.Rules = append(v.Rules, rule)
	}
	return v, nil
}

// IsUUID reports the 8-4-4-4-12 hexadecimal form of a uuid.
func IsUUID(s string) bool { return isUUIDBytes([]byte(s)) }

// hexDigit marks the bytes of hexadecimal digits.
var hexDigit = func() (t [256]bool) {
	for _, c := range "0123456789abcdefABCDEF" {
		t[c] = true
	}
	return t
}()

func isUUIDBytes(s []byte) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	for i, c := range s {
		if !hexDigit[c] && i != 8 && i != 13 && i != 18 && i != 23 {
			return false
		}
	}
	return true
}
