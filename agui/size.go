package agui

import (
	"unicode/utf8"

	"github.com/contractkit/contractkit/runtime/strictjson"
)

// compactSize is the number of bytes of v written as compact JSON with
// every character as itself, which is how a value handed over in process
// is measured against a byte limit: there is no record to measure. Only
// what JSON requires is escaped (quote, backslash, control characters);
// U+2028 counts its three bytes, not the six of an escape.
func compactSize(v *strictjson.Value) int {
	switch v.Kind {
	case strictjson.Null:
		return len("null")
	case strictjson.Bool:
		if v.Bool {
			return len("true")
		}
		return len("false")
	case strictjson.Number:
		return len(v.Str)
	case strictjson.String:
		return stringSize(v.Str)
	case strictjson.Array:
		n := 2 + max(len(v.Elems)-1, 0)
		for _, e := range v.Elems {
			n += compactSize(e)
		}
		return n
	}
	n := 2 + max(len(v.Members)-1, 0)
	for _, m := range v.Members {
		n += stringSize(m.Key) + 1 + compactSize(m.Value)
	}
	return n
}

// stringSize is the size of s as a JSON string with only the escapes JSON
// requires, in their short forms where they have one.
func stringSize(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			_, size := utf8.DecodeRuneInString(s[i:])
			n += size
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
			n += 2
		case c < 0x20:
			n += len(`\u0000`)
		default:
			n++
		}
		i++
	}
	return n
}
