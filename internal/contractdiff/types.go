package contractdiff

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/contractkit/contractkit/internal/contractdiff/witness"
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
	w := where{target: a.ID, ptr: a.Ptr, stab: b.Stability, name: a.Name, typ: a.ID}
	header := c.base.Header
	cheader := c.cur.Header
	c.meta(w, meta{b.Stability, b.Since, b.Capability}, meta{a.Stability, a.Since, a.Capability},
		&[2]meta{{header.Stability, header.Since, ""}, {cheader.Stability, cheader.Since, ""}})
	c.text(w, "title", b.Title, a.Title)
	c.text(w, "description", b.Description, a.Description)
	c.goName(w.at("symbol"), b.GoName(), a.GoName())
	if sameExamples(b.Examples, a.Examples) {
		// The usual case, found without canonicalising.
	} else if be, ae := canonical(b.Examples), canonical(a.Examples); be != ae {
		c.add(RuleExamplesChanged, w.at("examples"), 0, be, ae, "the examples of type %s changed", a.Name)
	}
	if b.Kind != a.Kind {
		c.valueTypeChanged(w.at("kind"), dir, string(b.Kind), string(a.Kind), witness.Probe{Type: a.ID, Op: witness.OpType})
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
		if !c.valueTypeShift(w.at("type"), dir, typeShift(b.Type, a.Type), c.typeRef(*b.Type), a.Type.String(), witness.Probe{Type: a.ID, Op: witness.OpType}) {
			c.constraints(w, b.Constraints, a.Constraints, dir, witness.Probe{Type: a.ID})
		}
	case spec.AlternativesKind:
		c.alternatives(w, b, a, dir)
	}
}

// valueTypeChanged reports a changed type of a value: the values of the
// old type are rejected and those of the new one were not allowed, so it
// is judged as both a narrowing and a widening.
func (c *comparer) valueTypeChanged(w where, dir Direction, before, after string, p witness.Probe) bool {
	return c.valueTypeShift(w, dir, replaces, before, after, p)
}

// valueTypeShift is valueTypeChanged for a change whose shift is known:
// a string that becomes a closed enum only narrows what is valid, an
// integer that becomes a number only widens it.
func (c *comparer) valueTypeShift(w where, dir Direction, s shift, before, after string, p witness.Probe) bool {
	if before == after {
		return false
	}
	what := map[shift]string{narrows: " (narrower)", widens: " (wider)", 0: " (the same values)"}[s]
	if p.Op == witness.OpType {
		p.Values = append(p.Values, typeWitnessValues...)
	}
	c.judge(w, dir, s, RuleTypeChanged, RuleTypeChanged, quote(before), quote(after),
		fmt.Sprintf("the type of %s changed from %s to %s%s", w.name, orNone(before), orNone(after), what), p)
	return true
}

// typeShift classifies a change of a type expression by the values it
// allows, coarsely: the JSON base of each side, and whether a side allows
// only some values of its base (an enum, an alias with constraints, an
// object type). Anything it cannot order replaces.
func typeShift(b, a *spec.TypeRef) shift {
	switch {
	case b.Array != nil && a.Array != nil:
		return typeShift(b.Array, a.Array)
	case b.Map != nil && a.Map != nil:
		return typeShift(b.Map, a.Map)
	}
	bb, br := valueBase(b)
	ab, ar := valueBase(a)
	switch {
	case bb == "" || ab == "":
		return replaces
	case bb == ab && ab == spec.TAny:
		return 0
	case ab == spec.TAny:
		return widens
	case bb == spec.TAny:
		return narrows
	case bb == ab:
		switch {
		case !br && !ar:
			return 0
		case !br:
			return narrows
		case !ar:
			return widens
		}
	case bb == spec.TNumber && ab == spec.TInteger && !br:
		return narrows
	case bb == spec.TInteger && ab == spec.TNumber && !ar:
		return widens
	}
	return replaces
}

// valueBase returns the JSON base of a type expression ("string",
// "integer", "number", "boolean", "object", "array", "any"; "" when it
// cannot tell) and whether it allows only some values of that base.
func valueBase(r *spec.TypeRef) (string, bool) {
	switch {
	case r.Array != nil:
		return "array", true
	case r.Map != nil:
		return spec.TObject, true
	}
	switch r.Name {
	case spec.TString, spec.TInteger, spec.TNumber, spec.TBoolean, spec.TAny, spec.TObject:
		return r.Name, false
	case spec.TDecimalU64:
		return spec.TString, true
	}
	t := r.Named
	if t == nil {
		return "", false
	}
	switch t.Kind {
	case spec.EnumKind:
		if t.Base == "integer" {
			return spec.TInteger, true
		}
		return spec.TString, true
	case spec.ObjectKind, spec.UnionKind:
		return spec.TObject, true
	case spec.AliasKind:
		if t.Type == nil {
			return "", false
		}
		base, restricted := valueBase(t.Type)
		return base, restricted || t.Constraints != nil
	}
	return "", false
}

// unknownOrder ranks additionalFields by how much of an unknown member
// the receiver keeps.
var unknownOrder = map[string]int{"reject": 0, "ignore": 1, "keep": 2}

// own reports whether a field is declared by t itself rather than
// included from another type: a change of an included field is reported
// once, at the type that declares it.
func own(f *spec.Field, t *spec.Type) bool { return f.Owner == t }

// includes reports whether t includes the type that declares f, by its
// current name.
func (c *comparer) includes(t *spec.Type, f *spec.Field, baseline bool) bool {
	name := f.Owner.Name
	if baseline {
		name = c.typeName(name)
	}
	for _, n := range t.Include {
		if baseline {
			n = c.typeName(n)
		}
		if n == name {
			return true
		}
	}
	return false
}

func (c *comparer) object(w where, b, a *spec.Type, dir Direction, parent *[2]meta) {
	if b.AdditionalFields != a.AdditionalFields {
		bo, ao := unknownOrder[b.AdditionalFields], unknownOrder[a.AdditionalFields]
		var s shift
		switch {
		case bo == 0:
			s = widens // an unknown member is no longer rejected
		case ao == 0:
			s = narrows // an unknown member is now rejected
		}
		c.judge(w.at("additionalFields"), dir, s, RuleUnknownFieldsNarrowed, RuleUnknownFieldsWidened,
			quote(b.AdditionalFields), quote(a.AdditionalFields),
			fmt.Sprintf("additionalFields of %s changed from %s to %s", a.Name, b.AdditionalFields, a.AdditionalFields),
			witness.Probe{Type: a.ID, Op: witness.OpUnknown})
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
			canonical(bs), canonical(as), fmt.Sprintf("exactlyOneOf of %s changed from %v to %v", a.Name, bs, as),
			witness.Probe{Type: a.ID, Op: witness.OpExactly, Fields: union(bs, as)})
	}
	bf := map[string]*spec.Field{}
	for _, f := range b.Fields {
		bf[f.Name] = f
	}
	af := map[string]*spec.Field{}
	for _, f := range a.Fields {
		af[f.Name] = f
	}
	// A member that comes or goes with an include that stays is reported
	// at the included type; one that comes or goes with the include list
	// is reported here.
	var gone, added []*spec.Field
	for _, f := range b.Fields {
		if af[f.Name] == nil && (own(f, b) || !c.includes(a, f, true)) {
			gone = append(gone, f)
		}
	}
	for _, f := range a.Fields {
		if bf[f.Name] == nil && (own(f, a) || !c.includes(b, f, false)) {
			added = append(added, f)
		}
	}
	gone, added = c.fieldRenames(w, b, a, dir, gone, added)
	for _, f := range gone {
		c.fieldRemoved(w, b, a, f, dir)
	}
	for _, f := range added {
		c.fieldAdded(w, b, a, f, dir)
	}
	for _, f := range a.Fields {
		o := bf[f.Name]
		if o == nil || (!own(o, b) && !own(f, a)) {
			continue
		}
		c.field(w, o, f, a, dir, parent)
	}
}

func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range append(append([]string{}, a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// removalShift is what removing member f from an object does to its
// values: with receivers that reject unknown members, a value that still
// carries it is rejected (narrows); a required member may now be missing
// (widens).
func removalShift(f *spec.Field, after *spec.Type) shift {
	var s shift
	if after.AdditionalFields == "reject" {
		s |= narrows
	}
	if f.Required {
		s |= widens
	}
	return s
}

// additionShift is what adding member f does: a required member rejects
// values without it (narrows); receivers that rejected unknown members
// meet a member they did not know (widens).
func additionShift(f *spec.Field, before *spec.Type) shift {
	var s shift
	if f.Required {
		s |= narrows
	}
	if before.AdditionalFields == "reject" {
		s |= widens
	}
	return s
}

// presenceProbe picks the probe of a member that comes or goes: the
// member present shows what it is now rejected for or newly accepted
// with, the member absent what is now missing or newly allowed.
func (c *comparer) presenceProbe(t *spec.Type, name string, s shift, dir Direction, present witness.Side, presentWant witness.Want) witness.Probe {
	member := witness.Probe{Type: t.ID, Field: name, Op: witness.OpMember, Side: present}
	omit := witness.Probe{Type: t.ID, Field: name, Op: witness.OpOmit}
	narrowBy, widenBy := member, omit
	if presentWant == witness.Widens {
		narrowBy, widenBy = omit, member
	}
	switch {
	case s == 0:
		member.Want = witness.Same
		return member
	case s&narrows != 0 && c.sides.narrowingBreaks(dir):
		narrowBy.Want = witness.Narrows
		return narrowBy
	case s&widens != 0 && c.sides.wideningBreaks(dir):
		widenBy.Want = witness.Widens
		return widenBy
	case s&narrows != 0:
		narrowBy.Want = witness.Narrows
		return narrowBy
	}
	widenBy.Want = witness.Widens
	return widenBy
}

// verdict picks the rule of a shift: narrowRule when a narrowing breaks,
// widenRule when a widening breaks, otherwise compatible (or tolerated,
// for a change both revisions accept alike).
func (c *comparer) verdict(s shift, dir Direction, narrowRule, widenRule, tolerated string) string {
	switch {
	case s == 0:
		return tolerated
	case s&narrows != 0 && c.sides.narrowingBreaks(dir):
		return narrowRule
	case s&widens != 0 && c.sides.wideningBreaks(dir):
		return widenRule
	}
	return RuleCompatibleChange
}

func (c *comparer) fieldRemoved(w where, b, a *spec.Type, f *spec.Field, dir Direction) {
	fw := where{target: w.target + "/fields/" + escape(f.Name), ptr: a.Ptr + "/fields", stab: f.Stability,
		name: a.Name + "." + f.Name, typ: a.ID, basePtr: f.Ptr}
	s := removalShift(f, a)
	rule := c.verdict(s, dir, RuleFieldRemoved, RuleFieldRemoved, RuleToleratedRemoval)
	p := c.presenceProbe(a, f.Name, s, dir, witness.Baseline, witness.Narrows)
	why := ""
	switch {
	case s == 0 && c.answeredHere(a.ID) != "":
		rule = RuleRequestMemberIgnored
		why = fmt.Sprintf(" (receivers ignore unknown members, so a request that still carries it is accepted, but %s now ignores it: what old callers asked for with it silently stops shaping the result, a change of meaning)", c.answeredHere(a.ID))
	case s == 0:
		why = " (receivers ignore unknown members, so a value that still carries it is accepted, but what it said is lost)"
	case rule == RuleCompatibleChange:
		// No peer out there is rejected (only senders of the type are
		// implemented here, and the member was optional), but receivers
		// lose what it said.
		rule = RuleToleratedRemoval
		why = " (only its senders are implemented here and it was optional, so no peer is rejected, but receivers lose what it said)"
	}
	c.addProbe(rule, fw, dir, p, fieldSignature(f, c.typeRef(f.Type)), "", "field %s was removed%s; %s", fw.name, why, c.sides.phrase(dir))
	if f.Stability != spec.Deprecated {
		c.add(RuleRemovedWithoutDeprecation, fw, 0, quote(string(f.Stability)), "",
			"field %s was removed without being deprecated first (its stability at the baseline is %s)", fw.name, f.Stability)
	}
	if spec.Reserves(a.Reserved, "", f.Name) == nil {
		c.add(RuleRemovedNotReserved, fw, 0, quote("field "+f.Name), "",
			"field %s was removed but its name is not in the reserved list of %s", fw.name, a.Name)
	}
}

func (c *comparer) fieldAdded(w where, b, a *spec.Type, f *spec.Field, dir Direction) {
	fw := where{target: w.target + "/fields/" + escape(f.Name), ptr: f.Ptr, name: a.Name + "." + f.Name, typ: a.ID}
	s := additionShift(f, b)
	rule := c.verdict(s, dir, RuleRequiredFieldAdded, RuleClosedTypeFieldAdded, RuleFieldAdded)
	if rule == RuleCompatibleChange {
		rule = RuleFieldAdded
	}
	p := c.presenceProbe(a, f.Name, s, dir, witness.Current, witness.Widens)
	note := ""
	if s == 0 && b.AdditionalFields != "reject" && !anyValue(&f.Type) {
		// The baseline accepted the name with any value, as an unknown
		// member; now only values of its type pass. The contract never
		// described the name, so a sender that used it was outside the
		// contract and the addition stays a minor change (the eska seed:
		// adding optional members is minor), but the witness shows the
		// narrowing rather than a value both accept.
		p = witness.Probe{Type: a.ID, Field: f.Name, Op: witness.OpSet, Want: witness.Narrows, Values: foreignValues(&f.Type)}
		note = fmt.Sprintf(" (before, receivers took %s as an unknown member with any value; now a value that is not %s is rejected, which only a sender outside the contract used)", f.Name, f.Type.String())
	}
	c.addProbe(rule, fw, dir, p, "", fieldSignature(f, f.Type.String()), "field %s was added%s%s; %s", fw.name, map[bool]string{true: " as required", false: ""}[f.Required], note, c.sides.phrase(dir))
	if r := spec.Reserves(b.Reserved, "", f.Name); r != nil {
		c.add(RuleReservedReused, fw, 0, quote("reserved field "+f.Name), fieldSignature(f, f.Type.String()),
			"field %s reuses a name reserved since %s: peers built before its removal still give it the old meaning", fw.name, r.Since)
	}
}

// fieldShape is what a member is besides its name and texts.
func fieldShape(c *comparer, f *spec.Field, baseline bool) string {
	typ := f.Type.String()
	if baseline {
		typ = c.typeRef(f.Type)
	}
	return canonical(map[string]any{"type": typ, "required": f.Required, "nullable": f.Nullable,
		"default": json.RawMessage(orNull(f.Default)), "constraints": f.Constraints})
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// fieldRenames pairs a removed and an added member of the same shape into
// one rename, and returns the members left.
func (c *comparer) fieldRenames(w where, b, a *spec.Type, dir Direction, gone, added []*spec.Field) ([]*spec.Field, []*spec.Field) {
	if len(gone) == 0 || len(added) == 0 {
		return gone, added
	}
	var leftGone []*spec.Field
	taken := map[*spec.Field]bool{}
	for _, g := range gone {
		var match *spec.Field
		for _, f := range added {
			if !taken[f] && own(f, a) && own(g, b) && fieldShape(c, f, false) == fieldShape(c, g, true) {
				match = f
				break
			}
		}
		if match == nil {
			leftGone = append(leftGone, g)
			continue
		}
		taken[match] = true
		fw := where{target: w.target + "/fields/" + escape(g.Name), ptr: match.Ptr + "/name", stab: g.Stability,
			name: a.Name + "." + g.Name, typ: a.ID, basePtr: g.Ptr}
		s := removalShift(g, a) | additionShift(match, b)
		rule := c.verdict(s, dir, RuleRenamed, RuleRenamed, RuleToleratedRemoval)
		msg := fmt.Sprintf("field %s was renamed to %s (same type and constraints); %s", fw.name, match.Name, c.sides.phrase(dir))
		if s == 0 {
			// Nothing is rejected, so the old name is simply gone: say it
			// as the removal the rule id names.
			msg = fmt.Sprintf("field %s was removed in favour of %s, of the same type and constraints (receivers ignore unknown members, so a value that still carries the old name is accepted, but what it said is lost); %s",
				fw.name, match.Name, c.sides.phrase(dir))
			if by := c.answeredHere(a.ID); by != "" {
				rule = RuleRequestMemberIgnored
				msg = fmt.Sprintf("field %s was removed in favour of %s, of the same type and constraints: a request that still carries the old name is accepted, but %s now ignores it, so what old callers asked for with it silently stops shaping the result (a change of meaning); %s",
					fw.name, match.Name, by, c.sides.phrase(dir))
			}
		}
		// The old name present shows what old senders send; the new name
		// present shows what new senders send.
		p := witness.Probe{Type: a.ID, Field: g.Name, Op: witness.OpMember, Side: witness.Baseline, Want: witness.Narrows}
		switch {
		case s == 0:
			p.Want = witness.Same
		case rule == RuleRenamed && !(s&narrows != 0 && c.sides.narrowingBreaks(dir)),
			rule == RuleCompatibleChange && s&narrows == 0:
			p = witness.Probe{Type: a.ID, Field: match.Name, Op: witness.OpMember, Side: witness.Current, Want: witness.Widens}
		}
		c.addProbe(rule, fw, dir, p, quote(g.Name), quote(match.Name), "%s", msg)
		if spec.Reserves(a.Reserved, "", g.Name) == nil {
			c.add(RuleRemovedNotReserved, fw, 0, quote("field "+g.Name), "",
				"the old name of field %s was removed by the rename to %s but is not in the reserved list of %s", fw.name, match.Name, a.Name)
		}
	}
	var leftAdded []*spec.Field
	for _, f := range added {
		if !taken[f] {
			leftAdded = append(leftAdded, f)
		}
	}
	return leftGone, leftAdded
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
	w := where{target: tw.target + "/fields/" + escape(a.Name), ptr: a.Ptr, stab: b.Stability, name: owner.Name + "." + a.Name, typ: owner.ID}
	if !own(a, owner) {
		// A member of an included type that the type itself used to
		// declare: judge it where it is declared now.
		w.typ = a.Owner.ID
	}
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
	p := witness.Probe{Type: w.typ, Field: a.Name}
	if c.valueTypeShift(w.at("type"), dir, typeShift(&b.Type, &a.Type), c.typeRef(b.Type), a.Type.String(), with(p, witness.OpType)) {
		return
	}
	// Presence: absent, null and a value are three things. Absent coming
	// or going is requiredness, null coming or going is nullability; a
	// member that swaps one for the other (absent → null) changes both.
	if b.Required != a.Required {
		s, what := narrows, "became required"
		if !a.Required {
			s, what = widens, "became optional (it may be absent)"
		}
		c.judge(w.at("required"), dir, s, RuleFieldNowRequired, RuleFieldNowOptional,
			strconv.FormatBool(b.Required), strconv.FormatBool(a.Required), "field "+w.name+" "+what, with(p, witness.OpOmit))
	}
	if b.Nullable != a.Nullable {
		s, what := narrows, "no longer accepts null"
		if a.Nullable {
			s, what = widens, "may now be null"
		}
		if anyValue(&a.Type) {
			// A member of any JSON value accepts null either way.
			s, what = 0, "changed nullable, which a member of any value does not notice"
		}
		c.judge(w.at("nullable"), dir, s, RuleNullableRemoved, RuleNullableAdded,
			strconv.FormatBool(b.Nullable), strconv.FormatBool(a.Nullable), "field "+w.name+" "+what, with(p, witness.OpNull))
	}
	if bd, ad := canonicalRaw(b.Default), canonicalRaw(a.Default); bd != ad {
		c.add(RuleDefaultChanged, w.at("default"), dir, bd, ad, "the default of %s changed from %s to %s", w.name, orNone(bd), orNone(ad))
	}
	c.constraints(w, b.Constraints, a.Constraints, dir, p)
}

// anyValue reports whether a type expression accepts any JSON value,
// null included.
func anyValue(r *spec.TypeRef) bool {
	if r.Array != nil || r.Map != nil {
		return false
	}
	if r.Named != nil {
		return r.Named.Kind == spec.AliasKind && anyValue(r.Named.Type)
	}
	return r.Name == spec.TAny
}

// with returns p with op set.
func with(p witness.Probe, op witness.Op) witness.Probe {
	p.Op = op
	return p
}

// unknownValue is a value of an enum's base that no spec lists.
func unknownValue(base string) json.RawMessage {
	if base == "integer" {
		return json.RawMessage("987654321")
	}
	return json.RawMessage(`"x-witness-unknown-value"`)
}

func (c *comparer) enum(w where, b, a *spec.Type, dir Direction, parent *[2]meta) {
	if b.Base != a.Base {
		c.valueTypeChanged(w.at("base"), dir, b.Base, a.Base, witness.Probe{Type: a.ID, Op: witness.OpType})
		return
	}
	if b.Open != a.Open {
		s, what := widens, "was opened: receivers now keep a value they do not know"
		if !a.Open {
			s, what = narrows, "was closed: receivers now reject a value they do not know"
		}
		c.judge(w.at("open"), dir, s, RuleOpennessChanged, RuleOpennessChanged, strconv.FormatBool(b.Open), strconv.FormatBool(a.Open),
			"enum "+a.Name+" "+what, witness.Probe{Type: a.ID, Op: witness.OpSet, Values: []json.RawMessage{unknownValue(a.Base)}})
	}
	key := func(v *spec.EnumValue) string { return compactKey(v.Value) }
	bv := map[string]*spec.EnumValue{}
	for _, v := range b.Values {
		bv[key(v)] = v
	}
	av := map[string]*spec.EnumValue{}
	for _, v := range a.Values {
		av[key(v)] = v
	}
	for _, v := range b.Values {
		if av[key(v)] != nil {
			continue
		}
		vw := where{target: w.target + "/values/" + escape(v.String()), ptr: a.Ptr + "/values", stab: v.Stability, name: a.Name, typ: a.ID, basePtr: v.Ptr}
		p := witness.Probe{Type: a.ID, Op: witness.OpSet, Values: []json.RawMessage{v.Value}}
		if a.Open {
			p.Want = witness.Same
			c.addProbe(RuleToleratedRemoval, vw, dir, p, key(v), "",
				"value %s was removed from the open enum %s: receivers keep it as an unknown value, but what it meant is lost; %s", key(v), a.Name, c.sides.phrase(dir))
		} else {
			c.judge(vw, dir, narrows, RuleEnumValueRemoved, RuleEnumValueAdded, key(v), "",
				fmt.Sprintf("value %s was removed from enum %s", key(v), a.Name), p)
		}
		if v.Stability != spec.Deprecated {
			c.add(RuleRemovedWithoutDeprecation, vw, 0, quote(string(v.Stability)), "",
				"value %s of %s was removed without being deprecated first (its stability at the baseline is %s)", key(v), a.Name, v.Stability)
		}
		if spec.Reserves(a.Reserved, "", key(v)) == nil {
			c.add(RuleRemovedNotReserved, vw, 0, quote("value "+key(v)), "", "value %s of %s was removed but is not in its reserved list", key(v), a.Name)
		}
	}
	for _, v := range a.Values {
		if bv[key(v)] != nil {
			continue
		}
		vw := where{target: w.target + "/values/" + escape(v.String()), ptr: v.Ptr, name: a.Name, typ: a.ID}
		p := witness.Probe{Type: a.ID, Op: witness.OpSet, Values: []json.RawMessage{v.Value}}
		if b.Open {
			p.Want = witness.Same
			c.addProbe(RuleCompatibleChange, vw, dir, p, "", key(v),
				"value %s was added to the open enum %s: receivers built from the baseline keep it as an unknown value; %s", key(v), a.Name, c.sides.phrase(dir))
		} else {
			c.judge(vw, dir, widens, RuleEnumValueRemoved, RuleEnumValueAdded, "", key(v),
				fmt.Sprintf("value %s was added to enum %s", key(v), a.Name), p)
		}
		if r := spec.Reserves(b.Reserved, "", key(v)); r != nil {
			c.add(RuleReservedReused, vw, 0, quote("reserved value "+key(v)), key(v),
				"value %s of %s reuses a value reserved since %s: peers built before its removal still give it the old meaning", key(v), a.Name, r.Since)
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
		c.valueTypeChanged(w.at("tag"), dir, b.Tag, a.Tag, witness.Probe{Type: a.ID, Op: witness.OpType})
		return
	}
	if b.Open != a.Open {
		s, what := widens, "was opened: receivers now keep an object whose tag they do not know"
		if !a.Open {
			s, what = narrows, "was closed: receivers now reject an object whose tag they do not know"
		}
		unknown, _ := json.Marshal(map[string]string{a.Tag: "x-witness-unknown-tag"})
		c.judge(w.at("open"), dir, s, RuleOpennessChanged, RuleOpennessChanged, strconv.FormatBool(b.Open), strconv.FormatBool(a.Open),
			"union "+a.Name+" "+what, witness.Probe{Type: a.ID, Op: witness.OpSet, Values: []json.RawMessage{unknown}})
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
		if av[v.Tag] != nil {
			continue
		}
		vw := where{target: w.target + "/variants/" + escape(v.Tag), ptr: a.Ptr + "/variants", stab: v.Stability, name: a.Name, typ: a.ID, basePtr: v.Ptr}
		p := witness.Probe{Type: a.ID, Op: witness.OpVariant, Tag: v.Tag, Side: witness.Baseline}
		if a.Open {
			p.Want = witness.Same
			c.addProbe(RuleToleratedRemoval, vw, dir, p, quote(v.Tag), "",
				"variant %s was removed from the open union %s: receivers keep such an object as unknown, but what it meant is lost; %s", v.Tag, a.Name, c.sides.phrase(dir))
		} else {
			c.judge(vw, dir, narrows, RuleVariantRemoved, RuleVariantAdded, quote(v.Tag), "",
				fmt.Sprintf("variant %s was removed from union %s", v.Tag, a.Name), p)
		}
		if v.Stability != spec.Deprecated {
			c.add(RuleRemovedWithoutDeprecation, vw, 0, quote(string(v.Stability)), "",
				"variant %s of %s was removed without being deprecated first (its stability at the baseline is %s)", v.Tag, a.Name, v.Stability)
		}
		if spec.Reserves(a.Reserved, "", v.Tag) == nil {
			c.add(RuleRemovedNotReserved, vw, 0, quote("tag "+v.Tag), "", "variant %s of %s was removed but its tag is not in the reserved list", v.Tag, a.Name)
		}
	}
	for _, v := range a.Variants {
		if bv[v.Tag] != nil {
			continue
		}
		vw := where{target: w.target + "/variants/" + escape(v.Tag), ptr: v.Ptr, name: a.Name, typ: a.ID}
		p := witness.Probe{Type: a.ID, Op: witness.OpVariant, Tag: v.Tag, Side: witness.Current}
		if b.Open {
			p.Want = witness.Same
			c.addProbe(RuleCompatibleChange, vw, dir, p, "", quote(v.Tag),
				"variant %s was added to the open union %s: receivers built from the baseline keep it as unknown; %s", v.Tag, a.Name, c.sides.phrase(dir))
		} else {
			c.judge(vw, dir, widens, RuleVariantRemoved, RuleVariantAdded, "", quote(v.Tag),
				fmt.Sprintf("variant %s was added to union %s", v.Tag, a.Name), p)
		}
		if r := spec.Reserves(b.Reserved, "", v.Tag); r != nil {
			c.add(RuleReservedReused, vw, 0, quote("reserved tag "+v.Tag), quote(v.Tag),
				"variant %s of %s reuses a tag reserved since %s: peers built before its removal still give it the old meaning", v.Tag, a.Name, r.Since)
		}
	}
	for _, v := range a.Variants {
		o := bv[v.Tag]
		if o == nil {
			continue
		}
		vw := where{target: w.target + "/variants/" + escape(v.Tag), ptr: v.Ptr, stab: o.Stability, name: a.Name + " variant " + v.Tag, typ: a.ID}
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
		c.valueTypeChanged(vw.at("type"), dir, bt, v.Type, witness.Probe{Type: a.ID, Op: witness.OpVariant, Tag: v.Tag, Side: witness.Baseline})
	}
}

// kindValues are values of a JSON kind to try for an alternative.
func kindValues(kind string, k *spec.Constraints) []json.RawMessage {
	var out []json.RawMessage
	if k != nil {
		if k.Minimum != nil && k.Minimum.Value != "" {
			out = append(out, json.RawMessage(k.Minimum.Value))
		}
		if k.Maximum != nil && k.Maximum.Value != "" {
			out = append(out, json.RawMessage(k.Maximum.Value))
		}
		if k.MinLength != nil {
			b, _ := json.Marshal(strings.Repeat("a", int(*k.MinLength)))
			out = append(out, b)
		}
	}
	switch kind {
	case spec.TString:
		out = append(out, json.RawMessage(`"a"`), json.RawMessage(`"0"`), json.RawMessage(`""`))
	case spec.TInteger:
		out = append(out, json.RawMessage(`1`), json.RawMessage(`0`))
	case spec.TNumber:
		out = append(out, json.RawMessage(`0.5`), json.RawMessage(`1`))
	case spec.TBoolean:
		out = append(out, json.RawMessage(`true`), json.RawMessage(`false`))
	}
	return out
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
			vw := where{target: w.target + "/alternatives/" + escape(v.Type), ptr: a.Ptr + "/alternatives", stab: b.Stability, name: a.Name, typ: a.ID}
			c.judge(vw, dir, narrows, RuleVariantRemoved, RuleVariantAdded, quote(v.Type), "",
				fmt.Sprintf("alternative %s was removed from %s", v.Type, a.Name),
				witness.Probe{Type: a.ID, Op: witness.OpSet, Values: kindValues(v.Type, v.Constraints)})
		}
	}
	for i, v := range a.Alternatives {
		if bv[v.Type] == nil {
			vw := where{target: w.target + "/alternatives/" + escape(v.Type), ptr: a.Ptr + "/alternatives/" + strconv.Itoa(i), name: a.Name, typ: a.ID}
			c.judge(vw, dir, widens, RuleVariantRemoved, RuleVariantAdded, "", quote(v.Type),
				fmt.Sprintf("alternative %s was added to %s", v.Type, a.Name),
				witness.Probe{Type: a.ID, Op: witness.OpSet, Values: kindValues(v.Type, v.Constraints)})
		}
	}
	for i, v := range a.Alternatives {
		if o := bv[v.Type]; o != nil {
			vw := where{target: w.target + "/alternatives/" + escape(v.Type), ptr: a.Ptr + "/alternatives/" + strconv.Itoa(i), stab: b.Stability, name: a.Name + " alternative " + v.Type, typ: a.ID}
			c.constraints(vw, o.Constraints, v.Constraints, dir, witness.Probe{Type: a.ID, Tag: v.Type})
		}
	}
}

// constraints compares the constraints of one value. Each constraint is a
// bound on the set of valid values: tightening it narrows the set,
// loosening it widens the set, and judge decides what that means for the
// parties. p names the value (a type, or a member of one) for witnesses.
func (c *comparer) constraints(w where, b, a *spec.Constraints, dir Direction, p witness.Probe) {
	if b == nil {
		b = &spec.Constraints{}
	}
	if a == nil {
		a = &spec.Constraints{}
	}
	cw := func(name string) where { return w.at("constraints").at(name) }
	length := func(counts ...int) witness.Probe {
		q := with(p, witness.OpLength)
		q.Counts = positive(counts)
		return q
	}
	items := func(counts ...int) witness.Probe {
		q := with(p, witness.OpItems)
		q.Counts = positive(counts)
		return q
	}
	// A count bound that names the same limit constant on both sides
	// moves with it: the change is judged once, on the constant.
	count := func(bc, ac string, bv, av *int64) (*int64, *int64) {
		if bc != "" && bc == ac {
			return nil, nil
		}
		return bv, av
	}
	bMaxLen, aMaxLen := count(b.MaxLengthConstant, a.MaxLengthConstant, b.MaxLength, a.MaxLength)
	bMinLen, aMinLen := count(b.MinLengthConstant, a.MinLengthConstant, b.MinLength, a.MinLength)
	bMinItems, aMinItems := count(b.MinItemsConstant, a.MinItemsConstant, b.MinItems, a.MinItems)
	bMaxItems, aMaxItems := count(b.MaxItemsConstant, a.MaxItemsConstant, b.MaxItems, a.MaxItems)
	// maxLength: lower is narrower; absent is the widest.
	if s, ok := upperShift(intRat(bMaxLen), intRat(aMaxLen)); ok {
		c.judge(cw("maxLength"), dir, s, RuleMaxLengthLowered, RuleBoundWidened, intJSON(bMaxLen), intJSON(aMaxLen),
			describe("maxLength", w.name, intJSON(bMaxLen), intJSON(aMaxLen)), length(aboveCounts(bMaxLen, aMaxLen)...))
	}
	if s, ok := lowerShift(intRat(bMinLen), intRat(aMinLen)); ok {
		c.judge(cw("minLength"), dir, s, RuleMinLengthRaised, RuleBoundWidened, intJSON(bMinLen), intJSON(aMinLen),
			describe("minLength", w.name, intJSON(bMinLen), intJSON(aMinLen)), length(belowCounts(bMinLen, aMinLen)...))
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
		c.judge(cw("pattern"), dir, s, RulePatternChanged, RuleBoundWidened, bp, ap, describe("pattern", w.name, bp, ap), with(p, witness.OpPattern))
	}
	// A clamped value is never rejected for its range: a receiver moves it
	// into the range. Its bounds change what is done with a value, not
	// which values are accepted.
	clamped := b.Clamp && a.Clamp
	numeric := func(s shift) shift {
		if clamped {
			return 0
		}
		return s
	}
	if !sameConstant(b.Minimum, a.Minimum) {
		if s, ok := lowerShift(boundRat(b.Minimum), boundRat(a.Minimum)); ok {
			c.judge(cw("minimum"), dir, numeric(s), RuleMinimumRaised, RuleBoundWidened, boundJSON(b.Minimum), boundJSON(a.Minimum),
				describe("minimum", w.name, boundJSON(b.Minimum), boundJSON(a.Minimum)), numbers(p, boundRat(b.Minimum), boundRat(a.Minimum), false))
		}
	}
	if !sameConstant(b.Maximum, a.Maximum) {
		if s, ok := upperShift(boundRat(b.Maximum), boundRat(a.Maximum)); ok {
			c.judge(cw("maximum"), dir, numeric(s), RuleMaximumLowered, RuleBoundWidened, boundJSON(b.Maximum), boundJSON(a.Maximum),
				describe("maximum", w.name, boundJSON(b.Maximum), boundJSON(a.Maximum)), numbers(p, boundRat(b.Maximum), boundRat(a.Maximum), true))
		}
	}
	if s, ok := lowerShift(intRat(bMinItems), intRat(aMinItems)); ok {
		c.judge(cw("minItems"), dir, s, RuleItemBoundsNarrowed, RuleBoundWidened, intJSON(bMinItems), intJSON(aMinItems),
			describe("minItems", w.name, intJSON(bMinItems), intJSON(aMinItems)), items(belowCounts(bMinItems, aMinItems)...))
	}
	if s, ok := upperShift(intRat(bMaxItems), intRat(aMaxItems)); ok {
		c.judge(cw("maxItems"), dir, s, RuleItemBoundsNarrowed, RuleBoundWidened, intJSON(bMaxItems), intJSON(aMaxItems),
			describe("maxItems", w.name, intJSON(bMaxItems), intJSON(aMaxItems)), items(aboveCounts(bMaxItems, aMaxItems)...))
	}
	if bc, ac := canonicalRaw(b.Const), canonicalRaw(a.Const); bc != ac {
		s := replaces
		switch {
		case bc == "":
			s = narrows
		case ac == "":
			s = widens
		}
		q := with(p, witness.OpSet)
		for _, v := range []json.RawMessage{c.resolve(c.base, b.Const), c.resolve(c.cur, a.Const)} {
			if len(v) > 0 {
				q.Values = append(q.Values, v)
			}
		}
		q.Values = append(q.Values, otherValues(q.Values)...)
		c.judge(cw("const"), dir, s, RuleConstChanged, RuleConstChanged, bc, ac, describe("const", w.name, bc, ac), q)
	}
	if b.Clamp != a.Clamp {
		s := narrows
		if a.Clamp {
			s = widens
		}
		var lo, hi *big.Rat
		if k := map[bool]*spec.Constraints{true: b, false: a}[!a.Clamp]; k != nil {
			lo, hi = boundRat(k.Minimum), boundRat(k.Maximum)
		}
		q := with(p, witness.OpSet)
		if hi != nil {
			q.Values = append(q.Values, ratJSON(new(big.Rat).Add(hi, big.NewRat(1, 1))))
		}
		if lo != nil {
			q.Values = append(q.Values, ratJSON(new(big.Rat).Sub(lo, big.NewRat(1, 1))))
		}
		c.judge(cw("clamp"), dir, s, RuleClampRemoved, RuleBoundWidened, strconv.FormatBool(b.Clamp), strconv.FormatBool(a.Clamp),
			describe("clamp", w.name, strconv.FormatBool(b.Clamp), strconv.FormatBool(a.Clamp)), q)
	}
}

// resolve returns a const or default value through its constant.
func (c *comparer) resolve(d *spec.Domain, raw json.RawMessage) json.RawMessage {
	if id := spec.ConstantRef(raw); id != "" {
		if k := d.LookupConstant(id); k != nil {
			return k.Value
		}
	}
	return raw
}

// otherValues are values of the kinds of vs that none of them is.
func otherValues(vs []json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for _, v := range vs {
		s := strings.TrimSpace(string(v))
		switch {
		case s == "true":
			out = append(out, json.RawMessage("false"))
		case s == "false":
			out = append(out, json.RawMessage("true"))
		case strings.HasPrefix(s, `"`):
			out = append(out, json.RawMessage(`"x-witness-other"`))
		default:
			if r, ok := new(big.Rat).SetString(s); ok {
				out = append(out, ratJSON(new(big.Rat).Add(r, big.NewRat(1, 1))))
			}
		}
	}
	return out
}

// numbers builds the probe of a changed numeric bound: values between the
// two bounds, which one side accepts and the other rejects.
func numbers(p witness.Probe, b, a *big.Rat, upper bool) witness.Probe {
	q := with(p, witness.OpSet)
	one := big.NewRat(1, 1)
	var cands []*big.Rat
	add := func(r *big.Rat) {
		if r != nil {
			cands = append(cands, r)
		}
	}
	switch {
	case b != nil && a != nil:
		lo, hi := b, a
		if lo.Cmp(hi) > 0 {
			lo, hi = hi, lo
		}
		// Between the bounds, at both ends and in the middle.
		if upper {
			add(new(big.Rat).Add(lo, one))
			add(hi)
		} else {
			add(new(big.Rat).Sub(hi, one))
			add(lo)
		}
		mid := new(big.Rat).Add(lo, hi)
		add(mid.Quo(mid, big.NewRat(2, 1)))
	case b != nil || a != nil:
		x := b
		if x == nil {
			x = a
		}
		if upper {
			add(new(big.Rat).Add(x, one))
		} else {
			add(new(big.Rat).Sub(x, one))
		}
	}
	for _, r := range cands {
		q.Values = append(q.Values, ratJSON(r))
	}
	return q
}

func ratJSON(r *big.Rat) json.RawMessage {
	if r.IsInt() {
		return json.RawMessage(r.Num().String())
	}
	f, _ := r.Float64()
	return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64))
}

// aboveCounts are lengths or counts between two upper bounds (nil is none).
func aboveCounts(b, a *int64) []int {
	switch {
	case b != nil && a != nil:
		lo, hi := min(*b, *a), max(*b, *a)
		return []int{int(lo) + 1, int(hi), int(lo+hi)/2 + 1}
	case b != nil:
		return []int{int(*b) + 1, int(*b) + 8}
	case a != nil:
		return []int{int(*a) + 1, int(*a) + 8}
	}
	return nil
}

// belowCounts are lengths or counts between two lower bounds.
func belowCounts(b, a *int64) []int {
	lo := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	x, y := lo(b), lo(a)
	if x > y {
		x, y = y, x
	}
	return []int{int(y) - 1, int(x), int(x+y) / 2}
}

func positive(ns []int) []int {
	var out []int
	for _, n := range ns {
		if n >= 0 {
			out = append(out, n)
		}
	}
	return out
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

// answeredHere names the party implemented here that answers requests
// whose params carry the type with the given id ("server"), or "" when no
// such method exists. A member of such params that it starts to ignore
// changes what the answer means for callers that still send it.
func (c *comparer) answeredHere(typeID string) string {
	r := c.reached[typeID]
	if r == nil {
		return ""
	}
	for _, d := range []*spec.Domain{c.cur, c.base} {
		for _, m := range d.Methods {
			if !r.messages["method "+m.Method+" params"] {
				continue
			}
			if p := c.sides.at(endOf(spec.Other(spec.Sender(m.Direction)))); p.Implemented {
				return p.Name
			}
		}
	}
	return ""
}

// foreignValues are JSON values, one of each kind, that a member of type
// r may reject: the witness of a name that stops taking any value.
func foreignValues(r *spec.TypeRef) []json.RawMessage {
	out := []json.RawMessage{json.RawMessage(`"soon"`), json.RawMessage(`true`), json.RawMessage(`1.5`), json.RawMessage(`{}`), json.RawMessage(`[]`)}
	if r.Array == nil && r.Map == nil && r.Name == spec.TString {
		out = out[1:]
	}
	return out
}

// typeWitnessValues are values a changed type may accept on one side
// only, tried after the valid values of each side's type.
var typeWitnessValues = []json.RawMessage{
	json.RawMessage(`"x-witness-value"`), json.RawMessage(`0.5`), json.RawMessage(`1`),
	json.RawMessage(`true`), json.RawMessage(`{}`), json.RawMessage(`[]`), json.RawMessage(`null`),
}
