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
			c.profileList(w.at("rules"), a.Name, "rule", b.Rules, a.Rules, RuleProfileRuleRemoved, RuleProfileRuleAdded)
		},
	})
}

// profileList reports the ids that left (gone) and joined (joined) one
// list of a profile.
func (c *comparer) profileList(w where, profile, what string, before, after []string, gone, joined string) {
	in := func(list []string) map[string]bool {
		m := map[string]bool{}
		for _, id := range list {
			m[id] = true
		}
		return m
	}
	b, a := in(before), in(after)
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
