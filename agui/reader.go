package agui

import (
	"bytes"
	"errors"
	"strconv"
	"unicode/utf8"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/internal/strictjson"
)

// readRecord turns the bytes of a record into its events, enforcing the
// reading rules of the profile: the size before parsing, strict JSON,
// depth, value count, duplicate names and surrogates while parsing, and
// then the event count, text units and (under the stand) the number rules
// on the literals the parser kept. It returns the first finding as a *fail.
//
// Each event comes with its text in data, so that it can be decoded
// without writing the tree out again.
func readRecord(data []byte, p *Profile) ([]*strictjson.Value, [][]byte, error) {
	if p.Has(contract.RuleReaderInputBytes) && len(data) > contract.LimitInputBytes {
		return nil, nil, failf(FileLevel, "", contract.RuleReaderInputBytes,
			"the record has more than %d bytes (the limit); nothing of it was parsed", contract.LimitInputBytes)
	}
	lim := readLimits(p)
	start := bytes.TrimLeft(data, " \t\r\n")
	var events []*strictjson.Value
	var texts [][]byte
	var err error
	if len(start) > 0 && start[0] == '[' {
		events, texts, err = readArray(data, lim)
	} else {
		events, texts, err = readLines(data, lim)
	}
	if err != nil {
		return nil, nil, err
	}
	if len(events) == 0 {
		return nil, nil, failf(FileLevel, "", contract.RuleReaderRecordShape, "the record holds no event")
	}
	if err := checkScalars(events, p); err != nil {
		return nil, nil, err
	}
	return events, texts, nil
}

// limits are the reading limits a profile applies; 0 means none.
type limits struct {
	depth, values, events int
}

func readLimits(p *Profile) limits {
	var l limits
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
func readArray(data []byte, lim limits) ([]*strictjson.Value, [][]byte, error) {
	opt := strictjson.Options{}
	if lim.depth > 0 {
		opt.MaxDepth = lim.depth + 1
	}
	if lim.values > 0 {
		opt.MaxValues = lim.values + 1
	}
	tree, err := strictjson.Parse(data, opt)
	if err != nil {
		return nil, nil, parseFailure(err, lim, func(ptr string) (int, string) { return splitEventPointer(ptr) })
	}
	if tree.Kind != strictjson.Array {
		return nil, nil, failf(FileLevel, "", contract.RuleReaderRecordShape, "the record is not an array of events")
	}
	if lim.events > 0 && len(tree.Elems) > lim.events {
		return nil, nil, failf(lim.events, "", contract.RuleReaderEvents, "the record holds %d events, more than the limit of %d", len(tree.Elems), lim.events)
	}
	texts := make([][]byte, len(tree.Elems))
	for i, e := range tree.Elems {
		if e.Kind != strictjson.Object {
			return nil, nil, failf(i, "", contract.RuleReaderRecordShape, "an event is a JSON object; this one is %s", describeKind(e.Kind))
		}
		texts[i] = data[e.Start:e.End]
	}
	return tree.Elems, texts, nil
}

// readLines reads the form with one event per line. Each line is parsed on
// its own, with what is left of the value budget as its limit, so the
// budget is enforced while parsing here too.
func readLines(data []byte, lim limits) ([]*strictjson.Value, [][]byte, error) {
	var events []*strictjson.Value
	var texts [][]byte
	used := 0
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += off
		}
		line := data[off:end]
		off = end + 1
		if len(bytes.Trim(line, " \t\r")) == 0 {
			continue
		}
		index := len(events)
		if lim.events > 0 && index >= lim.events {
			return nil, nil, failf(index, "", contract.RuleReaderEvents, "the record holds more than %d events", lim.events)
		}
		opt := strictjson.Options{MaxDepth: lim.depth}
		if lim.values > 0 {
			opt.MaxValues = lim.values - used
			if opt.MaxValues <= 0 {
				return nil, nil, failf(index, "", contract.RuleReaderValues, "the events hold more than %d values together", lim.values)
			}
		}
		v, err := strictjson.Parse(line, opt)
		if err != nil {
			return nil, nil, parseFailure(err, lim, func(ptr string) (int, string) { return index, ptr })
		}
		if v.Kind != strictjson.Object {
			return nil, nil, failf(index, "", contract.RuleReaderRecordShape, "an event is a JSON object; this line holds %s", describeKind(v.Kind))
		}
		used += countValues(v)
		events = append(events, v)
		texts = append(texts, line[v.Start:v.End])
	}
	return events, texts, nil
}

// parseFailure maps a strictjson error to the rule it breaks. at turns the
// error's pointer into an event index and a pointer inside that event.
func parseFailure(err error, lim limits, at func(ptr string) (int, string)) error {
	var se *strictjson.Error
	if !errors.As(err, &se) {
		return failf(FileLevel, "", contract.RuleReaderJSON, "%v", err)
	}
	event, ptr := at(se.Pointer)
	switch se.Kind {
	case strictjson.ErrDepth:
		return failf(event, ptr, contract.RuleReaderDepth, "arrays and objects nest deeper than %d levels, counted from the event", lim.depth)
	case strictjson.ErrValues:
		return failf(event, ptr, contract.RuleReaderValues, "the events hold more than %d values together", lim.values)
	case strictjson.ErrDuplicateKey:
		return failf(event, ptr, contract.RuleReaderDuplicateNames, "%s", se.Msg)
	case strictjson.ErrSurrogate:
		return failf(event, ptr, contract.RuleReaderUnpairedSurrogates, "%s", se.Msg)
	case strictjson.ErrEmpty:
		return failf(event, ptr, contract.RuleReaderRecordShape, "%s", se.Msg)
	}
	return failf(event, ptr, contract.RuleReaderJSON, "%s (byte %d of the event's text)", se.Msg, se.Offset)
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

func countValues(v *strictjson.Value) int {
	n := 1
	for _, e := range v.Elems {
		n += countValues(e)
	}
	for _, m := range v.Members {
		n += countValues(m.Value)
	}
	return n
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

// checkScalars walks every event once: it sums the text units of all
// strings and member names, and applies the number rules to every literal.
func checkScalars(events []*strictjson.Value, p *Profile) error {
	w := scalarWalk{numbers: p.Has(contract.RuleReaderIntegerRange)}
	if p.Has(contract.RuleReaderTextUnits) {
		w.textBudget = contract.LimitTextUnits
	}
	for i, e := range events {
		w.event = i
		if err := w.walk(e); err != nil {
			return err
		}
	}
	return nil
}

type scalarWalk struct {
	numbers    bool
	textBudget int // 0: no text limit
	text       int
	event      int
	path       []string // tokens of the value being walked, for findings
}

func (w *scalarWalk) pointer() string {
	ptr := ""
	for _, t := range w.path {
		ptr = strictjson.AppendPointer(ptr, t)
	}
	return ptr
}

func (w *scalarWalk) addText(s string) error {
	if w.textBudget == 0 {
		return nil
	}
	w.text += utf16Len(s)
	if w.text > w.textBudget {
		return failf(w.event, w.pointer(), contract.RuleReaderTextUnits,
			"the strings of the record hold more than %d text units (UTF-16 code units) together", w.textBudget)
	}
	return nil
}

func (w *scalarWalk) walk(v *strictjson.Value) error {
	switch v.Kind {
	case strictjson.String:
		return w.addText(v.Str)
	case strictjson.Number:
		if w.numbers {
			if rule, why := checkNumber(v.Str); rule != "" {
				return failf(w.event, w.pointer(), rule, "%s", why)
			}
		}
	case strictjson.Array:
		for i, e := range v.Elems {
			w.path = append(w.path, strconv.Itoa(i))
			if err := w.walk(e); err != nil {
				return err
			}
			w.path = w.path[:len(w.path)-1]
		}
	case strictjson.Object:
		for _, m := range v.Members {
			w.path = append(w.path, m.Key)
			if err := w.addText(m.Key); err != nil {
				return err
			}
			if err := w.walk(m.Value); err != nil {
				return err
			}
			w.path = w.path[:len(w.path)-1]
		}
	}
	return nil
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
