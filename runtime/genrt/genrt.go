// Package genrt is the hand-written support code that the generated
// contract packages under generated/ call: strict decoding of builtin
// values with JSON-pointer errors, and the small writer helpers of their
// MarshalJSON methods. It holds nothing domain-specific; every name, code
// and limit comes from the generated package that calls it.
package genrt

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Safe integer range: integers of every contract survive a JavaScript peer.
const (
	MaxSafeInteger = 1<<53 - 1
	MinSafeInteger = -(1<<53 - 1)
)

// ValidationError reports a value that does not satisfy the contract.
type ValidationError struct {
	// Code is the protocol error code a server answers with: the domain's
	// invalid-params code, set by the generated Decode functions.
	Code int64
	// Pointer is the JSON pointer of the failing value within the decoded
	// document ("" for the document itself); for a missing member it names
	// the member that should be there.
	Pointer string
	Message string
	// Kind classifies the failure: a malformed value, or material the
	// contract does not describe (see Decoder).
	Kind ErrorKind
	// Type is the Go name of the alias or enum the failing value was read
	// as, or of the object or union that did not describe it, when known.
	Type string
	// Rule is the id of the rule the value breaks, when a Named hook
	// reported it.
	Rule string
}

func (e *ValidationError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "/"
	}
	return p + ": " + e.Message
}

// Invalid builds a ValidationError without a code; Decode sets the code.
func Invalid(ptr, format string, args ...any) error {
	return &ValidationError{Pointer: ptr, Message: fmt.Sprintf(format, args...)}
}

// WithCode sets the code of a ValidationError, or wraps a parse failure of
// the input bytes into one.
func WithCode(err error, code int64) error {
	if err == nil {
		return nil
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		ve.Code = code
		return ve
	}
	var se *strictjson.Error
	if errors.As(err, &se) {
		return &ValidationError{Code: code, Pointer: se.Pointer, Message: "invalid JSON: " + se.Msg}
	}
	return &ValidationError{Code: code, Message: err.Error()}
}

// Parse reads a whole document for a generated Decode function.
func Parse(data []byte) (*strictjson.Value, error) {
	return strictjson.Parse(data, strictjson.Options{})
}

func wrongKind(v *strictjson.Value, ptr, want string) error {
	return Invalid(ptr, "expected %s, got %s", want, describe(v))
}

func describe(v *strictjson.Value) string {
	switch v.Kind {
	case strictjson.Number:
		return "number " + v.Str
	case strictjson.Bool:
		return "boolean " + strconv.FormatBool(v.Bool)
	case strictjson.Null:
		return "null"
	case strictjson.Array:
		return "an array"
	case strictjson.Object:
		return "an object"
	}
	return "a string"
}

// Missing reports an absent required member.
func Missing(ptr, name string) error {
	return Invalid(strictjson.AppendPointer(ptr, name), "required member %q is missing", name)
}

// Object checks that v is an object.
func Object(v *strictjson.Value, ptr string) error {
	if v.Kind != strictjson.Object {
		return wrongKind(v, ptr, "an object")
	}
	return nil
}

// Array checks that v is an array.
func Array(v *strictjson.Value, ptr string) error {
	if v.Kind != strictjson.Array {
		return wrongKind(v, ptr, "an array")
	}
	return nil
}

// String decodes a string.
func String(v *strictjson.Value, ptr string) (string, error) {
	if v.Kind != strictjson.String {
		return "", wrongKind(v, ptr, "a string")
	}
	return v.Str, nil
}

// Integer decodes an integer: a number with an integral value (1.0 and
// 1e2 count, as in JSON Schema) within the safe range.
func Integer(v *strictjson.Value, ptr string) (int64, error) {
	if v.Kind != strictjson.Number {
		return 0, wrongKind(v, ptr, "an integer")
	}
	n, ok := v.Int64()
	if !ok {
		// Tell "too large" from "has a fraction" for the message only; both are rejected.
		if f, finite := v.Float64(); finite && f != math.Trunc(f) {
			return 0, Invalid(ptr, "expected an integer, got %s", v.Str)
		}
		return 0, Invalid(ptr, "integer %s is outside ±(2^53−1)", v.Str)
	}
	if n > MaxSafeInteger || n < MinSafeInteger {
		return 0, Invalid(ptr, "integer %s is outside ±(2^53−1)", v.Str)
	}
	return n, nil
}

// Number decodes a finite number.
func Number(v *strictjson.Value, ptr string) (float64, error) {
	if v.Kind != strictjson.Number {
		return 0, wrongKind(v, ptr, "a number")
	}
	f, ok := v.Float64()
	if !ok {
		return 0, Invalid(ptr, "number %s is outside the float64 range", v.Str)
	}
	return f, nil
}

// Boolean decodes a boolean.
func Boolean(v *strictjson.Value, ptr string) (bool, error) {
	if v.Kind != strictjson.Bool {
		return false, wrongKind(v, ptr, "a boolean")
	}
	return v.Bool, nil
}

// Raw returns any JSON value as compact raw JSON.
func Raw(v *strictjson.Value, _ string) (json.RawMessage, error) {
	return v.AppendCompact(nil), nil
}

// RawObject returns an object, carried as data, as compact raw JSON.
func RawObject(v *strictjson.Value, ptr string) (json.RawMessage, error) {
	if err := Object(v, ptr); err != nil {
		return nil, err
	}
	return v.AppendCompact(nil), nil
}

// DecimalU64 decodes an unsigned 64-bit integer carried as a decimal
// string: digits only, no sign, no leading zero except "0" itself.
func DecimalU64(v *strictjson.Value, ptr string) (uint64, error) {
	if v.Kind != strictjson.String {
		return 0, wrongKind(v, ptr, "a decimal string")
	}
	s := v.Str
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, Invalid(ptr, "%q is not a canonical unsigned decimal", s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, Invalid(ptr, "%q is not a canonical unsigned decimal", s)
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, Invalid(ptr, "%q exceeds the unsigned 64-bit range", s)
	}
	return n, nil
}

// Length checks a string's length in characters (code points), the unit
// JSON Schema uses. min or max below zero means no bound.
func Length(s, ptr string, min, max int) error {
	n := utf8.RuneCountInString(s)
	if min >= 0 && n < min {
		return Invalid(ptr, "string of %d characters is shorter than the minimum %d", n, min)
	}
	if max >= 0 && n > max {
		return Invalid(ptr, "string of %d characters is longer than the maximum %d", n, max)
	}
	return nil
}

// Matcher is what Pattern checks a string with: a *regexp.Regexp, or a
// *CompiledPattern.
type Matcher interface {
	MatchString(s string) bool
	String() string
}

// Pattern checks a string against a regular expression.
func Pattern(s, ptr string, re Matcher) error {
	if !re.MatchString(s) {
		return Invalid(ptr, "%q does not match the pattern %s", s, re.String())
	}
	return nil
}

// Items checks an array's length. min or max below zero means no bound.
func Items(n int, ptr string, min, max int) error {
	if min >= 0 && n < min {
		return Invalid(ptr, "array of %d items has fewer than the minimum %d", n, min)
	}
	if max >= 0 && n > max {
		return Invalid(ptr, "array of %d items has more than the maximum %d", n, max)
	}
	return nil
}

// AtLeast and AtMost check integer bounds.
func AtLeast(n int64, ptr string, min int64) error {
	if n < min {
		return Invalid(ptr, "%d is below the minimum %d", n, min)
	}
	return nil
}

// AtMost checks an integer's upper bound.
func AtMost(n int64, ptr string, max int64) error {
	if n > max {
		return Invalid(ptr, "%d is above the maximum %d", n, max)
	}
	return nil
}

// AtLeastFloat and AtMostFloat check number bounds.
func AtLeastFloat(f float64, ptr string, min float64) error {
	if f < min {
		return Invalid(ptr, "%v is below the minimum %v", f, min)
	}
	return nil
}

// AtMostFloat checks a number's upper bound.
func AtMostFloat(f float64, ptr string, max float64) error {
	if f > max {
		return Invalid(ptr, "%v is above the maximum %v", f, max)
	}
	return nil
}

// Const reports a value that differs from the only one allowed.
func Const(ptr string, want any) error {
	return Invalid(ptr, "must be %s", formatConst(want))
}

func formatConst(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// ExactlyOne reports an object that has not exactly one of the named members.
func ExactlyOne(ptr string, present int, names ...string) error {
	if present == 1 {
		return nil
	}
	if present == 0 {
		return Invalid(ptr, "exactly one of %s is required, none is present", quoteList(names))
	}
	return Invalid(ptr, "exactly one of %s is allowed, %d are present", quoteList(names), present)
}

func quoteList(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += strconv.Quote(n)
	}
	return s
}

// Key appends a member name and colon, with a comma when the object
// started at start already has members.
func Key(b []byte, start int, name string) []byte {
	if len(b) > start {
		b = append(b, ',')
	}
	b = strictjson.AppendString(b, name)
	return append(b, ':')
}

// AppendRaw appends raw JSON, or null for an empty value.
func AppendRaw(b []byte, raw json.RawMessage) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// AppendDecimalU64 appends an unsigned integer as a decimal string.
func AppendDecimalU64(b []byte, n uint64) []byte {
	b = append(b, '"')
	b = strconv.AppendUint(b, n, 10)
	return append(b, '"')
}

// AppendNumber appends a finite float64; NaN and infinities cannot be
// written as JSON and are refused.
func AppendNumber(b []byte, f float64, what string) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, fmt.Errorf("%s: %v cannot be written as JSON", what, f)
	}
	return strictjson.AppendFloat(b, f), nil
}

// Nil reports a required union or alternatives value left unset.
func Nil(what string) error {
	return fmt.Errorf("%s is not set", what)
}

// Ptr returns a pointer to a copy of v, for defaults of optional members.
func Ptr[T any](v T) *T { return &v }

// Writers with the signature every generated appender shares, so that
// generated code writes any value the same way.

// WriteString appends a JSON string.
func WriteString(b []byte, s string) ([]byte, error) { return strictjson.AppendString(b, s), nil }

// WriteInteger appends an integer.
func WriteInteger(b []byte, n int64) ([]byte, error) { return strictjson.AppendInt(b, n), nil }

// WriteNumber appends a finite number.
func WriteNumber(b []byte, f float64) ([]byte, error) { return AppendNumber(b, f, "number") }

// WriteBoolean appends a boolean.
func WriteBoolean(b []byte, v bool) ([]byte, error) { return strictjson.AppendBool(b, v), nil }

// WriteRaw appends any raw JSON value; an empty one is null.
func WriteRaw(b []byte, raw json.RawMessage) ([]byte, error) { return AppendRaw(b, raw), nil }

// WriteRawObject appends an object carried as raw JSON; an empty one is {}.
func WriteRawObject(b []byte, raw json.RawMessage) ([]byte, error) {
	if len(raw) == 0 {
		return append(b, "{}"...), nil
	}
	return append(b, raw...), nil
}

// WriteDecimalU64 appends an unsigned integer as a decimal string.
func WriteDecimalU64(b []byte, n uint64) ([]byte, error) { return AppendDecimalU64(b, n), nil }

// Tagged carries a decoded union value through an `any`: a union is a Go
// interface, and its variants alone do not write the tag member, so
// tables of decoders hand out this wrapper, which marshals the union form.
type Tagged struct {
	Value   any
	Marshal func() ([]byte, error)
}

// MarshalJSON writes the union with its tag.
func (t Tagged) MarshalJSON() ([]byte, error) { return t.Marshal() }

// CompareVersions orders dotted versions numerically: "1.4" < "1.10".
// Missing segments count as zero, so "1" == "1.0".
func CompareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// FormatVersion writes major.minor.
func FormatVersion(major, minor int64) string {
	return strconv.FormatInt(major, 10) + "." + strconv.FormatInt(minor, 10)
}
