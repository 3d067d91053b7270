package metadata

// The editing profile (API 1.6 and later): which properties of an object are
// editable fields. What may be edited is the table gen.EditingProfile of
// the spec; this file only finds the rows' paths in a descriptor.
//
// A path names elements below the object's Properties by local name,
// separated by "/": Name[n] is the n-th of repeated elements (1-based),
// Name[lang=ru] the item of a localized text in that language (Name[n]
// when a language repeats), @name an attribute. Table rows use [*] and
// [lang=*] for "every occurrence".

import (
	"strconv"
	"strings"

	"github.com/contractkit/contractkit/designer"
	gen "github.com/contractkit/contractkit/generated/ide"
)

// field is one editable field of an object.
type field struct {
	path string
	row  *gen.EditingProfileRow
	el   *designer.Element // the element, or the one holding the attribute
	attr string            // the attribute as written; "" for an element
}

// text is the field's current text: the attribute's value or the
// element's character data.
func (f *field) text() string {
	if f.attr != "" {
		v, _ := f.el.Attr(strings.TrimPrefix(f.attr, "@"))
		return v
	}
	return f.el.Text
}

// rowsFor lists the profile rows of a metadata kind.
func rowsFor(kind designer.Kind) []*gen.EditingProfileRow {
	var out []*gen.EditingProfileRow
	for i := range gen.EditingProfile {
		r := &gen.EditingProfile[i]
		for _, k := range r.Kinds {
			if k == string(kind) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// visible reports whether the client may receive a row's schema: a
// reference field from minor 7, a value field from minor 8, an unsigned
// integer from 11. A linked field (1.10) needs linkedPropertyEdits.
func (e *editor) visible(f *field) bool {
	if !e.b.grants.Covers(f.row.Since) {
		return false
	}
	return !e.linkedField(f) || e.b.granted(gen.CapabilityLinkedPropertyEdits)
}

// fields expands the object's profile rows over its Properties: one
// field per element (or attribute) a row's path finds, whose present
// value the row can represent. Fields of a later minor than the client's
// are returned apart.
func (e *editor) fields() (shown, hidden []*field) {
	if e.props == nil || e.o.info == nil {
		return nil, nil
	}
	seen := map[string]bool{}
	for _, r := range rowsFor(e.o.info.Kind) {
		for _, f := range expand(e.props, strings.Split(r.Path, "/"), "") {
			if seen[f.path] {
				continue
			}
			f.row = r
			if !e.fits(f) {
				continue
			}
			seen[f.path] = true
			if e.visible(f) {
				shown = append(shown, f)
			} else {
				hidden = append(hidden, f)
			}
		}
	}
	return shown, hidden
}

// expand finds the elements a path pattern names below cur.
func expand(cur *designer.Element, segs []string, prefix string) []*field {
	if len(segs) == 0 {
		return []*field{{path: prefix, el: cur}}
	}
	seg, rest := segs[0], segs[1:]
	join := func(s string) string {
		if prefix == "" {
			return s
		}
		return prefix + "/" + s
	}
	if name, ok := strings.CutPrefix(seg, "@"); ok {
		if len(rest) > 0 {
			return nil
		}
		for _, a := range cur.Attrs {
			if a.Name.Local == name && a.Name.Space == "" {
				return []*field{{path: join(seg), el: cur, attr: seg}}
			}
		}
		return nil
	}
	name, sel, _ := strings.Cut(seg, "[")
	sel = strings.TrimSuffix(sel, "]")
	var kids []*designer.Element
	for _, c := range cur.Children {
		if c.Local == name {
			kids = append(kids, c)
		}
	}
	var out []*field
	switch sel {
	case "":
		// A unique element; a repeated one is not addressed this way.
		if len(kids) == 1 {
			out = expand(kids[0], rest, join(name))
		}
	case "*":
		for i, k := range kids {
			out = append(out, expand(k, rest, join(name+"["+strconv.Itoa(i+1)+"]"))...)
		}
	case "lang=*":
		if len(kids) != 1 || len(rest) > 0 {
			return nil
		}
		items, ok := localizedItems(kids[0])
		if !ok {
			return nil
		}
		count := map[string]int{}
		for _, it := range items {
			count[it.lang]++
		}
		for i, it := range items {
			sel := "lang=" + it.lang
			if count[it.lang] > 1 || it.lang == "" || strings.ContainsAny(it.lang, "[]/") {
				sel = strconv.Itoa(i + 1)
			}
			out = append(out, &field{path: join(name + "[" + sel + "]"), el: it.content})
		}
	}
	return out
}

type locItem struct {
	lang    string
	content *designer.Element
}

// localizedItems reads the v8:item/v8:lang/v8:content items of a
// localized text; false when the element is something else.
func localizedItems(el *designer.Element) ([]locItem, bool) {
	var out []locItem
	for _, it := range el.Children {
		if it.Local != "item" || it.Space != designer.NamespaceCore || len(it.Children) != 2 {
			return nil, false
		}
		lang, content := it.Child("lang"), it.Child("content")
		if lang == nil || content == nil || len(lang.Children) > 0 || len(content.Children) > 0 || content.Mixed {
			return nil, false
		}
		out = append(out, locItem{lang: strings.TrimSpace(lang.Text), content: content})
	}
	return out, true
}

// fits reports whether a field's present value is one its row can
// represent; a field that does not fit stays read-only.
func (e *editor) fits(f *field) bool {
	r := f.row
	if f.attr == "" && (f.el.Mixed || (len(f.el.Children) > 0 && r.Schema != "type" && r.Schema != "value")) {
		return false
	}
	switch r.Schema {
	case "boolean":
		return isBoolean(f.el.Text)
	case "enum":
		for _, v := range r.Values {
			if v == strings.TrimSpace(f.el.Text) {
				return true
			}
		}
		return false
	case "integer":
		_, err := strconv.ParseInt(strings.TrimSpace(f.el.Text), 10, 64)
		return err == nil
	case "unsignedInteger":
		_, err := strconv.ParseUint(strings.TrimSpace(f.el.Text), 10, 64)
		return err == nil
	case "reference":
		if r.Domain == numeratorClass {
			v := strings.TrimSpace(f.el.Text)
			if v == "" {
				return true
			}
			for _, c := range e.numeratorChoices() {
				if c.Value == v {
					return true
				}
			}
			return false
		}
	case "type":
		_, ok := e.typeOf(f.el)
		return ok
	case "form":
		v := strings.TrimSpace(f.el.Text)
		if v == "" {
			return true
		}
		for _, opt := range e.formValues() {
			if opt == v {
				return true
			}
		}
		return false
	case "value":
		_, _, ok := e.valueOf(f)
		return ok
	}
	return true
}

// readOnly lists what is shown but not editable: every property of the
// object none of whose parts is a field, and every field the client's
// minor does not receive.
func (e *editor) readOnly(shown, hidden []*field) []gen.ReadOnlyProperty {
	out := []gen.ReadOnlyProperty{}
	if e.props == nil {
		return out
	}
	count := map[string]int{}
	for _, c := range e.props.Children {
		count[c.Local]++
	}
	at := map[string]int{}
	for _, c := range e.props.Children {
		at[c.Local]++
		seg := c.Local
		if count[c.Local] > 1 {
			seg += "[" + strconv.Itoa(at[c.Local]) + "]"
		}
		covered := false
		for _, f := range shown {
			if f.path == seg || strings.HasPrefix(f.path, seg+"/") || strings.HasPrefix(f.path, seg+"[") {
				covered = true
				break
			}
		}
		for _, f := range hidden {
			// Listed below with the reason of its own.
			covered = covered || f.path == seg
		}
		if !covered {
			out = append(out, gen.ReadOnlyProperty{Path: seg, Reason: gen.ReadOnlyReasonUnsupported})
		}
	}
	for _, f := range hidden {
		reason := gen.ReadOnlyReasonUnsupported
		if f.row.Schema == "unsignedInteger" {
			// The seed's reason for the unsigned fields older clients
			// still read.
			reason = gen.ReadOnlyReasonClientVersion
		}
		out = append(out, gen.ReadOnlyProperty{Path: f.path, Reason: reason})
	}
	return out
}

// field finds the shown field with the path.
func (e *editor) field(path string) *field {
	shown, _ := e.fields()
	for _, f := range shown {
		if f.path == path {
			return f
		}
	}
	return nil
}
