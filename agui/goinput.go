package agui

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"unicode/utf8"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/genrt"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Direct programmatic input: events, states and patches handed over as Go
// values instead of file text. They are copied into the same trees the
// reader builds, under the same limits, and then checked by the same code,
// so a value passed in process can say nothing a file could not.
//
// The copy reads values through reflection and never calls a method of
// them: a type with its own JSON or text marshaling is refused rather than
// asked to marshal itself, as are structs (their JSON shape depends on tags
// and methods), functions, channels, complex numbers, non-string map keys,
// non-finite numbers, invalid UTF-8 and cycles. Shared references without
// a cycle are accepted; the copy does not keep their identity.

// FindingError is an error that carries a finding: what a direct input
// breaks. In identifies the argument: "events", "state" or "patch".
type FindingError struct {
	In string
	Finding
}

// Error names the argument and the place in it, not a record: a direct
// input has none.
func (e *FindingError) Error() string {
	where := e.In
	if e.Pointer != "" {
		where += " at " + e.Pointer
	}
	return fmt.Sprintf("%s: %s [%s]", where, e.Message, e.Rule)
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	jsonNumber    = reflect.TypeFor[json.Number]()
)

// goCopy copies Go values into JSON trees, sharing its budgets across all
// the values of one input, as the reader shares them across the events of
// one record. Its limits are the reader's (readLimits), so the profile
// decides on both paths which apply.
type goCopy struct {
	event   int
	values  int // values copied so far
	path    []string
	visited []visit // containers on the current path, for cycles
	lim     limits
	// from says what depth is counted from, for the message: the event,
	// or the event a value handed over on its own would stand in.
	from string
}

type visit struct {
	kind reflect.Kind
	ptr  uintptr
	n    int
}

func (g *goCopy) pointer() string {
	p := ""
	for _, t := range g.path {
		p = strictjson.AppendPointer(p, t)
	}
	return p
}

func (g *goCopy) fail(rule, format string, args ...any) error {
	return failf(g.event, g.pointer(), rule, format, args...)
}

func (g *goCopy) refuse(format string, args ...any) error {
	return g.fail(contract.RuleStandDirectInput, format, args...)
}

// value copies v, whose nesting depth is depth (the top value is 1 if it
// is a container).
func (g *goCopy) value(v reflect.Value, depth int) (*strictjson.Value, error) {
	if !v.IsValid() {
		return g.scalar(&strictjson.Value{Kind: strictjson.Null})
	}
	t := v.Type()
	if t != jsonNumber && (t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		reflect.PointerTo(t).Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(textMarshaler)) {
		return nil, g.refuse("%s marshals itself; computed values are not accepted and are never called", t)
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return g.scalar(&strictjson.Value{Kind: strictjson.Null})
		}
		return g.value(v.Elem(), depth)
	case reflect.Pointer:
		if v.IsNil() {
			return g.scalar(&strictjson.Value{Kind: strictjson.Null})
		}
		if err := g.enter(visit{reflect.Pointer, v.Pointer(), 0}); err != nil {
			return nil, err
		}
		defer g.leave()
		return g.value(v.Elem(), depth)
	case reflect.Bool:
		return g.scalar(&strictjson.Value{Kind: strictjson.Bool, Bool: v.Bool()})
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return g.scalar(&strictjson.Value{Kind: strictjson.Number, Str: strconv.FormatInt(v.Int(), 10)})
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return g.scalar(&strictjson.Value{Kind: strictjson.Number, Str: strconv.FormatUint(v.Uint(), 10)})
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, g.refuse("the number %v is not finite; JSON has no such value", f)
		}
		bits := 64
		if v.Kind() == reflect.Float32 {
			bits = 32
		}
		return g.scalar(&strictjson.Value{Kind: strictjson.Number, Str: strconv.FormatFloat(f, 'g', -1, bits)})
	case reflect.String:
		s := v.String()
		if t == jsonNumber {
			n, err := strictjson.Parse([]byte(s), strictjson.Options{})
			if err != nil || n.Kind != strictjson.Number {
				return nil, g.refuse("json.Number %q is not a JSON number", s)
			}
			return g.scalar(n)
		}
		if err := g.addText(s); err != nil {
			return nil, err
		}
		return g.scalar(&strictjson.Value{Kind: strictjson.String, Str: s})
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice {
			if v.IsNil() {
				return g.scalar(&strictjson.Value{Kind: strictjson.Null})
			}
			if err := g.enter(visit{reflect.Slice, v.Pointer(), v.Len()}); err != nil {
				return nil, err
			}
			defer g.leave()
		}
		out, err := g.container(strictjson.Array, depth)
		if err != nil {
			return nil, err
		}
		for i := 0; i < v.Len(); i++ {
			g.path = append(g.path, strconv.Itoa(i))
			e, err := g.value(v.Index(i), depth+1)
			if err != nil {
				return nil, err
			}
			g.path = g.path[:len(g.path)-1]
			out.Elems = append(out.Elems, e)
		}
		return out, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, g.refuse("a map with %s keys is not a JSON object; keys must be strings", t.Key())
		}
		if v.IsNil() {
			return g.scalar(&strictjson.Value{Kind: strictjson.Null})
		}
		if err := g.enter(visit{reflect.Map, v.Pointer(), 0}); err != nil {
			return nil, err
		}
		defer g.leave()
		out, err := g.container(strictjson.Object, depth)
		if err != nil {
			return nil, err
		}
		keys := v.MapKeys()
		// Sorted, so that the copy does not depend on map order.
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, key := range keys {
			name := key.String()
			g.path = append(g.path, name)
			if err := g.addText(name); err != nil {
				return nil, err
			}
			e, err := g.value(v.MapIndex(key), depth+1)
			if err != nil {
				return nil, err
			}
			g.path = g.path[:len(g.path)-1]
			out.Members = append(out.Members, strictjson.Member{Key: name, Value: e})
		}
		return out, nil
	case reflect.Struct:
		return nil, g.refuse("%s is a struct; pass maps, slices and scalars, whose JSON shape does not depend on tags or methods", t)
	}
	return nil, g.refuse("a value of kind %s has no JSON form", v.Kind())
}

func (g *goCopy) enter(v visit) error {
	for _, o := range g.visited {
		if o == v {
			return g.refuse("the value contains itself (a cycle); only shared references without cycles are accepted")
		}
	}
	g.visited = append(g.visited, v)
	return nil
}

func (g *goCopy) leave() { g.visited = g.visited[:len(g.visited)-1] }

func (g *goCopy) count() error {
	g.values++
	if g.lim.values > 0 && g.values > g.lim.values {
		return g.fail(contract.RuleReaderValues, "the input holds more than %d values", g.lim.values)
	}
	return nil
}

func (g *goCopy) scalar(v *strictjson.Value) (*strictjson.Value, error) {
	if err := g.count(); err != nil {
		return nil, err
	}
	return v, nil
}

func (g *goCopy) container(k strictjson.Kind, depth int) (*strictjson.Value, error) {
	if g.lim.depth > 0 && depth > g.lim.depth {
		return nil, g.fail(contract.RuleReaderDepth, "arrays and objects nest deeper than %d levels, counted from %s", g.lim.depth, g.from)
	}
	if err := g.count(); err != nil {
		return nil, err
	}
	return &strictjson.Value{Kind: k}, nil
}

func (g *goCopy) addText(s string) error {
	if !utf8.ValidString(s) {
		return g.fail(contract.RuleReaderUnpairedSurrogates, "the string is not valid UTF-8 (a broken or surrogate character)")
	}
	if g.lim.text != nil {
		if *g.lim.text -= utf16Len(s); *g.lim.text < 0 {
			return g.fail(contract.RuleReaderTextUnits, "the strings hold more than %d text units (UTF-16 code units) together", contract.LimitTextUnits)
		}
	}
	return nil
}

// CheckValues checks events given as Go values — each event a
// map[string]any or another map with string keys — as Check checks a
// record, under the profile opt names.
func CheckValues(events []any, opt Options) (*Result, error) {
	p, m, err := setup(opt)
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		return nil, &InputError{"no events were given: there is nothing to check"}
	}
	c := newChecker(p, m, opt)
	g := &goCopy{lim: readLimits(p), from: "the event"}
	if g.lim.events > 0 && len(events) > g.lim.events {
		return c.stop(eventsFail(len(events), g.lim.events)), nil
	}
	trees := make([]*strictjson.Value, 0, len(events))
	for i, e := range events {
		g.event = i
		v, err := g.value(reflect.ValueOf(e), 1)
		if err != nil {
			return c.stop(err), nil
		}
		if v.Kind != strictjson.Object {
			return c.stop(failf(i, "", contract.RuleReaderRecordShape, "an event is an object; this one is %s", describeKind(v.Kind))), nil
		}
		trees = append(trees, v)
	}
	if err := checkTrees(p, 0, trees...); err != nil {
		return c.stop(err), nil
	}
	return c.run(trees, nil), nil
}

// ApplyPatch applies a JSON Patch given as Go values (a slice of
// operations, each a map) to a state given as Go values (a map), under the
// stand's rules: the state is an object of at most LimitInitialStateBytes
// bytes, the patch at most LimitPatchOperations operations and
// LimitPatchBytes bytes, only add, remove, replace and test, never the
// removal of the root. Depth is counted as in the events that would carry
// them, the state as a STATE_SNAPSHOT's and the patch as a STATE_DELTA's,
// so the state given and the state returned nest at most LimitDepth-1
// levels from their root: each could be sent as a snapshot. It returns
// the new state as map[string]any, []any, string, bool, json.Number and
// nil values. The arguments are never modified; on any error nothing is
// applied.
func ApplyPatch(state, patch any) (map[string]any, error) {
	wrap := func(in string, err error) error {
		if f, ok := err.(*fail); ok {
			f.Event = FileLevel
			return &FindingError{In: in, Finding: f.Finding}
		}
		return err
	}
	stand, _ := LookupProfile(contract.ProfileStand)
	// The state and the patch are counted as the events that would carry
	// them count them, a STATE_SNAPSHOT and a STATE_DELTA, where each is a
	// member of the event: what is taken here could be sent in a record.
	g := &goCopy{event: FileLevel, lim: readLimits(stand), from: fmt.Sprintf("the STATE_SNAPSHOT event that would carry the state, whose root is level %d", memberLevel)}
	doc, err := g.value(reflect.ValueOf(state), memberLevel)
	if err != nil {
		return nil, wrap("state", err)
	}
	stateLimits := stateBounds{p: stand, event: FileLevel, what: "the state", measure: asCompact}
	if err := stateLimits.root(doc); err != nil {
		return nil, wrap("state", err)
	}
	if err := checkTrees(stand, FileLevel, doc); err != nil {
		return nil, wrap("state", err)
	}
	if err := stateLimits.stateBytes(compactSize(doc)); err != nil {
		return nil, wrap("state", err)
	}
	g = &goCopy{event: FileLevel, lim: readLimits(stand), from: fmt.Sprintf("the STATE_DELTA event that would carry the patch, whose list is level %d", memberLevel)}
	list, err := g.value(reflect.ValueOf(patch), memberLevel)
	if err != nil {
		return nil, wrap("patch", err)
	}
	if list.Kind != strictjson.Array {
		return nil, wrap("patch", failf(FileLevel, "", contract.RuleStructureEventSchema, "a patch is a list of operations; this is %s", describeKind(list.Kind)))
	}
	if err := checkTrees(stand, FileLevel, list); err != nil {
		return nil, wrap("patch", err)
	}
	patchLimits := stateBounds{p: stand, event: FileLevel, what: "the patch", measure: asCompact}
	if err := patchLimits.patchOperations(len(list.Elems)); err != nil {
		return nil, wrap("patch", err)
	}
	if err := patchLimits.patchBytes(compactSize(list)); err != nil {
		return nil, wrap("patch", err)
	}
	m, _ := loadModel()
	for i, e := range list.Elems {
		var d genrt.Decoder
		if _, err := contract.DecodeJSONPatchOperationTree(e, &d); err != nil {
			return nil, wrap("patch", decodeFailure(FileLevel, strictjson.AppendIndexPointer("", i), contract.RuleStructureEventSchema, err))
		}
	}
	p := newPatcher(doc, statePatchOptions(stand))
	if f := p.apply(treeOps(nil, list, m.patchTag, namePath, nameFrom, nameValue)); f != nil {
		rule, _ := stateFault(stand, f) // the stand rejects every fault
		return nil, wrap("patch", failf(FileLevel, faultPointer("", f), rule, "%s; nothing was applied", f.Msg))
	}
	if err := patchLimits.patchedRoot(p.root); err != nil {
		return nil, wrap("patch", err)
	}
	res, _ := toGo(p.root).(map[string]any)
	return res, nil
}

// toGo converts a tree into the values encoding/json produces with
// UseNumber.
func toGo(v *strictjson.Value) any { return v.Interface() }
