package goemit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/contractkit/contractkit/internal/spec"
)

// ruleTable writes a constant per rule (and id'd field) holding its id,
// and the Rules table: runtimes name the rule a finding breaks through
// these constants, never through a literal id.
func (g *generator) ruleTable(f *jen.File) {
	d := g.d
	var defs []jen.Code
	var items []jen.Code
	for _, e := range d.Entries() {
		if e.Rule == nil && e.Field == nil {
			continue
		}
		name := spec.RuleGoName(d.Header.ID, e.ID)
		defs = append(defs, jen.Comment(g.comment(fmt.Sprintf("%s: %s.", name, e.Title.EN))), jen.Id(name).Op("=").Lit(e.ID))
		items = append(items, jen.Values(jen.Dict{
			jen.Id("ID"):      jen.Id(name),
			jen.Id("Kind"):    jen.Lit(e.Kind),
			jen.Id("Title"):   jen.Lit(d.Expand(e.Title.EN, "en")),
			jen.Id("TitleRU"): jen.Lit(d.Expand(e.Title.RU, "ru")),
		}))
	}
	if len(defs) > 0 {
		f.Comment("Rule ids.")
		f.Const().Defs(defs...)
	}
	f.Comment("RuleInfo describes one normative rule of the contract.")
	f.Type().Id("RuleInfo").Struct(
		jen.Id("ID").String().Comment("stable entry id"),
		jen.Id("Kind").String().Comment("the rule table it belongs to"),
		jen.Id("Title").String(),
		jen.Id("TitleRU").String().Comment("the title in Russian, for people"),
	)
	f.Comment("Rules lists every rule, ordered by id.")
	f.Var().Id("Rules").Op("=").Index().Id("RuleInfo").Values(items...)
}

// profileTable writes a constant per profile holding its name, and the
// Profiles table: what each profile accepts, which limits bound it and
// which rules apply under it.
func (g *generator) profileTable(f *jen.File) {
	d := g.d
	if len(d.Profiles) > 0 {
		var defs []jen.Code
		for _, p := range d.Profiles {
			defs = append(defs, jen.Comment(g.comment(fmt.Sprintf("%s%s: %s (%s).", spec.ProfilePrefix, p.GoName(), p.Title.EN, p.ID))),
				jen.Id(spec.ProfilePrefix+p.GoName()).Op("=").Lit(p.Name))
		}
		f.Comment("Profile names.")
		f.Const().Defs(defs...)
	}
	f.Comment("ProfileInfo describes one profile: a subset of the contract a runtime enforces as a whole.")
	f.Type().Id("ProfileInfo").Struct(
		jen.Id("Name").String().Comment("the name users select"),
		jen.Id("ID").String().Comment("stable entry id"),
		jen.Id("Since").String(),
		jen.Id("Stability").String(),
		jen.Id("Revision").String().Comment(`revision of the document it follows; "" when none`),
		jen.Id("Events").Index().String().Comment("wire names of the events it accepts"),
		jen.Id("Constants").Index().String().Comment("ids of the limit constants that bound it"),
		jen.Id("Rules").Index().String().Comment("ids of the rules that apply under it"),
	)
	events := map[string]*spec.Event{}
	for _, e := range d.Events {
		events[e.ID] = e
	}
	var items []jen.Code
	for _, p := range d.Profiles {
		var evs, consts, rules []jen.Code
		for _, id := range p.Events {
			evs = append(evs, jen.Id(spec.EventPrefix+events[id].GoName()))
		}
		for _, id := range p.Constants {
			consts = append(consts, jen.Lit(id))
		}
		for _, id := range p.Rules {
			rules = append(rules, jen.Id(spec.RuleGoName(d.Header.ID, id)))
		}
		items = append(items, jen.Values(jen.Dict{
			jen.Id("Name"):      jen.Id(spec.ProfilePrefix + p.GoName()),
			jen.Id("ID"):        jen.Lit(p.ID),
			jen.Id("Since"):     jen.Lit(p.Since),
			jen.Id("Stability"): jen.Lit(string(p.Stability)),
			jen.Id("Revision"):  jen.Lit(p.Revision),
			jen.Id("Events"):    jen.Index().String().Values(evs...),
			jen.Id("Constants"): jen.Index().String().Values(consts...),
			jen.Id("Rules"):     jen.Index().String().Values(rules...),
		}))
	}
	f.Comment("Profiles lists every profile, ordered by id.")
	f.Var().Id("Profiles").Op("=").Index().Id("ProfileInfo").Values(items...)
}
