package jsondoc

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/contractkit/contractkit/runtime/strictjson"
)

const testSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["name"],
  "additionalProperties": false,
  "properties": {
    "name": {"type": "string"},
    "size": {"type": "integer", "maximum": 10},
    "items": {"type": "array", "items": {"type": "object", "additionalProperties": false, "properties": {"id": {"type": "string"}}}}
  }
}`

func compile(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource("test.json", strings.NewReader(testSchema)); err != nil {
		t.Fatal(err)
	}
	return c.MustCompile("test.json")
}

var opts = strictjson.Options{MaxDepth: 8}

func TestCheckSyntax(t *testing.T) {
	doc, ps := Check([]byte(`{"name": "a", "name": "b"}`), opts, compile(t))
	if doc != nil || len(ps) != 1 {
		t.Fatalf("doc %v problems %+v, want none and one problem", doc, ps)
	}
	p := ps[0]
	var se *strictjson.Error
	if p.Stage != Syntax || !errors.As(p.Err, &se) || p.Pointer != se.Pointer || p.Offset != se.Offset || p.Msg != se.Msg || p.Leaf != nil {
		t.Errorf("problem %+v, strictjson error %+v", p, se)
	}
	if p.Offset <= 0 {
		t.Errorf("offset %d: the duplicate member is past the start", p.Offset)
	}
}

func TestCheckNumbers(t *testing.T) {
	// The schema would fail too (size above 10, unknown member), but a
	// number beyond float64 stops the check before it.
	doc, ps := Check([]byte(`{"name": "a", "size": 1e400, "x": [2e-400]}`), opts, compile(t))
	if doc == nil || doc.Tree == nil || doc.Value != nil {
		t.Fatalf("doc %+v: want the tree and no value", doc)
	}
	var got []string
	for _, p := range ps {
		if p.Stage != Number || p.Leaf != nil || p.Offset != -1 || p.Msg == "" {
			t.Errorf("problem %+v", p)
		}
		got = append(got, p.Pointer)
	}
	if want := []string{"/size", "/x/0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("pointers %v, want %v", got, want)
	}
}

func TestCheckSchema(t *testing.T) {
	doc, ps := Check([]byte(`{"size": 11, "zz": 1, "items": [{"id": "a", "b~/": 1}]}`), opts, compile(t))
	if doc == nil || doc.Value == nil {
		t.Fatalf("doc %+v: want the tree and its value", doc)
	}
	got := map[string]string{}
	for _, p := range ps {
		if p.Stage != Schema || p.Leaf == nil || p.Pointer != p.Leaf.InstanceLocation || p.Msg != p.Leaf.Message {
			t.Errorf("problem %+v", p)
		}
		got[p.Pointer] += p.Msg + ";"
	}
	for ptr, want := range map[string]string{"": "name", "/size": "10", "/items/0": "b~/"} {
		if !strings.Contains(got[ptr], want) {
			t.Errorf("problems at %q: %q, want one naming %q (all: %v)", ptr, got[ptr], want, got)
		}
	}
	var unknown []string
	for _, p := range ps {
		if names, ok := UnknownMembers(p.Msg); ok {
			for _, n := range names {
				unknown = append(unknown, strictjson.AppendPointer(p.Pointer, n))
			}
		}
	}
	if want := []string{"/zz", "/items/0/b~0~1"}; !sameSet(unknown, want) {
		t.Errorf("unknown members at %v, want %v", unknown, want)
	}
}

func TestCheckValid(t *testing.T) {
	for _, schema := range []*jsonschema.Schema{compile(t), nil} {
		doc, ps := Check([]byte(`{"name": "a", "size": 10, "items": [{"id": "x"}]}`), opts, schema)
		if len(ps) != 0 || doc == nil || doc.Tree == nil || doc.Value == nil {
			t.Errorf("schema %v: doc %+v problems %+v", schema != nil, doc, ps)
		}
	}
	// Without a schema only the first two stages run.
	if _, ps := Check([]byte(`{"other": 1}`), opts, nil); len(ps) != 0 {
		t.Errorf("no schema: problems %+v", ps)
	}
}

func TestLeaves(t *testing.T) {
	a, b, c := &jsonschema.ValidationError{Message: "a"}, &jsonschema.ValidationError{Message: "b"}, &jsonschema.ValidationError{Message: "c"}
	root := &jsonschema.ValidationError{Message: "root", Causes: []*jsonschema.ValidationError{
		{Message: "ref", Causes: []*jsonschema.ValidationError{a, b}}, c,
	}}
	if got := Leaves(root); !reflect.DeepEqual(got, []*jsonschema.ValidationError{a, b, c}) {
		t.Errorf("leaves %v", got)
	}
	if got := Leaves(a); len(got) != 1 || got[0] != a {
		t.Errorf("a leaf is its own leaf: %v", got)
	}
}

func TestUnknownMembers(t *testing.T) {
	if names, ok := UnknownMembers("additionalProperties 'a', 'b c' not allowed"); !ok || !reflect.DeepEqual(names, []string{"a", "b c"}) {
		t.Errorf("names %q ok %v", names, ok)
	}
	for _, msg := range []string{"not allowed", "additionalProperties 'a'", "missing properties: 'a'", "expected string, but got number"} {
		if names, ok := UnknownMembers(msg); ok {
			t.Errorf("%q read as unknown members %q", msg, names)
		}
	}
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return len(a) == len(b)
}

// Whatever the bytes, Check answers with problems of one stage, a
// document exactly when the bytes are JSON, and no panic.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"name": "a"}`, `{"size": 1e400}`, `{"zz": 1}`, `[`, `{"a":1,"a":2}`, `"\ud800"`, `1e999`} {
		f.Add([]byte(s))
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource("test.json", strings.NewReader(testSchema)); err != nil {
		f.Fatal(err)
	}
	schema := c.MustCompile("test.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, ps := Check(data, opts, schema)
		if (doc == nil) != (len(ps) == 1 && ps[0].Stage == Syntax) {
			t.Fatalf("doc %v with problems %+v", doc != nil, ps)
		}
		for _, p := range ps {
			if p.Stage != ps[0].Stage || p.Msg == "" {
				t.Fatalf("problems %+v", ps)
			}
		}
		if doc != nil && len(ps) == 0 && doc.Value == nil && string(data) != "null" && strings.TrimSpace(string(data)) != "null" {
			t.Fatalf("valid %q without a value", data)
		}
	})
}

// Offset and Line find a value by pointer in the text, or its nearest
// enclosing value when the pointer names none; LineAt agrees with Line.
func TestWhere(t *testing.T) {
	data := []byte("{\n  \"name\": \"a\",\n  \"items\": [\n    {\"id\": \"x\"},\n    {\"a/b\": 1}\n  ]\n}\n")
	doc, ps := Check(data, opts, nil)
	if len(ps) != 0 {
		t.Fatal(ps)
	}
	for _, c := range []struct {
		ptr  string
		line int
		text string // what the text holds at the offset
	}{
		{"", 1, "{"},
		{"/name", 2, `"a"`},
		{"/items", 3, "["},
		{"/items/0/id", 4, `"x"`},
		{"/items/1/a~1b", 5, "1"},
		{"/items/1/missing", 5, "{"}, // a member that is not there: its object
		{"/items/7/id", 3, "["},      // an element that is not there: its array
		{"/nothing/deeper", 1, "{"},
	} {
		off := doc.Offset(c.ptr)
		if got := doc.Line(c.ptr); got != c.line || !bytes.HasPrefix(data[off:], []byte(c.text)) {
			t.Errorf("%q: line %d at %q, want line %d at %q", c.ptr, got, data[off:min(off+5, len(data))], c.line, c.text)
		}
		if got := LineAt(data, off); got != c.line {
			t.Errorf("%q: LineAt %d, Line %d", c.ptr, got, c.line)
		}
	}
	// LineAt clamps an offset outside the data.
	if LineAt(data, -3) != 1 || LineAt(data, len(data)+10) != 8 {
		t.Errorf("clamped: %d %d", LineAt(data, -3), LineAt(data, len(data)+10))
	}
	// A nil Doc (a document that was not JSON) is the first line.
	var none *Doc
	if none.Offset("/a") != 0 || none.Line("/a") != 1 {
		t.Errorf("nil Doc: %d %d", none.Offset("/a"), none.Line("/a"))
	}
	// A document whose numbers stopped the check still finds its values.
	doc, ps = Check([]byte("{\n\"size\":\n1e400}"), opts, nil)
	if len(ps) != 1 || doc.Line(ps[0].Pointer) != 3 {
		t.Errorf("number problem %+v at line %d, want 3", ps, doc.Line("/size"))
	}
}

// A placed problem names the file and the pointer ("/" for the whole
// document) but never its line, which only some readers know; several
// problems are one a line, none is the empty text.
func TestFileProblemsRender(t *testing.T) {
	ps := []FileProblem{
		{File: "a.json", Msg: "the file is 9 bytes; the limit is 8"},
		{File: "a.json", Pointer: "/specs/0/path", Line: 7, Msg: `unknown key "x"`},
	}
	if got, want := ps[0].String(), "a.json:/: the file is 9 bytes; the limit is 8"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	want := "a.json:/: the file is 9 bytes; the limit is 8\na.json:/specs/0/path: unknown key \"x\""
	if got := JoinProblems(ps); got != want {
		t.Errorf("JoinProblems = %q, want %q", got, want)
	}
	if got := JoinProblems(nil); got != "" {
		t.Errorf("JoinProblems(nil) = %q, want empty", got)
	}
}
