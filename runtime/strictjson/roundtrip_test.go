package strictjson

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// roundTripDocs have no escapes that AppendString would spell differently,
// so AppendCompact must equal json.Compact byte for byte.
var roundTripDocs = []string{
	`null`,
	`true`,
	` false `,
	`0`,
	`-0.0e+00`,
	`12345678901234567890123456789`,
	`1E400`,
	`""`,
	`"plain text with / slash and <html> & stuff"`,
	`"\n\t\"\\"`,
	"\"h\u00e9llo \u4e16\u754c \U0001F600\"",
	`[]`,
	`{}`,
	`[ [ ] , { } , [ [ [ 1 ] ] ] ]`,
	"{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"initialize\",\n  \"params\": {\"capabilities\": {}, \"list\": [1, 2.5, -3e10, true, false, null]}\n}\n",
	`{"b":1,"a":2,"c":{"z":[],"y":{}}}`,
	`[{"a":[{"b":[{"c":null}]}]}]`,
	largeObject(50, ""),
}

func TestRoundTrip(t *testing.T) {
	docs := append([]string{}, roundTripDocs...)
	docs = append(docs, mediumDoc(), string(largeDoc(64<<10)))
	for _, doc := range docs {
		v, err := Parse([]byte(doc), Options{})
		if err != nil {
			t.Fatalf("Parse(%.60q): %v", doc, err)
		}
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(doc)); err != nil {
			t.Fatal(err)
		}
		if got := v.AppendCompact(nil); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("AppendCompact(%.60q)\n got %.200s\nwant %.200s", doc, got, want.Bytes())
		}
		checkInterface(t, []byte(doc), v)
	}
}

// checkInterface compares v.Interface() with encoding/json's UseNumber
// decoding of data.
func checkInterface(t testing.TB, data []byte, v *Value) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var want any
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("encoding/json cannot decode %.60q: %v", data, err)
	}
	if got := v.Interface(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Interface(%.60q)\n got %#v\nwant %#v", data, got, want)
	}
}

func TestNormalisingRoundTrip(t *testing.T) {
	cases := []struct{ in, want string }{
		{`"\u0041\/\u00e9"`, "\"A/\u00e9\""},
		{`"\u001F\u0008\u000c"`, `"\u001f\b\f"`},
		{`"\u2028\u2029"`, `"\u2028\u2029"`},
		{"\"\u2028\"", `"\u2028"`},
		{`{"\u0061" : "\uD83D\uDE00"}`, "{\"a\":\"\U0001F600\"}"},
		{`{"a":1,"a":2}`, `{"a":1,"a":2}`},
		{`"<&>"`, `"<&>"`},
	}
	for _, c := range cases {
		v, err := Parse([]byte(c.in), Options{AllowDuplicateKeys: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(v.AppendCompact(nil)); got != c.want {
			t.Errorf("AppendCompact(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	// The last duplicate wins in Interface, as in encoding/json.
	v, _ := Parse([]byte(`{"a":1,"b":[],"a":{"x":true}}`), Options{AllowDuplicateKeys: true})
	checkInterface(t, []byte(`{"a":1,"b":[],"a":{"x":true}}`), v)
	// Unpaired surrogates become U+FFFD, as in encoding/json.
	in := `["\uD800", "\uDC00\uD800x", {"\uDBFF":"\uD800\u0041"}]`
	v, err := Parse([]byte(in), Options{AllowUnpairedSurrogates: true})
	if err != nil {
		t.Fatal(err)
	}
	checkInterface(t, []byte(in), v)
	// Nil and hand-built trees.
	var nilv *Value
	if got := string(nilv.AppendCompact(nil)); got != "null" || nilv.Interface() != nil {
		t.Errorf("nil value = %s", got)
	}
	hand := &Value{Kind: Array, Elems: []*Value{nil, {Kind: Object, Members: []Member{{Key: "k"}}}}}
	if got := string(hand.AppendCompact(nil)); got != `[null,{"k":null}]` {
		t.Errorf("hand-built = %s", got)
	}
	if got := hand.Interface(); !reflect.DeepEqual(got, []any{nil, map[string]any{"k": nil}}) {
		t.Errorf("hand-built Interface = %#v", got)
	}
}

// TestDeepTreeWalk checks that Interface and AppendCompact handle the deepest
// trees Parse builds without recursion trouble.
func TestDeepTreeWalk(t *testing.T) {
	const depth = 200000
	doc := strings.Repeat(`{"a":[`, depth/2) + strings.Repeat(`]}`, depth/2)
	v, err := Parse([]byte(doc), Options{MaxDepth: depth})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.AppendCompact(nil); string(got) != doc {
		t.Errorf("deep AppendCompact differs")
	}
	x := v.Interface()
	for i := 0; i < depth/2; i++ {
		arr := x.(map[string]any)["a"].([]any)
		if i == depth/2-1 {
			if len(arr) != 0 {
				t.Fatal("innermost array not empty")
			}
			break
		}
		x = arr[0]
	}
}

func encodingJSON(t testing.TB, x any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func TestAppendString(t *testing.T) {
	var all strings.Builder
	for c := 0; c < 0x80; c++ {
		all.WriteByte(byte(c))
	}
	cases := []string{
		"",
		"plain",
		"quote \" backslash \\ slash /",
		"\x00\x01\x07\b\t\n\v\f\r\x0e\x1b\x1f \x7f",
		all.String(),
		"<script>&amp;</script>",
		"line\u2028para\u2029end\u2027\u202a",
		"\u00e9\u4e16\U0001F600",
		"\xff",
		"a\xffb\xfe",
		"\xc3",
		"\xc3(",
		"\xed\xa0\x80",
		"\xf4\x90\x80\x80",
		"\xe2\x82",
		"\ufffd literal",
	}
	for _, s := range cases {
		got := string(AppendString([]byte("prefix"), s))
		want := "prefix" + encodingJSON(t, s)
		if got != want {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
		// The output is always strict JSON.
		if _, err := Parse([]byte(got[len("prefix"):]), Options{}); err != nil {
			t.Errorf("AppendString(%q) output rejected: %v", s, err)
		}
	}
}

func TestAppendFloat(t *testing.T) {
	cases := []float64{
		0, math.Copysign(0, -1), 1, -1, 0.1, 1.5, 100, 123456789, 1e20, 1e21, 1.5e21, 1e-6, 0.000001,
		1e-7, 1.234e-7, 9.999999999999999e-7, 1e-10, 5e-324, -5e-324, math.SmallestNonzeroFloat64,
		math.MaxFloat64, -math.MaxFloat64, 1.7976931348623157e308, 123456789012345678, 0.3, 1.0 / 3,
		2.5e-300, 1e100, -1e-100, float64(math.MaxInt64), 4.940656458412465441765687928682213723651e-324,
	}
	for _, f := range cases {
		got := string(AppendFloat(nil, f))
		if want := encodingJSON(t, f); got != want {
			t.Errorf("AppendFloat(%v) = %s, want %s", f, got, want)
		}
	}
	if got := string(AppendFloat(nil, math.Copysign(0, -1))); got != "-0" {
		t.Errorf("AppendFloat(negative zero) = %s", got)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got := string(AppendFloat([]byte("x"), f)); got != "xnull" {
			t.Errorf("AppendFloat(%v) = %s", f, got)
		}
	}
}

func TestAppendScalars(t *testing.T) {
	for _, n := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64} {
		if got, want := string(AppendInt(nil, n)), encodingJSON(t, n); got != want {
			t.Errorf("AppendInt(%d) = %s, want %s", n, got, want)
		}
	}
	for _, n := range []uint64{0, 1, math.MaxUint64} {
		if got, want := string(AppendUint(nil, n)), encodingJSON(t, n); got != want {
			t.Errorf("AppendUint(%d) = %s, want %s", n, got, want)
		}
	}
	if got := string(AppendBool(AppendBool(nil, true), false)); got != "truefalse" {
		t.Errorf("AppendBool = %s", got)
	}
}
