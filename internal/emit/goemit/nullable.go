package goemit

import (
	"github.com/dave/jennifer/jen"

	"github.com/contractkit/contractkit/internal/spec"
)

// An optional, nullable member has three states on the wire (absent, null,
// a value), so it is held in a genrt.Nullable instead of a pointer. These
// helpers are the only places the object emitters treat it differently.

// absentOrNull reports whether a field is both optional and nullable.
func absentOrNull(f *spec.Field) bool { return f.Nullable && !f.Required }

// fieldType is the Go type of a field in its struct.
func fieldType(f *spec.Field) *jen.Statement {
	typ := goType(&f.Type)
	switch {
	case absentOrNull(f):
		return jen.Qual(genrtPkg, "Nullable").Types(typ)
	case pointerField(f):
		return jen.Op("*").Add(typ)
	}
	return typ
}

// appendNullable writes an optional, nullable member: nothing when absent,
// null, or its value.
func appendNullable(f *spec.Field, key jen.Code, write func(jen.Code) jen.Code) []jen.Code {
	field := jen.Id("v").Dot(f.GoName())
	return []jen.Code{jen.Switch(field.Clone().Dot("State")).Block(
		jen.Case(jen.Qual(genrtPkg, "Null")).Block(key, jen.Id("b").Op("=").Append(jen.Id("b"), jen.Lit("null").Op("..."))),
		jen.Case(jen.Qual(genrtPkg, "Present")).Block(key, write(field.Clone().Dot("Value"))),
	)}
}

// decodedNull is what the decoder does with a null member: a required
// nullable one stays nil, an optional one records that it was null.
func decodedNull(f *spec.Field) jen.Code {
	if absentOrNull(f) {
		return jen.Id("out").Dot(f.GoName()).Op("=").Qual(genrtPkg, "NullOf").Types(goType(&f.Type)).Call()
	}
	return jen.Null()
}

// decodedValue stores a decoded member value x in the struct.
func decodedValue(f *spec.Field) jen.Code {
	target := jen.Id("out").Dot(f.GoName())
	switch {
	case absentOrNull(f):
		return target.Op("=").Qual(genrtPkg, "Some").Call(jen.Id("x"))
	case pointerField(f):
		return target.Op("=").Op("&").Id("x")
	}
	return target.Op("=").Id("x")
}
