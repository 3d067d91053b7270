package metadata

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/runtime/genrt"
)

// numbered is a document or numerator descriptor with the five numbering
// parameters, laid out as the Designer writes them.
func numbered(tag, name string, u int, numerator, typ, length, allowed, period, unique string) string {
	num := ""
	if tag == "Document" {
		num = "\t\t\t<Numerator/>\n"
		if numerator != "" {
			num = "\t\t\t<Numerator>DocumentNumerator." + numerator + "</Numerator>\n"
		}
	}
	return crlf(edHead + "\t<" + tag + ` uuid="` + uid(u) + `">
		<Properties>
			<Name>` + name + `</Name>
			<Synonym/>
			<Comment/>
` + num + `			<NumberType>` + typ + `</NumberType>
			<NumberLength>` + length + `</NumberLength>
			<NumberAllowedLength>` + allowed + `</NumberAllowedLength>
			<NumberPeriodicity>` + period + `</NumberPeriodicity>
			<CheckUnique>` + unique + `</CheckUnique>
		</Properties>
	</` + tag + `>
</MetaDataObject>
`)
}

// linkedFixture: a numerator named by two documents, another numerator,
// a document of its own numbering and a catalog.
func linkedFixture() map[string]string {
	return map[string]string{
		"eska.toml": "[project]\ntype = \"configuration\"\nsource = \"src\"\n",
		"src/Configuration.xml": descU("Configuration", "Конф", 1, "",
			"<Catalog>Товары</Catalog><Document>Приход</Document><Document>Расход</Document><Document>Возврат</Document>"+
				"<DocumentNumerator>Общий</DocumentNumerator><DocumentNumerator>Годовой</DocumentNumerator>"),
		"src/Catalogs/Товары.xml":              crlf(goodsCatalog),
		"src/DocumentNumerators/Общий.xml":     numbered("DocumentNumerator", "Общий", 11, "", "String", "11", "Variable", "Nonperiodical", "true"),
		"src/DocumentNumerators/Годовой.xml":   numbered("DocumentNumerator", "Годовой", 12, "", "Number", "6", "Fixed", "Year", "false"),
		"src/Documents/Приход.xml":             numbered("Document", "Приход", 21, "Общий", "String", "11", "Variable", "Nonperiodical", "true"),
		"src/Documents/Расход.xml":             numbered("Document", "Расход", 22, "Общий", "String", "11", "Variable", "Nonperiodical", "true"),
		"src/Documents/Возврат.xml":            numbered("Document", "Возврат", 23, "", "String", "9", "Variable", "Nonperiodical", "true"),
		"src/Documents/Возврат/Ext/Module.bsl": "// не связан\n",
	}
}

func fieldOf(fields []gen.EditableField, path string) *gen.EditableField {
	for i := range fields {
		if fields[i].Path == path {
			return &fields[i]
		}
	}
	return nil
}

func readOnlyReason(r gen.EditingResult, path string) string {
	for _, p := range r.ReadOnlyProperties {
		if p.Path == path {
			return string(p.Reason)
		}
	}
	return ""
}

func ids(list []gen.ObjectID) []string {
	out := []string{}
	for _, id := range list {
		out = append(out, string(id))
	}
	sort.Strings(out)
	return out
}

// Clients below 1.10 never see linked fields; from 1.10 the numbering
// fields of a numerator and of the documents that name it are linked,
// as is a document's Numerator, and the state carries contextSnapshot
// and linkedObjects; an object without linked fields has a null
// contextSnapshot and no linkedObjects.
//
//contract:proves eska-ide-api.editing.linked eska-ide-api.editing.linked-snapshot eska-ide-api.editing.version-filter
func TestLinkedState(t *testing.T) {
	h := openEditing(t, linkedFixture(), 9)
	r := h.editing("document:Приход")
	if f := fieldOf(r.Fields, "NumberLength"); f != nil || readOnlyReason(r, "NumberLength") != "unsupported" {
		t.Errorf("1.9: a linked NumberLength is a field: %+v", f)
	}
	if fieldOf(r.Fields, "Numerator") != nil || !r.ContextSnapshot.IsAbsent() {
		t.Errorf("1.9 sees linked members")
	}
	if f := fieldOf(h.editing("document:Возврат").Fields, "NumberLength"); f == nil || f.Linked != nil {
		t.Errorf("1.9: the numbering of a document without a numerator: %+v", f)
	}
	h = openEditing(t, linkedFixture(), 10)
	r = h.editing("document:Приход")
	for _, p := range []string{"NumberType", "NumberLength", "NumberAllowedLength", "NumberPeriodicity", "CheckUnique", "Numerator"} {
		if f := fieldOf(r.Fields, p); f == nil || f.Linked == nil || !*f.Linked {
			t.Errorf("1.10 Приход %s: %+v", p, f)
		}
	}
	if s := schemaKind(fieldOf(r.Fields, "Numerator").Schema); s != "reference" || string(fieldOf(r.Fields, "Numerator").Value) != `"DocumentNumerator.Общий"` {
		t.Errorf("Numerator %s %s", s, fieldOf(r.Fields, "Numerator").Value)
	}
	if c, ok := r.ContextSnapshot.Get(); !ok || len(c) != 64 {
		t.Errorf("contextSnapshot %v", r.ContextSnapshot)
	}
	if got := ids(r.LinkedObjects); !reflect.DeepEqual(got, []string{"document-numerator:Общий", "document:Расход"}) {
		t.Errorf("linkedObjects %v", got)
	}
	n := h.editing("document-numerator:Общий")
	if got := ids(n.LinkedObjects); !reflect.DeepEqual(got, []string{"document:Приход", "document:Расход"}) {
		t.Errorf("numerator linkedObjects %v", got)
	}
	if n.ContextSnapshot != r.ContextSnapshot {
		t.Error("the numerator and its document see different contexts")
	}
	v := h.editing("document:Возврат")
	if f := fieldOf(v.Fields, "NumberLength"); f == nil || f.Linked != nil {
		t.Errorf("Возврат NumberLength: %+v", f)
	}
	if f := fieldOf(v.Fields, "Numerator"); f == nil || string(f.Value) != "null" || *f.Linked != true {
		t.Errorf("Возврат Numerator: %+v", f)
	}
	if _, ok := v.ContextSnapshot.Get(); !ok || len(v.LinkedObjects) != 0 {
		t.Errorf("Возврат context %v %v", v.ContextSnapshot, v.LinkedObjects)
	}
	if c := h.editing("catalog:Товары"); !c.ContextSnapshot.IsNull() || c.LinkedObjects != nil {
		t.Errorf("a catalog has a linked context: %+v %v", c.ContextSnapshot, c.LinkedObjects)
	}
	// The choices of a Numerator are the project's numerators.
	rc, err := h.b.PropertyReferenceChoices(gen.PropertyPathParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: "document:Возврат", Path: "Numerator"})
	if err != nil || len(rc.Choices) != 2 || rc.Choices[0].Value != "DocumentNumerator.Общий" || rc.Choices[1].ObjectID != "document-numerator:Годовой" {
		t.Errorf("choices %+v %s", rc.Choices, errText(err))
	}
}

func (h *harness) linkedParams(id, path, js string) gen.PropertyEditParams {
	h.t.Helper()
	e := h.editing(id)
	p := h.editParams(id, path, js)
	p.ContextSnapshot = e.ContextSnapshot
	return p
}

// A numerator's change writes the numerator and every document that
// names it, and only the element changed, in one step: metadata/changed
// names them all, undo gives every byte back, redo writes them again.
//
//contract:proves eska-ide-api.editing.linked eska-ide-api.editing.rename-journal eska-ide-api.editing.linked-snapshot
func TestLinkedUpdate(t *testing.T) {
	h := openEditing(t, linkedFixture(), 10)
	before := readSources(t, h.root)
	pv, err := h.b.PreviewProperty(h.linkedParams("document-numerator:Общий", "NumberLength", `{"kind":"integer","value":15}`))
	if err != nil {
		t.Fatal(errText(err))
	}
	var paths []string
	for _, f := range pv.Files {
		paths = append(paths, f.Path.Value)
	}
	if !pv.Changed || len(pv.Changes) != 1 || !reflect.DeepEqual(paths, []string{"DocumentNumerators/Общий.xml", "Documents/Приход.xml", "Documents/Расход.xml"}) {
		t.Fatalf("preview %+v files %v", pv, paths)
	}
	h.notes = nil
	r, err := h.b.UpdateProperty(h.linkedParams("document-numerator:Общий", "NumberLength", `{"kind":"integer","value":15}`))
	if err != nil {
		t.Fatal(errText(err))
	}
	h.gen = r.Generation
	after := readSources(t, h.root)
	for path, old := range before {
		want := old
		switch path {
		case "src/DocumentNumerators/Общий.xml", "src/Documents/Приход.xml", "src/Documents/Расход.xml":
			want = strings.Replace(old, "<NumberLength>11</NumberLength>", "<NumberLength>15</NumberLength>", 1)
		}
		if after[path] != want {
			t.Errorf("%s:\n%q\nwant\n%q", path, after[path], want)
		}
	}
	notes := h.changedNotes()
	if len(notes) != 1 || !reflect.DeepEqual(ids(notes[0].Affected), []string{"document-numerator:Общий", "document:Приход", "document:Расход"}) {
		t.Errorf("changed %+v", notes)
	}
	if r.Editing.UndoLinked == nil || !*r.Editing.UndoLinked {
		t.Errorf("undoLinked %v", r.Editing.UndoLinked)
	}
	// Undo needs the context snapshot too.
	undo := func(id string, redo bool, ctx genrt.Nullable[string]) (gen.PropertyWriteResult, error) {
		dir := gen.UndoDirectionUndo
		if redo {
			dir = gen.UndoDirectionRedo
		}
		r, err := h.b.UndoProperty(gen.UndoPropertyParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: gen.ObjectID(id),
			Snapshot: h.editing(id).Snapshot, Direction: dir, ContextSnapshot: ctx})
		if err == nil {
			h.gen = r.Generation
		}
		return r, err
	}
	if _, err := undo("document-numerator:Общий", false, genrt.NullOf[string]()); !strings.Contains(errText(err), "contextSnapshot") {
		t.Errorf("undo without the context: %s", errText(err))
	}
	if _, err := undo("document-numerator:Общий", false, h.editing("document-numerator:Общий").ContextSnapshot); err != nil {
		t.Fatal(errText(err))
	}
	if got := readSources(t, h.root); !reflect.DeepEqual(got, before) {
		t.Error("undo did not give every byte back")
	}
	if _, err := undo("document-numerator:Общий", true, h.editing("document-numerator:Общий").ContextSnapshot); err != nil {
		t.Fatal(errText(err))
	}
	if got := readSources(t, h.root); !reflect.DeepEqual(got, after) {
		t.Error("redo did not write the change again")
	}
	// An external change of any linked file blocks the undo.
	doc := filepath.Join(h.root, "src", "Documents", "Расход.xml")
	os.WriteFile(doc, []byte(after["src/Documents/Расход.xml"]+" "), 0o644)
	h.files("1", "Documents/Расход.xml")
	h.gen = gen.Generation(h.b.s.projects[0].generation)
	if _, err := undo("document-numerator:Общий", false, h.editing("document-numerator:Общий").ContextSnapshot); kindOf(err) != "source_changed" || !strings.Contains(detailsOf(err), "Расход") {
		t.Errorf("undo over a changed document: %s", errText(err))
	}
}

// A document's numbering field is its numerator's: changing it writes
// the numerator and the other document too. A stale context snapshot
// refuses, a missing one is invalid params.
//
//contract:proves eska-ide-api.editing.linked eska-ide-api.editing.linked-snapshot
func TestLinkedFromDocument(t *testing.T) {
	h := openEditing(t, linkedFixture(), 11)
	before := readSources(t, h.root)
	p := h.editParams("document:Приход", "NumberType", `{"kind":"enum","value":"Number"}`)
	if _, err := h.b.UpdateProperty(p); !strings.Contains(errText(err), "contextSnapshot") {
		t.Errorf("no context: %s", errText(err))
	}
	stale := strings.Repeat("0", 64)
	p.ContextSnapshot = genrt.Some(stale)
	if _, err := h.b.UpdateProperty(p); kindOf(err) != "source_changed" {
		t.Errorf("stale context: %s", errText(err))
	}
	if !reflect.DeepEqual(before, readSources(t, h.root)) {
		t.Fatal("a refused change wrote")
	}
	if _, err := h.b.UpdateProperty(h.linkedParams("document:Приход", "NumberType", `{"kind":"enum","value":"Number"}`)); err != nil {
		t.Fatal(errText(err))
	}
	after := readSources(t, h.root)
	for _, path := range []string{"src/DocumentNumerators/Общий.xml", "src/Documents/Приход.xml", "src/Documents/Расход.xml"} {
		if after[path] != strings.Replace(before[path], "<NumberType>String</NumberType>", "<NumberType>Number</NumberType>", 1) {
			t.Errorf("%s not changed alone: %q", path, after[path])
		}
	}
	if after["src/Documents/Возврат.xml"] != before["src/Documents/Возврат.xml"] {
		t.Error("a document of its own numbering changed")
	}
}

// Assigning a numerator moves its five parameters into the document; a
// cleared Numerator keeps the document's own.
//
//contract:proves eska-ide-api.editing.linked
func TestLinkedAssign(t *testing.T) {
	h := openEditing(t, linkedFixture(), 10)
	before := readSources(t, h.root)
	r, err := h.b.UpdateProperty(h.linkedParams("document:Возврат", "Numerator", `{"kind":"reference","value":"DocumentNumerator.Годовой"}`))
	if err != nil {
		t.Fatal(errText(err))
	}
	h.gen = r.Generation
	want := numbered("Document", "Возврат", 23, "Годовой", "Number", "6", "Fixed", "Year", "false")
	if got := readSources(t, h.root)["src/Documents/Возврат.xml"]; got != want {
		t.Errorf("assigned:\n%q\nwant\n%q", got, want)
	}
	for path, old := range before {
		if path != "src/Documents/Возврат.xml" && readSources(t, h.root)[path] != old {
			t.Errorf("%s changed", path)
		}
	}
	if got := ids(r.Editing.LinkedObjects); !reflect.DeepEqual(got, []string{"document-numerator:Годовой"}) {
		t.Errorf("linked objects after the assignment %v", got)
	}
	if _, err := h.b.UpdateProperty(h.linkedParams("document:Возврат", "Numerator", `{"kind":"reference","value":"DocumentNumerator.Нет"}`)); err == nil {
		t.Error("an unknown numerator was taken")
	}
	r, err = h.b.UpdateProperty(h.linkedParams("document:Возврат", "Numerator", `{"kind":"reference","value":null}`))
	if err != nil {
		t.Fatal(errText(err))
	}
	got := readSources(t, h.root)["src/Documents/Возврат.xml"]
	if want := strings.Replace(want, "<Numerator>DocumentNumerator.Годовой</Numerator>", "<Numerator/>", 1); got != want {
		t.Errorf("cleared:\n%q\nwant\n%q", got, want)
	}
	raw, _ := json.Marshal(fieldOf(r.Editing.Fields, "Numerator").Value)
	if string(raw) != "null" {
		t.Errorf("the cleared numerator reads %s", raw)
	}
}
