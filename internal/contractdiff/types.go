package contractdiff

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/contractkit/contractkit/internal/spec"
)

func (c *comparer) types() {
	// References compare by current name: a type that keeps its id but
	// changes its name is still the same type wherever it is used.
	cur := map[string]*spec.Type{}
	for _, t := range c.cur.Types {
		cur[t.ID] = t
	}
	for _, t := range c.base.Types {
		if a := cur[t.ID]; a != nil {
			c.names[t.Name] = a.Name
		}
	}
	run(c, section[*spec.Type]{
		removed: RuleTypeRemoved,
		list:    func(d *spec.Domain) []*spec.Type { return d.Types },
		view: func(c *comparer, t *spec.Type) element {
			return element{
				id: t.ID, ptr: t.Ptr, container: "/types", stab: t.Stability,
				signature: string(t.Kind) + " " + t.Name, name: "type " + t.Name,
			}
		},
		content: func(t *spec.Type) string { return canonical(t, "id", "name", "symbol") },
		compare: (*comparer).typeDef,
		renamed: func(c *comparer, b, a *spec.Type) { c.names[b.Name] = a.Name },
	})
}

func (c *comparer) typeDef(b, a *spec.Type) {
	dir := c.typeDir(a.ID)
	w := where{target: a.ID, ptr: a.Ptr, stab: b.Stability, name: a.Name}
	header := c.base.Header
	cheader := c.cur.Header
	c.meta(w, meta{b.Stability, b.Since, b.Capability}, meta{a.Stability, a.Since, a.Capability},
		&[2]meta{{header.Stability, header.Since, ""}, {cheader.Stability, cheader.Since, ""}})
	c.text(w, "title", b.Title, a.Title)
	c.text(w, "description", b.Description, a.Description)
	c.goName(w.at("symbol"), b.GoName(), a.GoName())
	if be, ae := canonical(b.Examples), canonical(a.Examples); be != ae {
		c.add(RuleExamplesChanged, w.at("examples"), 0, be, ae, "the examples of type %s changed", a.Name)
	}
	if b.Kind != a.Kind {
		c.typeChanged(w.at("kind"), dir, string(b.Kind), string(a.Kind))
		return
	}
	parent := &[2]meta{{b.Stability, b.Since, ""}, {a.Stability, a.Since, ""}}
	switch a.Kind {
	case spec.ObjectKind:
		c.object(w, b, a, dir, parent)
	case spec.EnumKind:
		c.enum(w, b, a, dir, parent)
	case spec.UnionKind:
		c.union(w, b, a, dir, parent)
	case spec.AliasKind:
		if !c.typeChanged(w.at("type"), dir, c.typeRef(*b.Type), a.Type.String()) {
			c.constraints(w, b.Constraints, a.Constraints, dir)
		}
	case spec.AlternativesKind:
		c.alternatives(w, b, a, dir)
	}
}

// unknownOrder ranks additionalFields by how much of an unknown member
// the receiver keeps.
var unknownOrder = map[string]int{"reject": 0, "ignore": 1, "keep": 2}

func (c *comparer) object(w where, b, a *spec.Type, dir Direction, parent *[2]meta) {
	if b.AdditionalFields != a.AdditionalFields {
		s := widens
		if unknownOrder[a.AdditionalFields] < unknownOrder[b.AdditionalFields] {
			s = narrows
		}
		// How a server-sent type treats unknown members is the client's
		// business: changing it never breaks what servers send.
		c.judge(w.at("additionalFields"), dir, s, RuleUnknownFieldsNarrowed, "",
			quote(b.AdditionalFields), quote(a.AdditionalFields),
			fmt.Sprintf("additionalFields of %s changed from %s to %s", a.Name, b.AdditionalFields, a.AdditionalFields))
	}
	if bs, as := sortedCopy(b.ExactlyOneOf), sortedCopy(a.ExactlyOneOf); strings.Join(bs, ",") != strings.Join(as, ",") {
		s := replaces
		switch {
		case len(bs) == 0:
			s = narrows
		case len(as) == 0:
			s = widens
		}
		c.judge(w.at("exactlyOneOf"), dir, s, RuleExactlyOneOfChanged, RuleExactlyOneOfChanged,
			canonical(bs), canonical(as), fmt.Sprintf("exactlyOneOf of %s changed from %v to %v", a.Name, bs, as))
	}
	bf := map[string]*spec.Field{}
	for _, f := range b.Fields {
		bf[f.Name] = f
	}
	af := map[string]*spec.Field{}
	for _, f := range a.Fields {
		af[f.Name] = f
	}
	for _, f := range b.Fields {
		if af[f.Name] != nil {
			continue
		}
		fw := where{target: w.target + "/fields/" + escape(f.Name), ptr: a.Ptr + "/fields", stab: f.Stability, name: a.Name + "." + f.Name}
		c.add(RuleFieldRemoved, fw, dir, fieldSignature(f, c.typeRef(f.Type)), "", "field %s was removed; %s", fw.name, dir.phrase())
	}
	for _, f := range a.Fields {
		if bf[f.Name] != nil {
			continue
		}
		fw := where{target: w.target + "/fields/" + escape(f.Name), ptr: f.Ptr, name: a.Name + "." + f.Name}
		sig := fieldSignature(f, f.Type.String())
		switch {
		case f.Required && dir&ClientSent != 0:
			c.add(RuleRequiredFieldAdded, fw, dir, "", sig, "required field %s was added; %s", fw.name, dir.phrase())
		case dir&ServerSent != 0 && b.AdditionalFields == "reject":
			c.add(RuleClosedTypeFieldAdded, fw, dir, "", sig, "field %s was added to a type whose receivers reject unknown members; %s", fw.name, dir.phrase())
		default:
			c.add(RuleFieldAdded, fw, dir, "", sig, "field %s was added; %s", fw.name, dir.phrase())
		}
	}
	for _, f := range a.Fields {
		if o := bf[f.Name]; o != nil {
			c.field(w, o, f, a, dir, parent)
		}
	}
}

func fieldSignature(f *spec.Field, typ string) string {
	return canonical(map[string]any{"name": f.Name, "type": typ, "required": f.Required, "nullable": f.Nullable})
}

func sortedCopy(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

func (c *comparer) field(tw where, b, a *spec.Field, owner *spec.Type, dir Direction, parent *[2]meta) {
	w := where{target: tw.target + "/fields/" + escape(a.Name), ptr: a.Ptr, stab: b.Stability, name: owner.Name + "." + a.Name}
	c.meta(w, meta{b.Stability, b.Since, b.Capability}, meta{a.Stability, a.Since, a.Capability}, parent)
	c.text(w, "description", b.Description, a.Description)
	c.goName(w.at("symbol"), b.GoName(), a.GoName())
	if b.ID != "" && a.ID != "" {
		// The texts of a rule a field carries come and go with its id.
		c.textPtr(w, "title", b.Title, a.Title)
		c.textPtr(w, "requirement", b.Requirement, a.Requirement)
		c.textPtr(w, "rationale", b.Rationale, a.Rationale)
	}
	switch {
	case b.ID == a.ID:
	case b.ID != "" && a.ID != "":
		c.add(RuleIDRenamed, where{target: b.ID, ptr: a.Ptr + "/id", stab: b.Stability, name: w.name}, 0, quote(b.ID), quote(a.ID), "%s was renamed to %s", b.ID, a.ID)
	case b.ID != "":
		c.add(RuleRuleRemoved, where{target: b.ID, ptr: a.Ptr, stab: b.Stability, name: w.name}, 0, quote(b.ID), "", "field %s no longer carries rule %s", w.name, b.ID)
	default:
		c.add(RuleEntryAdded, where{target: a.ID, ptr: a.Ptr + "/id", name: w.name}, 0, "", quote(a.ID), "field %s now carries rule %s", w.name, a.ID)
	}
	if c.typeChanged(w.at("type"), dir, c.typeRef(b.Type), a.Type.String()) {
		return
	}
	if b.Required != a.Required {
		s, what := narrows, "became required"
		if !a.Required {
			s, what = widens, "became optional"
		}
		c.judge(w.at("required"), dir, s, RuleFieldNowRequired, RuleFieldNowOptional,
			strconv.FormatBool(b.Required), strconv.FormatBool(a.Required), "field "+w.name+" "+what)
	}
	if b.Nullable != a.Nullable {
		s, what := narrows, "no longer accepts null"
		if a.Nullable {
			s, what = widens, "may now be null"
		}
		c.judge(w.at("nullable"), dir, s, RuleNullableRemoved, RuleNullableAdded,
			strconv.FormatBool(b.Nullable), strconv.FormatBool(a.Nullable), "field "+w.name+" "+what)
	}
	if bd, ad := canonicalRaw(b.Default), canonicalRaw(a.Default); bd != ad {
		c.add(RuleDefaultChanged, w.at("default"), dir, bd, ad, "the default of %s changed from %s to %s", w.name, orNone(bd), orNone(ad))
	}
	c.constraints(w, b.Constraints, a.Constraints, dir)
}

func (c *comparer) enum(w where, b, a *spec.Type, dir Direction, parent *[2]meta) {
	if b.Base != a.Base {
		c.typeChanged(w.at("base"), dir, b.Base, a.Base)
		return
	}
	key := func(v *spec.EnumValue) string { return canonicalRaw(v.Value) }
	bv := map[string]*spec.EnumValue{}
	for _, v := range b.Values {
		bv[key(v)] = v
	}
	av := map[string]*spec.EnumValue{}
	for _, v := range a.Values {
		av[key(v)] = v
	}
	for _, v := range b.Values {
		if av[key(v)] == nil {
			vw := where{target: w.target + "/values/" + escape(v.String()), ptr: a.Ptr + "/values", stab: v.Stability, name: a.Name}
			c.judge(vw, dir, narrows, RuleEnumValueRemoved, RuleEnumValueAdded, key(v), "",
				fmt.Sprintf("value %s was removed from enum %s", key(v), a.Name))
		}
	}
	for _, v := range a.Values {
		if bv[key(v)] == nil {
			vw := where{target: w.target + "/values/" + escape(v.String()), ptr: v.Ptr, name: a.Name}
			c.judge(vw, dir, widens, RuleEnumValueRemoved, RuleEnumValueAdded, "", key(v),
				fmt.Sprintf("value %s was added to enum %s", key(v), a.Name))
		}
	}
	for _, v := range a.Values {
		o := bv[key(v)]
		if o == nil {
			continue
		}
		vw := where{target: w.target + "/values/" + escape(v.String()), ptr: v.Ptr, stab: o.Stability, name: a.Name + " value " + key(v)}
		c.meta(vw, meta{o.Stability, o.Since, o.Capability}, meta{v.Stability, v.Since, v.Capability}, parent)
		c.text(vw, "description", o.Description, v.Description)
		c.goName(vw.at("symbol"), o.GoName(b), v.GoName(a))
	}
}

func (c *comparer) union(w where, b, a *spec.Type, dir Direction, parent *[2]meta) {
	if b.Tag != a.Tag {
		c.typeChanged(w.at("tag"), dir, b.Tag, a.Tag)
		return
	}
	bv := map[string]*spec.Variant{}
	for _, v := range b.Variants {
		bv[v.Tag] = v
	}
	av := map[string]*spec.Variant{}
	for _, v := range a.Variants {
		av[v.Tag] = v
	}
	for _, v := range b.Variants {
		if av[v.Tag] == nil {
			vw := where{target: w.target + "/variants/" + escape(v.Tag), ptr: a.Ptr + "/variants", stab: v.Stability, name: a.Name}
			c.judge(vw, dir, narrows, RuleVariantRemoved, RuleVariantAdded, quote(v.Tag), "",
				fmt.Sprintf("variant %s was removed from union %s", v.Tag, a.Name))
		}
	}
	for _, v := range a.Variants {
		if bv[v.Tag] == nil {
			vw := where{target: w.target + "/variants/" + escape(v.Tag), ptr: v.Ptr, name: a.Name}
			c.judge(vw, dir, widens, RuleVariantRemoved, RuleVariantAdded, "", quote(v.Tag),
				fmt.Sprintf("variant %s was added to union %s", v.Tag, a.Name))
		}
	}
	for _, v := range a.Variants {
		o := bv[v.Tag]
		if o == nil {
			continue
		}
		vw := where{target: w.target + "/variants/" + escape(v.Tag), ptr: v.Ptr, stab: o.Stability, name: a.Name + " variant " + v.Tag}
		c.meta(vw, meta{o.Stability, o.Since, o.Capability}, meta{v.Stability, v.Since, v.Capability}, parent)
		c.text(vw, "description", o.Description, v.Description)
		if o.Type == "" && v.Type == "" {
			// A variant with an object type has that type's Go name,
			// which is compared with the type.
			c.goName(vw.at("symbol"), o.GoName(b), v.GoName(a))
		}
		bt := ""
		if o.Type != "" {
			bt = c.typeName(o.Type)
		}
		c.typeChanged(vw.at("type"), dir, bt, v.Type)
	}
}

func (c *comparer) alternatives(w where, b, a *spec.Type, dir Direction) {
	bv := map[string]*spec.Alternative{}
	for _, v := range b.Alternatives {
		bv[v.Type] = v
	}
	av := map[string]*spec.Alternative{}
	for _, v := range a.Alternatives {
		av[v.Type] = v
	}
	for _, v := range b.Alternatives {
		if av[v.Type] == nil {
			vw := where{target: w.target + "/alternatives/" + escape(v.Type), ptr: a.Ptr + "/alternatives", stab: b.Stability, name: a.Name}
			c.judge(vw, dir, narrows, RuleVariantRemoved, RuleVariantAdded, quote(v.Type), "",
				fmt.Sprintf("alternative %s was removed from %s", v.Type, a.Name))
		}
	}
	for i, v := range a.Alternatives {
		if bv[v.Type] == nil {
			vw := where{target: w.target + "/alternatives/" + escape(v.Type), ptr: a.Ptr + "/alternatives/" + strconv.Itoa(i), name: a.Name}
			c.judge(vw, dir, widens, RuleVariantRemoved, RuleVariantAdded, "", quote(v.Type),
				fmt.Sprintf("alternative %s was added to %s", v.Type, a.Name))
		}
	}
	for i, v := range a.Alternatives {
		if o := bv[v.Type]; o != nil {
			vw := where{target: w.target + "/alternatives/" + escape(v.Type), ptr: a.Ptr + "/alternatives/" + strconv.Itoa(i), stab: b.Stability, name: a.Name + " alternative " + v.Type}
			c.constraints(vw, o.Constraints, v.Constraints, dir)
		}
	}
}

// constraints compares the constraints of one value. Each constraint is a
// bound on the set of valid values: tightening it narrows the set,
// loosening it widens the set, and judge decides what that means for the
// side that sends the value.
func (c *comparer) constraints(w where, b, a *spec.Constraints, dir Direction) {
	if b == nil {
		b = &spec.Constraints{}
	}
	if a == nil {
		a = &spec.Constraints{}
	}
	cw := func(name string) where {
		x := w.at("constraints").at(name)
		return x
	}
	// maxLength: lower is narrower; absent is the widest.
	if s, ok := upperShift(intRat(b.MaxLength), intRat(a.MaxLength)); ok {
		c.judge(cw("maxLength"), dir, s, RuleMaxLengthLowered, RuleBoundWidened, intJSON(b.MaxLength), intJSON(a.MaxLength),
			describe("maxLength", w.name, intJSON(b.MaxLength), intJSON(a.MaxLength)))
	}
	if s, ok := lowerShift(intRat(b.MinLength), intRat(a.MinLength)); ok {
		c.judge(cw("minLength"), dir, s, RuleMinLengthRaised, RuleBoundWidened, intJSON(b.MinLength), intJSON(a.MinLength),
			describe("minLength", w.name, intJSON(b.MinLength), intJSON(a.MinLength)))
	}
	if b.Pattern != a.Pattern {
		s := replaces
		switch {
		case b.Pattern == "":
			s = narrows
		case a.Pattern == "":
			s = widens
		}
		bp, ap := strOrEmpty(b.Pattern), strOrEmpty(a.Pattern)
		c.judge(cw("pattern"), dir, s, RulePatternChanged, RuleBoundWidened, bp, ap, describe("pattern", w.name, bp, ap))
	}
	if !sameConstant(b.Minimum, a.Minimum) {
		if s, ok := lowerShift(boundRat(b.Minimum), boundRat(a.Minimum)); ok {
			c.judge(cw("minimum"), dir, s, RuleMinimumRaised, RuleBoundWidened, boundJSON(b.Minimum), boundJSON(a.Minimum),
				describe("minimum", w.name, boundJSON(b.Minimum), boundJSON(a.Minimum)))
		}
	}
	if !sameConstant(b.Maximum, a.Maximum) {
		if s, ok := upperShift(boundRat(b.Maximum), boundRat(a.Maximum)); ok {
			c.judge(cw("maximum"), dir, s, RuleMaximumLowered, RuleBoundWidened, boundJSON(b.Maximum), boundJSON(a.Maximum),
				describe("maximum", w.name, boundJSON(b.Maximum), boundJSON(a.Maximum)))
		}
	}
	if s, ok := lowerShift(intRat(b.MinItems), intRat(a.MinItems)); ok {
		c.judge(cw("minItems"), dir, s, RuleItemBoundsNarrowed, RuleBoundWidened, intJSON(b.MinItems), intJSON(a.MinItems),
			describe("minItems", w.name, intJSON(b.MinItems), intJSON(a.MinItems)))
	}
	if s, ok := upperShift(intRat(b.MaxItems), intRat(a.MaxItems)); ok {
		c.judge(cw("maxItems"), dir, s, RuleItemBoundsNarrowed, RuleBoundWidened, intJSON(b.MaxItems), intJSON(a.MaxItems),
			describe("maxItems", w.name, intJSON(b.MaxItems), intJSON(a.MaxItems)))
	}
	if bc, ac := canonicalRaw(b.Const), canonicalRaw(a.Const); bc != ac {
		s := replaces
		switch {
		case bc == "":
			s = narrows
		case ac == "":
			s = widens
		}
		c.judge(cw("const"), dir, s, RuleConstChanged, RuleConstChanged, bc, ac, describe("const", w.name, bc, ac))
	}
	if b.Clamp != a.Clamp {
		s := narrows
		if a.Clamp {
			s = widens
		}
		c.judge(cw("clamp"), dir, s, RuleClampRemoved, RuleBoundWidened, strconv.FormatBool(b.Clamp), strconv.FormatBool(a.Clamp),
			describe("clamp", w.name, strconv.FormatBool(b.Clamp), strconv.FormatBool(a.Clamp)))
	}
}

// describe says how a constraint changed, for a message.
func describe(what, name, before, after string) string {
	switch {
	case before == "":
		return fmt.Sprintf("%s %s was added to %s", what, after, name)
	case after == "":
		return fmt.Sprintf("%s %s was removed from %s", what, before, name)
	}
	return fmt.Sprintf("%s of %s changed from %s to %s", what, name, before, after)
}

// upperShift classifies a change of an upper bound (nil is unbounded).
func upperShift(b, a *big.Rat) (shift, bool) {
	switch {
	case b == nil && a == nil:
		return 0, false
	case b == nil:
		return narrows, true
	case a == nil:
		return widens, true
	}
	switch a.Cmp(b) {
	case -1:
		return narrows, true
	case 1:
		return widens, true
	}
	return 0, false
}

// lowerShift classifies a change of a lower bound (nil is unbounded).
func lowerShift(b, a *big.Rat) (shift, bool) {
	switch {
	case b == nil && a == nil:
		return 0, false
	case b == nil:
		return narrows, true
	case a == nil:
		return widens, true
	}
	switch a.Cmp(b) {
	case 1:
		return narrows, true
	case -1:
		return widens, true
	}
	return 0, false
}

func intRat(p *int64) *big.Rat {
	if p == nil {
		return nil
	}
	return big.NewRat(*p, 1)
}

func intJSON(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

func strOrEmpty(s string) string {
	if s == "" {
		return ""
	}
	return quote(s)
}

// boundRat is the value of a bound, through its constant if it names one.
func boundRat(b *spec.Bound) *big.Rat {
	if b == nil {
		return nil
	}
	v := b.Value
	if v == "" {
		v = b.Literal
	}
	r, ok := new(big.Rat).SetString(string(v))
	if !ok {
		return nil
	}
	return r
}

func boundJSON(b *spec.Bound) string {
	if b == nil {
		return ""
	}
	if b.Value != "" {
		return string(b.Value)
	}
	return string(b.Literal)
}

// sameConstant reports whether both bounds name the same constant: a
// change of its value is reported once, on the constant.
func sameConstant(b, a *spec.Bound) bool {
	return b != nil && a != nil && b.Constant != "" && b.Constant == a.Constant
}

// jsonNumber reports whether raw is a JSON number, and its value.
func jsonNumber(raw json.RawMessage) (*big.Rat, bool) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s[0] == '"' {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}
