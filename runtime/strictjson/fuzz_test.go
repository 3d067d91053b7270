package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds are interesting inputs for FuzzParse: edge cases of every rule,
// plus the error table.
var fuzzSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"x","params":[1,2.5e-3,"s",true,false,null,{}]}`,
	`[1,2,]`, `{"a":1,}`, `01`, `-`, `-0`, `1.`, `1e`, `1E+2`, `.5`, `+1`, `NaN`,
	`"\uD800"`, `"\uDC00"`, `"\uD83D\uDE00"`, `"\uD800\uD800\uDC00"`, `"\uD800\u0041"`,
	`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"a":{"a":1},"a ":2}`,
	"\xef\xbb\xbf{}", "\"\xed\xa0\x80\"", "\"\xc0\xaf\"", "\"\x01\"", "[\xff]",
	"\"\u2028\"", `"\u0000"`, `"\/\b\f\n\r\t"`, ` `, ``, "[[[[[[[[[[]]]]]]]]]]",
	`{"":[{"":[{"":null}]}]}`, `[1e400,-1e-400,12345678901234567890123]`,
	`"` + strings.Repeat(`\u00e9`, 10) + `"`,
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	for _, c := range errCases {
		if len(c.in) < 1000 {
			f.Add([]byte(c.in))
		}
	}
	for _, s := range roundTripDocs {
		f.Add([]byte(s))
	}
	f.Add([]byte(smallDoc))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDifferential(t, data)
	})
}

// checkDifferential runs all the properties FuzzParse checks on one input.
func checkDifferential(t *testing.T, data []byte) {
	jsonValid := json.Valid(data)
	depth, unpaired := refScan(data, jsonValid)
	clean := jsonValid && utf8.Valid(data) && depth <= DefaultMaxDepth

	// Strict default options.
	v, err := Parse(data, Options{})
	agree(t, data, Options{}, v, err)
	if err == nil {
		if !jsonValid {
			t.Fatalf("Parse accepted %q, encoding/json rejects it", data)
		}
		checkOffsets(t, data, v)
		checkInterface(t, data, v)
		checkRecompact(t, v, Options{})
	} else if clean && !unpaired && !refHasDuplicates(data) {
		t.Fatalf("Parse rejected valid %q: %v", data, err)
	}

	// Permissive options: then Parse must accept exactly what encoding/json
	// accepts, minus invalid UTF-8, and decode it the same way.
	lax := Options{AllowDuplicateKeys: true, AllowUnpairedSurrogates: true}
	lv, lerr := Parse(data, lax)
	agree(t, data, lax, lv, lerr)
	if (lerr == nil) != clean {
		t.Fatalf("permissive Parse(%q) = %v, want success %v", data, lerr, clean)
	}
	if lerr == nil {
		checkOffsets(t, data, lv)
		checkInterface(t, data, lv)
		checkRecompact(t, lv, lax)
	}
	if err == nil && lerr != nil {
		t.Fatalf("strict accepts but permissive rejects %q", data)
	}

	// An arena reused across inputs, borrowing the input, gives the tree
	// Parse gives; a text budget of exactly the tree's units is enough and
	// one less is not.
	if err == nil {
		units := treeUnits(v)
		budget := units
		av, aerr := ParseIn(&fuzzArena, data, Options{Borrow: true, TextUnits: &budget})
		if aerr != nil || !bytes.Equal(av.AppendCompact(nil), v.AppendCompact(nil)) || budget != 0 {
			t.Fatalf("ParseIn(%q) = %v, %d units left; Parse gave %s", data, aerr, budget, v.AppendCompact(nil))
		}
		fuzzArena.Reset()
		if units > 0 {
			budget = units - 1
			_, aerr = ParseIn(&fuzzArena, data, Options{TextUnits: &budget})
			if e, ok := aerr.(*Error); !ok || e.Kind != ErrTextUnits {
				t.Fatalf("ParseIn(%q) with %d of %d units = %v", data, units-1, units, aerr)
			}
			fuzzArena.Reset()
		}
	}

	// Limits derived from the input: a limited parse must succeed exactly
	// when the unlimited tree is within the limits, and otherwise fail with
	// a limit error no later than the unlimited error.
	h := len(data)
	if len(data) > 0 {
		h += int(data[0]) + 7*int(data[len(data)-1])
	}
	lim := lax
	lim.MaxDepth = 1 + h%4
	lim.MaxValues = 1 + h%11
	mv, merr := Parse(data, lim)
	agree(t, data, lim, mv, merr)
	if lerr == nil {
		d, n := treeStats(lv)
		within := d <= lim.MaxDepth && n <= lim.MaxValues
		if (merr == nil) != within {
			t.Fatalf("limited Parse(%q) with %+v = %v; tree depth %d values %d", data, lim, merr, d, n)
		}
		if merr != nil {
			if k := merr.(*Error).Kind; k != ErrDepth && k != ErrValues {
				t.Fatalf("limited Parse(%q) failed with %v", data, merr)
			}
		}
	} else {
		if merr == nil {
			t.Fatalf("limited Parse(%q) accepted what unlimited rejects: %v", data, lerr)
		}
		me, le := merr.(*Error), lerr.(*Error)
		if *me != *le && !((me.Kind == ErrDepth || me.Kind == ErrValues) && me.Offset <= le.Offset) {
			t.Fatalf("limited Parse(%q) = %v, unlimited = %v", data, merr, lerr)
		}
	}
}

// fuzzArena is reused by every input, as a runtime reuses one.
var fuzzArena Arena

// treeUnits counts the UTF-16 code units of the names and strings of v.
func treeUnits(v *Value) int {
	n := 0
	units := func(s string) {
		for _, r := range s {
			n += utf16Units(r)
		}
	}
	switch v.Kind {
	case String:
		units(v.Str)
	case Array:
		for _, e := range v.Elems {
			n += treeUnits(e)
		}
	case Object:
		for _, m := range v.Members {
			units(m.Key)
			n += treeUnits(m.Value)
		}
	}
	return n
}

// agree checks that Valid and Parse give the same result and that errors
// are well formed.
func agree(t *testing.T, data []byte, opt Options, v *Value, err error) {
	t.Helper()
	verr := Valid(data, opt)
	if (err == nil) != (verr == nil) {
		t.Fatalf("Parse and Valid disagree on %q with %+v: %v vs %v", data, opt, err, verr)
	}
	if err == nil {
		if v == nil {
			t.Fatalf("nil value without error")
		}
		return
	}
	var pe, ve *Error
	if !errors.As(err, &pe) || !errors.As(verr, &ve) {
		t.Fatalf("errors are not *Error: %T %T", err, verr)
	}
	if *pe != *ve {
		t.Fatalf("Parse and Valid errors differ on %q: %#v vs %#v", data, pe, ve)
	}
	if pe.Kind < ErrSyntax || pe.Kind > ErrEmpty || pe.Offset < 0 || pe.Offset > len(data) || pe.Msg == "" {
		t.Fatalf("malformed error %#v for %q", pe, data)
	}
	if pe.Pointer != "" && pe.Pointer[0] != '/' {
		t.Fatalf("malformed pointer %q", pe.Pointer)
	}
	if v != nil {
		t.Fatalf("value returned with error")
	}
}

// checkRecompact checks that AppendCompact output parses back to the same
// compact form.
func checkRecompact(t *testing.T, v *Value, opt Options) {
	t.Helper()
	c := v.AppendCompact(nil)
	// Unpaired surrogates have become U+FFFD, so the output is always
	// strict except for duplicates.
	opt.AllowUnpairedSurrogates = false
	w, err := Parse(c, opt)
	if err != nil {
		t.Fatalf("AppendCompact output %q does not parse: %v", c, err)
	}
	if c2 := w.AppendCompact(nil); !bytes.Equal(c, c2) {
		t.Fatalf("AppendCompact not stable: %q then %q", c, c2)
	}
	if !json.Valid(c) {
		t.Fatalf("AppendCompact output %q rejected by encoding/json", c)
	}
}

// treeStats returns the nesting depth and value count of a tree.
func treeStats(v *Value) (depth, count int) {
	type item struct {
		v *Value
		d int
	}
	stack := []item{{v, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		count++
		if it.v.Kind == Array || it.v.Kind == Object {
			depth = max(depth, it.d+1)
			for _, e := range it.v.Elems {
				stack = append(stack, item{e, it.d + 1})
			}
			for _, m := range it.v.Members {
				stack = append(stack, item{m.Value, it.d + 1})
			}
		}
	}
	return depth, count
}

// refScan is an independent reference for two properties of a document
// that encoding/json accepts: its nesting depth and whether it contains a
// \u escape of a surrogate half that is not part of a high/low pair. For
// other input it returns zero values.
func refScan(data []byte, valid bool) (depth int, unpaired bool) {
	if !valid {
		return 0, false
	}
	hex := func(b []byte) int {
		n, err := strconv.ParseUint(string(b), 16, 32)
		if err != nil {
			return -1
		}
		return int(n)
	}
	d := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '[', '{':
			d++
			depth = max(depth, d)
		case ']', '}':
			d--
		case '"':
			for i++; data[i] != '"'; {
				if data[i] != '\\' {
					i++
					continue
				}
				if data[i+1] != 'u' {
					i += 2
					continue
				}
				r := hex(data[i+2 : i+6])
				switch {
				case r >= 0xD800 && r < 0xDC00:
					if i+12 <= len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
						if r2 := hex(data[i+8 : i+12]); r2 >= 0xDC00 && r2 < 0xE000 {
							i += 12
							continue
						}
					}
					unpaired = true
				case r >= 0xDC00 && r < 0xE000:
					unpaired = true
				}
				i += 6
			}
		}
	}
	return depth, unpaired
}

// refHasDuplicates reports whether a document that encoding/json accepts
// repeats a member name within one object, using encoding/json's tokenizer.
func refHasDuplicates(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type state struct {
		object  bool
		wantKey bool
		names   map[string]bool
	}
	var stack []state
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return false
		}
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				valueDone()
				continue
			}
			name := tok.(string)
			if stack[n-1].names[name] {
				return true
			}
			stack[n-1].names[name] = true
			stack[n-1].wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, state{object: true, wantKey: true, names: map[string]bool{}})
		case json.Delim('['):
			stack = append(stack, state{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", "\x00\x1f\"\\", "\u2028\u2029", "<>&", "\xff\xfe", "\xed\xa0\x80", "\U0001F600", "\ufffd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendString(nil, s)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if want := bytes.TrimSuffix(buf.Bytes(), []byte("\n")); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, encoding/json %s", s, got, want)
		}
		v, err := Parse(got, Options{})
		if err != nil {
			t.Fatalf("AppendString(%q) = %s does not parse: %v", s, got, err)
		}
		if utf8.ValidString(s) && v.Str != s {
			t.Fatalf("AppendString(%q) decodes to %q", s, v.Str)
		}
	})
}

// TestFuzzSeeds runs the differential checks over the seeds and a few
// generated inputs in plain `go test`.
func TestFuzzSeeds(t *testing.T) {
	inputs := append([]string{}, fuzzSeeds...)
	for _, c := range errCases {
		if len(c.in) <= 1<<16 {
			inputs = append(inputs, c.in)
		}
	}
	inputs = append(inputs, roundTripDocs...)
	inputs = append(inputs, string(largeDoc(8<<10)))
	for _, in := range inputs {
		checkDifferential(t, []byte(in))
	}
}
