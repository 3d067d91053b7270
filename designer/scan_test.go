package designer

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// The scanner is held to parseXMLStd, the encoding/xml implementation it
// replaced: the same tree for every input the old one accepts, a failure
// with the same reason for every input it refuses.
//
// The one deliberate difference: the scanner refuses character data
// outside the root element unless it is XML white space (a CDATA section
// or a reference there included), where encoding/xml let any text through
// and ParseXML ignored it. Such a file is not well-formed XML. Since the
// scanner stops at that text, a file it refuses for it may be one the old
// parser refused for another reason further on (too_deep, say).
const msgTextOutsideRoot = "text outside the root element"

// testLimits keeps the depth limit within reach of small inputs.
var testLimits = Limits{MaxBytes: 1 << 20, MaxDepth: 5}

func reasonOf(err error) string {
	var pe *ParseError
	if errors.As(err, &pe) {
		return pe.Reason
	}
	return fmt.Sprintf("not a *ParseError: %v", err)
}

// textOutsideRoot reports whether encoding/xml, reading data as far as it
// can, finds character data outside the root element that is not XML
// white space: the case where the scanner is stricter on purpose.
func textOutsideRoot(data []byte) bool {
	body := bytes.TrimPrefix(data, bom)
	d := xml.NewDecoder(bytes.NewReader(body))
	d.CharsetReader = func(label string, in io.Reader) (io.Reader, error) { return in, nil }
	depth := 0
	for {
		off := d.InputOffset()
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.Trim(body[off:d.InputOffset()], " \t\r\n")) > 0 {
				return true
			}
		}
	}
}

// treeDiff describes the first difference between two trees, "" if none.
func treeDiff(a, b *Element, path string) string {
	switch {
	case a == nil && b == nil:
		return ""
	case a == nil || b == nil:
		return fmt.Sprintf("%s: %v vs %v", path, a, b)
	}
	path += "/" + a.Local
	if a.Space != b.Space || a.Local != b.Local {
		return fmt.Sprintf("%s: name {%q %q} vs {%q %q}", path, a.Space, a.Local, b.Space, b.Local)
	}
	if !reflect.DeepEqual(a.Attrs, b.Attrs) {
		return fmt.Sprintf("%s: attrs %#v vs %#v", path, a.Attrs, b.Attrs)
	}
	if a.Text != b.Text || a.Mixed != b.Mixed {
		return fmt.Sprintf("%s: text %q mixed %v vs text %q mixed %v", path, a.Text, a.Mixed, b.Text, b.Mixed)
	}
	if a.Start != b.Start || a.End != b.End {
		return fmt.Sprintf("%s: range [%d,%d) vs [%d,%d)", path, a.Start, a.End, b.Start, b.End)
	}
	if len(a.Children) != len(b.Children) || (a.Children == nil) != (b.Children == nil) {
		return fmt.Sprintf("%s: %d children (nil %v) vs %d (nil %v)", path, len(a.Children), a.Children == nil, len(b.Children), b.Children == nil)
	}
	for i := range a.Children {
		if d := treeDiff(a.Children[i], b.Children[i], path); d != "" {
			return d
		}
	}
	if !reflect.DeepEqual(a, b) {
		return path + ": trees differ"
	}
	return ""
}

// compareStd parses data with both parsers and returns what is wrong with
// the scanner's result, "" if nothing.
func compareStd(data []byte, lim Limits) string {
	want, wantErr := parseXMLStd("f.xml", data, lim)
	got, gotErr := ParseXML("f.xml", data, lim)
	stricter := gotErr != nil && strings.Contains(gotErr.Error(), msgTextOutsideRoot)
	switch {
	case wantErr == nil && gotErr == nil:
		if d := treeDiff(want, got, ""); d != "" {
			return "trees differ: " + d
		}
	case wantErr == nil:
		if stricter && textOutsideRoot(data) {
			return ""
		}
		return fmt.Sprintf("encoding/xml accepts, the scanner refuses: %v", gotErr)
	case gotErr == nil:
		return fmt.Sprintf("encoding/xml refuses (%v), the scanner accepts", wantErr)
	default:
		if reasonOf(wantErr) != reasonOf(gotErr) && !(stricter && textOutsideRoot(data)) {
			return fmt.Sprintf("reasons differ: encoding/xml %v; scanner %v", wantErr, gotErr)
		}
	}
	return ""
}

type xmlCase struct {
	name string
	in   string
	lim  Limits // testLimits when zero
	// want is the scanner's outcome: "" for a tree, else the reason.
	want string
	// stricter marks a case encoding/xml accepts on purpose refused.
	stricter bool
}

func nest(n int) string {
	return strings.Repeat("<e>", n) + "x" + strings.Repeat("</e>", n)
}

var xmlCases = []xmlCase{
	// Accepted.
	{name: "empty element", in: `<a/>`},
	{name: "empty pair", in: `<a></a>`},
	{name: "bom decl crlf", in: "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<a>\r\n\t<b>x</b>\r\n\t<c/>\r\n</a>\r\n"},
	{name: "crlf and cr in text", in: "<a>1\r\n2\r3\r\r\n4\n\r</a>"},
	{name: "crlf and cr in attribute", in: "<a x=\"1\r\n2\r3\r\r\n\" y='\r'/>"},
	{name: "tabs and newlines in attribute", in: "<a x=\"\t1\n 2  \"/>"},
	{name: "designer prefixes", in: `<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses" xmlns:v8="http://v8.1c.ru/8.1/data/core" xmlns:xr="http://v8.1c.ru/8.3/xcf/readable" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema" version="2.17"><Catalog uuid="1"><Properties><Name>Валюты</Name><Synonym><v8:item><v8:lang>ru</v8:lang><v8:content>Валюты</v8:content></v8:item></Synonym><Type><v8:Type xsi:type="xs:string">xs:string</v8:Type></Type><xr:Ref/></Properties></Catalog></MetaDataObject>`, lim: DefaultLimits},
	{name: "default namespace redeclared", in: `<a xmlns="u"><b xmlns="v"><c/></b><d/><e xmlns=""><f/></e><g/></a>`},
	{name: "prefix redeclared", in: `<p:a xmlns:p="u"><p:b xmlns:p="v" p:x="1"><p:c/></p:b><p:d p:y="2"/></p:a>`},
	{name: "sibling declarations of one prefix", in: `<r><a xmlns:p="u"><p:x/></a><b xmlns:p="v"><p:x/></b><p:x/></r>`},
	{name: "sibling default namespaces", in: `<r><a xmlns="u"/><b xmlns="v"><c/></b><d/></r>`},
	{name: "declared twice on one element", in: `<p:a xmlns:p="u" xmlns:p="v"><p:b/></p:a>`},
	{name: "undeclared prefix", in: `<q:a q:x="1" y="2"><q:b/></q:a>`},
	{name: "declared after use", in: `<p:a p:x="1" xmlns:p="u"/>`},
	{name: "empty prefix declaration", in: `<a xmlns:p=""><p:b p:x="1"/></a>`},
	{name: "xml prefix", in: `<a xml:lang="ru" xmlns:xml="other"><xml:b/></a>`},
	{name: "xmlns as names", in: `<a xmlns="u"><xmlns/><xmlns:d/><b xmlns:="1" :xmlns="2"/></a>`},
	{name: "colon at the edges", in: `<:a :b="1" c:="2"><d:/></:a>`},
	{name: "dots and dashes", in: `<a.b-c_d x.y-z="1" _u="2"/>`},
	{name: "entities", in: `<a x="&lt;&gt;&amp;&apos;&quot;">&lt;&gt;&amp;&apos;&quot;</a>`},
	{name: "character references", in: `<a x="&#65;&#x42;&#x00043;&#0000068;">&#1103;&#x44F;&#x1F600;&#13;&#9;&#xa;&#xFFFD;</a>`},
	{name: "surrogate reference", in: `<a x="&#xDFFF;">&#xD800;</a>`},
	{name: "cdata", in: `<a><![CDATA[<b>&amp;]]]]><![CDATA[]]></a>`},
	{name: "cdata crlf", in: "<a><![CDATA[1\r\n2\r]]>\r\n</a>"},
	{name: "cdata beside element", in: `<a><![CDATA[x]]><b/></a>`},
	{name: "comments and PIs", in: `<?xml version="1.0"?><!-- c --><?pi x?><a><!--x--><?p?>t<!---->u<?q ??>v</a><!-- after --><?after?>`},
	{name: "text across comments", in: "<a>x\r<!--c-->\ny<![CDATA[z]]>&amp;</a>"},
	{name: "self-closing", in: `<a><b/><c x="1" /><d	/></a>`},
	{name: "cyrillic", in: `<Справочник Имя="Значение" ё:Ё="1" xmlns:ё="urn:ё"><ё:Реквизит>Текст ёЁ</ё:Реквизит></Справочник>`},
	{name: "mixed before child", in: `<a>x<b/></a>`},
	{name: "mixed after child", in: `<a><b/>y</a>`},
	{name: "mixed between", in: `<a><b/>y<c/></a>`},
	{name: "blank beside children", in: "<a> \r\n\t<b/>\n <c/> </a>"},
	{name: "nbsp is blank", in: "<a>&#160;\u00a0<b/>\u2003</a>"},
	{name: "reference space is blank", in: `<a>&#32;<b/>&#x9;</a>`},
	{name: "mixed via reference", in: `<a><b/>&amp;</a>`},
	{name: "mixed nested", in: `<a>t<b>u<c/>v</b>w</a>`},
	{name: "no space between attributes", in: `<a x="1"y='2'/>`},
	{name: "duplicate attributes", in: `<a x="1" x="2"/>`},
	{name: "quotes inside quotes", in: `<a x='"' y="'"/>`},
	{name: "gt and ]]> in attribute", in: `<a x="]]>" y=">"/>`},
	{name: "]] in text", in: `<a>]] ]>]&gt;]]&gt;</a>`},
	{name: "spaces around", in: "<a  x \r\n = \t'1'  ></a \n>"},
	{name: "utf-8 lower case", in: `<?xml version="1.0" encoding="utf-8"?><a/>`},
	{name: "utf-8 mixed case", in: `<?xml version='1.0' encoding='Utf-8' standalone="yes"?><a/>`},
	{name: "declaration without encoding", in: `<?xml version="1.0"?><a/>`},
	{name: "declaration mid-document", in: `<a><?xml version="1.0"?></a>`},
	{name: "upper-case XML target", in: `<?XML encoding="latin1"?><a/>`},
	{name: "white space outside root", in: " \r\n\t<a/>\n\t "},
	{name: "bom only before", in: "\xEF\xBB\xBF<a/>"},
	{name: "long text", in: "<a>" + strings.Repeat("Пример текста ", 500) + "</a>"},
	{name: "long attribute", in: `<a x="` + strings.Repeat("значение", 300) + `"/>`},
	{name: "DEL and high plane", in: "<a x=\"\x7f\U0001F600\">\x7f\U0001F600\uFFFD</a>"},
	{name: "depth at the limit", in: nest(5)},
	{name: "size at the limit", in: `<a>12345</a>`, lim: Limits{MaxBytes: 12, MaxDepth: 5}},
	{name: "depth zero limit", in: `<a/>`, lim: Limits{MaxBytes: 100, MaxDepth: 0}, want: ReasonTooDeep},

	// Refused.
	{name: "doctype", in: `<!DOCTYPE a><a/>`, want: ReasonMalformed},
	{name: "doctype with subset", in: `<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>`, want: ReasonMalformed},
	{name: "entity declaration", in: `<!ENTITY x "y"><a/>`, want: ReasonMalformed},
	{name: "directive inside", in: `<a><!foo></a>`, want: ReasonMalformed},
	{name: "unterminated directive", in: `<a><!foo`, want: ReasonMalformed},
	{name: "bad CDATA start", in: `<a><![CDAT[x]]></a>`, want: ReasonMalformed},
	{name: "unterminated CDATA", in: `<a><![CDATA[x]></a>`, want: ReasonMalformed},
	{name: "unterminated comment", in: `<a><!-- x -></a>`, want: ReasonMalformed},
	{name: "double dash in comment", in: `<a><!-- a -- b --></a>`, want: ReasonMalformed},
	{name: "comment ending in three dashes", in: `<a><!-- a ---></a>`, want: ReasonMalformed},
	{name: "half comment start", in: `<a><!- x --></a>`, want: ReasonMalformed},
	{name: "encoding windows-1251", in: `<?xml version="1.0" encoding="windows-1251"?><a/>`, want: ReasonMalformed},
	{name: "encoding after root", in: `<a/><?xml encoding="latin1"?>`, want: ReasonMalformed},
	{name: "version 1.1", in: `<?xml version="1.1"?><a/>`, want: ReasonMalformed},
	{name: "invalid UTF-8", in: "<a>\xff</a>", want: ReasonMalformed},
	{name: "invalid UTF-8 in a name", in: "<a\xc0/>", want: ReasonMalformed},
	{name: "invalid UTF-8 in an attribute", in: "<a x=\"\xd0\"/>", want: ReasonMalformed},
	{name: "invalid UTF-8 in a decoded attribute", in: "<a x=\"&amp;\xed\xa0\x80\"/>", want: ReasonMalformed},
	{name: "invalid UTF-8 in decoded text", in: "<a>&amp;\xf8</a>", want: ReasonMalformed},
	{name: "truncated UTF-8 at EOF", in: "<a>\xd0", want: ReasonMalformed},
	{name: "invalid UTF-8 in a comment", in: "<a><!--\xff--></a>", want: ReasonMalformed},
	{name: "invalid UTF-8 in a PI", in: "<a><?p \xff?></a>", want: ReasonMalformed},
	{name: "invalid UTF-8 in CDATA", in: "<a><![CDATA[\xc3]]></a>", want: ReasonMalformed},
	{name: "invalid UTF-8 outside root", in: "<a/><!--\xff-->", want: ReasonMalformed},
	{name: "invalid UTF-8 after too deep", in: nest(6) + "<!--\xff-->", want: ReasonMalformed},
	{name: "surrogate in UTF-8", in: "<a>\xed\xa0\x80</a>", want: ReasonMalformed},
	{name: "overlong UTF-8", in: "<a>\xc0\xaf</a>", want: ReasonMalformed},
	{name: "unknown entity", in: `<a>&nbsp;</a>`, want: ReasonMalformed},
	{name: "unknown entity in attribute", in: `<a x="&foo;"/>`, want: ReasonMalformed},
	{name: "entity without semicolon", in: `<a>&amp</a>`, want: ReasonMalformed},
	{name: "bare ampersand", in: `<a>a & b</a>`, want: ReasonMalformed},
	{name: "ampersand at EOF", in: `<a>&`, want: ReasonMalformed},
	{name: "upper-case X reference", in: `<a>&#X41;</a>`, want: ReasonMalformed},
	{name: "empty reference", in: `<a>&#;</a>`, want: ReasonMalformed},
	{name: "empty hex reference", in: `<a>&#x;</a>`, want: ReasonMalformed},
	{name: "reference past Unicode", in: `<a>&#x110000;</a>`, want: ReasonMalformed},
	{name: "huge reference", in: `<a>&#99999999999999999999999999;</a>`, want: ReasonMalformed},
	{name: "reference to NUL", in: `<a>&#0;</a>`, want: ReasonMalformed},
	{name: "reference to U+FFFE", in: `<a x="&#xFFFE;"/>`, want: ReasonMalformed},
	{name: "hex digit in decimal reference", in: `<a>&#1a;</a>`, want: ReasonMalformed},
	{name: "control character", in: "<a>\x01</a>", want: ReasonMalformed},
	{name: "control character in attribute", in: "<a x=\"\x1f\"/>", want: ReasonMalformed},
	{name: "control character in CDATA", in: "<a><![CDATA[\x00]]></a>", want: ReasonMalformed},
	{name: "U+FFFE", in: "<a>\uFFFE</a>", want: ReasonMalformed},
	{name: "U+FFFF in attribute", in: "<a x=\"\uFFFF\"/>", want: ReasonMalformed},
	{name: "lt in attribute", in: `<a x="<"/>`, want: ReasonMalformed},
	{name: "unterminated attribute", in: `<a x="1/>`, want: ReasonMalformed},
	{name: "]]> in text", in: `<a>]]></a>`, want: ReasonMalformed},
	{name: "mismatched end tag", in: `<a></b>`, want: ReasonMalformed},
	{name: "mismatched prefix", in: `<p:a xmlns:p="u" xmlns:q="u"></q:a>`, want: ReasonMalformed},
	{name: "unclosed element", in: `<a><b></b>`, want: ReasonMalformed},
	{name: "unexpected end tag", in: `</a>`, want: ReasonMalformed},
	{name: "end tag after root", in: `<a/></a>`, want: ReasonMalformed},
	{name: "second root", in: `<a/><b/>`, want: ReasonMalformed},
	{name: "text before root", in: `x<a/>`, want: ReasonMalformed, stricter: true},
	{name: "text after root", in: `<a/>x`, want: ReasonMalformed, stricter: true},
	{name: "CDATA outside root", in: `<a/><![CDATA[ ]]>`, want: ReasonMalformed, stricter: true},
	{name: "reference outside root", in: `&#32;<a/>`, want: ReasonMalformed, stricter: true},
	{name: "second BOM", in: "\xEF\xBB\xBF\xEF\xBB\xBF<a/>", want: ReasonMalformed, stricter: true},
	{name: "text before too deep", in: "x" + nest(6), want: ReasonMalformed, stricter: true},
	{name: "nothing", in: ``, want: ReasonMalformed},
	{name: "white space only", in: " \n", want: ReasonMalformed},
	{name: "comment only", in: `<!-- x -->`, want: ReasonMalformed},
	{name: "unquoted attribute", in: `<a x=1/>`, want: ReasonMalformed},
	{name: "attribute without value", in: `<a x/>`, want: ReasonMalformed},
	{name: "attribute without quote", in: `<a x=`, want: ReasonMalformed},
	{name: "two colons", in: `<a:b:c/>`, want: ReasonMalformed},
	{name: "two colons in attribute", in: `<a b:c:d="1"/>`, want: ReasonMalformed},
	{name: "two colons in end tag", in: `<a></a:b:c>`, want: ReasonMalformed},
	{name: "digit first", in: `<1a/>`, want: ReasonMalformed},
	{name: "digit first in attribute", in: `<a 1x="1"/>`, want: ReasonMalformed},
	{name: "space after lt", in: `< a/>`, want: ReasonMalformed},
	{name: "space after lt slash", in: `<a></ a>`, want: ReasonMalformed},
	{name: "slash space", in: `<a/ >`, want: ReasonMalformed},
	{name: "junk in end tag", in: `<a></a b>`, want: ReasonMalformed},
	{name: "nbsp in a name", in: "<a\u00a0b/>", want: ReasonMalformed},
	{name: "lt at EOF", in: `<a><`, want: ReasonMalformed},
	{name: "PI without target", in: `<? x?><a/>`, want: ReasonMalformed},
	{name: "unterminated PI", in: `<a><?p x></a>`, want: ReasonMalformed},
	{name: "depth one past the limit", in: nest(6), want: ReasonTooDeep},
	{name: "too deep before malformed", in: nest(6) + "<", want: ReasonTooDeep},
	{name: "malformed before too deep", in: "<e><e><e><e><e>&bad;<e>", want: ReasonMalformed},
	{name: "malformed tag too deep", in: nest(5)[:15] + `<e x=>`, want: ReasonMalformed},
	{name: "size one past the limit", in: `<a>123456</a>`, lim: Limits{MaxBytes: 12, MaxDepth: 5}, want: ReasonTooLarge},
	{name: "size before everything", in: `<!DOCTYPE>`, lim: Limits{MaxBytes: 5, MaxDepth: 5}, want: ReasonTooLarge},
}

func TestParseXMLCases(t *testing.T) {
	for _, c := range xmlCases {
		t.Run(c.name, func(t *testing.T) {
			lim := c.lim
			if lim == (Limits{}) {
				lim = testLimits
			}
			data := []byte(c.in)
			_, err := ParseXML("f.xml", data, lim)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("got %v, want a tree", err)
			case c.want != "" && err == nil:
				t.Fatalf("got a tree, want %s", c.want)
			case c.want != "" && reasonOf(err) != c.want:
				t.Fatalf("got %v, want %s", err, c.want)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "f.xml: ") {
				t.Errorf("error %q does not start with the path", err)
			}
			_, stdErr := parseXMLStd("f.xml", data, lim)
			if c.stricter {
				if !strings.Contains(err.Error(), msgTextOutsideRoot) {
					t.Errorf("got %v, want %q", err, msgTextOutsideRoot)
				}
				if !textOutsideRoot(data) {
					t.Errorf("encoding/xml sees no text outside the root")
				}
				return
			}
			if (stdErr == nil) != (c.want == "") || (stdErr != nil && reasonOf(stdErr) != c.want) {
				t.Errorf("encoding/xml: %v, want %q: the case is wrong", stdErr, c.want)
			}
			if d := compareStd(data, lim); d != "" {
				t.Error(d)
			}
		})
	}
}

// TestParseXMLShape pins what the differential test only compares: the
// names encoding/xml gives xmlns attributes, offsets and text.
func TestParseXMLShape(t *testing.T) {
	in := "\xEF\xBB\xBF<?xml version=\"1.0\"?>\r\n" +
		`<p:a xmlns="u" xmlns:p="v" p:x="1" q:y="2" z="3&#13;&#10;4` + "\r\n" + `5">` + "\r\n" +
		`<b/><c>t&amp;` + "\r\n" + `u</c>mixed<q:d/></p:a>` + "\r\n"
	root, err := ParseXML("f.xml", []byte(in), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	wantAttrs := []xml.Attr{
		{Name: xml.Name{Space: "", Local: "xmlns"}, Value: "u"},
		{Name: xml.Name{Space: "xmlns", Local: "p"}, Value: "v"},
		{Name: xml.Name{Space: "v", Local: "x"}, Value: "1"},
		{Name: xml.Name{Space: "q", Local: "y"}, Value: "2"},
		{Name: xml.Name{Space: "", Local: "z"}, Value: "3\r\n4\n5"},
	}
	if root.Space != "v" || root.Local != "a" || !reflect.DeepEqual(root.Attrs, wantAttrs) {
		t.Errorf("root %q %q %#v", root.Space, root.Local, root.Attrs)
	}
	start := int64(strings.Index(in, "<p:a"))
	if root.Start != start || root.End != int64(len(in)-2) || !root.Mixed || root.Text != "" {
		t.Errorf("root [%d,%d) mixed %v text %q, want [%d,%d) mixed", root.Start, root.End, root.Mixed, root.Text, start, len(in)-2)
	}
	if len(root.Children) != 3 {
		t.Fatalf("%d children", len(root.Children))
	}
	b, c, d := root.Children[0], root.Children[1], root.Children[2]
	if b.Space != "u" || b.Start != int64(strings.Index(in, "<b/>")) || b.End != b.Start+4 || b.Attrs == nil || b.Children != nil {
		t.Errorf("b %+v", b)
	}
	if c.Text != "t&\nu" || c.Mixed {
		t.Errorf("c text %q mixed %v", c.Text, c.Mixed)
	}
	if d.Space != "q" {
		t.Errorf("d space %q", d.Space)
	}
	for _, tree := range []struct {
		in    string
		text  string
		mixed bool
	}{
		{"<a> <b/> </a>", "", false},
		{"<a>x<b/></a>", "", true},
		{"<a><b/>x</a>", "", true},
		{"<a>\u00a0<b/>\u00a0</a>", "", false},
		{"<a> x </a>", " x ", false},
		{"<a/>", "", false},
	} {
		el, err := ParseXML("f.xml", []byte(tree.in), DefaultLimits)
		if err != nil || el.Text != tree.text || el.Mixed != tree.mixed {
			t.Errorf("%s: %v text %q mixed %v", tree.in, err, el.Text, el.Mixed)
		}
	}
}

func TestParseXMLErrorStyle(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"<a>\n<!DOCTYPE x></a>", "f.xml: byte 4: malformed: a DTD or other directive is not allowed"},
		{"\xEF\xBB\xBF<a>\n&x;</a>", "f.xml: byte 7: malformed: line 2: invalid character entity &x;"},
		{"<a>\n</b>", "f.xml: byte 6: malformed: line 2: element <a> closed by </b>"},
		{"<a/>x", "f.xml: byte 4: malformed: line 1: text outside the root element"},
		{"", "f.xml: byte 0: malformed: no root element"},
		{"<a>\xff</a>", "f.xml: malformed: not valid UTF-8"},
		{"<a><b/></a><!--\xff-->", "f.xml: malformed: not valid UTF-8"},
		{"<a><b/></a>", "f.xml: byte 3: too_deep: elements nest deeper than 1"},
		{strings.Repeat(" ", 100), "f.xml: too_large: 100 bytes is over the limit of 99"},
	} {
		_, err := ParseXML("f.xml", []byte(c.in), Limits{MaxBytes: 99, MaxDepth: 1})
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v, want %s", c.in, err, c.want)
		}
	}
}

// TestNameCharsMatchStd checks the name tables rune by rune against
// encoding/xml: as a first character and as a later one.
func TestNameCharsMatchStd(t *testing.T) {
	step := rune(1)
	if testing.Short() {
		step = 7
	}
	for r := rune(0x80); r <= 0x10FFFF; r += step {
		if r > 0xFFFF && r%0x3FF != 0 {
			continue // no name characters beyond the BMP: sample them
		}
		if !utf8.ValidRune(r) {
			continue
		}
		for _, in := range []string{"<" + string(r) + "/>", "<a" + string(r) + "/>", "<a " + string(r) + `="1"/>`} {
			_, errStd := parseXMLStd("f.xml", []byte(in), testLimits)
			_, err := ParseXML("f.xml", []byte(in), testLimits)
			if (errStd == nil) != (err == nil) {
				t.Errorf("%U in %q: encoding/xml %v, scanner %v", r, in, errStd, err)
			}
		}
	}
}

func FuzzParseXML(f *testing.F) {
	for _, c := range xmlCases {
		f.Add([]byte(c.in))
	}
	f.Add(syntheticDescriptor(3))
	f.Fuzz(func(t *testing.T, data []byte) {
		if d := compareStd(data, testLimits); d != "" {
			t.Fatalf("%q: %s", data, d)
		}
	})
}

// syntheticDescriptor is a Designer-like catalog descriptor with n
// attributes: BOM, CRLF, namespaces, Cyrillic names and synonyms.
func syntheticDescriptor(n int) []byte {
	var b bytes.Buffer
	b.WriteString("\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n")
	b.WriteString(`<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses" xmlns:app="http://v8.1c.ru/8.2/managed-application/core" xmlns:cfg="http://v8.1c.ru/8.1/data/enterprise/current-config" xmlns:v8="http://v8.1c.ru/8.1/data/core" xmlns:xr="http://v8.1c.ru/8.3/xcf/readable" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="2.17">` + "\r\n")
	b.WriteString("\t<Catalog uuid=\"5c55913b-6573-4f45-b848-a90373dafdac\">\r\n\t\t<Properties>\r\n\t\t\t<Name>Контрагенты</Name>\r\n")
	b.WriteString("\t\t\t<Synonym>\r\n\t\t\t\t<v8:item>\r\n\t\t\t\t\t<v8:lang>ru</v8:lang>\r\n\t\t\t\t\t<v8:content>Контрагенты &amp; партнёры</v8:content>\r\n\t\t\t\t</v8:item>\r\n\t\t\t</Synonym>\r\n")
	b.WriteString("\t\t\t<Comment/>\r\n\t\t\t<Hierarchical>false</Hierarchical>\r\n\t\t</Properties>\r\n\t\t<ChildObjects>\r\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "\t\t\t<Attribute uuid=\"%08x-6573-4f45-b848-a90373dafdac\">\r\n\t\t\t\t<Properties>\r\n", i)
		fmt.Fprintf(&b, "\t\t\t\t\t<Name>Реквизит%d</Name>\r\n", i)
		fmt.Fprintf(&b, "\t\t\t\t\t<Synonym>\r\n\t\t\t\t\t\t<v8:item>\r\n\t\t\t\t\t\t\t<v8:lang>ru</v8:lang>\r\n\t\t\t\t\t\t\t<v8:content>Реквизит номер %d</v8:content>\r\n\t\t\t\t\t\t</v8:item>\r\n\t\t\t\t\t</Synonym>\r\n", i)
		b.WriteString("\t\t\t\t\t<Comment/>\r\n\t\t\t\t\t<Type>\r\n\t\t\t\t\t\t<v8:Type>xs:string</v8:Type>\r\n\t\t\t\t\t\t<v8:StringQualifiers>\r\n\t\t\t\t\t\t\t<v8:Length>150</v8:Length>\r\n\t\t\t\t\t\t\t<v8:AllowedLength>Variable</v8:AllowedLength>\r\n\t\t\t\t\t\t</v8:StringQualifiers>\r\n\t\t\t\t\t</Type>\r\n")
		b.WriteString("\t\t\t\t\t<PasswordMode>false</PasswordMode>\r\n\t\t\t\t\t<Format/>\r\n\t\t\t\t\t<ToolTip/>\r\n\t\t\t\t\t<FillValue xsi:nil=\"true\"/>\r\n\t\t\t\t\t<FillChecking>DontCheck</FillChecking>\r\n")
		b.WriteString("\t\t\t\t\t<ChoiceParameterLinks/>\r\n\t\t\t\t\t<LinkByType/>\r\n\t\t\t\t\t<FullTextSearch>Use</FullTextSearch>\r\n\t\t\t\t\t<Use>ForItem</Use>\r\n\t\t\t\t</Properties>\r\n\t\t\t</Attribute>\r\n")
	}
	b.WriteString("\t\t</ChildObjects>\r\n\t</Catalog>\r\n</MetaDataObject>")
	return b.Bytes()
}

// benchInput is the largest descriptor under $DESIGNER_CORPUS (a file
// outside Ext directories, which hold forms, rights and modules), else a
// synthetic descriptor of about 200 KB.
func benchInput(b *testing.B) []byte {
	if root := os.Getenv("DESIGNER_CORPUS"); root != "" {
		best, size := "", int64(0)
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(path) != ".xml" || strings.Contains(path, string(filepath.Separator)+"Ext"+string(filepath.Separator)) {
				return err
			}
			if info, err := d.Info(); err == nil && info.Size() > size {
				best, size = path, info.Size()
			}
			return nil
		})
		if best != "" {
			data, err := os.ReadFile(best)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("%s, %d bytes", best, len(data))
			return data
		}
	}
	return syntheticDescriptor(160)
}

func benchParse(b *testing.B, parse func(string, []byte, Limits) (*Element, error)) {
	benchOne(b, benchInput(b), parse)
}

// benchOne parses data once per iteration with any of the package's
// parsers.
func benchOne[T any](b *testing.B, data []byte, parse func(string, []byte, Limits) (T, error)) {
	if _, err := parse("bench.xml", data, DefaultLimits); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse("bench.xml", data, DefaultLimits); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseXML(b *testing.B)    { benchParse(b, ParseXML) }
func BenchmarkParseXMLStd(b *testing.B) { benchParse(b, parseXMLStd) }

// corpusFiles reads every .xml file under $DESIGNER_CORPUS, skipping the
// benchmark when it is not set.
func corpusFiles(b *testing.B) [][]byte {
	root := os.Getenv("DESIGNER_CORPUS")
	if root == "" {
		b.Skip("DESIGNER_CORPUS is not set")
	}
	var files [][]byte
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(path), ".xml") {
			return err
		}
		data, err := os.ReadFile(path)
		files = append(files, data)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return files
}

// benchCorpus parses every file of the corpus once per iteration, as a
// search index of the whole configuration does; parse is any of the
// package's parsers.
func benchCorpus[T any](b *testing.B, parse func(string, []byte, Limits) (T, error)) {
	files := corpusFiles(b)
	var size int64
	for _, f := range files {
		size += int64(len(f))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			parse("f.xml", f, DefaultLimits)
		}
	}
}

func BenchmarkParseXMLCorpus(b *testing.B)    { benchCorpus(b, ParseXML) }
func BenchmarkParseXMLStdCorpus(b *testing.B) { benchCorpus(b, parseXMLStd) }
