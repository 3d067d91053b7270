package contractdiff

// The comparison of constraints: bounds on lengths, counts and numbers,
// patterns and constants, and the exact numbers that witness them.

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/contractkit/contractkit/internal/contractdiff/witness"
	"github.com/contractkit/contractkit/internal/spec"
)

// constraints compares the constraints of one value. Each constraint is a
// bound on the set of valid values: tightening it narrows the set,
// loosening it widens the set, and judge decides what that means for the
// parties. p names the value (a type, or a member of one) for witnesses.
func (c *comparer) constraints(w where, b, a *spec.Constraints, dir Direction, p witness.Probe) {
	if b == nil {
		b = &spec.Constraints{}
	}
	if a == nil {
		a = &spec.Constraints{}
	}
	cw := func(name string) where { return w.at("constraints").at(name) }
	// count judges one bound on a length or an item count: an upper bound
	// (maxLength, maxItems) narrows when lowered, a lower one when raised;
	// absent is the widest. A bound that names the same limit constant on
	// both sides moves with it: the change is judged once, on the constant.
	count := func(name string, upper bool, bc, ac string, bv, av *int64, narrowRule string, op witness.Op) {
		if bc != "" && bc == ac {
			return
		}
		classify, counts := lowerShift, belowCounts
		if upper {
			classify, counts = upperShift, aboveCounts
		}
		s, ok := classify(intRat(bv), intRat(av))
		if !ok {
			return
		}
		q := with(p, op)
		q.Counts = positive(counts(bv, av))
		c.judge(cw(name), dir, s, narrowRule, RuleBoundWidened, intJSON(bv), intJSON(av), describe(name, w.name, intJSON(bv), intJSON(av)), q)
	}
	count("maxLength", true, b.MaxLengthConstant, a.MaxLengthConstant, b.MaxLength, a.MaxLength, RuleMaxLengthLowered, witness.OpLength)
	count("minLength", false, b.MinLengthConstant, a.MinLengthConstant, b.MinLength, a.MinLength, RuleMinLengthRaised, witness.OpLength)
	if b.Pattern != a.Pattern {
		s := replaces
		switch {
		case b.Pattern == "":
			s = narrows
		case a.Pattern == "":
			s = widens
		}
		bp, ap := strOrEmpty(b.Pattern), strOrEmpty(a.Pattern)
		c.judge(cw("pattern"), dir, s, RulePatternChanged, RuleBoundWidened, bp, ap, describe("pattern", w.name, bp, ap), with(p, witness.OpPattern))
	}
	// A clamped value is never rejected for its range: a receiver moves it
	// into the range. Its bounds change what is done with a value, not
	// which values are accepted.
	clamped := b.Clamp && a.Clamp
	numeric := func(s shift) shift {
		if clamped {
			return 0
		}
		return s
	}
	if !sameConstant(b.Minimum, a.Minimum) {
		if s, ok := lowerShift(boundRat(b.Minimum), boundRat(a.Minimum)); ok {
			c.judge(cw("minimum"), dir, numeric(s), RuleMinimumRaised, RuleBoundWidened, boundJSON(b.Minimum), boundJSON(a.Minimum),
				describe("minimum", w.name, boundJSON(b.Minimum), boundJSON(a.Minimum)), numbers(p, boundRat(b.Minimum), boundRat(a.Minimum), false))
		}
	}
	if !sameConstant(b.Maximum, a.Maximum) {
		if s, ok := upperShift(boundRat(b.Maximum), boundRat(a.Maximum)); ok {
			c.judge(cw("maximum"), dir, numeric(s), RuleMaximumLowered, RuleBoundWidened, boundJSON(b.Maximum), boundJSON(a.Maximum),
				describe("maximum", w.name, boundJSON(b.Maximum), boundJSON(a.Maximum)), numbers(p, boundRat(b.Maximum), boundRat(a.Maximum), true))
		}
	}
	count("minItems", false, b.MinItemsConstant, a.MinItemsConstant, b.MinItems, a.MinItems, RuleItemBoundsNarrowed, witness.OpItems)
	count("maxItems", true, b.MaxItemsConstant, a.MaxItemsConstant, b.MaxItems, a.MaxItems, RuleItemBoundsNarrowed, witness.OpItems)
	if bc, ac := canonicalRaw(b.Const), canonicalRaw(a.Const); bc != ac {
		s := replaces
		switch {
		case bc == "":
			s = narrows
		case ac == "":
			s = widens
		}
		q := with(p, witness.OpSet)
		for _, v := range []json.RawMessage{c.resolve(c.base, b.Const), c.resolve(c.cur, a.Const)} {
			if len(v) > 0 {
				q.Values = append(q.Values, v)
			}
		}
		q.Values = append(q.Values, otherValues(q.Values)...)
		c.judge(cw("const"), dir, s, RuleConstChanged, RuleConstChanged, bc, ac, describe("const", w.name, bc, ac), q)
	}
	if b.Clamp != a.Clamp {
		s := narrows
		if a.Clamp {
			s = widens
		}
		var lo, hi *big.Rat
		if k := map[bool]*spec.Constraints{true: b, false: a}[!a.Clamp]; k != nil {
			lo, hi = boundRat(k.Minimum), boundRat(k.Maximum)
		}
		q := with(p, witness.OpSet)
		if hi != nil {
			q.Values = append(q.Values, ratJSON(new(big.Rat).Add(hi, big.NewRat(1, 1))))
		}
		if lo != nil {
			q.Values = append(q.Values, ratJSON(new(big.Rat).Sub(lo, big.NewRat(1, 1))))
		}
		c.judge(cw("clamp"), dir, s, RuleClampRemoved, RuleBoundWidened, strconv.FormatBool(b.Clamp), strconv.FormatBool(a.Clamp),
			describe("clamp", w.name, strconv.FormatBool(b.Clamp), strconv.FormatBool(a.Clamp)), q)
	}
}

// resolve returns a const or default value through its constant.
func (c *comparer) resolve(d *spec.Domain, raw json.RawMessage) json.RawMessage {
	if id := spec.ConstantRef(raw); id != "" {
		if k := d.LookupConstant(id); k != nil {
			return k.Value
		}
	}
	return raw
}

// otherValues are values of the kinds of vs that none of them is.
func otherValues(vs []json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for _, v := range vs {
		s := strings.TrimSpace(string(v))
		switch {
		case s == "true":
			out = append(out, json.RawMessage("false"))
		case s == "false":
			out = append(out, json.RawMessage("true"))
		case strings.HasPrefix(s, `"`):
			out = append(out, json.RawMessage(`"x-witness-other"`))
		default:
			if r, ok := new(big.Rat).SetString(s); ok {
				out = append(out, ratJSON(new(big.Rat).Add(r, big.NewRat(1, 1))))
			}
		}
	}
	return out
}

// numbers builds the probe of a changed numeric bound: values between the
// two bounds, which one side accepts and the other rejects.
func numbers(p witness.Probe, b, a *big.Rat, upper bool) witness.Probe {
	q := with(p, witness.OpSet)
	one := big.NewRat(1, 1)
	var cands []*big.Rat
	add := func(r *big.Rat) {
		if r != nil {
			cands = append(cands, r)
		}
	}
	switch {
	case b != nil && a != nil:
		lo, hi := b, a
		if lo.Cmp(hi) > 0 {
			lo, hi = hi, lo
		}
		// Between the bounds, at both ends and in the middle.
		if upper {
			add(new(big.Rat).Add(lo, one))
			add(hi)
		} else {
			add(new(big.Rat).Sub(hi, one))
			add(lo)
		}
		mid := new(big.Rat).Add(lo, hi)
		add(mid.Quo(mid, big.NewRat(2, 1)))
	case b != nil || a != nil:
		x := b
		if x == nil {
			x = a
		}
		if upper {
			add(new(big.Rat).Add(x, one))
		} else {
			add(new(big.Rat).Sub(x, one))
		}
	}
	for _, r := range cands {
		q.Values = append(q.Values, ratJSON(r))
	}
	return q
}

func ratJSON(r *big.Rat) json.RawMessage {
	if r.IsInt() {
		return json.RawMessage(r.Num().String())
	}
	f, _ := r.Float64()
	return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64))
}

// aboveCounts are lengths or counts between two upper bounds (nil is none).
func aboveCounts(b, a *int64) []int {
	switch {
	case b != nil && a != nil:
		lo, hi := min(*b, *a), max(*b, *a)
		return []int{int(lo) + 1, int(hi), int(lo+hi)/2 + 1}
	case b != nil:
		return []int{int(*b) + 1, int(*b) + 8}
	case a != nil:
		return []int{int(*a) + 1, int(*a) + 8}
	}
	return nil
}

// belowCounts are lengths or counts between two lower bounds.
func belowCounts(b, a *int64) []int {
	lo := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	x, y := lo(b), lo(a)
	if x > y {
		x, y = y, x
	}
	return []int{int(y) - 1, int(x), int(x+y) / 2}
}

func positive(ns []int) []int {
	var out []int
	for _, n := range ns {
		if n >= 0 {
			out = append(out, n)
		}
	}
	return out
}

// describe says how a constraint changed, for a message.
func describe(what, name, before, after string) string {
	switch {
	case before == "":
		return fmt.Sprintf("%s %s was added to %s", what, after, name)
	case after == "":
		return fmt.Sprintf("%s %s was removed from %s", what, before, name)
	}
	return fmt.Sprintf("%s of %s changed from %s to %s", what, name, before, after)
}

// upperShift classifies a change of an upper bound (nil is unbounded).
func upperShift(b, a *big.Rat) (shift, bool) { return boundShift(b, a, -1) }

// lowerShift classifies a change of a lower bound (nil is unbounded).
func lowerShift(b, a *big.Rat) (shift, bool) { return boundShift(b, a, 1) }

// boundShift classifies a change of a bound from b to a (nil is
// unbounded): tighter is the sign of a.Cmp(b) that admits fewer values,
// -1 for an upper bound and 1 for a lower one. Gaining a bound narrows
// and losing one widens whichever side it is on.
func boundShift(b, a *big.Rat, tighter int) (shift, bool) {
	switch {
	case b == nil && a == nil:
		return 0, false
	case b == nil:
		return narrows, true
	case a == nil:
		return widens, true
	}
	switch a.Cmp(b) {
	case tighter:
		return narrows, true
	case -tighter:
		return widens, true
	}
	return 0, false
}

func intRat(p *int64) *big.Rat {
	if p == nil {
		return nil
	}
	return big.NewRat(*p, 1)
}

func intJSON(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

func strOrEmpty(s string) string {
	if s == "" {
		return ""
	}
	return quote(s)
}

// boundRat is the value of a bound, through its constant if it names one.
func boundRat(b *spec.Bound) *big.Rat {
	if b == nil {
		return nil
	}
	v := b.Value
	if v == "" {
		v = b.Literal
	}
	r, ok := new(big.Rat).SetString(string(v))
	if !ok {
		return nil
	}
	return r
}

func boundJSON(b *spec.Bound) string {
	if b == nil {
		return ""
	}
	if b.Value != "" {
		return string(b.Value)
	}
	return string(b.Literal)
}

// sameConstant reports whether both bounds name the same constant: a
// change of its value is reported once, on the constant.
func sameConstant(b, a *spec.Bound) bool {
	return b != nil && a != nil && b.Constant != "" && b.Constant == a.Constant
}

// jsonNumber reports whether raw is a JSON number, and its value.
func jsonNumber(raw json.RawMessage) (*big.Rat, bool) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s[0] == '"' {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}
