package metadata

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
)

func openConfiguration(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, configurationFixture())
	h.open(h.root, gen.SelectionCurrent{})
	return h
}

// The root of a configuration: the modules group first, then Common and
// the sections in Configurator order; proven-empty sections are hidden
// unless asked for, and elements of unknown kind go to their own group.
//
//contract:proves eska-ide-api.method.metadata-children eska-ide-api.method.metadata-root
func TestRootSections(t *testing.T) {
	h := openConfiguration(t)
	r, err := h.b.Root(h.ctx())
	if err != nil {
		t.Fatal(errText(err))
	}
	if nodeKey(r.Node.ID) != "o:configuration:Конф" || r.Node.Parent != nil || r.Node.State != gen.NodeStateNonEmpty {
		t.Fatalf("root node %s parent %v state %s", nodeKey(r.Node.ID), r.Node.Parent, r.Node.State)
	}
	root := "configuration:Конф"
	want := []string{"g:" + root + "#modules", "g:" + root + "#common", "g:" + root + "#catalog", "g:" + root + "#document",
		"g:" + root + "#enum", "g:" + root + "#unsupported"}
	nodes := h.children(r.Node.ID)
	if got := keys(nodes); !reflect.DeepEqual(got, want) {
		t.Fatalf("root sections\n got %v\nwant %v", got, want)
	}
	if !nodes[1].RootSection || nodes[0].RootSection || nodes[0].ExpandedByDefault {
		t.Errorf("rootSection/expandedByDefault wrong: %+v %+v", nodes[0], nodes[1])
	}
	if l, ok := nodes[2].Label.(gen.KeyLabel); !ok || l.Key != "tree-collection-catalog" || l.Translations.RuRU != "Справочники" || l.Translations.EnUS != "Catalogs" {
		t.Errorf("catalog label %#v", nodes[2].Label)
	}
	all, err := h.b.Children(gen.ChildrenParams{SessionID: h.sid, ProjectID: h.pid, Node: r.Node.ID, HideEmptyRootSections: new(bool)})
	if err != nil {
		t.Fatal(errText(err))
	}
	if len(all.Nodes) != 2+17+1 { // modules, common, 17 kind sections, unsupported
		t.Errorf("with hideEmptyRootSections=false: %d nodes %v", len(all.Nodes), keys(all.Nodes))
	}
	var constant gen.Node
	for _, n := range all.Nodes {
		if nodeKey(n.ID) == "g:"+root+"#constant" {
			constant = n
		}
	}
	if constant.State != gen.NodeStateEmpty {
		t.Errorf("constant section state %s", constant.State)
	}
	// The filter is presentation only: ids and generation do not change.
	if all.Generation != 0 || keys(all.Nodes)[0] != want[0] {
		t.Errorf("filter changed ids or generation")
	}
	// Modules of the root: only the session module has a BSL file.
	mods := h.children(nodes[0].ID)
	if got := keys(mods); !reflect.DeepEqual(got, []string{"m:" + root + "#session"}) {
		t.Errorf("root modules %v", got)
	}
	// Groups and modules send metadataKind as null, objects their kind.
	if !mods[0].MetadataKind.IsNull() || !all.Nodes[0].MetadataKind.IsNull() {
		t.Errorf("metadataKind of a module %+v and of a group %+v: want null", mods[0].MetadataKind, all.Nodes[0].MetadataKind)
	}
	// Documents nest numerators and sequences before the documents.
	docs := keys(h.children(coll(root, "document")))
	if !reflect.DeepEqual(docs, []string{"g:" + root + "#document-numerator", "g:" + root + "#sequence", "o:document:Заказ"}) {
		t.Errorf("documents %v", docs)
	}
	unsup := h.children(coll(root, "unsupported"))
	if len(unsup) != 1 || nodeKey(unsup[0].ID) != "o:Interface:Старый" || !unsup[0].MetadataKind.IsAbsent() ||
		len(unsup[0].Diagnostics) != 1 || unsup[0].Diagnostics[0].Code != "unknown_kind" {
		t.Errorf("unsupported group %+v", unsup)
	}
}

// Node states are known without reading more than needed: an object with
// collections is unloaded until read; a leaf kind is empty unless it has
// BSL modules, and a binary-only module does not count.
//
//contract:proves eska-ide-api.error-reporting.source-reasons
//contract:proves eska-ide-api.error-kind.source-missing eska-ide-api.error-kind.xml-invalid
func TestLazyStates(t *testing.T) {
	h := openConfiguration(t)
	root := "configuration:Конф"
	states := map[string]gen.NodeState{}
	for _, k := range []string{"catalog", "common-module", "common-picture", "document"} {
		for _, n := range h.children(coll(root, k)) {
			if _, ok := n.ID.(gen.ObjectNodeID); ok {
				states[nodeKey(n.ID)] = n.State
			}
		}
	}
	want := map[string]gen.NodeState{
		"o:catalog:Товары": gen.NodeStateUnloaded, "o:catalog:Нет": gen.NodeStateUnloaded,
		"o:common-module:Общий": gen.NodeStateUnloaded, "o:common-module:Бинарный": gen.NodeStateEmpty,
		"o:common-picture:Логотип": gen.NodeStateEmpty, "o:document:Заказ": gen.NodeStateUnloaded,
	}
	if !reflect.DeepEqual(states, want) {
		t.Fatalf("states\n got %v\nwant %v", states, want)
	}
	// Listing read no descriptor: the broken document and the missing
	// catalog only fail when expanded, and then say why.
	_, err := h.b.Children(gen.ChildrenParams{SessionID: h.sid, ProjectID: h.pid, Node: obj("document:Заказ")})
	if kindOf(err) != "xml_invalid" || !strings.Contains(detailsOf(err), `"reason":"malformed"`) || !strings.Contains(detailsOf(err), `Documents/Заказ.xml`) {
		t.Errorf("broken document: %s", errText(err))
	}
	_, err = h.b.Children(gen.ChildrenParams{SessionID: h.sid, ProjectID: h.pid, Node: obj("catalog:Нет")})
	if kindOf(err) != "source_missing" || !strings.Contains(detailsOf(err), `"objectId":"catalog:Нет"`) {
		t.Errorf("missing catalog: %s", errText(err))
	}
	for _, n := range h.children(coll(root, "document")) {
		if nodeKey(n.ID) == "o:document:Заказ" && n.State != gen.NodeStateError {
			t.Errorf("after the failed read the document is %s, want error", n.State)
		}
	}
}

// An object's children: modules first (BSL only), then the schema's
// collections in order; a tabular section's attributes hang right under
// it; predefined items load when their group is expanded.
//
//contract:proves eska-ide-api.error-kind.unknown-node eska-ide-api.method.metadata-children
func TestObjectChildren(t *testing.T) {
	h := openConfiguration(t)
	cat := "catalog:Товары"
	got := keys(h.children(obj(cat)))
	want := []string{"g:" + cat + "#modules", "g:" + cat + "#predefined-item", "g:" + cat + "#attribute", "g:" + cat + "#tabular-section",
		"g:" + cat + "#form", "g:" + cat + "#command", "g:" + cat + "#template"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("catalog children\n got %v\nwant %v", got, want)
	}
	if got := keys(h.children(coll(cat, "modules"))); !reflect.DeepEqual(got, []string{"m:" + cat + "#object"}) {
		t.Errorf("modules %v (the .bin manager module must stay hidden)", got)
	}
	ts := h.find(coll(cat, "tabular-section"), "o:"+cat+"/tabular-section:Цены")
	if ts.State != gen.NodeStateNonEmpty {
		t.Errorf("tabular section state %s", ts.State)
	}
	price := h.children(ts.ID)
	if len(price) != 1 || nodeKey(price[0].ID) != "o:"+cat+"/tabular-section:Цены/attribute:Цена" || nodeKey(price[0].Parent) != "o:"+cat+"/tabular-section:Цены" {
		t.Errorf("tabular section attributes %v", keys(price))
	}
	pg := h.find(obj(cat), "g:"+cat+"#predefined-item")
	if pg.State != gen.NodeStateUnloaded {
		t.Errorf("predefined group before loading: %s", pg.State)
	}
	items := h.children(coll(cat, "predefined-item"))
	if len(items) != 1 || nodeKey(items[0].ID) != "o:"+cat+"/predefined-item:Основной" || items[0].State != gen.NodeStateNonEmpty {
		t.Fatalf("predefined items %v", keys(items))
	}
	nested := h.children(items[0].ID)
	if len(nested) != 1 || nodeKey(nested[0].ID) != "o:"+cat+"/predefined-item:Основной/predefined-item:Вложенный" {
		t.Errorf("nested predefined %v", keys(nested))
	}
	form := h.find(coll(cat, "form"), "o:"+cat+"/form:ФормаЭлемента")
	if form.State != gen.NodeStateUnloaded { // its module exists
		t.Errorf("form state %s", form.State)
	}
	if got := keys(h.children(form.ID)); !reflect.DeepEqual(got, []string{"g:" + cat + "/form:ФормаЭлемента#modules"}) {
		t.Errorf("form children %v", got)
	}
	cmd := h.find(coll(cat, "command"), "o:"+cat+"/command:Печать")
	if got := keys(h.children(cmd.ID)); !reflect.DeepEqual(got, []string{"g:" + cat + "/command:Печать#modules"}) {
		t.Errorf("inline command children %v", got)
	}
	// The enum's repeated value is reported, not shown twice.
	vals := h.children(coll("enum:Статусы", "enum-value"))
	if got := keys(vals); !reflect.DeepEqual(got, []string{"o:enum:Статусы/enum-value:Новый", "o:enum:Статусы/enum-value:Закрыт"}) {
		t.Errorf("enum values %v", got)
	}
	en := h.find(coll("configuration:Конф", "enum"), "o:enum:Статусы")
	if len(en.Diagnostics) != 1 || en.Diagnostics[0].Code != "duplicate_identity" || en.Diagnostics[0].Range == nil {
		t.Errorf("enum diagnostics %+v", en.Diagnostics)
	}
	if _, err := h.b.Children(gen.ChildrenParams{SessionID: h.sid, ProjectID: h.pid, Node: obj("catalog:Никакой")}); kindOf(err) != "unknown_node" {
		t.Errorf("unknown node: %s", errText(err))
	}
	if _, err := h.b.Children(gen.ChildrenParams{SessionID: h.sid, ProjectID: h.pid, Node: coll(cat, "dimension")}); kindOf(err) != "unknown_node" {
		t.Errorf("a collection the catalog does not have: %s", errText(err))
	}
}

// Properties keep XML order, ranges into the original bytes (BOM and CRLF
// counted), every value variant, captions of known properties and the
// boolean hint.
//
//contract:proves eska-ide-api.error-kind.unknown-object eska-ide-api.method.metadata-properties
func TestProperties(t *testing.T) {
	h := openConfiguration(t)
	r, err := h.b.Properties(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: "catalog:Товары"})
	if err != nil {
		t.Fatal(errText(err))
	}
	var names []string
	for _, p := range r.Properties {
		names = append(names, p.Key.Name)
	}
	if !reflect.DeepEqual(names, []string{"Name", "Synonym", "Comment", "Hierarchical", "Owners", "CodeLength", "Explanation"}) {
		t.Fatalf("properties %v", names)
	}
	data, _ := os.ReadFile(filepath.Join(h.root, "src/Catalogs/Товары.xml"))
	if got := string(data[r.Properties[0].Range.Start:r.Properties[0].Range.End]); got != "<Name>Товары</Name>" {
		t.Errorf("Name range covers %q", got)
	}
	want := []string{
		`{"kind":"text","text":"Товары"}`,
		`{"kind":"localized","items":[{"language":"ru","content":"Номенклатура товаров"},{"language":"en","content":"Goods"}]}`,
		`{"kind":"unsupported","issue":"mixed_content"}`,
		`{"kind":"text","text":"true","scalarType":"boolean"}`,
		`{"kind":"record","fields":[{"key":{"namespace":"http://v8.1c.ru/8.3/xcf/readable","name":"Item"},"qualifiers":[{"key":{"namespace":"http://www.w3.org/2001/XMLSchema-instance","name":"type"},"value":"xr:MDObjectRef"}],"value":{"kind":"text","text":"Catalog.Нет"}}]}`,
		`{"kind":"text","text":"9"}`,
		`{"kind":"unsupported","issue":"invalid_localized_text"}`,
	}
	for i, p := range r.Properties {
		b, _ := gen.MarshalPropertyValue(p.Value)
		if string(b) != want[i] {
			t.Errorf("%s value\n got %s\nwant %s", p.Key.Name, b, want[i])
		}
	}
	if c := r.Properties[0].Caption; c == nil || c.RuRU != "Имя" || c.EnUS != "Name" {
		t.Errorf("Name caption %+v", c)
	}
	if r.Properties[4].Caption == nil || r.Properties[6].Caption == nil {
		t.Errorf("known properties without caption")
	}
	if r.Picture != nil {
		t.Errorf("a catalog has no picture: %#v", r.Picture)
	}
	// The root descriptor has a BOM and CRLF line ends: ranges still slice
	// the original bytes.
	rr, err := h.b.Properties(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: "configuration:Конф"})
	if err != nil {
		t.Fatal(errText(err))
	}
	root, _ := os.ReadFile(filepath.Join(h.root, "src/Configuration.xml"))
	if got := string(root[rr.Properties[0].Range.Start:rr.Properties[0].Range.End]); got != "<Name>Конф</Name>" {
		t.Errorf("root Name range covers %q", got)
	}
	// A predefined item's properties are its fields, without ChildItems.
	h.children(coll("catalog:Товары", "predefined-item"))
	pr, err := h.b.Properties(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: "catalog:Товары/predefined-item:Основной"})
	if err != nil {
		t.Fatal(errText(err))
	}
	var pnames []string
	for _, p := range pr.Properties {
		pnames = append(pnames, p.Key.Name)
		if *p.Key.Namespace != "http://v8.1c.ru/8.3/xcf/predef" {
			t.Errorf("predefined property namespace %s", *p.Key.Namespace)
		}
	}
	if !reflect.DeepEqual(pnames, []string{"Name", "Code", "Description", "IsFolder"}) {
		t.Errorf("predefined properties %v", pnames)
	}
	if _, err := h.b.Properties(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: "catalog:Неизвестный"}); kindOf(err) != "unknown_object" {
		t.Errorf("unknown object: %s", errText(err))
	}
}

// A common picture's properties carry the preview when the client was
// granted it, and only then.
//
//contract:proves eska-ide-api.method.metadata-properties
func TestPicturePreview(t *testing.T) {
	h := openConfiguration(t)
	p := gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: "common-picture:Логотип"}
	r, err := h.b.Properties(p)
	if err != nil || r.Picture != nil {
		t.Fatalf("without the capability: picture %#v, err %v", r.Picture, errText(err))
	}
	h.b.grants = clientGrants(4, false, gen.CapabilitySupportPolicy)
	r, err = h.b.Properties(p)
	if err != nil {
		t.Fatal(errText(err))
	}
	ready, ok := r.Picture.(gen.ReadyPicture)
	if !ok || ready.MIMEType != "image/png" || ready.FileName != "Picture.png" || ready.Data == "" {
		t.Errorf("picture %#v", r.Picture)
	}
}

// Sources: a descriptor of its own, the owner's descriptor for an inline
// object, payloads, modules by role; virtual groups have none.
//
//contract:proves eska-ide-api.method.metadata-source
func TestSources(t *testing.T) {
	h := openConfiguration(t)
	src := func(id gen.NodeID) string {
		t.Helper()
		r, err := h.b.Source(gen.NodeParams{SessionID: h.sid, ProjectID: h.pid, Node: id})
		if err != nil {
			return kindOf(err)
		}
		var parts []string
		for _, s := range r.Sources {
			role, _ := gen.MarshalSourceRole(s.Role)
			in := ""
			for _, i := range s.Inline {
				in += " " + string(i.MetadataKind) + ":" + i.Name
			}
			parts = append(parts, s.Path.Value+" "+string(role)+in)
		}
		return strings.Join(parts, " | ")
	}
	h.children(obj("catalog:Товары"))
	cases := []struct {
		node gen.NodeID
		want string
	}{
		{obj("catalog:Товары"), `Catalogs/Товары.xml {"kind":"descriptor"} | Catalogs/Товары/Ext/Predefined.xml {"kind":"payload"}`},
		{obj("catalog:Товары/attribute:Артикул"), `Catalogs/Товары.xml {"kind":"descriptor"} attribute:Артикул`},
		{obj("catalog:Товары/form:ФормаЭлемента"), `Catalogs/Товары/Forms/ФормаЭлемента.xml {"kind":"descriptor"} | Catalogs/Товары/Forms/ФормаЭлемента/Ext/Form.xml {"kind":"payload"}`},
		{obj("catalog:Товары/template:Макет"), `Catalogs/Товары/Templates/Макет.xml {"kind":"descriptor"} | Catalogs/Товары/Templates/Макет/Ext/Template.txt {"kind":"payload"}`},
		{gen.ModuleNodeID{Owner: "catalog:Товары", Role: "object"}, `Catalogs/Товары/Ext/ObjectModule.bsl {"kind":"module","role":"object"}`},
		{gen.ModuleNodeID{Owner: "catalog:Товары", Role: "manager"}, `unknown_node`},
		{gen.ModuleNodeID{Owner: "configuration:Конф", Role: "session"}, `Ext/SessionModule.bsl {"kind":"module","role":"session"}`},
		{coll("catalog:Товары", "attribute"), `source_missing`},
		{obj("document:Заказ"), `xml_invalid`},
	}
	for _, c := range cases {
		if got := src(c.node); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", nodeKey(c.node), got, c.want)
		}
	}
	h.children(coll("catalog:Товары", "predefined-item"))
	if got := src(obj("catalog:Товары/predefined-item:Основной/predefined-item:Вложенный")); got != `Catalogs/Товары/Ext/Predefined.xml {"kind":"descriptor"}` {
		t.Errorf("predefined item source %s", got)
	}
}

// The navigation get and properties answer from is the server's tree,
// not what the client expanded: a fresh session knows the root and every
// object the root descriptor lists, before any children; an object inside
// another descriptor is unknown_object until that descriptor is read, and
// get never reads one to find an id.
//
//contract:proves eska-ide-api.error-kind.unknown-object eska-ide-api.method.metadata-get
func TestFreshSessionNavigation(t *testing.T) {
	h := openConfiguration(t)
	at := func(id string) gen.ObjectParams {
		return gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: gen.ObjectID(id)}
	}
	const nested = "catalog:Товары/attribute:Артикул"
	if _, err := h.b.Get(at(nested)); kindOf(err) != "unknown_object" {
		t.Errorf("get of an attribute before its catalog was read: %s", errText(err))
	}
	if _, err := h.b.Properties(at(nested)); kindOf(err) != "unknown_object" {
		t.Errorf("properties of an attribute before its catalog was read: %s", errText(err))
	}
	// Listed by the root descriptor: known at once, no children asked.
	r, err := h.b.Get(at("catalog:Товары"))
	if err != nil || r.Object.Name != "Товары" {
		t.Fatalf("get of a catalog the root lists, in a fresh session: %+v %s", r.Object, errText(err))
	}
	if pr, err := h.b.Properties(at("configuration:Конф")); err != nil || len(pr.Properties) == 0 {
		t.Errorf("properties of the root in a fresh session: %s", errText(err))
	}
	// get read the catalog's descriptor, so its attribute is known now.
	if r, err := h.b.Get(at(nested)); err != nil || r.Object.Name != "Артикул" {
		t.Errorf("get of the attribute after its catalog was read: %+v %s", r.Object, errText(err))
	}
}

// get reports what the descriptor says; the parent is the metadata owner.
//
//contract:proves eska-ide-api.method.metadata-get
func TestGet(t *testing.T) {
	h := openConfiguration(t)
	h.children(obj("catalog:Товары"))
	r, err := h.b.Get(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: "catalog:Товары/tabular-section:Цены/attribute:Цена"})
	if err != nil {
		t.Fatal(errText(err))
	}
	want := `{"objectId":"catalog:Товары/tabular-section:Цены/attribute:Цена","metadataKind":"attribute","name":"Цена","parent":"catalog:Товары/tabular-section:Цены","uuid":"00000000-0000-0000-0000-000000000001","synonyms":[]}`
	if got := jsonOf(t, r.Object); got != want {
		t.Errorf("get\n got %s\nwant %s", got, want)
	}
	r, err = h.b.Get(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: "catalog:Товары"})
	if err != nil || *r.Object.Parent != "configuration:Конф" || len(r.Object.Synonyms) != 2 {
		t.Errorf("catalog: %+v %v", r.Object, errText(err))
	}
}

// With diskCache false nothing the backend does writes a byte under the
// project; with it, only the cache folder changes, and a second session
// reads descriptors from it with the same answers.
func TestNoWrites(t *testing.T) {
	h := newHarness(t, configurationFixture())
	before := snapshot(t, h.root)
	off := false
	info, err := h.b.Open(gen.OpenParams{Start: ToPath(h.root), Selection: gen.SelectionCurrent{}, DiskCache: &off}, gen.Grants{})
	if err != nil {
		t.Fatal(errText(err))
	}
	h.sid, h.pid, h.rootID = info.SessionID, info.Projects[0].ProjectID, info.Projects[0].Root
	var walk func(id gen.NodeID)
	walk = func(id gen.NodeID) {
		r, err := h.b.Children(gen.ChildrenParams{SessionID: h.sid, ProjectID: h.pid, Node: id})
		if err != nil {
			return
		}
		for _, n := range r.Nodes {
			h.b.Source(gen.NodeParams{SessionID: h.sid, ProjectID: h.pid, Node: n.ID})
			if o, ok := n.ID.(gen.ObjectNodeID); ok {
				h.b.Properties(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: o.ObjectID})
			}
			walk(n.ID)
		}
	}
	walk(h.rootID)
	h.b.Index(gen.IndexParams{SessionID: h.sid, ProjectID: h.pid, Action: gen.IndexActionStart})
	for h.b.Background() {
	}
	h.b.Close(gen.SessionParams{SessionID: h.sid})
	if after := snapshot(t, h.root); !sameSnapshot(before, after) {
		t.Errorf("the project changed on disk")
	}
}

// walkAll expands every node and reads every object's properties and
// sources, returning a transcript of the answers.
func walkAll(h *harness) []string {
	var out []string
	var walk func(id gen.NodeID)
	walk = func(id gen.NodeID) {
		r, err := h.b.Children(gen.ChildrenParams{SessionID: h.sid, ProjectID: h.pid, Node: id})
		if err != nil {
			out = append(out, nodeKey(id)+" ! "+errText(err))
			return
		}
		for _, n := range r.Nodes {
			raw, _ := n.MarshalJSON()
			out = append(out, string(raw))
			if o, ok := n.ID.(gen.ObjectNodeID); ok {
				pr, err := h.b.Properties(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: o.ObjectID})
				if err != nil {
					out = append(out, "properties ! "+errText(err))
				} else {
					pr.SessionID = "" // sessions differ; the answers must not
					raw, _ := pr.MarshalJSON()
					out = append(out, string(raw))
				}
			}
			walk(n.ID)
		}
	}
	walk(h.rootID)
	return out
}

//contract:proves eska-ide-api.capability.disk-cache
func TestDiskCache(t *testing.T) {
	h := newHarness(t, configurationFixture())
	before := snapshot(t, h.root)
	h.open(h.root, gen.SelectionCurrent{}) // diskCache defaults to true
	first := walkAll(h)
	p := h.b.s.projects[0]
	if p.r.Cache == nil || p.r.Cache.Writes == 0 || p.r.Cache.Hits != 0 {
		t.Fatalf("first session: %+v", p.r.Cache)
	}
	after := snapshot(t, h.root)
	for k, v := range after {
		if !strings.HasPrefix(k, filepath.FromSlash(".eska/cache/metadata")) && !strings.HasPrefix(k, ".eska/") && k != ".eska/" && before[k] != v {
			t.Errorf("%s changed outside the cache", k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			t.Errorf("%s disappeared", k)
		}
	}
	h.b.Close(gen.SessionParams{SessionID: h.sid})
	h.open(h.root, gen.SelectionCurrent{})
	second := walkAll(h)
	p = h.b.s.projects[0]
	if p.r.Cache.Hits == 0 {
		t.Errorf("second session had no cache hits: %+v", p.r.Cache)
	}
	if strings.Join(first, "\n") != strings.Join(second, "\n") {
		for i := range first {
			if i >= len(second) || first[i] != second[i] {
				t.Errorf("answers from the cache differ from the first session at %d:\n%s\n%s", i, first[i], second[min(i, len(second)-1)])
				break
			}
		}
	}
	// Changed bytes are a miss: the cache never answers for old content.
	h.b.Close(gen.SessionParams{SessionID: h.sid})
	writeTree(t, h.root, map[string]string{"src/Enums/Статусы.xml": desc("Enum", "Статусы", "", inline("EnumValue", "Другой", "", ""))})
	h.open(h.root, gen.SelectionCurrent{})
	if got := keys(h.children(coll("enum:Статусы", "enum-value"))); len(got) != 1 || got[0] != "o:enum:Статусы/enum-value:Другой" {
		t.Errorf("after a change the cache answered %v", got)
	}
	h.b.Close(gen.SessionParams{SessionID: h.sid})
	h.open(h.root, gen.SelectionCurrent{})
	changed := walkAll(h)
	// A damaged entry is a miss and is rewritten.
	entries, _ := filepath.Glob(filepath.Join(h.root, ".eska", "cache", "metadata", "*", "*.entry"))
	for _, e := range entries {
		os.WriteFile(e, []byte("{broken"), 0o644)
	}
	h.b.Close(gen.SessionParams{SessionID: h.sid})
	h.open(h.root, gen.SelectionCurrent{})
	if again := walkAll(h); strings.Join(again, "\n") != strings.Join(changed, "\n") {
		for i := range changed {
			if i >= len(again) || again[i] != changed[i] {
				t.Errorf("with damaged entries the answers differ at %d:\n%s\n%s", i, changed[i], again[min(i, len(again)-1)])
				break
			}
		}
	}
	if h.b.s.projects[0].r.Cache.Writes == 0 {
		t.Errorf("damaged entries were not rewritten")
	}
}

// Presentation (1.5): empty values, references resolved inside the
// project (or missing), design-time references to enum values and
// predefined items, standard attributes, and type descriptions.
func TestPresentation(t *testing.T) {
	h := openConfiguration(t)
	h.children(obj("catalog:Товары"))
	props := func(id string) map[string]string {
		t.Helper()
		r, err := h.b.Properties(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: gen.ObjectID(id)})
		if err != nil {
			t.Fatal(errText(err))
		}
		out := map[string]string{}
		for _, p := range r.Properties {
			if p.Presentation == nil {
				out[p.Key.Name] = "-"
				continue
			}
			raw, _ := gen.MarshalPresentation(p.Presentation)
			out[p.Key.Name] = string(raw)
		}
		return out
	}
	if got := props("catalog:Товары/attribute:Связи"); got["Type"] != "-" {
		t.Fatalf("presentation without the capability: %v", got)
	}
	h.b.grants = clientGrants(5, false, gen.CapabilitySupportPolicy, gen.CapabilityPicturePreview)
	got := props("catalog:Товары/attribute:Связи")
	want := map[string]string{
		"Name": "-",
		"Type": `{"kind":"types","items":[` +
			`{"caption":{"ru-RU":"Номенклатура товаров","en-US":"Goods"},"category":{"ru-RU":"Справочник","en-US":"Catalog"},"metadataKind":"catalog","status":"resolved","target":"catalog:Товары"},` +
			`{"caption":{"ru-RU":"Нет","en-US":"Нет"},"category":{"ru-RU":"Справочник","en-US":"Catalog"},"metadataKind":"catalog","status":"missing"},` +
			`{"caption":{"ru-RU":"Любая ссылка информационной базы","en-US":"Any infobase reference"}}]}`,
		"FillValue":  `{"kind":"reference","caption":{"ru-RU":"Закрыт","en-US":"Закрыт"},"category":{"ru-RU":"Значение перечисления","en-US":"Enum value"},"metadataKind":"enum-value","status":"resolved","target":"enum:Статусы/enum-value:Закрыт"}`,
		"Format":     `{"kind":"empty","caption":{"ru-RU":"Пустое значение","en-US":"Empty value"}}`,
		"Mask":       `{"kind":"empty","caption":{"ru-RU":"Пустое значение","en-US":"Empty value"}}`,
		"ChoiceForm": "-", // not a checked selector context: text alone is not a reference
		"Link":       `{"kind":"reference","caption":{"ru-RU":"Номенклатура товаров","en-US":"Goods"},"category":{"ru-RU":"Справочник","en-US":"Catalog"},"metadataKind":"catalog","status":"resolved","target":"catalog:Товары","detail":{"ru-RU":"стандартный реквизит Code","en-US":"standard attribute Code"}}`,
		"Other":      `{"kind":"reference","caption":{"ru-RU":"Вложенный элемент","en-US":"Вложенный элемент"},"category":{"ru-RU":"Предопределенный элемент","en-US":"Predefined item"},"metadataKind":"predefined-item","status":"resolved","target":"catalog:Товары/predefined-item:Основной/predefined-item:Вложенный"}`,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s\n got %s\nwant %s", k, got[k], w)
		}
	}
	got = props("catalog:Товары/attribute:Длина")
	want = map[string]string{
		"Type":              `{"kind":"types","items":[{"caption":{"ru-RU":"Строка","en-US":"String"},"detail":{"ru-RU":"длина 25","en-US":"length 25"}}]}`,
		"DefaultObjectForm": `{"kind":"reference","caption":{"ru-RU":"ФормаЭлемента","en-US":"ФормаЭлемента"},"category":{"ru-RU":"Форма","en-US":"Form"},"metadataKind":"form","status":"resolved","target":"catalog:Товары/form:ФормаЭлемента"}`,
		"Picture":           `{"kind":"reference","caption":{"ru-RU":"Логотип","en-US":"Логотип"},"category":{"ru-RU":"Общая картинка","en-US":"Common picture"},"metadataKind":"common-picture","status":"resolved","target":"common-picture:Логотип"}`,
		"Owner":             `{"kind":"reference","caption":{"ru-RU":"Нет","en-US":"Нет"},"category":{"ru-RU":"Справочник","en-US":"Catalog"},"metadataKind":"catalog","status":"missing"}`,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s\n got %s\nwant %s", k, got[k], w)
		}
	}
	// The raw values are unchanged by presentation.
	r, _ := h.b.Properties(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: "catalog:Товары/attribute:Длина"})
	for _, p := range r.Properties {
		if p.Key.Name == "Picture" {
			if v, ok := p.Value.(gen.TextValue); !ok || v.Text != "CommonPicture.Логотип" {
				t.Errorf("raw value %#v", p.Value)
			}
		}
	}
}

// Known values of the platform's enumerated properties get a caption in
// both languages; an unknown value keeps its text and gets none.
func TestEnumCaptions(t *testing.T) {
	h := openConfiguration(t)
	r, err := h.b.Properties(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: "common-module:Общий"})
	if err != nil {
		t.Fatal(errText(err))
	}
	var got []string
	for _, p := range r.Properties {
		b, _ := gen.MarshalPropertyValue(p.Value)
		got = append(got, p.Key.Name+" "+string(b))
	}
	want := []string{
		`Name {"kind":"text","text":"Общий"}`,
		`Server {"kind":"text","text":"true","scalarType":"boolean"}`,
		`ReturnValuesReuse {"kind":"text","text":"DuringSession","caption":{"ru-RU":"На время сеанса","en-US":"During session"}}`,
		`ReturnValuesReuse {"kind":"text","text":"Future"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("properties\n got %v\nwant %v", got, want)
	}
}
