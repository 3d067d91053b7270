package witness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/contractkit/contractkit/internal/emit/bindview"
	"github.com/contractkit/contractkit/internal/emit/schemaemit"
	"github.com/contractkit/contractkit/internal/spec"
)

// Root is a message whose values contain a changed type: the message in
// words and the id of its type.
type Root struct {
	Message string
	TypeID  string
}

// Engine finds witnesses for changes between two revisions of a domain.
// It compiles each message schema once, on first use.
type Engine struct {
	sides   [2]*spec.Domain
	byID    [2]map[string]*spec.Type
	schemas map[string]*jsonschema.Schema
	// pools holds, per side, the values of each type (by id) found in that
	// side's examples, with where they were found.
	pools [2]map[string][]found
}

// found is a value of a type inside an example of a root.
type found struct {
	root string // the root type's id
	ex   any    // the whole example
	path []any  // member names and indexes from the example to the value
}

// New returns an engine for the baseline and the current revision.
func New(base, cur *spec.Domain) *Engine {
	e := &Engine{sides: [2]*spec.Domain{base, cur}, schemas: map[string]*jsonschema.Schema{}}
	for i, d := range e.sides {
		e.byID[i] = map[string]*spec.Type{}
		for _, t := range d.Types {
			e.byID[i][t.ID] = t
		}
	}
	return e
}

// Find returns a witness of the probe in one of the roots (or in the
// changed type itself), checked against both revisions' schemas, or a zero
// Witness when none of the candidates has the verdict the probe wants.
func (e *Engine) Find(p Probe, roots []Root) Witness {
	if p.IsZero() {
		return Witness{}
	}
	cands := append(append([]Root(nil), roots...), Root{Message: "type", TypeID: p.Type})
	for _, r := range cands {
		if w, ok := e.inRoot(p, r); ok {
			return w
		}
	}
	return Witness{}
}

// inRoot tries the probe in one root message.
func (e *Engine) inRoot(p Probe, r Root) (Witness, bool) {
	rb, rc := e.byID[Baseline][r.TypeID], e.byID[Current][r.TypeID]
	if rb == nil || rc == nil {
		return Witness{}, false
	}
	msg := r.Message
	if msg == "type" {
		msg = "a value of type " + rc.Name
	}
	for _, inst := range e.instances(p, r.TypeID) {
		for _, cand := range e.candidates(p, inst) {
			doc := replaceAt(inst.ex, inst.path, cand)
			okb, okc, ok := e.verdict(rb, rc, doc)
			if !ok || !wanted(p.Want, okb, okc) {
				continue
			}
			raw, err := marshal(doc)
			if err != nil {
				continue
			}
			return Witness{Message: msg, Type: rc.Name, JSON: raw, Baseline: okb, Current: okc}, true
		}
	}
	return Witness{}, false
}

// wanted reports whether the schemas' verdicts are what the probe wants.
func wanted(w Want, base, cur bool) bool {
	switch {
	case w&Same != 0:
		return base && cur
	case base && !cur:
		return w&Narrows != 0
	case cur && !base:
		return w&Widens != 0
	}
	return false
}

// verdict validates doc against the root's schema at both revisions.
func (e *Engine) verdict(rb, rc *spec.Type, doc any) (base, cur, ok bool) {
	sb, err := e.schema(Baseline, rb)
	if err != nil {
		return false, false, false
	}
	sc, err := e.schema(Current, rc)
	if err != nil {
		return false, false, false
	}
	// Each schema gets its own copy: validation must not see another's
	// changes, and values are shared maps.
	return sb.Validate(clone(doc)) == nil, sc.Validate(clone(doc)) == nil, true
}

func (e *Engine) schema(side Side, t *spec.Type) (*jsonschema.Schema, error) {
	key := fmt.Sprintf("%d/%s", side, t.ID)
	if s := e.schemas[key]; s != nil {
		return s, nil
	}
	d := e.sides[side]
	url := fmt.Sprintf("mem:///%d/%s.json", side, t.Name)
	doc, err := schemaemit.Document(d, t, url)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(u string) (io.ReadCloser, error) { return nil, fmt.Errorf("no network: %s", u) }
	if err := c.AddResource(url, bytes.NewReader(doc)); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	e.schemas[key] = s
	return s, nil
}

// instances are the values of the probed type inside the root: those the
// examples hold first (what a real message looks like), then one built
// from the model of each side.
func (e *Engine) instances(p Probe, root string) []found {
	var out []found
	order := []Side{Baseline, Current}
	if p.Want == Widens {
		order = []Side{Current, Baseline}
	}
	for _, side := range order {
		for _, f := range e.pool(side)[p.Type] {
			if f.root == root {
				out = append(out, f)
			}
		}
	}
	for _, side := range order {
		if f, ok := e.build(side, root, p.Type); ok {
			out = append(out, f)
		}
	}
	return out
}

// pool indexes the examples of one side by the types of their values.
func (e *Engine) pool(side Side) map[string][]found {
	if e.pools[side] != nil {
		return e.pools[side]
	}
	d := e.sides[side]
	m := map[string][]found{}
	add := func(t *spec.Type, raws []json.RawMessage) {
		if t == nil {
			return
		}
		for _, raw := range raws {
			v, err := bindview.Decode(raw)
			if err != nil {
				continue
			}
			walk(d, t, v, nil, 0, func(x *spec.Type, path []any) {
				m[x.ID] = append(m[x.ID], found{root: t.ID, ex: v, path: append([]any(nil), path...)})
			})
		}
	}
	for _, meth := range d.Methods {
		add(meth.ParamsType, meth.Examples.Params.Valid)
		add(meth.ResultType, meth.Examples.Result.Valid)
	}
	for _, t := range d.Types {
		if t.Examples != nil {
			add(t, t.Examples.Valid)
		}
	}
	e.pools[side] = m
	return m
}

// maxDepth bounds walks and builds; real specs nest far less.
const maxDepth = 48

// walk visits every value of a named type inside v, which has type t.
func walk(d *spec.Domain, t *spec.Type, v any, path []any, depth int, visit func(*spec.Type, []any)) {
	if t == nil || depth > maxDepth {
		return
	}
	visit(t, path)
	switch t.Kind {
	case spec.ObjectKind:
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		// A value of a type is also one of every type it includes: their
		// members are its members.
		for _, name := range t.Include {
			if inc := d.LookupType(name); inc != nil {
				visit(inc, path)
			}
		}
		for _, f := range t.Fields {
			if x, ok := m[f.Name]; ok && x != nil {
				walkRef(d, &f.Type, x, append(path, f.Name), depth+1, visit)
			}
		}
	case spec.UnionKind:
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		tag, _ := m[t.Tag].(string)
		for _, vr := range t.Variants {
			if vr.Tag == tag && vr.Object != nil {
				walk(d, vr.Object, v, path, depth+1, visit)
			}
		}
	case spec.AliasKind:
		walkRef(d, t.Type, v, path, depth+1, visit)
	}
}

func walkRef(d *spec.Domain, r *spec.TypeRef, v any, path []any, depth int, visit func(*spec.Type, []any)) {
	switch {
	case r.Array != nil:
		a, ok := v.([]any)
		if !ok {
			return
		}
		for i, x := range a {
			walkRef(d, r.Array, x, append(path, i), depth+1, visit)
		}
	case r.Map != nil:
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walkRef(d, r.Map, m[k], append(path, k), depth+1, visit)
		}
	case r.Named != nil:
		walk(d, r.Named, v, path, depth+1, visit)
	}
}

func marshal(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimRight(b.Bytes(), "\n")), nil
}

// clone copies a decoded JSON value deeply.
func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = clone(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = clone(e)
		}
		return a
	}
	return v
}

// get returns the value at path inside v.
func get(v any, path []any) (any, bool) {
	for _, seg := range path {
		switch s := seg.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[s]; !ok {
				return nil, false
			}
		case int:
			a, ok := v.([]any)
			if !ok || s >= len(a) {
				return nil, false
			}
			v = a[s]
		}
	}
	return v, true
}

// replaceAt returns a copy of doc with the value at path replaced by x.
func replaceAt(doc any, path []any, x any) any {
	if len(path) == 0 {
		return clone(x)
	}
	out := clone(doc)
	parent, _ := get(out, path[:len(path)-1])
	switch s := path[len(path)-1].(type) {
	case string:
		if m, ok := parent.(map[string]any); ok {
			m[s] = clone(x)
		}
	case int:
		if a, ok := parent.([]any); ok && s < len(a) {
			a[s] = clone(x)
		}
	}
	return out
}
