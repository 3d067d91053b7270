package metadata

import (
	"strings"

	"github.com/contractkit/contractkit/designer"
	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata/sourceread"
)

// Presentation (API 1.5) tells a client how to show a raw value: empty,
// a reference to metadata (resolved inside the project where possible),
// or a recognised type description. The raw value stays authoritative;
// anything not recognised gets no presentation.

const (
	nsReadable = designer.NamespaceReadable
	nsCore     = designer.NamespaceCore
	nsXS       = "http://www.w3.org/2001/XMLSchema"
	nsConfig   = "http://v8.1c.ru/8.1/data/enterprise/current-config"
)

// scope maps namespace prefixes to URIs, for attribute values that are
// QNames (xsi:type) or prefixed type names (v8:Type).
type scope map[string]string

func (s scope) with(el *designer.Element) scope {
	var out scope
	for _, a := range el.Attrs {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
			if out == nil {
				out = scope{}
				for k, v := range s {
					out[k] = v
				}
			}
			if a.Name.Space == "xmlns" {
				out[a.Name.Local] = a.Value
			} else {
				out[""] = a.Value
			}
		}
	}
	if out == nil {
		return s
	}
	return out
}

// qname resolves "prefix:local" to its namespace and local part.
func (s scope) qname(v string) (ns, local string, ok bool) {
	v = strings.TrimSpace(v)
	prefix, local, found := strings.Cut(v, ":")
	if !found {
		return s[""], v, true
	}
	ns, ok = s[prefix]
	return ns, local, ok
}

func xsiType(el *designer.Element, s scope) (ns, local string, ok bool) {
	for _, a := range el.Attrs {
		if a.Name.Space == designer.NamespaceXSI && a.Name.Local == "type" {
			return s.qname(a.Value)
		}
	}
	return "", "", false
}

func xsiNil(el *designer.Element) bool {
	for _, a := range el.Attrs {
		if a.Name.Space == designer.NamespaceXSI && a.Name.Local == "nil" {
			v := strings.TrimSpace(a.Value)
			return v == "true" || v == "1"
		}
	}
	return false
}

var emptyCaption = gen.Caption{RuRU: "Пустое значение", EnUS: "Empty value"}

// selectorProperties are Designer properties whose plain text names a
// metadata object (a form, a template, a language, a style, a picture)
// without an xsi:type saying so. Only these contexts are read as
// references; other text that looks like Catalog.Name is left alone.
var selectorProperties = map[string]bool{
	"DefaultObjectForm": true, "DefaultListForm": true, "DefaultChoiceForm": true, "DefaultFolderForm": true,
	"DefaultFolderChoiceForm": true, "DefaultRecordForm": true, "DefaultForm": true, "DefaultSettingsForm": true,
	"DefaultVariantForm": true, "AuxiliaryObjectForm": true, "AuxiliaryListForm": true, "AuxiliaryChoiceForm": true,
	"AuxiliaryFolderForm": true, "AuxiliaryFolderChoiceForm": true, "AuxiliaryRecordForm": true, "AuxiliaryForm": true,
	"MainDataCompositionSchema": true, "DefaultLanguage": true, "DefaultStyle": true, "Picture": true,
	"DefaultConstantsForm": true, "DefaultReportForm": true, "DefaultDynamicListSettingsForm": true,
	"DefaultSearchForm": true, "DefaultReportSettingsForm": true, "DefaultReportVariantForm": true,
	"Numerator": true, "Sequence": true, "FunctionalOptionsParameter": true, "Location": true,
}

// present returns the presentation of a property or field element, or
// nil when it has none.
func (p *project) present(el *designer.Element, s scope) gen.Presentation {
	if xsiNil(el) {
		return gen.EmptyPresentation{Caption: emptyCaption}
	}
	ns, local, typed := xsiType(el, s)
	text := strings.TrimSpace(el.Text)
	switch {
	case typed && ns == nsXS && local == "string" && len(el.Children) == 0 && text == "":
		return gen.EmptyPresentation{Caption: emptyCaption}
	case typed && ns == nsReadable && (local == "MDObjectRef" || local == "DesignTimeRef"):
		if len(el.Children) > 0 {
			return nil
		}
		if text == "" {
			return gen.EmptyPresentation{Caption: emptyCaption}
		}
		if r := p.reference(text, local == "DesignTimeRef"); r != nil {
			return r
		}
		return nil
	case !typed && len(el.Children) == 0 && selectorProperties[el.Local] && text != "":
		if r := p.reference(text, false); r != nil {
			return r
		}
	case el.Local == "Type" && len(el.Children) > 0:
		return p.types(el, s)
	}
	return nil
}

// reference resolves a metadata path such as Catalog.Name,
// Catalog.Name.Form.Form or Enum.Name.EnumValue.Value inside the project.
// A design-time reference may also be Owner.Name.EmptyRef (empty) or
// Owner.Name.Predefined (a predefined item, by its unique name).
func (p *project) reference(path string, designTime bool) gen.Presentation {
	parts := strings.Split(path, ".")
	if len(parts) < 2 {
		return nil
	}
	top, ok := designer.KindOfTag(parts[0])
	if !ok {
		return nil
	}
	if designTime && len(parts) == 3 {
		if parts[2] == "EmptyRef" {
			return gen.EmptyPresentation{Caption: emptyCaption}
		}
		owner, status := p.findTop(top.Kind, parts[1])
		if owner == nil {
			return p.refPresentation(nil, designer.KindPredefinedItem, status, parts[2])
		}
		item, status := p.findPredefined(owner, parts[2])
		return p.refPresentation(item, designer.KindPredefinedItem, status, parts[2])
	}
	if len(parts)%2 != 0 {
		return nil
	}
	cur, status := p.findTop(top.Kind, parts[1])
	kind := top.Kind
	name := parts[1]
	standard := ""
	for i := 2; cur != nil && i+1 < len(parts); i += 2 {
		if parts[i] == "StandardAttribute" {
			// A standard attribute has no node: the reference opens its owner.
			standard = parts[i+1]
			break
		}
		info, ok := designer.KindOfTag(parts[i])
		if !ok {
			return nil
		}
		kind, name = info.Kind, parts[i+1]
		if err := p.load(cur); err != nil {
			cur, status = nil, gen.ReferenceStatusUnavailable
			break
		}
		var next *object
		for _, c := range cur.children {
			if c.info == info && c.name == parts[i+1] {
				next = c
				break
			}
		}
		if next == nil {
			status = gen.ReferenceStatusMissing
		}
		cur = next
	}
	if cur == nil && status == gen.ReferenceStatusResolved {
		status = gen.ReferenceStatusMissing
	}
	r := p.refPresentation(cur, kind, status, name)
	if rp, ok := r.(gen.ReferencePresentation); ok && standard != "" {
		d := gen.Caption{RuRU: "стандартный реквизит " + standard, EnUS: "standard attribute " + standard}
		rp.Detail = &d
		return rp
	}
	return r
}

// findTop finds a top-level object of the project by kind and name.
func (p *project) findTop(kind designer.Kind, name string) (*object, gen.ReferenceStatus) {
	if o, ok := p.objs[designer.ObjectID("", kind, name)]; ok {
		return o, gen.ReferenceStatusResolved
	}
	if p.root.info.Kind == kind && p.root.name == name {
		return p.root, gen.ReferenceStatusResolved
	}
	return nil, gen.ReferenceStatusMissing
}

// findPredefined looks a predefined item up by its unique name in the
// owner's Predefined.xml; an ambiguous name leads nowhere.
func (p *project) findPredefined(owner *object, name string) (*object, gen.ReferenceStatus) {
	if !hasPredefined(owner) {
		return nil, gen.ReferenceStatusMissing
	}
	if err := p.loadPredefined(owner); err != nil {
		return nil, gen.ReferenceStatusUnavailable
	}
	var found []*object
	var walk func(items []*object)
	walk = func(items []*object) {
		for _, it := range items {
			if it.name == name {
				found = append(found, it)
			}
			walk(it.children)
		}
	}
	walk(owner.rare().predef)
	if len(found) != 1 {
		return nil, gen.ReferenceStatusMissing
	}
	return found[0], gen.ReferenceStatusResolved
}

func (p *project) refPresentation(target *object, kind designer.Kind, status gen.ReferenceStatus, name string) gen.Presentation {
	r := gen.ReferencePresentation{
		Caption:      gen.Caption{RuRU: name, EnUS: name},
		Category:     singular(kind),
		MetadataKind: gen.MetadataKind(kind),
		Status:       status,
	}
	if target != nil && status == gen.ReferenceStatusResolved {
		status = p.readable(target)
		r.Status = status
	}
	if target != nil && status == gen.ReferenceStatusResolved {
		id := gen.ObjectID(target.id)
		r.Target = &id
		r.Caption = objectCaption(target)
	}
	return r
}

// readable loads a target's descriptor: a declared object whose file is
// gone is missing, one that cannot be read is unavailable; neither stops
// the other properties.
func (p *project) readable(o *object) gen.ReferenceStatus {
	if err := p.load(o); err != nil {
		if se, ok := err.(*sourceread.Error); ok && se.Reason == gen.SourceErrorReasonMissing {
			return gen.ReferenceStatusMissing
		}
		return gen.ReferenceStatusUnavailable
	}
	return gen.ReferenceStatusResolved
}

// objectCaption picks a synonym for each locale, then another non-empty
// synonym, then the name.
func objectCaption(o *object) gen.Caption {
	pick := func(lang string) string {
		for _, s := range o.synonyms {
			if s.Lang == lang && strings.TrimSpace(s.Content) != "" {
				return s.Content
			}
		}
		for _, s := range o.synonyms {
			if strings.TrimSpace(s.Content) != "" {
				return s.Content
			}
		}
		return o.name
	}
	return gen.Caption{RuRU: pick("ru"), EnUS: pick("en")}
}

// types presents a Type element: each v8:Type or v8:TypeSet with its
// qualifiers. One item not understood leaves the whole description raw.
func (p *project) types(el *designer.Element, s scope) gen.Presentation {
	var items []gen.PresentedItem
	var detail *gen.Caption
	for _, c := range el.Children {
		if c.Space != nsCore {
			return nil
		}
		switch c.Local {
		case "Type", "TypeSet":
			ns, local, ok := s.qname(c.Text)
			if !ok {
				return nil
			}
			it, ok := p.typeItem(ns, local, c.Local == "TypeSet")
			if !ok {
				return nil
			}
			items = append(items, it)
		case "StringQualifiers", "NumberQualifiers", "DateQualifiers", "BinaryDataQualifiers":
			detail = nil
			if qc, ok := designer.QualifierCaption(c); ok {
				detail = ptrTo(caption(qc))
			}
		default:
			return nil
		}
	}
	if len(items) == 0 {
		return nil
	}
	if detail != nil && len(items) == 1 {
		items[0].Detail = detail
	}
	return gen.TypesPresentation{Items: items}
}

func (p *project) typeItem(ns, local string, set bool) (gen.PresentedItem, bool) {
	switch ns {
	case nsXS:
		c, ok := designer.PrimitiveTypeCaption(local)
		return gen.PresentedItem{Caption: caption(c)}, ok
	case nsCore:
		c, ok := designer.PlatformTypeCaption(local)
		return gen.PresentedItem{Caption: caption(c)}, ok
	case nsConfig:
	default:
		return gen.PresentedItem{}, false
	}
	typeName, name, dotted := strings.Cut(local, ".")
	if !dotted {
		c, ok := designer.TypeFamilyCaption(typeName)
		return gen.PresentedItem{Caption: caption(c)}, ok
	}
	kind, ok := designer.KindOfTypeName(typeName)
	if !ok {
		return gen.PresentedItem{}, false
	}
	target, status := p.findTop(kind, name)
	if target != nil {
		status = p.readable(target)
	}
	k := gen.MetadataKind(kind)
	cat := singular(kind)
	it := gen.PresentedItem{Caption: gen.Caption{RuRU: name, EnUS: name}, Category: &cat, MetadataKind: &k, Status: &status}
	if target != nil && status == gen.ReferenceStatusResolved {
		id := gen.ObjectID(target.id)
		it.Target = &id
		it.Caption = objectCaption(target)
	}
	return it, true
}

// singular is the name of one object of a kind, the category of a
// reference.
func singular(kind designer.Kind) gen.Caption {
	if info, ok := designer.Lookup(kind); ok {
		return caption(info.Singular)
	}
	return gen.Caption{RuRU: string(kind), EnUS: string(kind)}
}
