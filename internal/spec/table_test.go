package spec

import (
	"strings"
	"testing"
)

// tableDoc adds a valid table, and the page that shows it, to the
// minimal spec.
func tableDoc(t *testing.T, d map[string]any) {
	t.Helper()
	d["tables"] = []any{map[string]any{
		"id": "demo.table.limits", "symbol": "LineLimits",
		"title":       map[string]any{"en": "Line limits", "ru": "Пределы строк"},
		"description": map[string]any{"en": "What each kind of line may hold.", "ru": "Что может содержать строка каждого вида."},
		"stability":   "experimental", "since": "1.0",
		"columns": []any{
			map[string]any{"name": "kinds", "type": "strings", "required": true, "values": []any{"a", "b"}, "title": map[string]any{"en": "Kinds", "ru": "Виды"}},
			map[string]any{"name": "max", "type": "integer", "title": map[string]any{"en": "Maximum", "ru": "Максимум"}},
			map[string]any{"name": "rule", "type": "rule", "required": true, "title": map[string]any{"en": "Rule", "ru": "Правило"}},
		},
		"rows": []any{
			map[string]any{"kinds": []any{"a"}, "max": 5, "rule": "demo.wire.lines"},
			map[string]any{"kinds": []any{"a", "b"}, "rule": "demo.wire.lines"},
		},
	}}
	appendTo(t, d, "/docs/pages/0/sections", "tables")
}

func TestTableLoads(t *testing.T) {
	set, diags := Load(fixture(t, func(d map[string]any) { tableDoc(t, d) }))
	if diags.HasErrors() {
		t.Fatalf("spec with a table has errors:\n%s", diags.Errors().Error())
	}
	d := set.Domain("demo")
	if len(d.Tables) != 1 || len(d.Tables[0].Rows) != 2 || d.Tables[0].RowGoName() != "LineLimitsRow" || d.Tables[0].Ptr != "/tables/0" {
		t.Fatalf("tables %+v", d.Tables)
	}
	found := false
	for _, e := range d.Entries() {
		found = found || (e.Kind == KindTable && e.Table != nil)
	}
	if !found {
		t.Error("the table is not among the entries")
	}
	set, _ = Load(fixture(t, nil))
	if strings.Contains(string(set.Domain("demo").Canonical()), `"tables"`) {
		t.Error("the canonical model of a spec without tables names tables")
	}
}

func TestTableErrors(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(t *testing.T, d map[string]any)
		want   string
	}{
		{"id of the wrong kind", func(t *testing.T, d map[string]any) {
			set(t, d, "/tables/0/id", "demo.wire.limits")
		}, `id "demo.wire.limits" must be demo.table.<name>`},
		{"unknown column", func(t *testing.T, d map[string]any) {
			set(t, d, "/tables/0/rows/0/min", 1)
		}, `row 0 has min, which is not a column`},
		{"missing required", func(t *testing.T, d map[string]any) {
			set(t, d, "/tables/0/rows/1", map[string]any{"kinds": []any{"a"}})
		}, `row 1 has no rule`},
		{"wrong type", func(t *testing.T, d map[string]any) {
			set(t, d, "/tables/0/rows/0/max", "five")
		}, `row 0, column max: not an integer`},
		{"value outside the set", func(t *testing.T, d map[string]any) {
			set(t, d, "/tables/0/rows/0/kinds", []any{"c"})
		}, `"c" is not one of [a b]`},
		{"not a rule", func(t *testing.T, d map[string]any) {
			set(t, d, "/tables/0/rows/0/rule", "demo.method.get")
		}, `demo.method.get is not a rule of the spec`},
		{"column twice", func(t *testing.T, d map[string]any) {
			appendTo(t, d, "/tables/0/columns", map[string]any{"name": "max", "type": "integer", "title": map[string]any{"en": "M", "ru": "М"}})
		}, `column "max" is declared twice`},
		{"values on an integer", func(t *testing.T, d map[string]any) {
			set(t, d, "/tables/0/columns/1/values", []any{"1"})
		}, `cannot have a closed set of values`},
		{"not on a page", func(t *testing.T, d map[string]any) {
			set(t, d, "/docs/pages/0/sections", []any{"rules:wire", "errors"})
		}, `no page shows section "tables" (1 entries)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := Load(fixture(t, func(d map[string]any) {
				tableDoc(t, d)
				c.mutate(t, d)
			}))
			if !diags.HasErrors() {
				t.Fatalf("no error; want %q", c.want)
			}
			if got := diags.Errors().Error(); !strings.Contains(got, c.want) {
				t.Errorf("errors do not contain %q; got:\n%s", c.want, got)
			}
		})
	}
}
