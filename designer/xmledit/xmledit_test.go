package xmledit

import (
	"strings"
	"testing"

	"github.com/contractkit/contractkit/designer"
)

func parse(t testing.TB, s string) *designer.Element {
	t.Helper()
	root, err := designer.ParseXML("t.xml", []byte(s), designer.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// find returns the first element with the local name, depth first.
func find(el *designer.Element, local string) *designer.Element {
	if el.Local == local {
		return el
	}
	for _, c := range el.Children {
		if f := find(c, local); f != nil {
			return f
		}
	}
	return nil
}

func TestApply(t *testing.T) {
	data := []byte("0123456789")
	got, err := Apply(data, []Edit{{Start: 7, End: 9, Text: "XY"}, {Start: 0, End: 0, Text: "<"}, {Start: 2, End: 5, Text: ""}})
	if err != nil || string(got) != "<0156XY9" {
		t.Errorf("%q %v", got, err)
	}
	if string(data) != "0123456789" {
		t.Errorf("the input changed: %q", data)
	}
	for _, bad := range [][]Edit{{{Start: 2, End: 5}, {Start: 4, End: 6}}, {{Start: -1, End: 1}}, {{Start: 5, End: 11}}, {{Start: 5, End: 4}}} {
		if _, err := Apply(data, bad); err == nil {
			t.Errorf("%v was applied", bad)
		}
	}
}

// Text is set in place, an empty text makes a self-closing tag and a
// self-closing tag gets content; everything else stays byte for byte.
func TestSetText(t *testing.T) {
	doc := "\ufeff<?xml version=\"1.0\"?>\r\n<r xmlns:v8=\"urn:v8\">\r\n\t<Comment/>\r\n\t<v8:content a=\"1\">старое</v8:content>\r\n\t<!-- note -->\r\n</r>\r\n"
	root := parse(t, doc)
	cases := []struct {
		el, text, want string
	}{
		{"Comment", "a < b & \"c\" >\r\nd", "\t<Comment>a &lt; b &amp; \"c\" &gt;&#xD;\nd</Comment>\r\n"},
		{"content", "новое", "\t<v8:content a=\"1\">новое</v8:content>\r\n"},
		{"content", "", "\t<v8:content a=\"1\"/>\r\n"},
		{"Comment", "", "\t<Comment/>\r\n"},
	}
	for _, c := range cases {
		el := find(root, c.el)
		e, err := SetText([]byte(doc), el, c.text)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Apply([]byte(doc), []Edit{e})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), c.want) {
			t.Errorf("%s = %q:\n%q", c.el, c.text, out)
		}
		// Only the element changed, and it reads back as the text.
		before, after := doc[:el.Start], string(out[:el.Start])
		if before != after || !strings.HasSuffix(string(out), doc[el.End:]) {
			t.Errorf("%s: bytes outside the element changed", c.el)
		}
		if got := find(parse(t, string(out)), c.el).Text; got != c.text {
			t.Errorf("%s reads back %q, want %q", c.el, got, c.text)
		}
	}
	if _, err := SetText([]byte(doc), root, "x"); err == nil {
		t.Errorf("text set on an element with children")
	}
}

func TestSetAttr(t *testing.T) {
	doc := `<r><item name="Отбор.А" other='x'/><item  name = 'b' /></r>`
	root := parse(t, doc)
	for i, want := range []string{`<item name="Отбор.Б &amp; &quot;в&quot;" other='x'/>`, `<item  name = 'Отбор.Б &amp; "в"' />`} {
		e, err := SetAttr([]byte(doc), root.Children[i], "name", `Отбор.Б & "в"`)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := Apply([]byte(doc), []Edit{e})
		if !strings.Contains(string(out), want) {
			t.Errorf("%d: %s", i, out)
		}
		if v, _ := parse(t, string(out)).Children[i].Attr("name"); v != `Отбор.Б & "в"` {
			t.Errorf("%d reads back %q", i, v)
		}
	}
	if _, err := SetAttr([]byte(doc), root.Children[0], "nope", "x"); err == nil {
		t.Errorf("a missing attribute was set")
	}
}

func TestCheckCharsAndLayout(t *testing.T) {
	for _, s := range []string{"ok\t\r\n", "Юникод 😀", ""} {
		if err := CheckChars(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"a\x00b", "\x1b", "\uFFFE", "a\xffb"} {
		if err := CheckChars(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
	doc := "<r>\r\n\t\t<Type>\r\n\t\t\t<v8:Type xmlns:v8=\"u\">x</v8:Type>\r\n\t\t</Type>\r\n\t\t<E/>\r\n</r>"
	root := parse(t, doc)
	if l := LayoutOf([]byte(doc), root.Children[0]); l != (Layout{EOL: "\r\n", Indent: "\t\t\t", Close: "\t\t"}) {
		t.Errorf("Type: %+v", l)
	}
	if l := LayoutOf([]byte(doc), root.Children[1]); l != (Layout{EOL: "\r\n", Indent: "\t\t\t", Close: "\t\t"}) {
		t.Errorf("E: %+v", l)
	}
}

// Setting the text of any leaf element of any document the reader
// accepts gives a document that reads the same except for that element,
// whose text is the one set.
func FuzzSetText(f *testing.F) {
	f.Add([]byte("<r>\r\n<a>x</a><b/><c k=\"1\">y</c></r>"), uint8(1), "новый < & текст\r\n")
	f.Add([]byte("\ufeff<?xml version=\"1.0\"?><m:r xmlns:m=\"u\"><m:a/></m:r>"), uint8(0), "")
	f.Fuzz(func(t *testing.T, data []byte, which uint8, text string) {
		root, err := designer.ParseXML("f.xml", data, designer.Limits{MaxBytes: 1 << 16, MaxDepth: 32})
		if err != nil || CheckChars(text) != nil {
			return
		}
		var leaves []*designer.Element
		var walk func(el *designer.Element)
		walk = func(el *designer.Element) {
			if len(el.Children) == 0 && !el.Mixed {
				leaves = append(leaves, el)
			}
			for _, c := range el.Children {
				walk(c)
			}
		}
		walk(root)
		if len(leaves) == 0 {
			return
		}
		idx := int(which) % len(leaves)
		e, err := SetText(data, leaves[idx], text)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Apply(data, []Edit{e})
		if err != nil {
			t.Fatal(err)
		}
		again, err := designer.ParseXML("f.xml", out, designer.Limits{MaxBytes: 1 << 20, MaxDepth: 32})
		if err != nil {
			t.Fatalf("%q no longer parses: %v", out, err)
		}
		var n int
		var same func(a, b *designer.Element) bool
		same = func(a, b *designer.Element) bool {
			if a.Local != b.Local || a.Space != b.Space || len(a.Children) != len(b.Children) || len(a.Attrs) != len(b.Attrs) {
				return false
			}
			for i := range a.Attrs {
				if a.Attrs[i] != b.Attrs[i] {
					return false
				}
			}
			if len(a.Children) == 0 && !a.Mixed {
				if n == idx {
					n++
					return b.Text == text
				}
				n++
			}
			if a.Text != b.Text && len(a.Children) == 0 {
				return false
			}
			for i := range a.Children {
				if !same(a.Children[i], b.Children[i]) {
					return false
				}
			}
			return true
		}
		if !same(root, again) {
			t.Fatalf("setting leaf %d to %q: %q reads differently", idx, text, out)
		}
	})
}
