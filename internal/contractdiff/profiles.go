package contractdiff

import (
	"github.com/contractkit/contractkit/internal/spec"
)

// profiles compares the profiles of the two revisions. A profile is a
// promise about a subset of the contract: an event it stops accepting, or
// a limit or rule that starts to apply to it, narrows what a producer may
// send under it.
func (c *comparer) profiles() {
	run(c, section[*spec.Profile]{
		removed: RuleProfileRemoved,
		list:    func(d *spec.Domain) []*spec.Profile { return d.Profiles },
		view: func(c *comparer, p *spec.Profile) element {
			return element{id: p.ID, ptr: p.Ptr, container: "/profiles", stab: p.Stability,
				signature: "profile " + p.Name, name: "profile " + p.Name}
		},
		content: func(x *spec.Profile) string { return entryContent(x) },
		compare: func(c *comparer, b, a *spec.Profile) {
			w := entryWhere(&b.Entry, &a.Entry, "profile "+a.Name)
			c.entry(w, &b.Entry, &a.Entry)
			c.goName(w.at("name"), b.GoName(), a.GoName())
			c.wireName(w.at("name"), b.Name, a.Name)
			if b.Revision != a.Revision {
				c.add(RuleCompatibleChange, w.at("revision"), 0, strOrEmpty(b.Revision), strOrEmpty(a.Revision),
					"profile %s now follows revision %s instead of %s", a.Name, orNone(a.Revision), orNone(b.Revision))
			}
			c.profileList(w.at("events"), a.Name, "event", b.Events, a.Events, RuleProfileEventRemoved, RuleProfileEventAdded)
			// A limit that starts to bound the profile lowers it from
			// unbounded; a lowered value of a limit the profile already
			// lists is reported once, on the constant (limit-lowered).
			c.profileList(w.at("constants"), a.Name, "limit", b.Constants, a.Constants, RuleProfileLimitRaised, RuleProfileLimitLowered)
			c.profileRules(w.at("rules"), a.Name, b.Rules, a.Rules)
		},
	})
}

// profileRules reports the rules that left and joined a profile, each
// judged by its polarity: a rule that restricts narrows what the profile
// accepts when it joins, a rule that tolerates (unknown members stripped
// with a warning) narrows it when it leaves.
func (c *comparer) profileRules(w where, profile string, before, after []string) {
	b, a := idSet(before), idSet(after)
	for _, id := range before {
		if a[id] {
			continue
		}
		iw := w
		iw.target += "/" + escape(id)
		if c.baseTolerates(id) {
			c.add(RuleProfileToleranceRemoved, iw, 0, quote(id), "",
				"profile %s no longer lists rule %s, which tolerates: what it let through is now rejected", profile, id)
			continue
		}
		c.add(RuleProfileRuleRemoved, iw, 0, quote(id), "", "profile %s no longer lists rule %s, which restricts: what it rejected may now pass", profile, id)
	}
	for _, id := range after {
		if b[id] {
			continue
		}
		iw := w
		iw.target += "/" + escape(id)
		if c.cur.LookupRule(id).Tolerates() {
			c.add(RuleProfileToleranceAdded, iw, 0, "", quote(id),
				"profile %s now lists rule %s, which tolerates: what it lets through was rejected before", profile, id)
			continue
		}
		c.add(RuleProfileRuleAdded, iw, 0, "", quote(id), "profile %s now lists rule %s, which restricts: what it rejects passed before", profile, id)
	}
}

// rulePolarity reports a rule whose polarity changed: for every profile
// that lists it at both revisions, as the rule leaving or joining it with
// its baseline polarity; when no profile lists it, as a requirement to
// review.
func (c *comparer) rulePolarity(w where, b, a *spec.Rule) {
	if b.Tolerates() == a.Tolerates() || !statesPolarity(c.base) {
		// A baseline written before rules had a polarity did not say
		// restricts: stating a polarity now changes nothing.
		return
	}
	pol := func(r *spec.Rule) string {
		if r.Tolerates() {
			return spec.PolarityTolerates
		}
		return spec.PolarityRestricts
	}
	pw := w.at("polarity")
	listed := false
	for _, p := range c.cur.Profiles {
		bp := c.base.LookupProfile(p.ID)
		if bp == nil || !contains(bp.Rules, a.ID) || !contains(p.Rules, a.ID) {
			continue
		}
		listed = true
		rule := RuleProfileToleranceAdded
		what := "now tolerates what it rejected"
		if b.Tolerates() {
			rule, what = RuleProfileToleranceRemoved, "now rejects what it tolerated"
		}
		tw := pw
		tw.target = p.ID + "/rules/" + escape(a.ID) + "/polarity"
		c.add(rule, tw, 0, quote(pol(b)), quote(pol(a)), "rule %s of profile %s %s (polarity %s, was %s)", a.ID, p.Name, what, pol(a), pol(b))
	}
	if !listed {
		c.add(RuleRequirementChanged, pw, 0, quote(pol(b)), quote(pol(a)), "the polarity of rule %s changed from %s to %s", a.ID, pol(b), pol(a))
	}
}

func contains(list []string, x string) bool {
	for _, s := range list {
		if s == x {
			return true
		}
	}
	return false
}

// profileList reports the ids that left (gone) and joined (joined) one
// list of a profile.
func (c *comparer) profileList(w where, profile, what string, before, after []string, gone, joined string) {
	b, a := idSet(before), idSet(after)
	for _, id := range before {
		if !a[id] {
			iw := w
			iw.target += "/" + escape(id)
			c.add(gone, iw, 0, quote(id), "", "profile %s no longer lists %s %s", profile, what, id)
		}
	}
	for _, id := range after {
		if !b[id] {
			iw := w
			iw.target += "/" + escape(id)
			c.add(joined, iw, 0, "", quote(id), "profile %s now lists %s %s", profile, what, id)
		}
	}
}

// statesPolarity reports whether a spec states the polarity of any rule:
// one written before polarities existed leaves every rule unstated.
func statesPolarity(d *spec.Domain) bool {
	for _, r := range d.Rules {
		if r.Polarity != "" {
			return true
		}
	}
	return false
}

// baseTolerates reports whether the rule id tolerated at the baseline: as
// the baseline says, or, for a baseline written before polarities, as the
// current spec says of the same rule.
func (c *comparer) baseTolerates(id string) bool {
	if statesPolarity(c.base) {
		return c.base.LookupRule(id).Tolerates()
	}
	if r := c.cur.LookupRule(id); r != nil {
		return r.Tolerates()
	}
	return c.base.LookupRule(id).Tolerates()
}

// idSet is the ids of one list of a profile, for asking which are in it.
func idSet(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, id := range list {
		m[id] = true
	}
	return m
}
