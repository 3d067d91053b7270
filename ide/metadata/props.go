package metadata

import (
	"strings"

	"github.com/contractkit/contractkit/designer"
	gen "github.com/contractkit/contractkit/generated/ide"
)

// properties converts the children of an object's Properties element
// (or of a predefined Item) into DTOs, in XML order with repeats kept;
// with present (API 1.5 propertyPresentation) values also get their
// presentation.
func (p *project) properties(o *object, present bool) []gen.Property {
	var src *designer.Element
	if o.info != nil && o.info.Kind == designer.KindPredefinedItem {
		src = o.el
	} else if o.el != nil {
		src = o.el.Child("Properties")
	}
	out := []gen.Property{}
	if src == nil {
		return out
	}
	var ns scope
	if present {
		ns = nsOf(o).with(o.el).with(src)
	}
	for _, el := range src.Children {
		if o.info != nil && o.info.Kind == designer.KindPredefinedItem && el.Local == "ChildItems" {
			continue // the children are tree nodes, not a property
		}
		value, qual := propertyValue(el, p, present, ns)
		prop := gen.Property{
			Key:        key(el),
			Qualifiers: qual,
			Value:      value,
			Range:      gen.Range{Start: el.Start, End: el.End},
		}
		if ru, en, ok := designer.PropertyCaption(el.Local); ok && knownNamespace(el.Space) {
			prop.Caption = &gen.Caption{RuRU: ru, EnUS: en}
		}
		if present {
			prop.Presentation = p.present(el, ns.with(el))
		}
		out = append(out, prop)
	}
	return out
}

// nsOf returns the namespace declarations in scope at o's descriptor root.
func nsOf(o *object) scope {
	for cur := o; cur != nil; cur = cur.parent {
		if cur.ns != nil {
			return cur.ns
		}
		if cur.own {
			break
		}
	}
	return scope{}
}

func knownNamespace(ns string) bool {
	return ns == designer.NamespaceMD || ns == designer.NamespacePredef
}

func key(el *designer.Element) gen.PropertyKey {
	k := gen.PropertyKey{Name: el.Local}
	if el.Space != "" {
		ns := el.Space
		k.Namespace = &ns
	}
	return k
}

// qualifiers are an element's attributes other than namespace
// declarations.
func qualifiers(el *designer.Element) []gen.Qualifier {
	out := []gen.Qualifier{}
	for _, a := range el.Attrs {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
			continue
		}
		q := gen.Qualifier{Key: gen.PropertyKey{Name: a.Name.Local}, Value: a.Value}
		if a.Name.Space != "" {
			ns := a.Name.Space
			q.Key.Namespace = &ns
		}
		out = append(out, q)
	}
	return out
}

// propertyValue reads one element: text, a localized text (v8:item
// pairs), a record of fields, or unsupported when text and elements mix.
// Fields of a record get their presentation when present is set.
func propertyValue(el *designer.Element, p *project, present bool, ns scope) (gen.PropertyValue, []gen.Qualifier) {
	qual := qualifiers(el)
	switch {
	case el.Mixed:
		return gen.UnsupportedValue{Issue: gen.UnsupportedIssueMixedContent}, qual
	case len(el.Children) == 0:
		tv := gen.TextValue{Text: el.Text}
		if booleanProperties[el.Local] && knownNamespace(el.Space) && isBoolean(el.Text) {
			st := gen.ScalarTypeBoolean
			tv.ScalarType = &st
		}
		if ru, en, ok := designer.EnumCaption(el.Local, strings.TrimSpace(el.Text)); ok && el.Space == designer.NamespaceMD {
			tv.Caption = &gen.Caption{RuRU: ru, EnUS: en}
		}
		return tv, qual
	case isLocalized(el):
		items, ok := localized(el)
		if !ok {
			return gen.UnsupportedValue{Issue: gen.UnsupportedIssueInvalidLocalizedText}, qual
		}
		return gen.LocalizedValue{Items: items}, qual
	}
	fields := make([]gen.RecordField, 0, len(el.Children))
	inner := ns
	if present {
		inner = ns.with(el)
	}
	for _, c := range el.Children {
		v, q := propertyValue(c, p, present, inner)
		f := gen.RecordField{Key: key(c), Qualifiers: q, Value: v}
		if present {
			f.Presentation = p.present(c, inner.with(c))
		}
		fields = append(fields, f)
	}
	return gen.RecordValue{Fields: fields}, qual
}

// isLocalized reports an element whose children are all v8:item.
func isLocalized(el *designer.Element) bool {
	for _, c := range el.Children {
		if c.Local != "item" || c.Space != designer.NamespaceCore {
			return false
		}
	}
	return true
}

// localized reads v8:item pairs; an item without exactly a lang and a
// content is not a localized text.
func localized(el *designer.Element) ([]gen.Text, bool) {
	items := make([]gen.Text, 0, len(el.Children))
	for _, it := range el.Children {
		lang, content := it.Child("lang"), it.Child("content")
		if lang == nil || content == nil || len(it.Children) != 2 || len(lang.Children) > 0 || len(content.Children) > 0 {
			return nil, false
		}
		items = append(items, gen.Text{Language: strings.TrimSpace(lang.Text), Content: content.Text})
	}
	return items, true
}

func isBoolean(s string) bool {
	switch strings.TrimSpace(s) {
	case "true", "false", "1", "0":
		return true
	}
	return false
}

func texts(ts []designer.Text) []gen.Text {
	out := make([]gen.Text, 0, len(ts))
	for _, t := range ts {
		out = append(out, gen.Text{Language: t.Lang, Content: t.Content})
	}
	return out
}

// booleanProperties are platform properties whose value is a boolean.
var booleanProperties = map[string]bool{
	"IsFolder": true, "Hierarchical": true, "UseStandardCommands": true, "Server": true,
	"ClientManagedApplication": true, "ClientOrdinaryApplication": true, "ExternalConnection": true,
	"ServerCall": true, "Privileged": true, "Global": true, "IncludeInCommandInterface": true,
	"Predefined": true, "Use": true, "PasswordMode": true, "MultiLine": true,
}
