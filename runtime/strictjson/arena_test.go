package strictjson

import (
	"bytes"
	"errors"
	"testing"
)

// A tree parsed into an arena is the tree Parse makes; after Reset the
// arena's memory serves the next document, and strings taken from the
// first tree stay what they were.
func TestParseIn(t *testing.T) {
	var a Arena
	docs := [][]byte{largeDoc(64 << 10), []byte(smallDoc), largeDoc(8 << 10)}
	for round := 0; round < 2; round++ {
		for _, doc := range docs {
			want, err := Parse(doc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseIn(&a, doc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.AppendCompact(nil), want.AppendCompact(nil)) {
				t.Fatalf("round %d: the arena's tree differs from Parse's", round)
			}
			var names []string
			for _, m := range got.Members {
				names = append(names, m.Key)
			}
			a.Reset()
			if _, err := ParseIn(&a, []byte(`{"overwritten":"yes","version":"9"}`), Options{}); err != nil {
				t.Fatal(err)
			}
			for i, m := range want.Members {
				if names[i] != m.Key {
					t.Errorf("a string of the first tree changed after Reset: %q, want %q", names[i], m.Key)
				}
			}
			a.Reset()
		}
	}
	// Small documents one after another share blocks, as the lines of a
	// record do: two thousand of them fit in a few.
	a.Reset()
	for i := 0; i < 2000; i++ {
		if _, err := ParseIn(&a, []byte(smallDoc), Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(a.vals.blocks); n > 20 {
		t.Errorf("2000 small documents took %d blocks of values", n)
	}
	a.Reset()
	// Limits and errors are Parse's.
	if _, err := ParseIn(&a, []byte(`[[1]]`), Options{MaxDepth: 1}); err == nil {
		t.Error("the depth limit does not apply")
	}
	if _, err := ParseIn(&a, []byte(`{"a":1,"a":2}`), Options{}); err == nil {
		t.Error("a duplicate name was accepted")
	}
}

// BenchmarkParseIn parses the same document into one arena again and
// again, as a runtime reading record after record does.
func BenchmarkParseIn(b *testing.B) {
	doc := benchDocs[1].data
	var a Arena
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		a.Reset()
		if _, err := ParseIn(&a, doc, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// The text-unit budget counts names and strings after unescaping, in
// UTF-16 code units, across every document that shares it, and fails at
// the name or string that overdraws it.
func TestTextUnitsBudget(t *testing.T) {
	// "a" 1, "é" 1, "😀" 2 (written escaped as a pair), "k" 1: 5 units.
	doc := []byte(`{"a":["é","\ud83d\ude00"],"k":1}`)
	for _, c := range []struct {
		budget int
		ok     bool
	}{{5, true}, {4, false}} {
		budget := c.budget
		_, err := Parse(doc, Options{TextUnits: &budget})
		if (err == nil) != c.ok {
			t.Errorf("budget %d: %v", c.budget, err)
		}
		if !c.ok {
			var se *Error
			if !errorsAs(err, &se) || se.Kind != ErrTextUnits || se.Pointer != "/k" {
				t.Errorf("budget %d: %v, want ErrTextUnits at /k", c.budget, err)
			}
		}
		if c.ok && budget != 0 {
			t.Errorf("budget left %d, want 0", budget)
		}
	}
	// One budget, two documents; Valid counts as Parse does.
	budget := 3
	if err := Valid([]byte(`"ab"`), Options{TextUnits: &budget}); err != nil || budget != 1 {
		t.Fatalf("first: %v, %d left", err, budget)
	}
	if _, err := Parse([]byte(`["c","d"]`), Options{TextUnits: &budget}); err == nil {
		t.Error("the second document overdrew the shared budget")
	}
}

// The number hook sees every literal as written and can refuse one.
func TestNumberHook(t *testing.T) {
	var seen []string
	hook := func(lit []byte) error {
		seen = append(seen, string(lit))
		if string(lit) == "-0" {
			return errString("negative zero")
		}
		return nil
	}
	if _, err := Parse([]byte(`[1, 2.50, 1e3]`), Options{Number: hook}); err != nil || len(seen) != 3 || seen[1] != "2.50" {
		t.Errorf("%v %q", err, seen)
	}
	_, err := Parse([]byte(`{"a":[0,-0]}`), Options{Number: hook})
	var se *Error
	if !errorsAs(err, &se) || se.Kind != ErrNumber || se.Pointer != "/a/1" || se.Msg != "negative zero" {
		t.Errorf("%v", err)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func errorsAs(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}

// With Borrow the tree's strings are the input's bytes; without it they
// are a copy that the input no longer touches.
func TestBorrow(t *testing.T) {
	for _, borrow := range []bool{false, true} {
		data := []byte(`{"name":"first"}`)
		v, err := Parse(data, Options{Borrow: borrow})
		if err != nil {
			t.Fatal(err)
		}
		name := v.Get("name").Str
		copy(data[9:14], "xxxxx")
		if changed := name != "first"; changed != borrow {
			t.Errorf("borrow %v: the string is %q after the input changed", borrow, name)
		}
	}
	// An arena's parser that borrowed its last document copies the next
	// one when that one's options ask it to.
	var a Arena
	if _, err := ParseIn(&a, []byte(`{"name":"first"}`), Options{Borrow: true}); err != nil {
		t.Fatal(err)
	}
	data := []byte(`{"name":"again"}`)
	v, err := ParseIn(&a, data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	name := v.Get("name").Str
	copy(data[9:14], "xxxxx")
	if name != "again" {
		t.Errorf("the string of a copied document is %q after the input changed", name)
	}
}

// An arena keeps its parser from one document to the next without a
// Reset between them, as a stream's lines are parsed: whatever a document
// leaves in it (names of an object for the duplicate check, open
// containers after an error, the pointer and the limits of the last
// document) must not change how the next one reads.
func TestParseInKeepsNoState(t *testing.T) {
	var a Arena
	many := func(n int) string {
		var b bytes.Buffer
		b.WriteString(`{`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"k` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":[1,{"x":"\u00e9"}]`)
		}
		b.WriteString(`}`)
		return b.String()
	}
	docs := []struct {
		doc string
		opt Options
	}{
		{`{"type":"A","id":"1","nested":{"type":"B","id":"2"}}`, Options{}},
		{many(40), Options{}},               // past mapThreshold: the names go in a map
		{`{"a":1,"b":{"c":[1,2`, Options{}}, // ends inside two containers
		{`{"a":1,"b":{"a":2,"b":3},"c":4}`, Options{}},
		{`{"type":"A","type":"B"}`, Options{}},
		{`{"type":"A","id":"1"}`, Options{}},
		{`[[[[1]]]]`, Options{MaxDepth: 3}},
		{`[[[1]]]`, Options{MaxDepth: 3}},
		{`[1,2,3,4]`, Options{MaxValues: 4}},
		{`[1,2,3]`, Options{MaxValues: 4}},
		{many(40), Options{}},
		// The options of one document do not carry into the next: the
		// parser an arena keeps keeps the last ones until then.
		{`{"a":1,"a":2}`, Options{AllowDuplicateKeys: true}},
		{`{"a":1,"a":2}`, Options{}},
		{`["\ud800"]`, Options{AllowUnpairedSurrogates: true}},
		{`["\ud800"]`, Options{}},
		{`[1,2]`, Options{Number: func([]byte) error { return errors.New("no numbers here") }}},
		{`[1,2]`, Options{}},
	}
	for round := 0; round < 3; round++ {
		for i, d := range docs {
			want, wantErr := Parse([]byte(d.doc), d.opt)
			got, err := ParseIn(&a, []byte(d.doc), d.opt)
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("round %d, document %d: error %v, Parse gives %v", round, i, err, wantErr)
			}
			if err != nil {
				if err.Error() != wantErr.Error() {
					t.Errorf("round %d, document %d: error %q, Parse gives %q", round, i, err, wantErr)
				}
				continue
			}
			if !bytes.Equal(got.AppendCompact(nil), want.AppendCompact(nil)) {
				t.Errorf("round %d, document %d: the tree differs from Parse's", round, i)
			}
		}
		if round == 1 {
			a.Reset()
		}
	}
}

// Values counts every scalar, array and object of the last document, as
// MaxValues counts them, and nothing after a failed parse.
func TestArenaValues(t *testing.T) {
	var a Arena
	if a.Values() != 0 {
		t.Fatalf("a fresh arena reports %d values", a.Values())
	}
	for _, c := range []struct {
		doc  string
		want int
	}{
		{`1`, 1},
		{`[]`, 1},
		{`{}`, 1},
		{`{"a":[1,2,{"b":null}],"c":"x"}`, 7},
		{` [[[]], {"k": true}, false, -0.5e3, "\u00e9"] `, 8},
	} {
		if _, err := ParseIn(&a, []byte(c.doc), Options{}); err != nil {
			t.Fatalf("%s: %v", c.doc, err)
		}
		if a.Values() != c.want {
			t.Errorf("%s: %d values, want %d", c.doc, a.Values(), c.want)
		}
		// The limit agrees: the document parses with MaxValues at its
		// count and fails one below.
		var b Arena
		if _, err := ParseIn(&b, []byte(c.doc), Options{MaxValues: c.want}); err != nil {
			t.Errorf("%s at MaxValues %d: %v", c.doc, c.want, err)
		}
		if c.want > 1 {
			if _, err := ParseIn(&b, []byte(c.doc), Options{MaxValues: c.want - 1}); err == nil {
				t.Errorf("%s parses at MaxValues %d", c.doc, c.want-1)
			}
		}
	}
	if _, err := ParseIn(&a, []byte(`[1,2,`), Options{}); err == nil || a.Values() != 0 {
		t.Errorf("after a failed parse: %v, %d values", err, a.Values())
	}
}
