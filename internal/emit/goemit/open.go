package goemit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/contractkit/contractkit/internal/spec"
)

// Open enums and unions: a receiver accepts a value or tag the spec does
// not list and keeps it as sent, so that a later version can add one
// without breaking it. These helpers hold everything the emitters do
// differently for them; closed types keep rejecting what they do not know.

// unknownEnumDecoded ends an enum decoder: a closed enum rejects the value,
// an open one keeps it.
func unknownEnumDecoded(t *spec.Type, zero jen.Code) jen.Code {
	if t.Open {
		return jen.Return(jen.Id(t.GoName()).Call(jen.Id("x")), jen.Nil())
	}
	return jen.Return(zero, inType(t.GoName())(jen.Qual(genrtPkg, "Invalid").Call(jen.Lit(""), jen.Lit("%s is not a value of "+t.Name), jen.Id("v").Dot("AppendCompact").Call(jen.Nil()).Op("[:]"))))
}

// unknownEnumWritten ends an enum appender: a closed enum refuses to write
// a value it does not list, an open one writes it as kept.
func unknownEnumWritten(t *spec.Type, write string, conv *jen.Statement) jen.Code {
	if t.Open {
		return jen.Return(jen.Qual(genrtPkg, write).Call(jen.Id("b"), conv.Clone().Call(jen.Id("v"))))
	}
	return jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(t.GoName()+": %v is not a value of the contract"), jen.Id("v")))
}

// openEnumMethods adds Known to an open enum, so a receiver can fall back
// on a value it does not know.
func openEnumMethods(f *jen.File, t *spec.Type, cases []jen.Code) {
	if !t.Open {
		return
	}
	name := t.GoName()
	f.Comment(fmt.Sprintf("Known reports whether v is a value the contract lists; %s is open, so a decoded value may be one a later version added.", name))
	f.Func().Params(jen.Id("v").Id(name)).Id("Known").Params().Bool().Block(
		jen.Switch(jen.Id("v")).Block(jen.Case(cases...).Block(jen.Return(jen.True()))),
		jen.Return(jen.False()),
	)
}

// openUnionType declares the variant that holds an unknown tag.
func openUnionType(f *jen.File, t *spec.Type) {
	if !t.Open {
		return
	}
	name, un := t.GoName(), t.UnknownGoName()
	f.Comment(fmt.Sprintf("%s is a %s whose %q the contract does not list (the union is open): its tag and the whole object as received, written back unchanged.", un, name, t.Tag))
	f.Type().Id(un).Struct(
		jen.Id("Tag").String(),
		jen.Id("Raw").Qual("encoding/json", "RawMessage"),
	)
	f.Func().Params(jen.Id(un)).Id("is" + name).Params().Block()
}

// unknownUnionWritten is the appender case of an open union's unknown
// variant: its members as kept (the tag among them).
func unknownUnionWritten(t *spec.Type) []jen.Code {
	if !t.Open {
		return nil
	}
	return []jen.Code{jen.Case(jen.Id(t.UnknownGoName())).Block(
		jen.Var().Err().Error(),
		jen.If(jen.List(jen.Id("b"), jen.Err()).Op("=").Qual(genrtPkg, "AppendUnknownMembers").Call(jen.Id("b"), jen.Lit(t.UnknownGoName()), jen.Id("x").Dot("Raw")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err())),
	)}
}

// unknownUnionDecoded is the default case of a union decoder: a closed union rejects the
// tag, an open one keeps the object.
func unknownUnionDecoded(t *spec.Type, tags string) jen.Code {
	if t.Open {
		return jen.Id("x").Op("=").Id(t.UnknownGoName()).Values(jen.Dict{
			jen.Id("Tag"): jen.Id("tag"),
			jen.Id("Raw"): jen.Id("v").Dot("AppendCompact").Call(jen.Nil()),
		})
	}
	return jen.Return(jen.Nil(), jen.Id("d").Dot("Variant").Call(jen.Lit(t.Tag), jen.Id("tag"), jen.Lit(t.GoName()), jen.Lit(tags)))
}
