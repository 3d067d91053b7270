package designer

import (
	"fmt"
	"strings"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// Namespaces of Designer XML.
const (
	NamespaceMD       = "http://v8.1c.ru/8.3/MDClasses"
	NamespaceCore     = "http://v8.1c.ru/8.1/data/core"
	NamespacePredef   = "http://v8.1c.ru/8.3/xcf/predef"
	NamespaceXSI      = "http://www.w3.org/2001/XMLSchema-instance"
	NamespaceReadable = "http://v8.1c.ru/8.3/xcf/readable"
)

// Diagnostic codes: the IDE API's DiagnosticCode values.
const (
	DiagUnsupportedRoot   = string(gen.DiagnosticCodeUnsupportedRoot)
	DiagUnknownKind       = string(gen.DiagnosticCodeUnknownKind)
	DiagInvalidObject     = string(gen.DiagnosticCodeInvalidObject)
	DiagDuplicateIdentity = string(gen.DiagnosticCodeDuplicateIdentity)
	DiagUnsupportedValue  = string(gen.DiagnosticCodeUnsupportedValue)
)

// Range is a half-open interval of bytes of the original file.
type Range struct{ Start, End int64 }

// Diagnostic is a recoverable oddity of a file.
type Diagnostic struct {
	Code  string
	Range *Range
	// Details are the issue's own fields (namespace, name, objectId), in a
	// fixed order so that output is deterministic.
	Details [][2]string
}

// Text is a localized string: a synonym in one language.
type Text struct{ Lang, Content string }

// Object is a metadata object declared by a descriptor: the descriptor's
// own object, or one defined inline among its ChildObjects.
type Object struct {
	Info     *KindInfo
	Name     string
	UUID     string // "" when absent
	Synonyms []Text
	El       *Element // the object's element; Properties lie inside
	Children []*Child // ChildObjects in XML order, unknown tags included
}

// Properties returns the object's Properties element, or nil.
func (o *Object) Properties() *Element { return o.El.Child("Properties") }

// Child is one entry of ChildObjects.
type Child struct {
	Tag  string
	Info *KindInfo // nil for an unknown tag
	Name string
	// Inline is the object defined right here; nil for a reference to a
	// descriptor of its own and for unknown tags.
	Inline *Object
	Range  Range
}

// Descriptor is one parsed descriptor file.
type Descriptor struct {
	Path    string
	Version string // the format version attribute, as written
	// Object is nil when the root is not Designer metadata or names a kind
	// this package does not know; Diagnostics say which.
	Object      *Object
	Diagnostics []Diagnostic
	Root        *Element
}

// ParseDescriptor reads a Designer descriptor: a MetaDataObject root, in
// the MDClasses namespace under any prefix, holding one object element.
// Any format version is accepted; what is not understood becomes a
// diagnostic.
func ParseDescriptor(path string, data []byte, lim Limits) (*Descriptor, error) {
	root, err := ParseXML(path, data, lim)
	if err != nil {
		return nil, err
	}
	return interpret(path, root), nil
}

// ParseDescriptorSummary is ParseDescriptor for readers that need only
// the skeleton of a descriptor: its Path, Version, Diagnostics and Object
// (Info, Name, UUID, Synonyms, Children with their Tag, Info, Name, Range
// and Inline objects, recursively) are the same as ParseDescriptor's, and
// so is the error for every input ParseDescriptor refuses: the whole file
// is still checked (well-formedness, UTF-8, DTDs, limits).
//
// The element tree is partial: use ParseDescriptor for properties. Only
// the elements the skeleton is read from are built: the root, its
// children, the object element, its Properties with only their Name,
// Synonym (items, langs, contents) and ConfigurationExtensionPurpose
// children, its ChildObjects and their entries, and so on for every
// inline object. Root, Object.El, Object.Properties() and what they hold
// are these pruned elements: each has the name, attributes, text and
// range ParseXML would give it, but Children lists lack the elements not
// built. IsExtension and ExternalTag work as with ParseDescriptor. The
// rest of the file (types, form settings and the like, most of its bytes)
// allocates nothing.
func ParseDescriptorSummary(path string, data []byte, lim Limits) (*Descriptor, error) {
	root, err := parseXML(path, data, lim, true)
	if err != nil {
		return nil, err
	}
	return interpret(path, root), nil
}

// summaryElements are the elements ParseDescriptorSummary builds below the
// object element: by the summary scan's state of a parent (a st constant
// of scan.go), the local names of the children it builds and the state
// each of them opens in. Every other child is checked but not built.
var summaryElements = [...][]summaryChild{
	stObject:  {{"Properties", stProps}, {"ChildObjects", stChildObjects}},
	stProps:   {{"Name", stShell}, {"ConfigurationExtensionPurpose", stShell}, {"Synonym", stSynonym}},
	stSynonym: {{"item", stItem}},
	stItem:    {{"lang", stShell}, {"content", stShell}},
}

// summaryChild is a child element the summary scan builds, by local name,
// and the state it opens in.
type summaryChild struct {
	local string
	state uint8
}

// interpret reads a descriptor out of its element tree.
func interpret(path string, root *Element) *Descriptor {
	d := &Descriptor{Path: path, Root: root}
	d.Version, _ = root.Attr("version")
	if root.Local != "MetaDataObject" || root.Space != NamespaceMD {
		d.diag(DiagUnsupportedRoot, &Range{root.Start, root.End}, "namespace", root.Space, "name", root.Local)
		return d
	}
	var objEl *Element
	for _, c := range root.Children {
		if objEl != nil {
			d.diag(DiagInvalidObject, &Range{c.Start, c.End}, "name", c.Local)
			continue
		}
		objEl = c
	}
	if objEl == nil {
		d.diag(DiagInvalidObject, &Range{root.Start, root.End}, "name", root.Local)
		return d
	}
	info, ok := KindOfTag(objEl.Local)
	if !ok || objEl.Space != NamespaceMD {
		d.diag(DiagUnknownKind, &Range{objEl.Start, objEl.End}, "namespace", objEl.Space, "name", objEl.Local)
		return d
	}
	d.Object = d.object(info, objEl)
	return d
}

func (d *Descriptor) diag(code string, r *Range, kv ...string) {
	dg := Diagnostic{Code: code, Range: r}
	for i := 0; i+1 < len(kv); i += 2 {
		dg.Details = append(dg.Details, [2]string{kv[i], kv[i+1]})
	}
	d.Diagnostics = append(d.Diagnostics, dg)
}

// object reads an object element: its name, uuid, synonyms and children.
func (d *Descriptor) object(info *KindInfo, el *Element) *Object {
	o := &Object{Info: info, El: el}
	o.UUID, _ = el.Attr("uuid")
	props := el.Child("Properties")
	if n := props.Child("Name"); n != nil {
		o.Name = strings.TrimSpace(n.Text)
	}
	if o.Name == "" {
		d.diag(DiagInvalidObject, &Range{el.Start, el.End}, "name", el.Local)
	}
	o.Synonyms = LocalizedText(props.Child("Synonym"))
	seen := map[string]bool{}
	if co := el.Child("ChildObjects"); co != nil {
		for _, c := range co.Children {
			ch := &Child{Tag: c.Local, Range: Range{c.Start, c.End}}
			if c.Space != NamespaceMD {
				d.diag(DiagUnknownKind, &ch.Range, "namespace", c.Space, "name", c.Local)
				o.Children = append(o.Children, ch)
				continue
			}
			ch.Info, _ = KindOfTag(c.Local)
			if len(c.Children) > 0 && c.Child("Properties") != nil {
				if ch.Info != nil {
					ch.Inline = d.object(ch.Info, c)
					ch.Name = ch.Inline.Name
				} else if n := c.Child("Properties").Child("Name"); n != nil {
					ch.Name = strings.TrimSpace(n.Text)
				}
			} else if len(c.Children) == 0 {
				ch.Name = strings.TrimSpace(c.Text)
			}
			if ch.Info == nil {
				d.diag(DiagUnknownKind, &ch.Range, "namespace", c.Space, "name", c.Local)
				o.Children = append(o.Children, ch)
				continue
			}
			if ch.Name == "" {
				d.diag(DiagInvalidObject, &ch.Range, "name", c.Local)
				continue
			}
			key := string(ch.Info.Kind) + ":" + ch.Name
			if seen[key] {
				d.diag(DiagDuplicateIdentity, &ch.Range, "name", ch.Name, "kind", string(ch.Info.Kind))
				continue
			}
			seen[key] = true
			o.Children = append(o.Children, ch)
		}
	}
	return o
}

// LocalizedText reads v8:item/v8:lang/v8:content pairs in order.
func LocalizedText(el *Element) []Text {
	if el == nil {
		return nil
	}
	var out []Text
	for _, it := range el.Children {
		if it.Local != "item" {
			continue
		}
		var t Text
		if l := it.Child("lang"); l != nil {
			t.Lang = strings.TrimSpace(l.Text)
		}
		if c := it.Child("content"); c != nil {
			t.Content = c.Text
		}
		out = append(out, t)
	}
	return out
}

// IsExtension reports whether a Configuration descriptor is an extension:
// only extensions carry ConfigurationExtensionPurpose.
func (d *Descriptor) IsExtension() bool {
	return d.Object != nil && d.Object.Info.Kind == KindConfiguration &&
		d.Object.Properties().Child("ConfigurationExtensionPurpose") != nil
}

// ExternalTag reports the root tag of an external processor or report.
func (d *Descriptor) ExternalTag() string {
	if d.Object == nil {
		return ""
	}
	return d.Object.El.Local
}

// PredefinedItem is one item of Predefined.xml.
type PredefinedItem struct {
	Name        string
	Description string
	El          *Element
	Children    []*PredefinedItem
}

// ParsePredefined reads an owner's Ext/Predefined.xml: Item elements with
// nested ChildItems, in XML order.
func ParsePredefined(path string, data []byte, lim Limits) ([]*PredefinedItem, []Diagnostic, error) {
	root, err := ParseXML(path, data, lim)
	if err != nil {
		return nil, nil, err
	}
	d := &Descriptor{Path: path}
	if root.Local != "PredefinedData" || root.Space != NamespacePredef {
		d.diag(DiagUnsupportedRoot, &Range{root.Start, root.End}, "namespace", root.Space, "name", root.Local)
		return nil, d.Diagnostics, nil
	}
	var walk func(el *Element) []*PredefinedItem
	walk = func(el *Element) []*PredefinedItem {
		var out []*PredefinedItem
		// Identity is hierarchical, so a name need only be unique among
		// its siblings.
		seen := map[string]bool{}
		for _, c := range el.Children {
			if c.Local != "Item" {
				continue
			}
			it := &PredefinedItem{El: c}
			if n := c.Child("Name"); n != nil {
				it.Name = strings.TrimSpace(n.Text)
			}
			if n := c.Child("Description"); n != nil {
				it.Description = n.Text
			}
			if it.Name == "" {
				d.diag(DiagInvalidObject, &Range{c.Start, c.End}, "name", "Item")
				continue
			}
			if seen[it.Name] {
				d.diag(DiagDuplicateIdentity, &Range{c.Start, c.End}, "name", it.Name, "kind", string(KindPredefinedItem))
				continue
			}
			seen[it.Name] = true
			if ci := c.Child("ChildItems"); ci != nil {
				it.Children = walk(ci)
			}
			out = append(out, it)
		}
		return out
	}
	return walk(root), d.Diagnostics, nil
}

// String renders a diagnostic for logs and tests.
func (dg Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(dg.Code)
	if dg.Range != nil {
		fmt.Fprintf(&b, "@%d-%d", dg.Range.Start, dg.Range.End)
	}
	for _, kv := range dg.Details {
		fmt.Fprintf(&b, " %s=%q", kv[0], kv[1])
	}
	return b.String()
}
