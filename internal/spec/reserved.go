package spec

import (
	"strconv"
)

// reservations: a reserved name, code, value or tag is not in use, and
// none is reserved twice.
func (c *checker) reservations() {
	d := c.d
	used := map[string]map[string]bool{
		ReservedMethod: {}, ReservedNotification: {}, ReservedEvent: {}, ReservedError: {}, ReservedErrorKind: {},
	}
	for _, m := range d.Methods {
		used[ReservedMethod][m.Method] = true
	}
	for _, n := range d.Notifications {
		used[ReservedNotification][n.Method] = true
	}
	for _, e := range d.Events {
		used[ReservedEvent][e.Name] = true
	}
	for _, e := range d.Errors {
		used[ReservedError][strconv.FormatInt(e.Code, 10)] = true
		for _, k := range e.Kinds {
			used[ReservedErrorKind][k.Kind] = true
		}
	}
	c.reservedList(d.Reserved, func(r *Reservation) (string, bool) {
		return r.Kind + " " + r.Key(), used[r.Kind][r.Key()]
	})
	for _, t := range d.Types {
		inUse := map[string]bool{}
		for _, f := range t.Fields {
			inUse[f.Name] = true
		}
		for _, v := range t.Values {
			inUse[(&Reservation{Value: v.Value}).Key()] = true
		}
		for _, v := range t.Variants {
			inUse[v.Tag] = true
		}
		c.reservedList(t.Reserved, func(r *Reservation) (string, bool) {
			return t.Name + " " + r.Key(), inUse[r.Key()]
		})
	}
}

func (c *checker) reservedList(rs []*Reservation, key func(*Reservation) (string, bool)) {
	seen := map[string]bool{}
	for _, r := range rs {
		k, inUse := key(r)
		if seen[k] {
			c.errorf(r.Ptr, "%s is reserved twice", k)
		}
		seen[k] = true
		if inUse {
			c.errorf(r.Ptr, "%s is reserved but still in use: reserve a name, code, value or tag only once it is removed", k)
		}
		if CompareVersions(r.Since, c.d.Header.Version) > 0 {
			c.errorf(r.Ptr+"/since", "since %s is later than the domain version %s", r.Since, c.d.Header.Version)
		}
	}
}
