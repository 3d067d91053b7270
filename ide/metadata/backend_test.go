package metadata

import (
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// The four project types open, each checked against its root element.
//
//contract:proves eska-ide-api.method.workspace-open
func TestOpenProjectTypes(t *testing.T) {
	ext := configurationFixture()
	ext["eska.toml"] = "[project]\ntype = \"extension\"\nsource = \"src\"\n"
	ext["src/Configuration.xml"] = desc("Configuration", "Расш", "<ConfigurationExtensionPurpose>Customization</ConfigurationExtensionPurpose>", "<Catalog>Товары</Catalog>")
	external := func(typ, tag string) map[string]string {
		return map[string]string{
			"eska.toml": "[project]\ntype = \"" + typ + "\"\nsource = \"src\"\n",
			"src/Файл.xml": desc(tag, "Внешний", "", inline("Attribute", "Параметр", "", "")+"<Form>Форма</Form>"+
				inline("TabularSection", "Строки", "", "")+"<Template>Макет</Template>"),
			"src/Файл/Forms/Форма.xml":       desc("Form", "Форма", "", ""),
			"src/Файл/Ext/ObjectModule.bsl":  "//\n",
			"src/Файл/Ext/ManagerModule.bsl": "// a configuration object's module; an external one has none\n",
			"src/Файл/Templates/Макет.xml":   desc("Template", "Макет", "", ""),
		}
	}
	cases := []struct {
		name     string
		files    map[string]string
		root     string
		children []string
	}{
		{"extension", ext, "configuration:Расш", []string{"g:configuration:Расш#modules", "g:configuration:Расш#catalog"}},
		{"processing", external("processing", "ExternalDataProcessor"), "data-processor:Внешний", []string{
			"g:data-processor:Внешний#modules", "g:data-processor:Внешний#attribute", "g:data-processor:Внешний#tabular-section",
			"g:data-processor:Внешний#form", "g:data-processor:Внешний#template"}},
		{"report", external("report", "ExternalReport"), "report:Внешний", []string{
			"g:report:Внешний#modules", "g:report:Внешний#attribute", "g:report:Внешний#tabular-section",
			"g:report:Внешний#form", "g:report:Внешний#command", "g:report:Внешний#template"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.files)
			info := h.open(filepath.Join(h.root, "src"), gen.SelectionCurrent{})
			p := info.Projects[0]
			if string(p.Type) != c.name || nodeKey(p.Root) != "o:"+c.root || p.Generation != 0 || p.EventSequence != 0 {
				t.Fatalf("project %+v", p)
			}
			if _, ok := p.Scope.(gen.ScopeStandalone); !ok {
				t.Errorf("scope %#v", p.Scope)
			}
			if got := keys(h.children(p.Root)); !reflect.DeepEqual(got, c.children) {
				t.Errorf("root children\n got %v\nwant %v", got, c.children)
			}
			if c.name != "extension" {
				mods := keys(h.children(coll(c.root, "modules")))
				if !reflect.DeepEqual(mods, []string{"m:" + c.root + "#object"}) {
					t.Errorf("external modules %v", mods)
				}
				forms := keys(h.children(coll(c.root, "form")))
				if !reflect.DeepEqual(forms, []string{"o:" + c.root + "/form:Форма"}) {
					t.Errorf("forms %v", forms)
				}
				if _, err := h.b.Children(gen.ChildrenParams{SessionID: h.sid, ProjectID: h.pid, Node: obj(c.root + "/form:Форма")}); err != nil {
					t.Errorf("form of an external object: %s", errText(err))
				}
			}
		})
	}
}

// Opening fails whole, with the contract's reason, and publishes nothing.
//
//contract:proves eska-ide-api.error-reporting.domain
//contract:proves eska-ide-api.error-kind.project-open-failed eska-ide-api.method.workspace-open
func TestOpenFailures(t *testing.T) {
	wrongType := configurationFixture()
	wrongType["eska.toml"] = "[project]\ntype = \"extension\"\nsource = \"src\"\n"
	broken := configurationFixture()
	broken["src/Configuration.xml"] = "<MetaDataObject"
	ws := map[string]string{"eska.toml": "[workspace]\nmembers = [\"a\", \"b\"]\n"}
	for name, body := range configurationFixture() {
		ws["a/"+name] = body
		ws["b/"+name] = body
	}
	ws["b/src/Configuration.xml"] = "not xml"
	cases := []struct {
		name   string
		files  map[string]string
		start  string
		sel    gen.Selection
		reason string
	}{
		{"no manifest", map[string]string{"src/Configuration.xml": desc("Configuration", "К", "", "")}, "src", gen.SelectionCurrent{}, "manifest_missing"},
		{"bad manifest", map[string]string{"eska.toml": "[project\n"}, "", gen.SelectionCurrent{}, "manifest_invalid"},
		{"all of a standalone", configurationFixture(), "", gen.SelectionAll{}, "selection_invalid"},
		{"type mismatch", wrongType, "", gen.SelectionCurrent{}, "root_invalid"},
		{"broken root", broken, "", gen.SelectionCurrent{}, "root_invalid"},
		{"one member broken", ws, "", gen.SelectionAll{}, "root_invalid"},
		{"unknown member", ws, "", gen.NamedSelection{Names: []string{"c"}}, "selection_invalid"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.files)
			_, err := h.b.Open(gen.OpenParams{Start: ToPath(filepath.Join(h.root, c.start)), Selection: c.sel}, gen.Grants{})
			if kindOf(err) != "project_open_failed" || !strings.Contains(detailsOf(err), `"reason":"`+c.reason+`"`) {
				t.Fatalf("got %s, want project_open_failed %s", errText(err), c.reason)
			}
			if h.b.s != nil {
				t.Errorf("a session was published")
			}
		})
	}
	h := newHarness(t, configurationFixture())
	if _, err := h.b.Open(gen.OpenParams{Start: gen.Path{Value: "relative", Encoding: gen.PathEncodingUTF8}, Selection: gen.SelectionCurrent{}}, gen.Grants{}); kindOf(err) != "project_open_failed" {
		t.Errorf("relative start: %s", errText(err))
	}
	if _, err := h.b.Open(gen.OpenParams{Start: gen.Path{Value: "%2F", Encoding: gen.PathEncodingUTF16Percent}, Selection: gen.SelectionCurrent{}}, gen.Grants{}); kindOf(err) != "project_open_failed" {
		t.Errorf("a Windows path: %s", errText(err))
	}
}

// Workspace members open in declaration order with their scopes; a named
// selection picks some; ids are session tokens that are never reused.
//
//contract:proves eska-ide-api.lifecycle.single-context eska-ide-api.lifecycle.close
//contract:proves eska-ide-api.error-kind.unknown-project eska-ide-api.error-kind.unknown-session eska-ide-api.error-kind.workspace-already-open eska-ide-api.method.project-info eska-ide-api.method.workspace-close
func TestWorkspaceSessions(t *testing.T) {
	files := map[string]string{"eska.toml": "[workspace]\nmembers = [\"base\", \"ext\"]\n"}
	for name, body := range configurationFixture() {
		files["base/"+name] = body
	}
	files["ext/eska.toml"] = "[project]\ntype = \"extension\"\nsource = \"src\"\n"
	files["ext/src/Configuration.xml"] = desc("Configuration", "Расш", "<ConfigurationExtensionPurpose>Patch</ConfigurationExtensionPurpose>", "")
	h := newHarness(t, files)
	info := h.open(h.root, gen.SelectionCurrent{})
	var got []string
	for _, p := range info.Projects {
		got = append(got, string(p.ProjectID)+" "+scopeJSON(p.Scope)+" "+string(p.Type))
	}
	if !reflect.DeepEqual(got, []string{`p1 {"kind":"member","name":"base"} configuration`, `p2 {"kind":"member","name":"ext"} extension`}) {
		t.Errorf("projects %v", got)
	}
	if info.SessionID != "s1" {
		t.Errorf("session %s", info.SessionID)
	}
	if _, err := h.b.Open(gen.OpenParams{Start: ToPath(h.root), Selection: gen.SelectionCurrent{}}, gen.Grants{}); kindOf(err) != "workspace_already_open" {
		t.Errorf("second open: %s", errText(err))
	}
	again, err := h.b.Info(gen.SessionParams{SessionID: "s1"})
	if err != nil || len(again.Projects) != 2 {
		t.Errorf("project/info: %v", errText(err))
	}
	if err := h.b.Close(gen.SessionParams{SessionID: "s1"}); err != nil {
		t.Fatal(errText(err))
	}
	if _, err := h.b.Root(gen.ProjectContext{SessionID: "s1", ProjectID: "p1"}); kindOf(err) != "unknown_session" {
		t.Errorf("after close: %s", errText(err))
	}
	if err := h.b.Close(gen.SessionParams{SessionID: "s1"}); kindOf(err) != "unknown_session" {
		t.Errorf("second close: %s", errText(err))
	}
	info = h.open(filepath.Join(h.root, "ext", "src"), gen.SelectionCurrent{})
	if info.SessionID != "s2" || len(info.Projects) != 1 || scopeJSON(info.Projects[0].Scope) != `{"kind":"member","name":"ext"}` {
		t.Errorf("current from inside a member: %+v", info)
	}
	if _, err := h.b.Root(gen.ProjectContext{SessionID: "s2", ProjectID: "p9"}); kindOf(err) != "unknown_project" {
		t.Errorf("unknown project: %s", errText(err))
	}
}

func (h *harness) changedNotes() []gen.ChangedParams {
	var out []gen.ChangedParams
	for _, n := range h.notes {
		if n.method == gen.NotificationMetadataChanged {
			p, err := gen.DecodeChangedParams(n.params)
			if err != nil {
				h.t.Fatalf("changed notification does not decode: %v: %s", err, n.params)
			}
			out = append(out, p)
		}
	}
	return out
}

func (h *harness) files(seq string, paths ...string) error {
	var pp []gen.Path
	for _, p := range paths {
		pp = append(pp, ToPath(p))
	}
	var s gen.FileSequence
	for _, c := range seq {
		s = s*10 + gen.FileSequence(c-'0')
	}
	return h.b.DidChangeFiles(gen.DidChangeFilesParams{SessionID: h.sid, ProjectID: h.pid, Sequence: s, Paths: pp})
}

// File events: a valid batch invalidates the owners, raises generation
// and eventSequence and announces metadata/changed; a sequence gap sets
// requiresRefresh and every method answers resync_required until a root
// refresh; a manifest change requires reopening.
//
//contract:proves eska-ide-api.file-events.sequence eska-ide-api.file-events.changed eska-ide-api.file-events.resync eska-ide-api.file-events.reset eska-ide-api.file-events.reopen eska-ide-api.file-events.generation
//contract:proves eska-ide-api.error-kind.reopen-required eska-ide-api.error-kind.resync-required eska-ide-api.error-kind.stale-generation eska-ide-api.method.metadata-refresh eska-ide-api.method.metadata-root eska-ide-api.notification.metadata-changed eska-ide-api.notification.workspace-did-change-files
func TestFileEvents(t *testing.T) {
	h := openConfiguration(t)
	h.children(obj("catalog:Товары"))
	writeTree(t, h.root, map[string]string{"src/Catalogs/Товары.xml": desc("Catalog", "Товары", "", inline("Attribute", "Новый", "", ""))})
	if err := h.files("1", "Catalogs/Товары.xml", "Catalogs/Товары/Ext/ObjectModule.bsl", "Somewhere/else.txt"); err != nil {
		t.Fatal(err)
	}
	ch := h.changedNotes()
	if len(ch) != 1 || ch[0].Generation != 1 || ch[0].EventSequence != 1 || ch[0].RequiresRefresh ||
		!reflect.DeepEqual(ch[0].Affected, []gen.ObjectID{"catalog:Товары"}) {
		t.Fatalf("changed %+v", ch)
	}
	if _, err := h.b.Root(h.ctx()); kindOf(err) != "stale_generation" || !strings.Contains(detailsOf(err), `"expected":"1","actual":"0"`) {
		t.Errorf("old generation: %s", errText(err))
	}
	h.gen = 1
	attrs := keys(h.children(coll("catalog:Товары", "attribute")))
	if !reflect.DeepEqual(attrs, []string{"o:catalog:Товары/attribute:Новый"}) {
		t.Errorf("after the change the catalog has %v", attrs)
	}
	// A gap in the sequence is not ignored.
	if err := h.files("3", "Catalogs/Товары.xml"); err != nil {
		t.Fatal(err)
	}
	ch = h.changedNotes()
	last := ch[len(ch)-1]
	if !last.RequiresRefresh || last.Affected != nil || last.EventSequence != 2 {
		t.Errorf("after a gap: %+v", last)
	}
	if _, err := h.b.Root(h.ctx()); kindOf(err) != "resync_required" {
		t.Errorf("root after a gap: %s", errText(err))
	}
	if _, err := h.b.Index(gen.IndexParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, Action: gen.IndexActionStatus}); err != nil {
		t.Errorf("index status stays available: %s", errText(err))
	}
	// Only a root refresh recovers; it may carry the old generation.
	if _, err := h.b.Refresh(gen.RefreshParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, Node: obj("catalog:Товары")}); kindOf(err) != "resync_required" {
		t.Errorf("object refresh during resync: %s", errText(err))
	}
	reset := true
	r, err := h.b.Refresh(gen.RefreshParams{SessionID: h.sid, ProjectID: h.pid, Generation: 0, Node: h.rootID, ResetFileSequence: &reset})
	if err != nil {
		t.Fatal(errText(err))
	}
	ch = h.changedNotes()
	if r.Generation != 2 || r.EventSequence != 3 || ch[len(ch)-1].EventSequence != 3 || ch[len(ch)-1].RequiresRefresh {
		t.Errorf("root refresh result %+v, last changed %+v", r, ch[len(ch)-1])
	}
	h.gen = r.Generation
	if _, err := h.b.Root(h.ctx()); err != nil {
		t.Errorf("after the refresh: %s", errText(err))
	}
	// After resetFileSequence the next batch is "1" again.
	if err := h.files("1", "Enums/Статусы.xml"); err != nil {
		t.Fatal(err)
	}
	if last := h.changedNotes()[len(h.changedNotes())-1]; last.RequiresRefresh {
		t.Errorf("sequence 1 after the reset was refused")
	}
	h.gen++
	// A changed manifest needs a new session.
	tr := true
	if err := h.b.DidChangeFiles(gen.DidChangeFilesParams{SessionID: h.sid, ProjectID: h.pid, Sequence: 2, ManifestChanged: &tr}); err != nil {
		t.Fatal(err)
	}
	if last := h.changedNotes()[len(h.changedNotes())-1]; !last.RequiresReopen {
		t.Errorf("manifest change: %+v", last)
	}
	if _, err := h.b.Root(h.ctx()); kindOf(err) != "reopen_required" {
		t.Errorf("after a manifest change: %s", errText(err))
	}
}

// Bad paths in a batch are not ignored: the project needs a refresh.
func TestFileEventBadPaths(t *testing.T) {
	for _, bad := range []string{"../outside.xml", "/abs/Catalogs/Товары.xml", ""} {
		h := openConfiguration(t)
		if err := h.files("1", bad); err != nil {
			t.Fatal(err)
		}
		if ch := h.changedNotes(); len(ch) != 1 || !ch[0].RequiresRefresh {
			t.Errorf("path %q: %+v", bad, ch)
		}
	}
	h := openConfiguration(t)
	if err := h.b.DidChangeFiles(gen.DidChangeFilesParams{SessionID: "s9", ProjectID: "p1", Sequence: 1, Paths: []gen.Path{ToPath("x")}}); err == nil {
		t.Errorf("an unknown session's event was accepted")
	}
}

// A node refresh rereads its owner's descriptor and announces the change
// before it answers.
//
//contract:proves eska-ide-api.error-kind.xml-invalid eska-ide-api.method.metadata-refresh
func TestNodeRefresh(t *testing.T) {
	h := openConfiguration(t)
	h.children(obj("catalog:Товары"))
	writeTree(t, h.root, map[string]string{"src/Catalogs/Товары.xml": desc("Catalog", "Товары", "", inline("Attribute", "Другой", "", ""))})
	r, err := h.b.Refresh(gen.RefreshParams{SessionID: h.sid, ProjectID: h.pid, Node: obj("catalog:Товары/attribute:Артикул")})
	if err != nil {
		t.Fatal(errText(err))
	}
	if !reflect.DeepEqual(r.Affected, []gen.ObjectID{"catalog:Товары"}) || r.Generation != 1 {
		t.Errorf("refresh %+v", r)
	}
	if ch := h.changedNotes(); len(ch) != 1 || ch[0].Generation != 1 {
		t.Errorf("changed %+v", ch)
	}
	h.gen = 1
	if got := keys(h.children(coll("catalog:Товары", "attribute"))); !reflect.DeepEqual(got, []string{"o:catalog:Товары/attribute:Другой"}) {
		t.Errorf("after refresh %v", got)
	}
	// A broken root keeps the raised generation and sets requiresRefresh;
	// fixing it and refreshing again clears the flag.
	good := configurationFixture()["src/Configuration.xml"]
	writeTree(t, h.root, map[string]string{"src/Configuration.xml": "<MetaDataObject"})
	if _, err := h.b.Refresh(gen.RefreshParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, Node: h.rootID}); kindOf(err) != "xml_invalid" {
		t.Fatalf("refresh of a broken root: %s", errText(err))
	}
	info, _ := h.b.Info(gen.SessionParams{SessionID: h.sid})
	if !info.Projects[0].RequiresRefresh || info.Projects[0].Generation != 2 {
		t.Errorf("after a failed root refresh %+v", info.Projects[0])
	}
	writeTree(t, h.root, map[string]string{"src/Configuration.xml": good})
	if r, err := h.b.Refresh(gen.RefreshParams{SessionID: h.sid, ProjectID: h.pid, Generation: 0, Node: h.rootID}); err != nil || r.Generation != 3 {
		t.Fatalf("refresh of the fixed root: %+v %s", r, errText(err))
	}
	info, _ = h.b.Info(gen.SessionParams{SessionID: h.sid})
	if info.Projects[0].RequiresRefresh {
		t.Errorf("the flag stayed after a successful refresh")
	}
}

// Paths round-trip: UTF-8 as is, other bytes as %HH.
func TestPaths(t *testing.T) {
	for _, p := range []string{"/tmp/проект/src", "/a%b", "/bad\xff\x00name"} {
		dto := ToPath(p)
		back, err := FromPath(dto)
		if err != nil || back != p {
			t.Errorf("%q → %+v → %q %v", p, dto, back, err)
		}
	}
	if ToPath("/bad\xff").Encoding != gen.PathEncodingPercent || ToPath("/ok%").Encoding != gen.PathEncodingUTF8 {
		t.Errorf("encodings")
	}
	for _, bad := range []gen.Path{{Value: "%4", Encoding: gen.PathEncodingPercent}, {Value: "%zz", Encoding: gen.PathEncodingPercent}, {Value: "a", Encoding: gen.PathEncodingPercent}} {
		if _, err := FromPath(bad); err == nil {
			t.Errorf("%+v decoded", bad)
		}
	}
}

// FromPath takes any Path without a panic: a native path round-trips
// through ToPath, and a percent path decodes only when it is all %HH, one
// byte per three characters.
func FuzzPath(f *testing.F) {
	for _, s := range []string{"/tmp/проект/src", "/a%b", "/bad\xff\x00name", "%4", "%zz", "%41%ff", "%+1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if back, err := FromPath(ToPath(s)); err != nil || back != s {
			t.Fatalf("%q → %+v → %q %v", s, ToPath(s), back, err)
		}
		out, err := FromPath(gen.Path{Value: s, Encoding: gen.PathEncodingPercent})
		if err == nil && 3*len(out) != len(s) {
			t.Fatalf("percent path %q decoded to %d bytes", s, len(out))
		}
		if _, err := FromPath(gen.Path{Value: s, Encoding: gen.PathEncodingUTF16Percent}); err == nil {
			t.Fatalf("a UTF-16 path decoded here")
		}
	})
}

func scopeJSON(s gen.Scope) string { b, _ := gen.MarshalScope(s); return string(b) }

// Counters never wrap: at the end of the range the project answers
// generation_exhausted until the session is opened again.
//
//contract:proves eska-ide-api.error-kind.generation-exhausted
func TestGenerationExhausted(t *testing.T) {
	h := openConfiguration(t)
	p := h.b.s.projects[0]
	p.generation = math.MaxUint64 - 1
	h.gen = gen.Generation(p.generation)
	if _, err := h.b.Refresh(gen.RefreshParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, Node: h.rootID}); err != nil {
		t.Fatalf("the last generation: %s", errText(err))
	}
	h.gen = math.MaxUint64
	if _, err := h.b.Root(h.ctx()); err != nil {
		t.Fatalf("at the last generation: %s", errText(err))
	}
	if _, err := h.b.Refresh(gen.RefreshParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, Node: h.rootID}); kindOf(err) != "generation_exhausted" {
		t.Fatalf("one past the last generation: %s", errText(err))
	}
	if _, err := h.b.Root(h.ctx()); kindOf(err) != "generation_exhausted" {
		t.Errorf("after exhaustion: %s", errText(err))
	}
	notes := len(h.changedNotes())
	h.files("1", "Catalogs/Товары.xml")
	if len(h.changedNotes()) != notes {
		t.Errorf("an exhausted project still announced a change")
	}
	h.b.Close(gen.SessionParams{SessionID: h.sid})
	info := h.open(h.root, gen.SelectionCurrent{})
	if info.Projects[0].Generation != 0 {
		t.Errorf("a new session starts at %d", info.Projects[0].Generation)
	}
}

// A descriptor rewritten without a file event no longer defines what the
// tree read from it: properties answer source_changed with its path, and a
// refresh reads it again.
//
//contract:proves eska-ide-api.error-kind.source-changed
func TestSourceChanged(t *testing.T) {
	h := openConfiguration(t)
	h.children(obj("catalog:Товары"))
	writeTree(t, h.root, map[string]string{"src/Catalogs/Товары.xml": desc("Catalog", "Товары", "", "")})
	_, err := h.b.Properties(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, ObjectID: "catalog:Товары/attribute:Артикул"})
	if kindOf(err) != "source_changed" || !strings.Contains(detailsOf(err), `"path":{"value":"Catalogs/Товары.xml"`) {
		t.Fatalf("properties of a vanished attribute: %s", errText(err))
	}
	r, err := h.b.Refresh(gen.RefreshParams{SessionID: h.sid, ProjectID: h.pid, Node: obj("catalog:Товары")})
	if err != nil {
		t.Fatal(errText(err))
	}
	h.gen = r.Generation
	if got := keys(h.children(coll("catalog:Товары", "attribute"))); len(got) != 0 {
		t.Errorf("after the refresh: %v", got)
	}
}
