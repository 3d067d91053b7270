package witness

import (
	"encoding/json"
	"strings"

	"github.com/contractkit/contractkit/internal/emit/bindview"
	"github.com/contractkit/contractkit/internal/spec"
)

// build makes a value of the root type that holds a value of the target
// type, from one side's model, when no example holds one.
func (e *Engine) build(side Side, rootID, targetID string) (found, bool) {
	root := e.byID[side][rootID]
	if root == nil || e.byID[side][targetID] == nil {
		return found{}, false
	}
	b := &builder{s: synth{d: e.sides[side]}, target: targetID, onPath: map[string]bool{}}
	v, path, ok := b.in(root)
	if !ok {
		return found{}, false
	}
	return found{root: rootID, ex: v, path: path}, true
}

type builder struct {
	s      synth
	target string
	onPath map[string]bool
}

// in returns a value of t that contains a value of the target type, and
// the path to it.
func (b *builder) in(t *spec.Type) (any, []any, bool) {
	if t.ID == b.target {
		v, ok := b.s.named(t)
		return v, nil, ok
	}
	if b.onPath[t.ID] || len(b.onPath) > maxDepth {
		return nil, nil, false
	}
	b.onPath[t.ID] = true
	defer delete(b.onPath, t.ID)
	switch t.Kind {
	case spec.ObjectKind:
		if b.includes(t) {
			v, ok := b.s.named(t)
			return v, nil, ok
		}
		for _, f := range t.Fields {
			x, p, ok := b.inRef(&f.Type, f.Constraints)
			if !ok {
				continue
			}
			v, ok := b.s.named(t)
			if !ok {
				return nil, nil, false
			}
			m := v.(map[string]any)
			m[f.Name] = x
			return m, append([]any{f.Name}, p...), true
		}
	case spec.UnionKind:
		for _, vr := range t.Variants {
			if vr.Object == nil {
				continue
			}
			x, p, ok := b.in(vr.Object)
			if !ok {
				continue
			}
			m, isMap := x.(map[string]any)
			if !isMap {
				continue
			}
			m[t.Tag] = vr.Tag
			return m, p, true
		}
	case spec.AliasKind:
		return b.inRef(t.Type, t.Constraints)
	}
	return nil, nil, false
}

// includes reports whether t includes the target type, directly or
// through another include.
func (b *builder) includes(t *spec.Type) bool {
	for _, name := range t.Include {
		inc := b.s.d.LookupType(name)
		if inc != nil && (inc.ID == b.target || b.includes(inc)) {
			return true
		}
	}
	return false
}

func (b *builder) inRef(r *spec.TypeRef, k *spec.Constraints) (any, []any, bool) {
	switch {
	case r.Array != nil:
		x, p, ok := b.inRef(r.Array, nil)
		if !ok {
			return nil, nil, false
		}
		n := 1
		if k != nil && k.MinItems != nil && int(*k.MinItems) > n {
			n = int(*k.MinItems)
		}
		a := make([]any, n)
		for i := range a {
			a[i] = clone(x)
		}
		return a, append([]any{0}, p...), true
	case r.Map != nil:
		x, p, ok := b.inRef(r.Map, nil)
		if !ok {
			return nil, nil, false
		}
		return map[string]any{"k": x}, append([]any{"k"}, p...), true
	case r.Named != nil:
		return b.in(r.Named)
	}
	return nil, nil, false
}

// candidates are the values to put where the instance is: the instance
// changed as the probe says, in every way worth a try.
func (e *Engine) candidates(p Probe, inst found) []any {
	v, ok := get(inst.ex, inst.path)
	if !ok {
		return nil
	}
	// Values come from the side the probe names first, then from the
	// other: a changed type shows its narrowing with an old value and its
	// widening with a new one, and the schemas tell which is which.
	sides := []Side{p.Side, 1 - p.Side}
	var out []any
	// member applies f to the member p.Field of v (an object), or to v
	// itself when the probe names no member.
	member := func(f func(m map[string]any)) {
		m, ok := clone(v).(map[string]any)
		if !ok {
			return
		}
		f(m)
		out = append(out, m)
	}
	value := func(x any) {
		if p.Field == "" {
			out = append(out, x)
			return
		}
		member(func(m map[string]any) { m[p.Field] = x })
	}
	current := func() (any, bool) {
		if p.Field == "" {
			return v, true
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		x, ok := m[p.Field]
		return x, ok
	}
	switch p.Op {
	case OpOmit:
		member(func(m map[string]any) { delete(m, p.Field) })
	case OpNull:
		value(nil)
	case OpMember, OpType:
		for _, side := range sides {
			for _, x := range e.memberValues(side, p) {
				value(x)
			}
		}
		if p.Op == OpMember {
			// The member present with the instance's other members as
			// they are, and also alone with the required ones.
			if x, ok := current(); ok && x != nil {
				value(x)
			}
		}
		// Values of a changed type that the valid ones of either side may
		// miss (a fraction between integer and number, a string outside
		// a new enum).
		for _, raw := range p.Values {
			if x, err := bindview.Decode(raw); err == nil {
				value(x)
			}
		}
	case OpUnknown:
		member(func(m map[string]any) { m["xWitnessUnknown"] = json.Number("1") })
	case OpSet:
		for _, raw := range p.Values {
			if x, err := bindview.Decode(raw); err == nil {
				value(x)
			}
		}
	case OpLength:
		for _, side := range sides {
			k := e.constraintsOf(side, p)
			cur, _ := current()
			for _, x := range lengthStrings(k, p.Counts, cur) {
				value(x)
			}
		}
	case OpPattern:
		for _, x := range e.patternStrings(p, current) {
			value(x)
		}
	case OpItems:
		cur, _ := current()
		elems, _ := cur.([]any)
		if len(elems) == 0 {
			for _, side := range []Side{p.Side, 1 - p.Side} {
				if x, ok := e.elem(side, p); ok {
					elems = []any{x}
					break
				}
			}
		}
		if len(elems) > 0 {
			for _, n := range p.Counts {
				a := make([]any, n)
				for i := range a {
					a[i] = clone(elems[i%len(elems)])
				}
				value(a)
			}
		}
	case OpVariant:
		for _, side := range sides {
			out = append(out, e.variantValues(side, p)...)
		}
	case OpExactly:
		// None of the group, then each pair of it.
		member(func(m map[string]any) {
			for _, f := range p.Fields {
				delete(m, f)
			}
		})
		for i := 0; i < len(p.Fields); i++ {
			for j := i + 1; j < len(p.Fields); j++ {
				a, oka := e.fieldValue(Current, p.Type, p.Fields[i])
				b, okb := e.fieldValue(Current, p.Type, p.Fields[j])
				if !oka || !okb {
					a, oka = e.fieldValue(Baseline, p.Type, p.Fields[i])
					b, okb = e.fieldValue(Baseline, p.Type, p.Fields[j])
				}
				if oka && okb {
					member(func(m map[string]any) { m[p.Fields[i]], m[p.Fields[j]] = a, b })
				}
			}
		}
	}
	return out
}

// memberValues are values for the probed member (or value) as one side
// declares it: those the side's examples hold first, then a built one.
func (e *Engine) memberValues(side Side, p Probe) []any {
	t := e.byID[side][p.Type]
	if t == nil {
		return nil
	}
	var out []any
	if p.Field == "" {
		for _, f := range e.pool(side)[p.Type] {
			if x, ok := get(f.ex, f.path); ok {
				out = append(out, x)
				break
			}
		}
		if x, ok := (&synth{d: e.sides[side]}).named(t); ok {
			out = append(out, x)
		}
		return out
	}
	for _, f := range e.pool(side)[p.Type] {
		if x, ok := get(f.ex, append(append([]any(nil), f.path...), p.Field)); ok {
			out = append(out, x)
			break
		}
	}
	if x, ok := e.fieldValue(side, p.Type, p.Field); ok {
		out = append(out, x)
	}
	return out
}

// fieldValue builds a value of a member of a type at one side.
func (e *Engine) fieldValue(side Side, typeID, name string) (any, bool) {
	t := e.byID[side][typeID]
	if t == nil {
		return nil, false
	}
	for _, f := range t.Fields {
		if f.Name == name {
			return (&synth{d: e.sides[side]}).field(f)
		}
	}
	return nil, false
}

// constraintsOf returns the constraints of the probed value at one side.
func (e *Engine) constraintsOf(side Side, p Probe) *spec.Constraints {
	t := e.byID[side][p.Type]
	if t == nil {
		return nil
	}
	if p.Field != "" {
		for _, f := range t.Fields {
			if f.Name == p.Field {
				return f.Constraints
			}
		}
		return nil
	}
	if p.Tag != "" {
		for _, a := range t.Alternatives {
			if a.Type == p.Tag {
				return a.Constraints
			}
		}
	}
	return t.Constraints
}

// lengthStrings are strings of the given lengths: made to the pattern,
// then the current value stretched or cut.
func lengthStrings(k *spec.Constraints, counts []int, cur any) []string {
	out := strings_(k, counts)
	if s, ok := cur.(string); ok && s != "" {
		rs := []rune(s)
		for _, n := range counts {
			switch {
			case n <= len(rs):
				out = append(out, string(rs[:n]))
			default:
				out = append(out, s+strings.Repeat(string(rs[len(rs)-1]), n-len(rs)))
			}
		}
	}
	for _, n := range counts {
		if n >= 0 {
			out = append(out, strings.Repeat("a", n), strings.Repeat("0", n))
		}
	}
	return out
}

// patternStrings are strings that one side's pattern may accept and the
// other's reject: samples of both patterns, the current value and a few
// plain strings.
func (e *Engine) patternStrings(p Probe, current func() (any, bool)) []string {
	var out []string
	for _, side := range []Side{Baseline, Current} {
		if k := e.constraintsOf(side, p); k != nil && k.Pattern != "" {
			out = append(out, samples(k.Pattern)...)
			lo := 1
			if k.MinLength != nil {
				lo = int(*k.MinLength)
			}
			out = append(out, matching(k.Pattern, lo)...)
		}
	}
	if x, ok := current(); ok {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return append(out, "", "a", "A", "0", "ab", "abc", "a-b", "a b", "x\ny", "A1", "_", "-", ".", "aaaaaaaa")
}

// elem builds an item of the probed array at one side.
func (e *Engine) elem(side Side, p Probe) (any, bool) {
	t := e.byID[side][p.Type]
	if t == nil {
		return nil, false
	}
	s := &synth{d: e.sides[side]}
	if p.Field == "" {
		if t.Type != nil && t.Type.Array != nil {
			return s.ref(t.Type.Array, nil)
		}
		return nil, false
	}
	for _, f := range t.Fields {
		if f.Name == p.Field && f.Type.Array != nil {
			return s.ref(f.Type.Array, nil)
		}
	}
	return nil, false
}

// variantValues are values of the probed variant as one side declares
// it: from that side's examples first, then built.
func (e *Engine) variantValues(side Side, p Probe) []any {
	u := e.byID[side][p.Type]
	if u == nil {
		return nil
	}
	var out []any
	for _, vr := range u.Variants {
		if vr.Tag != p.Tag {
			continue
		}
		if vr.Object != nil {
			for _, f := range e.pool(side)[vr.Object.ID] {
				if x, ok := get(f.ex, f.path); ok {
					if m, ok := x.(map[string]any); ok && m[u.Tag] == vr.Tag {
						out = append(out, x)
						break
					}
				}
			}
		}
		if x, ok := (&synth{d: e.sides[side]}).variant(u, vr); ok {
			out = append(out, x)
		}
	}
	return out
}
