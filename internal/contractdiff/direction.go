package contractdiff

import (
	"sort"
	"strconv"

	"github.com/contractkit/contractkit/internal/spec"
)

// Direction says which end of the protocol sends values of a type. A type
// can be sent by both ends, and then the judgements of both apply to it.
// Which party sits at each end, and whether this repository implements
// it, is the domain's to say (spec.Party); Direction only names the ends.
type Direction uint8

const (
	// ClientSent values are written by the party at the client end: the
	// params of client-to-server methods and notifications, the results
	// and errors of server-to-client methods, client-to-server events.
	ClientSent Direction = 1 << iota
	// ServerSent values are written by the party at the server end:
	// results and errors of client-to-server methods, params of
	// server-to-client methods and notifications, events (by default),
	// error data and details, capability values.
	ServerSent
	// Both is the direction of a type reachable from both ends, and of a
	// type no message reaches: the spec does not say who sends it, so it
	// is judged both ways.
	Both = ClientSent | ServerSent
)

// String names the direction as reports show it.
func (d Direction) String() string {
	switch d {
	case ClientSent:
		return "client-sent"
	case ServerSent:
		return "server-sent"
	case Both:
		return "both"
	}
	return ""
}

// endOf returns the direction bit of an end.
func endOf(end string) Direction {
	if end == spec.ClientEnd {
		return ClientSent
	}
	return ServerSent
}

// reachInfo is what reaches a type: the ends that send it and the
// messages (in words, such as "method get result") whose values contain it.
type reachInfo struct {
	dir      Direction
	messages map[string]bool
	// roots maps the ids of the message types whose values contain it
	// (where witnesses are built) to the message they are.
	roots map[string]string
}

// Directions maps every named type of the domain, by id, to who sends its
// values. A type is reached from the messages that carry it, then through
// field types (array items and map values included), included types,
// union variants and alias targets.
func Directions(d *spec.Domain) map[string]Direction {
	out := map[string]Direction{}
	for id, r := range reach(d) {
		dir := r.dir
		if dir == 0 {
			dir = Both
		}
		out[id] = dir
	}
	return out
}

// reach finds, for every type by id, the ends that send it and the
// messages that carry it. A type no message reaches has direction 0.
func reach(d *spec.Domain) map[string]*reachInfo {
	info := map[*spec.Type]*reachInfo{}
	get := func(t *spec.Type) *reachInfo {
		r := info[t]
		if r == nil {
			r = &reachInfo{messages: map[string]bool{}, roots: map[string]string{}}
			info[t] = r
		}
		return r
	}
	var mark func(t *spec.Type, dir Direction, msg, root string)
	markRef := func(r *spec.TypeRef, dir Direction, msg, root string) {
		if r == nil {
			return
		}
		if e := r.Elem(); e.Named != nil {
			mark(e.Named, dir, msg, root)
		}
	}
	mark = func(t *spec.Type, dir Direction, msg, root string) {
		if t == nil {
			return
		}
		r := get(t)
		if r.dir&dir == dir && r.messages[msg] {
			return
		}
		r.dir |= dir
		r.messages[msg] = true
		if _, ok := r.roots[root]; !ok {
			r.roots[root] = msg
		}
		switch t.Kind {
		case spec.ObjectKind:
			// Included types are reached by whatever reaches the type
			// that includes them: their fields are its fields.
			for _, name := range t.Include {
				mark(d.LookupType(name), dir, msg, root)
			}
			for _, f := range t.Fields {
				markRef(&f.Type, dir, msg, root)
			}
		case spec.UnionKind:
			for _, v := range t.Variants {
				mark(v.Object, dir, msg, root)
			}
		case spec.AliasKind:
			markRef(t.Type, dir, msg, root)
		}
	}
	rootOf := func(t *spec.Type) string {
		if t == nil {
			return ""
		}
		return t.ID
	}
	// The end that answers a method also sends the errors it lists.
	responders := map[string]Direction{}
	for _, m := range d.Methods {
		caller := endOf(spec.Sender(m.Direction))
		responder := Both &^ caller
		mark(m.ParamsType, caller, "method "+m.Method+" params", rootOf(m.ParamsType))
		mark(m.ResultType, responder, "method "+m.Method+" result", rootOf(m.ResultType))
		for _, id := range m.Errors {
			responders[id] |= responder
		}
	}
	for _, n := range d.Notifications {
		mark(n.ParamsType, endOf(spec.Sender(n.Direction)), "notification "+n.Method, rootOf(n.ParamsType))
	}
	for _, e := range d.Events {
		mark(e.PayloadType, endOf(spec.Sender(e.Direction)), "event "+e.Name, rootOf(e.PayloadType))
	}
	for _, e := range d.Errors {
		dir := responders[e.ID]
		if dir == 0 {
			dir = ServerSent // errors no method lists come from the server (parse, envelope errors)
		}
		code := strconv.FormatInt(e.Code, 10)
		mark(e.DataType, dir, "error "+code+" data", rootOf(e.DataType))
		for _, k := range e.Kinds {
			mark(k.DetailsType, dir, "error kind "+k.Kind+" details", rootOf(k.DetailsType))
		}
	}
	for _, c := range d.Capabilities {
		if e := c.Type.Elem(); e.Named != nil {
			markRef(&c.Type, ServerSent, "capability "+c.Name, e.Named.ID)
		}
	}
	out := make(map[string]*reachInfo, len(d.Types))
	for _, t := range d.Types {
		r := info[t]
		if r == nil {
			r = &reachInfo{messages: map[string]bool{}, roots: map[string]string{}}
		}
		delete(r.roots, "")
		out[t.ID] = r
	}
	return out
}

// sortedKeys returns the keys of a set in order.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sides is what the judgements need to know about the parties: which
// ends this repository implements, and what the parties are called.
type sides struct {
	client, server *spec.Party
}

func sidesOf(d *spec.Domain) sides {
	return sides{client: d.PartyAt(spec.ClientEnd), server: d.PartyAt(spec.ServerEnd)}
}

func (s sides) at(end Direction) *spec.Party {
	if end == ClientSent {
		return s.client
	}
	return s.server
}

// narrowingBreaks reports whether narrowing values of direction dir breaks
// a peer: when this repository implements a receiver of them, it starts
// rejecting what senders built from the baseline send.
func (s sides) narrowingBreaks(dir Direction) bool {
	return (dir&ClientSent != 0 && s.server.Implemented) || (dir&ServerSent != 0 && s.client.Implemented)
}

// wideningBreaks reports whether widening values of direction dir breaks a
// peer: when this repository implements a sender of them, it may start
// sending what receivers built from the baseline reject.
func (s sides) wideningBreaks(dir Direction) bool {
	return (dir&ClientSent != 0 && s.client.Implemented) || (dir&ServerSent != 0 && s.server.Implemented)
}

// phrase says who sends values of dir and who implements what, for a
// finding's message.
func (s sides) phrase(dir Direction) string {
	who := func(end Direction) string {
		p := s.at(end)
		recv := s.at(Both &^ end)
		out := p.Name + " sends it"
		switch {
		case p.Implemented && recv.Implemented:
			out += " (both " + p.Name + " and " + recv.Name + " are implemented here)"
		case p.Implemented:
			out += " (implemented here)"
		case recv.Implemented:
			out += " to " + recv.Name + " (implemented here)"
		}
		return out
	}
	switch dir {
	case ClientSent:
		return who(ClientSent)
	case ServerSent:
		return who(ServerSent)
	}
	return "either side may send it"
}
