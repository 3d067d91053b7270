package goemit

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/contractkit/contractkit/internal/spec"
)

// Tag constants and default accessors: what a runtime would otherwise
// spell by hand. A variant's tag and a member's default live in the spec;
// the runtime names them through these, so a change of the spec reaches
// every use.

// unionTags declares one constant per variant of a union, holding the
// value of its tag member.
func (g *generator) unionTags(f *jen.File, t *spec.Type) {
	var defs []jen.Code
	for _, v := range t.Variants {
		defs = append(defs,
			jen.Comment(g.comment(fmt.Sprintf("%s is the %q of the %s variant %s.", spec.TagGoName(t, v), t.Tag, t.Name, v.GoName(t)))),
			jen.Id(spec.TagGoName(t, v)).Op("=").Lit(v.Tag))
	}
	f.Const().Defs(defs...)
}

// defaultAccessors adds <Member>OrDefault to an object type for every
// optional member with a default: the member when present, else the
// default the spec declares.
func (g *generator) defaultAccessors(f *jen.File, t *spec.Type) {
	for _, fl := range t.Fields {
		if !spec.HasDefaultAccessor(fl) {
			continue
		}
		name := spec.DefaultAccessorName(fl)
		field := jen.Id("v").Dot(fl.GoName())
		present := field.Clone().Op("!=").Nil()
		value := jen.Op("*").Add(field.Clone())
		if !pointerField(fl) {
			value = field.Clone()
		}
		f.Comment(g.comment(fmt.Sprintf("%s returns %s, or its default %s when it is absent.", name, fl.GoName(), g.defaultText(fl))))
		f.Func().Params(jen.Id("v").Id(t.GoName())).Id(name).Params().Add(goType(&fl.Type)).Block(
			jen.If(present).Block(jen.Return(value)),
			jen.Return(g.defaultValue(fl)),
		)
	}
}

// defaultValue is the Go expression of a member's default: the constant it
// names, the enum value it spells, or the literal.
func (g *generator) defaultValue(fl *spec.Field) jen.Code {
	if id := spec.ConstantRef(fl.Default); id != "" {
		return jen.Id(g.d.LookupConstant(id).Symbol)
	}
	if r := fl.Type.Named; r != nil && r.Kind == spec.EnumKind {
		for _, v := range r.Values {
			if bytes.Equal(bytes.TrimSpace(v.Value), bytes.TrimSpace(fl.Default)) {
				return jen.Id(v.GoName(r))
			}
		}
	}
	return literal(fl.Default)
}

func (g *generator) defaultText(fl *spec.Field) string {
	if id := spec.ConstantRef(fl.Default); id != "" {
		return g.d.LookupConstant(id).Symbol
	}
	return strings.TrimSpace(string(fl.Default))
}
