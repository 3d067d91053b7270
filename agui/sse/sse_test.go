package sse

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// got is an event as the tests compare it.
type got struct{ Type, Data, ID string }

// parseAll parses stream written in the given pieces and returns the
// events and the retry value it left.
func parseAll(t testing.TB, max int, pieces ...[]byte) ([]got, int, error) {
	t.Helper()
	return parseWith(t, max, nil, pieces...)
}

// parseWith is parseAll with spill, when not nil, as the parser's Spill.
func parseWith(t testing.TB, max int, spill Spill, pieces ...[]byte) ([]got, int, error) {
	t.Helper()
	var out []got
	p := New(max, func(e Event) error {
		out = append(out, got{e.Type, string(e.Data), e.LastEventID})
		return nil
	})
	p.Spill = spill
	for _, b := range pieces {
		if _, err := p.Write(b); err != nil {
			return out, p.Retry, err
		}
	}
	return out, p.Retry, p.Close()
}

// everySplit parses stream whole, then split in two at every byte, then
// in three at every pair of bytes, then a byte at a time, and fails unless
// every parse gives want.
func everySplit(t *testing.T, stream string, want []got) {
	t.Helper()
	everySplitSpill(t, 0, false, stream, want)
}

// everySplitSpill is everySplit with a parser bounded at max, given a
// Spill when spill is set, which must take nothing.
func everySplitSpill(t *testing.T, max int, spill bool, stream string, want []got) {
	t.Helper()
	eachSplit(stream, func(how string, pieces ...[]byte) {
		t.Helper()
		var s *spiller
		var sp Spill
		if spill {
			s = &spiller{}
			sp = s
		}
		events, _, err := parseWith(t, max, sp, pieces...)
		if err != nil || !reflect.DeepEqual(events, want) {
			t.Fatalf("%q %s: %v, %+v; want %+v", stream, how, err, events, want)
		}
		if s != nil && (len(s.cur) > 0 || s.drops > 0) {
			t.Fatalf("%q %s: %q spilled, %d drops", stream, how, s.cur, s.drops)
		}
	})
}

// eachSplit calls check with stream whole, split in two at every byte, in
// three at every pair of bytes, and a byte at a time.
func eachSplit(stream string, check func(how string, pieces ...[]byte)) {
	b := []byte(stream)
	check("whole", b)
	for i := 0; i <= len(b); i++ {
		check(fmt.Sprintf("split at %d", i), b[:i], b[i:])
		for j := i; j <= len(b); j++ {
			check(fmt.Sprintf("split at %d and %d", i, j), b[:i], b[i:j], b[j:])
		}
	}
	var pieces [][]byte
	for i := range b {
		pieces = append(pieces, b[i:i+1])
	}
	check("byte by byte", pieces...)
}

func TestLineEnds(t *testing.T) {
	want := []got{{"message", "a", ""}, {"message", "b", ""}}
	for _, end := range []string{"\n", "\r", "\r\n"} {
		everySplit(t, "data: a"+end+end+"data: b"+end+end, want)
	}
	// Mixed in one stream; CR then LF across a split is one line end, not
	// two (which would dispatch an event early).
	everySplit(t, "data: a\r\ndata: b\r\rdata: c\n\r\n", []got{{"message", "a\nb", ""}, {"message", "c", ""}})
	// LF then CR is two line ends.
	everySplit(t, "data: a\n\rdata: b\n\n", []got{{"message", "a", ""}, {"message", "b", ""}})
}

// SawCR says whether any line so far ended with CR, alone or before LF,
// wherever the pieces split the stream; a CR before the first line's end,
// and one held with a BOM, count too.
func TestSawCR(t *testing.T) {
	for stream, want := range map[string]bool{
		"data: a\n\n":                 false,
		"\uFEFFdata: a\n\n":           false,
		": c\ndata: a\n\ndata: b\n\n": false,
		"data: a\r\n\r\n":             true,
		"data: a\r\r":                 true,
		"data: a\n\ndata: b\r\n\r\n":  true,
		"\uFEFF\r":                    true,
		"data: a\n\r\n":               true,
	} {
		b := []byte(stream)
		for i := 0; i <= len(b); i++ {
			p := New(0, func(Event) error { return nil })
			p.Write(b[:i])
			before := p.SawCR()
			p.Write(b[i:])
			if p.SawCR() != want {
				t.Errorf("%q split at %d: SawCR %v; want %v", stream, i, p.SawCR(), want)
			}
			if before && !bytes.ContainsRune(b[:i], '\r') {
				t.Errorf("%q split at %d: SawCR before any CR came", stream, i)
			}
		}
	}
}

func TestMultiLineDataAndFields(t *testing.T) {
	everySplit(t, "data: one\ndata: two\ndata\ndata:three\ndata:  four\n\n",
		[]got{{"message", "one\ntwo\n\nthree\n four", ""}})
	// The event field names the type; it resets after each event.
	everySplit(t, "event: patch\ndata: 1\n\ndata: 2\n\n", []got{{"patch", "1", ""}, {"message", "2", ""}})
	// An event without data is not dispatched, and its type is dropped.
	everySplit(t, "event: ping\n\ndata: x\n\n", []got{{"message", "x", ""}})
	// An empty data field still makes an event, with empty data.
	everySplit(t, "data:\n\n", []got{{"message", "", ""}})
	// Comments and unknown fields are ignored; a field name without a
	// colon is the whole line.
	everySplit(t, ": keep-alive\n:\nfoo: bar\nbaz\ndata: x\n\n", []got{{"message", "x", ""}})
	// The id persists across events; one holding NUL is ignored.
	everySplit(t, "id: 7\ndata: a\n\ndata: b\n\nid: x\x00y\ndata: c\n\nid\ndata: d\n\n",
		[]got{{"message", "a", "7"}, {"message", "b", "7"}, {"message", "c", "7"}, {"message", "d", ""}})
	// What is pending when the stream ends is discarded.
	everySplit(t, "data: a\n\ndata: cut", []got{{"message", "a", ""}})
	everySplit(t, "data: a\n\ndata: cut\n", []got{{"message", "a", ""}})
	// The field name is matched exactly: "Data" and "data " are others.
	everySplit(t, "Data: a\ndata : b\ndata: c\n\n", []got{{"message", "c", ""}})
}

func TestRetry(t *testing.T) {
	for stream, want := range map[string]int{
		"retry: 1500\n": 1500, "retry: 15x\n": -1, "retry:\n": -1, "retry: -1\n": -1,
		"retry: 1\nretry: oops\n": 1, "retry: 1234567890\n": -1,
	} {
		_, retry, err := parseAll(t, 0, []byte(stream))
		if err != nil || retry != want {
			t.Errorf("%q: retry %d (%v), want %d", stream, retry, err, want)
		}
	}
}

func TestByteOrderMark(t *testing.T) {
	// One leading BOM is dropped, wherever the pieces split it.
	everySplit(t, "\uFEFFdata: a\n\n", []got{{"message", "a", ""}})
	// Without it, the first field name is "\uFEFFdata" and not data.
	everySplit(t, "\uFEFF\uFEFFdata: a\n\ndata: b\n\n", []got{{"message", "b", ""}})
	// A BOM later in the stream is data like any other bytes.
	everySplit(t, "data: a\n\ndata: \uFEFFb\n\n", []got{{"message", "a", ""}, {"message", "\uFEFFb", ""}})
	// A stream shorter than a BOM that begins like one has no event.
	events, _, err := parseAll(t, 0, []byte{0xEF, 0xBB})
	if err != nil || len(events) != 0 {
		t.Errorf("two bytes of a BOM: %v %v", events, err)
	}
	// Bytes that begin like a BOM and are not one are kept.
	events, _, err = parseAll(t, 0, []byte{0xEF}, []byte("x\ndata: a\n\n"))
	if err != nil || len(events) != 1 {
		t.Errorf("EF then x: %v %v", events, err)
	}
}

func TestMultibyteSplits(t *testing.T) {
	// Data with two-, three- and four-byte characters: every split,
	// including inside a character, gives the same bytes.
	everySplit(t, "data: {\"t\":\"é€😀\"}\n\nevent: ж\ndata: 😀\n\n",
		[]got{{"message", `{"t":"é€😀"}`, ""}, {"ж", "😀", ""}})
	// Invalid UTF-8 passes through unchanged, for the reader of the data
	// to refuse.
	everySplit(t, "data: \xff\xfe\n\n", []got{{"message", "\xff\xfe", ""}})
}

// An event of one "data: " line and the empty line after it is handed
// over whole from the piece; it keeps the type and id the fields before it
// set, and a CR anywhere near it sends it the long way, with the same
// result.
func TestOneLineEvents(t *testing.T) {
	everySplit(t, "event: e\ndata: a\n\nid: 7\ndata: b\n\ndata: c\r\n\ndata: d\n\r\ndata: \n\n", []got{
		{"e", "a", ""}, {"message", "b", "7"}, {"message", "c", "7"}, {"message", "d", "7"}, {"message", "", "7"},
	})
}

func TestBound(t *testing.T) {
	// At the bound a line is taken, one byte past it is refused, wherever
	// the stream is split; the bound also covers the data gathered so far
	// together with the line being read.
	for _, tc := range []struct {
		stream string
		ok     bool
	}{
		{"data:xxxxx\n\n", true},         // a line of 10 bytes
		{"data: xxxx\n\n", true},         // 10, read whole from one piece when unsplit
		{"data: xxxxx\n\n", false},       // 11, likewise
		{"data:xxxxxx\n\n", false},       // 11
		{"data:xx\ndata:x\n\n", true},    // data "xx\n" (3) and the line "data:x" (6)
		{"data:xxx\ndata:xx\n\n", false}, // 4 and 7
		{": cccccccc\n", true},
		{": ccccccccc\n", false},
	} {
		for i := 0; i <= len(tc.stream); i++ {
			_, _, err := parseAll(t, 10, []byte(tc.stream[:i]), []byte(tc.stream[i:]))
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrTooLarge)) {
				t.Fatalf("%q split at %d: %v, want ok=%v", tc.stream, i, err, tc.ok)
			}
		}
	}
}

func TestHandlerErrorStops(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	p := New(0, func(Event) error { n++; return stop })
	if _, err := p.Write([]byte("data: a\n\ndata: b\n\n")); !errors.Is(err, stop) {
		t.Fatalf("Write: %v", err)
	}
	if _, err := p.Write([]byte("data: c\n\n")); !errors.Is(err, stop) || n != 1 {
		t.Fatalf("after the error: %v, %d events", err, n)
	}
}

// reference parses a whole stream with a second, plainer reading of the
// same rules: split into lines first, then read each line. It returns
// too, for each event, its data as sent: each data line followed by the
// first byte of its line end, but the last (see sentData).
func reference(stream []byte) ([]got, []string) {
	stream = bytes.TrimPrefix(stream, bom)
	var lines [][]byte
	var ends []byte
	for len(stream) > 0 {
		i := bytes.IndexAny(stream, "\r\n")
		if i < 0 {
			break // an unterminated last line never dispatches anything
		}
		lines, ends = append(lines, stream[:i]), append(ends, stream[i])
		if stream[i] == '\r' && i+1 < len(stream) && stream[i+1] == '\n' {
			i++
		}
		stream = stream[i+1:]
	}
	var out []got
	var sent []string
	var data []string
	asSent := ""
	typ, id := "", ""
	for n, l := range lines {
		s := string(l)
		switch {
		case s == "":
			if data != nil {
				t := typ
				if t == "" {
					t = "message"
				}
				out = append(out, got{t, strings.Join(data, "\n"), id})
				sent = append(sent, asSent[:len(asSent)-1])
			}
			data, typ, asSent = nil, "", ""
			continue
		case strings.HasPrefix(s, ":"):
			continue
		}
		name, value, found := strings.Cut(s, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch name {
		case "data":
			data = append(data, value)
			asSent += value + string(ends[n])
		case "event":
			typ = value
		case "id":
			if !strings.Contains(value, "\x00") {
				id = value
			}
		}
	}
	return out, sent
}

// sentData is an event's data with each line feed that stands for a CR
// the stream sent (Event.CRs) shown as that CR; an offset in CRs that is
// not a line feed's shows as '!'.
func sentData(e Event) string {
	b := []byte(string(e.Data))
	for _, i := range e.CRs {
		if i < 0 || i >= len(b) || b[i] != '\n' {
			return "!" + string(b)
		}
		b[i] = '\r'
	}
	return string(b)
}

// parseSent parses stream in the given pieces and returns each event's
// data as sent (sentData).
func parseSent(pieces ...[]byte) []string {
	var out []string
	p := New(0, func(e Event) error {
		out = append(out, sentData(e))
		return nil
	})
	for _, b := range pieces {
		p.Write(b)
	}
	p.Close()
	return out
}

// Event.CRs names the data lines the stream ended with CR, alone or
// before LF, wherever the pieces split the stream (the CR of a CRLF in
// one piece and its LF in the next, a BOM split off); lines ended with LF
// are not named, nor is the last data line, whose line end joins nothing.
func TestJoinsSentAsCR(t *testing.T) {
	for stream, want := range map[string][]string{
		"data: a\ndata: b\n\n":                    {"a\nb"},
		"data: a\rdata: b\r\r":                    {"a\rb"},
		"data: a\r\ndata: b\r\n\r\n":              {"a\rb"},
		"\uFEFFdata: a\r\ndata: b\ndata: c\r\n\n": {"a\rb\nc"},
		"data: a\ndata: b\rdata\r\ndata: d\n\n":   {"a\nb\r\rd"},
		// The first event's CRs are not the second's.
		"data: a\rdata: b\r\rdata: c\ndata: d\n\n": {"a\rb", "c\nd"},
		// One data line, whatever ends it, joins nothing.
		"data: a\r\rdata: b\r\n\r\ndata: c\n\n": {"a", "b", "c"},
		// An event cut by the end of the stream is none.
		"data: a\r\n\r\ndata: b\rdata: c\r": {"a"},
	} {
		eachSplit(stream, func(how string, pieces ...[]byte) {
			if got := parseSent(pieces...); !reflect.DeepEqual(got, want) {
				t.Errorf("%q %s: %q; want %q", stream, how, got, want)
			}
		})
		if _, ref := reference([]byte(stream)); !reflect.DeepEqual(ref, want) {
			t.Errorf("%q: the reference reads %q; want %q", stream, ref, want)
		}
	}
	// A parser used again after Close does not lend the cut event's CRs
	// to the next.
	p := New(0, func(e Event) error {
		if e.CRs != nil {
			t.Errorf("%q: CRs %v after a cut event", e.Data, e.CRs)
		}
		return nil
	})
	p.Write([]byte("data: a\rdata: b\r"))
	p.Close()
	p.Write([]byte("data: c\ndata: d\n\n"))

	// Nor does a spilled event lend its CRs to the next: its first line,
	// held, ended with CR (offset 1), and so did the lines that spilled.
	var crs [][]int
	p = New(4, func(e Event) error {
		if !e.Spilled {
			crs = append(crs, e.CRs)
		}
		return nil
	})
	p.Spill = &spiller{}
	p.Write([]byte("data: a\rdata: bbbbbbbb\rdata: c\r\rdata: c\ndata: d\n\n"))
	if err := p.Close(); err != nil || len(crs) != 1 || crs[0] != nil {
		t.Errorf("after a spilled event: CRs %v, Close %v; want one event with none", crs, err)
	}
}

// FuzzParser checks the parser against the plainer reading on any stream,
// written whole and in two pieces split at any byte.
func FuzzParser(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n", "\uFEFFdata: a\r\n\r\n", "event: e\rdata: é\r\r", ": c\ndata\n\n", "id: 1\ndata: x\n\nretry: 5\n",
		"data: a\r", "data: 😀\n\n", "data: a\r\ndata: b\ndata: c\rdata\n\n",
	} {
		f.Add([]byte(s), uint16(3))
	}
	f.Fuzz(func(t *testing.T, stream []byte, at uint16) {
		want, wantSent := reference(stream)
		i := int(at) % (len(stream) + 1)
		events, _, err := parseAll(t, 0, stream[:i], stream[i:])
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != len(want) || (len(want) > 0 && !reflect.DeepEqual(events, want)) {
			t.Fatalf("%q split at %d: %+v, want %+v", stream, i, events, want)
		}
		if sent := parseSent(stream[:i], stream[i:]); !reflect.DeepEqual(sent, wantSent) {
			t.Fatalf("%q split at %d: sent as %q, want %q", stream, i, sent, wantSent)
		}
	})
}

// spiller collects what a Parser spills.
type spiller struct {
	cur     []byte
	drops   int
	dropErr error // what Drop returns
}

func (s *spiller) Data(b []byte) error { s.cur = append(s.cur, b...); return nil }
func (s *spiller) Drop() error         { s.drops++; s.cur = nil; return s.dropErr }

// spilledEvent is an event as parseSpilling sees it.
type spilledEvent struct {
	Data    string
	Spilled bool
}

// parseSpilling parses stream in the given pieces with a Spill set and
// returns each event's data, held or spilled, and the drops.
func parseSpilling(t testing.TB, max int, pieces ...[]byte) ([]spilledEvent, int) {
	t.Helper()
	s := &spiller{}
	var out []spilledEvent
	p := New(max, func(e Event) error {
		if e.Spilled {
			if e.Data != nil {
				t.Fatalf("a spilled event with data %q", e.Data)
			}
			out = append(out, spilledEvent{string(s.cur), true})
			s.cur = nil
			return nil
		}
		if len(e.Data) > max {
			t.Fatalf("an event of %d bytes held, past the bound %d", len(e.Data), max)
		}
		out = append(out, spilledEvent{string(e.Data), false})
		return nil
	})
	p.Spill = s
	for _, b := range pieces {
		if _, err := p.Write(b); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return out, s.drops
}

// With a Spill, nothing is too large: the data of an event up to the
// bound is held, one byte more goes to the Spill, whole and in order
// (joining LFs included), wherever the stream is split; a comment or
// another field past the bound is dropped and changes nothing; an event
// the stream ends inside is dropped.
func TestSpill(t *testing.T) {
	for _, tc := range []struct {
		stream string
		want   []spilledEvent
		drops  int
	}{
		{"data: xxxxxxxxxx\n\n", []spilledEvent{{"xxxxxxxxxx", false}}, 0},         // 10, the bound
		{"data:xxxxxxxxxxx\n\n", []spilledEvent{{"xxxxxxxxxxx", true}}, 0},         // 11
		{"data: xxxxx\ndata: xxxx\n\n", []spilledEvent{{"xxxxx\nxxxx", false}}, 0}, // 5+1+4
		{"data: xxxxx\ndata: xxxxx\ndata\ndata: y\n\ndata: z\n\n", []spilledEvent{{"xxxxx\nxxxxx\n\ny", true}, {"z", false}}, 0},
		{"data: xxxxxxxxx\ndata\n\n", []spilledEvent{{"xxxxxxxxx\n", false}}, 0},        // 9+1+0: a data line with no colon at the bound
		{"data: xxxxxxxxx\ndata\ndata\n\n", []spilledEvent{{"xxxxxxxxx\n\n", true}}, 0}, // and one past it
		{"data: xxxxxxxxxxxxxxxxxxxx\r\n\r\ndata: a\r\rdata: b\n\n", []spilledEvent{{"xxxxxxxxxxxxxxxxxxxx", true}, {"a", false}, {"b", false}}, 0},
		{": " + strings.Repeat("c", 40) + "\ndata: a\n\n", []spilledEvent{{"a", false}}, 0},
		{"data: a\n: " + strings.Repeat("c", 40) + "\rid: " + strings.Repeat("9", 40) + "\r\ndata: b\n\n", []spilledEvent{{"a\nb", false}}, 0},
		{"data: a\nevent: " + strings.Repeat("e", 40) + "\n\n", []spilledEvent{{"a", false}}, 0},
		{"data: a\n\ndata: " + strings.Repeat("x", 30) + "\n", []spilledEvent{{"a", false}}, 1},
		{"data: a\n\ndata: " + strings.Repeat("x", 30), []spilledEvent{{"a", false}}, 1},
	} {
		eachSplit(tc.stream, func(how string, pieces ...[]byte) {
			t.Helper()
			events, drops := parseSpilling(t, 10, pieces...)
			if !reflect.DeepEqual(events, tc.want) || drops != tc.drops {
				t.Fatalf("%q %s: %+v, %d drops; want %+v, %d", tc.stream, how, events, drops, tc.want, tc.drops)
			}
		})
	}
}

// With a Spill, a field line at the bound is read and one a byte past it
// dropped, before the event's data or after it: an event type and an id
// of 10 bytes set the event's type and the last event id; of 11, neither
// changes. Wherever the stream is split.
func TestSpillFieldAtBound(t *testing.T) {
	everySplitSpill(t, 10, true, "event: abc\nid: 123456\ndata: a\n\nevent: abcd\nid: 1234567\ndata: b\n\n"+
		"data: c\nevent: xyz\nid: 654321\n\ndata: d\nevent: wxyz\nid: 7654321\n\n",
		[]got{{"abc", "a", "123456"}, {"message", "b", "123456"}, {"xyz", "c", "654321"}, {"message", "d", "654321"}})
}

// A spilled event has the type and the last event id a held one would:
// the event field's value, or "message" when the event had none.
func TestSpilledEventType(t *testing.T) {
	long := strings.Repeat("x", 20)
	stream := "event: e\nid: 7\ndata: " + long + "\n\ndata: " + long + "\n\n"
	want := []Event{{Type: "e", LastEventID: "7", Spilled: true}, {Type: "message", LastEventID: "7", Spilled: true}}
	eachSplit(stream, func(how string, pieces ...[]byte) {
		var events []Event
		p := New(10, func(e Event) error { events = append(events, e); return nil })
		p.Spill = &spiller{}
		for _, b := range pieces {
			p.Write(b)
		}
		if err := p.Close(); err != nil || !reflect.DeepEqual(events, want) {
			t.Fatalf("%s: %v, %+v; want %+v", how, err, events, want)
		}
	})
}

// A Spill given to a parser with no bound takes nothing: every event is
// held, and every field read, as without it, wherever the stream is split.
func TestSpillNoBound(t *testing.T) {
	long := strings.Repeat("x", 40)
	everySplitSpill(t, 0, true, "event: e\nid: 1\ndata: "+long+"\ndata\ndata: "+long+"\n\n: "+long+"\ndata: a\n\n",
		[]got{{"e", long + "\n\n" + long, "1"}, {"message", "a", "1"}})
}

// FuzzSpill checks the data a Parser with a Spill and a small bound
// gives, held or spilled, against the plainer reading.
func FuzzSpill(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n", "data: aaaaaaaa\ndata: b\n\n", ": cccccccccc\ndata\n\n", "event: eeeeeeeeeeee\rdata: é\r\r", "data:xxxxxxxxx\r\n\r\ndata\n\n",
		"data: xxxxx\ndata\ndata\n\n",
	} {
		f.Add([]byte(s), uint16(3))
	}
	f.Fuzz(func(t *testing.T, stream []byte, at uint16) {
		var want []string
		ref, _ := reference(stream)
		for _, e := range ref {
			want = append(want, e.Data)
		}
		i := int(at) % (len(stream) + 1)
		events, _ := parseSpilling(t, 6, stream[:i], stream[i:])
		var data []string
		for _, e := range events {
			data = append(data, e.Data)
		}
		if !reflect.DeepEqual(data, want) {
			t.Fatalf("%q split at %d: %q, want %q", stream, i, data, want)
		}
	})
}

// A Spill that cannot drop the event the stream ended inside says so, and
// Close returns what it said: the spilled bytes are not let go of
// silently. A Spill that dropped nothing, or did so without an error,
// leaves Close's nil.
func TestSpillDropError(t *testing.T) {
	failed := errors.New("the spilled bytes could not be dropped")
	for _, tc := range []struct {
		stream string
		want   error
		drops  int
	}{
		{"data: a\n\ndata: " + strings.Repeat("x", 30) + "\n", failed, 1}, // cut after a spilled line
		{"data: a\n\ndata: " + strings.Repeat("x", 30), failed, 1},        // cut inside it
		{"data: a\n\ndata: " + strings.Repeat("x", 30) + "\n\n", nil, 0},  // dispatched: nothing to drop
		{"data: a\n\ndata: xxxxxxxxxx\n", nil, 0},                         // cut, but held at the bound, not spilled
		{"data: a\n\n: " + strings.Repeat("c", 30) + "\ndata: b", nil, 0}, // a long comment dropped, a short event cut
	} {
		eachSplit(tc.stream, func(how string, pieces ...[]byte) {
			s := &spiller{dropErr: failed}
			p := New(10, func(Event) error { return nil })
			p.Spill = s
			for _, b := range pieces {
				if _, err := p.Write(b); err != nil {
					t.Fatalf("%q %s: Write: %v", tc.stream, how, err)
				}
			}
			if err := p.Close(); err != tc.want || s.drops != tc.drops {
				t.Fatalf("%q %s: Close %v after %d drops; want %v after %d", tc.stream, how, err, s.drops, tc.want, tc.drops)
			}
		})
	}
	// Without an error, the same cut drops the event and Close is nil.
	s := &spiller{}
	p := New(10, func(Event) error { return nil })
	p.Spill = s
	p.Write([]byte("data: " + strings.Repeat("x", 30)))
	if err := p.Close(); err != nil || s.drops != 1 {
		t.Errorf("a Drop without error: Close %v after %d drops", err, s.drops)
	}
}
