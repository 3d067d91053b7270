package spec

import (
	"sort"
	"strings"
)

// Go identifiers of generated code. Emitters and the collision check share
// these functions, so a name the check accepts is the name the code gets.

// GoName of a method: its symbol, or the method name turned into Go.
func (m *Method) GoName() string { return orGo(m.Symbol, m.Method) }

// GoName of a notification.
func (n *Notification) GoName() string { return orGo(n.Symbol, n.Method) }

// GoName of an event.
func (e *Event) GoName() string { return orGo(e.Symbol, e.Name) }

// GoName of an error code.
func (e *Error) GoName() string { return e.Symbol }

// GoName of an error kind.
func (k *ErrorKind) GoName() string { return orGo(k.Symbol, k.Kind) }

// GoName of a capability.
func (c *Capability) GoName() string { return orGo(c.Symbol, c.Name) }

// GoName of an enum value's constant: the type's name and the value's.
func (v *EnumValue) GoName(t *Type) string { return t.GoName() + orGo(v.Symbol, v.String()) }

// GoName of a union variant's Go type: the object type it names, or the
// union's name and the tag's for a variant that is only its tag.
func (v *Variant) GoName(u *Type) string {
	if v.Object != nil {
		return v.Object.GoName()
	}
	if v.Symbol != "" {
		return v.Symbol
	}
	return u.GoName() + GoName(v.Tag)
}

// TagGoName is the constant that holds the tag of a union's variant: the
// union's name, Tag and the tag's (JSONPatchOperationTagAdd).
func TagGoName(u *Type, v *Variant) string {
	return u.GoName() + "Tag" + GoName(v.Tag)
}

// MemberGoName is the constant that holds the wire name of an object's
// member: the object's name, Member and the member's
// (RunFinishedEventMemberThreadID), so that a runtime names a member
// through the type that has it and never spells or reflects it.
func MemberGoName(t *Type, f *Field) string {
	return t.GoName() + "Member" + f.GoName()
}

// HasDefaultAccessor reports whether an object member gets a
// <Member>OrDefault method: it is optional, not nullable (absent and null
// differ there) and has a default.
func HasDefaultAccessor(f *Field) bool {
	return !f.Required && !f.Nullable && f.Default != nil
}

// DefaultAccessorName is the method that applies a member's default.
func DefaultAccessorName(f *Field) string { return f.GoName() + "OrDefault" }

// UnknownGoName is the Go type that holds a variant of an open union
// whose tag the spec does not list.
func (t *Type) UnknownGoName() string { return t.GoName() + "Unknown" }

// OptInGoName is the constant that holds a client opt-in flag.
func OptInGoName(optIn string) string { return OptInPrefix + GoName(optIn) }

// OptInCapabilities returns, for each distinct opt-in flag in the order
// the capabilities first name it, the first capability that names it:
// one constant per flag, declared where the spec first asks for it.
func (d *Domain) OptInCapabilities() []*Capability {
	var out []*Capability
	seen := map[string]bool{}
	for _, c := range d.Capabilities {
		if c.OptIn != "" && !seen[c.OptIn] {
			seen[c.OptIn] = true
			out = append(out, c)
		}
	}
	return out
}

func orGo(symbol, wire string) string {
	if symbol != "" {
		return symbol
	}
	return GoName(wire)
}

// Prefixes of generated constant names.
const (
	MethodPrefix       = "Method"
	NotificationPrefix = "Notification"
	EventPrefix        = "Event"
	CodePrefix         = "Code"
	KindPrefix         = "Kind"
	CapabilityPrefix   = "Capability"
	OptInPrefix        = "OptIn"
	DecodePrefix       = "Decode"
	RulePrefix         = "Rule"
	ProfilePrefix      = "Profile"
)

// TreeSuffix ends the name of a type's decoder of an already-parsed tree:
// DecodeXTree.
const TreeSuffix = "Tree"

// BodySuffix ends the name of the decoder of a union variant's tree whose
// tag the caller has read already: DecodeXBody.
const BodySuffix = "Body"

// RuleGoName is the name of the constant that holds the id of a rule (or
// of an id'd field) of domain: Rule and the id without the domain, so
// ai-control-protocol.wire.line-limit becomes RuleWireLineLimit.
func RuleGoName(domain, id string) string {
	return RulePrefix + GoName(strings.TrimPrefix(id, domain+"."))
}

// FixedGoNames are the package-level names every generated domain package
// declares, whatever its spec says.
var FixedGoNames = []string{
	"Domain", "Version", "SpecFile", "Digest", "ValidationError", "MethodInfo", "Methods",
	"LookupMethod", "ErrorInfo", "Errors", "LookupError", "EventInfo", "Events", "Decoders",
	"NotificationInfo", "Notifications", "SchemaFS", "RPCError", "NewError", "Handler",
	"DispatchTree", "DispatchNotificationTree", "CapabilityInfo", "CapabilityTable", "RuleInfo", "Rules", "ProfileInfo", "Profiles", "Model", "TypeIDs",
	"DirectionClientToServer", "DirectionServerToClient",
}

// GoIdentifier is one package-level name of a generated package and what declares it.
type GoIdentifier struct {
	Name string
	What string // e.g. "type StatusResult", "method status"
	Ptr  string
}

// GoIdentifiers lists the package-level names the generated package of d
// declares from its spec, sorted by name (duplicates kept, for the check).
func (d *Domain) GoIdentifiers() []GoIdentifier {
	var ids []GoIdentifier
	add := func(name, what, ptr string) { ids = append(ids, GoIdentifier{name, what, ptr}) }
	for _, n := range FixedGoNames {
		add(n, "generated package API", "")
	}
	for _, t := range d.Types {
		add(t.GoName(), "type "+t.Name, t.Ptr)
		add(DecodePrefix+t.GoName(), "decoder of type "+t.Name, t.Ptr)
		add(DecodePrefix+t.GoName()+TreeSuffix, "tree decoder of type "+t.Name, t.Ptr)
		// Reserved for every type, though only a union's variants have one:
		// which types are variants is the emitter's to decide.
		add(DecodePrefix+t.GoName()+BodySuffix, "variant body decoder of type "+t.Name, t.Ptr)
		switch t.Kind {
		case UnionKind:
			add("Marshal"+t.GoName(), "marshaler of union "+t.Name, t.Ptr)
			if t.Open {
				add(t.UnknownGoName(), "unknown variant of open union "+t.Name, t.Ptr)
			}
		case AlternativesKind:
			for _, a := range t.Alternatives {
				add(t.GoName()+"From"+GoName(a.Type), "constructor of "+t.Name, t.Ptr)
			}
		}
		for _, f := range t.Fields {
			add(MemberGoName(t, f), "member name "+f.Name+" of "+t.Name, f.Ptr)
		}
		for _, v := range t.Values {
			add(v.GoName(t), "enum value "+v.String()+" of "+t.Name, v.Ptr)
		}
		for _, v := range t.Variants {
			if v.Type == "" {
				add(v.GoName(t), "variant "+v.Tag+" of "+t.Name, v.Ptr)
			}
			add(TagGoName(t, v), "tag of variant "+v.Tag+" of "+t.Name, v.Ptr)
		}
	}
	for _, m := range d.Methods {
		add(MethodPrefix+m.GoName(), "method "+m.Method, m.Ptr)
	}
	for _, n := range d.Notifications {
		add(NotificationPrefix+n.GoName(), "notification "+n.Method, n.Ptr)
	}
	for _, e := range d.Events {
		add(EventPrefix+e.GoName(), "event "+e.Name, e.Ptr)
	}
	for _, e := range d.Errors {
		add(CodePrefix+e.GoName(), "error "+e.ID, e.Ptr)
		for _, k := range e.Kinds {
			add(KindPrefix+k.GoName(), "error kind "+k.Kind, k.Ptr)
		}
	}
	if len(d.Capabilities) > 0 {
		// Declared only by a package whose contract has capabilities.
		add("Grants", "capability grants", "/capabilities")
		add("GrantsFor", "capability grants", "/capabilities")
	}
	for _, c := range d.Capabilities {
		add(CapabilityPrefix+c.GoName(), "capability "+c.Name, c.Ptr)
	}
	for _, c := range d.OptInCapabilities() {
		add(OptInGoName(c.OptIn), "opt-in "+c.OptIn, c.Ptr+"/optIn")
	}
	for _, c := range d.Constants {
		add(c.Symbol, "constant "+c.ID, c.Ptr)
	}
	for _, e := range d.Entries() {
		if e.Rule != nil || e.Field != nil {
			add(RuleGoName(d.Header.ID, e.ID), "rule "+e.ID, e.Ptr)
		}
	}
	for _, p := range d.Profiles {
		add(ProfilePrefix+p.GoName(), "profile "+p.Name, p.Ptr)
	}
	for _, t := range d.Tables {
		add(t.Symbol, "table "+t.ID, t.Ptr)
		add(t.RowGoName(), "row type of table "+t.ID, t.Ptr)
	}
	sort.SliceStable(ids, func(i, j int) bool { return ids[i].Name < ids[j].Name })
	return ids
}
