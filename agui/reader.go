package agui

import (
	"bytes"
	"errors"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/contractkit/contractkit/agui/internal/recordtext"
	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// record is what the reader made of a record's bytes: the tree of each
// event, and the text its offsets refer to, so that values can be measured
// and shown as the record writes them: src, the whole record, in the array
// form, or srcs, each event's line, in the other.
type record struct {
	events []*strictjson.Value
	src    []byte
	srcs   [][]byte
	// read is the number of events read in full; when the reader rejects
	// the record, those before the finding.
	read int
	// lists, in the line form, is where events and srcs came from; free
	// gives them back once the record is checked.
	lists *lineLists
}

// lineRoom is the room the lists of a record of lines need: an entry for
// each line, but no more than the events the profile lets a record hold
// (and the one past them that the reader refuses).
func lineRoom(data []byte, lim limits) int {
	n := bytes.Count(data, []byte{'\n'}) + 1
	if lim.events > 0 {
		n = min(n, lim.events+1)
	}
	return n
}

// lineLists are the lists of a record of lines, lent by lineListPool to
// one check after another: the result keeps none of them.
type lineLists struct {
	events []*strictjson.Value
	srcs   [][]byte
}

var lineListPool = sync.Pool{New: func() any { return new(lineLists) }}

// free gives the record's lists back to lineListPool, emptied so that
// the pool keeps neither the trees nor the record's bytes alive, unless
// they grew past what is worth keeping.
func (r *record) free() {
	l := r.lists
	if l == nil {
		return
	}
	events, srcs := emptied(r.events), emptied(r.srcs)
	r.lists, r.events, r.srcs = nil, nil, nil
	if events == nil || srcs == nil {
		return
	}
	l.events, l.srcs = events, srcs
	lineListPool.Put(l)
}

// readRecord turns the bytes of a record into its events, enforcing the
// reading rules of the profile: the size before parsing, strict JSON,
// depth, value count, duplicate names and surrogates while parsing, and
// the event count. The text and number rules apply to the values as the
// checker decodes them. It returns the first finding as a *fail.
func readRecord(data []byte, p *Profile, inputLimit bool, a *strictjson.Arena) (record, error) {
	if inputLimit && p.Has(contract.RuleReaderInputBytes) && len(data) > contract.LimitInputBytes {
		return record{}, inputBytesFail()
	}
	lim := readLimits(p)
	start := bytes.TrimLeft(data, " \t\r\n")
	var rec record
	var err error
	if len(start) > 0 && start[0] == '[' {
		rec, err = readArray(data, lim, a)
	} else {
		rec, err = readLines(data, lim, a)
	}
	if err != nil {
		return rec, err
	}
	if len(rec.events) == 0 {
		return rec, failf(FileLevel, "", contract.RuleReaderRecordShape, "the record holds no event")
	}
	return rec, nil
}

// inputBytesFail is the finding of a record over the size limit: Check
// measures a record before reading any of it, a Stream as its lines come,
// and both say the same.
func inputBytesFail() *fail {
	return failf(FileLevel, "", contract.RuleReaderInputBytes,
		"the record has more than %d bytes (the limit); nothing of it was parsed", contract.LimitInputBytes)
}

// srcOf returns the text event i's offsets refer to.
func (r *record) srcOf(i int) []byte {
	if r.srcs != nil {
		return r.srcs[i]
	}
	return r.src
}

// limits are the reading limits a profile applies; 0 means none.
type limits struct {
	depth, values, events int
	// text is what is left of the text-unit budget, shared by the lines
	// of a record; nil for none.
	text *int
	// numbers applies the number rules to each literal; nil for none.
	numbers *numberRules
}

// numberRules applies the number rules of the stand to the literals the
// parser reads, and remembers which rule the last refused one broke.
type numberRules struct{ rule string }

func (n *numberRules) check(lit []byte) error {
	if short, negZero := shortInteger(lit); short && !negZero {
		return nil // the common case, without making a string of it
	}
	rule, why := checkNumber(string(lit))
	if rule == "" {
		return nil
	}
	n.rule = rule
	return errors.New(why)
}

func (l limits) options(opt strictjson.Options) strictjson.Options {
	// The trees' strings borrow the record's bytes, which the caller keeps
	// for the length of Check; the result takes copies of what it keeps
	// (Result.own).
	opt.Borrow = true
	opt.TextUnits = l.text
	if l.numbers != nil {
		opt.Number = l.numbers.check
	}
	return opt
}

func readLimits(p *Profile) limits {
	var l limits
	if p.Has(contract.RuleReaderTextUnits) {
		budget := contract.LimitTextUnits
		l.text = &budget
	}
	if p.Has(contract.RuleReaderIntegerRange) {
		l.numbers = &numberRules{}
	}
	if p.Has(contract.RuleReaderDepth) {
		l.depth = contract.LimitDepth
	}
	if p.Has(contract.RuleReaderValues) {
		l.values = contract.LimitValues
	}
	if p.Has(contract.RuleReaderEvents) {
		l.events = contract.LimitEvents
	}
	return l
}

// readArray reads the array form. The array itself is one level and one
// value more than the events it holds, so the parser's limits are one
// higher than the profile's, which count from the event.
func readArray(data []byte, lim limits, a *strictjson.Arena) (record, error) {
	opt := strictjson.Options{}
	if lim.depth > 0 {
		opt.MaxDepth = lim.depth + 1
	}
	if lim.values > 0 {
		opt.MaxValues = lim.values + 1
	}
	tree, err := strictjson.ParseIn(a, data, lim.options(opt))
	if err != nil {
		f := parseFailure(err, lim, func(ptr string) (int, string) { return splitEventPointer(ptr) })
		return record{read: max(f.Event, 0)}, f
	}
	if tree.Kind != strictjson.Array {
		return record{}, failf(FileLevel, "", contract.RuleReaderRecordShape, "the record is not an array of events")
	}
	if lim.events > 0 && len(tree.Elems) > lim.events {
		return record{read: lim.events}, eventsFail(len(tree.Elems), lim.events)
	}
	for i, e := range tree.Elems {
		if e.Kind != strictjson.Object {
			return record{read: i}, failf(i, "", contract.RuleReaderRecordShape, "an event is a JSON object; this one is %s", describeKind(e.Kind))
		}
	}
	return record{events: tree.Elems, src: data, read: len(tree.Elems)}, nil
}

// readLines reads the form with one event per line. Each line is parsed on
// its own, with what is left of the value budget as its limit, so the
// budget is enforced while parsing here too.
func readLines(data []byte, lim limits, a *strictjson.Arena) (record, error) {
	// Room for every line, counted first: appending an event at a time
	// copied the lists as they grew, more than the events' own trees
	// allocate. Past the event limit the reader stops anyway, and a
	// record of blank lines must not make room for events it lacks.
	n := lineRoom(data, lim)
	l := lineListPool.Get().(*lineLists)
	if cap(l.events) < n {
		l.events, l.srcs = make([]*strictjson.Value, 0, n), make([][]byte, 0, n)
	}
	rec := record{events: l.events[:0], srcs: l.srcs[:0], lists: l}
	lr := lineReader{lim: lim}
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += off
		}
		line := data[off:end]
		off = end + 1
		rec.read = lr.index
		v, err := lr.read(line, a)
		if err != nil {
			return rec, err
		}
		if v == nil {
			continue // a blank line
		}
		rec.events = append(rec.events, v)
		rec.srcs = append(rec.srcs, line)
	}
	rec.read = len(rec.events)
	return rec, nil
}

// lineReader reads the lines of a record one by one, keeping the budgets
// they share: the event count and the values (the text units are counted
// down in lim). A live stream reads its events through one too, so that
// its findings are those of the record it would be saved as.
type lineReader struct {
	lim   limits
	used  int // values read so far
	index int // the index the next event gets
	// opt is the parser's options but for the value budget, made once:
	// making them takes a method value, which costs an allocation.
	opt    strictjson.Options
	optSet bool
	// sentLF are the offsets in the line being read where it holds a
	// carriage return for a line feed that was sent (Stream.Line): a
	// finding there names the line feed.
	sentLF []int
}

// read parses one line into a; a blank line gives nil and no error.
func (lr *lineReader) read(line []byte, a *strictjson.Arena) (*strictjson.Value, error) {
	if recordtext.IsBlank(line) {
		return nil, nil
	}
	index, lim := lr.index, lr.lim
	if lim.events > 0 && index >= lim.events {
		return nil, failf(index, "", contract.RuleReaderEvents, "the record holds more than %d events", lim.events)
	}
	if !lr.optSet {
		lr.opt, lr.optSet = lim.options(strictjson.Options{MaxDepth: lim.depth}), true
	}
	opt := lr.opt
	if lim.values > 0 {
		opt.MaxValues = lim.values - lr.used
		if opt.MaxValues <= 0 {
			return nil, valuesFail(index, "", lim)
		}
	}
	v, err := strictjson.ParseIn(a, line, opt)
	if err != nil {
		err = lr.asSent(line, err)
		return nil, parseFailure(err, lim, func(ptr string) (int, string) { return index, ptr })
	}
	if v.Kind != strictjson.Object {
		return nil, failf(index, "", contract.RuleReaderRecordShape, "an event is a JSON object; this line holds %s", describeKind(v.Kind))
	}
	lr.used += a.Values()
	lr.index++
	return v, nil
}

// parseFailure maps a strictjson error to the rule it breaks. at turns the
// error's pointer into an event index and a pointer inside that event.
func parseFailure(err error, lim limits, at func(ptr string) (int, string)) *fail {
	var se *strictjson.Error
	if !errors.As(err, &se) {
		return failf(FileLevel, "", contract.RuleReaderJSON, "%v", err)
	}
	event, ptr := at(se.Pointer)
	switch se.Kind {
	case strictjson.ErrDepth:
		return failf(event, ptr, contract.RuleReaderDepth, "arrays and objects nest deeper than %d levels, counted from the event", lim.depth)
	case strictjson.ErrValues:
		return valuesFail(event, ptr, lim)
	case strictjson.ErrDuplicateKey:
		return failf(event, ptr, contract.RuleReaderDuplicateNames, "%s", se.Msg)
	case strictjson.ErrSurrogate:
		return failf(event, ptr, contract.RuleReaderUnpairedSurrogates, "%s", se.Msg)
	case strictjson.ErrEmpty:
		return failf(event, ptr, contract.RuleReaderRecordShape, "%s", se.Msg)
	case strictjson.ErrTextUnits:
		return failf(event, ptr, contract.RuleReaderTextUnits, "the strings of the record hold more than %d text units (UTF-16 code units) together", contract.LimitTextUnits)
	case strictjson.ErrNumber:
		if lim.numbers != nil && lim.numbers.rule != "" {
			return failf(event, ptr, lim.numbers.rule, "%s", se.Msg)
		}
	}
	return failf(event, ptr, contract.RuleReaderJSON, "%s (byte %d of the event's text)", se.Msg, se.Offset)
}

// eventsFail is the finding of n events, more than the limit, where they
// are counted before any is checked: a record in the array form, and the
// events CheckValues is given.
func eventsFail(n, limit int) *fail {
	return failf(limit, "", contract.RuleReaderEvents, "the record holds %d events, more than the limit of %d", n, limit)
}

// valuesFail is the finding of events over the value budget, found by the
// parser or, when the lines before spent it all, before parsing a line.
func valuesFail(event int, ptr string, lim limits) *fail {
	return failf(event, ptr, contract.RuleReaderValues, "the events hold more than %d values together", lim.values)
}

// splitEventPointer splits a pointer into the array form into the event
// index and the pointer inside the event.
func splitEventPointer(ptr string) (int, string) {
	if ptr == "" {
		return FileLevel, ""
	}
	tok, rest := ptr[1:], ""
	if i := bytes.IndexByte([]byte(tok), '/'); i >= 0 {
		tok, rest = tok[:i], tok[i:]
	}
	n, err := strconv.Atoi(tok)
	if err != nil {
		return FileLevel, ptr
	}
	return n, rest
}

func describeKind(k strictjson.Kind) string {
	switch k {
	case strictjson.Array, strictjson.Object:
		return "an " + k.String()
	case strictjson.Null:
		return "null"
	}
	return "a " + k.String()
}

// utf16Len is the length of s in UTF-16 code units, the length JavaScript
// reports: a character outside the Basic Multilingual Plane counts two.
func utf16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}
