// Package xmledit changes Designer XML files by exact byte replacements:
// it finds the bytes of an element's start tag, content and attributes in
// the original file, escapes new text the way the Designer writes it, and
// applies replacements so that every byte outside them stays as it was
// (BOM, line ends, indentation, attribute order, comments).
//
// It works on the byte ranges designer.ParseXML gives each element; it
// does not parse XML itself beyond the tag it is pointed at.
package xmledit

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/contractkit/contractkit/designer"
	"github.com/contractkit/contractkit/internal/byteedit"
)

// Edit replaces the bytes [Start, End) of a file with Text.
type Edit = byteedit.Edit

// Apply returns data with the edits made. The edits must lie inside data
// and must not overlap; they may come in any order. data is not changed.
func Apply(data []byte, edits []Edit) ([]byte, error) { return byteedit.Apply(data, edits) }

// Tag is the start tag of an element as the file spells it.
type Tag struct {
	Start, End  int64  // the tag's bytes, < to >
	Name        string // the qualified name as written, prefix included
	SelfClosing bool
}

// StartTag finds the start tag of el in data.
func StartTag(data []byte, el *designer.Element) (Tag, error) {
	if el.Start < 0 || el.End > int64(len(data)) || el.Start >= el.End || data[el.Start] != '<' {
		return Tag{}, fmt.Errorf("element %s at %d-%d does not start a tag", el.Local, el.Start, el.End)
	}
	i := el.Start + 1
	for i < el.End && !isSpace(data[i]) && data[i] != '>' && data[i] != '/' {
		i++
	}
	t := Tag{Start: el.Start, Name: string(data[el.Start+1 : i])}
	var quote byte
	for ; i < el.End; i++ {
		c := data[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			t.End = i + 1
			t.SelfClosing = data[i-1] == '/'
			return t, nil
		}
	}
	return Tag{}, fmt.Errorf("element %s at %d: the start tag does not end", el.Local, el.Start)
}

// Content returns the range of an element's content: between its start
// and end tags, or an empty range at the end of a self-closing tag.
func Content(data []byte, el *designer.Element) (start, end int64, tag Tag, err error) {
	tag, err = StartTag(data, el)
	if err != nil {
		return 0, 0, tag, err
	}
	if tag.SelfClosing {
		return tag.End, tag.End, tag, nil
	}
	endTag := bytes.LastIndex(data[tag.End:el.End], []byte("</"))
	if endTag < 0 {
		return 0, 0, tag, fmt.Errorf("element %s at %d: no end tag", el.Local, el.Start)
	}
	return tag.End, tag.End + int64(endTag), tag, nil
}

// SetText returns the edit that makes el's content the escaped text:
// the content replaced, or for an empty text the whole element written as
// a self-closing tag, the way the Designer writes empty values. el must
// have no child elements.
func SetText(data []byte, el *designer.Element, text string) (Edit, error) {
	if len(el.Children) > 0 {
		return Edit{}, fmt.Errorf("element %s at %d has child elements", el.Local, el.Start)
	}
	start, end, tag, err := Content(data, el)
	if err != nil {
		return Edit{}, err
	}
	switch {
	case text == "" && tag.SelfClosing:
		return Edit{Start: start, End: end}, nil
	case text == "":
		// <Name attrs>old</Name> → <Name attrs/>
		head := strings.TrimRight(string(data[tag.Start:tag.End-1]), " \t\r\n")
		return Edit{Start: el.Start, End: el.End, Text: head + "/>"}, nil
	case tag.SelfClosing:
		head := strings.TrimRight(string(data[tag.Start:tag.End-2]), " \t\r\n")
		return Edit{Start: el.Start, End: el.End, Text: head + ">" + EscapeText(text) + "</" + tag.Name + ">"}, nil
	}
	return Edit{Start: start, End: end, Text: EscapeText(text)}, nil
}

// AttrValue returns the range of the value of el's attribute whose
// qualified name, as written, is name (without its quotes), and the quote.
func AttrValue(data []byte, el *designer.Element, name string) (start, end int64, quote byte, err error) {
	tag, err := StartTag(data, el)
	if err != nil {
		return 0, 0, 0, err
	}
	i := tag.Start + 1 + int64(len(tag.Name))
	for i < tag.End {
		for i < tag.End && isSpace(data[i]) {
			i++
		}
		nameStart := i
		for i < tag.End && data[i] != '=' && !isSpace(data[i]) && data[i] != '>' && data[i] != '/' {
			i++
		}
		attr := string(data[nameStart:i])
		for i < tag.End && isSpace(data[i]) {
			i++
		}
		if i >= tag.End || data[i] != '=' {
			break
		}
		i++
		for i < tag.End && isSpace(data[i]) {
			i++
		}
		if i >= tag.End || (data[i] != '"' && data[i] != '\'') {
			break
		}
		q := data[i]
		vs := i + 1
		ve := bytes.IndexByte(data[vs:tag.End], q)
		if ve < 0 {
			break
		}
		if attr == name {
			return vs, vs + int64(ve), q, nil
		}
		i = vs + int64(ve) + 1
	}
	return 0, 0, 0, fmt.Errorf("element %s at %d has no attribute %s", el.Local, el.Start, name)
}

// SetAttr returns the edit that makes the value of el's attribute name
// the escaped value.
func SetAttr(data []byte, el *designer.Element, name, value string) (Edit, error) {
	start, end, quote, err := AttrValue(data, el, name)
	if err != nil {
		return Edit{}, err
	}
	return Edit{Start: start, End: end, Text: EscapeAttr(value, quote)}, nil
}

// ErrNotXMLChar is a character XML 1.0 cannot hold.
var ErrNotXMLChar = errors.New("a character XML 1.0 cannot hold")

// CheckChars reports the first character of s that XML 1.0 cannot hold.
func CheckChars(s string) error {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return fmt.Errorf("byte %d: not UTF-8: %w", i, ErrNotXMLChar)
			}
		}
		if !isXMLChar(r) {
			return fmt.Errorf("character %d (U+%04X): %w", i, r, ErrNotXMLChar)
		}
	}
	return nil
}

func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// EscapeText escapes character data as the Designer does: &, < and >
// become entities; a carriage return becomes &#xD; so that a reader does
// not fold it into a line feed.
func EscapeText(s string) string {
	if !strings.ContainsAny(s, "&<>\r") {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\r':
			b.WriteString("&#xD;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// EscapeAttr escapes an attribute value written between quote
// characters: &, < and the quote become entities, and white space other
// than a blank becomes a character reference, since a reader normalizes
// it to a blank.
func EscapeAttr(s string, quote byte) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '"' && quote == '"':
			b.WriteString("&quot;")
		case r == '\'' && quote == '\'':
			b.WriteString("&apos;")
		case r == '\t':
			b.WriteString("&#x9;")
		case r == '\n':
			b.WriteString("&#xA;")
		case r == '\r':
			b.WriteString("&#xD;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Layout is how a file lays out an element's children: the line end it
// uses and the indentation of the children and of the end tag.
type Layout struct {
	EOL, Indent, Close string
}

// LayoutOf reads the layout of el's children from the white space before
// its first child and before its end tag; an element without children
// gets its own indentation plus one tab, the way the Designer indents.
func LayoutOf(data []byte, el *designer.Element) Layout {
	l := Layout{EOL: "\n"}
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		l.EOL = "\r\n"
	}
	indentBefore := func(at int64) string {
		i := at
		for i > 0 && (data[i-1] == ' ' || data[i-1] == '\t') {
			i--
		}
		return string(data[i:at])
	}
	own := indentBefore(el.Start)
	l.Close = own
	l.Indent = own + "\t"
	if len(el.Children) > 0 {
		l.Indent = indentBefore(el.Children[0].Start)
	}
	return l
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
