package docemit

import (
	"strings"

	"github.com/contractkit/contractkit/internal/spec"
)

// sends lists, in the page's language, the kinds of message the party
// sends in this domain: what follows from its end and the directions of
// the domain's methods, notifications and events.
func (r *renderer) sends(p *spec.Party) string {
	d := r.d
	var kinds []spec.Text
	has := func(ok bool, en, ru string) {
		if ok {
			kinds = append(kinds, spec.Text{EN: en, RU: ru})
		}
	}
	any := func(dirs []string, dir string) bool {
		for _, x := range dirs {
			if x == dir {
				return true
			}
		}
		return false
	}
	var methodDirs, noteDirs, eventDirs []string
	for _, m := range d.Methods {
		methodDirs = append(methodDirs, m.Direction)
	}
	for _, n := range d.Notifications {
		noteDirs = append(noteDirs, n.Direction)
	}
	for _, e := range d.Events {
		eventDirs = append(eventDirs, e.Direction)
	}
	out := spec.ClientToServer
	if p.End == spec.ServerEnd {
		out = spec.ServerToClient
	}
	in := spec.ServerToClient
	if out == in {
		in = spec.ClientToServer
	}
	has(any(methodDirs, out), "method params", "параметры методов")
	has(any(methodDirs, in), "method results and errors", "результаты и ошибки методов")
	has(any(noteDirs, out), "notifications", "уведомления")
	has(any(eventDirs, out), "events", "события")
	has(p.End == spec.ServerEnd && len(d.Capabilities) > 0, "capabilities", "возможности")
	if len(kinds) == 0 {
		return "—"
	}
	var parts []string
	for _, k := range kinds {
		parts = append(parts, k.Get(r.lang))
	}
	return strings.Join(parts, ", ")
}

// limitBounds says in words what a limit bounds.
func (r *renderer) limitBounds(c *spec.Constant) string {
	l := c.Direction
	if l == nil {
		return "—"
	}
	var t spec.Text
	switch l.Bounds {
	case spec.BoundsSends:
		t = spec.Text{EN: "what " + l.Party + " sends", RU: "что отправляет " + l.Party}
	case spec.BoundsAccepts:
		t = spec.Text{EN: "what " + l.Party + " accepts", RU: "что принимает " + l.Party}
	case spec.BoundsBoth:
		t = spec.Text{EN: "what " + l.Party + " sends and accepts", RU: "что отправляет и принимает " + l.Party}
	default:
		t = spec.Text{EN: "what " + l.Party + " keeps for itself", RU: "что " + l.Party + " держит у себя"}
	}
	if l.Minimum() {
		t.EN += " (a minimum)"
		t.RU += " (минимум)"
	}
	return Escape(t.Get(r.lang))
}
