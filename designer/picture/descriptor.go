package picture

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"
)

// node is a minimal element tree. The descriptor and the manifest are tiny
// (bounded by Limits.XML), so a tree is cheaper to reason about than a
// streaming matcher and still cannot grow without bound.
type node struct {
	name     xml.Name
	attrs    []xml.Attr
	text     strings.Builder
	children []*node
}

func (n *node) attr(local string) (string, bool) {
	for _, a := range n.attrs {
		if a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

func (n *node) childrenNamed(local string) []*node {
	var out []*node
	for _, c := range n.children {
		if c.name.Local == local {
			out = append(out, c)
		}
	}
	return out
}

var errXML = errors.New("malformed XML")

// parseXML builds the tree of one small XML document. A DOCTYPE (indeed any
// <!...> directive) is refused outright: encoding/xml does not expand
// entities, but a document that declares them is not something Designer
// writes, and refusing it removes the whole class of entity tricks instead
// of reasoning about each. Only UTF-8 is accepted, as Designer writes; a
// UTF-8 byte-order mark is skipped because Designer writes one and
// encoding/xml does not expect it.
func parseXML(b []byte, maxDepth int) (*node, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	var root *node
	var stack []*node
	closed := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, errXML
		}
		switch t := tok.(type) {
		case xml.Directive:
			return nil, errXML
		case xml.StartElement:
			if closed || len(stack) >= maxDepth {
				return nil, errXML
			}
			n := &node{name: t.Name, attrs: t.Attr}
			if len(stack) == 0 {
				root = n
			} else {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			if len(stack) == 0 {
				return nil, errXML
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				closed = true
			}
		case xml.CharData:
			if len(stack) == 0 {
				if len(bytes.TrimSpace(t)) != 0 {
					return nil, errXML
				}
				continue
			}
			stack[len(stack)-1].text.Write(t)
		}
	}
	if root == nil || !closed {
		return nil, errXML
	}
	return root, nil
}

// parseDescriptor returns the file name held by Picture/Abs. Elements are
// matched by local name: exports differ in prefixes and default namespaces,
// and the element names alone are unambiguous inside this small document.
func parseDescriptor(b []byte, l Limits) (string, *failure) {
	if int64(len(b)) > l.XML {
		return "", failf(StatusTooLarge, "Picture.xml is over the size limit")
	}
	root, err := parseXML(b, l.Depth)
	if err != nil {
		return "", failf(StatusInvalid, "Picture.xml is not well-formed XML without a DTD")
	}
	pics := root.childrenNamed("Picture")
	if len(pics) != 1 {
		return "", failf(StatusInvalid, "Picture.xml must hold exactly one Picture element")
	}
	abs := pics[0].childrenNamed("Abs")
	if len(abs) != 1 {
		return "", failf(StatusInvalid, "Picture.xml must hold exactly one Picture/Abs element")
	}
	ref := strings.TrimSpace(abs[0].text.String())
	if !validFileName(ref) {
		return "", failf(StatusInvalid, "Picture/Abs is not a plain file name")
	}
	return ref, nil
}

// validFileName accepts a single path element only. Separators of both
// platforms are refused everywhere, so a descriptor written on Windows
// cannot escape on Linux and the other way round.
func validFileName(s string) bool {
	if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\\\x00") {
		return false
	}
	return filepath.IsLocal(s) && filepath.VolumeName(s) == ""
}

// variant is one PictureVariant of a manifest.
type variant struct {
	name string
	// iface is the interfaceVariant attribute. Designer writes an empty
	// value for the default variant, so empty counts as absent.
	iface string
	area  uint64
}

// maxGlyphSide bounds glyphWidth and glyphHeight so that their product
// cannot overflow and absurd declarations are caught as invalid.
const maxGlyphSide = 1 << 20

// parseManifest reads manifest.xml of a picture archive. Any doubt makes
// the whole manifest invalid: a half-understood manifest must not quietly
// select an image the platform would not show.
func parseManifest(b []byte, l Limits) ([]variant, *failure) {
	if int64(len(b)) > l.XML {
		return nil, failf(StatusTooLarge, "manifest.xml is over the size limit")
	}
	root, err := parseXML(b, l.Depth)
	if err != nil {
		return nil, failf(StatusInvalid, "manifest.xml is not well-formed XML without a DTD")
	}
	if root.name.Local != "Picture" {
		return nil, failf(StatusInvalid, "manifest.xml root is not Picture")
	}
	var out []variant
	for _, c := range root.childrenNamed("PictureVariant") {
		name, _ := c.attr("name")
		if !validEntryName(name) || strings.HasSuffix(name, "/") {
			return nil, failf(StatusInvalid, "manifest.xml names a variant that is not a plain entry name")
		}
		iface, _ := c.attr("interfaceVariant")
		w, okW := glyphSide(c, "glyphWidth")
		h, okH := glyphSide(c, "glyphHeight")
		if !okW || !okH {
			return nil, failf(StatusInvalid, "manifest.xml has a bad glyphWidth or glyphHeight")
		}
		out = append(out, variant{name: name, iface: strings.TrimSpace(iface), area: w * h})
	}
	if len(out) == 0 {
		return nil, failf(StatusInvalid, "manifest.xml lists no PictureVariant")
	}
	return out, nil
}

// glyphSide reads an optional dimension; an absent one declares no area.
func glyphSide(n *node, attr string) (uint64, bool) {
	s, ok := n.attr(attr)
	if !ok {
		return 0, true
	}
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil || v > maxGlyphSide {
		return 0, false
	}
	return v, true
}
