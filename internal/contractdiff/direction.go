package contractdiff

import "github.com/contractkit/contractkit/internal/spec"

// Direction says who sends values of a type. A type can be sent by both
// sides, and then the checks of both directions apply to it.
type Direction uint8

const (
	// ClientSent values are written by clients and read by servers: the
	// params of client-to-server methods and notifications, the results of
	// server-to-client methods, and the events clients send.
	ClientSent Direction = 1 << iota
	// ServerSent values are written by servers and read by clients: results,
	// server-to-client notifications and method params, events, error data
	// and error kind details, capability values.
	ServerSent
	// Both is the direction of a type reachable from both sides, and of a
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

// phrase describes the direction inside a message.
func (d Direction) phrase() string {
	switch d {
	case ClientSent:
		return "clients send it"
	case ServerSent:
		return "the server sends it"
	}
	return "either side may send it"
}

// Directions maps every named type of the domain, by id, to who sends its
// values. A type is reached from the messages that carry it, then through
// field types (array items and map values included), union variants and
// alias targets.
func Directions(d *spec.Domain) map[string]Direction {
	out := reach(d)
	for id, dir := range out {
		if dir == 0 {
			out[id] = Both
		}
	}
	return out
}

// reach is Directions without the default: a type no message reaches maps
// to 0.
func reach(d *spec.Domain) map[string]Direction {
	seen := map[*spec.Type]Direction{}
	var mark func(t *spec.Type, dir Direction)
	markRef := func(r *spec.TypeRef, dir Direction) {
		if r == nil {
			return
		}
		if e := r.Elem(); e.Named != nil {
			mark(e.Named, dir)
		}
	}
	mark = func(t *spec.Type, dir Direction) {
		if t == nil || seen[t]&dir == dir {
			return
		}
		seen[t] |= dir
		switch t.Kind {
		case spec.ObjectKind:
			for _, f := range t.Fields {
				markRef(&f.Type, dir)
			}
		case spec.UnionKind:
			for _, v := range t.Variants {
				mark(v.Object, dir)
			}
		case spec.AliasKind:
			markRef(t.Type, dir)
		}
	}
	// The side that answers a method also sends the errors it lists.
	responders := map[string]Direction{}
	for _, m := range d.Methods {
		caller, responder := ClientSent, ServerSent
		if m.Direction == spec.ServerToClient {
			caller, responder = ServerSent, ClientSent
		}
		mark(m.ParamsType, caller)
		mark(m.ResultType, responder)
		for _, id := range m.Errors {
			responders[id] |= responder
		}
	}
	for _, n := range d.Notifications {
		mark(n.ParamsType, sender(n.Direction))
	}
	for _, e := range d.Events {
		mark(e.PayloadType, sender(e.Direction))
	}
	for _, e := range d.Errors {
		dir := responders[e.ID]
		if dir == 0 {
			dir = ServerSent // errors no method lists come from the server (parse, envelope errors)
		}
		mark(e.DataType, dir)
		for _, k := range e.Kinds {
			mark(k.DetailsType, dir)
		}
	}
	for _, c := range d.Capabilities {
		markRef(&c.Type, ServerSent)
	}
	out := make(map[string]Direction, len(d.Types))
	for _, t := range d.Types {
		out[t.ID] = seen[t]
	}
	return out
}

func sender(direction string) Direction {
	if direction == spec.ClientToServer {
		return ClientSent
	}
	return ServerSent
}
