package agui

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/internal/strictjson"
)

// The shape walker compares an event's tree with the types of the
// contract, read from the generated canonical model, to find what the
// contract does not describe: members of closed objects it does not name
// and union members whose tag names no variant. The stand rejects the first
// such member; AG-UI 1.1 strips them with a warning each. Malformed values
// of described members are left alone: the generated decoder rejects them.

// modelRef is a type expression of the model.
type modelRef struct {
	Name  string
	Array *modelRef
	Map   *modelRef
}

func (r *modelRef) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &r.Name)
	}
	var m struct {
		Array *modelRef `json:"array"`
		Map   *modelRef `json:"map"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	r.Array, r.Map = m.Array, m.Map
	return nil
}

type modelField struct {
	Name     string   `json:"name"`
	Type     modelRef `json:"type"`
	Required bool     `json:"required"`
}

type modelVariant struct {
	Tag  string `json:"tag"`
	Type string `json:"type"`
}

type modelType struct {
	Name             string         `json:"name"`
	Kind             string         `json:"kind"`
	Fields           []modelField   `json:"fields"`
	AdditionalFields string         `json:"additionalFields"`
	Tag              string         `json:"tag"`
	Variants         []modelVariant `json:"variants"`
	Type             *modelRef      `json:"type"`
}

// model is the part of the canonical model the walker reads.
type model struct {
	types map[string]*modelType
	// Names of the types the walker treats specially, taken from the Go
	// types the generator made of them so that no name is written here.
	event, content, contentPart, metadata, message, nonNull string
}

// variantTag returns the tag under which union lists the variant v holds.
func (m *model) variantTag(union string, v any) string {
	return m.variantTagOf(union, reflect.TypeOf(v).Name())
}

// variantTagOf returns the tag under which union lists the object type.
func (m *model) variantTagOf(union, typeName string) string {
	if t := m.types[union]; t != nil {
		for _, v := range t.Variants {
			if v.Type == typeName {
				return v.Tag
			}
		}
	}
	return ""
}

var (
	modelOnce sync.Once
	theModel  *model
	modelErr  error
)

func loadModel() (*model, error) {
	modelOnce.Do(func() {
		var doc struct {
			Model struct {
				Types []*modelType `json:"types"`
			} `json:"model"`
		}
		if err := json.Unmarshal(contract.Model, &doc); err != nil {
			modelErr = fmt.Errorf("agui: the generated model does not decode: %w", err)
			return
		}
		m := &model{types: map[string]*modelType{},
			event:       goTypeName[contract.Event](),
			content:     goTypeName[contract.MessageContent](),
			contentPart: goTypeName[contract.ContentPart](),
			metadata:    goTypeName[contract.Metadata](),
			message:     goTypeName[contract.Message](),
			nonNull:     goTypeName[contract.NonNullValue](),
		}
		for _, t := range doc.Model.Types {
			m.types[t.Name] = t
		}
		for _, n := range []string{m.event, m.content, m.contentPart, m.metadata, m.message, m.nonNull} {
			if m.types[n] == nil {
				modelErr = fmt.Errorf("agui: the generated model has no type %s", n)
				return
			}
		}
		theModel = m
	})
	return theModel, modelErr
}

// goTypeName is the name of a generated Go type, which is the spec's name
// for it (the contract sets no symbols on these types).
func goTypeName[T any]() string { return reflect.TypeFor[T]().Name() }

// shapeWalk walks one event. In strict mode the first unknown member is a
// failure; otherwise unknown material is removed from the tree in place and
// reported as warnings. Pointers are built only for what is reported.
type shapeWalk struct {
	m        *model
	strict   bool
	event    int
	warnings []Finding
	path     []string
	changed  bool // something was removed from the tree
}

// verdict of a walked value: keep it, or drop it from its container
// because it is an unrecognised union member.
type verdict int

const (
	keep verdict = iota
	drop
)

func (w *shapeWalk) ptr() string {
	p := ""
	for _, t := range w.path {
		p = strictjson.AppendPointer(p, t)
	}
	return p
}

func (w *shapeWalk) push(tok string) { w.path = append(w.path, tok) }
func (w *shapeWalk) pop()            { w.path = w.path[:len(w.path)-1] }

func (w *shapeWalk) warn(rule, format string, args ...any) {
	w.warnings = append(w.warnings, Finding{Event: w.event, Pointer: w.ptr(), Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// value walks v, described by r, at the walker's path.
func (w *shapeWalk) value(v *strictjson.Value, r *modelRef) (verdict, error) {
	switch {
	case r.Array != nil:
		if v.Kind != strictjson.Array {
			return keep, nil
		}
		return keep, w.elements(v, r.Array)
	case r.Map != nil:
		if v.Kind != strictjson.Object {
			return keep, nil
		}
		var kept []strictjson.Member // nil until something is removed
		for i, m := range v.Members {
			w.push(m.Key)
			mark := len(w.warnings)
			vd, err := w.value(m.Value, r.Map)
			if err != nil {
				return keep, err
			}
			if vd == drop {
				w.warnings = w.warnings[:mark]
				w.warn(contract.RuleToleranceUnknownVariants, "removed a value whose type names no variant the contract knows")
				if kept == nil {
					kept = append(make([]strictjson.Member, 0, len(v.Members)), v.Members[:i]...)
				}
			} else if kept != nil {
				kept = append(kept, m)
			}
			w.pop()
		}
		if kept != nil {
			v.Members, w.changed = kept, true
		}
		return keep, nil
	}
	t := w.m.types[r.Name]
	if t == nil {
		return keep, nil // a builtin: any, object, string, ...
	}
	switch t.Kind {
	case "alias":
		switch {
		case t.Name == w.m.content:
			return keep, w.content(v)
		case t.Name == w.m.nonNull && v.Kind == strictjson.Null:
			return keep, failf(w.event, w.ptr(), contract.RuleStructureNonNull, "null is not a value here: leave the member out instead")
		}
		return w.value(v, t.Type)
	case "object":
		return w.object(v, t, "")
	case "union":
		return w.union(v, t)
	}
	return keep, nil
}

func (w *shapeWalk) elements(v *strictjson.Value, elem *modelRef) error {
	var kept []*strictjson.Value // nil until something is dropped
	for i, e := range v.Elems {
		w.push(strconv.Itoa(i))
		mark := len(w.warnings)
		vd, err := w.value(e, elem)
		if err != nil {
			return err
		}
		if vd == drop {
			w.warnings = w.warnings[:mark]
			w.warn(contract.RuleToleranceUnknownVariants, "dropped an element whose type names no variant the contract knows")
			if kept == nil {
				kept = append(make([]*strictjson.Value, 0, len(v.Elems)), v.Elems[:i]...)
			}
		} else if kept != nil {
			kept = append(kept, e)
		}
		w.pop()
	}
	if kept != nil {
		v.Elems, w.changed = kept, true
	}
	return nil
}

// object walks the members of an object type; tag is the member a union
// writes, which the variant type does not declare.
func (w *shapeWalk) object(v *strictjson.Value, t *modelType, tag string) (verdict, error) {
	if v.Kind != strictjson.Object {
		return keep, nil
	}
	var kept []strictjson.Member // nil until something is removed
	remove := func(i int) {
		if kept == nil {
			kept = append(make([]strictjson.Member, 0, len(v.Members)), v.Members[:i]...)
		}
	}
	for i, m := range v.Members {
		if m.Key == tag {
			if kept != nil {
				kept = append(kept, m)
			}
			continue
		}
		k := slices.IndexFunc(t.Fields, func(f modelField) bool { return f.Name == m.Key })
		w.push(m.Key)
		switch {
		case k < 0 && t.AdditionalFields != "reject":
			// Open by meaning, like RFC 6902 operations: kept as it is.
		case k < 0 && w.strict:
			return keep, failf(w.event, w.ptr(), contract.RuleUnsupportedUnknownFields,
				"member %q is not part of %s; the stand does not accept unknown members", m.Key, t.Name)
		case k < 0:
			w.warn(contract.RuleToleranceUnknownMembers, "removed member %q, which %s does not describe", m.Key, t.Name)
			remove(i)
			w.pop()
			continue
		default:
			f := t.Fields[k]
			mark := len(w.warnings)
			vd, err := w.value(m.Value, &f.Type)
			if err != nil {
				return keep, err
			}
			if vd == drop {
				w.warnings = w.warnings[:mark]
				if f.Required {
					// A required member that cannot be recognised makes
					// the object holding it unrecognisable as well.
					w.pop()
					return drop, nil
				}
				w.warn(contract.RuleToleranceUnknownVariants, "removed member %q: its type names no variant the contract knows", m.Key)
				remove(i)
				w.pop()
				continue
			}
		}
		if kept != nil {
			kept = append(kept, m)
		}
		w.pop()
	}
	if kept != nil {
		v.Members, w.changed = kept, true
	}
	return keep, nil
}

func (w *shapeWalk) union(v *strictjson.Value, t *modelType) (verdict, error) {
	if v.Kind != strictjson.Object {
		return keep, nil // a wrong kind is malformed, not unknown: the decoder rejects it
	}
	tv := v.Get(t.Tag)
	if tv == nil || tv.Kind != strictjson.String {
		return keep, nil
	}
	for _, vr := range t.Variants {
		if vr.Tag != tv.Str {
			continue
		}
		if vr.Type == "" {
			return w.object(v, &modelType{Name: t.Name, AdditionalFields: "reject"}, t.Tag)
		}
		return w.object(v, w.m.types[vr.Type], t.Tag)
	}
	if w.strict {
		return keep, nil // the decoder names the unknown variant
	}
	return drop, nil
}

// content walks a message content: text, or an array of content parts. Any
// other kind breaks the content rule in every profile.
func (w *shapeWalk) content(v *strictjson.Value) error {
	switch v.Kind {
	case strictjson.String:
		return nil
	case strictjson.Array:
		part := &modelRef{Name: w.m.contentPart}
		if err := w.elements(v, part); err != nil {
			return err
		}
		for i, e := range v.Elems {
			if _, err := contract.DecodeContentPart(e.AppendCompact(nil)); err != nil {
				return decodeFailure(w.event, strictjson.AppendIndexPointer(w.ptr(), i), contract.RuleStructureMessageContent, err)
			}
		}
		return nil
	}
	return failf(w.event, w.ptr(), contract.RuleStructureMessageContent, "content is text or an array of content parts; this is %s", describeKind(v.Kind))
}

// decodeFailure turns an error of a generated decoder into a finding at
// base plus the decoder's pointer.
func decodeFailure(event int, base, rule string, err error) error {
	var ve *contract.ValidationError
	if errors.As(err, &ve) {
		return failf(event, base+ve.Pointer, rule, "%s", ve.Message)
	}
	return failf(event, base, rule, "%v", err)
}

// typeAt returns the name of the type the model gives the value at ptr
// inside a value of type r, or "" when the pointer leaves the model (into
// data, or into members the model does not know).
func (m *model) typeAt(r *modelRef, ptr string) string {
	toks := splitPointer(ptr)
	for _, tok := range toks {
		r = m.step(r, tok)
		if r == nil {
			return ""
		}
	}
	for r != nil && r.Array == nil && r.Map == nil {
		t := m.types[r.Name]
		if t == nil || t.Kind != "alias" || t.Name == m.metadata || t.Name == m.content {
			return r.Name
		}
		r = t.Type
	}
	return ""
}

// step follows one pointer token from a value of type r. For a union it
// cannot know the variant without the value, so it looks for a variant
// that declares the member.
func (m *model) step(r *modelRef, tok string) *modelRef {
	for {
		switch {
		case r.Array != nil:
			if _, err := strconv.Atoi(tok); err != nil {
				return nil
			}
			return r.Array
		case r.Map != nil:
			return r.Map
		}
		t := m.types[r.Name]
		if t == nil {
			return nil
		}
		switch t.Kind {
		case "alias":
			r = t.Type
			continue
		case "object":
			for i := range t.Fields {
				if t.Fields[i].Name == tok {
					return &t.Fields[i].Type
				}
			}
			return nil
		case "union":
			for _, v := range t.Variants {
				if o := m.types[v.Type]; o != nil {
					for i := range o.Fields {
						if o.Fields[i].Name == tok {
							return &o.Fields[i].Type
						}
					}
				}
			}
		}
		return nil
	}
}

// splitPointer splits a JSON pointer into its unescaped tokens.
func splitPointer(ptr string) []string {
	if ptr == "" {
		return nil
	}
	var out []string
	for _, t := range strings.Split(ptr[1:], "/") {
		out = append(out, strings.NewReplacer("~1", "/", "~0", "~").Replace(t))
	}
	return out
}
