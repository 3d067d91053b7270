package goemit

import (
	"encoding/json"
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/contractkit/contractkit/internal/spec"
)

// tableData writes each table of the spec as a row type and a variable
// holding its rows in order: data a runtime reads as it is, so that what
// the table says lives in the spec and not in branches of code. A rule
// column holds the rule's id constant.
func (g *generator) tableData(f *jen.File) {
	d := g.d
	for _, t := range d.Tables {
		var fields []jen.Code
		for _, col := range t.Columns {
			var typ *jen.Statement
			switch col.Type {
			case spec.ColumnInteger:
				typ = jen.Int64()
			case spec.ColumnBoolean:
				typ = jen.Bool()
			case spec.ColumnStrings:
				typ = jen.Index().String()
			default:
				typ = jen.String()
			}
			fields = append(fields, jen.Comment(g.comment(col.Title.EN+".")), jen.Id(col.GoName()).Add(typ))
			if col.Type == spec.ColumnInteger && !col.Required {
				fields = append(fields, jen.Comment(fmt.Sprintf("Has%s is set when the row gives %s.", col.GoName(), col.Name)), jen.Id("Has"+col.GoName()).Bool())
			}
		}
		f.Comment(g.comment(fmt.Sprintf("%s is one row of %s (%s): %s", t.RowGoName(), t.Symbol, t.ID, t.Title.EN+".")))
		f.Type().Id(t.RowGoName()).Struct(fields...)
		var rows []jen.Code
		for _, row := range t.Rows {
			dict := jen.Dict{}
			for _, col := range t.Columns {
				raw, ok := row[col.Name]
				if !ok {
					continue
				}
				switch col.Type {
				case spec.ColumnInteger:
					var n int64
					_ = json.Unmarshal(raw, &n)
					dict[jen.Id(col.GoName())] = jen.Lit(n)
					if !col.Required {
						dict[jen.Id("Has"+col.GoName())] = jen.True()
					}
				case spec.ColumnBoolean:
					var b bool
					_ = json.Unmarshal(raw, &b)
					dict[jen.Id(col.GoName())] = jen.Lit(b)
				case spec.ColumnStrings:
					var ss []string
					_ = json.Unmarshal(raw, &ss)
					var items []jen.Code
					for _, s := range ss {
						items = append(items, jen.Lit(s))
					}
					dict[jen.Id(col.GoName())] = jen.Index().String().Values(items...)
				case spec.ColumnRule:
					var s string
					_ = json.Unmarshal(raw, &s)
					dict[jen.Id(col.GoName())] = jen.Id(spec.RuleGoName(d.Header.ID, s))
				default:
					var s string
					_ = json.Unmarshal(raw, &s)
					dict[jen.Id(col.GoName())] = jen.Lit(s)
				}
			}
			rows = append(rows, jen.Values(dict))
		}
		f.Comment(g.comment(fmt.Sprintf("%s is %s: %s", t.Symbol, t.Title.EN, t.Description.EN)))
		f.Var().Id(t.Symbol).Op("=").Index().Id(t.RowGoName()).Values(rows...)
	}
}
