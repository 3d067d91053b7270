package refs

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/contractkit/contractkit/designer/bslquery"
)

// XMLRole says which structural places an XML file may hold.
type XMLRole int

const (
	// XMLOther is any XML file of the project.
	XMLOther XMLRole = iota
	// XMLOwn is the object's own descriptor, whose Properties/Name names it.
	XMLOwn
	// XMLRoot is Configuration.xml, whose ChildObjects list the object.
	XMLRoot
)

// SyntaxError is XML the scanner cannot follow, at a byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("byte %d: %s", e.Offset, e.Msg) }

// decoded is the value of a text or attribute run with, for each byte,
// the source range it comes from (an entity gives its whole reference).
type decoded struct {
	b          []byte
	start, end []int // nil when the run has no reference: then b is the source itself
	base       int
}

func (d decoded) span(s, e int) (int, int) {
	if d.start == nil {
		return d.base + s, d.base + e
	}
	return d.start[s], d.end[e-1]
}

// decode resolves the five predefined entities and character references
// of src[from:to]; CDATA is taken as is.
//
// A run whose only references are &lt;, &gt; and &amp; is taken as it
// stands: those spell operators and parameters, which never start or end
// a name, a string or a comment, so the places found in the raw bytes are
// the places of the value.
func decode(src []byte, from, to int, raw bool) decoded {
	if raw || !needsDecoding(src[from:to]) {
		return decoded{b: src[from:to], base: from}
	}
	d := decoded{b: make([]byte, 0, to-from), start: make([]int, 0, to-from), end: make([]int, 0, to-from)}
	for i := from; i < to; {
		c := src[i]
		if c != '&' {
			d.b = append(d.b, c)
			d.start = append(d.start, i)
			d.end = append(d.end, i+1)
			i++
			continue
		}
		semi := bytes.IndexByte(src[i:to], ';')
		var val []byte
		if semi > 1 {
			name := string(src[i+1 : i+semi])
			switch name {
			case "lt":
				val = []byte("<")
			case "gt":
				val = []byte(">")
			case "amp":
				val = []byte("&")
			case "quot":
				val = []byte(`"`)
			case "apos":
				val = []byte("'")
			default:
				if len(name) > 1 && name[0] == '#' {
					base, digits := 10, name[1:]
					if digits[0] == 'x' {
						base, digits = 16, digits[1:]
					}
					if n, err := strconv.ParseUint(digits, base, 32); err == nil && utf8.ValidRune(rune(n)) {
						val = utf8.AppendRune(nil, rune(n))
					}
				}
			}
		}
		if val == nil {
			d.b = append(d.b, c)
			d.start = append(d.start, i)
			d.end = append(d.end, i+1)
			i++
			continue
		}
		for _, b := range val {
			d.b = append(d.b, b)
			d.start = append(d.start, i)
			d.end = append(d.end, i+semi+1)
		}
		i += semi + 1
	}
	return d
}

// XML finds the places of an XML file. hits are t.Hits(src): runs
// without one are not decoded.
func (t *Target) XML(src []byte, hits []int, role XMLRole) ([]Place, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	var ps placeSet
	var stack [][]byte // local names of the open elements
	local := func(name []byte) []byte {
		if i := bytes.LastIndexByte(name, ':'); i >= 0 {
			return name[i+1:]
		}
		return name
	}
	structural := func() bool {
		if len(stack) != 4 || string(stack[0]) != "MetaDataObject" {
			return false
		}
		switch role {
		case XMLOwn:
			return string(stack[1]) == t.Tag && string(stack[2]) == "Properties" && string(stack[3]) == "Name"
		case XMLRoot:
			return string(stack[1]) == "Configuration" && string(stack[2]) == "ChildObjects" && string(stack[3]) == t.Tag
		}
		return false
	}
	human := func() bool {
		if len(stack) == 0 {
			return false
		}
		top := string(stack[len(stack)-1])
		return top == "content" || top == "Comment"
	}
	// queryText: the element holds a query, a dynamic list's QueryText
	// in a form or a data set's query in a data composition schema.
	queryText := func() bool {
		if len(stack) == 0 {
			return false
		}
		top := string(stack[len(stack)-1])
		return top == "QueryText" || top == "query"
	}
	run := func(from, to int, raw, text bool) {
		if !t.hitIn(hits, from, to) {
			return
		}
		d := decode(src, from, to, raw)
		if text && structural() {
			trimmed := bytes.TrimSpace(d.b)
			if string(trimmed) == t.Name {
				off := bytes.Index(d.b, trimmed)
				s, e := d.span(off, off+len(trimmed))
				ps.add(Place{Start: s, End: e, Certain: true})
				return
			}
		}
		qt := bslquery.Tokenize(d.b)
		t.query(d.b, qt, d.span, text && human(), &ps)
		if text && queryText() {
			// As in a module's query string: every other naming is an
			// alias or a field named like the object, for a person.
			t.inString(d.b, qt, d.span, WhyQuery, &ps)
		}
	}
	i := 0
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		i = 3
	}
	for i < len(src) {
		if src[i] != '<' {
			j := bytes.IndexByte(src[i:], '<')
			if j < 0 {
				j = len(src) - i
			}
			run(i, i+j, false, true)
			i += j
			continue
		}
		switch {
		case bytes.HasPrefix(src[i:], []byte("<!--")):
			j := bytes.Index(src[i+4:], []byte("-->"))
			if j < 0 {
				return nil, &SyntaxError{i, "a comment does not end"}
			}
			if t.hitIn(hits, i+4, i+4+j) {
				t.prose(src[i+4:i+4+j], func(s, e int) (int, int) { return i + 4 + s, i + 4 + e }, WhyComment, &ps)
			}
			i += 4 + j + 3
		case bytes.HasPrefix(src[i:], []byte("<![CDATA[")):
			j := bytes.Index(src[i+9:], []byte("]]>"))
			if j < 0 {
				return nil, &SyntaxError{i, "a CDATA section does not end"}
			}
			run(i+9, i+9+j, true, true)
			i += 9 + j + 3
		case bytes.HasPrefix(src[i:], []byte("<?")):
			j := bytes.Index(src[i+2:], []byte("?>"))
			if j < 0 {
				return nil, &SyntaxError{i, "a processing instruction does not end"}
			}
			i += 2 + j + 2
		case bytes.HasPrefix(src[i:], []byte("<!")):
			j := bytes.IndexByte(src[i:], '>')
			if j < 0 {
				return nil, &SyntaxError{i, "a declaration does not end"}
			}
			i += j + 1
		case bytes.HasPrefix(src[i:], []byte("</")):
			j := bytes.IndexByte(src[i:], '>')
			if j < 0 {
				return nil, &SyntaxError{i, "an end tag does not end"}
			}
			if len(stack) == 0 {
				return nil, &SyntaxError{i, "an end tag without a start tag"}
			}
			stack = stack[:len(stack)-1]
			i += j + 1
		default:
			end, self, err := t.startTag(src, i, &stack, local, run)
			if err != nil {
				return nil, err
			}
			if self {
				stack = stack[:len(stack)-1]
			}
			i = end
		}
	}
	out := ps.sorted()
	for i, p := range out {
		// A name spelled with character references is left to a person:
		// a certain place holds the name's own bytes.
		if p.Certain && !t.isName(src[p.Start:p.End]) {
			out[i].Certain, out[i].Why = false, WhyText
		}
	}
	return out, nil
}

// startTag reads the start tag at i: it pushes the element's local name
// and runs each attribute value. It returns the offset after the tag and
// whether the tag closes itself.
func (t *Target) startTag(src []byte, i int, stack *[][]byte, local func([]byte) []byte, run func(from, to int, raw, text bool)) (int, bool, error) {
	j := i + 1
	for j < len(src) && !isSpace(src[j]) && src[j] != '>' && src[j] != '/' {
		j++
	}
	if j == i+1 {
		return 0, false, &SyntaxError{i, "a tag without a name"}
	}
	*stack = append(*stack, local(src[i+1:j]))
	for j < len(src) {
		for j < len(src) && isSpace(src[j]) {
			j++
		}
		if j >= len(src) {
			break
		}
		switch src[j] {
		case '>':
			return j + 1, false, nil
		case '/':
			if j+1 < len(src) && src[j+1] == '>' {
				return j + 2, true, nil
			}
			return 0, false, &SyntaxError{j, "a stray / in a tag"}
		}
		// An attribute: name = "value".
		for j < len(src) && src[j] != '=' && !isSpace(src[j]) && src[j] != '>' && src[j] != '/' {
			j++
		}
		for j < len(src) && isSpace(src[j]) {
			j++
		}
		if j >= len(src) || src[j] != '=' {
			return 0, false, &SyntaxError{j, "an attribute without a value"}
		}
		j++
		for j < len(src) && isSpace(src[j]) {
			j++
		}
		if j >= len(src) || src[j] != '"' && src[j] != '\'' {
			return 0, false, &SyntaxError{j, "an attribute value without quotes"}
		}
		q := src[j]
		k := bytes.IndexByte(src[j+1:], q)
		if k < 0 {
			return 0, false, &SyntaxError{j, "an attribute value does not end"}
		}
		run(j+1, j+1+k, false, false)
		j += k + 2
	}
	return 0, false, &SyntaxError{i, "a start tag does not end"}
}

// needsDecoding reports references that can change what the text says to
// the search: quotes, and characters written by number.
func needsDecoding(b []byte) bool {
	for at := 0; ; {
		i := bytes.IndexByte(b[at:], '&')
		if i < 0 {
			return false
		}
		rest := b[at+i:]
		if bytes.HasPrefix(rest, []byte("&quot;")) || bytes.HasPrefix(rest, []byte("&apos;")) || bytes.HasPrefix(rest, []byte("&#")) {
			return true
		}
		at += i + 1
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
