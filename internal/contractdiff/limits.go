package contractdiff

import (
	"fmt"
	"sort"

	"github.com/contractkit/contractkit/internal/contractdiff/witness"
	"github.com/contractkit/contractkit/internal/spec"
)

// limit judges a changed limit constant by the flow of values it bounds
// (its direction): raising a maximum, or lowering a minimum, widens what
// the sending party may send and breaks receivers out there when this
// repository implements a sender; the reverse narrows what the receiving
// party accepts and breaks senders out there when it implements a
// receiver. A limit on what a party keeps for itself is seen by no peer.
func (c *comparer) limit(w where, b, a *spec.Constant) {
	bv, av := canonicalRaw(b.Value), canonicalRaw(a.Value)
	dirn := a.Direction
	if dirn == nil {
		dirn = b.Direction
	}
	var dir Direction
	for _, end := range dirn.Senders(c.cur) {
		dir |= endOf(end)
	}
	// A bound that rejects what lies beyond the limit makes its value's
	// flow the limit's too; a clamped one moves such a value into range.
	uses := c.boundUses(a.ID)
	for _, u := range uses {
		if !u.clamped {
			dir |= c.typeDir(u.typ.ID)
		}
	}
	x, okx := jsonNumber(b.Value)
	y, oky := jsonNumber(a.Value)
	s := replaces // a limit that is not a number cannot be ordered
	if okx && oky {
		s = narrows
		if (y.Cmp(x) > 0) != dirn.Minimum() {
			s = widens
		}
	}
	what := "raised"
	if okx && oky && y.Cmp(x) < 0 {
		what = "lowered"
	} else if !okx || !oky {
		what = "changed"
	}
	if dir == 0 {
		party := "a party"
		if dirn != nil {
			party = dirn.Party
		}
		c.add(RuleInternalLimitChanged, w, 0, bv, av, "%s %s was %s from %s to %s; it bounds what %s keeps for itself, which no peer sees", constantNoun(a), a.ID, what, bv, av, party)
		return
	}
	// The witness is a value at a bound that rejects: a limit only
	// clamped, or not used by any schema, bounds a flow no JSON value of
	// the spec shows (a body size, a count of requests).
	var p witness.Probe
	w.typ = ""
	if len(uses) > 0 && !uses[0].clamped && okx && oky {
		u := uses[0]
		p = witness.Probe{Type: u.typ.ID, Field: u.field, Tag: u.alt, Constant: a.ID}
		switch {
		case u.count == "":
			p = numbers(p, x, y, u.upper)
		case x.IsInt() && y.IsInt():
			// A length or a number of items between the two values.
			bn, an := x.Num().Int64(), y.Num().Int64()
			p.Op, p.Counts = witness.OpItems, positive(belowCounts(&bn, &an))
			if u.upper {
				p.Counts = positive(aboveCounts(&bn, &an))
			}
			if u.count == "maxLength" || u.count == "minLength" {
				p.Op = witness.OpLength
			}
		}
		w.typ = u.typ.ID
	}
	c.judge(w, dir, s, RuleLimitNarrowed, RuleLimitWidened, bv, av,
		fmt.Sprintf("%s %s was %s from %s to %s (%s)", constantNoun(a), a.ID, what, bv, av, describeLimit(dirn)), p)
	if i := len(c.out) - 1; i >= 0 {
		// List every message a bound on the limit reaches.
		msgs := map[string]bool{}
		for _, m := range c.out[i].Messages {
			msgs[m] = true
		}
		for _, u := range uses {
			if r := c.reached[u.typ.ID]; r != nil {
				for m := range r.messages {
					msgs[m] = true
				}
			}
		}
		c.out[i].Messages = sortedKeys(msgs)
	}
}

// constantNoun names the kind of a constant judged as a bound.
func constantNoun(k *spec.Constant) string {
	if k.Kind == spec.ProtocolConstant {
		return "protocol constant"
	}
	return "limit"
}

func describeLimit(l *spec.LimitDirection) string {
	if l == nil {
		return "no direction given"
	}
	if l.Bounds == spec.BoundsExact {
		return "both ends must agree on it exactly"
	}
	out := "bounds what " + l.Party + " " + l.Bounds
	if l.Bounds == spec.BoundsBoth {
		out = "bounds what " + l.Party + " sends and accepts"
	}
	if l.Minimum() {
		out += ", a minimum"
	}
	return out
}

// boundUse is one constraint of the current spec whose bound names a
// limit constant.
type boundUse struct {
	typ     *spec.Type
	field   string // "" for an alias or alternative
	alt     string // the alternative's kind, for an alternatives type
	upper   bool
	clamped bool
	// count names the count bound ("maxItems", "maxLength", ...) that
	// names the limit, "" for a numeric minimum or maximum.
	count string
}

// boundUses lists the constraints bounded by constant id, sorted by type id.
func (c *comparer) boundUses(id string) []boundUse {
	var out []boundUse
	check := func(t *spec.Type, field, alt string, k *spec.Constraints) {
		if k == nil {
			return
		}
		if k.Maximum != nil && k.Maximum.Constant == id {
			out = append(out, boundUse{t, field, alt, true, k.Clamp, ""})
		}
		if k.Minimum != nil && k.Minimum.Constant == id {
			out = append(out, boundUse{t, field, alt, false, k.Clamp, ""})
		}
		// Counts are never clamped: a value beyond one is rejected.
		for _, n := range []struct {
			ref   string
			name  string
			upper bool
		}{{k.MaxItemsConstant, "maxItems", true}, {k.MaxLengthConstant, "maxLength", true},
			{k.MinItemsConstant, "minItems", false}, {k.MinLengthConstant, "minLength", false}} {
			if n.ref == id {
				out = append(out, boundUse{t, field, alt, n.upper, false, n.name})
			}
		}
	}
	for _, t := range c.cur.Types {
		for _, f := range t.Fields {
			if own(f, t) {
				check(t, f.Name, "", f.Constraints)
			}
		}
		if t.Kind == spec.AliasKind {
			check(t, "", "", t.Constraints)
		}
		for _, a := range t.Alternatives {
			check(t, "", a.Type, a.Constraints)
		}
	}
	// Bounds that reject come first: their witnesses show the change.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].clamped != out[j].clamped {
			return !out[i].clamped
		}
		return out[i].typ.ID < out[j].typ.ID
	})
	return out
}
