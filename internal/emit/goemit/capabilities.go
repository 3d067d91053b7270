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
