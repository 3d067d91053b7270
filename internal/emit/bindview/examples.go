package bindview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/contractkit/contractkit/internal/spec"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Example is one executable example of a spec, as an example file shows it.
type Example struct {
	// Words name the example's constant, for the language to join:
	// the type (or the method and params/result), valid/invalid, the index.
	Words []string
	Type  *spec.Type
	// Ptr is the example's JSON pointer in the spec file, for errors: it
	// depends on the order of the file, so generated text shows Label.
	Ptr string
	// Label names the example independently of the file's order:
	// "ActParams valid 0", "method act params invalid 1".
	Label string
	Valid bool
	Value json.RawMessage
	// Why is the spec's English reason an invalid example is rejected.
	Why string
}

// Examples lists every example of d: those of its types, by type name,
// then those of its methods' params and results, by method name.
func Examples(d *spec.Domain) []Example {
	var out []Example
	add := func(words []string, t *spec.Type, ex spec.Examples, ptr string) {
		out = append(out, examplesOf(d, words, t, ex, ptr)...)
	}
	types := append([]*spec.Type{}, d.Types...)
	sort.SliceStable(types, func(i, j int) bool { return types[i].Name < types[j].Name })
	for _, t := range types {
		if t.Examples != nil {
			add([]string{t.Name}, t, *t.Examples, t.Ptr+"/examples")
		}
	}
	// An example of an object type that is a variant of a union is also
	// an example of the union, once the variant's tag is put in front of
	// its members: the form in which it travels.
	for _, u := range types {
		if u.Kind != spec.UnionKind {
			continue
		}
		for _, v := range u.Variants {
			if v.Object == nil || v.Object.Examples == nil {
				continue
			}
			for _, ex := range examplesOf(d, []string{v.Object.Name}, v.Object, *v.Object.Examples, v.Object.Ptr+"/examples") {
				tagged, ok := withTag(ex.Value, u.Tag, v.Tag)
				if !ok {
					continue
				}
				w := append([]string{u.Name, v.Tag}, ex.Words[len(ex.Words)-2:]...)
				ex.Words, ex.Label, ex.Type, ex.Value = w, strings.Join(w, " "), u, tagged
				ex.Ptr += " (with the " + u.Tag + " of " + u.Name + ")"
				out = append(out, ex)
			}
		}
	}
	methods := append([]*spec.Method{}, d.Methods...)
	sort.SliceStable(methods, func(i, j int) bool { return methods[i].Method < methods[j].Method })
	for _, m := range methods {
		add([]string{"method", m.Method, "params"}, m.ParamsType, m.Examples.Params, m.Ptr+"/examples/params")
		if m.ResultType != nil {
			add([]string{"method", m.Method, "result"}, m.ResultType, m.Examples.Result, m.Ptr+"/examples/result")
		}
	}
	return out
}

// withTag puts "tag": value in front of the members of an object example;
// false when the example is not an object or already has the member.
func withTag(raw json.RawMessage, tag, value string) (json.RawMessage, bool) {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil || b.Len() < 2 || b.Bytes()[0] != '{' {
		return nil, false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(b.Bytes(), &members) != nil {
		return nil, false
	}
	if _, ok := members[tag]; ok {
		return nil, false
	}
	k, _ := json.Marshal(tag)
	v, _ := json.Marshal(value)
	out := append(append(append([]byte{'{'}, k...), ':'), v...)
	if b.Len() > 2 {
		out = append(out, ',')
	}
	return append(out, b.Bytes()[1:]...), true
}

// examplesOf lists the examples ex of t, named by words, at ptr.
func examplesOf(d *spec.Domain, words []string, t *spec.Type, ex spec.Examples, ptr string) []Example {
	var out []Example
	for i, v := range ex.Valid {
		w := append(append([]string{}, words...), "valid", strconv.Itoa(i))
		out = append(out, Example{Words: w, Label: strings.Join(w, " "), Type: t, Ptr: fmt.Sprintf("%s/valid/%d", ptr, i), Valid: true, Value: v})
	}
	for i, v := range ex.Invalid {
		why := ""
		if v.Why != nil {
			why = d.Expand(v.Why.EN, "en")
		}
		w := append(append([]string{}, words...), "invalid", strconv.Itoa(i))
		out = append(out, Example{Words: w, Label: strings.Join(w, " "), Type: t, Ptr: fmt.Sprintf("%s/invalid/%d", ptr, i), Value: v.Value, Why: why})
	}
	return out
}

// Lang says how the static types a language's binding declares judge a
// JSON value written as a literal of that language. The judgement is
// structural: members, kinds, enum values and union tags; patterns,
// lengths and ranges are beyond any of these type systems.
type Lang struct {
	// IntegerIntegral: an integer type accepts only a number written
	// without fraction or exponent (Python's int); otherwise any number.
	IntegerIntegral bool
	// BoolIsNumber: a boolean is accepted where a number is (Python's
	// bool is an int).
	BoolIsNumber bool
	// KeepsExtraMembers: an object type that keeps members the contract
	// does not name accepts them in its static type (a TypeScript index
	// signature; a Python TypedDict has no such form before 3.13).
	KeepsExtraMembers bool
	// OpenUnionNeedsTag: the catch-all variant of an open union still
	// requires its tag member to be a string (TypeScript); otherwise it is
	// any object (Python's dict[str, object]).
	OpenUnionNeedsTag bool

	d *spec.Domain // the domain being judged, for constants
}

// TypeScript is how the generated TypeScript types judge a literal.
var TypeScript = Lang{KeepsExtraMembers: true, OpenUnionNeedsTag: true}

// Python is how the generated Python types judge a literal under Pyright.
var Python = Lang{IntegerIntegral: true, BoolIsNumber: true}

// Decode reads an example's value keeping numbers as written.
func Decode(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Judged is one example as the static types of a language see it.
type Judged struct {
	// Value is the decoded example; for a valid one, only its Receivable
	// part, since a literal of the type cannot spell the rest.
	Value any
	// Dropped are the pointers of the members Receivable left out.
	Dropped []string
	// Mismatch is why the types reject Value ("" when they accept it).
	Mismatch string
}

// Judge decodes ex and judges it against the language's types: a valid
// example through its Receivable part, an invalid one as it is. It fails
// only when the value is not JSON; what a mismatch means (a fault of a
// valid example, the expected rejection of an invalid one) is the
// emitter's to say.
func (l Lang) Judge(d *spec.Domain, ex Example) (Judged, error) {
	v, err := Decode(ex.Value)
	if err != nil {
		return Judged{}, fmt.Errorf("%s:%s: %w", d.File, ex.Ptr, err)
	}
	var dropped []string
	if ex.Valid {
		v, dropped = l.Receivable(v, ex.Type)
	}
	return Judged{Value: v, Dropped: dropped, Mismatch: l.Mismatch(d, v, ex.Type)}, nil
}

// MismatchPointer is the JSON Pointer part of a Mismatch reason
// ("pointer: why"), "/" for the whole value, as an example file names the
// place its types reject.
func MismatchPointer(m string) string {
	p, _, _ := strings.Cut(m, ": ")
	if p == "" {
		return "/"
	}
	return p
}

// Mismatch returns why the value v (decoded by Decode) is not a value of
// the static type of t in the language, or "" when it is.
func (l Lang) Mismatch(d *spec.Domain, v any, t *spec.Type) string {
	l.d = d
	return l.named(v, t, "")
}

func (l Lang) ref(v any, r *spec.TypeRef, ptr string) string {
	switch {
	case r.Array != nil:
		a, ok := v.([]any)
		if !ok {
			return ptr + ": not an array"
		}
		for i, x := range a {
			if m := l.ref(x, r.Array, ptr+"/"+strconv.Itoa(i)); m != "" {
				return m
			}
		}
		return ""
	case r.Map != nil:
		o, ok := v.(map[string]any)
		if !ok {
			return ptr + ": not an object"
		}
		for _, k := range sortedKeys(o) {
			if m := l.ref(o[k], r.Map, ptr+"/"+escape(k)); m != "" {
				return m
			}
		}
		return ""
	case r.Named != nil:
		return l.named(v, r.Named, ptr)
	}
	return l.builtin(v, r.Name, ptr)
}

func (l Lang) builtin(v any, name, ptr string) string {
	switch name {
	case spec.TAny:
		return ""
	case spec.TObject:
		if _, ok := v.(map[string]any); !ok {
			return ptr + ": not an object"
		}
		return ""
	case spec.TString, spec.TDecimalU64:
		if _, ok := v.(string); !ok {
			return ptr + ": not a string"
		}
		return ""
	case spec.TBoolean:
		if _, ok := v.(bool); !ok {
			return ptr + ": not a boolean"
		}
		return ""
	case spec.TInteger, spec.TNumber:
		if _, ok := v.(bool); ok && l.BoolIsNumber {
			return ""
		}
		n, ok := v.(json.Number)
		if !ok {
			return ptr + ": not a number"
		}
		if name == spec.TInteger && l.IntegerIntegral && strings.ContainsAny(string(n), ".eE") {
			return ptr + ": not written as an integer"
		}
		return ""
	}
	return ptr + ": unknown builtin " + name
}

func (l Lang) named(v any, t *spec.Type, ptr string) string {
	switch t.Kind {
	case spec.AliasKind:
		return l.ref(v, t.Type, ptr)
	case spec.AlternativesKind:
		for _, a := range t.Alternatives {
			if l.builtin(v, a.Type, ptr) == "" {
				return ""
			}
		}
		return ptr + ": none of the alternatives of " + t.Name
	case spec.EnumKind:
		if t.Base == "integer" {
			if m := l.builtin(v, spec.TInteger, ptr); m != "" {
				return m
			}
		} else if _, ok := v.(string); !ok {
			return ptr + ": not a string"
		}
		if t.Open {
			return ""
		}
		raw, _ := json.Marshal(v)
		for _, ev := range t.Values {
			if bytes.Equal(bytes.TrimSpace(ev.Value), raw) {
				return ""
			}
		}
		return ptr + ": not a value of " + t.Name
	case spec.UnionKind:
		o, ok := v.(map[string]any)
		if !ok {
			return ptr + ": not an object"
		}
		tag, isString := o[t.Tag].(string)
		if t.Open && (isString || !l.OpenUnionNeedsTag) {
			// The catch-all variant takes any such object, a known tag
			// with members that do not fit its variant included.
			return ""
		}
		for _, vr := range t.Variants {
			if !isString || vr.Tag != tag {
				continue
			}
			if vr.Object == nil {
				for _, k := range sortedKeys(o) {
					if k != t.Tag {
						return ptr + "/" + escape(k) + ": not a member of the " + tag + " variant of " + t.Name
					}
				}
				return ""
			}
			return l.object(o, vr.Object, t.Tag, ptr)
		}
		return ptr + "/" + escape(t.Tag) + ": not a tag of " + t.Name
	case spec.ObjectKind:
		o, ok := v.(map[string]any)
		if !ok {
			return ptr + ": not an object"
		}
		return l.object(o, t, "", ptr)
	}
	return ptr + ": unknown kind " + string(t.Kind)
}

// object judges the members of o against the object type t; tag is the
// member a union adds (already judged), or "".
func (l Lang) object(o map[string]any, t *spec.Type, tag, ptr string) string {
	fields := map[string]*spec.Field{}
	for _, f := range t.Fields {
		fields[f.Name] = f
		if _, ok := o[f.Name]; !ok && f.Required {
			return ptr + ": required member " + f.Name + " is missing"
		}
	}
	for _, k := range sortedKeys(o) {
		if k == tag && tag != "" {
			continue
		}
		f := fields[k]
		if f == nil {
			if t.AdditionalFields == "keep" && l.KeepsExtraMembers {
				continue
			}
			return ptr + "/" + escape(k) + ": not a member of " + t.Name
		}
		if o[k] == nil {
			if f.Nullable || aliasOfAny(&f.Type) {
				continue
			}
			return ptr + "/" + escape(k) + ": null"
		}
		if m := l.ref(o[k], &f.Type, ptr+"/"+escape(k)); m != "" {
			return m
		}
		if c, ok := ConstLiteral(l.d, f.Constraints); ok {
			raw, _ := json.Marshal(o[k])
			if !bytes.Equal(raw, c) {
				return ptr + "/" + escape(k) + ": not the one value " + string(c)
			}
		}
	}
	return ""
}

// ConstLiteral returns the one value a member with a const constraint
// may have, compact, when the bindings spell it as a literal type: a
// string, a boolean or an integer, given in place or by a constant.
func ConstLiteral(d *spec.Domain, k *spec.Constraints) (json.RawMessage, bool) {
	if k == nil || k.Const == nil {
		return nil, false
	}
	raw := k.Const
	if id := spec.ConstantRef(raw); id != "" {
		c := d.LookupConstant(id)
		if c == nil {
			return nil, false
		}
		raw = c.Value
	}
	v, err := Decode(raw)
	if err != nil {
		return nil, false
	}
	switch x := v.(type) {
	case string, bool:
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return nil, false
		}
	default:
		return nil, false
	}
	out, _ := json.Marshal(v)
	return out, true
}

// aliasOfAny reports whether r is (an alias of) any, whose static type
// accepts null.
func aliasOfAny(r *spec.TypeRef) bool {
	for r.Named != nil && r.Named.Kind == spec.AliasKind {
		r = r.Named.Type
	}
	return r.Array == nil && r.Map == nil && r.Named == nil && r.Name == spec.TAny
}

func sortedKeys(o map[string]any) []string {
	ks := make([]string, 0, len(o))
	for k := range o {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func escape(k string) string { return strictjson.EscapePointerToken(k) }

// Receivable returns the part of a valid example that a receiver's static
// type holds: members the contract does not name, in an object type whose
// receivers ignore (or keep) such members, are left out, since a literal
// of the type cannot spell them. It also returns the pointers of the
// members left out, sorted. Only valid examples are read this way; an
// invalid one is judged as it is.
func (l Lang) Receivable(v any, t *spec.Type) (any, []string) {
	var dropped []string
	out := l.stripNamed(v, t, "", &dropped)
	sort.Strings(dropped)
	return out, dropped
}

func (l Lang) stripRef(v any, r *spec.TypeRef, ptr string, dropped *[]string) any {
	switch {
	case r.Array != nil:
		a, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(a))
		for i, x := range a {
			out[i] = l.stripRef(x, r.Array, ptr+"/"+strconv.Itoa(i), dropped)
		}
		return out
	case r.Map != nil:
		o, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(o))
		for k, x := range o {
			out[k] = l.stripRef(x, r.Map, ptr+"/"+escape(k), dropped)
		}
		return out
	case r.Named != nil:
		return l.stripNamed(v, r.Named, ptr, dropped)
	}
	return v
}

func (l Lang) stripNamed(v any, t *spec.Type, ptr string, dropped *[]string) any {
	switch t.Kind {
	case spec.AliasKind:
		return l.stripRef(v, t.Type, ptr, dropped)
	case spec.ObjectKind:
		return l.stripObject(v, t, "", ptr, dropped)
	case spec.UnionKind:
		o, ok := v.(map[string]any)
		if !ok {
			return v
		}
		tag, _ := o[t.Tag].(string)
		for _, vr := range t.Variants {
			if vr.Tag == tag && vr.Object != nil {
				return l.stripObject(o, vr.Object, t.Tag, ptr, dropped)
			}
		}
	}
	return v
}

func (l Lang) stripObject(v any, t *spec.Type, tag, ptr string, dropped *[]string) any {
	o, ok := v.(map[string]any)
	if !ok {
		return v
	}
	fields := map[string]*spec.Field{}
	for _, f := range t.Fields {
		fields[f.Name] = f
	}
	tolerant := t.AdditionalFields == "ignore" || (t.AdditionalFields == "keep" && !l.KeepsExtraMembers)
	out := make(map[string]any, len(o))
	for k, x := range o {
		f := fields[k]
		switch {
		case k == tag && tag != "":
			out[k] = x
		case f == nil && tolerant:
			*dropped = append(*dropped, ptr+"/"+escape(k))
		case f == nil:
			out[k] = x
		default:
			out[k] = l.stripRef(x, &f.Type, ptr+"/"+escape(k), dropped)
		}
	}
	return out
}
