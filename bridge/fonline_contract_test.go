package bridge

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/fonline"
	"github.com/contractkit/contractkit/internal/repotest"
)

// fonlineContract is the part of FOnline's canonical AiControl contract
// that says something about the wire.
type fonlineContract struct {
	Outputs struct {
		ProtocolVersion int64            `json:"protocol_version"`
		JSONRPCVersion  string           `json:"jsonrpc_version"`
		DefaultHost     string           `json:"default_host"`
		DefaultPort     int64            `json:"default_port"`
		MaxLineBytes    int64            `json:"max_line_bytes"`
		Methods         []string         `json:"methods"`
		ErrorCodes      map[string]int64 `json:"error_codes"`
	} `json:"outputs"`
	WireRules []fonlineEntry `json:"wire_rules"`
	Methods   []struct {
		fonlineEntry
		Params string `json:"params"`
		Result string `json:"result"`
	} `json:"methods"`
	ErrorCodes []struct {
		fonlineEntry
		Code int64 `json:"code"`
	} `json:"error_codes"`
	CommandFields []struct {
		fonlineEntry
		ValueType string `json:"value_type"`
	} `json:"command_fields"`
	SecurityRules    []fonlineEntry `json:"security_rules"`
	IntegrationRules []fonlineEntry `json:"integration_rules"`
	ValidationRules  []fonlineEntry `json:"validation_rules"`
}

type fonlineEntry struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// The reference's contract writes one params shape in prose; this is how
// it reads on the wire. A new prose shape fails the test until it is read.
var fonlineProseShapes = map[string]string{
	"project command object with non-empty type": "open object, required non-empty string type",
}

// Every stable id, method shape, error code and command field of FOnline's
// contract exists in ours with the same wire meaning: ours may add rules,
// never differ on the wire.
//
//contract:proves ai-control-protocol.wire.request-envelope ai-control-protocol.wire.response-envelope
func TestFOnlineContract(t *testing.T) {
	dir := fonline.Require(t, repotest.Root(t), false)
	data, err := os.ReadFile(filepath.Join(dir, fonline.ContractFile))
	if err != nil {
		t.Fatal(err)
	}
	var ref fonlineContract
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatalf("%s: %v", fonline.ContractFile, err)
	}
	o := ref.Outputs
	for _, c := range []struct {
		name      string
		ref, ours any
	}{
		{"protocol_version", o.ProtocolVersion, int64(aicontrol.ProtocolVersion)},
		{"jsonrpc_version", o.JSONRPCVersion, aicontrol.JSONRPCVersion},
		{"default_host", o.DefaultHost, aicontrol.DefaultHost},
		{"default_port", o.DefaultPort, int64(aicontrol.DefaultPort)},
		{"max_line_bytes", o.MaxLineBytes, int64(aicontrol.MaxLineBytes)},
	} {
		if c.ref != c.ours {
			t.Errorf("outputs.%s: reference %v, ours %v", c.name, c.ref, c.ours)
		}
	}
	var ourMethods []string
	for _, m := range aicontrol.Methods {
		ourMethods = append(ourMethods, m.Name)
	}
	if a, b := slices.Sorted(slices.Values(o.Methods)), slices.Sorted(slices.Values(ourMethods)); !slices.Equal(a, b) {
		t.Errorf("methods: reference %v, ours %v", a, b)
	}
	for name, code := range o.ErrorCodes {
		id := "ai-control-protocol.error." + strings.ReplaceAll(name, "_", "-")
		if e, ok := aicontrol.LookupError(code); !ok || e.ID != id {
			t.Errorf("outputs.error_codes.%s = %d: ours has %+v", name, code, e)
		}
	}
	for _, e := range ref.ErrorCodes {
		if ours, ok := aicontrol.LookupError(e.Code); !ok || ours.ID != e.ID || ours.Message != e.Name {
			t.Errorf("error %s (%d %q): ours %q %q", e.ID, e.Code, e.Name, ours.ID, ours.Message)
		}
	}

	rules := map[string]string{}
	for _, r := range aicontrol.Rules {
		rules[r.ID] = r.Kind
	}
	for kind, entries := range map[string][]fonlineEntry{
		"wire": ref.WireRules, "security": ref.SecurityRules, "integration": ref.IntegrationRules, "validation": ref.ValidationRules,
	} {
		for _, e := range entries {
			if got, ok := rules[e.ID]; !ok || got != kind {
				t.Errorf("%s rule %s: ours has it as %q", kind, e.ID, got)
			}
		}
	}

	schemas := loadSchemas(t)
	for _, m := range ref.Methods {
		ours, ok := aicontrol.LookupMethod(m.Name)
		if !ok || ours.ID != m.ID {
			t.Errorf("method %s (%s): ours %q", m.Name, m.ID, ours.ID)
			continue
		}
		for _, side := range []struct{ what, shape, typ string }{{"params", m.Params, ours.Params}, {"result", m.Result, ours.Result}} {
			for _, p := range compareShape(side.shape, schemas.def(side.typ), schemas) {
				t.Errorf("%s %s: reference %q, ours %s: %s", m.Name, side.what, side.shape, side.typ, p)
			}
		}
	}

	act := schemas.def("ActParams")
	for _, f := range ref.CommandFields {
		if rules[f.ID] != "command" {
			t.Errorf("command field %s: no command rule %s", f.Name, f.ID)
		}
		if id := fieldID(t, f.Name); id != f.ID {
			t.Errorf("command field %s: reference id %s, ours %q", f.Name, f.ID, id)
		}
		prop, ok := act.props()[f.Name]
		if !ok {
			t.Errorf("command field %s: not a member of ActParams", f.Name)
			continue
		}
		want := f.ValueType
		if want == "project identifier" {
			want = "string|integer" // the reference's identifiers are project-defined scalars
		}
		if got := schemas.resolve(prop).typeName(schemas); got != want {
			t.Errorf("command field %s: reference %s, ours %s", f.Name, f.ValueType, got)
		}
		if required := slices.Contains(act.required(), f.Name); required != (f.Name == "type") {
			t.Errorf("command field %s: required %v", f.Name, required)
		}
	}
}

// fieldID finds the stable id the canonical model gives ActParams' member name.
func fieldID(t *testing.T, name string) string {
	var model struct {
		Model struct {
			Types []struct {
				Name   string `json:"name"`
				Fields []struct {
					Name string `json:"name"`
					ID   string `json:"id"`
				} `json:"fields"`
			} `json:"types"`
		} `json:"model"`
	}
	if err := json.Unmarshal(aicontrol.Model, &model); err != nil {
		t.Fatal(err)
	}
	for _, ty := range model.Model.Types {
		for _, f := range ty.Fields {
			if ty.Name == "ActParams" && f.Name == name {
				return f.ID
			}
		}
	}
	return ""
}

// schemaNode is a JSON Schema object of the generated schemas.
type schemaNode map[string]any

type schemaSet map[string]schemaNode // $defs by name, across every schema file

func loadSchemas(t *testing.T) schemaSet {
	set := schemaSet{}
	entries, err := aicontrol.SchemaFS.ReadDir("schema")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := aicontrol.SchemaFS.ReadFile("schema/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Defs map[string]schemaNode `json:"$defs"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		for name, def := range doc.Defs {
			set[name] = def
		}
	}
	return set
}

func (s schemaSet) def(name string) schemaNode { return s[name] }

func (s schemaSet) resolve(n schemaNode) schemaNode {
	for n != nil {
		ref, ok := n["$ref"].(string)
		if !ok {
			return n
		}
		n = s[strings.TrimPrefix(ref, "#/$defs/")]
	}
	return n
}

func (n schemaNode) props() map[string]schemaNode {
	out := map[string]schemaNode{}
	raw, _ := n["properties"].(map[string]any)
	for k, v := range raw {
		m, _ := v.(map[string]any)
		out[k] = m
	}
	return out
}

func (n schemaNode) required() []string {
	var out []string
	raw, _ := n["required"].([]any)
	for _, v := range raw {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

// typeName is the JSON type a schema allows, with alternatives joined by |.
func (n schemaNode) typeName(s schemaSet) string {
	if ty, ok := n["type"].(string); ok {
		return ty
	}
	alts, _ := n["oneOf"].([]any)
	var names []string
	for _, a := range alts {
		m, _ := a.(map[string]any)
		names = append(names, s.resolve(m).typeName(s))
	}
	return strings.Join(names, "|")
}

// compareShape reports how our schema n differs on the wire from the
// reference's shape text, which is either prose listed above or the
// contract's small notation: {name: shape, name?: shape, bare-name},
// [shape], a JSON type name, or the literal true.
func compareShape(shape string, n schemaNode, s schemaSet) []string {
	if n == nil {
		return []string{"no such type"}
	}
	if prose, ok := fonlineProseShapes[shape]; ok {
		if prose != "open object, required non-empty string type" {
			return []string{"unknown prose reading " + prose}
		}
		ty := s.resolve(n.props()["type"])
		if n.typeName(s) != "object" || ty == nil || ty.typeName(s) != "string" || ty["minLength"] != 1.0 ||
			!slices.Equal(n.required(), []string{"type"}) || n["additionalProperties"] != true {
			return []string{"not an open object with a required non-empty string type"}
		}
		return nil
	}
	p := &shapeParser{src: shape}
	sh, err := p.parse()
	if err != nil {
		return []string{"unreadable reference shape: " + err.Error()}
	}
	return sh.compare(n, s, "")
}

type shapeKind int

const (
	shapeAny shapeKind = iota // a member named without a type
	shapeType
	shapeTrue
	shapeObject
	shapeArray
)

type shapeMember struct {
	name     string
	optional bool
	shape    *refShape
}

type refShape struct {
	kind    shapeKind
	typ     string
	members []shapeMember
	items   *refShape
}

func (r *refShape) compare(n schemaNode, s schemaSet, ptr string) []string {
	n = s.resolve(n)
	if n == nil {
		return []string{ptr + ": missing"}
	}
	at := func(format string, args ...any) []string {
		return []string{fmt.Sprintf("%s: %s", cmp(ptr), fmt.Sprintf(format, args...))}
	}
	switch r.kind {
	case shapeAny:
		return nil
	case shapeType:
		if got := n.typeName(s); got != r.typ {
			return at("type %s, reference %s", got, r.typ)
		}
	case shapeTrue:
		if n.typeName(s) != "boolean" || n["const"] != true {
			return at("not the constant true")
		}
	case shapeArray:
		if n.typeName(s) != "array" {
			return at("type %s, reference array", n.typeName(s))
		}
		items, _ := n["items"].(map[string]any)
		return r.items.compare(items, s, ptr+"/items")
	case shapeObject:
		if n.typeName(s) != "object" {
			return at("type %s, reference object", n.typeName(s))
		}
		var out []string
		props, required := n.props(), n.required()
		names := map[string]bool{}
		for _, m := range r.members {
			names[m.name] = true
			prop, ok := props[m.name]
			if !ok {
				out = append(out, at("no member %q", m.name)...)
				continue
			}
			if slices.Contains(required, m.name) == m.optional {
				out = append(out, at("member %q required=%v, reference optional=%v", m.name, !m.optional, m.optional)...)
			}
			out = append(out, m.shape.compare(prop, s, ptr+"/"+m.name)...)
		}
		for name := range props {
			if !names[name] {
				out = append(out, at("member %q the reference does not have", name)...)
			}
		}
		return out
	}
	return nil
}

func cmp(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}

type shapeParser struct {
	src string
	pos int
}

func (p *shapeParser) parse() (*refShape, error) {
	sh, err := p.shape()
	if err != nil {
		return nil, err
	}
	if p.skip(); p.pos != len(p.src) {
		return nil, fmt.Errorf("trailing text at %d", p.pos)
	}
	return sh, nil
}

func (p *shapeParser) skip() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
}

func (p *shapeParser) word() string {
	p.skip()
	start := p.pos
	for p.pos < len(p.src) && (p.src[p.pos] >= 'a' && p.src[p.pos] <= 'z' || p.src[p.pos] >= 'A' && p.src[p.pos] <= 'Z' || p.src[p.pos] >= '0' && p.src[p.pos] <= '9' || p.src[p.pos] == '_') {
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *shapeParser) peek() byte {
	p.skip()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *shapeParser) expect(c byte) error {
	if p.peek() != c {
		return fmt.Errorf("expected %q at %d", c, p.pos)
	}
	p.pos++
	return nil
}

func (p *shapeParser) shape() (*refShape, error) {
	switch p.peek() {
	case '{':
		p.pos++
		obj := &refShape{kind: shapeObject}
		if p.peek() == '}' {
			p.pos++
			return obj, nil
		}
		for {
			m := shapeMember{name: p.word(), shape: &refShape{kind: shapeAny}}
			if m.name == "" {
				return nil, fmt.Errorf("expected a member name at %d", p.pos)
			}
			if p.peek() == '?' {
				p.pos++
				m.optional = true
			}
			if p.peek() == ':' {
				p.pos++
				sh, err := p.shape()
				if err != nil {
					return nil, err
				}
				m.shape = sh
			}
			obj.members = append(obj.members, m)
			if p.peek() == ',' {
				p.pos++
				continue
			}
			return obj, p.expect('}')
		}
	case '[':
		p.pos++
		items, err := p.shape()
		if err != nil {
			return nil, err
		}
		return &refShape{kind: shapeArray, items: items}, p.expect(']')
	}
	switch w := p.word(); w {
	case "true":
		return &refShape{kind: shapeTrue}, nil
	case "string", "integer", "boolean", "object", "number":
		return &refShape{kind: shapeType, typ: w}, nil
	default:
		return nil, fmt.Errorf("unknown type %q at %d", w, p.pos)
	}
}
