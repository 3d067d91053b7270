package goemit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/contractkit/contractkit/internal/spec"
)

// builtinGo maps builtin type names to their Go types and to the genrt
// functions that decode and write them.
var builtinGo = map[string]struct {
	goType func() *jen.Statement
	decode string
	write  string
}{
	spec.TString:     {func() *jen.Statement { return jen.String() }, "String", "WriteString"},
	spec.TInteger:    {func() *jen.Statement { return jen.Int64() }, "Integer", "WriteInteger"},
	spec.TNumber:     {func() *jen.Statement { return jen.Float64() }, "Number", "WriteNumber"},
	spec.TBoolean:    {func() *jen.Statement { return jen.Bool() }, "Boolean", "WriteBoolean"},
	spec.TAny:        {func() *jen.Statement { return jen.Qual("encoding/json", "RawMessage") }, "Raw", "WriteRaw"},
	spec.TObject:     {func() *jen.Statement { return jen.Qual("encoding/json", "RawMessage") }, "RawObject", "WriteRawObject"},
	spec.TDecimalU64: {func() *jen.Statement { return jen.Uint64() }, "DecimalU64", "WriteDecimalU64"},
}

// goType is the Go type of a type expression.
func goType(r *spec.TypeRef) *jen.Statement {
	switch {
	case r.Array != nil:
		return jen.Index().Add(goType(r.Array))
	case r.Map != nil:
		return jen.Map(jen.String()).Add(goType(r.Map))
	case r.Named != nil:
		return jen.Id(r.Named.GoName())
	}
	return builtinGo[r.Name].goType()
}

// refName names a type expression inside helper identifiers.
func refName(r *spec.TypeRef) string {
	switch {
	case r.Array != nil:
		return "Array_" + refName(r.Array)
	case r.Map != nil:
		return "Map_" + refName(r.Map)
	case r.Named != nil:
		return r.Named.GoName()
	}
	return spec.GoName(r.Name)
}

func composite(r *spec.TypeRef) bool { return r.Array != nil || r.Map != nil }

// decodeFn is the function that decodes a value of r from a tree:
// func(*strictjson.Value, *genrt.Decoder) (T, error).
func decodeFn(r *spec.TypeRef) *jen.Statement {
	if r.Named == nil && !composite(r) {
		return jen.Qual(genrtPkg, "Read"+builtinGo[r.Name].decode)
	}
	return jen.Id("decode" + refName(r))
}

// appendFn is the function that writes a value of r: func([]byte, T) ([]byte, error).
func appendFn(r *spec.TypeRef) *jen.Statement {
	if r.Named == nil && !composite(r) {
		return jen.Qual(genrtPkg, builtinGo[r.Name].write)
	}
	return jen.Id("append" + refName(r))
}

// nilable reports whether the Go type of r has a nil value of its own
// (slices, maps, raw JSON, interfaces), so it needs no pointer to be absent.
func nilable(r *spec.TypeRef) bool {
	switch {
	case composite(r):
		return true
	case r.Named != nil:
		switch r.Named.Kind {
		case spec.UnionKind:
			return true
		case spec.AliasKind:
			return nilable(r.Named.Type)
		}
		return false
	}
	return r.Name == spec.TAny || r.Name == spec.TObject
}

// pointerField reports whether a field is held through a pointer.
func pointerField(f *spec.Field) bool {
	return (!f.Required || f.Nullable) && !nilable(&f.Type)
}

// composites returns every array and map expression the domain uses,
// innermost first, sorted by name within each depth, without repeats.
func (g *generator) composites() []*spec.TypeRef {
	seen := map[string]*spec.TypeRef{}
	var walk func(r *spec.TypeRef)
	walk = func(r *spec.TypeRef) {
		switch {
		case r.Array != nil:
			walk(r.Array)
		case r.Map != nil:
			walk(r.Map)
		default:
			return
		}
		seen[refName(r)] = r
	}
	for _, t := range g.d.Types {
		for _, f := range t.Fields {
			walk(&f.Type)
		}
		if t.Type != nil {
			walk(t.Type)
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*spec.TypeRef, 0, len(names))
	for _, n := range names {
		out = append(out, seen[n])
	}
	return out
}

// unions returns, for every object type, the unions it is a variant of.
func (g *generator) variantOf() map[*spec.Type][]*spec.Type {
	m := map[*spec.Type][]*spec.Type{}
	for _, u := range g.d.Types {
		for _, v := range u.Variants {
			if v.Object != nil {
				m[v.Object] = append(m[v.Object], u)
			}
		}
	}
	return m
}

func (g *generator) typesFile(f *jen.File) {
	variantOf := g.variantOf()
	for _, t := range g.d.Types {
		doc := fmt.Sprintf("%s is %s: %s (%s)", t.GoName(), lowerFirst(t.Title.EN), t.Description.EN, t.ID)
		if t.Since != g.d.Header.Since {
			doc += ", since " + t.Since
		}
		f.Comment(g.comment(doc + "."))
		switch t.Kind {
		case spec.ObjectKind:
			g.objectType(f, t, variantOf[t])
		case spec.EnumKind:
			g.enumType(f, t)
		case spec.UnionKind:
			g.unionType(f, t)
		case spec.AliasKind:
			g.aliasType(f, t)
		case spec.AlternativesKind:
			g.alternativesType(f, t)
		}
	}
	for _, r := range g.composites() {
		g.compositeAppender(f, r)
	}
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	// Keep acronyms and code-like words ("JSON", "auth") as written.
	if len(s) > 1 && strings.ToUpper(s[:2]) == s[:2] {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// marshalMethods adds MarshalJSON and UnmarshalJSON to a named type.
func marshalMethods(f *jen.File, t *spec.Type) {
	name := t.GoName()
	f.Comment(fmt.Sprintf("MarshalJSON writes %s exactly as the contract spells it.", name))
	f.Func().Params(jen.Id("v").Id(name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(jen.Id("append"+name).Call(jen.Nil(), jen.Id("v"))),
	)
	f.Comment(fmt.Sprintf("UnmarshalJSON decodes %s strictly; see %s%s.", name, spec.DecodePrefix, name))
	f.Func().Params(jen.Id("v").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.List(jen.Id("x"), jen.Err()).Op(":=").Id(spec.DecodePrefix+name).Call(jen.Id("data")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Op("*").Id("v").Op("=").Id("x"),
		jen.Return(jen.Nil()),
	)
}

func (g *generator) objectType(f *jen.File, t *spec.Type, unions []*spec.Type) {
	name := t.GoName()
	var fields []jen.Code
	for _, fl := range t.Fields {
		doc := fl.Description.EN
		if fl.ID != "" {
			doc += " (" + fl.ID + ")"
		}
		if fl.Since != t.Since {
			doc += " Since " + fl.Since + "."
		}
		if !fl.Required {
			doc += " Optional."
		}
		if fl.Nullable {
			doc += " Nullable."
		}
		typ := fieldType(fl)
		tag := fl.Name
		if !fl.Required {
			tag += ",omitempty"
		}
		fields = append(fields, jen.Comment(g.comment(doc)), jen.Id(fl.GoName()).Add(typ).Tag(map[string]string{"json": tag}))
	}
	if t.AdditionalFields == "keep" {
		fields = append(fields,
			jen.Comment("Extra holds members the contract does not name, carried unchanged (raw JSON by member name)."),
			jen.Id("Extra").Map(jen.String()).Qual("encoding/json", "RawMessage").Tag(map[string]string{"json": "-"}))
	}
	f.Type().Id(name).Struct(fields...)
	memberNames(f, t)
	g.defaultAccessors(f, t)
	for _, u := range unions {
		f.Func().Params(jen.Id(name)).Id("is" + u.GoName()).Params().Block()
	}
	marshalMethods(f, t)

	// append<Name> writes the braces; append<Name>Members writes the
	// members, so a union can put its tag in front of them.
	f.Func().Id("append"+name).Params(jen.Id("b").Index().Byte(), jen.Id("v").Id(name)).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune('{')),
		jen.List(jen.Id("b"), jen.Err()).Op(":=").Id("append"+name+"Members").Call(jen.Id("b"), jen.Len(jen.Id("b")), jen.Id("v")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Append(jen.Id("b"), jen.LitRune('}')), jen.Nil()),
	)
	var body []jen.Code
	if len(t.Fields) > 0 {
		body = append(body, jen.Var().Err().Error())
	}
	for _, fl := range t.Fields {
		body = append(body, g.appendField(t, fl)...)
	}
	if t.AdditionalFields == "keep" {
		var known []jen.Code
		for _, fl := range t.Fields {
			known = append(known, jen.Lit(fl.Name))
		}
		loop := []jen.Code{}
		if len(known) > 0 {
			loop = append(loop, jen.Switch(jen.Id("k")).Block(jen.Case(known...).Block(jen.Continue())))
		}
		loop = append(loop, jen.Id("keys").Op("=").Append(jen.Id("keys"), jen.Id("k")))
		body = append(body,
			jen.Id("keys").Op(":=").Make(jen.Index().String(), jen.Lit(0), jen.Len(jen.Id("v").Dot("Extra"))),
			jen.For(jen.Id("k").Op(":=").Range().Id("v").Dot("Extra")).Block(loop...),
			jen.Qual("sort", "Strings").Call(jen.Id("keys")),
			jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Id("keys")).Block(
				jen.Id("raw").Op(":=").Id("v").Dot("Extra").Index(jen.Id("k")),
				jen.If(jen.Err().Op(":=").Qual(strictjsonPkg, "Valid").Call(jen.Id("raw"), jen.Qual(strictjsonPkg, "Options").Values()), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(name+".Extra[%q]: %w"), jen.Id("k"), jen.Err())),
				),
				jen.Id("b").Op("=").Qual(genrtPkg, "Key").Call(jen.Id("b"), jen.Id("start"), jen.Id("k")),
				jen.Id("b").Op("=").Append(jen.Id("b"), jen.Id("raw").Op("...")),
			),
		)
	}
	body = append(body, jen.Return(jen.Id("b"), jen.Nil()))
	f.Func().Id("append"+name+"Members").Params(jen.Id("b").Index().Byte(), jen.Id("start").Int(), jen.Id("v").Id(name)).Params(jen.Index().Byte(), jen.Error()).Block(body...)
}

// memberNames declares the wire name of every member of an object type
// as a constant, so that a runtime that reads members from a parsed tree,
// or points at one in a message, names them through the generated
// package instead of spelling them or reading struct tags.
func memberNames(f *jen.File, t *spec.Type) {
	if len(t.Fields) == 0 {
		return
	}
	var defs []jen.Code
	for _, fl := range t.Fields {
		defs = append(defs, jen.Id(spec.MemberGoName(t, fl)).Op("=").Lit(fl.Name))
	}
	f.Comment(fmt.Sprintf("Wire names of the members of %s.", t.GoName()))
	f.Const().Defs(defs...)
}

// constOf returns the Go expression of a field's const constraint, or nil.
func (g *generator) constOf(k *spec.Constraints) jen.Code {
	if k == nil || k.Const == nil {
		return nil
	}
	if id := spec.ConstantRef(k.Const); id != "" {
		return jen.Id(g.d.LookupConstant(id).Symbol)
	}
	return literal(k.Const)
}

func (g *generator) appendField(t *spec.Type, fl *spec.Field) []jen.Code {
	key := jen.Id("b").Op("=").Qual(genrtPkg, "Key").Call(jen.Id("b"), jen.Id("start"), jen.Lit(fl.Name))
	write := func(val jen.Code) jen.Code {
		return jen.If(
			jen.List(jen.Id("b"), jen.Err()).Op("=").Add(appendFn(&fl.Type)).Call(jen.Id("b"), val),
			jen.Err().Op("!=").Nil(),
		).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(t.GoName()+"."+fl.GoName()+": %w"), jen.Err())))
	}
	if absentOrNull(fl) {
		return appendNullable(fl, key, write)
	}
	field := jen.Id("v").Dot(fl.GoName())
	if c := g.constOf(fl.Constraints); c != nil {
		// A const member always carries its one value, whatever the struct holds.
		cv := jen.Add(goType(&fl.Type)).Call(c)
		if fl.Required {
			return []jen.Code{key, write(cv)}
		}
		return []jen.Code{jen.If(field.Clone().Op("!=").Nil()).Block(key, write(cv))}
	}
	ptr := pointerField(fl)
	val := jen.Add(field.Clone())
	if ptr {
		val = jen.Op("*").Add(field.Clone())
	}
	switch {
	case fl.Required && !fl.Nullable:
		return []jen.Code{key, write(val)}
	case fl.Required && fl.Nullable:
		return []jen.Code{key, jen.If(field.Clone().Op("==").Nil()).Block(
			jen.Id("b").Op("=").Append(jen.Id("b"), jen.Lit("null").Op("...")),
		).Else().Block(write(val))}
	}
	return []jen.Code{jen.If(field.Clone().Op("!=").Nil()).Block(key, write(val))}
}

func (g *generator) enumType(f *jen.File, t *spec.Type) {
	name := t.GoName()
	base := jen.String()
	if t.Base == "integer" {
		base = jen.Int64()
	}
	f.Type().Id(name).Add(base)
	var defs []jen.Code
	var cases []jen.Code
	for _, v := range t.Values {
		doc := v.Description.EN
		if v.Since != t.Since {
			doc += " Since " + v.Since + "."
		}
		defs = append(defs, jen.Comment(g.comment(doc)), jen.Id(v.GoName(t)).Id(name).Op("=").Add(literal(v.Value)))
		cases = append(cases, jen.Id(v.GoName(t)))
	}
	f.Const().Defs(defs...)
	marshalMethods(f, t)
	write := "WriteString"
	conv := jen.String()
	if t.Base == "integer" {
		write, conv = "WriteInteger", jen.Int64()
	}
	f.Func().Id("append"+name).Params(jen.Id("b").Index().Byte(), jen.Id("v").Id(name)).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Switch(jen.Id("v")).Block(
			jen.Case(cases...).Block(jen.Return(jen.Qual(genrtPkg, write).Call(jen.Id("b"), conv.Clone().Call(jen.Id("v"))))),
		),
		unknownEnumWritten(t, write, conv),
	)
	openEnumMethods(f, t, cases)
}

func (g *generator) unionType(f *jen.File, t *spec.Type) {
	name := t.GoName()
	var variants []string
	for _, v := range t.Variants {
		variants = append(variants, fmt.Sprintf("%s (%s %q)", v.GoName(t), t.Tag, v.Tag))
	}
	f.Comment(g.comment(fmt.Sprintf("Its variants: %s.", strings.Join(variants, ", "))))
	f.Type().Id(name).Interface(jen.Id("is" + name).Params())
	g.unionTags(f, t)
	openUnionType(f, t)
	var cases []jen.Code
	for _, v := range t.Variants {
		vn := v.GoName(t)
		if v.Object == nil {
			f.Comment(g.comment(fmt.Sprintf("%s is the %q variant of %s: %s", vn, v.Tag, name, v.Description.EN)))
			f.Type().Id(vn).Struct()
			f.Func().Params(jen.Id(vn)).Id("is" + name).Params().Block()
		}
		stmts := []jen.Code{
			jen.Id("b").Op("=").Qual(genrtPkg, "Key").Call(jen.Id("b"), jen.Id("start"), jen.Lit(t.Tag)),
			jen.Id("b").Op("=").Qual(strictjsonPkg, "AppendString").Call(jen.Id("b"), jen.Lit(v.Tag)),
		}
		if v.Object != nil {
			stmts = append(stmts,
				jen.Var().Err().Error(),
				jen.If(jen.List(jen.Id("b"), jen.Err()).Op("=").Id("append"+vn+"Members").Call(jen.Id("b"), jen.Id("start"), jen.Id("x")), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Nil(), jen.Err())),
			)
		} else {
			stmts = append(stmts, jen.Id("_").Op("=").Id("x"))
		}
		cases = append(cases, jen.Case(jen.Id(vn)).Block(stmts...))
	}
	cases = append(cases, unknownUnionWritten(t)...)
	cases = append(cases, jen.Case(jen.Nil()).Block(jen.Return(jen.Nil(), jen.Qual(genrtPkg, "Nil").Call(jen.Lit(name)))))
	cases = append(cases, jen.Default().Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(name+": unknown variant %T"), jen.Id("v")))))
	f.Comment(fmt.Sprintf("Marshal%s writes a %s with its %q member.", name, name, t.Tag))
	f.Func().Id("Marshal"+name).Params(jen.Id("v").Id(name)).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(jen.Id("append"+name).Call(jen.Nil(), jen.Id("v"))),
	)
	f.Func().Id("append"+name).Params(jen.Id("b").Index().Byte(), jen.Id("v").Id(name)).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune('{')),
		jen.Id("start").Op(":=").Len(jen.Id("b")),
		jen.Switch(jen.Id("x").Op(":=").Id("v").Assert(jen.Type())).Block(cases...),
		jen.Return(jen.Append(jen.Id("b"), jen.LitRune('}')), jen.Nil()),
	)
}

func (g *generator) aliasType(f *jen.File, t *spec.Type) {
	name := t.GoName()
	under := t.Type
	if under.Named != nil && !composite(under) {
		// An alias of a named type shares its methods.
		f.Type().Id(name).Op("=").Add(goType(under))
		f.Func().Id("append"+name).Params(jen.Id("b").Index().Byte(), jen.Id("v").Id(name)).Params(jen.Index().Byte(), jen.Error()).Block(
			jen.Return(appendFn(under).Call(jen.Id("b"), jen.Id("v"))),
		)
		return
	}
	f.Type().Id(name).Add(goType(under))
	marshalMethods(f, t)
	f.Func().Id("append"+name).Params(jen.Id("b").Index().Byte(), jen.Id("v").Id(name)).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(appendFn(under).Call(jen.Id("b"), goType(under).Call(jen.Id("v")))),
	)
}

func (g *generator) alternativesType(f *jen.File, t *spec.Type) {
	name := t.GoName()
	var fields []jen.Code
	var cases []jen.Code
	for _, a := range t.Alternatives {
		fn := spec.GoName(a.Type)
		fields = append(fields, jen.Comment(fmt.Sprintf("%s is set when the value is a %s.", fn, a.Type)), jen.Id(fn).Op("*").Add(builtinGo[a.Type].goType()))
		cases = append(cases, jen.Case(jen.Id("v").Dot(fn).Op("!=").Nil()).Block(
			jen.Return(jen.Qual(genrtPkg, builtinGo[a.Type].write).Call(jen.Id("b"), jen.Op("*").Id("v").Dot(fn))),
		))
	}
	f.Comment("Exactly one member is set.")
	f.Type().Id(name).Struct(fields...)
	for _, a := range t.Alternatives {
		fn := spec.GoName(a.Type)
		f.Comment(fmt.Sprintf("%sFrom%s returns a %s holding a %s.", name, fn, name, a.Type))
		f.Func().Id(name + "From" + fn).Params(jen.Id("x").Add(builtinGo[a.Type].goType())).Id(name).Block(
			jen.Return(jen.Id(name).Values(jen.Dict{jen.Id(fn): jen.Op("&").Id("x")})),
		)
	}
	marshalMethods(f, t)
	f.Func().Id("append"+name).Params(jen.Id("b").Index().Byte(), jen.Id("v").Id(name)).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Switch().Block(cases...),
		jen.Return(jen.Nil(), jen.Qual(genrtPkg, "Nil").Call(jen.Lit(name))),
	)
}

func (g *generator) compositeAppender(f *jen.File, r *spec.TypeRef) {
	name := "append" + refName(r)
	if r.Array != nil {
		f.Func().Id(name).Params(jen.Id("b").Index().Byte(), jen.Id("v").Add(goType(r))).Params(jen.Index().Byte(), jen.Error()).Block(
			jen.Var().Err().Error(),
			jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune('[')),
			jen.For(jen.List(jen.Id("i"), jen.Id("x")).Op(":=").Range().Id("v")).Block(
				jen.If(jen.Id("i").Op(">").Lit(0)).Block(jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune(','))),
				jen.If(jen.List(jen.Id("b"), jen.Err()).Op("=").Add(appendFn(r.Array)).Call(jen.Id("b"), jen.Id("x")), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("[%d]: %w"), jen.Id("i"), jen.Err()))),
			),
			jen.Return(jen.Append(jen.Id("b"), jen.LitRune(']')), jen.Nil()),
		)
		return
	}
	f.Func().Id(name).Params(jen.Id("b").Index().Byte(), jen.Id("v").Add(goType(r))).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Var().Err().Error(),
		jen.Id("keys").Op(":=").Make(jen.Index().String(), jen.Lit(0), jen.Len(jen.Id("v"))),
		jen.For(jen.Id("k").Op(":=").Range().Id("v")).Block(jen.Id("keys").Op("=").Append(jen.Id("keys"), jen.Id("k"))),
		jen.Qual("sort", "Strings").Call(jen.Id("keys")),
		jen.Id("b").Op("=").Append(jen.Id("b"), jen.LitRune('{')),
		jen.Id("start").Op(":=").Len(jen.Id("b")),
		jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Id("keys")).Block(
			jen.Id("b").Op("=").Qual(genrtPkg, "Key").Call(jen.Id("b"), jen.Id("start"), jen.Id("k")),
			jen.If(jen.List(jen.Id("b"), jen.Err()).Op("=").Add(appendFn(r.Map)).Call(jen.Id("b"), jen.Id("v").Index(jen.Id("k"))), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("[%q]: %w"), jen.Id("k"), jen.Err()))),
		),
		jen.Return(jen.Append(jen.Id("b"), jen.LitRune('}')), jen.Nil()),
	)
}
