package spec

import (
	"bytes"
	"encoding/json"
	"sort"
)

// orderExamples rewrites every example so that object members follow the
// declared field order of their type (unknown members after, sorted). The
// examples then read the way the contract lists fields, and no output
// depends on the order in which the spec author happened to write them.
func (d *Domain) orderExamples() {
	orderAll := func(t *Type, ex *Examples) {
		if ex == nil || t == nil {
			return
		}
		r := &TypeRef{Name: t.Name, Named: t}
		for i := range ex.Valid {
			ex.Valid[i] = orderJSON(r, ex.Valid[i])
		}
		for i := range ex.Invalid {
			ex.Invalid[i].Value = orderJSON(r, ex.Invalid[i].Value)
		}
	}
	for _, t := range d.Types {
		orderAll(t, t.Examples)
	}
	for _, m := range d.Methods {
		orderAll(m.ParamsType, &m.Examples.Params)
		orderAll(m.ResultType, &m.Examples.Result)
	}
}

func orderJSON(r *TypeRef, raw json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	var b bytes.Buffer
	writeOrdered(&b, r, v)
	return b.Bytes()
}

func writeOrdered(b *bytes.Buffer, r *TypeRef, v any) {
	switch x := v.(type) {
	case map[string]any:
		var first []string
		if r != nil {
			first = memberOrder(r, x)
		}
		done := map[string]bool{}
		b.WriteByte('{')
		n := 0
		member := func(k string, fr *TypeRef) {
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			writeOrdered(b, fr, x[k])
		}
		for _, k := range first {
			if _, ok := x[k]; ok && !done[k] {
				done[k] = true
				member(k, fieldRef(r, x, k))
			}
		}
		rest := make([]string, 0, len(x))
		for k := range x {
			if !done[k] {
				rest = append(rest, k)
			}
		}
		sort.Strings(rest)
		for _, k := range rest {
			member(k, fieldRef(r, x, k))
		}
		b.WriteByte('}')
	case []any:
		var er *TypeRef
		if r != nil {
			er = r.Array
			if er == nil && r.Named != nil && r.Named.Kind == AliasKind {
				er = r.Named.Type.Array
			}
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeOrdered(b, er, e)
		}
		b.WriteByte(']')
	default:
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		b.Write(bytes.TrimRight(out.Bytes(), "\n"))
	}
}

// objectOf returns the object type whose fields describe the value: the
// named object, or the variant a union's tag selects.
func objectOf(r *TypeRef, v map[string]any) (*Type, string) {
	if r == nil || r.Named == nil {
		return nil, ""
	}
	t := r.Named
	for t.Kind == AliasKind && t.Type.Named != nil {
		t = t.Type.Named
	}
	switch t.Kind {
	case ObjectKind:
		return t, ""
	case UnionKind:
		tag, _ := v[t.Tag].(string)
		for _, vr := range t.Variants {
			if vr.Tag == tag {
				return vr.Object, t.Tag
			}
		}
		return nil, t.Tag
	}
	return nil, ""
}

func memberOrder(r *TypeRef, v map[string]any) []string {
	o, tag := objectOf(r, v)
	var names []string
	if tag != "" {
		names = append(names, tag)
	}
	if o != nil {
		for _, f := range o.Fields {
			names = append(names, f.Name)
		}
	}
	return names
}

func fieldRef(r *TypeRef, v map[string]any, k string) *TypeRef {
	if r != nil && r.Map != nil {
		return r.Map
	}
	o, _ := objectOf(r, v)
	if o == nil {
		return nil
	}
	for _, f := range o.Fields {
		if f.Name == k {
			return &f.Type
		}
	}
	return nil
}
