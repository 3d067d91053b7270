package metadata

// Values of editable fields: their schema and present value as the API
// shows them, and the checks and byte replacements of a change. Every
// check refuses before anything is written; every replacement touches
// only the bytes of the field.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contractkit/contractkit/designer"
	"github.com/contractkit/contractkit/designer/bsl"
	"github.com/contractkit/contractkit/designer/xmledit"
	gen "github.com/contractkit/contractkit/generated/ide"
)

// primitiveTypes are the four primitive types every type list starts
// with; designer names them.
var primitiveTypes = []string{"xs:string", "xs:decimal", "xs:boolean", "xs:dateTime"}

func primitiveCaption(key string) gen.Caption {
	c, _ := designer.PrimitiveTypeCaption(strings.TrimPrefix(key, "xs:"))
	return caption(c)
}

// refObject finds the top-level object a reference type key names.
func (e *editor) refObject(key string) (*object, designer.Kind, bool) {
	prefix, name, ok := strings.Cut(key, ".")
	if !ok {
		return nil, "", false
	}
	for _, rt := range designer.RefTypes() {
		if rt.Prefix == prefix {
			o, ok := e.p.objs[designer.ObjectID("", rt.Kind, name)]
			return o, rt.Kind, ok && o.parent == e.p.root
		}
	}
	return nil, "", false
}

// typeChoices lists every type a field may take: the primitives, then
// the reference types of the project in tree order.
func (e *editor) typeChoices() []gen.TypeChoice {
	out := make([]gen.TypeChoice, 0, len(primitiveTypes))
	for _, pt := range primitiveTypes {
		out = append(out, gen.TypeChoice{Key: pt, Caption: primitiveCaption(pt)})
	}
	for _, rt := range designer.RefTypes() {
		for _, c := range e.p.root.children {
			if c.info != nil && c.info.Kind == rt.Kind {
				out = append(out, gen.TypeChoice{Key: rt.Prefix + "." + c.name, Caption: gen.Caption{RuRU: rt.RU + "." + c.name, EnUS: rt.Prefix + "." + c.name}})
			}
		}
	}
	return out
}

// typeCaption is the caption of one type key.
func typeCaption(key string) gen.Caption {
	if slices.Contains(primitiveTypes, key) {
		return primitiveCaption(key)
	}
	prefix, name, _ := strings.Cut(key, ".")
	for _, rt := range designer.RefTypes() {
		if rt.Prefix == prefix {
			return gen.Caption{RuRU: rt.RU + "." + name, EnUS: key}
		}
	}
	return gen.Caption{RuRU: key, EnUS: key}
}

// typeKey turns a QName written in el's scope into a type key:
// xs:<name> for XML Schema types, <Ref>.<name> for the configuration's.
func (e *editor) typeKey(qname string) (string, bool) {
	prefix, local, ok := strings.Cut(strings.TrimSpace(qname), ":")
	if !ok {
		return "", false
	}
	switch e.scope[prefix] {
	case nsXS:
		if key := "xs:" + local; slices.Contains(primitiveTypes, key) {
			return key, true
		}
	case nsConfig:
		if _, _, ok := e.refObject(local); ok {
			return local, true
		}
	}
	return "", false
}

// qname spells a type key in the descriptor's own prefixes.
func (e *editor) qname(key string) (string, error) {
	ns, local := nsConfig, key
	if rest, ok := strings.CutPrefix(key, "xs:"); ok {
		ns, local = nsXS, rest
	}
	p, err := e.prefix(ns)
	if err != nil {
		return "", err
	}
	return p + ":" + local, nil
}

// prefix finds the prefix the descriptor binds to a namespace.
func (e *editor) prefix(ns string) (string, error) {
	best := ""
	for p, uri := range e.scope {
		if uri == ns && p != "" && (best == "" || p < best) {
			best = p
		}
	}
	if best == "" {
		return "", fmt.Errorf("the descriptor declares no prefix for %s", ns)
	}
	return best, nil
}

// ---- schemas and present values ----

// schema is the field's EditSchema for this client.
func (e *editor) schema(f *field) gen.EditSchema {
	r := f.row
	switch r.Schema {
	case "boolean":
		return gen.EditSchemaBoolean{}
	case "enum":
		opts := make([]gen.EnumOption, 0, len(r.Values))
		name := lastSegment(r.Path)
		for _, v := range r.Values {
			c := gen.Caption{RuRU: v, EnUS: v}
			if ru, en, ok := designer.EditValueCaption(name, v); ok {
				c = gen.Caption{RuRU: ru, EnUS: en}
			}
			opts = append(opts, gen.EnumOption{Value: v, Caption: c})
		}
		return gen.EnumSchema{Values: opts}
	case "integer":
		s := gen.IntegerSchema{}
		if r.HasMin {
			m := r.Min
			s.Min = &m
		}
		if r.HasMax {
			m := r.Max
			s.Max = &m
		}
		return s
	case "type":
		cur, _ := e.typeOf(f.el)
		opts := []gen.EnumOption{}
		for _, pt := range primitiveTypes {
			opts = append(opts, gen.EnumOption{Value: pt, Caption: primitiveCaption(pt)})
		}
		if !strings.HasPrefix(cur, "xs:") {
			opts = append(opts, gen.EnumOption{Value: cur, Caption: typeCaption(cur)})
		}
		return gen.EnumSchema{Values: opts}
	case "form":
		opts := []gen.EnumOption{{Value: "", Caption: gen.Caption{RuRU: "Не задана", EnUS: "Not set"}}}
		for _, v := range e.formValues() {
			opts = append(opts, gen.EnumOption{Value: v, Caption: gen.Caption{RuRU: lastDotted(v), EnUS: lastDotted(v)}})
		}
		return gen.EnumSchema{Values: opts}
	case "reference":
		if r.Domain == numeratorClass {
			return gen.ReferenceSchema{Domain: r.Domain, Nullable: true}
		}
		return gen.ReferenceSchema{Domain: "ChoiceParameterField", Nullable: false}
	case "unsignedInteger":
		// The whole unsigned 64-bit range, as decimal strings on the wire.
		return gen.UnsignedIntegerSchema{Min: 0, Max: math.MaxUint64}
	case "value":
		s := gen.ValueSchema{Types: []gen.TypeChoice{}}
		for _, k := range e.valueTypes(f) {
			s.Types = append(s.Types, gen.TypeChoice{Key: k, Caption: typeCaption(k)})
		}
		if r.Domain == "choiceParameter" {
			d := gen.ValueDomainChoiceParameter
			s.Domain = &d
		}
		return s
	case "choiceParameterName":
		s := gen.TextSchema{}
		if e.b.grants.Covers("1.7") { // TextDomain came in 1.7
			d := gen.TextDomainChoiceParameterName
			s.Domain = &d
		}
		return s
	}
	return gen.TextSchema{}
}

func lastSegment(path string) string {
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return path[i+1:]
	}
	return path
}

func lastDotted(s string) string {
	if i := strings.LastIndex(s, "."); i >= 0 {
		return s[i+1:]
	}
	return s
}

// current is the field's present value in the form its change takes.
func (e *editor) current(f *field) json.RawMessage {
	var v any
	text := f.text()
	switch f.row.Schema {
	case "boolean":
		v = strings.TrimSpace(text) == "true" || strings.TrimSpace(text) == "1"
	case "integer":
		n, _ := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		v = n
	case "unsignedInteger":
		// The decimal text as it stands: never through a float or an int64.
		v = strings.TrimSpace(text)
	case "type":
		v, _ = e.typeOf(f.el)
	case "enum", "form", "reference":
		v = strings.TrimSpace(text)
		if f.row.Domain == numeratorClass && v == "" {
			v = nil
		}
	case "value":
		typ, val, _ := e.valueOf(f)
		if typ == "" {
			v = nil
		} else {
			v = map[string]string{"type": typ, "value": val}
		}
	default:
		v = text
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the text as it is, as the properties show it
	enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// ---- checks and replacements ----

// errInvalid marks a change its field refuses: invalid params, naming
// the field.
type errInvalid struct {
	path, why string
}

func (e *errInvalid) Error() string { return e.path + ": " + e.why }

func invalid(f *field, format string, args ...any) error {
	return &errInvalid{path: f.path, why: fmt.Sprintf(format, args...)}
}

// edits checks a change against its field and returns the byte
// replacements that make it.
func (e *editor) edits(f *field, c gen.PropertyChange) ([]xmledit.Edit, error) {
	r := f.row
	want := map[string]string{"text": "text", "localized": "text", "choiceParameterName": "text", "boolean": "boolean",
		"enum": "enum", "type": "enum", "form": "enum", "integer": "integer", "reference": "reference", "value": "value",
		"unsignedInteger": "unsignedInteger"}[r.Schema]
	got := ""
	var text string
	switch v := c.(type) {
	case gen.TextChange:
		got, text = "text", v.Value
	case gen.BooleanChange:
		got, text = "boolean", strconv.FormatBool(v.Value)
	case gen.EnumChange:
		got, text = "enum", v.Value
	case gen.IntegerChange:
		got, text = "integer", strconv.FormatInt(v.Value, 10)
	case gen.UnsignedIntegerChange:
		// Decoded from a decimal string straight into a uint64: a
		// negative, fractional or overflowing value never got here.
		got, text = "unsignedInteger", strconv.FormatUint(v.Value, 10)
	case gen.ReferenceChange:
		got = "reference"
		if v.Value == nil {
			return nil, invalid(f, "the reference may not be cleared")
		}
		text = *v.Value
	case gen.ValueChange:
		got = "value"
	default:
		got = "unsupported"
	}
	if got != want {
		return nil, invalid(f, "a %s change for a %s field", got, want)
	}
	switch r.Schema {
	case "text", "localized":
		if err := checkText(text); err != nil {
			return nil, invalid(f, "%v", err)
		}
	case "choiceParameterName":
		if err := checkChoiceParameterName(text, e.siblingNames(f)); err != nil {
			return nil, invalid(f, "%v", err)
		}
	case "unsignedInteger":
	case "boolean", "enum", "integer":
		if err := checkScalar(r, c); err != nil {
			return nil, invalid(f, "%v", err)
		}
		if err := e.related(f, c); err != nil {
			return nil, invalid(f, "%v", err)
		}
	case "type":
		return e.typeChange(f, text)
	case "form":
		ok := text == ""
		for _, v := range e.formValues() {
			ok = ok || v == text
		}
		if !ok {
			return nil, invalid(f, "%q is not a form of %s", text, e.o.name)
		}
	case "reference":
		ok := false
		for _, ch := range e.referenceChoices(f) {
			ok = ok || ch.Value == text
		}
		if !ok {
			return nil, invalid(f, "%q is not one of the fields metadata/propertyReferenceChoices lists", text)
		}
	case "value":
		return e.valueChange(f, c.(gen.ValueChange))
	}
	var edit xmledit.Edit
	var err error
	if f.attr != "" {
		edit, err = xmledit.SetAttr(e.data, f.el, strings.TrimPrefix(f.attr, "@"), text)
	} else {
		edit, err = xmledit.SetText(e.data, f.el, text)
	}
	if err != nil {
		return nil, err
	}
	return []xmledit.Edit{edit}, nil
}

// checkText refuses text XML 1.0 cannot hold.
func checkText(s string) error {
	return xmledit.CheckChars(s)
}

// checkScalar checks a boolean, enum or integer change against its row.
func checkScalar(r *gen.EditingProfileRow, c gen.PropertyChange) error {
	switch v := c.(type) {
	case gen.EnumChange:
		for _, x := range r.Values {
			if x == v.Value {
				return nil
			}
		}
		return fmt.Errorf("%q is not one of %s", v.Value, strings.Join(r.Values, ", "))
	case gen.IntegerChange:
		if r.HasMin && v.Value < r.Min {
			return fmt.Errorf("%d is below the minimum %d", v.Value, r.Min)
		}
		if r.HasMax && v.Value > r.Max {
			return fmt.Errorf("%d is above the maximum %d", v.Value, r.Max)
		}
	}
	return nil
}

// related checks a value against the fields it must agree with: the
// fraction digits of a number do not exceed its digits.
func (e *editor) related(f *field, c gen.PropertyChange) error {
	n, ok := c.(gen.IntegerChange)
	if !ok || f.el == nil {
		return nil
	}
	sibling := func(name string) (int64, bool) {
		parent := e.parentOf(f.el)
		if parent == nil || parent.Child(name) == nil {
			return 0, false
		}
		v, err := strconv.ParseInt(strings.TrimSpace(parent.Child(name).Text), 10, 64)
		return v, err == nil
	}
	switch f.el.Local {
	case "Digits":
		if fd, ok := sibling("FractionDigits"); ok && n.Value < fd {
			return fmt.Errorf("%d digits cannot hold the %d fraction digits", n.Value, fd)
		}
	case "FractionDigits":
		if d, ok := sibling("Digits"); ok && n.Value > d {
			return fmt.Errorf("%d fraction digits exceed the %d digits", n.Value, d)
		}
	}
	return nil
}

// parentOf finds an element's parent below the object's element.
func (e *editor) parentOf(target *designer.Element) *designer.Element {
	var find func(el *designer.Element) *designer.Element
	find = func(el *designer.Element) *designer.Element {
		for _, c := range el.Children {
			if c == target {
				return el
			}
			if p := find(c); p != nil {
				return p
			}
		}
		return nil
	}
	return find(e.el)
}

// ---- attribute types ----

// typeOf reads a Type element that holds exactly one type this editor
// knows; composite types and type sets are not editable.
func (e *editor) typeOf(el *designer.Element) (string, bool) {
	var key string
	n := 0
	for _, c := range el.Children {
		if c.Space != designer.NamespaceCore {
			return "", false
		}
		switch c.Local {
		case "Type":
			n++
			k, ok := e.typeKey(c.Text)
			if !ok {
				return "", false
			}
			key = k
		case "StringQualifiers", "NumberQualifiers", "DateQualifiers":
		default:
			return "", false
		}
	}
	return key, n == 1
}

// typeChange replaces a Type element's content with the new type and the
// platform's default qualifiers of it, laid out as the file lays out its
// children.
func (e *editor) typeChange(f *field, key string) ([]xmledit.Edit, error) {
	ok := false
	for _, tc := range e.typeChoices() {
		ok = ok || tc.Key == key
	}
	if !ok {
		return nil, invalid(f, "%q is not a type metadata/propertyTypeChoices lists", key)
	}
	for _, name := range []string{"FillValue", "MinValue", "MaxValue"} {
		if v := e.props.Child(name); v != nil && !isNil(v) {
			return nil, invalid(f, "%s is set; the type changes only while FillValue, MinValue and MaxValue are empty", name)
		}
	}
	v8, err := e.prefix(designer.NamespaceCore)
	if err != nil {
		return nil, invalid(f, "%v", err)
	}
	qn, err := e.qname(key)
	if err != nil {
		return nil, invalid(f, "%v", err)
	}
	l := xmledit.LayoutOf(e.data, f.el)
	var b strings.Builder
	line := func(indent, s string) { b.WriteString(l.EOL + indent + s) }
	line(l.Indent, "<"+v8+":Type>"+qn+"</"+v8+":Type>")
	quals := map[string][][2]string{
		"xs:string":   {{"StringQualifiers", ""}, {"Length", "10"}, {"AllowedLength", "Variable"}},
		"xs:decimal":  {{"NumberQualifiers", ""}, {"Digits", "10"}, {"FractionDigits", "0"}, {"AllowedSign", "Any"}},
		"xs:dateTime": {{"DateQualifiers", ""}, {"DateFractions", "DateTime"}},
	}[key]
	if len(quals) > 0 {
		inner := l.Indent + strings.TrimPrefix(l.Indent, l.Close)
		if inner == l.Indent {
			inner += "\t"
		}
		line(l.Indent, "<"+v8+":"+quals[0][0]+">")
		for _, q := range quals[1:] {
			line(inner, "<"+v8+":"+q[0]+">"+q[1]+"</"+v8+":"+q[0]+">")
		}
		line(l.Indent, "</"+v8+":"+quals[0][0]+">")
	}
	b.WriteString(l.EOL + l.Close)
	start, end, tag, err := xmledit.Content(e.data, f.el)
	if err != nil {
		return nil, err
	}
	if tag.SelfClosing {
		return []xmledit.Edit{{Start: f.el.Start, End: f.el.End, Text: strings.TrimSuffix(string(e.data[tag.Start:tag.End]), "/>") + ">" + b.String() + "</" + tag.Name + ">"}}, nil
	}
	return []xmledit.Edit{{Start: start, End: end, Text: b.String()}}, nil
}

func isNil(el *designer.Element) bool {
	for _, a := range el.Attrs {
		if a.Name.Space == designer.NamespaceXSI && a.Name.Local == "nil" && (a.Value == "true" || a.Value == "1") {
			return true
		}
	}
	return len(el.Children) == 0 && strings.TrimSpace(el.Text) == "" && len(el.Attrs) == 0
}

// ---- default forms ----

// formValues lists the object's own forms as the Designer names them in
// its default form properties.
func (e *editor) formValues() []string {
	var out []string
	for _, c := range e.o.children {
		if c.info != nil && c.info.Kind == designer.KindForm {
			out = append(out, e.o.tag+"."+e.o.name+".Form."+c.name)
		}
	}
	return out
}

// ---- choice parameters ----

// checkChoiceParameterName checks the name of a choice parameter: dotted
// identifiers (Отбор.Владелец), not used by another item of the list.
func checkChoiceParameterName(name string, others []string) error {
	if name == "" {
		return errors.New("a choice parameter name may not be empty")
	}
	for _, part := range strings.Split(name, ".") {
		if !bsl.IsName(part) {
			return fmt.Errorf("%q is not a name of identifiers joined by dots", name)
		}
	}
	for _, o := range others {
		if strings.EqualFold(o, name) {
			return fmt.Errorf("%q is already the name of another choice parameter", name)
		}
	}
	return nil
}

// siblingNames are the names of the other items of a choice parameter's
// list.
func (e *editor) siblingNames(f *field) []string {
	parent := e.parentOf(f.el)
	var out []string
	if parent == nil {
		return nil
	}
	for _, c := range parent.Children {
		if c != f.el {
			if v, ok := c.Attr("name"); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// referenceChoices lists what a choice parameter link may name: the
// fields of the attribute's owner and, inside a tabular section, that
// section's attributes.
func (e *editor) referenceChoices(f *field) []gen.ReferenceChoice {
	owner := e.o.parent
	var section *object
	for owner != nil && owner.parent != nil && !owner.own {
		if owner.info != nil && owner.info.Kind == designer.KindTabularSection {
			section = owner
		}
		owner = owner.parent
	}
	if owner == nil {
		return nil
	}
	base := owner.tag + "." + owner.name
	out := []gen.ReferenceChoice{}
	add := func(value string, o *object, std string) {
		c := gen.ReferenceChoice{Value: value, ObjectID: gen.ObjectID(o.id), MetadataKind: gen.MetadataKind(o.kind()), Caption: synonymCaption(o)}
		if std != "" {
			s := std
			c.StandardAttribute = &s
			c.Caption = gen.Caption{RuRU: std, EnUS: std}
		}
		out = append(out, c)
	}
	if std := e.ownerProps(owner).Child("StandardAttributes"); std != nil {
		for _, a := range std.Children {
			if name, ok := a.Attr("name"); ok {
				add(base+".StandardAttribute."+name, owner, name)
			}
		}
	}
	for _, c := range owner.children {
		switch c.kind() {
		case "attribute", "dimension", "resource":
			add(base+"."+c.tag+"."+c.name, c, "")
		}
	}
	if section != nil {
		for _, c := range section.children {
			if c.kind() == "attribute" {
				add(base+".TabularSection."+section.name+".Attribute."+c.name, c, "")
			}
		}
	}
	return out
}

// ownerProps is the Properties element of an object of the descriptor
// being edited.
func (e *editor) ownerProps(o *object) *designer.Element {
	if o == e.own {
		return e.ownEl.Child("Properties")
	}
	return nil
}

func synonymCaption(o *object) gen.Caption {
	c := gen.Caption{RuRU: o.name, EnUS: o.name}
	for _, t := range o.synonyms {
		switch t.Lang {
		case "ru":
			c.RuRU = t.Content
		case "en":
			c.EnUS = t.Content
		}
	}
	return c
}

// ---- fill values and choice parameter values ----

// valueOf reads a value element: its type key (empty for a nil value)
// and its text; false for a value this editor cannot represent.
func (e *editor) valueOf(f *field) (string, string, bool) {
	el := f.el
	if len(el.Children) > 0 {
		return "", "", false
	}
	typ := ""
	for _, a := range el.Attrs {
		switch {
		case a.Name.Space == designer.NamespaceXSI && a.Name.Local == "nil":
			if a.Value == "true" || a.Value == "1" {
				return "", "", true
			}
		case a.Name.Space == designer.NamespaceXSI && a.Name.Local == "type":
			typ = a.Value
		case a.Name.Space == "xmlns" || a.Name.Local == "xmlns":
		default:
			return "", "", false
		}
	}
	if typ == "" {
		return "", "", false
	}
	prefix, local, _ := strings.Cut(typ, ":")
	if e.scope[prefix] == designer.NamespaceReadable && local == "DesignTimeRef" {
		key, ok := refKeyOfValue(strings.TrimSpace(el.Text))
		if !ok {
			return "", "", false
		}
		if _, _, known := e.refObject(key); !known {
			return "", "", false
		}
		return key, strings.TrimSpace(el.Text), true
	}
	key, ok := e.typeKey(typ)
	if !ok || !strings.HasPrefix(key, "xs:") {
		return "", "", false
	}
	return key, el.Text, true
}

// refKeyOfValue reads the type of a design-time reference:
// Catalog.X.EmptyRef, Enum.X.EnumValue.Y, Catalog.X.<predefined> give
// CatalogRef.X, EnumRef.X, CatalogRef.X.
func refKeyOfValue(v string) (string, bool) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 3 {
		return "", false
	}
	for _, rt := range designer.RefTypes() {
		if strings.TrimSuffix(rt.Prefix, "Ref") == parts[0] {
			return rt.Prefix + "." + parts[1], true
		}
	}
	return "", false
}

// valueTypes are the types a value field may take: for a fill value the
// attribute's own types, for a choice parameter the primitives and the
// present reference type.
func (e *editor) valueTypes(f *field) []string {
	if f.row.Domain == "choiceParameter" {
		out := []string{}
		out = append(out, primitiveTypes...)
		if typ, _, ok := e.valueOf(f); ok && typ != "" && !strings.HasPrefix(typ, "xs:") {
			out = append(out, typ)
		}
		return out
	}
	out := []string{}
	if t := e.props.Child("Type"); t != nil {
		for _, c := range t.Children {
			if c.Local == "Type" && c.Space == designer.NamespaceCore {
				if k, ok := e.typeKey(c.Text); ok {
					out = append(out, k)
				}
			}
		}
	}
	return out
}

// valueChoices lists the values of a type: true and false, EmptyRef,
// enumeration values and predefined items; nothing for free values.
func (e *editor) valueChoices(key string) []gen.ValueChoice {
	out := []gen.ValueChoice{}
	if key == "xs:boolean" {
		return append(out, gen.ValueChoice{Value: "true", Caption: gen.Caption{RuRU: "Да", EnUS: "True"}},
			gen.ValueChoice{Value: "false", Caption: gen.Caption{RuRU: "Нет", EnUS: "False"}})
	}
	o, kind, ok := e.refObject(key)
	if !ok {
		return out
	}
	base := o.tag + "." + o.name
	out = append(out, gen.ValueChoice{Value: base + ".EmptyRef", Caption: gen.Caption{RuRU: "Пустая ссылка", EnUS: "Empty reference"}})
	if e.p.load(o) != nil {
		return out
	}
	if kind == "enum" {
		for _, c := range o.children {
			if c.kind() == "enum-value" {
				out = append(out, gen.ValueChoice{Value: base + ".EnumValue." + c.name, Caption: synonymCaption(c)})
			}
		}
		return out
	}
	if hasPredefined(o) && e.p.loadPredefined(o) == nil {
		var walk func(items []*object)
		walk = func(items []*object) {
			for _, it := range items {
				c := gen.Caption{RuRU: it.name, EnUS: it.name}
				if it.rare().description != "" {
					c.RuRU = it.rare().description
				}
				out = append(out, gen.ValueChoice{Value: base + "." + it.name, Caption: c})
				walk(it.children)
			}
		}
		walk(o.rare().predef)
	}
	return out
}

var (
	decimalRE  = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
	dateTimeRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$`)
)

// valueChange checks a typed value and rewrites the value element with
// its xsi:type and text.
func (e *editor) valueChange(f *field, c gen.ValueChange) ([]xmledit.Edit, error) {
	allowed := false
	for _, t := range e.valueTypes(f) {
		allowed = allowed || t == c.Type
	}
	if f.row.Domain == "choiceParameter" && !allowed {
		for _, tc := range e.typeChoices() {
			allowed = allowed || tc.Key == c.Type
		}
	}
	if !allowed {
		return nil, invalid(f, "type %q is not one of the field's types", c.Type)
	}
	text, xsiType := c.Value, ""
	switch c.Type {
	case "xs:string":
		if err := checkText(c.Value); err != nil {
			return nil, invalid(f, "%v", err)
		}
		if n := e.qualifier("StringQualifiers", "Length"); f.row.Domain == "" && n > 0 && int64(len([]rune(c.Value))) > n {
			return nil, invalid(f, "%d characters exceed the attribute's length %d", len([]rune(c.Value)), n)
		}
	case "xs:decimal":
		if !decimalRE.MatchString(c.Value) {
			return nil, invalid(f, "%q is not a decimal number", c.Value)
		}
		if f.row.Domain == "" {
			if err := e.fitsNumber(c.Value); err != nil {
				return nil, invalid(f, "%v", err)
			}
		}
	case "xs:boolean":
		if c.Value != "true" && c.Value != "false" {
			return nil, invalid(f, "%q is not true or false", c.Value)
		}
	case "xs:dateTime":
		if _, err := time.Parse("2006-01-02T15:04:05", c.Value); err != nil || !dateTimeRE.MatchString(c.Value) {
			return nil, invalid(f, "%q is not a date written YYYY-MM-DDThh:mm:ss", c.Value)
		}
	default:
		ok := false
		for _, vc := range e.valueChoices(c.Type) {
			ok = ok || vc.Value == c.Value
		}
		if !ok {
			return nil, invalid(f, "%q is not one of the values metadata/propertyValueChoices lists for %s", c.Value, c.Type)
		}
		xr, err := e.prefix(designer.NamespaceReadable)
		if err != nil {
			return nil, invalid(f, "%v", err)
		}
		xsiType = xr + ":DesignTimeRef"
	}
	if xsiType == "" {
		var err error
		if xsiType, err = e.qname(c.Type); err != nil {
			return nil, invalid(f, "%v", err)
		}
	}
	xsi, err := e.prefix(designer.NamespaceXSI)
	if err != nil {
		return nil, invalid(f, "%v", err)
	}
	tag, err := xmledit.StartTag(e.data, f.el)
	if err != nil {
		return nil, err
	}
	head := "<" + tag.Name + " " + xsi + `:type="` + xmledit.EscapeAttr(xsiType, '"') + `"`
	var out string
	if text == "" {
		out = head + "/>"
	} else {
		out = head + ">" + xmledit.EscapeText(text) + "</" + tag.Name + ">"
	}
	return []xmledit.Edit{{Start: f.el.Start, End: f.el.End, Text: out}}, nil
}

// qualifier reads a number of the attribute's type qualifiers; 0 when
// absent.
func (e *editor) qualifier(group, name string) int64 {
	t := e.props.Child("Type")
	if t == nil || t.Child(group) == nil || t.Child(group).Child(name) == nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(t.Child(group).Child(name).Text), 10, 64)
	return n
}

// fitsNumber checks a fill value against the attribute's digits,
// fraction digits and sign.
func (e *editor) fitsNumber(v string) error {
	digits, frac := e.qualifier("NumberQualifiers", "Digits"), e.qualifier("NumberQualifiers", "FractionDigits")
	t := e.props.Child("Type")
	if t != nil && t.Child("NumberQualifiers") != nil && t.Child("NumberQualifiers").Child("AllowedSign") != nil &&
		strings.TrimSpace(t.Child("NumberQualifiers").Child("AllowedSign").Text) == "Nonnegative" && strings.HasPrefix(v, "-") {
		return fmt.Errorf("%s is negative; the attribute allows no sign", v)
	}
	whole, fraction, _ := strings.Cut(strings.TrimPrefix(v, "-"), ".")
	whole = strings.TrimLeft(whole, "0")
	fraction = strings.TrimRight(fraction, "0")
	if digits > 0 && (int64(len(whole)) > digits-frac || int64(len(fraction)) > frac) {
		return fmt.Errorf("%s does not fit %d digits with %d after the point", v, digits, frac)
	}
	return nil
}
