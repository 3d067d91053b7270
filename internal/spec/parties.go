package spec

import (
	"bytes"
	"encoding/json"
)

// Ends of a protocol. Every message of a spec travels between the two:
// the direction of a method, notification or event names them.
const (
	ClientEnd = "client"
	ServerEnd = "server"
)

// Party is one end of a protocol as the domain names it: the AG-UI
// producer (an agent) sits at the server end and the checker that consumes
// its events at the client end, while the IDE editor is the client and the
// eska backend the server.
type Party struct {
	Name        string `json:"name"`
	End         string `json:"end"`
	Implemented bool   `json:"implemented"`
	Title       Text   `json:"title"`
	Description Text   `json:"description"`
}

// defaultParties is what a spec without parties (one written before they
// existed, read as a contractdiff baseline) meant: this repository is the
// server of a client-server protocol.
var defaultParties = []*Party{
	{Name: ClientEnd, End: ClientEnd, Title: Text{EN: "Client", RU: "Клиент"}},
	{Name: ServerEnd, End: ServerEnd, Implemented: true, Title: Text{EN: "Server", RU: "Сервер"}},
}

// Parties returns the domain's two parties, client end first.
func (d *Domain) Parties() []*Party {
	ps := d.Header.Parties
	if len(ps) != 2 {
		return defaultParties
	}
	if ps[0].End == ServerEnd {
		return []*Party{ps[1], ps[0]}
	}
	return ps
}

// PartyAt returns the party at an end (ClientEnd or ServerEnd).
func (d *Domain) PartyAt(end string) *Party {
	ps := d.Parties()
	if end == ServerEnd {
		return ps[1]
	}
	return ps[0]
}

// LookupParty returns the party with the given name, or nil.
func (d *Domain) LookupParty(name string) *Party {
	for _, p := range d.Parties() {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Sender returns the end that sends a message travelling in direction
// (ClientToServer or ServerToClient).
func Sender(direction string) string {
	if direction == ClientToServer {
		return ClientEnd
	}
	return ServerEnd
}

// Other returns the other end.
func Other(end string) string {
	if end == ClientEnd {
		return ServerEnd
	}
	return ClientEnd
}

// What a limit bounds: the size or number of what a party sends, what it
// accepts, or a resource it keeps for itself that the other party never
// sees (a queue, a budget).
const (
	BoundsSends   = "sends"
	BoundsAccepts = "accepts"
	// BoundsBoth: what the party sends and what it accepts, such as a
	// line limit that holds for requests and responses alike.
	BoundsBoth  = "sends-and-accepts"
	BoundsKeeps = "keeps"
	// BoundsExact: a protocol constant both ends must agree on exactly
	// (a version string, a header name); it names no party.
	BoundsExact = "exact"
)

// LimitDirection says which flow of values a limit bounds, and whether it
// is a maximum (the default) or a minimum.
type LimitDirection struct {
	Party  string `json:"party"`
	Bounds string `json:"bounds"`
	// Bound is "min" for a lower bound (a shortest interval, a smallest
	// count); "" or "max" is an upper bound.
	Bound string `json:"bound,omitempty"`
}

// Exact reports whether the constant is one both ends must agree on
// exactly rather than a bound: BoundsExact, or no direction at all.
func (l *LimitDirection) Exact() bool { return l == nil || l.Bounds == BoundsExact }

// Minimum reports whether the limit is a lower bound.
func (l *LimitDirection) Minimum() bool { return l != nil && l.Bound == "min" }

// Senders returns the ends whose messages the limit bounds: none for a
// limit on what a party keeps for itself, both for one on what it sends
// and accepts.
func (l *LimitDirection) Senders(d *Domain) []string {
	if l == nil {
		return nil
	}
	p := d.LookupParty(l.Party)
	if p == nil {
		return nil
	}
	switch l.Bounds {
	case BoundsSends:
		return []string{p.End}
	case BoundsAccepts:
		return []string{Other(p.End)}
	case BoundsBoth:
		return []string{ClientEnd, ServerEnd}
	}
	return nil
}

// Reservation keeps a removed wire name, code, enum value or union tag
// from coming back with another meaning. Inside a type it names a field
// (Name), an enum value (Value) or a union tag (Tag); at the top level of a
// spec it names a method, notification or event (Kind and Name) or an
// error code (Kind "error" and Code).
type Reservation struct {
	Kind   string          `json:"kind,omitempty"`
	Name   string          `json:"name,omitempty"`
	Code   *int64          `json:"code,omitempty"`
	Value  json.RawMessage `json:"value,omitempty"`
	Tag    string          `json:"tag,omitempty"`
	Since  string          `json:"since"`
	Reason Text            `json:"reason"`

	Ptr string `json:"-"`
}

// Reservation kinds at the top level of a spec.
const (
	ReservedMethod       = "method"
	ReservedNotification = "notification"
	ReservedEvent        = "event"
	ReservedError        = "error"
	ReservedErrorKind    = "error-kind"
)

// Key is what the reservation keeps: the name, the code, the compact JSON
// of the value, or the tag.
func (r *Reservation) Key() string {
	switch {
	case r.Code != nil:
		b, _ := json.Marshal(*r.Code)
		return string(b)
	case len(r.Value) > 0:
		var out bytes.Buffer
		if json.Compact(&out, r.Value) == nil {
			return out.String()
		}
		return string(r.Value)
	case r.Tag != "":
		return r.Tag
	}
	return r.Name
}

// Reserves reports whether one of rs keeps key (for the given top-level
// kind, or any kind when kind is "").
func Reserves(rs []*Reservation, kind, key string) *Reservation {
	for _, r := range rs {
		if (kind == "" || r.Kind == kind) && r.Key() == key {
			return r
		}
	}
	return nil
}

// LookupRule returns the rule with the given id, or nil.
func (d *Domain) LookupRule(id string) *Rule {
	for _, r := range d.Rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// LookupProfile returns the profile with the given id, or nil.
func (d *Domain) LookupProfile(id string) *Profile {
	for _, p := range d.Profiles {
		if p.ID == id {
			return p
		}
	}
	return nil
}
