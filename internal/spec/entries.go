package spec

import "strings"

// Reserved id kinds: the sections of a spec. Rule kinds a domain declares
// must not reuse them.
const (
	KindType         = "type"
	KindMethod       = "method"
	KindNotification = "notification"
	KindEvent        = "event"
	KindError        = "error"
	KindErrorKind    = "error-kind"
	KindCapability   = "capability"
	KindProfile      = "profile"
	KindTable        = "table"
)

var reservedKinds = map[string]bool{
	KindType: true, KindMethod: true, KindNotification: true, KindEvent: true, KindError: true,
	KindErrorKind: true, KindCapability: true, KindProfile: true, KindTable: true,
	string(LimitConstant): true, string(DefaultConstant): true, string(ProtocolConstant): true,
}

// IsReservedKind reports whether kind names a spec section rather than a rule table.
func IsReservedKind(kind string) bool { return reservedKinds[kind] }

// EntryRef is a uniform view of every id-carrying element of a domain, for
// counting, docs and comparison.
type EntryRef struct {
	ID          string
	Kind        string // the id's middle segment
	Title       Text
	Requirement *Text
	Rationale   *Text
	Stability   Stability
	Since       string
	Source      []SourceRef
	Ptr         string

	// Exactly one of these is set: the element the entry is.
	Rule         *Rule
	Field        *Field
	Method       *Method
	Notification *Notification
	Event        *Event
	Error        *Error
	ErrorKind    *ErrorKind
	Constant     *Constant
	Capability   *Capability
	Type         *Type
	Profile      *Profile
	Table        *Table
}

// Normative reports whether the entry states a requirement (rules, id'd
// fields, methods, notifications, events, errors and error kinds). These
// are the entries that must be traceable to an implementation.
func (e *EntryRef) Normative() bool { return e.Requirement != nil }

// Entries lists every entry of the domain sorted by id.
func (d *Domain) Entries() []*EntryRef {
	var out []*EntryRef
	add := func(en *Entry, ref *EntryRef) {
		ref.ID, ref.Kind, ref.Title = en.ID, idKind(en.ID), en.Title
		ref.Requirement, ref.Rationale = en.Requirement, en.Rationale
		ref.Stability, ref.Since, ref.Source, ref.Ptr = en.Stability, en.Since, en.Source, en.Ptr
		out = append(out, ref)
	}
	for _, c := range d.Constants {
		add(&c.Entry, &EntryRef{Constant: c})
	}
	for _, t := range d.Types {
		out = append(out, &EntryRef{ID: t.ID, Kind: idKind(t.ID), Title: t.Title, Stability: t.Stability, Since: t.Since, Ptr: t.Ptr, Type: t})
		for _, f := range t.Fields {
			if f.ID == "" {
				continue
			}
			out = append(out, &EntryRef{ID: f.ID, Kind: idKind(f.ID), Title: *f.Title, Requirement: f.Requirement,
				Rationale: f.Rationale, Stability: f.Stability, Since: f.Since, Source: f.Source, Ptr: f.Ptr, Field: f})
		}
	}
	for _, m := range d.Methods {
		add(&m.Entry, &EntryRef{Method: m})
	}
	for _, n := range d.Notifications {
		add(&n.Entry, &EntryRef{Notification: n})
	}
	for _, e := range d.Events {
		add(&e.Entry, &EntryRef{Event: e})
	}
	for _, e := range d.Errors {
		add(&e.Entry, &EntryRef{Error: e})
		for _, k := range e.Kinds {
			add(&k.Entry, &EntryRef{ErrorKind: k})
		}
	}
	for _, c := range d.Capabilities {
		add(&c.Entry, &EntryRef{Capability: c})
	}
	for _, r := range d.Rules {
		add(&r.Entry, &EntryRef{Rule: r})
	}
	for _, p := range d.Profiles {
		add(&p.Entry, &EntryRef{Profile: p})
	}
	for _, t := range d.Tables {
		add(&t.Entry, &EntryRef{Table: t})
	}
	sortByID(out, func(e *EntryRef) string { return e.ID })
	return out
}

// EntriesOfKind lists the entries whose id kind is kind, sorted by id.
func (d *Domain) EntriesOfKind(kind string) []*EntryRef {
	var out []*EntryRef
	for _, e := range d.Entries() {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// idKind returns the middle segment of <domain>.<kind>.<name>.
func idKind(id string) string {
	parts := strings.SplitN(id, ".", 3)
	if len(parts) < 3 {
		return ""
	}
	return parts[1]
}

// IDKind is idKind for other packages.
func IDKind(id string) string { return idKind(id) }
