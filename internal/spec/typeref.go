package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// Builtin type names. Everything else a TypeRef names is a type of the spec.
const (
	TString     = "string"
	TInteger    = "integer" // a JSON number with an integral value within ±(2^53−1)
	TNumber     = "number"
	TBoolean    = "boolean"
	TAny        = "any"         // any JSON value, carried as raw JSON
	TObject     = "object"      // any JSON object, carried as data (open by meaning)
	TDecimalU64 = "decimal-u64" // an unsigned 64-bit integer carried as a decimal string
)

// Builtins lists the builtin type names.
var Builtins = []string{TString, TInteger, TNumber, TBoolean, TAny, TObject, TDecimalU64}

// IsBuiltin reports whether name is a builtin type.
func IsBuiltin(name string) bool {
	for _, b := range Builtins {
		if b == name {
			return true
		}
	}
	return false
}

// Safe integer bounds: every integer of the contract survives a JavaScript peer.
const (
	MaxSafeInteger = 1<<53 - 1
	MinSafeInteger = -(1<<53 - 1)
)

// TypeRef is a type expression: a builtin or named type, an array or a map
// (an object with arbitrary member names).
type TypeRef struct {
	Name  string
	Array *TypeRef
	Map   *TypeRef

	// Named is the resolved named type when Name is not a builtin.
	Named *Type
}

// UnmarshalJSON reads "name", {"array": T} or {"map": T}.
func (r *TypeRef) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &r.Name)
	}
	var m struct {
		Array *TypeRef `json:"array"`
		Map   *TypeRef `json:"map"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if (m.Array == nil) == (m.Map == nil) {
		return fmt.Errorf("type expression needs exactly one of array, map")
	}
	r.Array, r.Map = m.Array, m.Map
	return nil
}

// MarshalJSON writes the form UnmarshalJSON reads.
func (r TypeRef) MarshalJSON() ([]byte, error) {
	switch {
	case r.Array != nil:
		return json.Marshal(map[string]*TypeRef{"array": r.Array})
	case r.Map != nil:
		return json.Marshal(map[string]*TypeRef{"map": r.Map})
	}
	return json.Marshal(r.Name)
}

// String renders the expression as docs show it: T, T[], map<string, T>.
func (r TypeRef) String() string {
	switch {
	case r.Array != nil:
		return r.Array.String() + "[]"
	case r.Map != nil:
		return "map<string, " + r.Map.String() + ">"
	}
	return r.Name
}

// Elem walks to the innermost named or builtin reference.
func (r *TypeRef) Elem() *TypeRef {
	for {
		switch {
		case r.Array != nil:
			r = r.Array
		case r.Map != nil:
			r = r.Map
		default:
			return r
		}
	}
}

// JSONKind returns the JSON kind a value of the expression has at its top
// level: "string", "integer", "number", "boolean", "array", "object", or ""
// when any kind is possible.
func (r *TypeRef) JSONKind() string {
	switch {
	case r.Array != nil:
		return "array"
	case r.Map != nil:
		return "object"
	}
	switch r.Name {
	case TString, TDecimalU64:
		return "string"
	case TInteger, TNumber, TBoolean:
		return r.Name
	case TObject:
		return "object"
	case TAny:
		return ""
	}
	if r.Named == nil {
		return ""
	}
	t := r.Named
	switch t.Kind {
	case ObjectKind, UnionKind:
		return "object"
	case EnumKind:
		if t.Base == "integer" {
			return "integer"
		}
		return "string"
	case AliasKind:
		return t.Type.JSONKind()
	}
	return ""
}

// Bound JSON: a number or {"constant": id}.

// UnmarshalJSON reads a literal number or a constant reference.
func (b *Bound) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '{' {
		var ref struct {
			Constant string `json:"constant"`
		}
		if err := json.Unmarshal(data, &ref); err != nil {
			return err
		}
		b.Constant = ref.Constant
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(&b.Literal)
}

// MarshalJSON writes the bound as the spec gave it.
func (b Bound) MarshalJSON() ([]byte, error) {
	if b.Constant != "" {
		return json.Marshal(map[string]string{"constant": b.Constant})
	}
	return []byte(b.Literal.String()), nil
}

// constraintsJSON is Constraints without its methods, for encoding/json.
type constraintsJSON Constraints

// countFields are the count bounds that may name a constant, with the
// fields that hold their value and their constant.
func (k *Constraints) countFields() []struct {
	name  string
	value **int64
	ref   *string
} {
	return []struct {
		name  string
		value **int64
		ref   *string
	}{
		{"minLength", &k.MinLength, &k.MinLengthConstant},
		{"maxLength", &k.MaxLength, &k.MaxLengthConstant},
		{"minItems", &k.MinItems, &k.MinItemsConstant},
		{"maxItems", &k.MaxItems, &k.MaxItemsConstant},
	}
}

// UnmarshalJSON reads constraints whose count bounds are numbers or
// {"constant": id}.
func (k *Constraints) UnmarshalJSON(data []byte) error {
	var counts map[string]json.RawMessage
	if err := json.Unmarshal(data, &counts); err != nil {
		return err
	}
	refs := map[string]string{}
	for _, f := range k.countFields() {
		if id := ConstantRef(counts[f.name]); id != "" {
			refs[f.name] = id
			delete(counts, f.name)
		}
	}
	if len(refs) == 0 {
		return json.Unmarshal(data, (*constraintsJSON)(k))
	}
	rest, err := json.Marshal(counts)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(rest, (*constraintsJSON)(k)); err != nil {
		return err
	}
	for _, f := range k.countFields() {
		*f.ref = refs[f.name]
	}
	return nil
}

// MarshalJSON writes the constraints as the spec gave them: a count bound
// taken from a constant is written as the reference.
func (k Constraints) MarshalJSON() ([]byte, error) {
	plain := constraintsJSON(k)
	refs := map[string]string{}
	for _, f := range (&plain).toConstraints().countFields() {
		if *f.ref != "" {
			refs[f.name] = *f.ref
			*f.value = nil
		}
	}
	b, err := json.Marshal(plain)
	if err != nil || len(refs) == 0 {
		return b, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for name, id := range refs {
		m[name], _ = json.Marshal(map[string]string{"constant": id})
	}
	return json.Marshal(m)
}

func (k *constraintsJSON) toConstraints() *Constraints { return (*Constraints)(k) }

// ConstantRef returns the constant id of a {"constant": id} value (a
// default or const that names a constant instead of spelling the value),
// or "" when the value is a literal.
func ConstantRef(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return ""
	}
	var ref struct {
		Constant string `json:"constant"`
	}
	if json.Unmarshal(raw, &ref) != nil {
		return ""
	}
	return ref.Constant
}

// initialisms are written in capitals in Go names, as the Go style asks.
var initialisms = map[string]bool{
	"API": true, "ASCII": true, "CPU": true, "CSS": true, "DNS": true, "EOF": true, "HTML": true,
	"HTTP": true, "HTTPS": true, "ID": true, "IP": true, "JSON": true, "MIME": true, "RPC": true,
	"SQL": true, "TCP": true, "TLS": true, "TTL": true, "UI": true, "URI": true, "URL": true,
	"UTF8": true, "UUID": true, "XML": true,
}

// GoName turns a wire name (camelCase, snake_case, kebab-case, path-like
// such as "metadata/children" or "$/cancelRequest") into an exported Go name.
func GoName(s string) string {
	words := Words(s)
	var out strings.Builder
	for _, w := range words {
		up := strings.ToUpper(w)
		if initialisms[up] {
			out.WriteString(up)
			continue
		}
		rw := []rune(strings.ToLower(w))
		rw[0] = unicode.ToUpper(rw[0])
		out.WriteString(string(rw))
	}
	if out.Len() == 0 {
		return "X"
	}
	name := out.String()
	if unicode.IsDigit([]rune(name)[0]) {
		name = "N" + name
	}
	return name
}

// Words splits a wire name (camelCase, snake_case, kebab-case, path-like
// such as "metadata/children" or "$/cancelRequest", UPPER_SNAKE) into its
// words, keeping their letters as written. Every generator names things
// from these words, so the Go, TypeScript and Python names of one wire
// name split it alike.
func Words(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r):
			// Split before an upper-case letter that starts a new word:
			// after a lower-case letter or digit, or at the end of an
			// upper-case run followed by lower case (HTTPServer → HTTP Server).
			if len(cur) > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					flush()
				}
			}
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}
