package goemit

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/contractkit/contractkit/internal/spec"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

func (g *generator) decodeFile(f *jen.File) {
	g.patterns = map[string]string{}
	g.patternList = nil
	g.typeIDs = map[*spec.Type]int{}
	for i, t := range g.d.Types {
		g.typeIDs[t] = i
	}
	g.typeIDTable(f)
	variantOf := g.variantOf()
	for _, t := range g.d.Types {
		g.entryDecoder(f, t, variantOf[t])
		switch t.Kind {
		case spec.ObjectKind:
			g.objectDecoder(f, t, len(variantOf[t]) > 0)
		case spec.EnumKind:
			g.enumDecoder(f, t)
		case spec.UnionKind:
			g.unionDecoder(f, t)
		case spec.AliasKind:
			g.aliasDecoder(f, t)
		case spec.AlternativesKind:
			g.alternativesDecoder(f, t)
		}
	}
	for _, r := range g.composites() {
		g.compositeDecoder(f, r)
	}
	if len(g.patternList) > 0 {
		var defs []jen.Code
		for _, p := range g.patternList {
			defs = append(defs, jen.Id(g.patterns[p]).Op("=").Qual(genrtPkg, "CompilePattern").Call(jen.Lit(p)))
		}
		f.Comment("Patterns of the contract, compiled once.")
		f.Var().Defs(defs...)
	}
}

// invalidParamsCode is the code Decode functions put on their errors.
func (g *generator) invalidParamsCode() jen.Code {
	if id := g.d.Header.InvalidParams; id != "" {
		return g.paramsError(id)
	}
	return jen.Lit(0)
}

// paramsError names the domain's invalid-params code: every generated
// validator reports its failures with it, so a server answers invalid
// params with the code its spec declares and the pointer of the culprit.
func (g *generator) paramsError(id string) jen.Code {
	return jen.Id(spec.CodePrefix + g.d.LookupError(id).GoName())
}

// treeParams are the parameters of every internal decoder: the tree and
// the Decoder that says how to read it. Pointers in their errors are
// relative to the tree.
func treeParams() []jen.Code {
	return []jen.Code{jen.Id("v").Op("*").Qual(strictjsonPkg, "Value"), jen.Id("d").Op("*").Qual(genrtPkg, "Decoder")}
}

// callDecode calls the decoder of r on v with the decoder d.
func callDecode(r *spec.TypeRef, v jen.Code) *jen.Statement {
	return decodeFn(r).Call(v, jen.Id("d"))
}

func (g *generator) entryDecoder(f *jen.File, t *spec.Type, unions []*spec.Type) {
	name := t.GoName()
	zero := jen.Id(name).Values()
	switch t.Kind {
	case spec.UnionKind:
		zero = jen.Nil()
	case spec.EnumKind, spec.AliasKind:
		zero = jen.Op("*").New(jen.Id(name))
	}
	f.Comment(g.comment(fmt.Sprintf("%s%s decodes data strictly as %s: wrong types, unknown enum values, violated constraints%s and malformed JSON are errors of type *ValidationError, carrying the invalid-params code and the JSON pointer of the failing value.",
		spec.DecodePrefix, name, name, map[bool]string{true: ", unknown members", false: ""}[t.AdditionalFields == "reject"])))
	f.Func().Id(spec.DecodePrefix+name).Params(jen.Id("data").Index().Byte()).Params(jen.Id(name), jen.Error()).Block(
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Qual(genrtPkg, "Parse").Call(jen.Id("data")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(zero, jen.Qual(genrtPkg, "WithCode").Call(jen.Err(), g.invalidParamsCode()))),
		jen.Var().Id("d").Qual(genrtPkg, "Decoder"),
		jen.List(jen.Id("x"), jen.Err()).Op(":=").Id("decode"+name).Call(jen.Id("v"), jen.Op("&").Id("d")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("x"), jen.Qual(genrtPkg, "WithCode").Call(jen.Err(), g.invalidParamsCode()))),
		jen.Return(jen.Id("x"), jen.Nil()),
	)
	if tag, value, ok := variantTag(t, unions); ok {
		g.variantTreeDecoder(f, t, tag, value)
		return
	}
	g.treeEntryDecoder(f, t)
}

// variantTag returns the tag member and value under which t appears in
// the unions that hold it, when they agree on one.
func variantTag(t *spec.Type, unions []*spec.Type) (tag, value string, ok bool) {
	for _, u := range unions {
		for _, v := range u.Variants {
			if v.Object != t {
				continue
			}
			if ok && (u.Tag != tag || v.Tag != value) {
				return "", "", false
			}
			tag, value, ok = u.Tag, v.Tag, true
		}
	}
	return tag, value, ok
}

// variantTreeDecoder writes DecodeXTree for an object that is a variant of
// a union: it decodes the union's value as written, tag and all, so that a
// runtime that dispatched on the tag itself decodes the variant without the
// union (and without holding it in an interface).
func (g *generator) variantTreeDecoder(f *jen.File, t *spec.Type, tag, value string) {
	name := t.GoName()
	f.Comment(g.comment(fmt.Sprintf("%s%s%s decodes v, a tree the caller already parsed, as %s where a union writes it: its member %q must be %q. The policy of d applies as for any tree decoder (see genrt.Decoder); pointers are relative to v.",
		spec.DecodePrefix, name, spec.TreeSuffix, name, tag, value)))
	f.Func().Id(spec.DecodePrefix+name+spec.TreeSuffix).Params(treeParams()...).Params(jen.Id(name), jen.Error()).Block(
		jen.If(jen.Err().Op(":=").Qual(genrtPkg, "Tag").Call(jen.Id("v"), jen.Lit(tag), jen.Lit(value)), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Id(name).Values(), jen.Qual(genrtPkg, "WithCode").Call(jen.Err(), g.invalidParamsCode()))),
		jen.List(jen.Id("x"), jen.Err()).Op(":=").Id("decode"+name+"Except").Call(jen.Id("v"), jen.Id("d"), jen.Lit(tag)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("x"), jen.Qual(genrtPkg, "WithCode").Call(jen.Err(), g.invalidParamsCode()))),
		jen.Return(jen.Id("x"), jen.Nil()),
	)
	// The tag is read once: a runtime that dispatched on it has found it a
	// string and compared it already, and reading it again was a lookup
	// and a comparison per event on its hottest path.
	f.Comment(g.comment(fmt.Sprintf("%s%s%s is %s%s%s for a caller that has read v's tag already and found it %q: it does not read the member %q again, and skips it as the union's decoder does. A v that is not an object is refused as %s%s%s refuses it; the policy of d applies as for any tree decoder.",
		spec.DecodePrefix, name, spec.BodySuffix, spec.DecodePrefix, name, spec.TreeSuffix, value, tag, spec.DecodePrefix, name, spec.TreeSuffix)))
	f.Func().Id(spec.DecodePrefix+name+spec.BodySuffix).Params(treeParams()...).Params(jen.Id(name), jen.Error()).Block(
		jen.List(jen.Id("x"), jen.Err()).Op(":=").Id("decode"+name+"Except").Call(jen.Id("v"), jen.Id("d"), jen.Lit(tag)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("x"), jen.Qual(genrtPkg, "WithCode").Call(jen.Err(), g.invalidParamsCode()))),
		jen.Return(jen.Id("x"), jen.Nil()),
	)
}

// treeEntryDecoder writes DecodeXTree: the decoder of an already-parsed
// tree, for runtimes that parse a message once and look at it themselves.
func (g *generator) treeEntryDecoder(f *jen.File, t *spec.Type) {
	name := t.GoName()
	f.Comment(g.comment(fmt.Sprintf("%s%s%s decodes v, a tree the caller already parsed, as %s under the policy of d (see genrt.Decoder): unknown members and unrecognised union members are errors or, with d.Strip, removed and noted in d.Notes; the errors are those of %s%s, with pointers relative to v.",
		spec.DecodePrefix, name, spec.TreeSuffix, name, spec.DecodePrefix, name)))
	f.Func().Id(spec.DecodePrefix+name+spec.TreeSuffix).Params(treeParams()...).Params(jen.Id(name), jen.Error()).Block(
		jen.List(jen.Id("x"), jen.Err()).Op(":=").Id("decode"+name).Call(jen.Id("v"), jen.Id("d")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("x"), jen.Qual(genrtPkg, "WithCode").Call(jen.Err(), g.invalidParamsCode()))),
		jen.Return(jen.Id("x"), jen.Nil()),
	)
}

func retErr(zero jen.Code) jen.Code {
	return jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(zero, jen.Err()))
}

// atKey wraps an error expression so that its pointer gains a member name.
func atKey(name string) func(jen.Code) jen.Code {
	return func(err jen.Code) jen.Code { return jen.Qual(genrtPkg, "AtKey").Call(err, jen.Lit(name)) }
}

// inType wraps an error expression so that it names the type it was read as.
func inType(name string) func(jen.Code) jen.Code {
	return func(err jen.Code) jen.Code { return jen.Qual(genrtPkg, "InType").Call(err, jen.Lit(name)) }
}

// typeIDTable writes TypeIDs: the id each type's decoder passes to the
// Named hook of a genrt.Decoder, by Go name, for runtimes that watch some.
func (g *generator) typeIDTable(f *jen.File) {
	dict := jen.Dict{}
	for _, t := range g.d.Types {
		dict[jen.Lit(t.GoName())] = jen.Lit(g.typeIDs[t])
	}
	f.Comment("TypeIDs maps the Go name of every type to the id its tree decoder passes to genrt.Decoder.Check; a runtime sets Watch[id] to have its Named hook called for the type.")
	f.Var().Id("TypeIDs").Op("=").Map(jen.String()).Int().Values(dict)
}

// namedCheck calls the Named hook of d for a value of the type, if watched.
func (g *generator) namedCheck(t *spec.Type, zero jen.Code) jen.Code {
	return jen.If(jen.Err().Op(":=").Id("d").Dot("Check").Call(jen.Lit(g.typeIDs[t]), jen.Lit(t.GoName()), jen.Id("v")), jen.Err().Op("!=").Nil()).Block(jen.Return(zero, jen.Err()))
}

func (g *generator) objectDecoder(f *jen.File, t *spec.Type, variant bool) {
	name := t.GoName()
	params := treeParams()
	fn := "decode" + name
	if variant {
		// A union decodes its variants' members around its own tag.
		f.Func().Id(fn).Params(params...).Params(jen.Id(name), jen.Error()).Block(
			jen.Return(jen.Id(fn+"Except").Call(jen.Id("v"), jen.Id("d"), jen.Lit(""))),
		)
		fn += "Except"
		params = append(params, jen.Id("skip").String())
	}
	out := jen.Id("out")
	body := []jen.Code{
		jen.Var().Id("out").Id(name),
		jen.If(jen.Err().Op(":=").Qual(genrtPkg, "Object").Call(jen.Id("v"), jen.Lit("")), jen.Err().Op("!=").Nil()).Block(jen.Return(out, jen.Err())),
	}
	// Presence is tracked only where something reads it: required
	// members, defaults and exactly-one-of groups.
	track := map[int]bool{}
	for i, fl := range t.Fields {
		if fl.Required || fl.Default != nil {
			track[i] = true
		}
		for _, n := range t.ExactlyOneOf {
			if n == fl.Name {
				track[i] = true
			}
		}
		if track[i] {
			body = append(body, jen.Var().Id("has"+strconv.Itoa(i)).Bool())
		}
	}
	var cases []jen.Code
	for i, fl := range t.Fields {
		cases = append(cases, jen.Case(jen.Lit(fl.Name)).Block(g.fieldDecode(t, fl, i, track[i])...))
	}
	if def := g.otherMember(t, variant); len(def) > 0 {
		cases = append(cases, jen.Default().Block(def...))
	}
	if len(cases) > 0 {
		body = append(body, jen.For(jen.Id("i").Op(":=").Range().Id("v").Dot("Members")).Block(
			jen.Id("m").Op(":=").Op("&").Id("v").Dot("Members").Index(jen.Id("i")),
			jen.Switch(jen.Id("m").Dot("Key")).Block(cases...),
		))
	}
	for i, fl := range t.Fields {
		has := jen.Id("has" + strconv.Itoa(i))
		switch {
		case fl.Required:
			body = append(body, jen.If(jen.Op("!").Add(has)).Block(jen.Return(out, jen.Qual(genrtPkg, "Missing").Call(jen.Lit(""), jen.Lit(fl.Name)))))
		case fl.Default != nil:
			body = append(body, jen.If(jen.Op("!").Add(has)).Block(
				jen.Id("out").Dot(fl.GoName()).Op("=").Qual(genrtPkg, "Ptr").Call(goType(&fl.Type).Call(g.valueExpr(fl.Default))),
			))
		}
	}
	if len(t.ExactlyOneOf) > 0 {
		var present []jen.Code
		present = append(present, jen.Id("n").Op(":=").Lit(0))
		var names []jen.Code
		for _, n := range t.ExactlyOneOf {
			for i, fl := range t.Fields {
				if fl.Name == n {
					present = append(present, jen.If(jen.Id("has"+strconv.Itoa(i))).Block(jen.Id("n").Op("++")))
				}
			}
			names = append(names, jen.Lit(n))
		}
		body = append(body, present...)
		body = append(body, jen.If(jen.Err().Op(":=").Qual(genrtPkg, "ExactlyOne").Call(append([]jen.Code{jen.Lit(""), jen.Id("n")}, names...)...), jen.Err().Op("!=").Nil()).Block(jen.Return(out, jen.Err())))
	}
	body = append(body, g.namedCheck(t, out), jen.Return(out, jen.Nil()))
	f.Func().Id(fn).Params(params...).Params(jen.Id(name), jen.Error()).Block(body...)
}

// fieldDecode is the case of one member of an object type: decode, check
// the constraints, store. A null in an optional member may read as absent,
// and an unrecognised value in an optional member may be removed; in a
// required one it makes the object unrecognisable (genrt.Decoder).
func (g *generator) fieldDecode(t *spec.Type, fl *spec.Field, i int, track bool) []jen.Code {
	out := jen.Id("out")
	has := jen.Null()
	if track {
		has = jen.Id("has" + strconv.Itoa(i)).Op("=").True()
	}
	var stmts []jen.Code
	if !fl.Required && !fl.Nullable {
		stmts = append(stmts, jen.If(jen.Id("d").Dot("NullMember").Call(jen.Id("v"), jen.Id("i"), jen.Lit(t.GoName()))).Block(jen.Continue()))
	}
	if fl.Nullable {
		stmts = append(stmts, jen.If(jen.Id("m").Dot("Value").Dot("Kind").Op("==").Qual(strictjsonPkg, "Null")).Block(decodedNull(fl), has, jen.Continue()))
	}
	onErr := []jen.Code{}
	if !fl.Required {
		onErr = append(onErr, jen.If(jen.Id("d").Dot("Drop").Call(jen.Err(), jen.Id("mark"), jen.Id("v"), jen.Id("i"), jen.Lit(t.GoName()))).Block(jen.Continue()))
	}
	onErr = append(onErr, jen.Return(out, jen.Id("d").Dot("MemberErr").Call(jen.Err(), jen.Id("v"), jen.Id("i"))))
	stmts = append(stmts,
		jen.Id("mark").Op(":=").Id("d").Dot("Mark").Call(),
		jen.List(jen.Id("x"), jen.Err()).Op(":=").Add(callDecode(&fl.Type, jen.Id("m").Dot("Value"))),
		jen.If(jen.Err().Op("!=").Nil()).Block(onErr...),
	)
	stmts = append(stmts, g.constraintChecks(fl.Constraints, &fl.Type, jen.Id("x"), out, atKey(fl.Name))...)
	stmts = append(stmts, jen.Id("d").Dot("Under").Call(jen.Id("mark"), jen.Lit(fl.Name)))
	return append(stmts, decodedValue(fl), has)
}

// otherMember is the default case of an object's members: the union's tag
// (read by the union), or a member the type does not name, which its
// additionalFields policy decides. An open object keeps such members as
// data and needs no case.
func (g *generator) otherMember(t *spec.Type, variant bool) []jen.Code {
	out := jen.Id("out")
	var def []jen.Code
	switch t.AdditionalFields {
	case "reject":
		if variant {
			def = append(def, jen.If(jen.Id("m").Dot("Key").Op("==").Id("skip")).Block(jen.Continue()))
		}
		def = append(def, jen.If(jen.Err().Op(":=").Id("d").Dot("Unknown").Call(jen.Id("v"), jen.Id("i"), jen.Lit(t.GoName())), jen.Err().Op("!=").Nil()).Block(jen.Return(out, jen.Err())))
	case "keep":
		if variant {
			def = append(def, jen.If(jen.Id("m").Dot("Key").Op("==").Id("skip")).Block(jen.Continue()))
		}
		def = append(def,
			jen.List(jen.Id("raw"), jen.Err()).Op(":=").Qual(genrtPkg, "ReadRaw").Call(jen.Id("m").Dot("Value"), jen.Id("d")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(out, jen.Qual(genrtPkg, "AtKey").Call(jen.Err(), jen.Id("m").Dot("Key")))),
			jen.If(jen.Id("out").Dot("Extra").Op("==").Nil()).Block(jen.Id("out").Dot("Extra").Op("=").Map(jen.String()).Qual("encoding/json", "RawMessage").Values()),
			jen.Id("out").Dot("Extra").Index(jen.Id("m").Dot("Key")).Op("=").Id("raw"),
		)
	}
	return def
}

// valueExpr is the Go expression of a default or const: a literal or the
// constant it names.
func (g *generator) valueExpr(raw json.RawMessage) jen.Code {
	if id := spec.ConstantRef(raw); id != "" {
		return jen.Id(g.d.LookupConstant(id).Symbol)
	}
	return literal(raw)
}

// boundExpr is the Go expression of a numeric bound.
func (g *generator) boundExpr(b *spec.Bound) jen.Code {
	if b.Constant != "" {
		return jen.Id(g.d.LookupConstant(b.Constant).Symbol)
	}
	return jen.Op(b.Literal.String())
}

func (g *generator) pattern(p string) jen.Code {
	if n, ok := g.patterns[p]; ok {
		return jen.Id(n)
	}
	n := "pattern" + strconv.Itoa(len(g.patternList))
	g.patterns[p] = n
	g.patternList = append(g.patternList, p)
	return jen.Id(n)
}

// constraintChecks returns statements that check x (of type r), clamping
// where the contract says so, and return zero with the error wrap makes of
// a failure (whose pointer is relative to x).
func (g *generator) constraintChecks(k *spec.Constraints, r *spec.TypeRef, x, zero jen.Code, wrap func(jen.Code) jen.Code) []jen.Code {
	if k == nil {
		return nil
	}
	p := jen.Lit("")
	var out []jen.Code
	check := func(call jen.Code) {
		out = append(out, jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(jen.Return(zero, wrap(jen.Err()))))
	}
	// A count bound taken from a constant is written as the constant, so
	// that the decoder reads as the spec does.
	bound := func(n *int64, constant string) jen.Code {
		switch {
		case n == nil:
			return jen.Lit(-1)
		case constant != "":
			return jen.Id(g.d.LookupConstant(constant).Symbol)
		}
		return jen.Lit(int(*n))
	}
	kind := r.JSONKind()
	named := r.Named != nil
	asString := jen.Add(x)
	asInt := jen.Add(x)
	if named {
		asString = jen.String().Call(x)
		asInt = jen.Int64().Call(x)
	}
	if k.MinLength != nil || k.MaxLength != nil {
		check(jen.Qual(genrtPkg, "Length").Call(asString, p, bound(k.MinLength, k.MinLengthConstant), bound(k.MaxLength, k.MaxLengthConstant)))
	}
	if k.Pattern != "" {
		check(jen.Qual(genrtPkg, "Pattern").Call(asString, p, g.pattern(k.Pattern)))
	}
	if k.MinItems != nil || k.MaxItems != nil {
		check(jen.Qual(genrtPkg, "Items").Call(jen.Len(x), p, bound(k.MinItems, k.MinItemsConstant), bound(k.MaxItems, k.MaxItemsConstant)))
	}
	switch {
	case kind == spec.TInteger && k.Clamp:
		if k.Minimum != nil {
			out = append(out, jen.If(jen.Add(x).Op("<").Add(g.boundExpr(k.Minimum))).Block(jen.Add(x).Op("=").Add(g.boundExpr(k.Minimum))))
		}
		if k.Maximum != nil {
			out = append(out, jen.If(jen.Add(x).Op(">").Add(g.boundExpr(k.Maximum))).Block(jen.Add(x).Op("=").Add(g.boundExpr(k.Maximum))))
		}
	case kind == spec.TInteger:
		if k.Minimum != nil {
			check(jen.Qual(genrtPkg, "AtLeast").Call(asInt, p, g.boundExpr(k.Minimum)))
		}
		if k.Maximum != nil {
			check(jen.Qual(genrtPkg, "AtMost").Call(asInt, p, g.boundExpr(k.Maximum)))
		}
	case kind == spec.TNumber:
		asFloat := jen.Add(x)
		if named {
			asFloat = jen.Float64().Call(x)
		}
		if k.Minimum != nil {
			check(jen.Qual(genrtPkg, "AtLeastFloat").Call(asFloat, p, g.boundExpr(k.Minimum)))
		}
		if k.Maximum != nil {
			check(jen.Qual(genrtPkg, "AtMostFloat").Call(asFloat, p, g.boundExpr(k.Maximum)))
		}
	}
	if k.Const != nil {
		c := g.valueExpr(k.Const)
		out = append(out, jen.If(jen.Add(x).Op("!=").Add(c)).Block(jen.Return(zero, wrap(jen.Qual(genrtPkg, "Const").Call(p, c)))))
	}
	return out
}

func (g *generator) enumDecoder(f *jen.File, t *spec.Type) {
	name := t.GoName()
	read := "ReadString"
	if t.Base == "integer" {
		read = "ReadInteger"
	}
	zero := jen.Lit(zeroLit(t.Base))
	var cases []jen.Code
	for _, v := range t.Values {
		cases = append(cases, jen.Id(v.GoName(t)))
	}
	f.Func().Id("decode"+name).Params(treeParams()...).Params(jen.Id(name), jen.Error()).Block(
		jen.List(jen.Id("x"), jen.Err()).Op(":=").Qual(genrtPkg, read).Call(jen.Id("v"), jen.Id("d")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(zero, inType(name)(jen.Err()))),
		jen.Switch(jen.Id(name).Call(jen.Id("x"))).Block(
			jen.Case(cases...).Block(
				g.namedCheck(t, zero),
				jen.Return(jen.Id(name).Call(jen.Id("x")), jen.Nil())),
		),
		unknownEnumDecoded(t, zero),
	)
}

func zeroLit(base string) any {
	if base == "integer" {
		return 0
	}
	return ""
}

func (g *generator) unionDecoder(f *jen.File, t *spec.Type) {
	name := t.GoName()
	var cases []jen.Code
	var tags []string
	for _, v := range t.Variants {
		tags = append(tags, strconv.Quote(v.Tag))
		vn := v.GoName(t)
		if v.Object != nil {
			cases = append(cases, jen.Case(jen.Lit(v.Tag)).Block(
				jen.List(jen.Id("y"), jen.Err()).Op(":=").Id("decode"+vn+"Except").Call(jen.Id("v"), jen.Id("d"), jen.Lit(t.Tag)),
				retErr(jen.Nil()),
				jen.Id("x").Op("=").Id("y"),
			))
		} else {
			cases = append(cases, jen.Case(jen.Lit(v.Tag)).Block(
				jen.If(jen.Err().Op(":=").Id("d").Dot("TagOnly").Call(jen.Id("v"), jen.Lit(t.Tag), jen.Lit(vn)), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Id("x").Op("=").Id(vn).Values(),
			))
		}
	}
	cases = append(cases, jen.Default().Block(unknownUnionDecoded(t, joinComma(tags))))
	f.Func().Id("decode"+name).Params(treeParams()...).Params(jen.Id(name), jen.Error()).Block(
		jen.If(jen.Err().Op(":=").Qual(genrtPkg, "Object").Call(jen.Id("v"), jen.Lit("")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), inType(name)(jen.Err()))),
		jen.Id("tv").Op(":=").Id("v").Dot("Get").Call(jen.Lit(t.Tag)),
		jen.If(jen.Id("tv").Op("==").Nil()).Block(jen.Return(jen.Nil(), inType(name)(jen.Qual(genrtPkg, "Missing").Call(jen.Lit(""), jen.Lit(t.Tag))))),
		jen.List(jen.Id("tag"), jen.Err()).Op(":=").Qual(genrtPkg, "String").Call(jen.Id("tv"), jen.Lit(strictjson.AppendPointer("", t.Tag))),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), inType(name)(jen.Err()))),
		jen.Var().Id("x").Id(name),
		jen.Switch(jen.Id("tag")).Block(cases...),
		g.namedCheck(t, jen.Nil()),
		jen.Return(jen.Id("x"), jen.Nil()),
	)
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

func (g *generator) aliasDecoder(f *jen.File, t *spec.Type) {
	name := t.GoName()
	under := t.Type
	zero := jen.Op("*").New(jen.Id(name))
	body := []jen.Code{
		jen.List(jen.Id("u"), jen.Err()).Op(":=").Add(callDecode(under, jen.Id("v"))),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(zero, inType(name)(jen.Err()))),
	}
	body = append(body, g.constraintChecks(t.Constraints, under, jen.Id("u"), zero, inType(name))...)
	body = append(body, g.namedCheck(t, zero), jen.Return(jen.Id(name).Call(jen.Id("u")), jen.Nil()))
	f.Func().Id("decode"+name).Params(treeParams()...).Params(jen.Id(name), jen.Error()).Block(body...)
}

var kindOfBuiltin = map[string]string{
	spec.TString: "String", spec.TInteger: "Number", spec.TNumber: "Number", spec.TBoolean: "Bool",
}

func (g *generator) alternativesDecoder(f *jen.File, t *spec.Type) {
	name := t.GoName()
	zero := jen.Id(name).Values()
	var cases []jen.Code
	var wants []string
	for _, a := range t.Alternatives {
		fn := spec.GoName(a.Type)
		r := &spec.TypeRef{Name: a.Type}
		stmts := []jen.Code{
			jen.List(jen.Id("x"), jen.Err()).Op(":=").Add(callDecode(r, jen.Id("v"))),
			retErr(zero),
		}
		stmts = append(stmts, g.constraintChecks(a.Constraints, r, jen.Id("x"), zero, func(e jen.Code) jen.Code { return e })...)
		stmts = append(stmts, g.namedCheck(t, zero), jen.Return(jen.Id(name).Values(jen.Dict{jen.Id(fn): jen.Op("&").Id("x")}), jen.Nil()))
		cases = append(cases, jen.Case(jen.Qual(strictjsonPkg, kindOfBuiltin[a.Type])).Block(stmts...))
		wants = append(wants, describeBuiltin(a.Type))
	}
	want := ""
	for i, w := range wants {
		switch {
		case i == 0:
			want = w
		case i == len(wants)-1:
			want += " or " + w
		default:
			want += ", " + w
		}
	}
	f.Func().Id("decode"+name).Params(treeParams()...).Params(jen.Id(name), jen.Error()).Block(
		jen.Switch(jen.Id("v").Dot("Kind")).Block(cases...),
		jen.Return(zero, jen.Qual(genrtPkg, "Invalid").Call(jen.Lit(""), jen.Lit("expected "+want+", got %s"), jen.Id("v").Dot("Kind"))),
	)
}

func describeBuiltin(name string) string {
	switch name {
	case spec.TInteger:
		return "an integer"
	}
	return "a " + name
}

func (g *generator) compositeDecoder(f *jen.File, r *spec.TypeRef) {
	name := "decode" + refName(r)
	if r.Array != nil {
		elem := refName(r.Array)
		f.Func().Id(name).Params(treeParams()...).Params(goType(r), jen.Error()).Block(
			jen.If(jen.Err().Op(":=").Qual(genrtPkg, "Array").Call(jen.Id("v"), jen.Lit("")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Id("out").Op(":=").Make(goType(r), jen.Lit(0), jen.Len(jen.Id("v").Dot("Elems"))),
			jen.For(jen.List(jen.Id("i"), jen.Id("e")).Op(":=").Range().Id("v").Dot("Elems")).Block(
				jen.Id("mark").Op(":=").Id("d").Dot("Mark").Call(),
				jen.List(jen.Id("x"), jen.Err()).Op(":=").Add(callDecode(r.Array, jen.Id("e"))),
				jen.If(jen.Err().Op("!=").Nil()).Block(
					jen.If(jen.Id("d").Dot("DropElem").Call(jen.Err(), jen.Id("mark"), jen.Id("i"), jen.Lit(elem))).Block(jen.Continue()),
					jen.Return(jen.Nil(), jen.Qual(genrtPkg, "AtIndex").Call(jen.Err(), jen.Id("i"))),
				),
				jen.Id("d").Dot("UnderIndex").Call(jen.Id("mark"), jen.Id("i")),
				jen.Id("out").Op("=").Append(jen.Id("out"), jen.Id("x")),
			),
			jen.Return(jen.Id("out"), jen.Nil()),
		)
		return
	}
	elem := refName(r.Map)
	f.Func().Id(name).Params(treeParams()...).Params(goType(r), jen.Error()).Block(
		jen.If(jen.Err().Op(":=").Qual(genrtPkg, "Object").Call(jen.Id("v"), jen.Lit("")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("out").Op(":=").Make(goType(r), jen.Len(jen.Id("v").Dot("Members"))),
		jen.For(jen.Id("i").Op(":=").Range().Id("v").Dot("Members")).Block(
			jen.Id("m").Op(":=").Op("&").Id("v").Dot("Members").Index(jen.Id("i")),
			jen.Id("mark").Op(":=").Id("d").Dot("Mark").Call(),
			jen.List(jen.Id("x"), jen.Err()).Op(":=").Add(callDecode(r.Map, jen.Id("m").Dot("Value"))),
			jen.If(jen.Err().Op("!=").Nil()).Block(
				jen.If(jen.Id("d").Dot("DropKey").Call(jen.Err(), jen.Id("mark"), jen.Id("m").Dot("Key"), jen.Lit(elem))).Block(jen.Continue()),
				jen.Return(jen.Nil(), jen.Qual(genrtPkg, "AtKey").Call(jen.Err(), jen.Id("m").Dot("Key"))),
			),
			jen.Id("d").Dot("Under").Call(jen.Id("mark"), jen.Id("m").Dot("Key")),
			jen.Id("out").Index(jen.Id("m").Dot("Key")).Op("=").Id("x"),
		),
		jen.Return(jen.Id("out"), jen.Nil()),
	)
}
