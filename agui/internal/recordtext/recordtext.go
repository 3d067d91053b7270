// Package recordtext is how a record's line holds the text of an event
// that came as a server-sent event: the parts of it that both the checker
// (agui) and the live checker (agui/livecheck) need, kept here rather than
// exported from agui, which no one else needs them from.
package recordtext

import "bytes"

// IsBlank reports whether text holds nothing but JSON white space (space,
// tab, LF, CR), and so no JSON value: a line the line form skips (it holds
// no LF, its end), or the data of a server-sent event that no record line
// could hold. An event's text ends the loop at its first byte, '{'.
func IsBlank(text []byte) bool {
	for _, c := range text {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// Append appends text to dst as a record's line holds it, every line feed
// a carriage return (see agui.Stream.Line), and returns the result: for
// the bytes of an event too large for a Stream to hold, saved as they
// arrive.
func Append(dst, text []byte) []byte {
	start := len(dst)
	dst = append(dst, text...)
	CRForLF(dst[start:], nil)
	return dst
}

// CRForLF turns every line feed of b into a carriage return, and appends
// their offsets to lfs when it is not nil. Events rarely span data lines:
// the line feeds are looked for, not every byte visited.
func CRForLF(b []byte, lfs *[]int) {
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			return
		}
		b[off+i] = '\r'
		if lfs != nil {
			*lfs = append(*lfs, off+i)
		}
		off += i + 1
	}
}
