package bindview

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/spec"
)

func TestNames(t *testing.T) {
	for _, c := range []struct{ in, pascal, camel, upper string }{
		{"metadata/tree", "MetadataTree", "metadataTree", "METADATA_TREE"},
		{"$/cancelRequest", "CancelRequest", "cancelRequest", "CANCEL_REQUEST"},
		{"RUN_STARTED", "RunStarted", "runStarted", "RUN_STARTED"},
		{"metadata/xmlSource", "MetadataXmlSource", "metadataXmlSource", "METADATA_XML_SOURCE"},
		{"XMLSource", "XmlSource", "xmlSource", "XML_SOURCE"},
		{"LimitLineBytes", "LimitLineBytes", "limitLineBytes", "LIMIT_LINE_BYTES"},
		{"ru-RU", "RuRu", "ruRu", "RU_RU"},
		{"tool-call", "ToolCall", "toolCall", "TOOL_CALL"},
		{"2d", "N2d", "N2d", "N2D"},
		{"", "X", "X", "X"},
	} {
		if got := Pascal(c.in); got != c.pascal {
			t.Errorf("Pascal(%q) = %q, want %q", c.in, got, c.pascal)
		}
		if got := Camel(c.in); got != c.camel {
			t.Errorf("Camel(%q) = %q, want %q", c.in, got, c.camel)
		}
		if got := UpperSnake(c.in); got != c.upper {
			t.Errorf("UpperSnake(%q) = %q, want %q", c.in, got, c.upper)
		}
	}
}

// TestVariantNames pins the names both bindings give a union's variants:
// the union's name, then the tag's words.
func TestVariantNames(t *testing.T) {
	u := &spec.Type{Name: "Event", Kind: spec.UnionKind, Tag: "type"}
	for tag, want := range map[string]string{"RUN_STARTED": "EventRunStarted", "tool-call": "EventToolCall", "add": "EventAdd"} {
		if got := VariantName(u, &spec.Variant{Tag: tag}); got != want {
			t.Errorf("VariantName(Event, %q) = %q, want %q", tag, got, want)
		}
	}
	if got := UnknownName(u); got != "EventUnknown" {
		t.Errorf("UnknownName(Event) = %q, want EventUnknown", got)
	}
}

func TestNamesCollisions(t *testing.T) {
	n := NewNames("scope")
	n.Add("A", "type A")
	n.Add("B", "type B")
	if err := n.Err(); err != nil {
		t.Fatalf("distinct names: %v", err)
	}
	n.Add("A", "method a")
	err := n.Err()
	if err == nil || !strings.Contains(err.Error(), "scope: A is declared by type A and method a") {
		t.Fatalf("a repeated name: %v", err)
	}
}

// types builds a small model by hand: an object with a required string,
// an optional nullable integer and a const member, a closed and an open
// enum, a closed union with an object and a tag-only variant, an object
// that keeps unknown members.
func types() (obj, closed, open, union, keep *spec.Type) {
	closed = &spec.Type{Name: "Color", Kind: spec.EnumKind, Values: []*spec.EnumValue{{Value: json.RawMessage(`"red"`)}, {Value: json.RawMessage(`"blue"`)}}}
	open = &spec.Type{Name: "Shade", Kind: spec.EnumKind, Open: true, Values: []*spec.EnumValue{{Value: json.RawMessage(`"dark"`)}}}
	obj = &spec.Type{Name: "Item", Kind: spec.ObjectKind, AdditionalFields: "ignore", Fields: []*spec.Field{
		{Name: "name", Type: spec.TypeRef{Name: spec.TString}, Required: true},
		{Name: "count", Type: spec.TypeRef{Name: spec.TInteger}, Nullable: true},
		{Name: "color", Type: spec.TypeRef{Name: "Color", Named: closed}},
		{Name: "version", Type: spec.TypeRef{Name: spec.TString}, Constraints: &spec.Constraints{Const: json.RawMessage(`"1"`)}},
		{Name: "tags", Type: spec.TypeRef{Array: &spec.TypeRef{Name: spec.TString}}},
	}}
	union = &spec.Type{Name: "Thing", Kind: spec.UnionKind, Tag: "kind", Variants: []*spec.Variant{
		{Tag: "item", Object: obj}, {Tag: "none"},
	}}
	keep = &spec.Type{Name: "Bag", Kind: spec.ObjectKind, AdditionalFields: "keep", Fields: []*spec.Field{
		{Name: "id", Type: spec.TypeRef{Name: spec.TString}, Required: true},
	}}
	return
}

func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := Decode(json.RawMessage(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMismatch(t *testing.T) {
	obj, closed, open, union, keep := types()
	d := &spec.Domain{}
	for _, c := range []struct {
		t      *spec.Type
		value  string
		ts, py string // "" when the language's types accept the value
	}{
		{obj, `{"name":"a"}`, "", ""},
		{obj, `{"name":"a","count":null,"color":"red","version":"1","tags":["x"]}`, "", ""},
		{obj, `{}`, ": required member name is missing", ": required member name is missing"},
		{obj, `{"name":"a","extra":1}`, "/extra: not a member of Item", "/extra: not a member of Item"},
		{obj, `{"name":"a","color":"green"}`, "/color: not a value of Color", "/color: not a value of Color"},
		{obj, `{"name":"a","version":"2"}`, `/version: not the one value "1"`, `/version: not the one value "1"`},
		{obj, `{"name":"a","count":1.5}`, "", "/count: not written as an integer"},
		{obj, `{"name":"a","count":true}`, "/count: not a number", ""},
		{obj, `{"name":null}`, "/name: null", "/name: null"},
		{obj, `{"name":"a","tags":[1]}`, "/tags/0: not a string", "/tags/0: not a string"},
		{obj, `[]`, ": not an object", ": not an object"},
		{closed, `"blue"`, "", ""},
		{open, `"light"`, "", ""},
		{open, `1`, ": not a string", ": not a string"},
		{union, `{"kind":"item","name":"a"}`, "", ""},
		{union, `{"kind":"none"}`, "", ""},
		{union, `{"kind":"none","name":"a"}`, "/name: not a member of the none variant of Thing", "/name: not a member of the none variant of Thing"},
		{union, `{"kind":"other"}`, "/kind: not a tag of Thing", "/kind: not a tag of Thing"},
		{keep, `{"id":"a","more":1}`, "", "/more: not a member of Bag"},
	} {
		if got := TypeScript.Mismatch(d, decode(t, c.value), c.t); got != c.ts {
			t.Errorf("TypeScript: %s as %s: %q, want %q", c.value, c.t.Name, got, c.ts)
		}
		if got := Python.Mismatch(d, decode(t, c.value), c.t); got != c.py {
			t.Errorf("Python: %s as %s: %q, want %q", c.value, c.t.Name, got, c.py)
		}
	}
	// An open union takes any object with a string tag in TypeScript (its
	// catch-all variant), and any object in Python (dict[str, object]).
	union.Open = true
	if got := TypeScript.Mismatch(d, decode(t, `{"kind":"item","name":7}`), union); got != "" {
		t.Errorf("open union, known tag, wrong member: %q", got)
	}
	if got := TypeScript.Mismatch(d, decode(t, `{}`), union); got == "" {
		t.Error("open union without a tag is accepted in TypeScript")
	}
	if got := Python.Mismatch(d, decode(t, `{}`), union); got != "" {
		t.Errorf("open union without a tag in Python: %q", got)
	}
}

// A valid example keeps only what the receiver's type names: members of
// ignoring objects are left out (and reported), nested ones too, and a
// kept member stays where the language can spell it.
func TestReceivable(t *testing.T) {
	obj, _, _, union, keep := types()
	v, dropped := Python.Receivable(decode(t, `{"kind":"item","name":"a","later":true}`), union)
	if want := decode(t, `{"kind":"item","name":"a"}`); !reflect.DeepEqual(v, want) || !reflect.DeepEqual(dropped, []string{"/later"}) {
		t.Errorf("union: %v %v", v, dropped)
	}
	list := &spec.Type{Name: "List", Kind: spec.AliasKind, Type: &spec.TypeRef{Array: &spec.TypeRef{Name: "Item", Named: obj}}}
	v, dropped = TypeScript.Receivable(decode(t, `[{"name":"a"},{"name":"b","x":1,"y":2}]`), list)
	if want := decode(t, `[{"name":"a"},{"name":"b"}]`); !reflect.DeepEqual(v, want) || !reflect.DeepEqual(dropped, []string{"/1/x", "/1/y"}) {
		t.Errorf("array: %v %v", v, dropped)
	}
	if _, dropped := TypeScript.Receivable(decode(t, `{"id":"a","more":1}`), keep); len(dropped) != 0 {
		t.Errorf("TypeScript keeps members of a keeping object: %v", dropped)
	}
	if _, dropped := Python.Receivable(decode(t, `{"id":"a","more":1}`), keep); !reflect.DeepEqual(dropped, []string{"/more"}) {
		t.Errorf("Python cannot spell kept members: %v", dropped)
	}
}

// Judge strips only a valid example before judging it: the same extra
// member is left out of a valid example and makes an invalid one a
// mismatch; a value that is not JSON is an error naming file and pointer.
func TestJudge(t *testing.T) {
	obj, _, _, _, _ := types()
	d := &spec.Domain{File: "spec/x.json"}
	raw := json.RawMessage(`{"name":"a","later":true}`)
	j, err := Python.Judge(d, Example{Type: obj, Valid: true, Value: raw, Ptr: "/types/0/examples/valid/0"})
	if err != nil || j.Mismatch != "" || !reflect.DeepEqual(j.Dropped, []string{"/later"}) || !reflect.DeepEqual(j.Value, decode(t, `{"name":"a"}`)) {
		t.Errorf("valid: %+v %v", j, err)
	}
	j, err = Python.Judge(d, Example{Type: obj, Value: raw, Ptr: "/types/0/examples/invalid/0"})
	if err != nil || j.Mismatch == "" || j.Dropped != nil || MismatchPointer(j.Mismatch) != "/later" {
		t.Errorf("invalid: %+v %v", j, err)
	}
	_, err = TypeScript.Judge(d, Example{Type: obj, Valid: true, Value: json.RawMessage(`{`), Ptr: "/types/0/examples/valid/1"})
	if err == nil || !strings.HasPrefix(err.Error(), "spec/x.json:/types/0/examples/valid/1: ") {
		t.Errorf("not JSON: %v", err)
	}
}

func TestWithTag(t *testing.T) {
	for _, c := range []struct {
		in, out string
		ok      bool
	}{
		{`{"a": 1}`, `{"kind":"x","a":1}`, true},
		{`{}`, `{"kind":"x"}`, true},
		{`{"kind":"y"}`, ``, false},
		{`[1]`, ``, false},
		{`"s"`, ``, false},
	} {
		got, ok := withTag(json.RawMessage(c.in), "kind", "x")
		if ok != c.ok || string(got) != c.out {
			t.Errorf("withTag(%s) = %s %v, want %s %v", c.in, got, ok, c.out, c.ok)
		}
	}
}

// MismatchPointer reads the place out of what Mismatch says: the member
// or element at fault, "/" for the whole value.
func TestMismatchPointer(t *testing.T) {
	obj, _, _, _, _ := types()
	d := &spec.Domain{}
	for value, want := range map[string]string{
		`[]`:                          "/",
		`{}`:                          "/",
		`{"name":"a","tags":["x",1]}`: "/tags/1",
		`{"name":"a","extra":1}`:      "/extra",
	} {
		m := TypeScript.Mismatch(d, decode(t, value), obj)
		if m == "" {
			t.Fatalf("%s: no mismatch", value)
		}
		if got := MismatchPointer(m); got != want {
			t.Errorf("%s: %q from %q, want %q", value, got, m, want)
		}
	}
}

// Compact prints a spec's JSON value on one line, and a text that is not
// JSON as it is.
func TestCompact(t *testing.T) {
	for raw, want := range map[string]string{
		"{\n  \"a\": [1, 2],\n  \"b\": \"x y\"\n}": `{"a":[1,2],"b":"x y"}`,
		` "text" `: `"text"`,
		`1.50`:     `1.50`,
		`{"a": `:   `{"a": `,
	} {
		if got := Compact(json.RawMessage(raw)); got != want {
			t.Errorf("%q: %q, want %q", raw, got, want)
		}
	}
}
