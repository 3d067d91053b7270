package goemit

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/contractkit/contractkit/internal/spec"
)

// dispatchFile writes the server side of a domain: RPCError, the Handler
// interface with one method per client-to-server request and
// notification, and DispatchTree/DispatchNotificationTree, which decode
// the params the transport parsed with its message strictly, call the
// handler and encode its result, so a server never touches params itself.
func (g *generator) dispatchFile(f *jen.File) {
	d := g.d
	f.Comment("RPCError is an error response: a code of the contract, its message and optional data.")
	f.Comment("Handlers return it for protocol and domain errors; any other error becomes the")
	f.Comment("contract's internal error, without its text on the wire.")
	f.Type().Id("RPCError").Struct(
		jen.Id("Code").Int64(),
		jen.Id("Message").String(),
		jen.Id("Data").Any().Comment("encoded as the error's data member when not nil"),
	)
	f.Func().Params(jen.Id("e").Op("*").Id("RPCError")).Id("Error").Params().String().Block(
		jen.Return(jen.Qual("fmt", "Sprintf").Call(jen.Lit("%d %s"), jen.Id("e").Dot("Code"), jen.Id("e").Dot("Message"))),
	)
	// The error's data and the error object are written here once: for a
	// transport that puts the data in its own envelope (DataJSON) and for
	// a program that prints the error as JSON, such as a CLI's -json output
	// (MarshalJSON).
	f.Comment("DataJSON is the error's data member as JSON, nil when Data is nil. A generated DTO writes")
	f.Comment("itself exactly (encoding/json would only check and compact it again); any other value goes")
	f.Comment("through encoding/json.")
	f.Func().Params(jen.Id("e").Op("*").Id("RPCError")).Id("DataJSON").Params().Params(jen.Qual("encoding/json", "RawMessage"), jen.Error()).Block(
		jen.If(jen.Id("e").Dot("Data").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Nil())),
		jen.If(jen.List(jen.Id("m"), jen.Id("ok")).Op(":=").Id("e").Dot("Data").Assert(jen.Qual("encoding/json", "Marshaler")), jen.Id("ok")).Block(
			jen.Return(jen.Id("m").Dot("MarshalJSON").Call()),
		),
		jen.Return(jen.Qual("encoding/json", "Marshal").Call(jen.Id("e").Dot("Data"))),
	)
	f.Comment("MarshalJSON writes the error as the contract's error object: code, message and, when Data")
	f.Comment("is not nil, data (DataJSON); data that cannot be written is an error.")
	f.Func().Params(jen.Id("e").Op("*").Id("RPCError")).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.List(jen.Id("data"), jen.Err()).Op(":=").Id("e").Dot("DataJSON").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Qual("encoding/json", "Marshal").Call(jen.Struct(
			jen.Id("Code").Int64().Tag(map[string]string{"json": "code"}),
			jen.Id("Message").String().Tag(map[string]string{"json": "message"}),
			jen.Id("Data").Qual("encoding/json", "RawMessage").Tag(map[string]string{"json": "data,omitempty"}),
		).Values(jen.Dict{jen.Id("Code"): jen.Id("e").Dot("Code"), jen.Id("Message"): jen.Id("e").Dot("Message"), jen.Id("Data"): jen.Id("data")}))),
	)
	f.Comment("NewError returns the error with the given code, its default message from the error table, and data.")
	f.Func().Id("NewError").Params(jen.Id("code").Int64(), jen.Id("data").Any()).Op("*").Id("RPCError").Block(
		jen.List(jen.Id("info"), jen.Id("_")).Op(":=").Id("LookupError").Call(jen.Id("code")),
		jen.Return(jen.Op("&").Id("RPCError").Values(jen.Dict{
			jen.Id("Code"):    jen.Id("code"),
			jen.Id("Message"): jen.Id("info").Dot("Message"),
			jen.Id("Data"):    jen.Id("data"),
		})),
	)

	var methods []jen.Code
	// The cases decode a value the transport already parsed with its
	// message, so params are parsed once, under the strict policy of the
	// zero Decoder.
	var reqCases, notCases []jen.Code
	decodeCall := func(t *spec.Type) jen.Code {
		return jen.Id(spec.DecodePrefix+t.GoName()+spec.TreeSuffix).Call(jen.Id("params"), jen.Op("&").Id("d"))
	}
	notParams := false // whether any notification takes params
	for _, m := range d.Methods {
		if m.Direction != spec.ClientToServer {
			continue
		}
		params := jen.Id("p").Id(m.ParamsType.GoName())
		doc := g.comment(fmt.Sprintf("%s handles %s (%s): %s", m.GoName(), m.Method, m.ID, m.Title.EN))
		call := jen.Id("h").Dot(m.GoName()).Call(jen.Id("ctx"), jen.Id("p"))
		var tail []jen.Code
		if m.ResultType == nil {
			methods = append(methods, jen.Comment(doc), jen.Id(m.GoName()).Params(jen.Id("ctx").Qual("context", "Context"), params).Error())
			tail = []jen.Code{
				jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Return(jen.Index().Byte().Parens(jen.Lit("null")), jen.Nil()),
			}
		} else {
			res := m.ResultType
			methods = append(methods, jen.Comment(doc), jen.Id(m.GoName()).Params(jen.Id("ctx").Qual("context", "Context"), params).Params(jen.Id(res.GoName()), jen.Error()))
			tail = []jen.Code{
				jen.List(jen.Id("r"), jen.Err()).Op(":=").Add(call),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Return(jen.Id("append"+res.GoName()).Call(jen.Nil(), jen.Id("r"))),
			}
		}
		body := append([]jen.Code{
			jen.List(jen.Id("p"), jen.Err()).Op(":=").Add(decodeCall(m.ParamsType)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("invalidParams").Call(jen.Err()))),
		}, tail...)
		reqCases = append(reqCases, jen.Case(jen.Id(spec.MethodPrefix+m.GoName())).Block(body...))
	}
	for _, n := range d.Notifications {
		if n.Direction != spec.ClientToServer {
			continue
		}
		doc := g.comment(fmt.Sprintf("%s handles the notification %s (%s): %s", n.GoName(), n.Method, n.ID, n.Title.EN))
		if n.ParamsType == nil {
			methods = append(methods, jen.Comment(doc), jen.Id(n.GoName()).Params(jen.Id("ctx").Qual("context", "Context")).Error())
			notCases = append(notCases, jen.Case(jen.Id(spec.NotificationPrefix+n.GoName())).Block(
				jen.Return(jen.Id("h").Dot(n.GoName()).Call(jen.Id("ctx"))),
			))
			continue
		}
		notParams = true
		methods = append(methods, jen.Comment(doc), jen.Id(n.GoName()).Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("p").Id(n.ParamsType.GoName())).Error())
		notCases = append(notCases, jen.Case(jen.Id(spec.NotificationPrefix+n.GoName())).Block(
			jen.List(jen.Id("p"), jen.Err()).Op(":=").Add(decodeCall(n.ParamsType)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("invalidParams").Call(jen.Err()))),
			jen.Return(jen.Id("h").Dot(n.GoName()).Call(jen.Id("ctx"), jen.Id("p"))),
		))
	}
	f.Comment("Handler serves the client-to-server requests and notifications of the contract.")
	f.Type().Id("Handler").Interface(methods...)

	notFound := jen.Id("NewError").Call(jen.Id(g.codeFor(-32601)), jen.Nil())
	// An absent params (nil) reads as an empty object; the zero Decoder is
	// the strict policy.
	treeSig := []jen.Code{jen.Id("ctx").Qual("context", "Context"), jen.Id("h").Id("Handler"), jen.Id("method").String(), jen.Id("params").Op("*").Qual(strictjsonPkg, "Value")}
	emptyObject := jen.If(jen.Id("params").Op("==").Nil()).Block(
		jen.Id("params").Op("=").Op("&").Qual(strictjsonPkg, "Value").Values(jen.Dict{jen.Id("Kind"): jen.Qual(strictjsonPkg, "Object")}),
	)
	strict := jen.Var().Id("d").Qual(genrtPkg, "Decoder")
	f.Comment(g.comment("DispatchTree decodes params (the value the transport parsed with its message, a strictjson object; nil means {}) strictly for method, calls its handler and returns the encoded result, so params are parsed only once. Invalid params give the invalid-params RPCError with the table's message and, when the spec types its data, the failing pointer and reason in its data; an unknown method gives method-not-found; handler errors are returned as they are."))
	var treeBody []jen.Code
	if len(reqCases) > 0 {
		treeBody = append(treeBody, emptyObject, strict)
	}
	treeBody = append(treeBody, jen.Switch(jen.Id("method")).Block(reqCases...), jen.Return(jen.Nil(), notFound))
	f.Func().Id("DispatchTree").Params(treeSig...).Params(jen.Index().Byte(), jen.Error()).Block(treeBody...)
	f.Comment(g.comment("DispatchNotificationTree is DispatchTree for notifications: there is no result. An unknown notification gives method-not-found, which a server ignores rather than answers."))
	var notTreeBody []jen.Code
	if notParams {
		notTreeBody = append(notTreeBody, emptyObject, strict)
	}
	if len(notCases) > 0 {
		notTreeBody = append(notTreeBody, jen.Switch(jen.Id("method")).Block(notCases...))
	}
	notTreeBody = append(notTreeBody, jen.Return(notFound))
	f.Func().Id("DispatchNotificationTree").Params(treeSig...).Error().Block(notTreeBody...)
	// The message is the error table's literal, the same for every invalid
	// params: a client that matches it keeps working. The failing pointer
	// and the reason go in the error's data when the spec's data type for
	// it can hold them (paramsDetail).
	info := jen.Dict{
		jen.Id("Code"):    g.invalidParamsCode(),
		jen.Id("Message"): jen.Id("info").Dot("Message"),
	}
	var dataFunc []jen.Code
	detail, ptrField, reasonField, ok := g.paramsDetail()
	if ok {
		info[jen.Id("Data")] = jen.Id("invalidParamsData").Call(jen.Err())
		dataFunc = []jen.Code{
			jen.Var().Id("ve").Op("*").Qual(genrtPkg, "ValidationError"),
			jen.If(jen.Qual("errors", "As").Call(jen.Err(), jen.Op("&").Id("ve"))).Block(
				jen.Id("p").Op(":=").Id("ve").Dot("Pointer"),
				jen.Return(jen.Id(detail.GoName()).Values(jen.Dict{
					jen.Id(ptrField):    jen.Op("&").Id("p"),
					jen.Id(reasonField): jen.Id("ve").Dot("Message"),
				})),
			),
			jen.Return(jen.Id(detail.GoName()).Values(jen.Dict{jen.Id(reasonField): jen.Err().Dot("Error").Call()})),
		}
	}
	f.Comment("invalidParams is the invalid-params error of a params value the decoder refused.")
	f.Func().Id("invalidParams").Params(jen.Err().Error()).Op("*").Id("RPCError").Block(
		jen.List(jen.Id("info"), jen.Id("_")).Op(":=").Id("LookupError").Call(g.invalidParamsCode()),
		jen.Return(jen.Op("&").Id("RPCError").Values(info)),
	)
	if ok {
		f.Comment("invalidParamsData is the error's data: the failing pointer within params and the reason.")
		f.Func().Id("invalidParamsData").Params(jen.Err().Error()).Id(detail.GoName()).Block(dataFunc...)
	}
}

// paramsDetail returns the data type of the invalid-params error and the
// Go names of its pointer and reason fields when the generated dispatcher
// can fill it: an object with a required string reason, an optional
// string pointer and no other required field. A spec whose invalid-params
// data is something else (a domain's own failure record) gets no data
// from the dispatcher; its handlers fill it.
func (g *generator) paramsDetail() (t *spec.Type, pointer, reason string, ok bool) {
	e := g.d.LookupError(g.d.Header.InvalidParams)
	if e == nil || e.DataType == nil || e.DataType.Kind != spec.ObjectKind {
		return nil, "", "", false
	}
	t = e.DataType
	for _, f := range t.Fields {
		plain := f.Type.Name == "string" && f.Type.Named == nil && !f.Nullable
		switch {
		case f.Name == "pointer" && plain && !f.Required:
			pointer = f.GoName()
		case f.Name == "reason" && plain && f.Required:
			reason = f.GoName()
		case f.Required:
			return nil, "", "", false
		}
	}
	return t, pointer, reason, pointer != "" && reason != ""
}

// codeFor names the error constant with the given code, or the literal
// when the spec declares no such error.
func (g *generator) codeFor(code int64) string {
	for _, e := range g.d.Errors {
		if e.Code == code {
			return spec.CodePrefix + e.GoName()
		}
	}
	return fmt.Sprint(code)
}
