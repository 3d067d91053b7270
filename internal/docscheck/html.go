package docscheck

import (
	"bytes"
	"html"
	"strings"
)

// htmlTag is one start tag found in raw HTML.
type htmlTag struct {
	name  string // lower case
	names []string
	vals  []string
	start int    // offset of '<' in the scanned text
	err   string // why the tag could not be read completely
}

// attr returns the first value of an attribute, as browsers do when an
// attribute is repeated.
func (t htmlTag) attr(name string) (string, bool) {
	for i, n := range t.names {
		if n == name {
			return t.vals[i], true
		}
	}
	return "", false
}

func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

func isASCIILetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// rawTextElements hold text, not markup, so tags inside them are not real.
var rawTextElements = map[string]bool{"script": true, "style": true, "textarea": true, "title": true}

// scanTags finds the start tags in b. It is a tokenizer reduced to what the
// checks need: comments, CDATA, declarations, processing instructions and end
// tags are skipped, and attribute values may be double-quoted, single-quoted
// or unquoted, with character references decoded.
func scanTags(b []byte) []htmlTag {
	var tags []htmlTag
	i := 0
	for i < len(b) {
		lt := bytes.IndexByte(b[i:], '<')
		if lt < 0 {
			break
		}
		i += lt
		rest := b[i:]
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			body := rest[4:]
			switch {
			case bytes.HasPrefix(body, []byte(">")):
				i += 5
			case bytes.HasPrefix(body, []byte("->")):
				i += 6
			default:
				end := bytes.Index(body, []byte("-->"))
				if end < 0 {
					return tags
				}
				i += 4 + end + 3
			}
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			end := bytes.Index(rest, []byte("]]>"))
			if end < 0 {
				return tags
			}
			i += end + 3
		case len(rest) > 1 && (rest[1] == '!' || rest[1] == '?' || rest[1] == '/'):
			end := bytes.IndexByte(rest, '>')
			if end < 0 {
				return tags
			}
			i += end + 1
		case len(rest) > 1 && isASCIILetter(rest[1]):
			tag, next, ok := readTag(b, i)
			if !ok {
				i++
				continue
			}
			tags = append(tags, tag)
			i = next
			if rawTextElements[tag.name] && tag.err == "" {
				end := indexFold(b[i:], "</"+tag.name)
				if end < 0 {
					return tags
				}
				i += end
			}
		default:
			i++
		}
	}
	return tags
}

// indexFold is a case-insensitive bytes.Index for an ASCII needle.
func indexFold(b []byte, needle string) int {
	for i := 0; i+len(needle) <= len(b); i++ {
		if bytes.EqualFold(b[i:i+len(needle)], []byte(needle)) {
			return i
		}
	}
	return -1
}

// readTag reads the start tag whose '<' is at b[at]. ok is false when the
// text is not a tag at all (for example "<a.b"), so the caller treats the
// '<' as text. A tag cut short (a missing quote or '>') is returned with err
// set and next at the end of the input.
func readTag(b []byte, at int) (tag htmlTag, next int, ok bool) {
	j := at + 1
	for j < len(b) && (isASCIILetter(b[j]) || b[j] >= '0' && b[j] <= '9' || b[j] == '-') {
		j++
	}
	tag = htmlTag{name: strings.ToLower(string(b[at+1 : j])), start: at}
	if j < len(b) && !isHTMLSpace(b[j]) && b[j] != '>' && b[j] != '/' {
		return htmlTag{}, 0, false
	}
	for {
		for j < len(b) && isHTMLSpace(b[j]) {
			j++
		}
		if j >= len(b) {
			tag.err = "missing '>'"
			return tag, len(b), true
		}
		switch b[j] {
		case '>':
			return tag, j + 1, true
		case '/', '=':
			// A self-closing slash or a stray '=' carries no attribute.
			j++
			continue
		}
		ns := j
		for j < len(b) && !isHTMLSpace(b[j]) && b[j] != '=' && b[j] != '>' && b[j] != '/' {
			j++
		}
		name := strings.ToLower(string(b[ns:j]))
		for j < len(b) && isHTMLSpace(b[j]) {
			j++
		}
		var val string
		if j < len(b) && b[j] == '=' {
			j++
			for j < len(b) && isHTMLSpace(b[j]) {
				j++
			}
			if j >= len(b) {
				tag.err = "attribute " + name + " has no value"
				return tag, len(b), true
			}
			if q := b[j]; q == '"' || q == '\'' {
				end := bytes.IndexByte(b[j+1:], q)
				if end < 0 {
					tag.err = "unterminated quoted value of attribute " + name
					return tag, len(b), true
				}
				val = string(b[j+1 : j+1+end])
				j += end + 2
			} else {
				vs := j
				for j < len(b) && !isHTMLSpace(b[j]) && b[j] != '>' {
					j++
				}
				val = string(b[vs:j])
			}
		}
		tag.names = append(tag.names, name)
		tag.vals = append(tag.vals, html.UnescapeString(val))
	}
}
