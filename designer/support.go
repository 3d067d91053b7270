package designer

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
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
// flat) and far below what would hurt.
var DefaultSupportLimits = SupportLimits{MaxBytes: 16 << 20, MaxDepth: 32}

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
	root, err := parseBraces(path, data, lim)
	if err != nil {
		return nil, err
	}
	return interpretSupport(path, data, root)
}

// braceValue is one value of a brace list: a nested list, a quoted
// string or a bare token, with the bytes it covers.
type braceValue struct {
	list       []braceValue // nil unless isList
	isList     bool
	quoted     bool
	start, end int // the token's bytes, quotes included
}

// text is a bare token's bytes or a quoted string's content, unquoted.
func (v braceValue) text(data []byte) string {
	raw := data[v.start:v.end]
	if !v.quoted {
		return string(raw)
	}
	return strings.ReplaceAll(string(raw[1:len(raw)-1]), `""`, `"`)
}

// parseBraces reads the file's one brace list. The nesting is bounded by
// lim.MaxDepth, and every byte is accounted for: anything but white space
// after the list is an error.
func parseBraces(path string, data []byte, lim SupportLimits) (braceValue, error) {
	p := &braceParser{path: path, data: data, lim: lim}
	if bytes.HasPrefix(data, bom) {
		p.pos = len(bom)
	}
	p.space()
	if p.pos >= len(data) || data[p.pos] != '{' {
		return braceValue{}, p.fail(ReasonMalformed, "the file does not start with {")
	}
	v, err := p.list(1)
	if err != nil {
		return braceValue{}, err
	}
	p.space()
	if p.pos != len(data) {
		return braceValue{}, p.fail(ReasonMalformed, "bytes after the closing }")
	}
	return v, nil
}

type braceParser struct {
	path string
	data []byte
	pos  int
	lim  SupportLimits
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
	v := braceValue{isList: true, start: p.pos, list: []braceValue{}}
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
		v.list = append(v.list, item)
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
// field.
type supportReader struct {
	path  string
	data  []byte
	items []braceValue
	i     int
	end   int // offset of the list's closing brace, for errors at the end
}

func (r *supportReader) fail(at int, msg string, args ...any) error {
	return &ParseError{Path: r.path, Reason: ReasonInvalidMetadata, Offset: int64(at), Msg: fmt.Sprintf(msg, args...)}
}

// next returns the next item, or an error naming what was expected.
func (r *supportReader) next(what string) (braceValue, error) {
	if r.i >= len(r.items) {
		return braceValue{}, r.fail(r.end, "the list ends where %s was expected", what)
	}
	v := r.items[r.i]
	r.i++
	if v.isList {
		return braceValue{}, r.fail(v.start, "a nested list where %s was expected", what)
	}
	return v, nil
}

func (r *supportReader) integer(what string) (int, int, error) {
	v, err := r.next(what)
	if err != nil {
		return 0, 0, err
	}
	s := v.text(r.data)
	if v.quoted || !isDigits(s) {
		return 0, 0, r.fail(v.start, "%s is %q, not a number", what, s)
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, 0, r.fail(v.start, "%s %s is out of range", what, s)
	}
	return n, v.start, nil
}

func (r *supportReader) uuid(what string) (string, error) {
	v, err := r.next(what)
	if err != nil {
		return "", err
	}
	s := v.text(r.data)
	if v.quoted || !IsUUID(s) {
		return "", r.fail(v.start, "%s is %q, not a uuid", what, s)
	}
	return strings.ToLower(s), nil
}

func (r *supportReader) str(what string) (string, error) {
	v, err := r.next(what)
	if err != nil {
		return "", err
	}
	if !v.quoted {
		return "", r.fail(v.start, "%s is not a quoted string", what)
	}
	return v.text(r.data), nil
}

// peekUUID reports whether the next item is a bare uuid.
func (r *supportReader) peekUUID() bool {
	if r.i >= len(r.items) {
		return false
	}
	v := r.items[r.i]
	return !v.isList && !v.quoted && IsUUID(v.text(r.data))
}

func interpretSupport(path string, data []byte, root braceValue) (*Support, error) {
	r := &supportReader{path: path, data: data, items: root.list, end: root.end - 1}
	format, at, err := r.integer("the format number")
	if err != nil {
		return nil, err
	}
	if format != supportFormat {
		return nil, r.fail(at, "format %d; this reader knows %d", format, supportFormat)
	}
	changes, at, err := r.integer("the configuration's change mode")
	if err != nil {
		return nil, err
	}
	if changes != 0 && changes != 1 {
		return nil, r.fail(at, "configuration change mode %d is not 0 or 1", changes)
	}
	count, at, err := r.integer("the number of vendor configurations")
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
				if _, _, err := r.integer(fmt.Sprintf("the separator before vendor configuration %d", vi+1)); err != nil {
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
		if _, _, err := r.integer("a trailing setting"); err != nil {
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
	which := fmt.Sprintf("vendor configuration %d", vi+1)
	v := SupportVendor{Offset: int64(at)}
	var err error
	if v.Snapshot, err = r.uuid("the snapshot id of " + which); err != nil {
		return v, err
	}
	if _, _, err = r.integer("the flag of " + which); err != nil {
		return v, err
	}
	if v.ID, err = r.uuid("the id of " + which); err != nil {
		return v, err
	}
	if v.Version, err = r.str("the version of " + which); err != nil {
		return v, err
	}
	if v.Vendor, err = r.str("the vendor of " + which); err != nil {
		return v, err
	}
	if v.Name, err = r.str("the name of " + which); err != nil {
		return v, err
	}
	n, at, err := r.integer("the number of rules of " + which)
	if err != nil {
		return v, err
	}
	// A rule takes at least three items.
	if n > (len(r.items)-r.i)/3 {
		return v, r.fail(at, "%d rules do not fit in the %d items left", n, len(r.items)-r.i)
	}
	v.Rules = make([]SupportRule, 0, n)
	for k := 0; k < n; k++ {
		what := fmt.Sprintf("rule %d of %s", k+1, which)
		mode, at, err := r.integer("the mode of " + what)
		if err != nil {
			return v, err
		}
		if mode > int(SupportRemoved) {
			return v, r.fail(at, "the mode of %s is %d, not 0, 1 or 2", what, mode)
		}
		if _, _, err := r.integer("the flag of " + what); err != nil {
			return v, err
		}
		rule := SupportRule{Mode: SupportMode(mode), Offset: int64(at)}
		if rule.Local, err = r.uuid("the object uuid of " + what); err != nil {
			return v, err
		}
		rule.Original = rule.Local
		// The vendor's own uuid of the object may be left out when it is
		// the same.
		if r.peekUUID() {
			rule.Original, _ = r.uuid("")
		}
		v.Rules = append(v.Rules, rule)
	}
	return v, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// IsUUID reports the 8-4-4-4-12 hexadecimal form of a uuid.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
