// Package strictjson is a strict, allocation-conscious JSON reader and writer.
//
// It is shared by the contract-code generator and the protocol runtimes
// (NDJSON bridge, JSON-RPC stdio server, AG-UI event-stream checker). Unlike
// encoding/json it
//
//   - accepts exactly RFC 8259 and nothing more: no BOM, no invalid UTF-8
//     (encoding/json silently replaces it), no duplicate member names and no
//     unpaired surrogate escapes unless explicitly allowed;
//   - keeps byte offsets and document order for every value, so generated
//     validators can report the JSON Pointer and position of a failing field;
//   - enforces depth and value-count limits while parsing, so memory use is
//     bounded by the input size and the limits, never by what the input
//     claims to contain;
//   - never recurses on the Go stack over input nesting, so no input can
//     exhaust the stack, and never panics;
//   - reports every failure as an *Error with a classified ErrorKind.
//
// The writer half (AppendString, AppendFloat, ...) produces the same text as
// encoding/json with HTML escaping disabled, so generated MarshalJSON methods
// are byte-compatible with values marshalled by encoding/json.
//
// Compatibility: strictjson is one of the two packages (with
// runtime/genrt) that generated contract code imports, so it keeps Go's
// compatibility promise within a major version of the module: nothing
// exported is removed or changed incompatibly (make test checks it
// against the merge-base with scripts/apicheck.sh).
package strictjson

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON value kinds. Null is the zero Kind so that a zero Value is a
// valid JSON null.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// String returns the JSON Schema name of the kind ("boolean", not "bool"),
// because these names end up in validation messages next to schema types.
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one parsed JSON value.
//
// Only the fields belonging to Kind are set. Start and End are byte offsets
// into the input given to Parse: input[Start:End] is the value's exact text,
// including the quotes of a string and the brackets of a container.
//
// Strings without escapes and number literals share a single copy of the
// input made by Parse, so holding on to any one of them keeps that copy
// alive; copy with strings.Clone if a small piece must outlive a large
// document.
type Value struct {
	Kind Kind
	// Bool is the value of a Bool.
	Bool bool
	// Str is the decoded (unescaped) text of a String, or the literal exactly
	// as written for a Number. Numbers are kept as text so that no precision
	// is lost before the caller decides which Go type it wants.
	Str string
	// Elems are the elements of an Array, in order.
	Elems []*Value
	// Members are the members of an Object in document order. Duplicate names
	// only occur when Options.AllowDuplicateKeys was set.
	Members []Member
	// Start and End delimit the value's text in the input.
	Start, End int
}

// Member is one name/value pair of an object.
type Member struct {
	// Key is the decoded member name.
	Key string
	// KeyStart is the byte offset of the opening quote of the name, which is
	// where an error about the name itself should point.
	KeyStart int
	Value    *Value
}

// Get returns the value of the first member named name, or nil if v is nil,
// not an object, or has no such member. The nil results make chained look-ups
// such as v.Get("params").Get("id") safe.
func (v *Value) Get(name string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := range v.Members {
		if v.Members[i].Key == name {
			return v.Members[i].Value
		}
	}
	return nil
}

// Int64 returns the exact integer value of a Number. The test is on the
// mathematical value, not the spelling: "1.0", "1e2" and "1.50e1" are
// integers, "1.5" is not. It reports false if v is not a number, is not
// integral, or does not fit in an int64. It never builds a big number, so
// literals like 1e1000000000 are rejected in time proportional to their
// length.
func (v *Value) Int64() (int64, bool) {
	if v == nil || v.Kind != Number {
		return 0, false
	}
	neg, mag, ok := integerValue(v.Str)
	if !ok {
		return 0, false
	}
	if neg {
		if mag > 1<<63 {
			return 0, false
		}
		return int64(-mag), true // -(1<<63) wraps to MinInt64, as intended
	}
	if mag > math.MaxInt64 {
		return 0, false
	}
	return int64(mag), true
}

// Uint64 is like Int64 for uint64. "-0" is accepted as 0; any other negative
// value is rejected.
func (v *Value) Uint64() (uint64, bool) {
	if v == nil || v.Kind != Number {
		return 0, false
	}
	neg, mag, ok := integerValue(v.Str)
	if !ok || (neg && mag != 0) {
		return 0, false
	}
	return mag, true
}

// Float64 returns the literal converted by strconv.ParseFloat (nearest
// float64, ties to even). It reports false if v is not a number or the value
// lies outside the float64 range (it would round to ±Inf). Values too small
// to represent become 0 or a subnormal, as in encoding/json.
func (v *Value) Float64() (float64, bool) {
	if v == nil || v.Kind != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.Str, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// maxExp caps the exponent read by integerValue. Any exponent whose size
// matters for an integer test is far below it, and saturating there keeps
// the arithmetic in int64 for any input length.
const maxExp = 1 << 50

// integerValue decides whether the number literal lit (already known to be
// valid JSON) has an integral value whose magnitude fits in a uint64, and
// returns its sign and magnitude.
func integerValue(lit string) (neg bool, mag uint64, ok bool) {
	i := 0
	if i < len(lit) && lit[i] == '-' {
		neg = true
		i++
	}
	intStart := i
	for i < len(lit) && isDigit(lit[i]) {
		i++
	}
	intPart := lit[intStart:i]
	var frac string
	if i < len(lit) && lit[i] == '.' {
		i++
		fs := i
		for i < len(lit) && isDigit(lit[i]) {
			i++
		}
		frac = lit[fs:i]
		if len(frac) == 0 {
			return false, 0, false
		}
	}
	var exp int64
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		eneg := false
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			eneg = lit[i] == '-'
			i++
		}
		if i == len(lit) {
			return false, 0, false
		}
		for ; i < len(lit) && isDigit(lit[i]); i++ {
			if exp < maxExp {
				exp = exp*10 + int64(lit[i]-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(lit) || len(intPart) == 0 {
		return false, 0, false // not a number literal at all
	}
	// The digits are intPart followed by frac; the value is
	// digits × 10^(exp-len(frac)). Locate the first and last non-zero digit.
	total := len(intPart) + len(frac)
	digit := func(k int) byte {
		if k < len(intPart) {
			return intPart[k]
		}
		return frac[k-len(intPart)]
	}
	first := 0
	for first < total && digit(first) == '0' {
		first++
	}
	if first == total {
		return neg, 0, true // zero, however it is written
	}
	last := total - 1
	for digit(last) == '0' {
		last--
	}
	scale := exp - int64(len(frac)) + int64(total-1-last)
	if scale < 0 {
		return false, 0, false // the last non-zero digit is after the point
	}
	nd := int64(last - first + 1)
	if nd+scale > 20 { // at least 10^20 > MaxUint64
		return false, 0, false
	}
	for k := first; k <= last; k++ {
		d := uint64(digit(k) - '0')
		if mag > (math.MaxUint64-d)/10 {
			return false, 0, false
		}
		mag = mag*10 + d
	}
	for ; scale > 0; scale-- {
		if mag > math.MaxUint64/10 {
			return false, 0, false
		}
		mag *= 10
	}
	return neg, mag, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Interface converts v to the shape encoding/json produces when decoding into
// an any with UseNumber: map[string]any, []any, json.Number, string, bool or
// nil. It exists to hand parsed documents to JSON Schema validators that
// expect that shape. If duplicate member names were allowed, the last one
// wins, as in encoding/json. The walk uses an explicit stack, so deep
// documents cannot overflow the Go stack.
func (v *Value) Interface() any {
	if v == nil {
		return nil
	}
	if v.Kind != Array && v.Kind != Object {
		return scalarInterface(v)
	}
	type item struct {
		v   *Value
		i   int
		arr []any
		obj map[string]any
	}
	open := func(c *Value) item {
		it := item{v: c}
		if c.Kind == Array {
			it.arr = make([]any, len(c.Elems))
		} else {
			it.obj = make(map[string]any, len(c.Members))
		}
		return it
	}
	// store puts x at the current position of it and advances it.
	store := func(it *item, x any) {
		if it.v.Kind == Array {
			it.arr[it.i] = x
		} else {
			it.obj[it.v.Members[it.i].Key] = x
		}
		it.i++
	}
	stack := append(make([]item, 0, 16), open(v))
	for {
		top := &stack[len(stack)-1]
		if top.i == top.v.childCount() {
			var done any
			if top.v.Kind == Array {
				done = top.arr
			} else {
				done = top.obj
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return done
			}
			store(&stack[len(stack)-1], done)
			continue
		}
		var c *Value
		if top.v.Kind == Array {
			c = top.v.Elems[top.i]
		} else {
			c = top.v.Members[top.i].Value
		}
		if c != nil && (c.Kind == Array || c.Kind == Object) {
			stack = append(stack, open(c))
			continue
		}
		store(top, scalarInterface(c))
	}
}

func scalarInterface(v *Value) any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case Bool:
		return v.Bool
	case Number:
		return json.Number(v.Str)
	case String:
		return v.Str
	}
	return nil
}

// AppendCompact appends the compact JSON encoding of v to b: no whitespace,
// strings re-encoded with AppendString (so escapes are normalised), numbers
// as their original literal, members in document order (duplicates, if they
// were allowed, are kept). A nil v is written as null. Like Interface it does
// not recurse on the Go stack.
func (v *Value) AppendCompact(b []byte) []byte {
	if v == nil || (v.Kind != Array && v.Kind != Object) {
		return appendScalar(b, v)
	}
	type item struct {
		v *Value
		i int
	}
	stack := append(make([]item, 0, 32), item{v: v})
	b = append(b, openByte(v.Kind))
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.i == top.v.childCount() {
			b = append(b, openByte(top.v.Kind)+2) // ']' is '['+2, '}' is '{'+2
			stack = stack[:len(stack)-1]
			continue
		}
		if top.i > 0 {
			b = append(b, ',')
		}
		var c *Value
		if top.v.Kind == Array {
			c = top.v.Elems[top.i]
		} else {
			m := &top.v.Members[top.i]
			b = AppendString(b, m.Key)
			b = append(b, ':')
			c = m.Value
		}
		top.i++
		if c != nil && (c.Kind == Array || c.Kind == Object) {
			b = append(b, openByte(c.Kind))
			stack = append(stack, item{v: c})
			continue
		}
		b = appendScalar(b, c)
	}
	return b
}

// childCount is the number of elements of an array or members of an object.
func (v *Value) childCount() int {
	if v.Kind == Array {
		return len(v.Elems)
	}
	return len(v.Members)
}

func openByte(k Kind) byte {
	if k == Array {
		return '['
	}
	return '{'
}

func appendScalar(b []byte, v *Value) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	switch v.Kind {
	case Bool:
		return AppendBool(b, v.Bool)
	case Number:
		return append(b, v.Str...)
	case String:
		return AppendString(b, v.Str)
	}
	return append(b, "null"...)
}

// Offsets maps the JSON pointer of every value in the tree to the byte
// offset where it starts, for reporting a problem found by pointer at its
// place in the input (a line number, an editor position).
func (v *Value) Offsets() map[string]int {
	m := map[string]int{}
	var walk func(v *Value, ptr string)
	walk = func(v *Value, ptr string) {
		m[ptr] = v.Start
		switch v.Kind {
		case Array:
			for i, e := range v.Elems {
				walk(e, AppendIndexPointer(ptr, i))
			}
		case Object:
			for _, mem := range v.Members {
				walk(mem.Value, AppendPointer(ptr, mem.Key))
			}
		}
	}
	if v != nil {
		walk(v, "")
	}
	return m
}

// NumberAt is a number of a document: its JSON pointer and its text.
type NumberAt struct {
	Pointer string
	Text    string
}

// NumbersBeyondFloat64 lists, in document order, the numbers of v that a
// 64-bit float cannot hold: too large, or so small and not zero that they
// would read as zero. A JSON Schema validator that computes with exact
// rationals cannot take some of them (an exponent of a million makes
// github.com/santhosh-tekuri/jsonschema/v5 dereference nil), so whatever
// validates a document with a schema refuses these first, by pointer.
func (v *Value) NumbersBeyondFloat64() []NumberAt {
	var out []NumberAt
	type item struct {
		v   *Value
		ptr string
	}
	stack := []item{{v, ""}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch it.v.Kind {
		case Number:
			f, err := strconv.ParseFloat(it.v.Str, 64)
			mantissa, _, _ := strings.Cut(strings.ToLower(it.v.Str), "e")
			if err != nil || f == 0 && strings.ContainsAny(mantissa, "123456789") {
				out = append(out, NumberAt{it.ptr, it.v.Str})
			}
		case Array:
			for i := len(it.v.Elems) - 1; i >= 0; i-- {
				stack = append(stack, item{it.v.Elems[i], AppendIndexPointer(it.ptr, i)})
			}
		case Object:
			for i := len(it.v.Members) - 1; i >= 0; i-- {
				m := it.v.Members[i]
				stack = append(stack, item{m.Value, AppendPointer(it.ptr, m.Key)})
			}
		}
	}
	return out
}

// BeyondFloat64Message says what is wrong with such a number; long texts
// are cut.
func (n NumberAt) BeyondFloat64Message() string {
	text := n.Text
	if len(text) > 40 {
		text = text[:40] + "…"
	}
	return "the number " + text + " is outside the range of a 64-bit float"
}
