package goemit

import (
	"github.com/dave/jennifer/jen"
)

// capabilityTable writes the capabilities with the version they appeared
// in and the client opt-in they need, so that a server decides what to
// grant from the contract rather than from a list of its own.
func (g *generator) capabilityTable(f *jen.File) {
	f.Comment("CapabilityInfo describes one capability of the contract.")
	f.Type().Id("CapabilityInfo").Struct(
		jen.Id("Name").String().Comment("wire name"),
		jen.Id("ID").String().Comment("stable entry id"),
		jen.Id("Since").String().Comment("the version that introduced it"),
		jen.Id("OptIn").String().Comment(`the client flag without which it is not granted; "" for none`),
	)
	var items []jen.Code
	for _, c := range g.d.Capabilities {
		items = append(items, jen.Values(jen.Dict{
			jen.Id("Name"):  jen.Lit(c.Name),
			jen.Id("ID"):    jen.Lit(c.ID),
			jen.Id("Since"): jen.Lit(c.Since),
			jen.Id("OptIn"): jen.Lit(c.OptIn),
		}))
	}
	f.Comment("CapabilityTable lists every capability, ordered by id.")
	f.Var().Id("CapabilityTable").Op("=").Index().Id("CapabilityInfo").Values(items...)
}

// grants writes Grants, the one answer to "may this client use X?": the
// capabilities of the negotiated version whose opt-in the client sent,
// computed from CapabilityTable so that a new capability is a spec row and
// nothing in the server's negotiation. Only a contract with capabilities
// has it.
func (g *generator) grants(f *jen.File) {
	n := jen.Lit(len(g.d.Capabilities))
	f.Comment(g.comment("Grants is what one client may use: the capabilities of CapabilityTable that its negotiated version has (offered: the member is on the wire) and, of those, the ones whose opt-in it sent and the server did not withhold (granted). It is a value, computed once when the version is negotiated; the zero value offers and grants nothing."))
	f.Type().Id("Grants").Struct(
		jen.Id("version").String(),
		jen.List(jen.Id("offered"), jen.Id("granted")).Index(n).Bool().Comment("indexed like CapabilityTable"),
	)
	f.Comment(g.comment("GrantsFor computes the grants of a client that negotiated version (\"major.minor\") and set the opt-in flags optIns."))
	f.Func().Id("GrantsFor").Params(jen.Id("version").String(), jen.Id("optIns").Op("...").String()).Id("Grants").Block(
		jen.Id("g").Op(":=").Id("Grants").Values(jen.Dict{jen.Id("version"): jen.Id("version")}),
		jen.For(jen.List(jen.Id("i"), jen.Id("c")).Op(":=").Range().Id("CapabilityTable")).Block(
			jen.If(jen.Qual(genrtPkg, "CompareVersions").Call(jen.Id("c").Dot("Since"), jen.Id("version")).Op(">").Lit(0)).Block(jen.Continue()),
			jen.Id("g").Dot("offered").Index(jen.Id("i")).Op("=").True(),
			jen.Id("g").Dot("granted").Index(jen.Id("i")).Op("=").Id("c").Dot("OptIn").Op("==").Lit("").Op("||").Qual("slices", "Contains").Call(jen.Id("optIns"), jen.Id("c").Dot("OptIn")),
		),
		jen.Return(jen.Id("g")),
	)
	f.Comment(g.comment("Without is g with the named capabilities withheld: offered still, granted no longer (what a build does not serve)."))
	f.Func().Params(jen.Id("g").Id("Grants")).Id("Without").Params(jen.Id("names").Op("...").String()).Id("Grants").Block(
		jen.For(jen.List(jen.Id("_"), jen.Id("name")).Op(":=").Range().Id("names")).Block(
			jen.If(jen.Id("i").Op(":=").Id("capabilityIndex").Call(jen.Id("name")), jen.Id("i").Op(">=").Lit(0)).Block(
				jen.Id("g").Dot("granted").Index(jen.Id("i")).Op("=").False(),
			),
		),
		jen.Return(jen.Id("g")),
	)
	f.Comment(g.comment("Version is the negotiated version; \"\" in the zero value."))
	f.Func().Params(jen.Id("g").Id("Grants")).Id("Version").Params().String().Block(jen.Return(jen.Id("g").Dot("version")))
	f.Comment(g.comment("Covers reports whether the negotiated version has what version introduced."))
	f.Func().Params(jen.Id("g").Id("Grants")).Id("Covers").Params(jen.Id("version").String()).Bool().Block(
		jen.Return(jen.Id("g").Dot("version").Op("!=").Lit("").Op("&&").Qual(genrtPkg, "CompareVersions").Call(jen.Id("version"), jen.Id("g").Dot("version")).Op("<=").Lit(0)),
	)
	f.Comment(g.comment("Offered reports whether the negotiated version has the capability, so that its member is on the wire."))
	f.Func().Params(jen.Id("g").Id("Grants")).Id("Offered").Params(jen.Id("name").String()).Bool().Block(
		jen.Id("i").Op(":=").Id("capabilityIndex").Call(jen.Id("name")),
		jen.Return(jen.Id("i").Op(">=").Lit(0).Op("&&").Id("g").Dot("offered").Index(jen.Id("i"))),
	)
	f.Comment(g.comment("Granted reports whether the client may use the capability."))
	f.Func().Params(jen.Id("g").Id("Grants")).Id("Granted").Params(jen.Id("name").String()).Bool().Block(
		jen.Id("i").Op(":=").Id("capabilityIndex").Call(jen.Id("name")),
		jen.Return(jen.Id("i").Op(">=").Lit(0).Op("&&").Id("g").Dot("granted").Index(jen.Id("i"))),
	)
	f.Comment(g.comment("Member is the capability's wire member: absent (nil) when the negotiated version does not have it, else whether it is granted."))
	f.Func().Params(jen.Id("g").Id("Grants")).Id("Member").Params(jen.Id("name").String()).Op("*").Bool().Block(
		jen.If(jen.Op("!").Id("g").Dot("Offered").Call(jen.Id("name"))).Block(jen.Return(jen.Nil())),
		jen.Id("v").Op(":=").Id("g").Dot("Granted").Call(jen.Id("name")),
		jen.Return(jen.Op("&").Id("v")),
	)
	f.Comment("capabilityIndex is the capability's index in CapabilityTable, or -1.")
	f.Func().Id("capabilityIndex").Params(jen.Id("name").String()).Int().Block(
		jen.For(jen.List(jen.Id("i"), jen.Id("c")).Op(":=").Range().Id("CapabilityTable")).Block(
			jen.If(jen.Id("c").Dot("Name").Op("==").Id("name")).Block(jen.Return(jen.Id("i"))),
		),
		jen.Return(jen.Lit(-1)),
	)
}
