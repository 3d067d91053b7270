package strictjson

import (
	"math"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string.
//
// The output is byte-for-byte what encoding/json produces with
// SetEscapeHTML(false): '"', '\\' and control characters are escaped (as \n,
// \r, \t, \b, \f or \u00xx), U+2028 and U+2029 are escaped because they end
// lines in JavaScript, and every byte that is not part of valid UTF-8 becomes
// \ufffd so the output is always valid UTF-8. '<', '>' and '&' are left
// alone: the output is never embedded in HTML and escaping them would only
// make wire traffic harder to read.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendInt appends the decimal form of n.
func AppendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// AppendUint appends the decimal form of n.
func AppendUint(b []byte, n uint64) []byte { return strconv.AppendUint(b, n, 10) }

// AppendBool appends true or false.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// AppendFloat appends f exactly as encoding/json encodes a float64: the
// shortest text that round-trips, in plain decimal notation unless the
// magnitude is below 1e-6 or at least 1e21, where exponent notation is used
// with a two-digit negative exponent shortened ("1e-07" becomes "1e-7").
// These are the ECMAScript Number-to-String cut-offs, so JavaScript peers
// print the same numbers. Negative zero is written as "-0".
//
// NaN and ±Inf have no JSON form; a caller passing one has a bug, and null
// is written so the output at least stays valid JSON.
func AppendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// strconv always writes at least two exponent digits; drop the
		// padding zero of a negative single-digit exponent.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
