package metadata

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/atomicfile"
	"github.com/contractkit/contractkit/internal/byteedit"
)

// readSources reads every file under the project's src, by slash path.
func readSources(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	src := filepath.Join(root, "src")
	filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	return out
}

// sources is a rendered fixture without its manifest.
func sources(files map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		if strings.HasPrefix(k, "src/") {
			out[k] = v
		}
	}
	return out
}

// The plan of a rename lists, per file, exactly the places the fixture
// marks as certain, and exactly those it marks as uncertain; the digest
// of each file is its bytes' SHA-256; the descriptor and folder move.
//
//contract:proves eska-ide-api.editing.rename-places eska-ide-api.editing.rename-plan
//contract:proves eska-ide-api.method.metadata-rename-preview
func TestRenamePlan(t *testing.T) {
	h := openRename(t, 9)
	r, err := h.preview("catalog:Товары", "Изделия")
	if err != nil {
		t.Fatal(errText(err))
	}
	if !r.ApplyAvailable || len(r.Plan.Issues) != 0 {
		t.Fatalf("issues %v", r.Plan.Issues)
	}
	wantC, wantU := expectedPlaces()
	gotC, gotU := planPlaces(r.Plan)
	if !reflect.DeepEqual(gotC, wantC) {
		t.Errorf("certain places:\n got %v\nwant %v", gotC, wantC)
	}
	if !reflect.DeepEqual(gotU, wantU) {
		t.Errorf("uncertain places:\n got %v\nwant %v", gotU, wantU)
	}
	for _, f := range r.Plan.Files {
		data, _ := os.ReadFile(filepath.Join(h.root, "src", filepath.FromSlash(f.Path)))
		if f.Sha256 != sha(data) {
			t.Errorf("%s: digest %s", f.Path, f.Sha256)
		}
		for _, e := range f.Edits {
			if e.Text != "Изделия" || string(data[e.Range.Start:e.Range.End]) != "Товары" {
				t.Errorf("%s: edit %+v over %q", f.Path, e, data[e.Range.Start:e.Range.End])
			}
		}
	}
	reasons := map[gen.RenameUncertainReason]int{}
	for _, u := range r.Plan.Uncertain {
		reasons[u.Reason]++
	}
	if reasons["string"] == 0 || reasons["query"] == 0 || reasons["comment"] == 0 || reasons["text"] == 0 || reasons["member"] == 0 {
		t.Errorf("reasons %v", reasons)
	}
	wantMoves := []gen.RenameMove{{From: "Catalogs/Товары.xml", To: "Catalogs/Изделия.xml"}, {From: "Catalogs/Товары", To: "Catalogs/Изделия"}}
	if !reflect.DeepEqual(r.Plan.Moves, wantMoves) {
		t.Errorf("moves %v", r.Plan.Moves)
	}
	// The same project gives the same plan; a changed file another one.
	again, _ := h.preview("catalog:Товары", "Изделия")
	if again.Plan.Snapshot != r.Plan.Snapshot {
		t.Error("the snapshot is not stable")
	}
	os.WriteFile(filepath.Join(h.root, "src", "Roles", "Роль.xml"), []byte(renderRename("Товары")["src/Roles/Роль.xml"]+" "), 0o644)
	if other, _ := h.preview("catalog:Товары", "Изделия"); other.Plan.Snapshot != r.Plan.Snapshot {
		t.Error("a file the plan does not name changed the snapshot")
	}
	os.WriteFile(filepath.Join(h.root, "src", "Documents", "Заказ.xml"), []byte(renderRename("Товары")["src/Documents/Заказ.xml"]+" "), 0o644)
	if other, _ := h.preview("catalog:Товары", "Изделия"); other.Plan.Snapshot == r.Plan.Snapshot {
		t.Error("a file of the plan changed and the snapshot did not")
	}
}

// A rename writes every file as the templates say, moves the descriptor
// and folder, sends metadata/changed with renamed before answering, and
// is one step of the history: undo gives every file back byte for byte,
// redo the rename again.
//
//contract:proves eska-ide-api.editing.rename eska-ide-api.editing.renamed eska-ide-api.editing.rename-history
//contract:proves eska-ide-api.method.metadata-rename-apply
func TestRenameApplyUndoRedo(t *testing.T) {
	h := openRename(t, 11)
	before := readSources(t, h.root)
	p, _ := h.preview("catalog:Товары", "Изделия")
	h.notes = nil
	r, err := h.apply("catalog:Товары", "Изделия", p.Plan.Snapshot, true)
	if err != nil {
		t.Fatal(errText(err))
	}
	want := sources(renderRename("Изделия"))
	if got := readSources(t, h.root); !reflect.DeepEqual(got, want) {
		for k := range want {
			if got[k] != want[k] {
				t.Errorf("%s:\n got %q\nwant %q", k, got[k], want[k])
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s is left", k)
			}
		}
	}
	wantRenamed := gen.Renamed{From: "catalog:Товары", To: "catalog:Изделия", DescendantFrom: "catalog:Товары/", DescendantTo: "catalog:Изделия/"}
	if r.Renamed != wantRenamed {
		t.Errorf("renamed %+v", r.Renamed)
	}
	notes := h.changedNotes()
	if len(notes) != 1 || notes[0].Renamed == nil || *notes[0].Renamed != wantRenamed || notes[0].Generation != r.Generation || notes[0].Affected != nil {
		t.Fatalf("changed %+v", notes)
	}
	if r.Editing.UndoRename == nil || !*r.Editing.UndoRename || r.Editing.RedoRename == nil || *r.Editing.RedoRename {
		t.Errorf("editing after the rename: undoRename %v redoRename %v", r.Editing.UndoRename, r.Editing.RedoRename)
	}
	if name := fieldValue(r.Editing, "Comment"); name == "" {
		t.Errorf("the object's editing state is not the renamed one: %+v", r.Editing.Fields)
	}
	// The tree knows the object under its new name only.
	if _, err := h.b.Get(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: "catalog:Товары"}); kindOf(err) != "unknown_object" {
		t.Errorf("old id: %s", errText(err))
	}
	// Undo restores every byte and the old id.
	h.notes = nil
	u, err := h.undo("catalog:Изделия", false)
	if err != nil {
		t.Fatal(errText(err))
	}
	if got := readSources(t, h.root); !reflect.DeepEqual(got, before) {
		t.Errorf("undo did not restore the tree")
	}
	back := gen.Renamed{From: "catalog:Изделия", To: "catalog:Товары", DescendantFrom: "catalog:Изделия/", DescendantTo: "catalog:Товары/"}
	if u.Renamed == nil || *u.Renamed != back {
		t.Errorf("undo renamed %+v", u.Renamed)
	}
	if n := h.changedNotes(); len(n) != 1 || n[0].Renamed == nil || *n[0].Renamed != back {
		t.Errorf("undo changed %+v", n)
	}
	if !*u.Editing.RedoRename || *u.Editing.UndoRename {
		t.Errorf("after undo: undoRename %v redoRename %v", *u.Editing.UndoRename, *u.Editing.RedoRename)
	}
	// Redo renames again, byte for byte.
	if _, err := h.undo("catalog:Товары", true); err != nil {
		t.Fatal(errText(err))
	}
	if got := readSources(t, h.root); !reflect.DeepEqual(got, want) {
		t.Errorf("redo did not rename again")
	}
	// An external change of any file of the step blocks its undo.
	rights := filepath.Join(h.root, "src", "Roles", "Роль", "Ext", "Rights.xml")
	os.WriteFile(rights, []byte(want["src/Roles/Роль/Ext/Rights.xml"]+"\n"), 0o644)
	if _, err := h.undo("catalog:Изделия", false); kindOf(err) != "source_changed" || !strings.Contains(detailsOf(err), "Rights.xml") {
		t.Errorf("undo over a changed file: %s", errText(err))
	}
}

// Issues block the apply with the seed's kinds; a stale snapshot, and
// uncertain places that were not reviewed, refuse it; nothing is written.
//
//contract:proves eska-ide-api.editing.rename-plan eska-ide-api.error-kind.rename-invalid-name eska-ide-api.error-kind.rename-collision eska-ide-api.error-kind.rename-blocked eska-ide-api.error-kind.rename-review-required
func TestRenameRefusals(t *testing.T) {
	cases := []struct {
		name, id, newName string
		spoil             func(root string)
		issue             gen.RenameIssueCode
		kind              string
	}{
		{name: "digit first", id: "catalog:Товары", newName: "1Товары", issue: "invalid_name", kind: "rename_invalid_name"},
		{name: "space", id: "catalog:Товары", newName: "Мои товары", issue: "invalid_name", kind: "rename_invalid_name"},
		{name: "reserved word", id: "catalog:Товары", newName: "Если", issue: "invalid_name", kind: "rename_invalid_name"},
		{name: "same name", id: "catalog:Товары", newName: "Товары", issue: "same_name", kind: "rename_invalid_name"},
		// One byte past the file name limit: the descriptor would be
		// Catalogs/<name>.xml of MaxFileNameBytes+1 bytes.
		{name: "file name too long", id: "catalog:Товары", newName: "Т" + strings.Repeat("x", gen.MaxFileNameBytes-len(".xml")-len("Т")+1),
			issue: "invalid_name", kind: "rename_invalid_name"},
		{name: "collision in any case", id: "catalog:Товары", newName: "СКЛАДЫ", issue: "collision", kind: "rename_collision"},
		{name: "folder exists", id: "catalog:Товары", newName: "Изделия", issue: "path_exists", kind: "rename_collision",
			spoil: func(root string) { os.MkdirAll(filepath.Join(root, "src", "Catalogs", "Изделия"), 0o755) }},
		{name: "nested object", id: "catalog:Товары/attribute:Товары", newName: "Изделия", issue: "unsupported_kind", kind: "rename_blocked"},
		{name: "symbolic link", id: "catalog:Товары", newName: "Изделия", issue: "symlink", kind: "rename_blocked",
			spoil: func(root string) {
				os.Symlink(filepath.Join(root, "src", "Roles", "Роль.xml"), filepath.Join(root, "src", "Ссылка.xml"))
			}},
		{name: "unreadable", id: "catalog:Товары", newName: "Изделия", issue: "unreadable", kind: "rename_blocked",
			spoil: func(root string) {
				os.WriteFile(filepath.Join(root, "src", "Roles", "Роль", "Ext", "Rights.xml"), []byte("<a>Catalog.Товары<b"), 0o644)
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := openRename(t, 9)
			h.know(c.id)
			if c.spoil != nil {
				c.spoil(h.root)
			}
			before := snapshot(t, h.root)
			p, err := h.preview(c.id, c.newName)
			if err != nil {
				t.Fatal(errText(err))
			}
			if p.ApplyAvailable || len(p.Plan.Issues) == 0 || p.Plan.Issues[0].Code != c.issue {
				t.Fatalf("issues %+v", p.Plan.Issues)
			}
			if _, err := h.apply(c.id, c.newName, p.Plan.Snapshot, true); kindOf(err) != c.kind {
				t.Errorf("apply: %s, want %s", errText(err), c.kind)
			}
			if !sameSnapshot(before, snapshot(t, h.root)) {
				t.Error("a refused rename wrote")
			}
		})
	}
	t.Run("stale snapshot", func(t *testing.T) {
		h := openRename(t, 9)
		p, _ := h.preview("catalog:Товары", "Изделия")
		doc := filepath.Join(h.root, "src", "Documents", "Заказ.xml")
		data, _ := os.ReadFile(doc)
		os.WriteFile(doc, []byte(strings.Replace(string(data), "</Document>", "<!-- Catalog.Товары --></Document>", 1)), 0o644)
		before := snapshot(t, h.root)
		if _, err := h.apply("catalog:Товары", "Изделия", p.Plan.Snapshot, true); kindOf(err) != "source_changed" {
			t.Errorf("apply: %s", errText(err))
		}
		if !sameSnapshot(before, snapshot(t, h.root)) {
			t.Error("wrote")
		}
	})
	t.Run("not reviewed", func(t *testing.T) {
		h := openRename(t, 9)
		p, _ := h.preview("catalog:Товары", "Изделия")
		before := snapshot(t, h.root)
		if _, err := h.apply("catalog:Товары", "Изделия", p.Plan.Snapshot, false); kindOf(err) != "rename_review_required" {
			t.Errorf("apply: %s", errText(err))
		}
		if !sameSnapshot(before, snapshot(t, h.root)) {
			t.Error("wrote")
		}
	})
	t.Run("no opt-in", func(t *testing.T) {
		h := openRename(t, 9)
		p, _ := h.preview("catalog:Товары", "Изделия")
		h.b.grants = clientGrants(9, false, gen.CapabilityPicturePreview, gen.CapabilityPropertyPresentation)
		if _, err := h.apply("catalog:Товары", "Изделия", p.Plan.Snapshot, true); kindOf(err) != "property_read_only" {
			t.Errorf("apply: %s", errText(err))
		}
	})
}

// A new name whose descriptor file name is exactly MaxFileNameBytes
// long passes the preview and is applied and undone; one byte more is an
// invalid_name issue of the preview (TestRenameRefusals), never a failure
// of the apply.
func TestRenameFileNameAtLimit(t *testing.T) {
	h := openRename(t, 9)
	name := "Т" + strings.Repeat("x", gen.MaxFileNameBytes-len(".xml")-len("Т"))
	before := readSources(t, h.root)
	p, err := h.preview("catalog:Товары", name)
	if err != nil {
		t.Fatal(errText(err))
	}
	if len(p.Plan.Issues) != 0 || !p.ApplyAvailable {
		t.Fatalf("issues %+v", p.Plan.Issues)
	}
	if _, err := h.apply("catalog:Товары", name, p.Plan.Snapshot, true); err != nil {
		t.Fatal(errText(err))
	}
	desc := filepath.Join(h.root, "src", "Catalogs", name+".xml")
	if len(filepath.Base(desc)) != gen.MaxFileNameBytes {
		t.Fatalf("the descriptor's name has %d bytes", len(filepath.Base(desc)))
	}
	if _, err := os.Stat(desc); err != nil {
		t.Fatal(err)
	}
	if _, err := h.undo("catalog:"+name, false); err != nil {
		t.Fatal(errText(err))
	}
	if got := readSources(t, h.root); !reflect.DeepEqual(got, before) {
		t.Error("undo did not restore the tree")
	}
}

// A file the vendor's support rules lock blocks the rename, whether it
// is the object's own descriptor or a file that names it.
//
//contract:proves eska-ide-api.editing.support-gate eska-ide-api.error-kind.rename-blocked
func TestRenameSupportLocked(t *testing.T) {
	files := supportFixture(0)
	files["src/Catalogs/Закрытый/Ext/ObjectModule.bsl"] = "А = Справочники.Свой.ПустаяСсылка();\n"
	h := newHarness(t, files)
	h.grants = editGrants(9)
	h.open(h.root, gen.SelectionCurrent{})
	p, err := h.preview("catalog:Свой", "Собственный")
	if err != nil {
		t.Fatal(errText(err))
	}
	if len(p.Plan.Issues) != 1 || p.Plan.Issues[0].Code != "support_locked" || *p.Plan.Issues[0].Path != "Catalogs/Закрытый/Ext/ObjectModule.bsl" {
		t.Errorf("issues %+v", p.Plan.Issues)
	}
	if _, err := h.apply("catalog:Свой", "Собственный", p.Plan.Snapshot, true); kindOf(err) != "rename_blocked" {
		t.Errorf("apply: %s", errText(err))
	}
	p, _ = h.preview("catalog:Закрытый", "Открытый2")
	if len(p.Plan.Issues) == 0 || p.Plan.Issues[0].Code != "support_locked" {
		t.Errorf("a locked object: %+v", p.Plan.Issues)
	}
	// Editable with support kept: the rename goes through.
	p, _ = h.preview("catalog:Открытый", "Открытый2")
	if len(p.Plan.Issues) != 0 {
		t.Errorf("an editable object: %+v", p.Plan.Issues)
	}
}

// The rename members of the editing state exist from minor 9 with the
// opt-in; renameAvailable is true only for what a rename supports.
//
//contract:proves eska-ide-api.versions.gating eska-ide-api.editing.rename-history
func TestRenameEditingState(t *testing.T) {
	h := openRename(t, 8)
	if s := h.editing("catalog:Товары"); s.RenameAvailable != nil || s.UndoRename != nil {
		t.Errorf("1.8 sees rename members")
	}
	h = openRename(t, 9)
	if s := h.editing("catalog:Товары"); s.RenameAvailable == nil || !*s.RenameAvailable || *s.UndoRename || *s.RedoRename {
		t.Errorf("1.9 catalog: %v %v %v", s.RenameAvailable, s.UndoRename, s.RedoRename)
	}
	if s := h.editing("catalog:Товары/attribute:Товары"); s.RenameAvailable == nil || *s.RenameAvailable {
		t.Errorf("1.9 attribute: renameAvailable %v", s.RenameAvailable)
	}
	if s := h.editing("catalog:Товары"); !s.ContextSnapshot.IsAbsent() || s.LinkedObjects != nil {
		t.Errorf("1.9 sees linked members")
	}
}

// A write of several files a crash left that cannot be recovered (a file
// changed by hand since) keeps every write back: rename, property
// update and undo answer property_recovery_required, and nothing is
// overwritten.
//
//contract:proves eska-ide-api.editing.rename-journal eska-ide-api.error-kind.property-recovery-required
func TestRenameRecoveryRequired(t *testing.T) {
	files := renderRename("Товары")
	h := newHarness(t, files)
	journal := `{"id":"1","phase":"committed","files":[{"rel":"Roles/Роль.xml","moved":"Roles/Роль.xml","before":"` +
		sha([]byte("other bytes")) + `","after":"` + sha([]byte("new bytes")) + `","edits":[],"temp":"Roles/.eska-write-Роль.xml-1-0"}],"moves":[]}`
	os.MkdirAll(filepath.Join(h.root, ".eska", "edit"), 0o755)
	os.WriteFile(filepath.Join(h.root, ".eska", "edit", "set-journal.json"), []byte(journal), 0o644)
	h.grants = editGrants(11)
	h.open(h.root, gen.SelectionCurrent{})
	before := readSources(t, h.root)
	p, _ := h.preview("catalog:Товары", "Изделия")
	if _, err := h.apply("catalog:Товары", "Изделия", p.Plan.Snapshot, true); kindOf(err) != "property_recovery_required" {
		t.Errorf("rename: %s", errText(err))
	}
	if _, err := h.update("catalog:Товары", "Comment", `{"kind":"text","value":"x"}`); kindOf(err) != "property_recovery_required" {
		t.Errorf("update: %s", errText(err))
	}
	if !reflect.DeepEqual(before, readSources(t, h.root)) {
		t.Error("wrote while a recovery is pending")
	}
}

// A rename written whose object cannot be read again answers
// rename_committed_refresh_required, not a refusal: the rename stands
// and was announced.
//
//contract:proves eska-ide-api.error-kind.rename-committed-refresh-required eska-ide-api.editing.no-retry
func TestRenameCommittedRefreshRequired(t *testing.T) {
	h := openRename(t, 9)
	p, _ := h.preview("catalog:Товары", "Изделия")
	afterWrite = func() {
		os.WriteFile(filepath.Join(h.root, "src", "Catalogs", "Изделия.xml"), []byte("<broken"), 0o644)
	}
	defer func() { afterWrite = nil }()
	h.notes = nil
	_, err := h.apply("catalog:Товары", "Изделия", p.Plan.Snapshot, true)
	if kindOf(err) != "rename_committed_refresh_required" {
		t.Errorf("%s", errText(err))
	}
	if n := h.changedNotes(); len(n) != 1 || n[0].Renamed == nil {
		t.Errorf("the committed rename was not announced: %+v", n)
	}
	if _, err := os.Stat(filepath.Join(h.root, "src", "Catalogs", "Товары.xml")); err == nil {
		t.Error("the rename was not written")
	}
}

// A rename a crash interrupted after its commit point is finished by the
// next open, and that session knows the object by its new name: it reads
// the project after the recovery, not before.
//
//contract:proves eska-ide-api.editing.rename-journal
func TestRenameRecoveredAtOpen(t *testing.T) {
	h := openRename(t, 11)
	p, err := h.preview("catalog:Товары", "Изделия")
	if err != nil {
		t.Fatal(errText(err))
	}
	type jf struct {
		Rel    string          `json:"rel"`
		Moved  string          `json:"moved"`
		Before string          `json:"before"`
		After  string          `json:"after"`
		Edits  []byteedit.Edit `json:"edits"`
		Temp   string          `json:"temp"`
	}
	var files []jf
	for i, f := range p.Plan.Files {
		data, _ := os.ReadFile(filepath.Join(h.root, "src", filepath.FromSlash(f.Path)))
		var edits []byteedit.Edit
		for _, e := range f.Edits {
			edits = append(edits, byteedit.Edit{Start: e.Range.Start, End: e.Range.End, Text: e.Text})
		}
		nb, _ := byteedit.Apply(data, edits)
		moved := strings.Replace(f.Path, "Catalogs/Товары", "Catalogs/Изделия", 1)
		files = append(files, jf{Rel: f.Path, Moved: moved, Before: sha(data), After: sha(nb), Edits: edits,
			Temp: filepath.ToSlash(filepath.Join(filepath.Dir(f.Path), ".eska-write-x-"+strconv.Itoa(i)))})
	}
	journal, _ := json.Marshal(map[string]any{"id": "1", "phase": "committed", "files": files,
		"moves": []map[string]string{{"from": "Catalogs/Товары.xml", "to": "Catalogs/Изделия.xml"}, {"from": "Catalogs/Товары", "to": "Catalogs/Изделия"}}})
	os.MkdirAll(filepath.Join(h.root, ".eska", "edit"), 0o755)
	if err := os.WriteFile(filepath.Join(h.root, ".eska", "edit", "set-journal.json"), journal, 0o644); err != nil {
		t.Fatal(err)
	}
	g := &harness{t: t, b: New(nil), root: h.root}
	g.grants = editGrants(11)
	g.b.Diag = func(code string) { t.Errorf("diagnostic %s", code) }
	g.open(h.root, gen.SelectionCurrent{})
	if got := readSources(t, h.root); !reflect.DeepEqual(got, sources(renderRename("Изделия"))) {
		t.Error("the recovery did not finish the rename")
	}
	if _, err := g.b.Get(gen.ObjectParams{SessionID: g.sid, ProjectID: g.pid, ObjectID: "catalog:Изделия"}); err != nil {
		t.Errorf("the new session does not know the new name: %s", errText(err))
	}
	if _, err := g.b.Get(gen.ObjectParams{SessionID: g.sid, ProjectID: g.pid, ObjectID: "catalog:Товары"}); kindOf(err) != "unknown_object" {
		t.Errorf("the new session knows the old name: %s", errText(err))
	}
}

// A rename while another write holds the project's lock answers
// property_edit_busy and writes nothing.
//
//contract:proves eska-ide-api.error-kind.property-edit-busy
func TestRenameBusy(t *testing.T) {
	h := openRename(t, 9)
	p, _ := h.preview("catalog:Товары", "Изделия")
	w := atomicfile.Writer{Root: filepath.Join(h.root, "src"), State: filepath.Join(h.root, filepath.FromSlash(editStateDir)), Base: h.root}
	unlock, err := w.Lock()
	if err != nil {
		t.Fatal(err)
	}
	before := readSources(t, h.root)
	if _, err := h.apply("catalog:Товары", "Изделия", p.Plan.Snapshot, true); kindOf(err) != "property_edit_busy" {
		t.Errorf("while locked: %s", errText(err))
	}
	unlock()
	if !reflect.DeepEqual(before, readSources(t, h.root)) {
		t.Error("written while locked")
	}
	if _, err := h.apply("catalog:Товары", "Изделия", p.Plan.Snapshot, true); err != nil {
		t.Errorf("after the lock: %s", errText(err))
	}
}

// searchIDs lets the index run to the end and returns the objects a
// search finds. It never starts the index: a test starts it once, so what
// a later search finds is what the session rebuilt by itself.
func (h *harness) searchIDs(query string) []string {
	h.t.Helper()
	for h.b.Background() {
	}
	r, err := h.b.Search(gen.SearchParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, Text: query})
	if err != nil {
		h.t.Fatalf("search %q: %s", query, errText(err))
	}
	var ids []string
	for _, hit := range r.Hits {
		ids = append(ids, string(hit.ObjectID))
	}
	return ids
}

// namesObject reports whether ids hold the object id or a descendant.
func namesObject(ids []string, id string) bool {
	for _, s := range ids {
		if s == id || strings.HasPrefix(s, id+"/") {
			return true
		}
	}
	return false
}

// A rename rewrites files the search index and the disk cache were built
// from. The index of the session is rebuilt: it finds the object under
// its new name and nothing under the old one. A later session with the
// disk cache answers exactly as a session without it on the renamed tree
// (the entries of the old bytes and the old paths are never taken), and
// after the undo exactly as on the original tree, now from entries that
// are right again.
//
//contract:proves eska-ide-api.editing.rename eska-ide-api.capability.disk-cache
func TestRenameSearchAndDiskCache(t *testing.T) {
	h := openRename(t, 11)
	walkAll(h) // fills the disk cache with the entries of the old tree
	h.b.Index(gen.IndexParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, Action: gen.IndexActionStart})
	if ids := h.searchIDs("Товары"); !namesObject(ids, "catalog:Товары") {
		t.Fatalf("before the rename the search finds %v", ids)
	}
	if h.b.s.projects[0].r.Cache == nil || h.b.s.projects[0].r.Cache.Writes == 0 {
		t.Fatalf("the session wrote no cache entries: %+v", h.b.s.projects[0].r.Cache)
	}
	p, _ := h.preview("catalog:Товары", "Изделия")
	if _, err := h.apply("catalog:Товары", "Изделия", p.Plan.Snapshot, true); err != nil {
		t.Fatal(errText(err))
	}
	if ids := h.searchIDs("Изделия"); !namesObject(ids, "catalog:Изделия") {
		t.Errorf("after the rename the search for the new name finds %v", ids)
	}
	if ids := h.searchIDs("Товары"); namesObject(ids, "catalog:Товары") {
		t.Errorf("after the rename the search finds the old object: %v", ids)
	}

	// Another backend opens the project while this session stays open
	// (the undo below needs its history).
	reopen := func(what string, files map[string]string) {
		t.Helper()
		want := plain(t, files)
		h2 := &harness{t: t, root: h.root}
		h2.b = New(func(string, []byte) {})
		walk, _, cache := h2.cachedSession("Изделия")
		if cache == nil || cache.Hits == 0 {
			t.Errorf("%s: the reopened session took nothing from the cache: %+v", what, cache)
		}
		sameWalk(t, what, walk, want)
		h2.b.Close(gen.SessionParams{SessionID: h2.sid})
	}
	reopen("after the rename", renderRename("Изделия"))

	if _, err := h.undo("catalog:Изделия", false); err != nil {
		t.Fatal(errText(err))
	}
	if ids := h.searchIDs("Изделия"); namesObject(ids, "catalog:Изделия") {
		t.Errorf("after the undo the search finds the new name: %v", ids)
	}
	h.b.Close(gen.SessionParams{SessionID: h.sid})
	reopen("after the undo", renderRename("Товары"))
}
