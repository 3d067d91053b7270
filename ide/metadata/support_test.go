package metadata

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// uid is the n-th uuid of the support fixtures.
func uid(n int) string { return fmt.Sprintf("00000000-0000-0000-0000-%012d", n) }

const vendorID = "aaaaaaaa-0000-0000-0000-000000000001"

// descU and inlineU are desc and inline with a uuid of their own.
func descU(tag, name string, u int, props, children string) string {
	return strings.Replace(desc(tag, name, props, children), uid(1), uid(u), 1)
}

func inlineU(tag, name string, u int, props, children string) string {
	return strings.Replace(inline(tag, name, props, children), uid(1), uid(u), 1)
}

// binFile writes a support file: the configuration's change mode and the
// rules of one vendor as uuid number → mode.
func binFile(changes int, rules map[int]int) string {
	ids := make([]int, 0, len(rules))
	for u := range rules {
		ids = append(ids, u)
	}
	sort.Ints(ids)
	var b strings.Builder
	fmt.Fprintf(&b, "\ufeff{6,%d,1,%s,%d,%s,\"3.1.1\",\"Фирма \"\"1С\"\"\",\"БСП\",%d", changes, uid(900), changes, vendorID, len(ids))
	for _, u := range ids {
		fmt.Fprintf(&b, ",%d,0,%s,%s", rules[u], uid(u), uid(u))
	}
	b.WriteString(",0,0,1}")
	return b.String()
}

// supportFixture is a configuration under one vendor's support: a locked
// catalog with an attribute, a form the vendor did not ship, modules and
// predefined items; an editable catalog with an attribute taken off
// support, one the vendor did not ship and an inline command; a catalog
// of the project's own; an editable common module.
func supportFixture(changes int) map[string]string {
	return map[string]string{
		"eska.toml": "[project]\ntype = \"configuration\"\nsource = \"src\"\n",
		"src/Configuration.xml": descU("Configuration", "Конф", 1, "",
			"<Catalog>Закрытый</Catalog><Catalog>Открытый</Catalog><Catalog>Свой</Catalog><CommonModule>Общий</CommonModule>"),
		"src/Ext/ManagedApplicationModule.bsl": "// app\n",
		"src/Ext/ParentConfigurations.bin":     binFile(changes, map[int]int{1: 1, 2: 0, 3: 0, 5: 1, 6: 2, 11: 1}),
		"src/Catalogs/Закрытый.xml": descU("Catalog", "Закрытый", 2, "<Comment/>",
			inlineU("Attribute", "Реквизит", 3, "", "")+"<Form>Форма</Form>"),
		"src/Catalogs/Закрытый/Ext/ObjectModule.bsl":            "// object\n",
		"src/Catalogs/Закрытый/Ext/Predefined.xml":              predefined,
		"src/Catalogs/Закрытый/Forms/Форма.xml":                 descU("Form", "Форма", 4, "<FormType>Managed</FormType><Comment/>", ""),
		"src/Catalogs/Закрытый/Forms/Форма/Ext/Form.xml":        "<Form/>\n",
		"src/Catalogs/Закрытый/Forms/Форма/Ext/Form/Module.bsl": "// form\n",
		"src/Catalogs/Открытый.xml": descU("Catalog", "Открытый", 5, "<Comment/>",
			inlineU("Attribute", "Снятый", 6, "<Comment/>", "")+inlineU("Attribute", "Новый", 7, "", "")+inlineU("Command", "Печать", 8, "", "")),
		"src/Catalogs/Открытый/Commands/Печать/Ext/CommandModule.bsl": "// command\n",
		"src/Catalogs/Свой.xml":                  descU("Catalog", "Свой", 9, "<Comment/>", inlineU("Attribute", "А", 10, "", "")),
		"src/CommonModules/Общий.xml":            descU("CommonModule", "Общий", 11, "<Server>true</Server>", ""),
		"src/CommonModules/Общий/Ext/Module.bsl": "// common\n",
	}
}

func openSupport(t *testing.T, files map[string]string) *harness {
	t.Helper()
	h := newHarness(t, files)
	h.grants = clientGrants(2, false)
	h.open(h.root, gen.SelectionCurrent{})
	return h
}

// supportPage walks every page of metadata/support with the given limit.
func (h *harness) supportAll(limit int64) ([]gen.SupportObject, []gen.SupportFile, gen.SupportResult) {
	h.t.Helper()
	var objs []gen.SupportObject
	var files []gen.SupportFile
	var last gen.SupportResult
	offset := int64(0)
	for pages := 0; ; pages++ {
		if pages > 10000 {
			h.t.Fatal("the page walk does not end")
		}
		o, l := offset, limit
		r, err := h.b.Support(gen.SupportParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, Offset: &o, Limit: &l})
		if err != nil {
			h.t.Fatalf("support at %d: %s", offset, errText(err))
		}
		if r.Freshness != gen.FreshnessCurrent {
			h.t.Errorf("freshness %s", r.Freshness)
		}
		objs = append(objs, r.Objects...)
		files = append(files, r.Files...)
		last = r
		if r.NextOffset == nil {
			return objs, files, last
		}
		offset = *r.NextOffset
	}
}

// verdictOf spells a SupportObject or SupportFile compactly.
func verdictOf(ro, unknown bool, mode *gen.SupportMode, supplier *string, inherited *gen.ObjectID, reason *gen.SupportReason) string {
	s := fmt.Sprintf("ro=%v", ro)
	if unknown {
		s += " unknown"
	}
	if mode != nil {
		s += " " + string(*mode)
	}
	if supplier != nil {
		s += " by=" + *supplier
	}
	if inherited != nil {
		s += " from=" + string(*inherited)
	}
	if reason != nil {
		s += " reason=" + string(*reason)
	}
	return s
}

func objVerdicts(objs []gen.SupportObject) map[string]string {
	out := map[string]string{}
	for _, o := range objs {
		out[string(o.ObjectID)] = verdictOf(o.ReadOnly, o.Unknown, o.Mode, o.Supplier, o.InheritedFrom, o.Reason)
	}
	return out
}

func fileVerdicts(files []gen.SupportFile) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		owner := "null"
		if f.ObjectID != nil {
			owner = string(*f.ObjectID)
		}
		out[f.Path.Value] = owner + " " + verdictOf(f.ReadOnly, f.Unknown, nil, nil, nil, f.Reason)
	}
	return out
}

// Modes come from the vendor's rules; nested objects without a rule
// follow their nearest owner with one; a top-level object without one is
// the project's own. The files of read-only objects are listed.
//
//contract:proves eska-ide-api.support.rules-file eska-ide-api.support.nested eska-ide-api.support.paging
func TestSupportModes(t *testing.T) {
	h := openSupport(t, supportFixture(0))
	objs, files, last := h.supportAll(3)
	v := "by=" + vendorID
	want := map[string]string{
		"configuration:Конф":                                                  "ro=false editable_with_support " + v,
		"catalog:Закрытый":                                                    "ro=true not_editable " + v,
		"catalog:Закрытый/attribute:Реквизит":                                 "ro=true not_editable " + v,
		"catalog:Закрытый/form:Форма":                                         "ro=true not_editable " + v + " from=catalog:Закрытый",
		"catalog:Закрытый/predefined-item:Основной":                           "ro=true not_editable " + v + " from=catalog:Закрытый",
		"catalog:Закрытый/predefined-item:Основной/predefined-item:Вложенный": "ro=true not_editable " + v + " from=catalog:Закрытый",
		"catalog:Открытый":                                                    "ro=false editable_with_support " + v,
		"catalog:Открытый/attribute:Снятый":                                   "ro=false removed_from_support " + v,
		"catalog:Открытый/attribute:Новый":                                    "ro=false editable_with_support " + v + " from=catalog:Открытый",
		"catalog:Открытый/command:Печать":                                     "ro=false editable_with_support " + v + " from=catalog:Открытый",
		"catalog:Свой":                                                        "ro=false not_supported",
		"catalog:Свой/attribute:А":                                            "ro=false not_supported",
		"common-module:Общий":                                                 "ro=false editable_with_support " + v,
	}
	if got := objVerdicts(objs); !reflect.DeepEqual(got, want) {
		t.Errorf("objects:\n got %v\nwant %v", got, want)
	}
	// Every object once, in ObjectId order.
	for i := 1; i < len(objs); i++ {
		if objs[i-1].ObjectID >= objs[i].ObjectID {
			t.Errorf("order: %s before %s", objs[i-1].ObjectID, objs[i].ObjectID)
		}
	}
	wantFiles := map[string]string{
		"Catalogs/Закрытый.xml":                             "catalog:Закрытый ro=true",
		"Catalogs/Закрытый/Ext/ObjectModule.bsl":            "catalog:Закрытый ro=true",
		"Catalogs/Закрытый/Ext/Predefined.xml":              "catalog:Закрытый ro=true",
		"Catalogs/Закрытый/Forms/Форма.xml":                 "catalog:Закрытый/form:Форма ro=true",
		"Catalogs/Закрытый/Forms/Форма/Ext/Form/Module.bsl": "catalog:Закрытый/form:Форма ro=true",
		"Catalogs/Закрытый/Forms/Форма/Ext/Form.xml":        "catalog:Закрытый/form:Форма ro=true",
	}
	if got := fileVerdicts(files); !reflect.DeepEqual(got, wantFiles) {
		t.Errorf("files:\n got %v\nwant %v", got, wantFiles)
	}
	if len(last.Suppliers) != 1 || last.Suppliers[0] != (gen.SupportSupplier{ID: vendorID, Name: "БСП", Vendor: `Фирма "1С"`, Version: "3.1.1"}) {
		t.Errorf("suppliers %+v", last.Suppliers)
	}
	if len(last.Diagnostics) != 0 {
		t.Errorf("diagnostics %+v", last.Diagnostics)
	}
	// Past the end: an empty page and no next offset.
	off, lim := int64(len(objs)), int64(1)
	r, err := h.b.Support(gen.SupportParams{SessionID: h.sid, ProjectID: h.pid, Offset: &off, Limit: &lim})
	if err != nil || len(r.Objects) != 0 || r.NextOffset != nil {
		t.Errorf("past the end: %+v %s", r, errText(err))
	}
	// The default page is 50 objects.
	r, _ = h.b.Support(gen.SupportParams{SessionID: h.sid, ProjectID: h.pid})
	if len(r.Objects) != len(objs) || r.NextOffset != nil {
		t.Errorf("default page: %d objects, next %v", len(r.Objects), r.NextOffset)
	}
}

// When the configuration's own mode forbids changes, everything is
// read-only: vendor objects are not_editable, the project's own stay
// not_supported, all with reason changes_disabled.
//
//contract:proves eska-ide-api.support.rules-file
func TestSupportChangesDisabled(t *testing.T) {
	h := openSupport(t, supportFixture(1))
	objs, files, _ := h.supportAll(500)
	for id, v := range objVerdicts(objs) {
		mode := "not_editable"
		if strings.HasPrefix(id, "catalog:Свой") {
			mode = "not_supported"
		}
		if !strings.HasPrefix(v, "ro=true "+mode) || !strings.HasSuffix(v, "reason=changes_disabled") {
			t.Errorf("%s: %s", id, v)
		}
	}
	// Every object is read-only, so every file of the project is listed.
	if len(files) != 13 {
		t.Errorf("%d files: %v", len(files), fileVerdicts(files))
	}
}

// Without a support file nothing is under vendor support, and that is
// no error; a support file that cannot be read makes everything unknown
// and is reported with its byte offset.
//
//contract:proves eska-ide-api.support.rules-file eska-ide-api.support.unknown
func TestSupportWithoutOrUnreadableFile(t *testing.T) {
	files := supportFixture(0)
	delete(files, "src/Ext/ParentConfigurations.bin")
	h := openSupport(t, files)
	objs, listed, last := h.supportAll(500)
	for id, v := range objVerdicts(objs) {
		if v != "ro=false not_supported" {
			t.Errorf("no support file, %s: %s", id, v)
		}
	}
	if len(listed) != 0 || len(last.Suppliers) != 0 || len(last.Diagnostics) != 0 {
		t.Errorf("no support file: files %v, suppliers %v, diagnostics %v", listed, last.Suppliers, last.Diagnostics)
	}

	files = supportFixture(0)
	files["src/Ext/ParentConfigurations.bin"] = "\ufeff{6,0,1,x,0,y,\"1\",\"v\",\"n\",0}"
	h = openSupport(t, files)
	objs, listed, last = h.supportAll(500)
	for id, v := range objVerdicts(objs) {
		if v != "ro=true unknown reason=support_unreadable" {
			t.Errorf("unreadable support file, %s: %s", id, v)
		}
	}
	if len(last.Diagnostics) != 1 || last.Diagnostics[0].Code != "unsupported_value" || last.Diagnostics[0].Range == nil ||
		last.Diagnostics[0].Range.Start != 10 || !strings.Contains(string(last.Diagnostics[0].Details), `"reason":"invalid_metadata"`) {
		t.Errorf("diagnostics %s", jsonOf(t, last))
	}
	if len(listed) != 13 {
		t.Errorf("unknown objects' files: %d", len(listed))
	}
}

// Ownership that cannot be known is never guessed: an object without a
// uuid, a uuid on two objects, an unreadable descriptor and a descriptor
// changed on disk without a file event are unknown with a reason; a
// symlinked descriptor is read-only whatever its mode.
//
//contract:proves eska-ide-api.support.unknown eska-ide-api.support.cache
func TestSupportUnknownOwnership(t *testing.T) {
	files := supportFixture(0)
	files["src/Configuration.xml"] = descU("Configuration", "Конф", 1, "",
		"<Catalog>Закрытый</Catalog><Catalog>Открытый</Catalog><Catalog>Свой</Catalog><CommonModule>Общий</CommonModule>"+
			"<Catalog>Безымянный</Catalog><Catalog>Двойник</Catalog><Catalog>Битый</Catalog><Catalog>Ссылка</Catalog>")
	files["src/Catalogs/Безымянный.xml"] = strings.Replace(desc("Catalog", "Безымянный", "", ""), ` uuid="`+uid(1)+`"`, "", 1)
	files["src/Catalogs/Двойник.xml"] = descU("Catalog", "Двойник", 9, "", "") // Свой's uuid
	files["src/Catalogs/Битый.xml"] = mdHead + "<Catalog><Properties>"
	files["src/elsewhere/Ссылка.xml"] = descU("Catalog", "Ссылка", 12, "", "")
	files["src/Ext/ParentConfigurations.bin"] = binFile(0, map[int]int{1: 1, 2: 0, 3: 0, 5: 1, 6: 2, 11: 1, 12: 1})
	h := newHarness(t, files)
	if err := os.Symlink(filepath.Join(h.root, "src", "elsewhere", "Ссылка.xml"), filepath.Join(h.root, "src", "Catalogs", "Ссылка.xml")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	h.grants = clientGrants(2, false)
	h.open(h.root, gen.SelectionCurrent{})
	before := snapshot(t, h.root)
	objs, listed, last := h.supportAll(500)
	got := objVerdicts(objs)
	for id, want := range map[string]string{
		"catalog:Безымянный":       "ro=true unknown reason=no_uuid",
		"catalog:Двойник":          "ro=true unknown reason=ambiguous",
		"catalog:Свой":             "ro=true unknown reason=ambiguous",
		"catalog:Свой/attribute:А": "ro=true unknown reason=ambiguous",
		"catalog:Битый":            "ro=true unknown reason=descriptor_unreadable",
		// Uuid 12 is editable, but not through a link.
		"catalog:Ссылка": "ro=true editable_with_support by=" + vendorID + " reason=symlink",
	} {
		if got[id] != want {
			t.Errorf("%s: %s, want %s", id, got[id], want)
		}
	}
	if fv := fileVerdicts(listed); fv["Catalogs/Ссылка.xml"] != "catalog:Ссылка ro=true reason=symlink" || fv["Catalogs/Битый.xml"] != "catalog:Битый ro=true unknown reason=descriptor_unreadable" {
		t.Errorf("files %v", fv)
	}
	dup := false
	for _, d := range last.Diagnostics {
		dup = dup || (d.Code == "duplicate_identity" && strings.Contains(string(d.Details), uid(9)))
	}
	if !dup {
		t.Errorf("no duplicate_identity diagnostic: %s", jsonOf(t, last))
	}
	// A descriptor changed without a file event: the answer checks the
	// bytes and does not vouch for the old uuid.
	writeTree(t, h.root, map[string]string{"src/Catalogs/Открытый.xml": descU("Catalog", "Открытый", 77, "", "")})
	objs, _, _ = h.supportAll(500)
	if v := objVerdicts(objs)["catalog:Открытый"]; v != "ro=true unknown reason=source_changed" {
		t.Errorf("changed without an event: %s", v)
	}
	// Nothing was written: the support state lives in memory only.
	after := snapshot(t, h.root)
	delete(before, "src/Catalogs/Открытый.xml")
	delete(after, "src/Catalogs/Открытый.xml")
	if !sameSnapshot(before, after) {
		t.Errorf("metadata/support wrote files")
	}
}

func (h *harness) supportFiles(paths ...string) (gen.SupportFilesResult, error) {
	var pp []gen.Path
	for _, p := range paths {
		pp = append(pp, ToPath(p))
	}
	return h.b.SupportFiles(gen.SupportFilesParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, Paths: pp})
}

// supportFiles answers each path in order from the path and the current
// bytes of the owner chain, without a walk or a file event.
//
//contract:proves eska-ide-api.support.files eska-ide-api.support.nested eska-ide-api.support.unknown
//contract:proves eska-ide-api.error.invalid-params eska-ide-api.method.metadata-support-files
func TestSupportFiles(t *testing.T) {
	h := openSupport(t, supportFixture(0))
	paths := []string{
		"Catalogs/Закрытый/Forms/Форма/Ext/Form/Module.bsl",
		"Catalogs/Открытый.xml",
		"Catalogs/Закрытый/Ext/Predefined.xml",
		"Catalogs/Открытый/Commands/Печать/Ext/CommandModule.bsl",
		"Ext/ManagedApplicationModule.bsl",
		"Configuration.xml",
		"Catalogs/Свой/Ext/ObjectModule.bsl", // absent, but its owner is known
		"Catalogs/Нет.xml",
		"Catalogs/Закрытый/Forms/Другая.xml",
		"Documents/Странный/Макет.txt",
		"readme.txt",
		"Catalogs/Открытый.xml", // repeated
	}
	r, err := h.supportFiles(paths...)
	if err != nil {
		t.Fatal(errText(err))
	}
	v := "by=" + vendorID
	want := []string{
		"catalog:Закрытый/form:Форма ro=true",
		"catalog:Открытый ro=false",
		"catalog:Закрытый ro=true",
		"catalog:Открытый/command:Печать ro=false",
		"configuration:Конф ro=false",
		"configuration:Конф ro=false",
		"catalog:Свой ro=false",
		"catalog:Нет ro=true unknown reason=not_declared",
		"catalog:Закрытый/form:Другая ro=true unknown reason=not_declared",
		"null ro=true unknown reason=unknown_location",
		"null ro=true unknown reason=unknown_location",
		"catalog:Открытый ro=false",
	}
	if len(r.Files) != len(paths) {
		t.Fatalf("%d files for %d paths", len(r.Files), len(paths))
	}
	for i, f := range r.Files {
		got := fileVerdicts([]gen.SupportFile{f})[f.Path.Value]
		if f.Path.Value != paths[i] || got != want[i] {
			t.Errorf("%d %s: %s, want %s", i, f.Path.Value, got, want[i])
		}
	}
	objs := objVerdicts(r.Objects)
	for id, w := range map[string]string{
		"catalog:Закрытый/form:Форма":     "ro=true not_editable " + v + " from=catalog:Закрытый",
		"catalog:Открытый/command:Печать": "ro=false editable_with_support " + v + " from=catalog:Открытый",
		"catalog:Нет": "ro=true unknown reason=not_declared",
	} {
		if objs[id] != w {
			t.Errorf("object %s: %s, want %s", id, objs[id], w)
		}
	}
	if len(r.Objects) != 8 || r.Freshness != gen.FreshnessCurrent {
		t.Errorf("%d objects (each owner once): %v", len(r.Objects), objs)
	}
	// The current bytes decide: a rule changed on disk, no event sent.
	writeTree(t, h.root, map[string]string{"src/Ext/ParentConfigurations.bin": binFile(0, map[int]int{1: 1, 2: 1, 5: 0})})
	r, _ = h.supportFiles("Catalogs/Закрытый.xml", "Catalogs/Открытый.xml")
	if fv := fileVerdicts(r.Files); fv["Catalogs/Закрытый.xml"] != "catalog:Закрытый ro=false" || fv["Catalogs/Открытый.xml"] != "catalog:Открытый ro=true" {
		t.Errorf("after the rules changed: %v", fv)
	}
	// A uuid changed on disk: the rule of the new uuid applies.
	writeTree(t, h.root, map[string]string{"src/Catalogs/Закрытый.xml": descU("Catalog", "Закрытый", 5, "", "")})
	r, _ = h.supportFiles("Catalogs/Закрытый.xml")
	if fv := fileVerdicts(r.Files); fv["Catalogs/Закрытый.xml"] != "catalog:Закрытый ro=true" {
		t.Errorf("after the uuid changed: %v", fv)
	}
	// Paths that may not be named are invalid params.
	for _, bad := range []string{"", "/etc/passwd", "Catalogs/../../x.xml", "..", "."} {
		if _, err := h.supportFiles("Configuration.xml", bad); err == nil || err.(*gen.RPCError).Code != gen.CodeInvalidParams || !strings.Contains(errText(err), "Invalid params: /paths/1: ") {
			t.Errorf("path %q: %v", bad, err)
		}
	}
}

// supportUnchanged is true only when a change provably left support data
// alone; a support file rewritten with the same bytes announces nothing.
//
//contract:proves eska-ide-api.support.unchanged eska-ide-api.support.cache
func TestSupportUnchanged(t *testing.T) {
	h := openSupport(t, supportFixture(0))
	h.supportAll(500) // sees the files that exist
	last := func() gen.ChangedParams {
		ch := h.changedNotes()
		return ch[len(ch)-1]
	}
	seq := 0
	event := func(paths ...string) {
		t.Helper()
		seq++
		if err := h.files(fmt.Sprint(seq), paths...); err != nil {
			t.Fatal(err)
		}
	}
	// A module's body.
	writeTree(t, h.root, map[string]string{"src/Catalogs/Закрытый/Ext/ObjectModule.bsl": "// changed\n"})
	event("Catalogs/Закрытый/Ext/ObjectModule.bsl")
	if c := last(); c.SupportUnchanged == nil || !*c.SupportUnchanged {
		t.Errorf("module body: %+v", c)
	}
	// A module that appears.
	writeTree(t, h.root, map[string]string{"src/Catalogs/Открытый/Ext/ObjectModule.bsl": "// new\n"})
	event("Catalogs/Открытый/Ext/ObjectModule.bsl")
	if c := last(); c.SupportUnchanged == nil || *c.SupportUnchanged {
		t.Errorf("new module: %+v", c)
	}
	// A descriptor.
	event("Catalogs/Открытый.xml")
	if c := last(); c.SupportUnchanged == nil || *c.SupportUnchanged {
		t.Errorf("descriptor: %+v", c)
	}
	// The support file with the same bytes, alone: no metadata/changed.
	h.supportFiles("Configuration.xml")
	n := len(h.changedNotes())
	data, _ := os.ReadFile(filepath.Join(h.root, "src", "Ext", "ParentConfigurations.bin"))
	writeTree(t, h.root, map[string]string{"src/Ext/ParentConfigurations.bin": string(data)})
	event("Ext/ParentConfigurations.bin")
	if len(h.changedNotes()) != n {
		t.Errorf("a byte-identical support file announced %+v", last())
	}
	// With other bytes it is announced, and support changed.
	writeTree(t, h.root, map[string]string{"src/Ext/ParentConfigurations.bin": binFile(0, map[int]int{1: 1})})
	event("Ext/ParentConfigurations.bin")
	if len(h.changedNotes()) != n+1 || last().SupportUnchanged == nil || *last().SupportUnchanged {
		t.Errorf("a changed support file: %+v", h.changedNotes()[n:])
	}
	// A client without supportPolicy never sees the member.
	h2 := newHarness(t, supportFixture(0))
	h2.open(h2.root, gen.SelectionCurrent{})
	if err := h2.files("1", "Catalogs/Закрытый/Ext/ObjectModule.bsl"); err != nil {
		t.Fatal(err)
	}
	if c := h2.changedNotes(); len(c) != 1 || c[0].SupportUnchanged != nil {
		t.Errorf("without supportPolicy: %+v", c)
	}
}

// mixedPaths picks n source-relative paths of a project: descriptors,
// modules, form files, Predefined.xml, nested descriptors and a few
// paths no object owns, spread over the tree in a fixed order.
func mixedPaths(t testing.TB, src string, n int) []string {
	var all []string
	filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(src, path)
			all = append(all, rel)
		}
		return nil
	})
	sort.Strings(all)
	kinds := []*regexp.Regexp{
		regexp.MustCompile(`^[A-Za-z]+/[^/]+\.xml$`),
		regexp.MustCompile(`\.bsl$`),
		regexp.MustCompile(`/Ext/Form\.xml$`),
		regexp.MustCompile(`/Ext/Predefined\.xml$`),
		regexp.MustCompile(`^[A-Za-z]+/[^/]+/[A-Za-z]+/[^/]+\.xml$`),
	}
	var out []string
	for i := 0; len(out) < n-3; i++ {
		re := kinds[i%len(kinds)]
		for j := (i * 7919) % len(all); ; j = (j + 1) % len(all) {
			if re.MatchString(filepath.ToSlash(all[j])) {
				out = append(out, all[j])
				break
			}
		}
	}
	return append(out, "readme.txt", filepath.Join("Catalogs", "НетТакого.xml"), filepath.Join("Ext", "ParentConfigurations.bin"))
}
