package contractdiff

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/contractkit/contractkit/internal/spec"
)

func (c *comparer) header() {
	b, a := &c.base.Header, &c.cur.Header
	w := where{target: c.dom, ptr: "/domain", stab: b.Stability, name: "domain " + c.dom}
	if b.Version != a.Version {
		c.add(RuleDomainVersionChanged, w.at("version"), 0, quote(b.Version), quote(a.Version), "the version of domain %s changed from %s to %s", c.dom, b.Version, a.Version)
	}
	c.meta(w, meta{b.Stability, b.Since, ""}, meta{a.Stability, a.Since, ""}, nil)
	c.goName(w.at("package"), b.Package, a.Package)
	c.text(w, "title", b.Title, a.Title)
	c.text(w, "description", b.Description, a.Description)
	c.text(w.at("scope"), "included", joinTexts(b.Scope.Included), joinTexts(a.Scope.Included))
	c.text(w.at("scope"), "excluded", joinTexts(b.Scope.Excluded), joinTexts(a.Scope.Excluded))
	c.parties()
	kinds := map[string]spec.RuleKind{}
	for _, k := range b.RuleKinds {
		kinds[k.Kind] = k
	}
	for i, k := range a.RuleKinds {
		o, ok := kinds[k.Kind]
		if !ok {
			continue // a new table is visible through the rules added to it
		}
		kw := where{target: c.dom + "/ruleKinds/" + escape(k.Kind), ptr: "/domain/ruleKinds/" + strconv.Itoa(i), stab: b.Stability, name: "rule table " + k.Kind}
		c.text(kw, "title", o.Title, k.Title)
		c.text(kw, "description", o.Description, k.Description)
	}
	if b.InvalidParams != a.InvalidParams {
		before, after := c.errorCode(c.base, b.InvalidParams), c.errorCode(c.cur, a.InvalidParams)
		if before != after {
			c.add(RuleErrorCodeChanged, w.at("invalidParams"), 0, before, after,
				"validators of %s now report error %s instead of %s", c.dom, orNone(after), orNone(before))
		}
	}
}

// errorCode returns the code of the error with the given id, as text.
func (c *comparer) errorCode(d *spec.Domain, id string) string {
	if e := d.LookupError(id); e != nil {
		return strconv.FormatInt(e.Code, 10)
	}
	return ""
}

// joinTexts makes one text of a list, a line per item, so that a list
// compares and diffs like a paragraph.
func joinTexts(ts []spec.Text) spec.Text {
	var en, ru []string
	for _, t := range ts {
		en = append(en, t.EN)
		ru = append(ru, t.RU)
	}
	return spec.Text{EN: strings.Join(en, "\n"), RU: strings.Join(ru, "\n")}
}

// entry compares what every entry carries: texts, stability, since and a
// capability gate.
func (c *comparer) entry(w where, b, a *spec.Entry) {
	c.meta(w, meta{b.Stability, b.Since, b.Capability}, meta{a.Stability, a.Since, a.Capability}, nil)
	c.text(w, "title", b.Title, a.Title)
	c.textPtr(w, "description", b.Description, a.Description)
	c.textPtr(w, "requirement", b.Requirement, a.Requirement)
	c.textPtr(w, "rationale", b.Rationale, a.Rationale)
}

func entryWhere(b, a *spec.Entry, name string) where {
	return where{target: a.ID, ptr: a.Ptr, stab: b.Stability, name: name}
}

// entryContent is the content of an entry for rename detection.
func entryContent(v any) string { return canonical(v, "id") }

// shapeOf is the content of an entry without its id, the named wire and Go
// names, and its human-facing texts: what peers see besides its name.
func shapeOf(v any, names ...string) string {
	return canonical(v, append(names, "id", "title", "description", "requirement", "rationale", "stability", "since", "examples", "message")...)
}

// errorSender is the end that sends an error: the responder of the
// methods that list it, the server for errors no method lists.
func (c *comparer) errorSender(id string) Direction {
	var dir Direction
	for _, d := range []*spec.Domain{c.base, c.cur} {
		for _, m := range d.Methods {
			for _, e := range m.Errors {
				if e == id {
					dir |= Both &^ endOf(spec.Sender(m.Direction))
				}
			}
		}
	}
	if dir == 0 {
		dir = ServerSent
	}
	return dir
}

func (c *comparer) constants() {
	run(c, section[*spec.Constant]{
		removed: RuleConstantRemoved,
		list:    func(d *spec.Domain) []*spec.Constant { return d.Constants },
		view: func(c *comparer, k *spec.Constant) element {
			return element{id: k.ID, ptr: k.Ptr, container: "/constants", stab: k.Stability,
				signature: fmt.Sprintf("%s %s = %s", k.Kind, k.Symbol, canonicalRaw(k.Value)), name: "constant " + k.ID, deprecatable: true}
		},
		content: func(x *spec.Constant) string { return entryContent(x) },
		compare: func(c *comparer, b, a *spec.Constant) {
			w := entryWhere(&b.Entry, &a.Entry, "constant "+a.ID)
			c.entry(w, &b.Entry, &a.Entry)
			c.goName(w.at("symbol"), b.Symbol, a.Symbol)
			if b.Kind != a.Kind || b.Type != a.Type || b.Unit != a.Unit {
				sig := func(k *spec.Constant) string {
					return canonical(map[string]string{"kind": string(k.Kind), "type": k.Type, "unit": k.Unit})
				}
				c.add(RuleTypeChanged, w, 0, sig(b), sig(a), "the kind, type or unit of constant %s changed", a.ID)
			}
			if b.Direction != nil && a.Direction != nil && *b.Direction != *a.Direction {
				c.add(RulePartiesChanged, w.at("direction"), 0, canonical(b.Direction), canonical(a.Direction),
					"%s %s now %s; it %s", constantNoun(a), a.ID, describeLimit(a.Direction), describeLimit(b.Direction))
			}
			bv, av := canonicalRaw(b.Value), canonicalRaw(a.Value)
			if bv == av {
				return
			}
			vw := w.at("value")
			switch a.Kind {
			case spec.LimitConstant:
				c.limit(vw, b, a)
			case spec.DefaultConstant:
				c.add(RuleDefaultChanged, vw, 0, bv, av, "default %s changed from %s to %s", a.ID, bv, av)
			default:
				// A protocol constant that bounds what a party accepts
				// (the highest minor version a server speaks) moves like a
				// limit; one both ends must agree on exactly breaks peers
				// whichever way it moves. Its direction now decides, and
				// without one (a spec from before directions) it is exact.
				dirn := a.Direction
				if dirn == nil {
					dirn = b.Direction
				}
				if !dirn.Exact() {
					c.limit(vw, b, a)
					return
				}
				c.add(RuleProtocolConstantChanged, vw, 0, bv, av, "protocol constant %s changed from %s to %s; both ends must agree on it exactly", a.ID, bv, av)
			}
		},
	})
}

func (c *comparer) methods() {
	run(c, section[*spec.Method]{
		removed: RuleMethodRemoved,
		list:    func(d *spec.Domain) []*spec.Method { return d.Methods },
		view: func(c *comparer, m *spec.Method) element {
			return element{id: m.ID, ptr: m.Ptr, container: "/methods", stab: m.Stability,
				signature: fmt.Sprintf("method %s (%s)", m.Method, m.Direction), name: "method " + m.Method,
				sender: endOf(spec.Sender(m.Direction)), reserveKind: spec.ReservedMethod, reserveKey: m.Method, deprecatable: true}
		},
		content: func(x *spec.Method) string { return entryContent(x) },
		shape:   func(x *spec.Method) string { return shapeOf(x, "method", "symbol") },
		compare: func(c *comparer, b, a *spec.Method) {
			w := entryWhere(&b.Entry, &a.Entry, "method "+a.Method)
			c.entry(w, &b.Entry, &a.Entry)
			c.goName(w.at("symbol"), b.GoName(), a.GoName())
			c.wireName(w.at("method"), b.Method, a.Method)
			c.direction(w, b.Direction, a.Direction)
			c.typeChanged(w.at("params"), 0, c.typeName(b.Params), a.Params)
			br, ar := "", ""
			if b.Result != nil {
				br = c.typeName(*b.Result)
			}
			if a.Result != nil {
				ar = *a.Result
			}
			c.typeChanged(w.at("result"), 0, br, ar)
			be, ae := map[string]bool{}, map[string]bool{}
			for _, e := range b.Errors {
				be[e] = true
			}
			for _, e := range a.Errors {
				ae[e] = true
			}
			for i, e := range a.Errors {
				if !be[e] {
					ew := w.at("errors")
					ew.target += "/" + escape(e)
					ew.ptr += "/" + strconv.Itoa(i)
					c.add(RuleMethodErrorsChanged, ew, 0, "", quote(e), "method %s may now return %s", a.Method, e)
				}
			}
			for _, e := range b.Errors {
				if !ae[e] {
					ew := w.at("errors")
					ew.target += "/" + escape(e)
					c.add(RuleCompatibleChange, ew, 0, quote(e), "", "method %s no longer lists %s", a.Method, e)
				}
			}
			if sameExamples(&b.Examples.Params, &a.Examples.Params) && sameExamples(&b.Examples.Result, &a.Examples.Result) {
				// The usual case, found without canonicalising.
			} else if bx, ax := canonical(b.Examples), canonical(a.Examples); bx != ax {
				c.add(RuleExamplesChanged, w.at("examples"), 0, bx, ax, "the examples of method %s changed", a.Method)
			}
		},
	})
}

func (c *comparer) notifications() {
	run(c, section[*spec.Notification]{
		removed: RuleNotificationRemoved,
		list:    func(d *spec.Domain) []*spec.Notification { return d.Notifications },
		view: func(c *comparer, n *spec.Notification) element {
			return element{id: n.ID, ptr: n.Ptr, container: "/notifications", stab: n.Stability,
				signature: fmt.Sprintf("notification %s (%s)", n.Method, n.Direction), name: "notification " + n.Method,
				sender: endOf(spec.Sender(n.Direction)), reserveKind: spec.ReservedNotification, reserveKey: n.Method, deprecatable: true}
		},
		content: func(x *spec.Notification) string { return entryContent(x) },
		shape:   func(x *spec.Notification) string { return shapeOf(x, "method", "symbol") },
		compare: func(c *comparer, b, a *spec.Notification) {
			w := entryWhere(&b.Entry, &a.Entry, "notification "+a.Method)
			c.entry(w, &b.Entry, &a.Entry)
			c.goName(w.at("symbol"), b.GoName(), a.GoName())
			c.wireName(w.at("method"), b.Method, a.Method)
			c.direction(w, b.Direction, a.Direction)
			bp, ap := "", ""
			if b.Params != nil {
				bp = c.typeName(*b.Params)
			}
			if a.Params != nil {
				ap = *a.Params
			}
			c.typeChanged(w.at("params"), 0, bp, ap)
		},
	})
}

func (c *comparer) events() {
	run(c, section[*spec.Event]{
		removed: RuleEventRemoved,
		list:    func(d *spec.Domain) []*spec.Event { return d.Events },
		view: func(c *comparer, e *spec.Event) element {
			return element{id: e.ID, ptr: e.Ptr, container: "/events", stab: e.Stability,
				signature: "event " + e.Name, name: "event " + e.Name,
				sender: endOf(spec.Sender(e.Direction)), reserveKind: spec.ReservedEvent, reserveKey: e.Name, deprecatable: true}
		},
		content: func(x *spec.Event) string { return entryContent(x) },
		shape:   func(x *spec.Event) string { return shapeOf(x, "name", "symbol") },
		compare: func(c *comparer, b, a *spec.Event) {
			w := entryWhere(&b.Entry, &a.Entry, "event "+a.Name)
			c.entry(w, &b.Entry, &a.Entry)
			c.goName(w.at("symbol"), b.GoName(), a.GoName())
			c.wireName(w.at("name"), b.Name, a.Name)
			c.direction(w, b.Direction, a.Direction)
			c.typeChanged(w.at("payload"), 0, c.typeName(b.Payload), a.Payload)
		},
	})
}

func (c *comparer) errors() {
	run(c, section[*spec.Error]{
		removed: RuleErrorRemoved,
		list:    func(d *spec.Domain) []*spec.Error { return d.Errors },
		view: func(c *comparer, e *spec.Error) element {
			return element{id: e.ID, ptr: e.Ptr, container: "/errors", stab: e.Stability,
				signature: fmt.Sprintf("error %d %s", e.Code, e.Symbol), name: fmt.Sprintf("error %s (%d)", e.ID, e.Code),
				sender: c.errorSender(e.ID), reserveKind: spec.ReservedError, reserveKey: strconv.FormatInt(e.Code, 10), deprecatable: true}
		},
		content: func(x *spec.Error) string { return entryContent(x) },
		compare: func(c *comparer, b, a *spec.Error) {
			w := entryWhere(&b.Entry, &a.Entry, "error "+a.ID)
			c.entry(w, &b.Entry, &a.Entry)
			c.goName(w.at("symbol"), b.GoName(), a.GoName())
			c.text(w, "message", b.Message, a.Message)
			if b.Code != a.Code {
				c.add(RuleErrorCodeChanged, w.at("code"), 0, strconv.FormatInt(b.Code, 10), strconv.FormatInt(a.Code, 10),
					"the code of error %s changed from %d to %d", a.ID, b.Code, a.Code)
			}
			bd := ""
			if b.Data != "" {
				bd = c.typeName(b.Data)
			}
			c.typeChanged(w.at("data"), 0, bd, a.Data)
		},
	})
}

// kindRef is an error kind with the error that carries it.
type kindRef struct {
	*spec.ErrorKind
	err *spec.Error
}

func (c *comparer) errorKinds() {
	run(c, section[kindRef]{
		removed: RuleErrorKindRemoved,
		list: func(d *spec.Domain) []kindRef {
			var out []kindRef
			for _, e := range d.Errors {
				for _, k := range e.Kinds {
					out = append(out, kindRef{k, e})
				}
			}
			return out
		},
		view: func(c *comparer, k kindRef) element {
			container := "/errors"
			if e := c.cur.LookupError(k.err.ID); e != nil {
				container = e.Ptr + "/kinds"
			}
			return element{id: k.ID, ptr: k.Ptr, container: container, stab: k.Stability,
				signature: "error kind " + k.Kind, name: "error kind " + k.Kind,
				sender: c.errorSender(k.err.ID), reserveKind: spec.ReservedErrorKind, reserveKey: k.Kind, deprecatable: true}
		},
		content: func(k kindRef) string { return entryContent(k.ErrorKind) + " " + strconv.FormatInt(k.err.Code, 10) },
		// A new kind reaches receivers as a new value of the enum that
		// the error's data names its kind by (DomainErrorData.kind), and
		// that enum says whether receivers keep a kind they do not know
		// (open) or reject it (closed): the enum's finding judges it.
		addedElsewhere: func(c *comparer, k kindRef) bool { return c.kindEnumValueAdded(k) },
		// A removed kind likewise leaves as a value of that enum, judged
		// by who sends it: a server that stops sending a kind breaks no
		// client.
		removedElsewhere: func(c *comparer, k kindRef) bool { return c.kindEnumValueRemoved(k) },
		shape: func(k kindRef) string {
			return shapeOf(k.ErrorKind, "kind", "symbol") + " " + strconv.FormatInt(k.err.Code, 10)
		},
		compare: func(c *comparer, b, a kindRef) {
			w := entryWhere(&b.Entry, &a.Entry, "error kind "+a.Kind)
			c.entry(w, &b.Entry, &a.Entry)
			c.goName(w.at("symbol"), b.GoName(), a.GoName())
			c.wireName(w.at("kind"), b.Kind, a.Kind)
			// A kind that moves to another error reaches clients under
			// another code; a change of its own error's code is reported
			// once, on the error.
			if b.err.ID != a.err.ID && b.err.Code != a.err.Code {
				c.add(RuleErrorCodeChanged, w, 0, strconv.FormatInt(b.err.Code, 10), strconv.FormatInt(a.err.Code, 10),
					"error kind %s is now carried by error %d instead of %d", a.Kind, a.err.Code, b.err.Code)
			}
			bd := ""
			if b.Details != "" {
				bd = c.typeName(b.Details)
			}
			c.typeChanged(w.at("details"), 0, bd, a.Details)
		},
	})
}

func (c *comparer) capabilities() {
	run(c, section[*spec.Capability]{
		removed: RuleCapabilityRemoved,
		list:    func(d *spec.Domain) []*spec.Capability { return d.Capabilities },
		view: func(c *comparer, k *spec.Capability) element {
			return element{id: k.ID, ptr: k.Ptr, container: "/capabilities", stab: k.Stability,
				signature: "capability " + k.Name, name: "capability " + k.Name, deprecatable: true}
		},
		content: func(x *spec.Capability) string { return entryContent(x) },
		shape:   func(x *spec.Capability) string { return shapeOf(x, "name", "symbol") },
		compare: func(c *comparer, b, a *spec.Capability) {
			w := entryWhere(&b.Entry, &a.Entry, "capability "+a.Name)
			c.entry(w, &b.Entry, &a.Entry)
			c.goName(w.at("symbol"), b.GoName(), a.GoName())
			c.wireName(w.at("name"), b.Name, a.Name)
			c.typeChanged(w.at("type"), ServerSent, c.typeRef(b.Type), a.Type.String())
			ow := w.at("optIn")
			switch {
			case b.OptIn == a.OptIn:
			case a.OptIn == "":
				c.add(RuleCapabilityGateRemoved, ow, 0, quote(b.OptIn), "", "capability %s no longer needs the client flag %s", a.Name, b.OptIn)
			default:
				c.add(RuleCapabilityGateAdded, ow, 0, strOrEmpty(b.OptIn), quote(a.OptIn), "capability %s now needs the client flag %s", a.Name, a.OptIn)
			}
		},
	})
}

func (c *comparer) rules() {
	run(c, section[*spec.Rule]{
		removed: RuleRuleRemoved,
		list:    func(d *spec.Domain) []*spec.Rule { return d.Rules },
		view: func(c *comparer, r *spec.Rule) element {
			return element{id: r.ID, ptr: r.Ptr, container: "/rules", stab: r.Stability,
				signature: "rule " + r.ID, name: "rule " + r.ID}
		},
		content: func(x *spec.Rule) string { return entryContent(x) },
		compare: func(c *comparer, b, a *spec.Rule) {
			w := entryWhere(&b.Entry, &a.Entry, "rule "+a.ID)
			c.entry(w, &b.Entry, &a.Entry)
			c.rulePolarity(w, b, a)
		},
	})
}

// pages compares the human-facing texts of the reference pages; how the
// pages are cut is presentation, not contract.
func (c *comparer) pages() {
	old := map[string]*spec.Page{}
	for _, p := range c.base.Docs.Pages {
		old[p.Slug] = p
	}
	for i, p := range c.cur.Docs.Pages {
		o := old[p.Slug]
		if o == nil {
			continue
		}
		w := where{target: c.dom + "/docs/pages/" + escape(p.Slug), ptr: "/docs/pages/" + strconv.Itoa(i), stab: c.base.Header.Stability, name: "page " + p.Slug}
		c.text(w, "title", o.Title, p.Title)
		c.textPtr(w, "intro", o.Intro, p.Intro)
	}
}

func (c *comparer) wireName(w where, b, a string) {
	if b != a {
		c.add(RuleWireNameChanged, w, 0, quote(b), quote(a), "the wire name of %s changed from %s to %s", w.name, b, a)
	}
}

func (c *comparer) direction(w where, b, a string) {
	if b != a {
		c.add(RuleDirectionChanged, w.at("direction"), 0, quote(b), quote(a), "%s changed direction from %s to %s", w.name, b, a)
	}
}

// kindEnumValueAdded reports whether the added error kind k is also a new
// value of the enum the current error data carries its kind in: a member
// "kind" of the error's data type whose type is an enum.
func (c *comparer) kindEnumValueAdded(k kindRef) bool {
	enum := kindEnum(k.err)
	if enum == nil {
		return false
	}
	has := func(t *spec.Type) bool {
		if t == nil {
			return false
		}
		for _, v := range t.Values {
			if compactKey(v.Value) == quote(k.Kind) {
				return true
			}
		}
		return false
	}
	if !has(enum) {
		return false
	}
	if be := c.base.LookupError(k.err.ID); be != nil {
		if bt := kindEnum(be); bt != nil && bt.ID == enum.ID && has(bt) {
			return false
		}
	}
	return true
}

// kindEnumValueRemoved reports whether the removed error kind k (of the
// baseline) was a value of the enum its error data carried its kind in,
// and the current enum of the same error no longer has it.
func (c *comparer) kindEnumValueRemoved(k kindRef) bool {
	be := kindEnum(k.err)
	ce := c.cur.LookupError(k.err.ID)
	if be == nil || ce == nil {
		return false
	}
	cur := kindEnum(ce)
	if cur == nil || cur.ID != be.ID {
		return false
	}
	return enumHas(be, k.Kind) && !enumHas(cur, k.Kind)
}

func enumHas(t *spec.Type, value string) bool {
	for _, v := range t.Values {
		if compactKey(v.Value) == quote(value) {
			return true
		}
	}
	return false
}

// kindEnum returns the enum type of the member "kind" of an error's data
// type, or nil.
func kindEnum(e *spec.Error) *spec.Type {
	if e == nil || e.DataType == nil {
		return nil
	}
	for _, f := range e.DataType.Fields {
		if f.Name == "kind" && f.Type.Named != nil && f.Type.Named.Kind == spec.EnumKind {
			return f.Type.Named
		}
	}
	return nil
}
