package spec

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// fixture returns a repository holding the real meta-schema, the minimal
// spec of testdata (after mutate) and the source file its anchor names.
func fixture(t *testing.T, mutate func(doc map[string]any)) fstest.MapFS {
	t.Helper()
	meta, err := os.ReadFile("../../spec/contract.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/minimal.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(doc)
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return fstest.MapFS{
		"spec/contract.schema.json": {Data: meta},
		"spec/demo.json":            {Data: data},
		"impl/get.go":               {Data: []byte("package impl\n\nfunc get() {}\n")},
	}
}

// at walks a JSON pointer inside a decoded document.
func at(t *testing.T, doc any, ptr string) (parent any, key string) {
	t.Helper()
	parts := strings.Split(ptr, "/")[1:]
	cur := doc
	for _, p := range parts[:len(parts)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[p]
		case []any:
			i, _ := strconv.Atoi(p)
			cur = c[i]
		default:
			t.Fatalf("pointer %s: cannot descend into %T", ptr, cur)
		}
	}
	return cur, parts[len(parts)-1]
}

func set(t *testing.T, doc any, ptr string, v any) {
	parent, key := at(t, doc, ptr)
	switch p := parent.(type) {
	case map[string]any:
		p[key] = v
	case []any:
		i, _ := strconv.Atoi(key)
		p[i] = v
	}
}

func del(t *testing.T, doc any, ptr string) {
	parent, key := at(t, doc, ptr)
	delete(parent.(map[string]any), key)
}

func appendTo(t *testing.T, doc any, ptr string, v any) {
	parent, key := at(t, doc, ptr)
	m := parent.(map[string]any)
	m[key] = append(m[key].([]any), v)
}

func get(t *testing.T, doc any, ptr string) any {
	parent, key := at(t, doc, ptr)
	switch p := parent.(type) {
	case map[string]any:
		return p[key]
	case []any:
		i, _ := strconv.Atoi(key)
		return p[i]
	}
	return nil
}

func TestMinimalSpecLoads(t *testing.T) {
	set, diags := Load(fixture(t, nil))
	if diags.HasErrors() {
		t.Fatalf("minimal spec has errors:\n%s", diags.Errors().Error())
	}
	d := set.Domain("demo")
	if d == nil {
		t.Fatal("domain demo not loaded")
	}
	if got := len(d.Entries()); got != 13 {
		t.Errorf("entries = %d, want 13 (1 constant, 8 types, 1 field, 1 method, 1 error, 1 rule)", got)
	}
	// Included fields come first.
	var names []string
	for _, f := range d.LookupType("GetParams").Fields {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "session,name,limit,shape,cursor" {
		t.Errorf("GetParams fields = %v", names)
	}
	// The rule without source is listed as a warning, with its id.
	ws := diags.Warnings()
	if len(ws) != 3 || !strings.Contains(ws.Error(), "demo.wire.lines has no source") {
		t.Errorf("warnings = %v, want the three normative entries without source", ws)
	}
	// Inherited values are filled in.
	if f := d.LookupType("GetParams").Fields[2]; f.Since != "1.0" || f.Stability != Experimental {
		t.Errorf("limit field since/stability = %s/%s, want inherited 1.0/experimental", f.Since, f.Stability)
	}
	if !strings.HasPrefix(d.Digest, "sha256:") || len(d.Digest) != len("sha256:")+64 {
		t.Errorf("digest %q", d.Digest)
	}
}

// Each class of spec error is reported with its file, pointer and message.
func TestSpecErrors(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(t *testing.T, doc map[string]any)
		want   []string
	}{
		{"unknown type", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/2/type", "Shapes")
		}, []string{`spec/demo.json:/types/1/fields/2/type: unknown type "Shapes"`}},
		{"missing translation", func(t *testing.T, d map[string]any) {
			del(t, d, "/rules/0/title/ru")
		}, []string{`spec/demo.json:/rules/0/title: missing properties: 'ru'`}},
		{"empty translation", func(t *testing.T, d map[string]any) {
			set(t, d, "/rules/0/requirement/ru", "")
		}, []string{`spec/demo.json:/rules/0/requirement/ru: length must be >= 1`}},
		{"untranslated copy", func(t *testing.T, d map[string]any) {
			set(t, d, "/rules/0/requirement/ru", "One message per line.")
		}, []string{`spec/demo.json:/rules/0/requirement/ru: the Russian text is a copy of the English one`}},
		{"unknown member", func(t *testing.T, d map[string]any) {
			set(t, d, "/rules/0/severity", "high")
		}, []string{`spec/demo.json:/rules/0/severity: unknown member "severity": the spec format does not define it here`}},
		{"malformed id", func(t *testing.T, d map[string]any) {
			set(t, d, "/rules/0/id", "demo.Wire.lines")
		}, []string{`spec/demo.json:/rules/0/id: does not match pattern`}},
		{"duplicate id", func(t *testing.T, d map[string]any) {
			appendTo(t, d, "/rules", get(t, d, "/rules/0"))
		}, []string{`spec/demo.json:/rules/1/id: id "demo.wire.lines" is also used at /rules/0`}},
		{"id of another domain", func(t *testing.T, d map[string]any) {
			set(t, d, "/rules/0/id", "other.wire.lines")
		}, []string{`spec/demo.json:/rules/0/id: id "other.wire.lines" must start with the domain id "demo."`}},
		{"id of the wrong kind", func(t *testing.T, d map[string]any) {
			set(t, d, "/methods/0/id", "demo.wire.get")
		}, []string{`spec/demo.json:/methods/0/id: id "demo.wire.get" must be demo.method.<name>`}},
		{"undeclared rule kind", func(t *testing.T, d map[string]any) {
			set(t, d, "/rules/0/id", "demo.security.lines")
		}, []string{`spec/demo.json:/rules/0/id: id "demo.security.lines" has kind "security", which is not among the domain's ruleKinds`}},
		{"reserved rule kind", func(t *testing.T, d map[string]any) {
			set(t, d, "/domain/ruleKinds/1/kind", "method")
		}, []string{`spec/demo.json:/domain/ruleKinds/1/kind: rule kind "method" is reserved`}},
		{"rule kind named like a docs section", func(t *testing.T, d map[string]any) {
			set(t, d, "/domain/ruleKinds/1/kind", "errors")
		}, []string{`spec/demo.json:/domain/ruleKinds/1/kind: rule kind "errors" is reserved: it is the name of the errors docs section`}},
		{"duplicate union tag", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/4/variants/1/tag", "circle")
		}, []string{`spec/demo.json:/types/4/variants/1/tag: union tag "circle" is used twice in Shape`}},
		{"variant declares the tag", func(t *testing.T, d map[string]any) {
			appendTo(t, d, "/types/5/fields", map[string]any{"name": "kind", "type": "string", "required": true, "description": map[string]any{"en": "Kind.", "ru": "Вид."}})
		}, []string{`spec/demo.json:/types/4/variants/0/type: variant type Circle declares the tag member "kind"`}},
		{"variant is not an object", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/4/variants/0/type", "Color")
		}, []string{`spec/demo.json:/types/4/variants/0/type: type "Color" is a enum; it must be a object type`}},
		{"minimum above maximum", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/1/constraints/minimum", 20)
		}, []string{`spec/demo.json:/types/1/fields/1/constraints/maximum: maximum 10 is below minimum 20`}},
		{"minLength above maxLength", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/0/constraints/minLength", 9)
		}, []string{`spec/demo.json:/types/1/fields/0/constraints/maxLength: maxLength 8 is below minLength 9`}},
		{"constraint of another type", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/1/constraints/maxLength", 3)
		}, []string{`spec/demo.json:/types/1/fields/1/constraints/maxLength: maxLength applies to string values; this one is an integer`}},
		{"pattern that does not compile", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/0/constraints/pattern", "(")
		}, []string{`spec/demo.json:/types/1/fields/0/constraints/pattern: pattern does not compile`}},
		{"clamp on a string", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/0/constraints/clamp", true)
		}, []string{`spec/demo.json:/types/1/fields/0/constraints/clamp: clamp applies to integers; this value is a string`}},
		{"unknown constant", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/1/constraints/maximum", map[string]any{"constant": "demo.limit.nothing"})
		}, []string{`spec/demo.json:/types/1/fields/1/constraints/maximum/constant: unknown constant "demo.limit.nothing"`}},
		{"count bound of an unknown constant", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/0/constraints/maxLength", map[string]any{"constant": "demo.limit.nothing"})
		}, []string{`spec/demo.json:/types/1/fields/0/constraints/maxLength/constant: unknown constant "demo.limit.nothing"`}},
		{"count bound of a string constant", func(t *testing.T, d map[string]any) {
			set(t, d, "/constants/0/type", "string")
			set(t, d, "/constants/0/value", "ten")
			set(t, d, "/types/1/fields/1/constraints/maximum", 10)
			set(t, d, "/types/2/fields/0/constraints", map[string]any{"maxItems": map[string]any{"constant": "demo.limit.items"}})
		}, []string{`spec/demo.json:/types/2/fields/0/constraints/maxItems/constant: constant demo.limit.items is "ten"; maxItems needs an integer that is not negative`}},
		{"count bound from a constant, ordered", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/2/fields/0/constraints", map[string]any{"minItems": 11, "maxItems": map[string]any{"constant": "demo.limit.items"}})
		}, []string{`spec/demo.json:/types/2/fields/0/constraints/maxItems: maxItems 10 is below minItems 11`}},
		{"placeholder of nothing", func(t *testing.T, d map[string]any) {
			set(t, d, "/rules/0/requirement", map[string]any{"en": "At most {{MaxLines}} lines.", "ru": "Не больше {{MaxLines}} строк."})
		}, []string{`spec/demo.json:/rules/0/requirement/en: placeholder {{MaxLines}} names no constant or error code of the domain`,
			`spec/demo.json:/rules/0/requirement/ru: placeholder {{MaxLines}} names no constant or error code of the domain`}},
		{"placeholder format of another unit", func(t *testing.T, d map[string]any) {
			set(t, d, "/rules/0/requirement", map[string]any{"en": "At most {{MaxItems:iec}}.", "ru": "Не больше {{MaxItems:iec}}."})
		}, []string{`spec/demo.json:/rules/0/requirement/en: placeholder {{MaxItems:iec}}: format iec applies to constants counted in bytes`}},
		{"translation states other constants", func(t *testing.T, d map[string]any) {
			set(t, d, "/rules/0/requirement", map[string]any{"en": "At most {{MaxItems}} items, else {{CodeInvalidParams}}.", "ru": "Не больше 10 элементов, иначе {{CodeInvalidParams}}."})
		}, []string{`spec/demo.json:/rules/0/requirement/ru: the Russian text names [CodeInvalidParams], the English one [CodeInvalidParams MaxItems]: both must state the same constants`}},
		{"placeholder in the reason of an invalid example", func(t *testing.T, d map[string]any) {
			set(t, d, "/methods/0/examples/params/invalid/0/why", map[string]any{"en": "Shorter than {{MinName}}.", "ru": "Короче {{MinName}}."})
		}, []string{`spec/demo.json:/methods/0/examples/params/invalid/0/why/en: placeholder {{MinName}} names no constant`}},
		{"default outside its bounds", func(t *testing.T, d map[string]any) {
			del(t, d, "/types/1/fields/1/constraints/clamp")
			set(t, d, "/types/1/fields/1/default", 50)
		}, []string{`spec/demo.json:/types/1/fields/1/default: 50 is above the maximum 10`}},
		{"default of the wrong type", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/1/default", "five")
		}, []string{`spec/demo.json:/types/1/fields/1/default: "five" is not a number`}},
		{"default on a required field", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/0/default", "x")
		}, []string{`spec/demo.json:/types/1/fields/0/default: field "name" is required; a default applies only to optional fields`}},
		{"limit without a direction", func(t *testing.T, d map[string]any) {
			del(t, d, "/constants/0/direction")
		}, []string{`spec/demo.json:/constants/0: missing properties: 'direction'`}},
		{"limit direction of an unknown party", func(t *testing.T, d map[string]any) {
			set(t, d, "/constants/0/direction/party", "agent")
		}, []string{`spec/demo.json:/constants/0/direction/party: unknown party "agent": the domain's parties are client and server`}},
		{"limit that says exact", func(t *testing.T, d map[string]any) {
			set(t, d, "/constants/0/direction", map[string]any{"bounds": "exact"})
		}, []string{`spec/demo.json:/constants/0/direction/bounds: value must be one of "sends", "accepts", "sends-and-accepts", "keeps"`}},
		{"protocol constant without a direction", func(t *testing.T, d map[string]any) {
			appendTo(t, d, "/constants", protocolConstant(nil))
		}, []string{`spec/demo.json:/constants/1: missing properties: 'direction'`}},
		{"exact protocol constant that names a party", func(t *testing.T, d map[string]any) {
			appendTo(t, d, "/constants", protocolConstant(map[string]any{"bounds": "exact", "party": "server"}))
		}, []string{`spec/demo.json:/constants/1/direction/party: unknown member "party": the spec format does not define it here`}},
		{"bound protocol constant without a party", func(t *testing.T, d map[string]any) {
			appendTo(t, d, "/constants", protocolConstant(map[string]any{"bounds": "accepts"}))
		}, []string{`spec/demo.json:/constants/1/direction: missing properties: 'party'`}},
		{"protocol constant bound of an unknown party", func(t *testing.T, d map[string]any) {
			appendTo(t, d, "/constants", protocolConstant(map[string]any{"bounds": "accepts", "party": "agent"}))
		}, []string{`spec/demo.json:/constants/1/direction/party: unknown party "agent": the domain's parties are client and server`}},
		{"rule of an unknown polarity", func(t *testing.T, d map[string]any) {
			set(t, d, "/rules/0/polarity", "forgives")
		}, []string{`spec/demo.json:/rules/0/polarity: value must be one of "restricts", "tolerates"`}},
		{"parties at one end", func(t *testing.T, d map[string]any) {
			set(t, d, "/domain/parties/1/end", "client")
		}, []string{`spec/demo.json:/domain/parties/1/end: both parties sit at the client end`}},
		{"no party implemented", func(t *testing.T, d map[string]any) {
			set(t, d, "/domain/parties/1/implemented", false)
		}, []string{`spec/demo.json:/domain/parties: neither party is implemented here`}},
		{"open object", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/open", true)
		}, []string{`spec/demo.json:/types/1/open: unknown member "open"`}},
		{"reserved field still in use", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/reserved", []any{map[string]any{"name": "shape", "since": "1.2", "reason": map[string]any{"en": "Gone.", "ru": "Удалено."}}})
		}, []string{`spec/demo.json:/types/1/reserved/0: GetParams shape is reserved but still in use`}},
		{"reserved error code in use", func(t *testing.T, d map[string]any) {
			set(t, d, "/reserved", []any{map[string]any{"kind": "error", "code": -32602, "since": "1.2", "reason": map[string]any{"en": "Gone.", "ru": "Удалено."}}})
		}, []string{`spec/demo.json:/reserved/0: error -32602 is reserved but still in use`}},
		{"duplicate field", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/2/fields/1/name", "items")
		}, []string{`spec/demo.json:/types/2/fields/1/name: field "items" is declared twice in GetResult`}},
		{"duplicate enum value", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/3/values/1/value", "red")
		}, []string{`spec/demo.json:/types/3/values/1/value: enum value "red" is listed twice in Color`}},
		{"enum value of another base", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/3/values/1/value", 7)
		}, []string{`spec/demo.json:/types/3/values/1/value: value of a string enum: 7 is not a string`}},
		{"exactlyOneOf of a required field", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/2/exactlyOneOf", []any{"items", "color"})
		}, []string{`spec/demo.json:/types/2/exactlyOneOf/0: exactlyOneOf names required field "items"`}},
		{"absolute source path", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/0/source/0/path", "/impl/get.go")
		}, []string{`spec/demo.json:/types/1/fields/0/source/0/path: demo.command.name: source path "/impl/get.go" is absolute`}},
		{"source path leaving the repository", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/0/source/0/path", "../get.go")
		}, []string{`source path "../get.go" leaves the repository`}},
		{"source path into generated code", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/0/source/0/path", "generated/demo/decode.go")
		}, []string{`source path "generated/demo/decode.go" points into generated code`}},
		{"missing source file", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/0/source/0/path", "impl/gone.go")
		}, []string{`spec/demo.json:/types/1/fields/0/source/0/path: demo.command.name: source impl/gone.go does not exist`}},
		{"anchor gone", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/0/source/0/anchor", "func lookup(")
		}, []string{`spec/demo.json:/types/1/fields/0/source/0/anchor: demo.command.name: anchor "func lookup(" not found in impl/get.go`}},
		{"unknown error of a method", func(t *testing.T, d map[string]any) {
			set(t, d, "/methods/0/errors/0", "demo.error.nope")
		}, []string{`spec/demo.json:/methods/0/errors/0: unknown error "demo.error.nope"`}},
		{"params not an object", func(t *testing.T, d map[string]any) {
			set(t, d, "/methods/0/params", "Color")
		}, []string{`spec/demo.json:/methods/0/params: type "Color" is a enum; it must be a object type`}},
		{"method without invalid examples", func(t *testing.T, d map[string]any) {
			set(t, d, "/methods/0/examples/params/invalid", []any{})
		}, []string{`spec/demo.json:/methods/0/examples/params/invalid: params needs at least one invalid example`}},
		{"duplicate error code", func(t *testing.T, d map[string]any) {
			e := map[string]any{}
			for k, v := range get(t, d, "/errors/0").(map[string]any) {
				e[k] = v
			}
			e["id"], e["symbol"] = "demo.error.other", "Other"
			appendTo(t, d, "/errors", e)
		}, []string{`spec/demo.json:/errors/1/code: error code -32602 is also used by demo.error.invalid-params`}},
		{"since after the version", func(t *testing.T, d map[string]any) {
			set(t, d, "/rules/0/since", "1.3")
		}, []string{`spec/demo.json:/rules/0/since: since 1.3 is later than the domain version 1.2`}},
		{"field older than its type", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/since", "1.1")
			set(t, d, "/types/1/fields/1/since", "1.0")
		}, []string{`spec/demo.json:/types/1/fields/1/since: since 1.0 is earlier than its type GetParams (1.1)`}},
		{"section on two pages", func(t *testing.T, d map[string]any) {
			set(t, d, "/docs/pages/1/sections", []any{"methods", "types", "rules:command", "errors"})
		}, []string{`spec/demo.json:/docs/pages/1/sections/3: section "errors" is already on page wire`}},
		{"section on no page", func(t *testing.T, d map[string]any) {
			set(t, d, "/docs/pages/1/sections", []any{"methods", "rules:command"})
		}, []string{`spec/demo.json:/docs/pages: no page shows section "types" (8 entries)`}},
		{"Go name collision", func(t *testing.T, d map[string]any) {
			set(t, d, "/constants/0/symbol", "GetParams")
		}, []string{`spec/demo.json:/constants/0: Go name GetParams of constant demo.limit.items collides with type GetParams; set a symbol`}},
		{"type requiring itself", func(t *testing.T, d map[string]any) {
			appendTo(t, d, "/types/5/fields", map[string]any{"name": "inner", "type": "Circle", "required": true, "description": map[string]any{"en": "Inner.", "ru": "Внутренний."}})
		}, []string{`type Circle requires itself through required fields (Circle.inner → Circle)`}},
		{"unknown invalidParams", func(t *testing.T, d map[string]any) {
			set(t, d, "/domain/invalidParams", "demo.error.gone")
		}, []string{`spec/demo.json:/domain/invalidParams: unknown error "demo.error.gone"`}},
		{"include of an unknown type", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/include", []any{"Contxt"})
		}, []string{`spec/demo.json:/types/1/include/0: unknown type "Contxt"`}},
		{"include of a non-object", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/include", []any{"Color"})
		}, []string{`spec/demo.json:/types/1/include/0: type "Color" is a enum; it must be a object type`}},
		{"include cycle", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/0/include", []any{"GetParams"})
		}, []string{`includes itself`}},
		{"field repeated through an include", func(t *testing.T, d map[string]any) {
			set(t, d, "/types/1/fields/0/name", "session")
		}, []string{`spec/demo.json:/types/1/fields/0/name: field "session" is declared twice in GetParams`}},
		{"unknown capability", func(t *testing.T, d map[string]any) {
			set(t, d, "/methods/0/capability", "teleport")
		}, []string{`spec/demo.json:/methods/0/capability: unknown capability "teleport"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := Load(fixture(t, func(d map[string]any) { c.mutate(t, d) }))
			got := diags.Errors().Error()
			if !diags.HasErrors() {
				t.Fatalf("no error; want %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("errors do not contain %q; got:\n%s", w, got)
				}
			}
		})
	}
}

// All problems of a run are reported, not only the first.
func TestSpecErrorsAllListed(t *testing.T) {
	fsys := fixture(t, func(d map[string]any) {
		set(t, d, "/types/1/fields/2/type", "Shapes")
		set(t, d, "/types/2/fields/0/type", map[string]any{"array": "Strin"})
		set(t, d, "/types/6/type", "Gen")
	})
	_, diags := Load(fsys)
	got := diags.Errors()
	want := []string{
		`spec/demo.json:/types/1/fields/2/type: unknown type "Shapes"`,
		`spec/demo.json:/types/2/fields/0/type: unknown type "Strin"`,
		`spec/demo.json:/types/6/type: unknown type "Gen"`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(got), len(want), got.Error())
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i].String(), w) {
			t.Errorf("error %d = %q, want prefix %q", i, got[i].String(), w)
		}
	}
}

func TestInvalidJSON(t *testing.T) {
	fsys := fixture(t, nil)
	fsys["spec/demo.json"] = &fstest.MapFile{Data: []byte(`{"format": 1, "format": 1}`)}
	_, diags := Load(fsys)
	if got := diags.Error(); !strings.Contains(got, `spec/demo.json:/format: invalid JSON: duplicate member name "format"`) {
		t.Errorf("got %q", got)
	}
	fsys["spec/demo.json"] = &fstest.MapFile{Data: []byte(`{"format": 1,`)}
	_, diags = Load(fsys)
	if got := diags.Error(); !strings.Contains(got, "spec/demo.json:/: invalid JSON:") {
		t.Errorf("got %q", got)
	}
}

func TestLine(t *testing.T) {
	_, _ = Load(fixture(t, nil))
	raw, _ := os.ReadFile("testdata/minimal.json")
	d, diags := ParseOne(fixture(t, nil), "spec/demo.json", raw)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	lines := strings.Split(string(raw), "\n")
	for _, ptr := range []string{"/domain/id", "/rules/0/id", "/methods/0/params"} {
		n := d.Line(ptr)
		key := ptr[strings.LastIndex(ptr, "/")+1:]
		if n < 1 || n > len(lines) || !strings.Contains(lines[n-1], `"`+key+`"`) {
			t.Errorf("Line(%s) = %d, which does not hold %q", ptr, n, key)
		}
	}
}

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"targetId": "TargetID", "jsonrpc": "Jsonrpc", "metadata/children": "MetadataChildren",
		"$/cancelRequest": "CancelRequest", "command_completed": "CommandCompleted", "HTTPServer": "HTTPServer",
		"utf-16-percent": "Utf16Percent", "x": "X", "2fa": "N2fa", "mimeType": "MIMEType",
	} {
		if got := GoName(in); got != want {
			t.Errorf("GoName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"1", "1.0", 0}, {"1.4", "1.10", -1}, {"1.11", "1.2", 1}, {"2", "1.99", 1}} {
		if got := CompareVersions(c.a, c.b); got != c.want {
			t.Errorf("CompareVersions(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// A count bound may name a constant: the model holds the constant's value
// for everyone who reads bounds, and the canonical model keeps the
// reference, so that changing the constant is one change, not two.
func TestCountBoundFromConstant(t *testing.T) {
	fsys := fixture(t, func(doc map[string]any) {
		set(t, doc, "/types/2/fields/0/constraints", map[string]any{"maxItems": map[string]any{"constant": "demo.limit.items"}})
	})
	s, diags := Load(fsys)
	if diags.HasErrors() {
		t.Fatal(diags.Errors().Error())
	}
	k := s.Domain("demo").LookupType("GetResult").Fields[0].Constraints
	if k.MaxItems == nil || *k.MaxItems != 10 || k.MaxItemsConstant != "demo.limit.items" {
		t.Fatalf("maxItems = %v from %q, want 10 from demo.limit.items", k.MaxItems, k.MaxItemsConstant)
	}
	if canon := string(s.Domain("demo").Canonical()); !strings.Contains(canon, `"maxItems":{"constant":"demo.limit.items"}`) {
		t.Errorf("canonical model lacks the reference: %s", canon)
	}
}

// Texts state constants through placeholders; the model keeps them as
// written and Expand shows the values, in the units and words of each
// language.
func TestPlaceholdersExpand(t *testing.T) {
	fsys := fixture(t, func(doc map[string]any) {
		appendTo(t, doc, "/constants", map[string]any{"id": "demo.limit.line-bytes", "symbol": "MaxLineBytes", "kind": "limit", "type": "integer", "value": 1048576, "unit": "bytes",
			"direction": map[string]any{"party": "server", "bounds": "accepts"}, "title": map[string]any{"en": "Line", "ru": "Строка"},
			"description": map[string]any{"en": "A line.", "ru": "Строка."}, "stability": "stable", "since": "1.0"})
		set(t, doc, "/rules/0/requirement", map[string]any{"en": "One message per line of at most {{MaxLineBytes:iec}} ({{MaxLineBytes}} bytes); else {{CodeInvalidParams}}.",
			"ru": "Одно сообщение на строку не длиннее {{MaxLineBytes:iec}} ({{MaxLineBytes}} байт); иначе {{CodeInvalidParams}}."})
	})
	s, diags := Load(fsys)
	if diags.HasErrors() {
		t.Fatal(diags.Errors().Error())
	}
	d := s.Domain("demo")
	r := d.EntriesOfKind("wire")[0]
	if !strings.Contains(r.Requirement.EN, "{{MaxLineBytes:iec}}") {
		t.Errorf("the model changed the text as written: %q", r.Requirement.EN)
	}
	for lang, want := range map[string]string{
		"en": "One message per line of at most 1 MiB (1048576 bytes); else -32602.",
		"ru": "Одно сообщение на строку не длиннее 1 МиБ (1048576 байт); иначе -32602.",
	} {
		if got := d.Text(*r.Requirement, lang); got != want {
			t.Errorf("%s: %q, want %q", lang, got, want)
		}
	}
	if got := d.Expand("{{Unknown}} stays", "en"); got != "{{Unknown}} stays" {
		t.Errorf("unknown placeholder expanded to %q", got)
	}
}

// A number no 64-bit float holds, where the meta-schema wants an integer,
// is reported at its pointer; the meta-schema's validator never sees it
// (it dereferenced nil on such an exponent).
func TestNumberBeyondFloat64(t *testing.T) {
	raw, err := os.ReadFile("testdata/minimal.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(raw), `"code": -32602`, `"code": 1e1000100`, 1)
	if bad == string(raw) {
		t.Fatal("the fixture has no error code -32602")
	}
	_, diags := ParseOne(fixture(t, nil), "spec/demo.json", []byte(bad))
	if got := diags.Error(); !strings.Contains(got, "spec/demo.json:/errors/") || !strings.Contains(got, "the number 1e1000100 is outside the range of a 64-bit float") {
		t.Errorf("got %q", got)
	}
}

// One run reports every problem of every spec: a meta-schema error in one
// spec neither hides the semantic errors of another nor makes the members
// of the object it sits in look unknown (a failing branch of the
// meta-schema leaves them unevaluated); a member that really is unknown
// beside it is still reported.
func TestSpecErrorsEverySpecInOneRun(t *testing.T) {
	broken := fixture(t, func(d map[string]any) {
		set(t, d, "/types/0/fields/0/required", "yes")
		set(t, d, "/types/1/bogus", 1)
	})
	other := fixture(t, func(d map[string]any) {
		set(t, d, "/types/1/fields/2/type", "Shapes")
	})
	data := strings.ReplaceAll(string(other["spec/demo.json"].Data), "demo", "other")
	broken["spec/other.json"] = &fstest.MapFile{Data: []byte(data)}
	_, diags := Load(broken)
	got := diags.Errors()
	want := []string{
		`spec/demo.json:/types/0/fields/0/required: expected boolean`,
		`spec/demo.json:/types/1/bogus: unknown member "bogus"`,
		`spec/other.json:/types/1/fields/2/type: unknown type "Shapes"`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(got), len(want), got.Error())
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i].String(), w) {
			t.Errorf("error %d = %q, want prefix %q", i, got[i].String(), w)
		}
	}
}

// protocolConstant is a protocol constant of the minimal spec with the
// given direction (none when nil).
func protocolConstant(direction map[string]any) map[string]any {
	c := map[string]any{"id": "demo.protocol.version", "symbol": "ProtocolVersion", "kind": "protocol", "type": "integer", "value": 1,
		"title": map[string]any{"en": "Version", "ru": "Версия"}, "description": map[string]any{"en": "The version.", "ru": "Версия."},
		"stability": "stable", "since": "1.0"}
	if direction != nil {
		c["direction"] = direction
	}
	return c
}

// One opt-in constant per distinct flag, at the first capability that
// names it; the name the collision check lists is the emitted one.
func TestOptInCapabilities(t *testing.T) {
	a := &Capability{Entry: Entry{Ptr: "/capabilities/0"}, Name: "a", OptIn: "events"}
	c := &Capability{Entry: Entry{Ptr: "/capabilities/2"}, Name: "c", OptIn: "events"}
	e := &Capability{Entry: Entry{Ptr: "/capabilities/3"}, Name: "e", OptIn: "stream-log"}
	d := &Domain{Capabilities: []*Capability{a, {Name: "b"}, c, e}}
	got := d.OptInCapabilities()
	if len(got) != 2 || got[0] != a || got[1] != e {
		t.Fatalf("OptInCapabilities = %v, want capabilities a and e", got)
	}
	if n := OptInGoName("stream-log"); n != "OptInStreamLog" {
		t.Errorf("OptInGoName(stream-log) = %q", n)
	}
	var optIns []string
	for _, id := range d.GoIdentifiers() {
		if strings.HasPrefix(id.What, "opt-in ") {
			optIns = append(optIns, id.Name+" "+id.Ptr)
		}
	}
	if want := "OptInEvents /capabilities/0/optIn,OptInStreamLog /capabilities/3/optIn"; strings.Join(optIns, ",") != want {
		t.Errorf("opt-in identifiers %q, want %q", optIns, want)
	}
}

// A spec is read up to maxSpecDepth levels of nesting: at the limit the
// document reaches the meta-schema (which refuses the made-up member), one
// level more is refused by the JSON reader.
func TestSpecDepthLimit(t *testing.T) {
	nest := func(n int) []byte {
		// The top object is one level, the array under "deep" the second.
		return []byte(`{"format": 1, "deep": ` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`)
	}
	_, diags := ParseOne(fixture(t, nil), "spec/demo.json", nest(maxSpecDepth))
	if got := diags.Error(); got == "" || strings.Contains(got, "invalid JSON") {
		t.Errorf("depth %d: %q, want meta-schema problems and no invalid JSON", maxSpecDepth, got)
	}
	_, diags = ParseOne(fixture(t, nil), "spec/demo.json", nest(maxSpecDepth+1))
	if got := diags.Error(); !strings.Contains(got, "spec/demo.json:") || !strings.Contains(got, "invalid JSON") || !strings.Contains(got, "depth") {
		t.Errorf("depth %d: %q, want an invalid JSON problem about depth", maxSpecDepth+1, got)
	}
}
