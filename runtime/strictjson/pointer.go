package strictjson

import "strings"

// EscapePointerToken returns token escaped as one reference token of an
// RFC 6901 JSON Pointer: '~' becomes "~0" and '/' becomes "~1". It is the
// one place this module escapes a token; AppendPointer does the same while
// it appends.
func EscapePointerToken(token string) string {
	if !strings.ContainsAny(token, "~/") {
		return token
	}
	return pointerEscaper.Replace(token)
}

var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// UnescapePointerToken decodes one reference token of an RFC 6901 JSON
// Pointer: "~1" becomes '/' and "~0" becomes '~', in one left-to-right pass
// so that "~01" is "~1" and not "/". ok is false when the token holds a '~'
// followed by neither '0' nor '1', which RFC 6901 forbids; such a '~' is
// kept as it is, so a caller that reads pointers it wrote itself may ignore
// ok, and one that reads a user's pointer reports it.
func UnescapePointerToken(token string) (s string, ok bool) {
	i := strings.IndexByte(token, '~')
	if i < 0 {
		return token, true
	}
	ok = true
	for rest := token[i:]; ; {
		if len(rest) < 2 || (rest[1] != '0' && rest[1] != '1') {
			ok = false
			break
		}
		j := strings.IndexByte(rest[2:], '~')
		if j < 0 {
			break
		}
		rest = rest[2+j:]
	}
	return pointerUnescaper.Replace(token), ok
}

// DisplayPointer is ptr as a message shows it, in "file:pointer: message"
// or "pointer: message": "/" for the whole document, whose pointer is
// empty and would vanish from the message. It is the one place this module
// decides that.
func DisplayPointer(ptr string) string {
	if ptr == "" {
		return "/"
	}
	return ptr
}
