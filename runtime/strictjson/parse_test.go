package strictjson

import (
	"errors"
	"strings"
	"testing"
)

type errCase struct {
	name  string
	in    string
	opt   Options
	kind  ErrorKind
	off   int
	ptr   string
	msgIn string // optional substring of the message
}

var errCases = []errCase{
	// Empty input.
	{name: "empty", in: "", kind: ErrEmpty, off: 0},
	{name: "whitespace only", in: " \t\r\n", kind: ErrEmpty, off: 4},
	{name: "vertical tab is not whitespace", in: "\v1", kind: ErrSyntax, off: 0},
	{name: "form feed is not whitespace", in: "1\f", kind: ErrSyntax, off: 1},
	{name: "nbsp is not whitespace", in: "\u00a01", kind: ErrSyntax, off: 0},

	// Byte order mark.
	{name: "bom before value", in: "\xef\xbb\xbf{}", kind: ErrSyntax, off: 0, msgIn: "byte order mark"},
	{name: "bom only", in: "\xef\xbb\xbf", kind: ErrSyntax, off: 0},
	{name: "bom after value", in: "1\xef\xbb\xbf", kind: ErrSyntax, off: 1},

	// Numbers.
	{name: "leading zero", in: "01", kind: ErrSyntax, off: 1, msgIn: "leading zero"},
	{name: "leading zero negative", in: "-01", kind: ErrSyntax, off: 2},
	{name: "leading zero in member", in: `{"a":01}`, kind: ErrSyntax, off: 6, ptr: "/a"},
	{name: "double zero", in: "00", kind: ErrSyntax, off: 1},
	{name: "plus sign", in: "+1", kind: ErrSyntax, off: 0},
	{name: "plus sign in array", in: "[+1]", kind: ErrSyntax, off: 1, ptr: "/0"},
	{name: "minus alone", in: "-", kind: ErrSyntax, off: 1},
	{name: "minus letter", in: "-a", kind: ErrSyntax, off: 1},
	{name: "minus in array", in: "[-]", kind: ErrSyntax, off: 2, ptr: "/0"},
	{name: "double minus", in: "--1", kind: ErrSyntax, off: 1},
	{name: "leading point", in: ".5", kind: ErrSyntax, off: 0},
	{name: "trailing point eof", in: "1.", kind: ErrSyntax, off: 2},
	{name: "trailing point", in: "[1.]", kind: ErrSyntax, off: 3, ptr: "/0"},
	{name: "point then exponent", in: "1.e5", kind: ErrSyntax, off: 2},
	{name: "exponent without digits eof", in: "1e", kind: ErrSyntax, off: 2},
	{name: "exponent sign without digits eof", in: "1e+", kind: ErrSyntax, off: 3},
	{name: "exponent sign without digits", in: "[1e+x]", kind: ErrSyntax, off: 4, ptr: "/0"},
	{name: "exponent double sign", in: "1e+-1", kind: ErrSyntax, off: 3},
	{name: "hex number", in: "0x10", kind: ErrSyntax, off: 1},
	{name: "NaN", in: "NaN", kind: ErrSyntax, off: 0},
	{name: "Infinity", in: "Infinity", kind: ErrSyntax, off: 0},
	{name: "negative Infinity", in: "-Infinity", kind: ErrSyntax, off: 1},
	{name: "number then letter", in: "1x", kind: ErrSyntax, off: 1},

	// Literals.
	{name: "truncated true", in: "tru", kind: ErrSyntax, off: 3},
	{name: "misspelled true", in: "trux", kind: ErrSyntax, off: 3},
	{name: "capitalised", in: "True", kind: ErrSyntax, off: 0},
	{name: "null too long", in: "nulll", kind: ErrSyntax, off: 4},
	{name: "false in member truncated", in: `{"a":fals`, kind: ErrSyntax, off: 9, ptr: "/a"},
	{name: "undefined", in: "[undefined]", kind: ErrSyntax, off: 1, ptr: "/0"},

	// Containers and separators.
	{name: "trailing comma array", in: "[1,2,]", kind: ErrSyntax, off: 5, ptr: "/2"},
	{name: "trailing comma object", in: `{"a":1,}`, kind: ErrSyntax, off: 7},
	{name: "leading comma array", in: "[,1]", kind: ErrSyntax, off: 1, ptr: "/0"},
	{name: "lone comma object", in: "{,}", kind: ErrSyntax, off: 1},
	{name: "double comma", in: "[1,,2]", kind: ErrSyntax, off: 3, ptr: "/1"},
	{name: "missing comma array", in: "[1 2]", kind: ErrSyntax, off: 3},
	{name: "missing comma object", in: `{"a":1 "b":2}`, kind: ErrSyntax, off: 7},
	{name: "missing colon", in: `{"a" 1}`, kind: ErrSyntax, off: 5, ptr: "/a"},
	{name: "equals instead of colon", in: `{"a"=1}`, kind: ErrSyntax, off: 4, ptr: "/a"},
	{name: "missing value", in: `{"a":}`, kind: ErrSyntax, off: 5, ptr: "/a"},
	{name: "number as name", in: `{1:2}`, kind: ErrSyntax, off: 1},
	{name: "bare name", in: `{a:2}`, kind: ErrSyntax, off: 1},
	{name: "single quoted name", in: `{'a':1}`, kind: ErrSyntax, off: 1},
	{name: "single quoted value", in: `['a']`, kind: ErrSyntax, off: 1, ptr: "/0"},
	{name: "mismatched close", in: `[1}`, kind: ErrSyntax, off: 2},
	{name: "mismatched close object", in: `{"a":1]`, kind: ErrSyntax, off: 6},
	{name: "close without open", in: `]`, kind: ErrSyntax, off: 0},
	{name: "line comment", in: "// c\n1", kind: ErrSyntax, off: 0},
	{name: "block comment", in: "/* c */ 1", kind: ErrSyntax, off: 0},
	{name: "comment after value", in: "1 // c", kind: ErrSyntax, off: 2},
	{name: "comment in array", in: "[1,/*x*/2]", kind: ErrSyntax, off: 3, ptr: "/1"},

	// Truncation.
	{name: "truncated array", in: "[1,2", kind: ErrSyntax, off: 4, msgIn: "end of input"},
	{name: "truncated after comma", in: "[1,", kind: ErrSyntax, off: 3, ptr: "/1"},
	{name: "truncated after open", in: "[", kind: ErrSyntax, off: 1, ptr: "/0"},
	{name: "truncated object after open", in: "{", kind: ErrSyntax, off: 1},
	{name: "truncated after name", in: `{"a"`, kind: ErrSyntax, off: 4, ptr: "/a"},
	{name: "truncated after colon", in: `{"a":`, kind: ErrSyntax, off: 5, ptr: "/a"},
	{name: "truncated nested", in: `{"a":{"b":[`, kind: ErrSyntax, off: 11, ptr: "/a/b/0"},
	{name: "truncated string", in: `"abc`, kind: ErrSyntax, off: 4},
	{name: "truncated name", in: `{"ab`, kind: ErrSyntax, off: 4},
	{name: "truncated escape", in: `"\`, kind: ErrSyntax, off: 2},
	{name: "truncated unicode escape", in: `"\u12`, kind: ErrSyntax, off: 5},
	{name: "truncated after high surrogate", in: `"\uD800`, kind: ErrSyntax, off: 7},
	{name: "truncated after high surrogate backslash", in: `"\uD800\`, kind: ErrSyntax, off: 8},
	{name: "truncated low surrogate", in: `"\uD800\uDC`, kind: ErrSyntax, off: 11},

	// Trailing data.
	{name: "trailing garbage", in: "[1]x", kind: ErrSyntax, off: 3, msgIn: "after top-level value"},
	{name: "two values", in: "[1] [2]", kind: ErrSyntax, off: 4},
	{name: "two numbers", in: "1 2", kind: ErrSyntax, off: 2},
	{name: "trailing NUL", in: "{}\x00", kind: ErrSyntax, off: 2},
	{name: "trailing close", in: "[1]]", kind: ErrSyntax, off: 3},

	// Strings.
	{name: "invalid escape", in: `"\x"`, kind: ErrSyntax, off: 2},
	{name: "escaped single quote", in: `"\'"`, kind: ErrSyntax, off: 2},
	{name: "uppercase U escape", in: `"\U0041"`, kind: ErrSyntax, off: 2},
	{name: "bad hex digit", in: `"\u12G4"`, kind: ErrSyntax, off: 5},
	{name: "bad hex in low half", in: `"\uD800\uZZZZ"`, kind: ErrSyntax, off: 9},
	{name: "raw control char", in: "\"a\x01b\"", kind: ErrSyntax, off: 2, msgIn: "U+0001"},
	{name: "raw NUL in string", in: "[\"\x00\"]", kind: ErrSyntax, off: 2, ptr: "/0"},
	{name: "raw newline in string", in: "\"a\nb\"", kind: ErrSyntax, off: 2},
	{name: "raw tab in member", in: "{\"k\":\"x\ty\"}", kind: ErrSyntax, off: 7, ptr: "/k"},
	{name: "raw control in name", in: "{\"k\x1f\":1}", kind: ErrSyntax, off: 3},

	// UTF-8.
	{name: "invalid byte in string", in: "\"\xff\"", kind: ErrUTF8, off: 1},
	{name: "truncated sequence in string", in: "[\"a\",\"\xc3\"]", kind: ErrUTF8, off: 6, ptr: "/1"},
	{name: "continuation byte alone", in: "\"a\x80\"", kind: ErrUTF8, off: 2},
	{name: "overlong slash", in: "\"\xc0\xaf\"", kind: ErrUTF8, off: 1},
	{name: "overlong three byte", in: "\"\xe0\x80\xaf\"", kind: ErrUTF8, off: 1},
	{name: "overlong four byte", in: "\"\xf0\x80\x80\xaf\"", kind: ErrUTF8, off: 1},
	{name: "utf8 encoded high surrogate", in: "\"\xed\xa0\x80\"", kind: ErrUTF8, off: 1},
	{name: "utf8 encoded low surrogate", in: "\"x\xed\xb0\x80\"", kind: ErrUTF8, off: 2},
	{name: "beyond U+10FFFF", in: "\"\xf4\x90\x80\x80\"", kind: ErrUTF8, off: 1},
	{name: "invalid utf8 in name", in: "{\"a\xff\":1}", kind: ErrUTF8, off: 3},
	{name: "invalid utf8 at top level", in: "\xff", kind: ErrUTF8, off: 0},
	{name: "invalid utf8 as array value", in: "[1,\xff]", kind: ErrUTF8, off: 3, ptr: "/1"},
	{name: "invalid utf8 after value", in: "[1]\xfe", kind: ErrUTF8, off: 3},
	{name: "invalid utf8 between members", in: "{\"a\":1\xc0}", kind: ErrUTF8, off: 6},
	{name: "valid non-ASCII outside string", in: "[\u00e9]", kind: ErrSyntax, off: 1, ptr: "/0"},
	{name: "string truncated mid sequence", in: "\"\xe2\x82", kind: ErrUTF8, off: 1},

	// Duplicate member names.
	{name: "duplicate", in: `{"a":1,"a":2}`, kind: ErrDuplicateKey, off: 7, ptr: "/a", msgIn: `duplicate member name "a"`},
	{name: "duplicate escaped", in: `{"a":1,"\u0061":2}`, kind: ErrDuplicateKey, off: 7, ptr: "/a"},
	{name: "duplicate both escaped", in: `{"\/":1,"\u002F":2}`, kind: ErrDuplicateKey, off: 8, ptr: "/~1"},
	{name: "duplicate nested", in: `{"a":[0,1,2,{"b":1,"b":2}]}`, kind: ErrDuplicateKey, off: 19, ptr: "/a/3/b"},
	{name: "duplicate pointer escaping", in: `{"a/b":1,"a/b":2}`, kind: ErrDuplicateKey, off: 9, ptr: "/a~1b"},
	{name: "duplicate tilde", in: `{"~":{"x":1," x":2,"x":3}}`, kind: ErrDuplicateKey, off: 19, ptr: "/~0/x"},
	{name: "duplicate empty name", in: `{"":1,"":2}`, kind: ErrDuplicateKey, off: 6, ptr: "/"},
	{name: "duplicate in large object", in: largeObject(40, "k7"), kind: ErrDuplicateKey, off: len(largeObject(40, "")), ptr: "/k7"},
	{name: "duplicate escaped in large object", in: largeObject(40, `k\u0033`), kind: ErrDuplicateKey, off: len(largeObject(40, "")), ptr: "/k3"},
	{name: "duplicate first of large object", in: largeObject(17, "k0"), kind: ErrDuplicateKey, off: len(largeObject(17, "")), ptr: "/k0"},
	// Around mapThreshold (16): the last name found by scanning, and the
	// name whose arrival moved the names into a map, found in it.
	{name: "duplicate of the last scanned name", in: largeObject(16, "k15"), kind: ErrDuplicateKey, off: len(largeObject(16, "")), ptr: "/k15"},
	{name: "duplicate of the name that made the map", in: largeObject(17, "k16"), kind: ErrDuplicateKey, off: len(largeObject(17, "")), ptr: "/k16"},

	// Surrogate escapes.
	{name: "lone high surrogate", in: `"\uD800"`, kind: ErrSurrogate, off: 1, msgIn: "high surrogate"},
	{name: "lone low surrogate", in: `"\uDC00"`, kind: ErrSurrogate, off: 1, msgIn: "low surrogate"},
	{name: "high then BMP escape", in: `"\uD800\u0041"`, kind: ErrSurrogate, off: 1},
	{name: "high then high", in: `"\uD800\uD800"`, kind: ErrSurrogate, off: 1},
	{name: "high then other escape", in: `"\uD800\n"`, kind: ErrSurrogate, off: 1},
	{name: "high then plain char", in: `"\uD800x"`, kind: ErrSurrogate, off: 1},
	{name: "high then end of string", in: `"a\ud800"`, kind: ErrSurrogate, off: 2},
	{name: "low then high", in: `"x\uDC00\uD800"`, kind: ErrSurrogate, off: 2},
	{name: "lone low after a pair", in: `["\uD83D\uDE00", "\uDE00"]`, kind: ErrSurrogate, off: 18, ptr: "/1"},
	{name: "lone high in name", in: `{"\uD800":1}`, kind: ErrSurrogate, off: 2},
	{name: "lone low in nested name", in: `{"a":{"b\uDFFF":1}}`, kind: ErrSurrogate, off: 8, ptr: "/a"},
	{name: "surrogate with duplicates allowed", in: `{"a":"\uDBFF"}`, opt: Options{AllowDuplicateKeys: true}, kind: ErrSurrogate, off: 6, ptr: "/a"},

	// Depth.
	{name: "depth one past", in: "[[[1]]]", opt: Options{MaxDepth: 2}, kind: ErrDepth, off: 2, ptr: "/0/0"},
	{name: "depth one past objects", in: `{"a":{"b":{}}}`, opt: Options{MaxDepth: 2}, kind: ErrDepth, off: 10, ptr: "/a/b"},
	{name: "depth limit 1", in: `[[]]`, opt: Options{MaxDepth: 1}, kind: ErrDepth, off: 1, ptr: "/0"},
	{name: "depth default cap", in: strings.Repeat("[", DefaultMaxDepth+1), kind: ErrDepth, off: DefaultMaxDepth, ptr: strings.Repeat("/0", DefaultMaxDepth)},
	{name: "depth huge input", in: strings.Repeat("[", 1<<20), kind: ErrDepth, off: DefaultMaxDepth, ptr: strings.Repeat("/0", DefaultMaxDepth)},
	{name: "depth huge object input", in: strings.Repeat(`{"":`, 1<<18), opt: Options{MaxDepth: 3}, kind: ErrDepth, off: 12, ptr: "///"},

	// Value count.
	{name: "values one past", in: "[1,2,3]", opt: Options{MaxValues: 3}, kind: ErrValues, off: 5, ptr: "/2"},
	{name: "values one past object", in: `{"a":1,"b":2,"c":3}`, opt: Options{MaxValues: 3}, kind: ErrValues, off: 17, ptr: "/c"},
	{name: "values limit 1", in: "[1]", opt: Options{MaxValues: 1}, kind: ErrValues, off: 1, ptr: "/0"},
	{name: "values nested container", in: `[[],{}]`, opt: Options{MaxValues: 2}, kind: ErrValues, off: 4, ptr: "/1"},
	{name: "values huge input", in: "[" + strings.Repeat("0,", 1<<20) + "0]", opt: Options{MaxValues: 100}, kind: ErrValues, off: 199, ptr: "/99"},
}

// largeObject returns {"k0":0,...,"k{n-1}":n-1} and, if dup is not empty, a
// final member named dup (written raw, so it may contain escapes).
func largeObject(n int, dup string) string {
	var sb strings.Builder
	sb.WriteByte('{')
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`"k` + itoa(i) + `":` + itoa(i))
	}
	if dup != "" {
		sb.WriteString(`,"` + dup + `":0`)
	}
	sb.WriteByte('}')
	return sb.String()
}

func itoa(i int) string { return string(AppendInt(nil, int64(i))) }

func TestErrors(t *testing.T) {
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Parse([]byte(tc.in), tc.opt)
			if err == nil {
				t.Fatalf("Parse(%.60q) succeeded, want %v error", tc.in, tc.kind)
			}
			if v != nil {
				t.Errorf("Parse returned a value with an error")
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *Error", err)
			}
			if e.Kind != tc.kind || e.Offset != tc.off || e.Pointer != tc.ptr {
				t.Errorf("Parse(%.60q) = {%v, %d, %.60q} %v\nwant {%v, %d, %.60q}", tc.in, e.Kind, e.Offset, e.Pointer, e.Msg, tc.kind, tc.off, tc.ptr)
			}
			if tc.msgIn != "" && !strings.Contains(e.Msg, tc.msgIn) {
				t.Errorf("message %q does not contain %q", e.Msg, tc.msgIn)
			}
			checkMessage(t, err)
			verr := Valid([]byte(tc.in), tc.opt)
			if ve, ok := verr.(*Error); !ok || *ve != *e {
				t.Errorf("Valid = %v, Parse = %v", verr, err)
			}
		})
	}
}

func checkMessage(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	if !strings.HasPrefix(msg, "offset ") || strings.HasSuffix(msg, ".") || strings.ToLower(msg[:1]) != msg[:1] {
		t.Errorf("badly formed message %q", msg)
	}
}

func TestErrorString(t *testing.T) {
	e := &Error{Kind: ErrDuplicateKey, Offset: 17, Pointer: "/a/0", Msg: `duplicate member name "x"`}
	if got, want := e.Error(), `offset 17 (/a/0): duplicate member name "x"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	e = &Error{Kind: ErrEmpty, Msg: "empty input"}
	if got, want := e.Error(), `offset 0: empty input`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for k := ErrSyntax; k <= ErrEmpty; k++ {
		if s := k.String(); strings.HasPrefix(s, "ErrorKind(") {
			t.Errorf("ErrorKind %d has no name", k)
		}
	}
}

// TestAccepted covers inputs at the edge of each rule that must be accepted.
func TestAccepted(t *testing.T) {
	cases := []struct {
		name string
		in   string
		opt  Options
	}{
		{"zero", "0", Options{}},
		{"negative zero", "-0", Options{}},
		{"fraction exponent", "-0.0e-0", Options{}},
		{"capital exponent", "1E+2", Options{}},
		{"surrounding whitespace", " \t\r\n[ 1 , { \"a\" : null } ] \n", Options{}},
		{"DEL raw in string", "\"\x7f\"", Options{}},
		{"all escapes", `"\"\\\/\b\f\n\r\t\u0000\uFFFF\uD83D\uDE00"`, Options{}},
		{"lowercase pair", `"\ud83d\ude00"`, Options{}},
		{"raw U+FFFD", "\"\xef\xbf\xbd\"", Options{}},
		{"non-ASCII", "\"h\u00e9llo \u4e16\u754c \U0001F600\"", Options{}},
		{"max code point", "\"\xf4\x8f\xbf\xbf\"", Options{}},
		{"same name in different objects", `{"a":{"a":1},"b":[{"a":1},{"a":2}]}`, Options{}},
		{"names differing by case", `{"a":1,"A":2}`, Options{}},
		{"duplicates allowed", `{"a":1,"a":2,"\u0061":3}`, Options{AllowDuplicateKeys: true}},
		{"duplicates allowed large", largeObject(40, "k1"), Options{AllowDuplicateKeys: true}},
		{"large object no dups", largeObject(200, ""), Options{}},
		{"unpaired allowed", `["\uD800","\uDC00x","\uD800\uD800\uDC00",{"\uDFFF":1}]`, Options{AllowUnpairedSurrogates: true}},
		{"depth at limit", "[[1]]", Options{MaxDepth: 2}},
		{"depth at limit objects", `{"a":{"b":1}}`, Options{MaxDepth: 2}},
		{"scalar with depth 1", `"x"`, Options{MaxDepth: 1}},
		{"empty array depth 1", `[]`, Options{MaxDepth: 1}},
		{"default cap exactly", strings.Repeat("[", DefaultMaxDepth) + strings.Repeat("]", DefaultMaxDepth), Options{}},
		{"explicit limit above default", strings.Repeat("[", DefaultMaxDepth+5) + strings.Repeat("]", DefaultMaxDepth+5), Options{MaxDepth: DefaultMaxDepth + 5}},
		{"values at limit", "[1,2]", Options{MaxValues: 3}},
		{"values at limit object", `{"a":1,"b":[]}`, Options{MaxValues: 3}},
		{"values limit 1 scalar", `true`, Options{MaxValues: 1}},
		{"values limit 1 empty", `{}`, Options{MaxValues: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Parse([]byte(tc.in), tc.opt)
			if err != nil {
				t.Fatalf("Parse(%.60q): %v", tc.in, err)
			}
			if err := Valid([]byte(tc.in), tc.opt); err != nil {
				t.Fatalf("Valid(%.60q): %v", tc.in, err)
			}
			checkOffsets(t, []byte(tc.in), v)
		})
	}
}

// checkOffsets verifies the Start/End/KeyStart invariants over a tree.
func checkOffsets(t *testing.T, data []byte, root *Value) {
	t.Helper()
	stack := []*Value{root}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v.Start < 0 || v.End > len(data) || v.Start >= v.End {
			t.Fatalf("bad offsets %d..%d", v.Start, v.End)
		}
		text := string(data[v.Start:v.End])
		switch v.Kind {
		case Null:
			if text != "null" {
				t.Fatalf("null text %q", text)
			}
		case Bool:
			if text != map[bool]string{true: "true", false: "false"}[v.Bool] {
				t.Fatalf("bool text %q", text)
			}
		case Number:
			if text != v.Str {
				t.Fatalf("number text %q, Str %q", text, v.Str)
			}
		case String:
			if text[0] != '"' || text[len(text)-1] != '"' || len(text) < 2 {
				t.Fatalf("string text %q", text)
			}
			if !strings.Contains(text, `\`) && text[1:len(text)-1] != v.Str {
				t.Fatalf("string text %q, Str %q", text, v.Str)
			}
		case Array:
			if text[0] != '[' || text[len(text)-1] != ']' {
				t.Fatalf("array text %q", text)
			}
			last := v.Start
			for _, e := range v.Elems {
				if e.Start <= last || e.End >= v.End {
					t.Fatalf("element %d..%d outside/out of order in %d..%d", e.Start, e.End, v.Start, v.End)
				}
				last = e.End
				stack = append(stack, e)
			}
		case Object:
			if text[0] != '{' || text[len(text)-1] != '}' {
				t.Fatalf("object text %q", text)
			}
			last := v.Start
			for _, m := range v.Members {
				if m.KeyStart <= last || data[m.KeyStart] != '"' || m.Value.Start <= m.KeyStart || m.Value.End >= v.End {
					t.Fatalf("member %q at %d (value %d..%d) misplaced in %d..%d", m.Key, m.KeyStart, m.Value.Start, m.Value.End, v.Start, v.End)
				}
				last = m.Value.End
				stack = append(stack, m.Value)
			}
		default:
			t.Fatalf("bad kind %v", v.Kind)
		}
	}
}

func TestTree(t *testing.T) {
	in := ` {"a": [1, "x\n", true, false, null, -2.5e3], "b\u00e9": {"c": "plain"}, "": []} `
	v, err := Parse([]byte(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkOffsets(t, []byte(in), v)
	if v.Kind != Object || v.Start != 1 || v.End != len(in)-1 || len(v.Members) != 3 {
		t.Fatalf("root = %+v", v)
	}
	keys := []string{"a", "b\u00e9", ""}
	starts := []int{2, 46, 73}
	for i, m := range v.Members {
		if m.Key != keys[i] || m.KeyStart != starts[i] {
			t.Errorf("member %d = %q at %d, want %q at %d", i, m.Key, m.KeyStart, keys[i], starts[i])
		}
	}
	a := v.Get("a")
	if a == nil || a.Kind != Array || len(a.Elems) != 6 {
		t.Fatalf("a = %+v", a)
	}
	want := []struct {
		kind Kind
		str  string
		b    bool
		text string
	}{
		{Number, "1", false, "1"},
		{String, "x\n", false, `"x\n"`},
		{Bool, "", true, "true"},
		{Bool, "", false, "false"},
		{Null, "", false, "null"},
		{Number, "-2.5e3", false, "-2.5e3"},
	}
	for i, w := range want {
		e := a.Elems[i]
		if e.Kind != w.kind || e.Str != w.str || e.Bool != w.b || in[e.Start:e.End] != w.text {
			t.Errorf("elem %d = %v %q %v %q, want %v %q %v %q", i, e.Kind, e.Str, e.Bool, in[e.Start:e.End], w.kind, w.str, w.b, w.text)
		}
	}
	if got := v.Get("b\u00e9").Get("c"); got == nil || got.Str != "plain" {
		t.Errorf("Get chain = %+v", got)
	}
	if v.Get("missing") != nil || a.Get("a") != nil || v.Get("a").Get("x").Get("y") != nil {
		t.Errorf("Get on missing/non-object should be nil")
	}
	if e := v.Get(""); e == nil || e.Kind != Array || e.Elems != nil {
		t.Errorf(`Get("") = %+v`, e)
	}
	// Decoded strings.
	s, err := Parse([]byte(`"a\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00z"`), Options{})
	if err != nil || s.Str != "a\"\\/\b\f\n\r\t\u00e9\U0001F600z" {
		t.Errorf("decoded = %q, %v", s.Str, err)
	}
	u, err := Parse([]byte(`["\uD800", "a\uDC00b", "\uD800\uD83D\uDE00", "\uDBFF\u0041"]`), Options{AllowUnpairedSurrogates: true})
	if err != nil {
		t.Fatal(err)
	}
	wantU := []string{"\uFFFD", "a\uFFFDb", "\uFFFD\U0001F600", "\uFFFDA"}
	for i, w := range wantU {
		if u.Elems[i].Str != w {
			t.Errorf("unpaired %d = %q, want %q", i, u.Elems[i].Str, w)
		}
	}
	// Duplicate names kept in document order when allowed; Get returns the first.
	d, err := Parse([]byte(`{"a":1,"\u0061":2}`), Options{AllowDuplicateKeys: true})
	if err != nil || len(d.Members) != 2 || d.Get("a").Str != "1" || d.Members[1].Key != "a" || d.Members[1].KeyStart != 7 {
		t.Errorf("dups = %+v, %v", d, err)
	}
}

// TestInputNotRetained checks that the tree does not alias the input slice,
// which callers reuse as a read buffer.
func TestInputNotRetained(t *testing.T) {
	in := []byte(`{"name":"value","n":12,"arr":["x"]}`)
	v, err := Parse(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		in[i] = 'X'
	}
	if v.Members[0].Key != "name" || v.Get("name").Str != "value" || v.Get("n").Str != "12" || v.Get("arr").Elems[0].Str != "x" {
		t.Errorf("tree changed with the input: %+v", v)
	}
}

// TestElemsCapacity checks that slices carved from shared blocks cannot be
// appended into each other.
func TestElemsCapacity(t *testing.T) {
	v, err := Parse([]byte(`[[1,2],[3,4],{"a":1},{"b":2}]`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := v.Elems[0]
	_ = append(first.Elems, v.Elems[1])
	if v.Elems[1].Elems[0].Str != "3" {
		t.Errorf("append overwrote a sibling")
	}
	_ = append(v.Elems[2].Members, Member{Key: "zz"})
	if v.Elems[3].Members[0].Key != "b" {
		t.Errorf("append overwrote a sibling member")
	}
	for _, e := range v.Elems {
		if cap(e.Elems) != len(e.Elems) || cap(e.Members) != len(e.Members) {
			t.Errorf("capacity not clipped")
		}
	}
}

func TestLimitsDoNotOverAllocate(t *testing.T) {
	// With a small MaxValues the parser must fail without building a tree
	// proportional to the input.
	in := []byte("[" + strings.Repeat(`"abcdefgh",`, 100000) + "1]")
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := Parse(in, Options{MaxValues: 10}); err == nil {
			t.Fatal("expected error")
		}
	})
	if allocs > 20 {
		t.Errorf("%v allocations for a limit error", allocs)
	}
}

func TestPointerHelpers(t *testing.T) {
	cases := []struct{ ptr, tok, want string }{
		{"", "a", "/a"},
		{"/a", "b/c", "/a/b~1c"},
		{"", "~1", "/~01"},
		{"", "", "/"},
		{"/x", "~/~", "/x/~0~1~0"},
	}
	for _, c := range cases {
		if got := AppendPointer(c.ptr, c.tok); got != c.want {
			t.Errorf("AppendPointer(%q, %q) = %q, want %q", c.ptr, c.tok, got, c.want)
		}
	}
	if got := AppendIndexPointer("/a", 12); got != "/a/12" {
		t.Errorf("AppendIndexPointer = %q", got)
	}
}

func TestKindString(t *testing.T) {
	want := []string{"null", "boolean", "number", "string", "array", "object"}
	for k, w := range want {
		if got := Kind(k).String(); got != w {
			t.Errorf("Kind(%d) = %q, want %q", k, got, w)
		}
	}
	if got := Kind(99).String(); got != "Kind(99)" {
		t.Errorf("Kind(99) = %q", got)
	}
}

// TestConcurrentParse exercises the scratch pool from several goroutines:
// trees must never share memory with a parser that is reused later.
func TestConcurrentParse(t *testing.T) {
	docs := [][]byte{[]byte(smallDoc), largeDoc(16 << 10), []byte(`{"a":"\u00e9\n","b":[1,{"c":"\uD83D\uDE00"}]}`), []byte(largeObject(30, ""))}
	want := make([]string, len(docs))
	for i, d := range docs {
		v, err := Parse(d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = string(v.AppendCompact(nil))
	}
	done := make(chan error)
	for g := 0; g < 4; g++ {
		go func() {
			var kept []*Value
			for i := 0; i < 200; i++ {
				d := docs[(g+i)%len(docs)]
				v, err := Parse(d, Options{})
				if err != nil {
					done <- err
					return
				}
				kept = append(kept, v)
				_ = Valid(d, Options{})
				_, _ = Parse([]byte(`{"x":[1,2,{"y":"z"}],"x":0}`), Options{}) // error path
			}
			for i, v := range kept {
				if got := string(v.AppendCompact(nil)); got != want[(g+i)%len(docs)] {
					done <- errors.New("tree changed after later parses: " + got[:min(len(got), 80)])
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
