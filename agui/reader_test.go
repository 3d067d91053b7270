package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// asArray writes events as the array form of a record.
func asArray(t testing.TB, events ...ev) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range events {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(encode(t, e))
	}
	b.WriteByte(']')
	return b.Bytes()
}

// forms checks a record in both shapes.
func forms(t *testing.T, events []ev, f func(t *testing.T, data []byte)) {
	t.Run("lines", func(t *testing.T) { f(t, lines(t, events...)) })
	t.Run("array", func(t *testing.T) { f(t, asArray(t, events...)) })
}

//contract:proves ag-ui.reader.input-bytes ag-ui.limit.input-bytes
func TestInputBytesLimit(t *testing.T) {
	t.Parallel()
	base := lines(t, run(ev{"type": contract.EventStepStarted, "stepName": "s"}, ev{"type": contract.EventStepFinished, "stepName": "s"})...)
	// Trailing spaces are JSON whitespace: they make the record as large
	// as the test needs without touching any other limit.
	pad := func(n int) []byte { return append(bytes.Clone(base), bytes.Repeat([]byte(" "), n-len(base))...) }
	accept(t, stand, pad(contract.LimitInputBytes))
	accept(t, v11, pad(contract.LimitInputBytes))
	reject(t, stand, pad(contract.LimitInputBytes+1), FileLevel, "", contract.RuleReaderInputBytes)
	reject(t, v11, pad(contract.LimitInputBytes+1), FileLevel, "", contract.RuleReaderInputBytes)
	// The size is checked before parsing: an oversized record that is not
	// even JSON is refused for its size.
	reject(t, stand, bytes.Repeat([]byte("{"), contract.LimitInputBytes+1), FileLevel, "", contract.RuleReaderInputBytes)
}

//contract:proves ag-ui.reader.events ag-ui.limit.events
func TestEventCountLimit(t *testing.T) {
	t.Parallel()
	events := func(n int) []ev {
		body := []ev{{"type": contract.EventTextMessageStart, "messageId": "m"}}
		for len(body) < n-3 {
			body = append(body, ev{"type": contract.EventTextMessageContent, "messageId": "m", "delta": "x"})
		}
		body = append(body, ev{"type": contract.EventTextMessageEnd, "messageId": "m"})
		return run(body...)
	}
	if n := len(events(contract.LimitEvents)); n != contract.LimitEvents {
		t.Fatalf("helper made %d events", n)
	}
	forms(t, events(contract.LimitEvents), func(t *testing.T, data []byte) {
		r := accept(t, stand, data)
		if r.Events != contract.LimitEvents {
			t.Errorf("Events = %d", r.Events)
		}
	})
	forms(t, events(contract.LimitEvents+1), func(t *testing.T, data []byte) {
		reject(t, stand, data, contract.LimitEvents, "", contract.RuleReaderEvents)
		reject(t, v11, data, contract.LimitEvents, "", contract.RuleReaderEvents)
	})
	// Events handed over as Go values meet the same limit.
	acceptDirect(t, stand, events(contract.LimitEvents))
	acceptDirect(t, v11, events(contract.LimitEvents))
	rejectDirect(t, stand, events(contract.LimitEvents+1), contract.LimitEvents, "", contract.RuleReaderEvents)
	rejectDirect(t, v11, events(contract.LimitEvents+1), contract.LimitEvents, "", contract.RuleReaderEvents)
	// Both count the events before checking any, and say the same.
	array := check(t, stand, asArray(t, events(contract.LimitEvents+1)...)).Findings[0]
	direct := checkDirect(t, stand, events(contract.LimitEvents+1)).Findings[0]
	if array != direct {
		t.Errorf("the array form and CheckValues differ:\n%v\n%v", array, direct)
	}
}

// nest returns n arrays nested in one another: nest(1) is [].
func nest(n int) json.RawMessage {
	return json.RawMessage(strings.Repeat("[", n) + strings.Repeat("]", n))
}

//contract:proves ag-ui.reader.depth ag-ui.limit.depth
func TestDepthLimit(t *testing.T) {
	t.Parallel()
	// The event is level 1 and its snapshot level 2, so the arrays inside
	// add the rest.
	at := func(depth int) []ev {
		return run(ev{"type": contract.EventStateSnapshot, "snapshot": ev{"a": nest(depth - 2)}})
	}
	forms(t, at(contract.LimitDepth), func(t *testing.T, data []byte) {
		accept(t, stand, data)
		accept(t, v11, data)
	})
	ptr := "/snapshot/a" + strings.Repeat("/0", contract.LimitDepth-2)
	forms(t, at(contract.LimitDepth+1), func(t *testing.T, data []byte) {
		reject(t, stand, data, 1, ptr, contract.RuleReaderDepth)
		reject(t, v11, data, 1, ptr, contract.RuleReaderDepth)
	})
	// The same events as Go values (CheckValues): the same limit, the same
	// finding.
	atGo := func(depth int) []ev {
		var a any = []any{}
		for i := 4; i <= depth; i++ {
			a = []any{a}
		}
		return run(ev{"type": contract.EventStateSnapshot, "snapshot": ev{"a": a}})
	}
	acceptDirect(t, stand, atGo(contract.LimitDepth))
	acceptDirect(t, v11, atGo(contract.LimitDepth))
	rejectDirect(t, stand, atGo(contract.LimitDepth+1), 1, ptr, contract.RuleReaderDepth)
	rejectDirect(t, v11, atGo(contract.LimitDepth+1), 1, ptr, contract.RuleReaderDepth)
}

//contract:proves ag-ui.reader.values ag-ui.limit.values
func TestValueCountLimit(t *testing.T) {
	t.Parallel()
	// RUN_STARTED and RUN_FINISHED hold 4 values each (the object and
	// three strings); the snapshot event holds 4 besides its array's
	// elements (the object, its type, the snapshot object, the array).
	const fixed = 4 + 4 + 4
	at := func(total int) []ev {
		zeros := make([]int, total-fixed)
		return run(ev{"type": contract.EventStateSnapshot, "snapshot": ev{"a": zeros}})
	}
	forms(t, at(contract.LimitValues), func(t *testing.T, data []byte) {
		accept(t, stand, data)
		accept(t, v11, data)
	})
	// The parser stops at the first value over the budget, which here is
	// the last value of the record: RUN_FINISHED's type (encoding/json
	// writes members in name order).
	forms(t, at(contract.LimitValues+1), func(t *testing.T, data []byte) {
		reject(t, stand, data, 2, "/type", contract.RuleReaderValues)
		reject(t, v11, data, 2, "/type", contract.RuleReaderValues)
	})
	// The same events as Go values (CheckValues): CheckValues copies map
	// members in name order too, so it stops at the same value.
	acceptDirect(t, stand, at(contract.LimitValues))
	acceptDirect(t, v11, at(contract.LimitValues))
	rejectDirect(t, stand, at(contract.LimitValues+1), 2, "/type", contract.RuleReaderValues)
	rejectDirect(t, v11, at(contract.LimitValues+1), 2, "/type", contract.RuleReaderValues)
	// The events before one spend the budget exactly: the line form
	// refuses the next event before parsing it, the array form and
	// CheckValues at its first value, and all at the event itself.
	spent := append(at(contract.LimitValues), ev{"type": contract.EventStepStarted, "stepName": "s"})
	forms(t, spent, func(t *testing.T, data []byte) {
		reject(t, stand, data, 3, "", contract.RuleReaderValues)
		reject(t, v11, data, 3, "", contract.RuleReaderValues)
	})
	rejectDirect(t, stand, spent, 3, "", contract.RuleReaderValues)
	rejectDirect(t, v11, spent, 3, "", contract.RuleReaderValues)
}

// asciiText sums the lengths of the member names and string values of
// events written only with ASCII text: their text units.
func asciiText(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case map[string]any:
		n := 0
		for k, e := range x {
			n += len(k) + asciiText(e)
		}
		return n
	case []ev:
		n := 0
		for _, e := range x {
			n += asciiText(e)
		}
		return n
	}
	return 0
}

//contract:proves ag-ui.reader.text-units ag-ui.limit.text-units
func TestTextUnitsLimit(t *testing.T) {
	t.Parallel()
	record := func(filler string) []ev {
		return run(
			ev{"type": contract.EventTextMessageStart, "messageId": "m"},
			ev{"type": contract.EventTextMessageContent, "messageId": "m", "delta": filler},
			ev{"type": contract.EventTextMessageEnd, "messageId": "m"})
	}
	rest := asciiText(record(""))
	atLimit := strings.Repeat("x", contract.LimitTextUnits-rest)
	accept(t, stand, lines(t, record(atLimit)...))
	accept(t, v11, lines(t, record(atLimit)...))
	// The sum crosses the limit at the record's last string: RUN_FINISHED's
	// type (members are written in name order).
	reject(t, stand, lines(t, record(atLimit+"x")...), 4, "/type", contract.RuleReaderTextUnits)
	reject(t, v11, lines(t, record(atLimit+"x")...), 4, "/type", contract.RuleReaderTextUnits)
	// A character outside the Basic Multilingual Plane is two UTF-16 code
	// units, as JavaScript counts it.
	twoShort := atLimit[2:]
	accept(t, stand, lines(t, record(twoShort+"😀")...))
	reject(t, stand, lines(t, record(twoShort+"x😀")...), 4, "/type", contract.RuleReaderTextUnits)
	// The same events as Go values (CheckValues): the same budget, the
	// same finding.
	acceptDirect(t, stand, record(atLimit))
	acceptDirect(t, v11, record(atLimit))
	rejectDirect(t, stand, record(atLimit+"x"), 4, "/type", contract.RuleReaderTextUnits)
	rejectDirect(t, v11, record(atLimit+"x"), 4, "/type", contract.RuleReaderTextUnits)
	acceptDirect(t, stand, record(twoShort+"😀"))
	rejectDirect(t, stand, record(twoShort+"x😀"), 4, "/type", contract.RuleReaderTextUnits)
	if got := utf16Len("a😀é"); got != 4 {
		t.Errorf("utf16Len = %d, want 4", got)
	}
}

// snapshotWith builds a stand record whose snapshot holds lit at /n.
func snapshotWith(t *testing.T, lit string) []byte {
	return lines(t, run(ev{"type": contract.EventStateSnapshot, "snapshot": ev{"n": json.RawMessage(lit)}})...)
}

//contract:proves ag-ui.reader.integer-range ag-ui.reader.fraction-round-trip ag-ui.reader.negative-zero ag-ui.reader.number-overflow ag-ui.protocol.max-integer ag-ui.protocol.min-integer
func TestNumberRules(t *testing.T) {
	accepted := []string{"0", "1", "-1", "1.0", "1e2", "1E+2", "0e10", "0.1", "1.5", "-2.5e-3", "100.000",
		"9007199254740991", "-9007199254740991", "9007199254740991.0", "90071992547409.91e2"}
	for _, lit := range accepted {
		t.Run("accept "+lit, func(t *testing.T) {
			r := accept(t, stand, snapshotWith(t, lit))
			// The literal is kept as written: nothing is normalised.
			if want := `{"n":` + lit + `}`; string(r.State) != want {
				t.Errorf("state %s, want %s", r.State, want)
			}
		})
	}
	rejected := []struct{ lit, rule string }{
		{"9007199254740992", contract.RuleReaderIntegerRange},
		{"-9007199254740992", contract.RuleReaderIntegerRange},
		{"1e16", contract.RuleReaderIntegerRange},
		{"12345678901234567890", contract.RuleReaderIntegerRange},
		{"9007199254740992.0", contract.RuleReaderIntegerRange},
		{"-0", contract.RuleReaderNegativeZero},
		{"-0.0", contract.RuleReaderNegativeZero},
		{"-0e5", contract.RuleReaderNegativeZero},
		{"1e400", contract.RuleReaderNumberOverflow},
		{"-1.5e309", contract.RuleReaderNumberOverflow},
		{"1e-400", contract.RuleReaderNumberOverflow},
		{"1e99999999999999999999", contract.RuleReaderNumberOverflow},
		{"0.1000000000000000055511151231257827", contract.RuleReaderFractionRoundTrip},
		{"3.14159265358979323846", contract.RuleReaderFractionRoundTrip},
		{"1.00000000000000001", contract.RuleReaderFractionRoundTrip},
	}
	for _, c := range rejected {
		t.Run("reject "+c.lit, func(t *testing.T) {
			reject(t, stand, snapshotWith(t, c.lit), 1, "/snapshot/n", c.rule)
		})
	}
	// The number rules belong to the stand; AG-UI 1.1 carries such values
	// as data.
	for _, lit := range []string{"-0", "9007199254740992", "0.1000000000000000055511151231257827"} {
		accept(t, v11, snapshotWith(t, lit))
	}
	// Integers in members the contract types as integers are bounded in
	// both profiles by the generated decoder.
	ts := lines(t, ev{"type": contract.EventRunStarted, "threadId": "t", "runId": "r", "timestamp": json.RawMessage("9007199254740992")})
	reject(t, v11, ts, 0, "/timestamp", contract.RuleStructureEventSchema)
}

//contract:proves ag-ui.reader.unpaired-surrogates
func TestStringRules(t *testing.T) {
	raw := func(snapshot string) []byte {
		return []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n" +
			`{"type":"STATE_SNAPSHOT","snapshot":` + snapshot + `}` + "\n")
	}
	for _, p := range []string{stand, v11} {
		reject(t, p, raw(`{"s":"\ud800"}`), 1, "/snapshot/s", contract.RuleReaderUnpairedSurrogates)
		reject(t, p, raw(`{"s":"x\udc00y"}`), 1, "/snapshot/s", contract.RuleReaderUnpairedSurrogates)
		reject(t, p, raw(`{"s":"\ud800\u0041"}`), 1, "/snapshot/s", contract.RuleReaderUnpairedSurrogates)
		// In a member name as well.
		r := check(t, p, raw(`{"\udc00":1}`))
		if r.Accepted || r.Findings[0].Rule != contract.RuleReaderUnpairedSurrogates || r.Findings[0].Event != 1 {
			t.Errorf("%s: lone surrogate in a name: %v", p, r.Findings)
		}
	}
	// Valid text is kept exactly: a surrogate pair decodes to its
	// character, and a decomposed é is not composed.
	r := accept(t, stand, raw(`{"emoji":"\ud83d\ude00","e":"e\u0301"}`))
	var state map[string]string
	if err := json.Unmarshal(r.State, &state); err != nil {
		t.Fatal(err)
	}
	if state["emoji"] != "😀" || state["e"] != "e\u0301" || state["e"] == "é" {
		t.Errorf("state %q", state)
	}
}

//contract:proves ag-ui.reader.duplicate-names
func TestDuplicateNames(t *testing.T) {
	data := []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}` + "\n" +
		`{"type":"STATE_SNAPSHOT","snapshot":{"a":1,"\u0061":2}}` + "\n")
	for _, p := range []string{stand, v11} {
		r := check(t, p, data)
		if r.Accepted || r.Findings[0].Rule != contract.RuleReaderDuplicateNames || r.Findings[0].Event != 1 {
			t.Errorf("%s: %v", p, r.Findings)
		}
	}
	// In the event object itself, names compared after unescaping.
	reject(t, stand, []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r","\u0072unId":"x"}`), 0, "/runId", contract.RuleReaderDuplicateNames)
}

//contract:proves ag-ui.reader.json ag-ui.reader.record-shape
func TestRecordShapeAndSyntax(t *testing.T) {
	start := `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`
	reject(t, stand, []byte(start+"\n{\"type\":\n"), 1, "/type", contract.RuleReaderJSON)
	reject(t, stand, []byte("\xef\xbb\xbf"+start), 0, "", contract.RuleReaderJSON)
	reject(t, stand, []byte("["+start+",]"), 1, "", contract.RuleReaderJSON)
	reject(t, stand, []byte(start+"\n\xff\n"), 1, "", contract.RuleReaderJSON)
	reject(t, stand, []byte(start+"\n[1]\n"), 1, "", contract.RuleReaderRecordShape)
	reject(t, stand, []byte("["+start+",5]"), 1, "", contract.RuleReaderRecordShape)
	reject(t, stand, []byte("[]"), FileLevel, "", contract.RuleReaderRecordShape)
	reject(t, stand, []byte(`"RUN_STARTED"`), 0, "", contract.RuleReaderRecordShape)
	// Blank lines between events are skipped; event indexes count events.
	reject(t, stand, []byte(start+"\n\n   \r\n{\"type\":\"STEP_FINISHED\",\"stepName\":\"s\"}\n"), 1, "/stepName", contract.RuleSequenceStep)
	// Nothing at all is not a record.
	for _, empty := range []string{"", "  \n\t\r\n"} {
		_, err := Check([]byte(empty), Options{})
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("Check(%q) error %v, want an InputError", empty, err)
		}
	}
	if _, err := Check([]byte(start), Options{Profile: "loose"}); err == nil {
		t.Error("an unknown profile was accepted")
	}
}

// A record of lines takes its lists from lineListPool with room for every
// line, and gives them back emptied: the pool keeps neither the trees nor
// the record's bytes alive. Lists past maxPooledList entries are dropped.
func TestLineListsPooled(t *testing.T) {
	p, err := LookupProfile(v11)
	if err != nil {
		t.Fatal(err)
	}
	data := lines(t, run(text(contract.EventTextMessageStart, "m"), text(contract.EventTextMessageEnd, "m"))...)
	var a strictjson.Arena
	rec, err := readRecord(data, p, true, &a)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.events) != 4 || rec.lists == nil || cap(rec.events) < 4 || cap(rec.srcs) < 4 {
		t.Fatalf("events %d, lists %v, room %d/%d", len(rec.events), rec.lists != nil, cap(rec.events), cap(rec.srcs))
	}
	l := rec.lists
	rec.free()
	if rec.lists != nil || rec.events != nil || rec.srcs != nil {
		t.Error("the record still holds its lists after free")
	}
	if len(l.events) != 0 || cap(l.events) < 4 || len(l.srcs) != 0 || cap(l.srcs) < 4 {
		t.Fatalf("the freed lists: length %d/%d, room %d/%d", len(l.events), len(l.srcs), cap(l.events), cap(l.srcs))
	}
	events, srcs := l.events[:cap(l.events)], l.srcs[:cap(l.srcs)]
	for i := range events {
		if events[i] != nil || srcs[i] != nil {
			t.Fatalf("the freed lists still refer to event %d", i)
		}
	}
	// The lists are kept while they hold at most maxPooledList entries.
	for _, size := range []int{maxPooledList, maxPooledList + 1} {
		list := make([]*strictjson.Value, 1, size)
		list[0] = new(strictjson.Value)
		kept := emptied(list)
		if list[0] != nil {
			t.Errorf("%d entries: the list still refers to its value", size)
		}
		if (kept != nil) != (size <= maxPooledList) || kept != nil && (len(kept) != 0 || cap(kept) != size) {
			t.Errorf("%d entries: kept %v, length %d, room %d", size, kept != nil, len(kept), cap(kept))
		}
	}
	// Room for every line, up to the events a record may hold and the one
	// past them that the reader refuses; none of it for lines a record
	// does not have.
	lim := limits{events: contract.LimitEvents}
	for _, c := range []struct{ newlines, room int }{
		{0, 1}, {3, 4}, {contract.LimitEvents - 1, contract.LimitEvents}, {contract.LimitEvents, contract.LimitEvents + 1},
		{contract.LimitEvents + 1, contract.LimitEvents + 1}, {3 * contract.LimitEvents, contract.LimitEvents + 1},
	} {
		if got := lineRoom(bytes.Repeat([]byte("\n"), c.newlines), lim); got != c.room {
			t.Errorf("%d newlines: room for %d, want %d", c.newlines, got, c.room)
		}
	}
	if got := lineRoom(bytes.Repeat([]byte("\n"), 3*contract.LimitEvents), limits{}); got != 3*contract.LimitEvents+1 {
		t.Errorf("without an event limit: room for %d", got)
	}
}
