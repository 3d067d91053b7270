package picture

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/contractkit/contractkit/designer"
)

// parseXML reads one small XML document with the package designer's
// reader: UTF-8 only, a BOM skipped, any DTD refused, depth bounded.
func parseXML(b []byte, l Limits) (*designer.Element, error) {
	return designer.ParseXML("picture.xml", b, designer.Limits{MaxBytes: int(l.XML), MaxDepth: l.Depth})
}

// childrenNamed returns the children of el with the local name.
func childrenNamed(el *designer.Element, local string) []*designer.Element {
	var out []*designer.Element
	for _, c := range el.Children {
		if c.Local == local {
			out = append(out, c)
		}
	}
	return out
}

// parseDescriptor returns the file name held by Picture/Abs. Elements are
// matched by local name: exports differ in prefixes and default namespaces,
// and the element names alone are unambiguous inside this small document.
func parseDescriptor(b []byte, l Limits) (string, *failure) {
	if int64(len(b)) > l.XML {
		return "", failf(StatusTooLarge, "Picture.xml is over the size limit")
	}
	root, err := parseXML(b, l)
	if err != nil {
		return "", failf(StatusInvalid, "Picture.xml is not well-formed XML without a DTD")
	}
	pics := childrenNamed(root, "Picture")
	if len(pics) != 1 {
		return "", failf(StatusInvalid, "Picture.xml must hold exactly one Picture element")
	}
	abs := childrenNamed(pics[0], "Abs")
	if len(abs) != 1 {
		return "", failf(StatusInvalid, "Picture.xml must hold exactly one Picture/Abs element")
	}
	if len(abs[0].Children) > 0 {
		return "", failf(StatusInvalid, "Picture/Abs is not a plain file name")
	}
	ref := strings.TrimSpace(abs[0].Text)
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
	root, err := parseXML(b, l)
	if err != nil {
		return nil, failf(StatusInvalid, "manifest.xml is not well-formed XML without a DTD")
	}
	if root.Local != "Picture" {
		return nil, failf(StatusInvalid, "manifest.xml root is not Picture")
	}
	var out []variant
	for _, c := range childrenNamed(root, "PictureVariant") {
		name, _ := c.Attr("name")
		if !validEntryName(name) || strings.HasSuffix(name, "/") {
			return nil, failf(StatusInvalid, "manifest.xml names a variant that is not a plain entry name")
		}
		iface, _ := c.Attr("interfaceVariant")
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
func glyphSide(n *designer.Element, attr string) (uint64, bool) {
	s, ok := n.Attr(attr)
	if !ok {
		return 0, true
	}
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil || v > maxGlyphSide {
		return 0, false
	}
	return v, true
}
