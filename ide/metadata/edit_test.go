package metadata

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/designer"
	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/atomicfile"
)

// fieldKinds spells an editing state's fields as path=kind.
func fieldKinds(fields []gen.EditableField) map[string]string {
	out := map[string]string{}
	for _, f := range fields {
		out[f.Path] = schemaKind(f.Schema)
	}
	return out
}

func readOnlyPaths(r gen.EditingResult) []string {
	var out []string
	for _, p := range r.ReadOnlyProperties {
		out = append(out, p.Path+":"+string(p.Reason))
	}
	return out
}

// The fields are the profile's rows found in the descriptor; everything
// else is read-only; schemas of a later minor than the client's are not
// sent, and their fields are read-only for that client.
//
//contract:proves eska-ide-api.editing.profile eska-ide-api.editing.version-filter
//contract:proves eska-ide-api.method.metadata-property-editing
func TestEditingFields(t *testing.T) {
	want8 := map[string]string{
		"Synonym":                             "",
		"Comment":                             "text",
		"Type":                                "enum",
		"Type/StringQualifiers/Length":        "integer",
		"Type/StringQualifiers/AllowedLength": "enum",
		"MultiLine":                           "boolean",
		"FillValue":                           "value",
		"FillChecking":                        "enum",
	}
	h := openEditing(t, editFixture(), 8)
	r := h.editing("catalog:Товары/attribute:Артикул")
	got := fieldKinds(r.Fields)
	for p, k := range want8 {
		if k == "" {
			if _, ok := got[p]; ok {
				t.Errorf("an empty Synonym has a field")
			}
			continue
		}
		if got[p] != k {
			t.Errorf("Артикул %s: %q, want %q (fields %v)", p, got[p], k, got)
		}
	}
	if !reflect.DeepEqual(readOnlyPaths(r), []string{"Name:unsupported", "Synonym:unsupported"}) {
		t.Errorf("read-only: %v", readOnlyPaths(r))
	}
	if r.Profile != "attribute" || !r.Writable || r.AddRemove || r.Source.Value != "Catalogs/Товары.xml" || r.Snapshot != snapshotOf([]byte(h.file("Catalogs/Товары.xml"))) {
		t.Errorf("state %+v", stateOf(r))
	}
	vid := h.editing("catalog:Товары/attribute:Вид")
	v8 := fieldKinds(vid.Fields)
	for p, k := range map[string]string{
		"ChoiceParameterLinks/Link[1]/DataPath":   "reference",
		"ChoiceParameters/item[1]/@name":          "text",
		"ChoiceParameters/item[2]/@name":          "text",
		"ChoiceParameters/item[1]/value":          "value",
		"ChoiceParameters/item[2]/value/Value[1]": "value",
		"ChoiceParameters/item[2]/value/Value[2]": "value",
		"FillValue": "value",
		"Type":      "enum",
	} {
		if v8[p] != k {
			t.Errorf("Вид %s at 1.8: %q, want %q", p, v8[p], k)
		}
	}
	if _, ok := v8["ChoiceParameters/item[2]/value"]; ok {
		t.Errorf("an array container is a field")
	}
	for _, f := range vid.Fields {
		if f.Path == "ChoiceParameters/item[1]/@name" {
			if s, _ := gen.MarshalEditSchema(f.Schema); string(s) != `{"kind":"text","domain":"choiceParameterName"}` {
				t.Errorf("choice parameter name at 1.8: %s", s)
			}
		}
	}
	// A client of 1.6 sees neither references nor values, nor the domain.
	h6 := openEditing(t, editFixture(), 6)
	r6 := h6.editing("catalog:Товары/attribute:Вид")
	k6 := fieldKinds(r6.Fields)
	for _, p := range []string{"ChoiceParameterLinks/Link[1]/DataPath", "FillValue", "ChoiceParameters/item[1]/value"} {
		if _, ok := k6[p]; ok {
			t.Errorf("1.6 client gets %s", p)
		}
		found := false
		for _, ro := range r6.ReadOnlyProperties {
			found = found || (ro.Path == p && ro.Reason == gen.ReadOnlyReasonUnsupported)
		}
		if !found {
			t.Errorf("1.6 client: %s not read-only: %v", p, readOnlyPaths(r6))
		}
	}
	for _, f := range r6.Fields {
		if f.Path == "ChoiceParameters/item[1]/@name" {
			if s, _ := gen.MarshalEditSchema(f.Schema); string(s) != `{"kind":"text"}` {
				t.Errorf("choice parameter name at 1.6: %s", s)
			}
		}
	}
	// 1.7 has references, not values.
	h7 := openEditing(t, editFixture(), 7)
	k7 := fieldKinds(h7.editing("catalog:Товары/attribute:Вид").Fields)
	if k7["ChoiceParameterLinks/Link[1]/DataPath"] != "reference" || k7["FillValue"] != "" {
		t.Errorf("1.7: %v", k7)
	}
	// The catalog itself: localized items by language, flags, lengths,
	// default forms; a value outside the enum's list stays read-only.
	cat := fieldKinds(h.editing("catalog:Товары").Fields)
	for p, k := range map[string]string{"Synonym[lang=ru]": "text", "Synonym[lang=en]": "text", "Hierarchical": "boolean",
		"CodeLength": "integer", "DescriptionLength": "integer", "CodeType": "enum", "DefaultObjectForm": "enum", "DefaultListForm": "enum"} {
		if cat[p] != k {
			t.Errorf("catalog %s: %q, want %q", p, cat[p], k)
		}
	}
	h.children(coll("catalog:Товары", "predefined-item"))
	if h.editing("catalog:Товары/predefined-item:Основной").Profile != "none" {
		t.Errorf("predefined items have a profile")
	}
}

// A preview answers the exact byte replacements and writes nothing; an
// update writes exactly them, announces the change and answers the new
// state; a change to the same value writes and announces nothing.
//
//contract:proves eska-ide-api.editing.preview eska-ide-api.editing.exact-write eska-ide-api.editing.changed-event eska-ide-api.editing.snapshot eska-ide-api.editing.verify
//contract:proves eska-ide-api.error-kind.stale-generation eska-ide-api.method.metadata-preview-property eska-ide-api.method.metadata-update-property
func TestPreviewAndUpdate(t *testing.T) {
	h := openEditing(t, editFixture(), 8)
	before := h.file("Catalogs/Товары.xml")
	tree := sourceSnapshot(t, h.root)
	p := h.editParams("catalog:Товары", "Comment", `{"kind":"text","value":"Новый <комментарий> & \"текст\"\r\nвторая строка"}`)
	pr, err := h.b.PreviewProperty(p)
	if err != nil {
		t.Fatal(errText(err))
	}
	if !pr.Valid || !pr.Changed || len(pr.Changes) != 1 {
		t.Fatalf("preview %s", jsonOf(t, pr))
	}
	if !sameSnapshot(tree, sourceSnapshot(t, h.root)) || len(h.changedNotes()) != 0 {
		t.Fatalf("preview wrote or announced: %d notes", len(h.changedNotes()))
	}
	c := pr.Changes[0]
	want := before[:c.Range.Start] + c.Text + before[c.Range.End:]
	if before[c.Range.Start:c.Range.End] != "<Comment/>" || c.Text != "<Comment>Новый &lt;комментарий&gt; &amp; \"текст\"&#xD;\nвторая строка</Comment>" {
		t.Errorf("replacement %q of %q", c.Text, before[c.Range.Start:c.Range.End])
	}
	r, err := h.b.UpdateProperty(p)
	if err != nil {
		t.Fatal(errText(err))
	}
	if got := h.file("Catalogs/Товары.xml"); got != want {
		t.Errorf("the file is not the previewed bytes")
	}
	if !strings.HasPrefix(want, "\ufeff") || strings.Count(want, "\r\n") != strings.Count(before, "\r\n") {
		t.Errorf("BOM or line ends changed")
	}
	ch := h.changedNotes()
	if len(ch) != 1 || ch[0].Generation != 1 || ch[0].EventSequence != 1 || !reflect.DeepEqual(ch[0].Affected, []gen.ObjectID{"catalog:Товары"}) ||
		ch[0].SupportUnchanged == nil || !*ch[0].SupportUnchanged {
		t.Errorf("changed %+v", ch)
	}
	if r.Generation != 1 || r.EventSequence != 1 || !r.Editing.Undo || r.Editing.Redo || fieldValue(r.Editing, "Comment") != `"Новый <комментарий> & \"текст\"\r\nвторая строка"` {
		t.Errorf("result %s", jsonOf(t, r))
	}
	comment := ""
	for _, pp := range r.Properties {
		if pp.Key.Name == "Comment" {
			comment = pp.Value.(gen.TextValue).Text
		}
	}
	if comment != "Новый <комментарий> & \"текст\"\r\nвторая строка" {
		t.Errorf("properties show %q", comment)
	}
	h.gen = r.Generation
	// The old snapshot is refused, and nothing is written.
	p.Generation = h.gen
	if _, err := h.b.UpdateProperty(p); kindOf(err) != "source_changed" {
		t.Errorf("old snapshot: %s", errText(err))
	}
	// The same value again: nothing written, nothing announced.
	n := len(h.changedNotes())
	after := h.file("Catalogs/Товары.xml")
	r2, err := h.update("catalog:Товары", "Comment", `{"kind":"text","value":"Новый <комментарий> & \"текст\"\r\nвторая строка"}`)
	if err != nil || len(h.changedNotes()) != n || h.file("Catalogs/Товары.xml") != after || r2.Generation != 1 {
		t.Errorf("no-op: %v, %d events, generation %d", errText(err), len(h.changedNotes())-n, r2.Generation)
	}
	pr2, _ := h.b.PreviewProperty(h.editParams("catalog:Товары", "Comment", `{"kind":"text","value":"Новый <комментарий> & \"текст\"\r\nвторая строка"}`))
	if pr2.Changed || len(pr2.Changes) != 0 {
		t.Errorf("no-op preview %s", jsonOf(t, pr2))
	}
	// A stale generation is refused before anything.
	p = h.editParams("catalog:Товары", "Comment", `{"kind":"text","value":"x"}`)
	p.Generation = 0
	if _, err := h.b.UpdateProperty(p); kindOf(err) != "stale_generation" {
		t.Errorf("stale generation: %s", errText(err))
	}
	// Writing against bytes changed on disk is refused: source_changed.
	p = h.editParams("catalog:Товары", "Comment", `{"kind":"text","value":"x"}`)
	os.WriteFile(filepath.Join(h.root, "src", "Catalogs", "Товары.xml"), []byte(after+" "), 0o644)
	if _, err := h.b.UpdateProperty(p); kindOf(err) != "source_changed" || h.file("Catalogs/Товары.xml") != after+" " {
		t.Errorf("changed on disk: %s", errText(err))
	}
}

// Every kind of value: what it writes and that it reads back; values the
// field refuses are invalid params naming the path; bounds at N and N+1.
//
//contract:proves eska-ide-api.editing.text-values eska-ide-api.editing.scalar-values eska-ide-api.editing.type-values eska-ide-api.editing.form-values eska-ide-api.editing.choice-parameters eska-ide-api.editing.reference-values eska-ide-api.editing.value-values eska-ide-api.editing.invalid-value
//contract:proves eska-ide-api.error.invalid-params
func TestEditValueKinds(t *testing.T) {
	cases := []struct {
		id, path, change string
		writes           string // a fragment the file holds afterwards; "" for a refusal
		refusal          string // part of the invalid params message
	}{
		{"catalog:Товары", "Synonym[lang=en]", `{"kind":"text","value":"Products"}`, "<v8:content>Products</v8:content>", ""},
		{"catalog:Товары", "Synonym[lang=ru]", `{"kind":"text","value":"a\u0000b"}`, "", "cannot hold"},
		{"catalog:Товары", "Hierarchical", `{"kind":"boolean","value":false}`, "<Hierarchical>false</Hierarchical>", ""},
		{"catalog:Товары", "Hierarchical", `{"kind":"text","value":"false"}`, "", "a text change for a boolean field"},
		{"catalog:Товары", "CodeType", `{"kind":"enum","value":"Number"}`, "<CodeType>Number</CodeType>", ""},
		{"catalog:Товары", "CodeType", `{"kind":"enum","value":"Roman"}`, "", "not one of"},
		{"catalog:Товары", "CodeLength", `{"kind":"integer","value":50}`, "<CodeLength>50</CodeLength>", ""},
		{"catalog:Товары", "CodeLength", `{"kind":"integer","value":51}`, "", "above the maximum 50"},
		{"catalog:Товары", "CodeLength", `{"kind":"integer","value":-1}`, "", "below the minimum 0"},
		{"catalog:Товары", "DefaultObjectForm", `{"kind":"enum","value":"Catalog.Товары.Form.ФормаСписка"}`, "<DefaultObjectForm>Catalog.Товары.Form.ФормаСписка</DefaultObjectForm>", ""},
		{"catalog:Товары", "DefaultListForm", `{"kind":"enum","value":"Catalog.Товары.Form.ФормаСписка"}`, "<DefaultListForm>Catalog.Товары.Form.ФормаСписка</DefaultListForm>", ""},
		{"catalog:Товары", "DefaultObjectForm", `{"kind":"enum","value":""}`, "<DefaultObjectForm/>", ""},
		{"catalog:Товары", "DefaultObjectForm", `{"kind":"enum","value":"CommonForm.Чужая"}`, "", "not a form of"},
		{"catalog:Товары/attribute:Артикул", "Type/StringQualifiers/Length", `{"kind":"integer","value":1024}`, "<v8:Length>1024</v8:Length>", ""},
		{"catalog:Товары/attribute:Артикул", "Type/StringQualifiers/Length", `{"kind":"integer","value":1025}`, "", "above the maximum 1024"},
		{"catalog:Товары/attribute:Цена", "Type/NumberQualifiers/Digits", `{"kind":"integer","value":38}`, "<v8:Digits>38</v8:Digits>", ""},
		{"catalog:Товары/attribute:Цена", "Type/NumberQualifiers/Digits", `{"kind":"integer","value":39}`, "", "above the maximum 38"},
		{"catalog:Товары/attribute:Цена", "Type/NumberQualifiers/Digits", `{"kind":"integer","value":1}`, "", "cannot hold the 2 fraction digits"},
		{"catalog:Товары/attribute:Цена", "Type/NumberQualifiers/FractionDigits", `{"kind":"integer","value":15}`, "<v8:FractionDigits>15</v8:FractionDigits>", ""},
		{"catalog:Товары/attribute:Цена", "Type/NumberQualifiers/FractionDigits", `{"kind":"integer","value":16}`, "", "exceed the 15 digits"},
		{"catalog:Товары/attribute:Цена", "Type", `{"kind":"enum","value":"xs:string"}`,
			"\t\t\t\t\t<Type>\r\n\t\t\t\t\t\t<v8:Type>xs:string</v8:Type>\r\n\t\t\t\t\t\t<v8:StringQualifiers>\r\n\t\t\t\t\t\t\t<v8:Length>10</v8:Length>\r\n\t\t\t\t\t\t\t<v8:AllowedLength>Variable</v8:AllowedLength>\r\n\t\t\t\t\t\t</v8:StringQualifiers>\r\n\t\t\t\t\t</Type>\r\n", ""},
		{"catalog:Товары/attribute:Цена", "Type", `{"kind":"enum","value":"CatalogRef.Товары"}`, "<v8:Type>cfg:CatalogRef.Товары</v8:Type>\r\n\t\t\t\t\t</Type>", ""},
		{"catalog:Товары/attribute:Цена", "Type", `{"kind":"enum","value":"CatalogRef.Нет"}`, "", "not a type"},
		{"catalog:Товары/attribute:Артикул", "Type", `{"kind":"enum","value":"xs:decimal"}`, "", "FillValue is set"},
		{"catalog:Товары/attribute:Вид", "ChoiceParameters/item[1]/@name", `{"kind":"text","value":"Отбор.Родитель"}`, `<app:item name="Отбор.Родитель">`, ""},
		{"catalog:Товары/attribute:Вид", "ChoiceParameters/item[1]/@name", `{"kind":"text","value":"Отбор.Вид"}`, "", "already the name"},
		{"catalog:Товары/attribute:Вид", "ChoiceParameters/item[1]/@name", `{"kind":"text","value":"Отбор..Вид"}`, "", "identifiers joined by dots"},
		{"catalog:Товары/attribute:Вид", "ChoiceParameterLinks/Link[1]/DataPath", `{"kind":"reference","value":"Catalog.Товары.StandardAttribute.Code"}`, "<xr:DataPath xsi:type=\"xs:string\">Catalog.Товары.StandardAttribute.Code</xr:DataPath>", ""},
		{"catalog:Товары/attribute:Вид", "ChoiceParameterLinks/Link[1]/DataPath", `{"kind":"reference","value":"Catalog.Чужой.Attribute.Х"}`, "", "not one of the fields"},
		{"catalog:Товары/attribute:Вид", "ChoiceParameterLinks/Link[1]/DataPath", `{"kind":"reference","value":null}`, "", "may not be cleared"},
		{"catalog:Товары/tabular-section:Цены/attribute:Сумма", "ChoiceParameterLinks/Link[1]/DataPath", `{"kind":"reference","value":"Catalog.Товары.TabularSection.Цены.Attribute.Сумма"}`, "Catalog.Товары.TabularSection.Цены.Attribute.Сумма</xr:DataPath>", ""},
		{"catalog:Товары/attribute:Вид", "FillValue", `{"kind":"value","type":"EnumRef.Статусы","value":"Enum.Статусы.EnumValue.Закрыт"}`, `<FillValue xsi:type="xr:DesignTimeRef">Enum.Статусы.EnumValue.Закрыт</FillValue>`, ""},
		{"catalog:Товары/attribute:Вид", "FillValue", `{"kind":"value","type":"EnumRef.Статусы","value":"Enum.Статусы.EnumValue.Нет"}`, "", "not one of the values"},
		{"catalog:Товары/attribute:Вид", "FillValue", `{"kind":"value","type":"xs:string","value":"x"}`, "", "not one of the field's types"},
		{"catalog:Товары/attribute:Артикул", "FillValue", `{"kind":"value","type":"xs:string","value":"12345"}`, `<FillValue xsi:type="xs:string">12345</FillValue>`, ""},
		{"catalog:Товары/attribute:Артикул", "FillValue", `{"kind":"value","type":"xs:string","value":"123456"}`, "", "exceed the attribute's length 5"},
		{"catalog:Товары/attribute:Артикул", "FillValue", `{"kind":"value","type":"xs:string","value":""}`, `<FillValue xsi:type="xs:string"/>`, ""},
		{"catalog:Товары/attribute:Цена", "FillValue", `{"kind":"value","type":"xs:decimal","value":"1234567890123.45"}`, `<FillValue xsi:type="xs:decimal">1234567890123.45</FillValue>`, ""},
		{"catalog:Товары/attribute:Цена", "FillValue", `{"kind":"value","type":"xs:decimal","value":"12345678901234.5"}`, "", "does not fit 15 digits"},
		{"catalog:Товары/attribute:Цена", "FillValue", `{"kind":"value","type":"xs:decimal","value":"1.234"}`, "", "does not fit"},
		{"catalog:Товары/attribute:Цена", "FillValue", `{"kind":"value","type":"xs:decimal","value":"-1"}`, "", "allows no sign"},
		{"catalog:Товары/attribute:Цена", "FillValue", `{"kind":"value","type":"xs:decimal","value":"1e5"}`, "", "not a decimal"},
		{"catalog:Товары/attribute:Вид", "ChoiceParameters/item[1]/value", `{"kind":"value","type":"xs:dateTime","value":"2024-02-29T23:59:59"}`, `<app:value xsi:type="xs:dateTime">2024-02-29T23:59:59</app:value>`, ""},
		{"catalog:Товары/attribute:Вид", "ChoiceParameters/item[1]/value", `{"kind":"value","type":"xs:dateTime","value":"2023-02-29T00:00:00"}`, "", "not a date"},
		{"catalog:Товары/attribute:Вид", "ChoiceParameters/item[1]/value", `{"kind":"value","type":"xs:boolean","value":"true"}`, `<app:value xsi:type="xs:boolean">true</app:value>`, ""},
		{"catalog:Товары/attribute:Вид", "ChoiceParameters/item[1]/value", `{"kind":"value","type":"CatalogRef.Товары","value":"Catalog.Товары.Вложенный"}`, `<app:value xsi:type="xr:DesignTimeRef">Catalog.Товары.Вложенный</app:value>`, ""},
		{"catalog:Товары/attribute:Вид", "ChoiceParameters/item[2]/value/Value[2]", `{"kind":"value","type":"EnumRef.Статусы","value":"Enum.Статусы.EmptyRef"}`,
			`<v8:Value xsi:type="xr:DesignTimeRef">Enum.Статусы.EmptyRef</v8:Value>` + "\r\n\t\t\t\t\t\t\t</app:value>", ""},
	}
	for i, c := range cases {
		t.Run(strconv.Itoa(i)+" "+c.path, func(t *testing.T) {
			h := openEditing(t, editFixture(), 8)
			before := h.file("Catalogs/Товары.xml")
			_, err := h.update(c.id, c.path, c.change)
			if c.refusal != "" {
				re, ok := err.(*gen.RPCError)
				if !ok || re.Code != gen.CodeInvalidParams || re.Message != "Invalid params" || !strings.Contains(errText(err), c.path) || !strings.Contains(errText(err), c.refusal) {
					t.Errorf("%s: %v", c.change, errText(err))
				}
				if h.file("Catalogs/Товары.xml") != before {
					t.Errorf("a refused change was written")
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %s", c.change, errText(err))
			}
			after := h.file("Catalogs/Товары.xml")
			if !strings.Contains(after, c.writes) {
				t.Errorf("%s: the file lacks %q", c.change, c.writes)
			}
			// The field reads back as the change.
			var ch map[string]any
			json.Unmarshal([]byte(c.change), &ch)
			got := fieldValue(stateOf(h.editing(c.id)), c.path)
			var v any
			json.Unmarshal([]byte(got), &v)
			switch ch["kind"] {
			case "value":
				m, _ := v.(map[string]any)
				if m["type"] != ch["type"] || m["value"] != ch["value"] {
					t.Errorf("reads back %s", got)
				}
			default:
				if toString(v) != toString(ch["value"]) {
					t.Errorf("reads back %s, want %v", got, ch["value"])
				}
			}
		})
	}
}

// sourceSnapshot is snapshot without the derived cache.
func sourceSnapshot(t testing.TB, root string) map[string]string {
	out := snapshot(t, root)
	for k := range out {
		if strings.HasPrefix(k, ".eska") {
			delete(out, k)
		}
	}
	return out
}

func toString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Undo and redo restore exact bytes; an external change blocks them; a
// new write drops redo; the history holds MaxEditHistorySteps writes.
//
//contract:proves eska-ide-api.editing.history
//contract:proves eska-ide-api.method.metadata-undo-property
func TestUndoRedo(t *testing.T) {
	h := openEditing(t, editFixture(), 8)
	v0 := h.file("Catalogs/Товары.xml")
	if _, err := h.update("catalog:Товары", "Comment", `{"kind":"text","value":"один"}`); err != nil {
		t.Fatal(errText(err))
	}
	v1 := h.file("Catalogs/Товары.xml")
	if _, err := h.update("catalog:Товары/attribute:Артикул", "MultiLine", `{"kind":"boolean","value":true}`); err != nil {
		t.Fatal(errText(err))
	}
	v2 := h.file("Catalogs/Товары.xml")
	// The catalog and its attribute share the descriptor and its history.
	for _, step := range []struct {
		redo bool
		want string
	}{{false, v1}, {false, v0}, {true, v1}, {true, v2}, {false, v1}} {
		r, err := h.undo("catalog:Товары", step.redo)
		if err != nil {
			t.Fatal(errText(err))
		}
		if h.file("Catalogs/Товары.xml") != step.want {
			t.Fatalf("redo=%v: not the exact bytes", step.redo)
		}
		if r.Generation != h.gen {
			t.Fatal()
		}
	}
	r := h.editing("catalog:Товары")
	if !r.Undo || !r.Redo {
		t.Errorf("after an undo: undo %v redo %v", r.Undo, r.Redo)
	}
	// An external change: neither undo nor redo replays over it.
	os.WriteFile(filepath.Join(h.root, "src", "Catalogs", "Товары.xml"), []byte(strings.Replace(v1, "Товары</v8:content>", "Товары!</v8:content>", 1)), 0o644)
	h.files("1", "Catalogs/Товары.xml")
	h.gen++
	for _, redo := range []bool{false, true} {
		if _, err := h.undo("catalog:Товары", redo); kindOf(err) != "source_changed" {
			t.Errorf("redo=%v over an external change: %s", redo, errText(err))
		}
	}
	// A new write drops what could be redone.
	if _, err := h.update("catalog:Товары", "Comment", `{"kind":"text","value":"два"}`); err != nil {
		t.Fatal(errText(err))
	}
	if h.editing("catalog:Товары").Redo {
		t.Errorf("redo survives a new write")
	}
	if _, err := h.undo("catalog:Товары", true); err == nil || err.(*gen.RPCError).Code != gen.CodeInvalidParams {
		t.Errorf("redo with nothing to redo: %v", errText(err))
	}
}

// The history keeps MaxEditHistorySteps writes of a descriptor: that many
// undos succeed, one more finds nothing.
//
//contract:proves eska-ide-api.editing.history
func TestUndoHistoryLimit(t *testing.T) {
	h := openEditing(t, editFixture(), 8)
	for i := 0; i <= gen.MaxEditHistorySteps; i++ {
		if _, err := h.update("common-module:Общий", "Server", `{"kind":"boolean","value":`+strconv.FormatBool(i%2 == 1)+`}`); err != nil {
			t.Fatalf("write %d: %s", i, errText(err))
		}
	}
	for i := 0; i < gen.MaxEditHistorySteps; i++ {
		if _, err := h.undo("common-module:Общий", false); err != nil {
			t.Fatalf("undo %d: %s", i, errText(err))
		}
	}
	if _, err := h.undo("common-module:Общий", false); err == nil {
		t.Errorf("undo %d succeeded", gen.MaxEditHistorySteps+1)
	}
	// The one write that fell out of the history stays.
	if !strings.Contains(h.file("CommonModules/Общий.xml"), "<Server>false</Server>") {
		t.Errorf("after %d undos: %s", gen.MaxEditHistorySteps, h.file("CommonModules/Общий.xml"))
	}
}

// The vendor support rules decide: a locked object is not writable, its
// preview is not valid, its writes are refused with the support reason;
// an editable one is written; a symlinked descriptor never is.
//
//contract:proves eska-ide-api.editing.support-gate eska-ide-api.support.unknown
func TestEditSupportGate(t *testing.T) {
	h := openEditing(t, supportFixture(0), 8)
	r := h.editing("catalog:Закрытый")
	if r.Writable {
		t.Errorf("a locked catalog is writable")
	}
	p := h.editParams("catalog:Закрытый", "Comment", `{"kind":"text","value":"x"}`)
	if pr, err := h.b.PreviewProperty(p); err != nil || pr.Valid || !pr.Changed {
		t.Errorf("preview of a locked object: %+v %s", pr, errText(err))
	}
	_, err := h.b.UpdateProperty(p)
	if kindOf(err) != "property_read_only" || !strings.Contains(detailsOf(err), `"reason":"support"`) || !strings.Contains(detailsOf(err), `"mode":"not_editable"`) {
		t.Errorf("write of a locked object: %s", errText(err))
	}
	// A form the vendor did not ship follows its locked owner.
	if h.editing("catalog:Закрытый/form:Форма").Writable {
		t.Errorf("a form of a locked catalog is writable")
	}
	for _, id := range []string{"catalog:Открытый", "catalog:Открытый/attribute:Снятый", "catalog:Свой"} {
		if _, err := h.update(id, "Comment", `{"kind":"text","value":"можно"}`); err != nil {
			t.Errorf("%s: %s", id, errText(err))
		}
	}
	// Changes disabled for the whole configuration.
	h = openEditing(t, supportFixture(1), 8)
	_, err = h.update("catalog:Свой", "Comment", `{"kind":"text","value":"x"}`)
	if kindOf(err) != "property_read_only" || !strings.Contains(detailsOf(err), `"supportReason":"changes_disabled"`) {
		t.Errorf("changes disabled: %s", errText(err))
	}
	// A symlinked descriptor.
	files := editFixture()
	files["src/real/Общий.xml"] = files["src/CommonModules/Общий.xml"]
	files["src/CommonModules/Общий/Ext/Module.bsl"] = "// module\n"
	delete(files, "src/CommonModules/Общий.xml")
	h = newHarness(t, files)
	if err := os.Symlink(filepath.Join(h.root, "src", "real", "Общий.xml"), filepath.Join(h.root, "src", "CommonModules", "Общий.xml")); err != nil {
		t.Skip(err)
	}
	h.grants = clientGrants(8, true, gen.CapabilityPicturePreview, gen.CapabilityPropertyPresentation, gen.CapabilitySupportPolicy)
	h.open(h.root, gen.SelectionCurrent{})
	if h.editing("common-module:Общий").Writable {
		t.Errorf("a symlinked descriptor is writable")
	}
	_, err = h.update("common-module:Общий", "Server", `{"kind":"boolean","value":false}`)
	if kindOf(err) != "property_read_only" || !strings.Contains(detailsOf(err), `"reason":"symlink"`) {
		t.Errorf("symlink: %s", errText(err))
	}
}

// Without the opt-in nothing is written; properties stay readable.
//
//contract:proves eska-ide-api.editing.opt-in
//contract:proves eska-ide-api.error-kind.property-read-only
func TestEditOptIn(t *testing.T) {
	h := newHarness(t, editFixture())
	h.grants = clientGrants(8, false, gen.CapabilityPicturePreview, gen.CapabilityPropertyPresentation, gen.CapabilitySupportPolicy)
	h.open(h.root, gen.SelectionCurrent{})
	p := h.editParams("catalog:Товары", "Comment", `{"kind":"text","value":"x"}`)
	before := snapshot(t, h.root)
	if _, err := h.b.UpdateProperty(p); kindOf(err) != "property_read_only" || !strings.Contains(detailsOf(err), `"reason":"opt_in"`) {
		t.Errorf("update: %s", errText(err))
	}
	if _, err := h.b.UndoProperty(gen.UndoPropertyParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: "catalog:Товары", Snapshot: p.Snapshot, Direction: gen.UndoDirectionUndo}); kindOf(err) != "property_read_only" {
		t.Errorf("undo: %s", errText(err))
	}
	if !sameSnapshot(before, snapshot(t, h.root)) {
		t.Errorf("files changed without the opt-in")
	}
}

// The choice methods list what the fields accept; a path that is not
// such a field is not_editable.
//
//contract:proves eska-ide-api.editing.choices
//contract:proves eska-ide-api.error-kind.property-read-only eska-ide-api.method.metadata-property-reference-choices eska-ide-api.method.metadata-property-type-choices eska-ide-api.method.metadata-property-value-choices
func TestEditChoices(t *testing.T) {
	h := openEditing(t, editFixture(), 8)
	ctx := func(id, path string) gen.PropertyPathParams {
		h.know(id)
		return gen.PropertyPathParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: gen.ObjectID(id), Path: path}
	}
	tc, err := h.b.PropertyTypeChoices(ctx("catalog:Товары/attribute:Цена", "Type"))
	if err != nil {
		t.Fatal(errText(err))
	}
	var keys []string
	for _, c := range tc.Choices {
		keys = append(keys, c.Key)
	}
	if !reflect.DeepEqual(keys, []string{"xs:string", "xs:decimal", "xs:boolean", "xs:dateTime", "CatalogRef.Товары", "EnumRef.Статусы"}) || tc.Choices[5].Caption.RuRU != "ПеречислениеСсылка.Статусы" {
		t.Errorf("type choices %v", keys)
	}
	rc, err := h.b.PropertyReferenceChoices(ctx("catalog:Товары/tabular-section:Цены/attribute:Сумма", "ChoiceParameterLinks/Link[1]/DataPath"))
	if err != nil {
		t.Fatal(errText(err))
	}
	var refs []string
	for _, c := range rc.Choices {
		s := c.Value + " " + string(c.ObjectID)
		if c.StandardAttribute != nil {
			s += " std=" + *c.StandardAttribute
		}
		refs = append(refs, s)
	}
	if !reflect.DeepEqual(refs, []string{
		"Catalog.Товары.StandardAttribute.Code catalog:Товары std=Code",
		"Catalog.Товары.Attribute.Артикул catalog:Товары/attribute:Артикул",
		"Catalog.Товары.Attribute.Цена catalog:Товары/attribute:Цена",
		"Catalog.Товары.Attribute.Вид catalog:Товары/attribute:Вид",
		"Catalog.Товары.TabularSection.Цены.Attribute.Сумма catalog:Товары/tabular-section:Цены/attribute:Сумма",
	}) {
		t.Errorf("reference choices %v", refs)
	}
	vc := func(id, path, key string) []string {
		h.know(id)
		r, err := h.b.PropertyValueChoices(gen.ValueChoicesParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: gen.ObjectID(id), Path: path, Key: key})
		if err != nil {
			return []string{errText(err)}
		}
		var out []string
		for _, c := range r.Choices {
			out = append(out, c.Value)
		}
		return out
	}
	if got := vc("catalog:Товары/attribute:Вид", "FillValue", "EnumRef.Статусы"); !reflect.DeepEqual(got, []string{"Enum.Статусы.EmptyRef", "Enum.Статусы.EnumValue.Новый", "Enum.Статусы.EnumValue.Закрыт"}) {
		t.Errorf("enum values %v", got)
	}
	if got := vc("catalog:Товары/attribute:Вид", "ChoiceParameters/item[1]/value", "CatalogRef.Товары"); !reflect.DeepEqual(got, []string{"Catalog.Товары.EmptyRef", "Catalog.Товары.Основной", "Catalog.Товары.Вложенный"}) {
		t.Errorf("catalog values %v", got)
	}
	if got := vc("catalog:Товары/attribute:Вид", "ChoiceParameters/item[1]/value", "xs:boolean"); !reflect.DeepEqual(got, []string{"true", "false"}) {
		t.Errorf("boolean values %v", got)
	}
	if got := vc("catalog:Товары/attribute:Вид", "FillValue", "xs:string"); len(got) != 1 || !strings.Contains(got[0], "not a type of the field") {
		t.Errorf("a type the fill value cannot take: %v", got)
	}
	if _, err := h.b.PropertyTypeChoices(ctx("catalog:Товары", "Comment")); kindOf(err) != "property_read_only" || !strings.Contains(detailsOf(err), `"reason":"not_editable"`) {
		t.Errorf("type choices of a text field: %s", errText(err))
	}
	if _, err := h.b.PropertyTypeChoices(ctx("catalog:Товары", "Nope")); kindOf(err) != "property_read_only" {
		t.Errorf("type choices of no field: %s", errText(err))
	}
}

// A second writer of the project is told the edit is busy; nothing is
// written.
//
//contract:proves eska-ide-api.editing.atomic-write
func TestEditBusy(t *testing.T) {
	h := openEditing(t, editFixture(), 8)
	w := atomicfile.Writer{Root: filepath.Join(h.root, "src"), State: filepath.Join(h.root, filepath.FromSlash(editStateDir)), Base: h.root}
	unlock, err := w.Lock()
	if err != nil {
		t.Fatal(err)
	}
	before := h.file("Catalogs/Товары.xml")
	if _, err := h.update("catalog:Товары", "Comment", `{"kind":"text","value":"x"}`); kindOf(err) != "property_edit_busy" {
		t.Errorf("while locked: %s", errText(err))
	}
	unlock()
	if h.file("Catalogs/Товары.xml") != before {
		t.Errorf("written while locked")
	}
	if _, err := h.update("catalog:Товары", "Comment", `{"kind":"text","value":"x"}`); err != nil {
		t.Errorf("after the lock: %s", errText(err))
	}
}

// A write whose object cannot be read again afterwards is reported as
// committed, never as refused: the bytes are written.
//
//contract:proves eska-ide-api.editing.no-retry eska-ide-api.editing.verify
//contract:proves eska-ide-api.error-kind.property-committed-refresh-required
func TestCommittedRefreshRequired(t *testing.T) {
	h := openEditing(t, editFixture(), 8)
	p := h.editParams("catalog:Товары", "Comment", `{"kind":"text","value":"записано"}`)
	afterWrite = func() {
		os.WriteFile(filepath.Join(h.root, "src", "Catalogs", "Товары.xml"), []byte("<broken"), 0o644)
	}
	defer func() { afterWrite = nil }()
	_, err := h.b.UpdateProperty(p)
	if kindOf(err) != "property_committed_refresh_required" {
		t.Errorf("%s", errText(err))
	}
	if len(h.changedNotes()) != 1 {
		t.Errorf("the committed write was not announced")
	}
}

// The writer's pieces: nothing but the field's bytes change, across every
// kind of field of the fixture.
func TestSameExcept(t *testing.T) {
	data := []byte(crlf(goodsCatalog))
	d, err := designer.ParseDescriptor("c.xml", data, designer.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	comment := d.Object.Properties().Child("Comment")
	other := bytes.Replace(data, []byte("<CodeLength>9</CodeLength>"), []byte("<CodeLength>8</CodeLength>"), 1)
	d2, _ := designer.ParseDescriptor("c.xml", other, designer.DefaultLimits)
	if sameExcept(d.Root, d2.Root, comment, "") {
		t.Errorf("a change outside the field passes")
	}
	if !sameExcept(d.Root, d.Root, comment, "") {
		t.Errorf("no change fails")
	}
}

// Any change a client can send, to any field of the fixture, is either
// refused with a domain error or invalid params, or gives replacements
// that verify: never an internal error, never a panic.
func FuzzChange(f *testing.F) {
	for _, s := range []string{`{"kind":"text","value":"x<&>\r\n"}`, `{"kind":"boolean","value":true}`, `{"kind":"enum","value":"Fixed"}`,
		`{"kind":"integer","value":-5}`, `{"kind":"reference","value":"Catalog.Товары.Attribute.Цена"}`, `{"kind":"value","type":"xs:decimal","value":"1.5"}`,
		`{"kind":"value","type":"EnumRef.Статусы","value":"Enum.Статусы.EmptyRef"}`, `{"kind":"enum","value":"xs:dateTime"}`} {
		f.Add([]byte(s), uint8(0), uint8(3))
	}
	dir := f.TempDir()
	writeTree(f, dir, editFixture())
	b := New(nil)
	grants := clientGrants(8, true, gen.CapabilityPicturePreview, gen.CapabilityPropertyPresentation, gen.CapabilitySupportPolicy)
	off := false
	info, err := b.Open(gen.OpenParams{Start: ToPath(dir), Selection: gen.SelectionCurrent{}, DiskCache: &off}, grants)
	if err != nil {
		f.Fatal(errText(err))
	}
	sid, pid := info.SessionID, info.Projects[0].ProjectID
	b.Children(gen.ChildrenParams{SessionID: sid, ProjectID: pid, Node: obj("catalog:Товары")})
	b.Children(gen.ChildrenParams{SessionID: sid, ProjectID: pid, Node: obj("catalog:Товары/tabular-section:Цены")})
	objects := []string{"catalog:Товары", "catalog:Товары/attribute:Артикул", "catalog:Товары/attribute:Цена", "catalog:Товары/attribute:Вид",
		"catalog:Товары/tabular-section:Цены/attribute:Сумма", "common-module:Общий", "enum:Статусы"}
	f.Fuzz(func(t *testing.T, raw []byte, which, field uint8) {
		c, err := gen.DecodePropertyChange(raw)
		if err != nil {
			return
		}
		id := gen.ObjectID(objects[int(which)%len(objects)])
		ed, err := b.PropertyEditing(gen.ObjectParams{SessionID: sid, ProjectID: pid, ObjectID: id})
		if err != nil || len(ed.Fields) == 0 {
			t.Fatalf("%s: %s", id, errText(err))
		}
		path := ed.Fields[int(field)%len(ed.Fields)].Path
		_, err = b.PreviewProperty(gen.PropertyEditParams{SessionID: sid, ProjectID: pid, ObjectID: id, Snapshot: ed.Snapshot, Path: path, Change: c})
		if re, ok := err.(*gen.RPCError); ok && re.Code != gen.CodeInvalidParams && re.Code != gen.CodeRequestFailed {
			t.Fatalf("%s %s %s: %s", id, path, raw, re.Message)
		}
	})
}
