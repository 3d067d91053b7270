package strictjson

import (
	"strconv"
	"strings"
)

// ErrorKind classifies a parse failure so that protocol runtimes can map it
// to their own error codes (for example JSON-RPC "parse error" versus a
// limit violation) without matching on message text.
type ErrorKind uint8

// The error kinds. The zero value is deliberately unused so that a missing
// classification is noticeable.
const (
	// ErrSyntax: the input is not RFC 8259 JSON (including a BOM, raw control
	// characters in strings, bad escapes, truncation and trailing data).
	ErrSyntax ErrorKind = iota + 1
	// ErrUTF8: a byte sequence that is not valid UTF-8, inside or outside a
	// string. Overlong forms and UTF-8-encoded surrogates are invalid.
	ErrUTF8
	// ErrDepth: arrays/objects nested deeper than Options.MaxDepth (or the
	// built-in cap when MaxDepth is 0).
	ErrDepth
	// ErrValues: more values than Options.MaxValues.
	ErrValues
	// ErrDuplicateKey: a member name repeated in one object.
	ErrDuplicateKey
	// ErrSurrogate: a \u escape for a surrogate half that is not part of a
	// valid high/low pair.
	ErrSurrogate
	// ErrEmpty: the input is empty or only whitespace. It is separate from
	// ErrSyntax because stream readers treat blank lines differently from
	// broken ones.
	ErrEmpty
	// ErrTextUnits: the names and strings overdraw Options.TextUnits.
	ErrTextUnits
	// ErrNumber: Options.Number refused a number literal.
	ErrNumber
)

// String returns a short lower-case name of the kind.
func (k ErrorKind) String() string {
	switch k {
	case ErrSyntax:
		return "syntax"
	case ErrUTF8:
		return "utf8"
	case ErrDepth:
		return "depth"
	case ErrValues:
		return "values"
	case ErrDuplicateKey:
		return "duplicate key"
	case ErrSurrogate:
		return "surrogate"
	case ErrEmpty:
		return "empty"
	case ErrTextUnits:
		return "text units"
	case ErrNumber:
		return "number"
	}
	return "ErrorKind(" + strconv.Itoa(int(k)) + ")"
}

// Error is a classified parse failure.
//
// Offset is the byte offset at which the problem was found: the offending
// byte, the start of the value that crossed a limit, the opening quote of a
// duplicate member name, the backslash of an unpaired surrogate escape, or
// len(input) when the input ended too early. Pointer is the RFC 6901 JSON
// Pointer of the value being read at that point ("" for the root, or when
// the problem lies between values of a container, the container's pointer).
type Error struct {
	Kind    ErrorKind
	Offset  int
	Pointer string
	Msg     string
}

// Error formats the error as "offset N (pointer): message", omitting the
// parenthesised part for the root.
func (e *Error) Error() string {
	var sb strings.Builder
	sb.WriteString("offset ")
	sb.WriteString(strconv.Itoa(e.Offset))
	if e.Pointer != "" {
		sb.WriteString(" (")
		sb.WriteString(e.Pointer)
		sb.WriteString(")")
	}
	sb.WriteString(": ")
	sb.WriteString(e.Msg)
	return sb.String()
}

// AppendPointer returns ptr + "/" + token with the token escaped as RFC 6901
// requires: '~' becomes "~0" and '/' becomes "~1", so member names that
// contain either still yield an unambiguous pointer.
func AppendPointer(ptr, token string) string {
	if !strings.ContainsAny(token, "~/") {
		return ptr + "/" + token
	}
	var sb strings.Builder
	sb.Grow(len(ptr) + len(token) + 8)
	sb.WriteString(ptr)
	sb.WriteByte('/')
	for i := 0; i < len(token); i++ {
		switch c := token[i]; c {
		case '~':
			sb.WriteString("~0")
		case '/':
			sb.WriteString("~1")
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

// AppendIndexPointer returns ptr extended by the array index i.
func AppendIndexPointer(ptr string, i int) string {
	return ptr + "/" + strconv.Itoa(i)
}
