package contractdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/contractkit/contractkit/internal/contractdiff/witness"
	"github.com/contractkit/contractkit/internal/spec"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Compare compares one domain at the baseline (base) with the same domain
// now (cur) and returns the findings in report order. Both must be loaded
// and checked by package spec.
func Compare(base, cur *spec.Domain) []Finding { return CompareWith(base, cur, nil) }

// CompareWith is Compare with a repository's severity policy applied.
func CompareWith(base, cur *spec.Domain, policy *SeverityPolicy) []Finding {
	c := compare(base, cur, policy)
	c.witnesses()
	SortFindings(c.out)
	return dedupe(c.out)
}

// Changes returns the findings of Compare(base, cur) without their
// witnesses, which neither a change id nor the edit a finding names
// depends on: the cheap way to ask whether an edit was made between two
// revisions (see package disposition).
func Changes(base, cur *spec.Domain) []Finding {
	return compare(base, cur, nil).out
}

// compare runs every comparison of the two revisions, without witnesses.
func compare(base, cur *spec.Domain, policy *SeverityPolicy) *comparer {
	c := &comparer{
		base: base, cur: cur, dom: cur.Header.ID,
		names:        map[string]string{},
		baseInternal: base.Header.Stability == spec.Internal,
		sides:        sidesOf(cur),
	}
	c.directions()
	c.header()
	c.constants()
	c.types()
	c.methods()
	c.notifications()
	c.events()
	c.errors()
	c.errorKinds()
	c.capabilities()
	c.rules()
	c.profiles()
	c.reservations()
	c.pages()
	policy.apply(c.out)
	n := len(c.out)
	c.majorBump()
	policy.apply(c.out[n:])
	return c
}

// witnesses builds the witness of every finding that has a probe.
func (c *comparer) witnesses() {
	var e *witness.Engine
	for i := range c.out {
		f := &c.out[i]
		if f.Probe.IsZero() {
			continue
		}
		if e == nil {
			e = witness.New(c.base, c.cur)
		}
		f.Witness = e.Find(f.Probe, c.roots(f.Probe.Type))
	}
}

// roots lists the messages whose values contain a type, in id order.
func (c *comparer) roots(typeID string) []witness.Root {
	r := c.reached[typeID]
	if r == nil {
		return nil
	}
	ids := make([]string, 0, len(r.roots))
	for id := range r.roots {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]witness.Root, 0, len(ids))
	for _, id := range ids {
		out = append(out, witness.Root{Message: r.roots[id], TypeID: id})
	}
	return out
}

type comparer struct {
	base, cur *spec.Domain
	dom       string
	// reached is who sends each type and in which messages, by id: what
	// reaches it at the baseline or now, so that a type that gains a
	// sender is judged for both.
	reached map[string]*reachInfo
	// sides are the parties of the current spec: who this repository
	// implements decides which narrowings and widenings break peers.
	sides sides
	// names maps baseline type names to current ones, for type references
	// of types that were renamed.
	names        map[string]string
	baseInternal bool
	out          []Finding
	// ptrs holds every JSON pointer of the current file, once needed.
	ptrs map[string]bool
	// lineMap maps baseline lines to current ones, once a removal needs it.
	lineMap []int
}

// where locates a finding: its target, the pointer in the current file,
// the element's stability at the baseline, and a name for messages.
type where struct {
	target string
	ptr    string
	stab   spec.Stability
	name   string
	// typ is the id of the type whose values the change is about, for
	// the messages a finding lists; "" for a change that is not a value.
	typ string
	// basePtr locates a removed value in the baseline file.
	basePtr string
}

// at returns the location of a member of w: target and pointer extended
// by the same path.
func (w where) at(member string) where {
	w.target += "/" + member
	w.ptr += "/" + member
	return w
}

func (c *comparer) add(rule string, w where, dir Direction, before, after, format string, args ...any) {
	c.addProbe(rule, w, dir, witness.Probe{}, before, after, format, args...)
}

// addProbe adds a finding about values, with the probe that builds its witness.
func (c *comparer) addProbe(rule string, w where, dir Direction, p witness.Probe, before, after, format string, args ...any) {
	stab := w.stab
	if c.baseInternal {
		stab = spec.Internal
	}
	ptr := c.existing(w.ptr)
	f := Finding{
		Domain: c.dom, Rule: rule, Severity: severityOf(rule), Target: w.target,
		Before: before, After: after, Message: fmt.Sprintf(format, args...),
		Direction: dir.String(), BaselineStability: stab,
		File: c.cur.File, Pointer: ptr, Line: c.cur.Line(ptr), Probe: p,
	}
	if w.basePtr != "" {
		f.BaselinePointer = w.basePtr
		if l := c.removalLine(w.basePtr); l > 0 {
			f.Line = l
		}
	}
	if r := c.reached[w.typ]; r != nil && dir != 0 {
		f.Messages = sortedKeys(r.messages)
	}
	c.out = append(c.out, f)
}

// existing returns ptr, or its nearest ancestor that exists in the current
// file: a removed value is located at the container that held it. The
// file's pointers are indexed on the first finding; most comparisons have
// none.
func (c *comparer) existing(ptr string) string {
	if c.ptrs == nil {
		c.ptrs = map[string]bool{"": true}
		if tree, err := strictjson.Parse(c.cur.Raw(), strictjson.Options{}); err == nil {
			indexPointers(tree, "", c.ptrs)
		}
	}
	for !c.ptrs[ptr] {
		ptr = ptr[:max(strings.LastIndexByte(ptr, '/'), 0)]
	}
	return ptr
}

func indexPointers(v *strictjson.Value, ptr string, m map[string]bool) {
	m[ptr] = true
	switch v.Kind {
	case strictjson.Array:
		for i, e := range v.Elems {
			indexPointers(e, strictjson.AppendIndexPointer(ptr, i), m)
		}
	case strictjson.Object:
		for _, mem := range v.Members {
			indexPointers(mem.Value, strictjson.AppendPointer(ptr, mem.Key), m)
		}
	}
}

func dedupe(fs []Finding) []Finding {
	out := fs[:0]
	for i, f := range fs {
		if i > 0 {
			p := fs[i-1]
			if p.Rule == f.Rule && p.Target == f.Target && p.Before == f.Before && p.After == f.After {
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

// directions records who sends each type at either revision.
func (c *comparer) directions() {
	c.reached = map[string]*reachInfo{}
	for _, d := range []*spec.Domain{c.base, c.cur} {
		for id, r := range reach(d) {
			x := c.reached[id]
			if x == nil {
				x = &reachInfo{messages: map[string]bool{}, roots: map[string]string{}}
				c.reached[id] = x
			}
			x.dir |= r.dir
			for m := range r.messages {
				x.messages[m] = true
			}
			for id, m := range r.roots {
				if _, ok := x.roots[id]; !ok {
					x.roots[id] = m
				}
			}
		}
	}
}

func (c *comparer) typeDir(id string) Direction {
	if r := c.reached[id]; r != nil && r.dir != 0 {
		return r.dir
	}
	return Both
}

// shift classifies a change of the set of values a constraint allows.
type shift uint8

const (
	narrows  shift = 1 << iota // fewer values are valid
	widens                     // more values are valid
	replaces = narrows | widens
)

// want is the verdict of the schemas a witness of the shift must have.
func (s shift) want() witness.Want {
	switch s {
	case narrows:
		return witness.Narrows
	case widens:
		return witness.Widens
	case replaces:
		return witness.Either
	}
	return witness.Same
}

// judge picks the rule for a change of the values a type allows. A
// narrowing breaks the senders out there when this repository implements
// a receiver (narrowRule); a widening breaks the receivers out there when
// it implements a sender (widenRule, when the change has one); anything
// else is compatible. p builds the witness.
func (c *comparer) judge(w where, dir Direction, s shift, narrowRule, widenRule, before, after, what string, p witness.Probe) {
	rule := RuleCompatibleChange
	p.Want = s.want()
	// The witness of a change that narrows and widens at once shows the
	// side that breaks.
	switch {
	case s&narrows != 0 && c.sides.narrowingBreaks(dir):
		rule, p.Want = narrowRule, witness.Narrows
	case s&widens != 0 && c.sides.wideningBreaks(dir) && widenRule != "":
		rule, p.Want = widenRule, witness.Widens
	}
	c.addProbe(rule, w, dir, p, before, after, "%s; %s", what, c.sides.phrase(dir))
}

// meta is what every element carries and may inherit from its container.
type meta struct {
	stab       spec.Stability
	since      string
	capability string
}

// meta compares stability, since and the capability gate. parent holds
// the container's values before and after (nil for elements that inherit
// nothing): a change the element merely inherits is reported on the
// container alone.
func (c *comparer) meta(w where, b, a meta, parent *[2]meta) {
	inherited := func(get func(meta) string) bool {
		if parent == nil {
			return false
		}
		pb, pa := get(parent[0]), get(parent[1])
		return pb != pa && get(b) == pb && get(a) == pa
	}
	if b.stab != a.stab && !inherited(func(m meta) string { return string(m.stab) }) {
		rule := RuleStabilityChanged
		if withdrawn(b.stab, a.stab) {
			rule = RuleStabilityWithdrawn
		}
		c.add(rule, w.at("stability"), 0, quote(string(b.stab)), quote(string(a.stab)), "stability of %s changed from %s to %s", w.name, b.stab, a.stab)
	}
	if b.since != a.since && !inherited(func(m meta) string { return m.since }) {
		c.add(RuleSinceChanged, w.at("since"), 0, quote(b.since), quote(a.since), "since of %s changed from %s to %s", w.name, b.since, a.since)
	}
	switch {
	case b.capability == a.capability:
	case a.capability == "":
		c.add(RuleCapabilityGateRemoved, w.at("capability"), 0, quote(b.capability), "", "%s no longer needs capability %s", w.name, b.capability)
	case b.capability == "":
		c.add(RuleCapabilityGateAdded, w.at("capability"), 0, "", quote(a.capability), "%s now needs capability %s", w.name, a.capability)
	default:
		c.add(RuleCapabilityGateAdded, w.at("capability"), 0, quote(b.capability), quote(a.capability), "%s now needs capability %s instead of %s", w.name, a.capability, b.capability)
	}
}

// withdrawn reports whether a stability change takes a promise back.
func withdrawn(from, to spec.Stability) bool {
	switch from {
	case spec.Stable:
		return to == spec.Experimental || to == spec.Internal
	case spec.Experimental, spec.Deprecated:
		return to == spec.Internal
	}
	return false
}

// text compares a human-facing text. A requirement whose words change in
// either language needs review; an English change without a Russian one
// is a stale translation; any other change is documentation.
func (c *comparer) text(w where, member string, b, a spec.Text) {
	if b == a {
		return
	}
	w = w.at(member)
	before, after := textJSON(b), textJSON(a)
	enOnly := b.EN != a.EN && b.RU == a.RU
	// Annotations point at the line that changed: the English one, or the
	// Russian one when only it changed. The target stays the text's.
	if b.EN != a.EN {
		w.ptr += "/en"
	} else {
		w.ptr += "/ru"
	}
	if member == "requirement" {
		c.add(RuleRequirementChanged, w, 0, before, after, "the requirement of %s changed", w.name)
	}
	switch {
	case enOnly:
		c.add(RuleTranslationStale, w, 0, before, after, "the English %s of %s changed but the Russian one did not", member, w.name)
	case member != "requirement":
		c.add(RuleTextChanged, w, 0, before, after, "the %s of %s changed", member, w.name)
	}
}

func (c *comparer) textPtr(w where, member string, b, a *spec.Text) {
	var bt, at spec.Text
	if b != nil {
		bt = *b
	}
	if a != nil {
		at = *a
	}
	c.text(w, member, bt, at)
}

func (c *comparer) goName(w where, b, a string) {
	if b != a {
		c.add(RuleGoNameChanged, w, 0, quote(b), quote(a), "the Go name of %s changed from %s to %s", w.name, b, a)
	}
}

// typeRef renders a baseline type expression with renamed types mapped to
// their current names, so that it compares equal to an unchanged reference.
func (c *comparer) typeRef(r spec.TypeRef) string {
	switch {
	case r.Array != nil:
		return c.typeRef(*r.Array) + "[]"
	case r.Map != nil:
		return "map<string, " + c.typeRef(*r.Map) + ">"
	}
	return c.typeName(r.Name)
}

func (c *comparer) typeName(name string) string {
	if n, ok := c.names[name]; ok {
		return n
	}
	return name
}

func (c *comparer) typeChanged(w where, dir Direction, before, after string) bool {
	if before == after {
		return false
	}
	c.add(RuleTypeChanged, w, dir, quote(before), quote(after), "the type of %s changed from %s to %s", w.name, orNone(before), orNone(after))
	return true
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// quote renders a string as JSON.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func textJSON(t spec.Text) string {
	b, _ := json.Marshal(t)
	return string(b)
}

// sameExamples reports whether two sets of examples hold the same bytes:
// a quick test before canonical, which also ignores spacing and member
// order, and which most comparisons then never need.
func sameExamples(a, b *spec.Examples) bool {
	if a == nil || b == nil {
		return a == b
	}
	if len(a.Valid) != len(b.Valid) || len(a.Invalid) != len(b.Invalid) {
		return false
	}
	for i := range a.Valid {
		if !bytes.Equal(a.Valid[i], b.Valid[i]) {
			return false
		}
	}
	for i, x := range a.Invalid {
		y := b.Invalid[i]
		if !bytes.Equal(x.Value, y.Value) || x.Pointer != y.Pointer || (x.Why == nil) != (y.Why == nil) || x.Why != nil && *x.Why != *y.Why {
			return false
		}
	}
	return true
}

// canonical renders v as compact JSON with sorted object members and
// without the members named in drop (at the top level) and without any
// "source" member (at any level): where an entry is implemented is not
// part of the contract.
func canonical(v any, drop ...string) string {
	raw, err := json.Marshal(v)
	if err != nil {
		// Every value passed here came out of the spec decoder.
		panic(fmt.Sprintf("contractdiff: encode %T: %v", v, err))
	}
	return canonicalRaw(raw, drop...)
}

func canonicalRaw(raw []byte, drop ...string) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return string(raw)
	}
	if m, ok := x.(map[string]any); ok {
		for _, k := range drop {
			delete(m, k)
		}
	}
	x = dropSources(x)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(x)
	return strings.TrimSuffix(out.String(), "\n")
}

func dropSources(x any) any {
	switch v := x.(type) {
	case map[string]any:
		delete(v, "source")
		for k, e := range v {
			v[k] = dropSources(e)
		}
	case []any:
		for i, e := range v {
			v[i] = dropSources(e)
		}
	}
	return x
}

// escape makes a name safe as one segment of a target path, as JSON
// pointers escape their tokens.
func escape(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return targetEscaper.Replace(name)
}

var targetEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// compactKey is the compact JSON of a scalar, to match enum values
// whatever their spacing.
func compactKey(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// ---- entries matched by id ----

// element is the comparison's view of one id-keyed element.
type element struct {
	id        string
	ptr       string         // in its own file
	container string         // pointer of the array that holds it
	stab      spec.Stability // its stability
	signature string         // short description for removals and additions
	name      string         // for messages
	// sender is the end that sends the element when it is a message
	// (method params, notification, event, error); 0 otherwise. A new
	// message that an implemented party sends may reach receivers out
	// there that do not know it.
	sender Direction
	// reserveKind and reserveKey name the element on the wire, for
	// reservations (spec.Reservation); "" when it has no wire name.
	reserveKind, reserveKey string
	// deprecatable marks elements whose removal must follow a deprecation.
	deprecatable bool
}

// section compares one id-keyed collection: it reports removals, renames
// and additions, and hands matched pairs to compare.
type section[T any] struct {
	removed string // rule for a removal
	list    func(d *spec.Domain) []T
	view    func(c *comparer, x T) element
	// content is the canonical content of an element without its id, for
	// rename detection. It is only computed for unmatched elements.
	content func(x T) string
	// shape is the content without the id, the wire name and the texts:
	// a removed and an added element of the same shape are one rename of
	// the wire name. nil when the section has no wire names.
	shape   func(x T) string
	compare func(c *comparer, b, a T)
	// renamed is told about each rename (types record their new names).
	renamed func(c *comparer, b, a T)
	// addedElsewhere reports an added element whose addition another
	// finding already judges (an error kind whose name is a new value of
	// the enum its error data carries): one change, one finding.
	addedElsewhere func(c *comparer, x T) bool
	// removedElsewhere is addedElsewhere for a removed element: its
	// removal is judged by another finding, and only what the removal
	// skipped (a deprecation, a reservation) is reported here.
	removedElsewhere func(c *comparer, x T) bool
}

func run[T any](c *comparer, s section[T]) {
	bs, as := s.list(c.base), s.list(c.cur)
	bview, aview := map[string]element{}, map[string]element{}
	bByID, aByID := map[string]T{}, map[string]T{}
	for _, x := range bs {
		e := s.view(c, x)
		bview[e.id], bByID[e.id] = e, x
	}
	for _, x := range as {
		e := s.view(c, x)
		aview[e.id], aByID[e.id] = e, x
	}
	var gone, added []string
	for id := range bview {
		if _, ok := aview[id]; !ok {
			gone = append(gone, id)
		}
	}
	for id := range aview {
		if _, ok := bview[id]; !ok {
			added = append(added, id)
		}
	}
	sort.Strings(gone)
	sort.Strings(added)
	// A removed and an added element with the same content is one rename.
	// Candidates pair up in id order, so the result does not depend on
	// the order of the spec.
	taken := map[string]bool{}
	addedContent := map[string]string{}
	for _, nid := range added {
		addedContent[nid] = s.content(aByID[nid])
	}
	for _, id := range append([]string(nil), gone...) {
		be, content := bview[id], ""
		if len(added) > 0 {
			content = s.content(bByID[id])
		}
		for _, nid := range added {
			ae := aview[nid]
			if taken[nid] || addedContent[nid] != content {
				continue
			}
			taken[nid] = true
			gone = remove(gone, id)
			w := where{target: id, ptr: ae.ptr + "/id", stab: be.stab, name: be.name}
			c.add(RuleIDRenamed, w, 0, quote(id), quote(nid), "%s was renamed to %s", id, nid)
			if s.renamed != nil {
				s.renamed(c, bByID[id], aByID[nid])
			}
			break
		}
	}
	if s.shape != nil {
		renames(c, s, &gone, added, taken, bview, aview, bByID, aByID)
	}
	for _, id := range gone {
		be := bview[id]
		w := where{target: id, ptr: be.container, stab: be.stab, name: be.name, basePtr: be.ptr}
		if s.removedElsewhere == nil || !s.removedElsewhere(c, bByID[id]) {
			c.add(s.removed, w, 0, be.signature, "", "%s was removed", be.name)
		}
		c.removal(w, be)
	}
	for _, id := range added {
		if taken[id] {
			continue
		}
		ae := aview[id]
		if s.addedElsewhere != nil && s.addedElsewhere(c, aByID[id]) {
			c.reuse(where{target: id, ptr: ae.ptr, name: ae.name}, ae)
			continue
		}
		rule := RuleEntryAdded
		if ae.sender != 0 && c.sides.wideningBreaks(ae.sender) {
			rule = RuleMessageAdded
		}
		c.add(rule, where{target: id, ptr: ae.ptr, name: ae.name}, 0, "", ae.signature, "%s was added", ae.name)
		c.reuse(where{target: id, ptr: ae.ptr, name: ae.name}, ae)
	}
	ids := make([]string, 0, len(bview))
	for id := range bview {
		if _, ok := aview[id]; ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		s.compare(c, bByID[id], aByID[id])
	}
}

func remove(s []string, x string) []string {
	for i, e := range s {
		if e == x {
			return append(s[:i:i], s[i+1:]...)
		}
	}
	return s
}
