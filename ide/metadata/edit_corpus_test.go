//go:build corpus

package metadata

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/contractkit/contractkit/designer"
	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/repotest"
)

// fileSums keeps the hash of each file by path, size, modification time
// and inode, so that a tree is hashed again without reading the files a
// write did not replace (every write here renames a new file in).
var fileSums = map[string]fileSum{}

type fileSum struct {
	size, mtime int64
	ino         uint64
	sum         [32]byte
}

// treeSum is the SHA-256 of every file under dir, names and bytes.
func treeSum(t *testing.T, dir string) string {
	h := sha256.New()
	var paths []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		key := fileSum{size: st.Size(), mtime: st.ModTime().UnixNano(), ino: inode(st)}
		fs, ok := fileSums[p]
		if !ok || fs.size != key.size || fs.mtime != key.mtime || fs.ino != key.ino {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			key.sum = sha256.Sum256(data)
			fileSums[p] = key
			fs = key
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s\x00%x\x00", rel, fs.sum)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func inode(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Ino
	}
	return 0
}

// sslCopy extracts SSL 3.1 with an eska.toml and the support file made
// as mode says: "locked" as exported, "editable" with the configuration's
// changes allowed (every rule then keeps the vendor's support while
// editing), "none" without the file.
func sslCopy(t *testing.T, mode string) string {
	shared := filepath.Join(repotest.Root(t), "..", "shared", "corpus", "designer")
	tmp := t.TempDir()
	extract(t, filepath.Join(shared, "ssl_3_1.tar.gz"), tmp)
	dir := filepath.Join(tmp, "ssl_3_1")
	os.WriteFile(filepath.Join(dir, "eska.toml"), []byte("[project]\ntype = \"configuration\"\nsource = \"src/cf\"\n"), 0o644)
	bin := filepath.Join(dir, "src", "cf", filepath.FromSlash(designer.SupportFile))
	switch mode {
	case "editable":
		data, _ := os.ReadFile(bin)
		if !bytes.HasPrefix(data, []byte("\ufeff{6,1,")) {
			t.Fatalf("SSL's support file starts %q", data[:10])
		}
		os.WriteFile(bin, append([]byte("\ufeff{6,0,"), data[len("\ufeff{6,1,"):]...), 0o644)
	case "none":
		os.Remove(bin)
	}
	return dir
}

// sslObjects opens the copy and lists the objects of the kinds the test
// edits: catalogs, documents, enums and common modules, with their
// attributes.
func sslObjects(t *testing.T, dir string) (*harness, []string) {
	b := New(nil)
	grants := editGrants(8)
	off := false
	info, err := b.Open(gen.OpenParams{Start: ToPath(dir), Selection: gen.SelectionCurrent{}, DiskCache: &off}, grants)
	if err != nil {
		t.Fatalf("open: %s", errText(err))
	}
	h := &harness{t: t, b: b, root: dir, sid: info.SessionID, pid: info.Projects[0].ProjectID}
	var ids []string
	p := b.s.projects[0]
	for _, o := range p.root.children {
		switch o.kind() {
		case "catalog", "document", "enum", "common-module":
		default:
			continue
		}
		ids = append(ids, o.id)
		if p.load(o) != nil {
			continue
		}
		for _, c := range o.children {
			if c.kind() == "attribute" || c.kind() == "enum-value" {
				ids = append(ids, c.id)
			}
		}
	}
	return h, ids
}

// another picks a value for a field other than its present one, as a
// change; "" when the field offers none.
func (h *harness) another(id string, f gen.EditableField) string {
	raw, _ := gen.MarshalEditSchema(f.Schema)
	var s struct {
		Kind   string
		Min    *int64
		Max    *int64
		Domain string
		Values []struct{ Value string }
		Types  []struct{ Key string }
	}
	json.Unmarshal(raw, &s)
	var cur any
	json.Unmarshal(f.Value, &cur)
	switch s.Kind {
	case "text":
		v, _ := cur.(string)
		if s.Domain == "choiceParameterName" {
			return `{"kind":"text","value":` + quote(v+"Изм") + `}`
		}
		return `{"kind":"text","value":` + quote(v+" (изм. eska)") + `}`
	case "boolean":
		b, _ := cur.(bool)
		return `{"kind":"boolean","value":` + strconv.FormatBool(!b) + `}`
	case "enum":
		for _, v := range s.Values {
			if v.Value != cur {
				return `{"kind":"enum","value":` + quote(v.Value) + `}`
			}
		}
	case "integer":
		n, _ := cur.(float64)
		for _, d := range []float64{1, -1} {
			if (s.Max == nil || n+d <= float64(*s.Max)) && (s.Min == nil || n+d >= float64(*s.Min)) {
				return `{"kind":"integer","value":` + strconv.Itoa(int(n+d)) + `}`
			}
		}
	case "reference":
		r, err := h.b.PropertyReferenceChoices(gen.PropertyPathParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: gen.ObjectID(id), Path: f.Path})
		if err != nil {
			h.t.Fatalf("reference choices %s %s: %s", id, f.Path, errText(err))
		}
		for _, c := range r.Choices {
			if c.Value != cur {
				return `{"kind":"reference","value":` + quote(c.Value) + `}`
			}
		}
	case "value":
		for _, typ := range s.Types {
			r, err := h.b.PropertyValueChoices(gen.ValueChoicesParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: gen.ObjectID(id), Path: f.Path, Key: typ.Key})
			if err != nil {
				h.t.Fatalf("value choices %s %s: %s", id, f.Path, errText(err))
			}
			m, _ := cur.(map[string]any)
			for _, c := range r.Choices {
				if m == nil || c.Value != m["value"] {
					return `{"kind":"value","type":` + quote(typ.Key) + `,"value":` + quote(c.Value) + `}`
				}
			}
			switch typ.Key {
			case "xs:string":
				return `{"kind":"value","type":"xs:string","value":"x"}`
			case "xs:decimal":
				return `{"kind":"value","type":"xs:decimal","value":"1"}`
			case "xs:dateTime":
				return `{"kind":"value","type":"xs:dateTime","value":"2001-02-03T04:05:06"}`
			}
		}
	}
	return ""
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// fieldKind names a field by the row kind that made it: its schema kind,
// and text split into plain, localized and choice parameter names, enum
// into enum, type and form.
func fieldKind(f gen.EditableField) string {
	raw, _ := gen.MarshalEditSchema(f.Schema)
	var s struct{ Kind, Domain string }
	json.Unmarshal(raw, &s)
	switch {
	case s.Kind == "text" && s.Domain != "":
		return "choiceParameterName"
	case s.Kind == "text" && strings.Contains(f.Path, "[lang="):
		return "localized"
	case s.Kind == "enum" && f.Path == "Type":
		return "type"
	case s.Kind == "enum" && strings.HasPrefix(f.Path, "Default") && strings.HasSuffix(f.Path, "Form"):
		return "form"
	}
	return s.Kind
}

// On SSL 3.1 with support data that allows editing: every catalog,
// document, enum and common module and their attributes answer
// propertyEditing; for each kind of field one field goes through preview,
// update (the properties show the new value), undo (the whole tree is
// byte-identical to the original) and redo (the update's bytes again).
// The same without a support file. SSL as exported refuses every edit
// with the support reason.
//
//contract:proves eska-ide-api.editing.profile eska-ide-api.editing.exact-write eska-ide-api.editing.history eska-ide-api.editing.support-gate eska-ide-api.editing.preview
func TestEditCorpus(t *testing.T) {
	for _, mode := range []string{"editable", "none"} {
		t.Run(mode, func(t *testing.T) {
			dir := sslCopy(t, mode)
			src := filepath.Join(dir, "src", "cf")
			orig := treeSum(t, src)
			h, ids := sslObjects(t, dir)
			kinds := map[string]int{}
			var fields int
			done := map[string]string{}
			for _, id := range ids {
				r, err := h.b.PropertyEditing(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: gen.ObjectID(id)})
				if err != nil {
					t.Fatalf("propertyEditing %s: %s", id, errText(err))
				}
				kinds[r.Profile]++
				fields += len(r.Fields)
				if !r.Writable {
					t.Errorf("%s is not writable with support that allows editing", id)
				}
				for _, f := range r.Fields {
					k := fieldKind(f)
					if done[k] != "" {
						continue
					}
					change := h.another(id, f)
					if change == "" {
						continue
					}
					if h.cycle(src, orig, id, f.Path, change) {
						done[k] = id + " " + f.Path + " " + change
					}
				}
			}
			// The whole tree read again, no file's hash kept.
			fileSums = map[string]fileSum{}
			if got := treeSum(t, src); got != orig {
				t.Errorf("the tree differs from the original after every undo")
			}
			for _, k := range []string{"text", "localized", "boolean", "enum", "integer", "type", "form", "choiceParameterName", "reference", "value"} {
				if done[k] == "" {
					t.Errorf("no field of kind %s was edited", k)
				} else {
					t.Logf("%-20s %s", k, done[k])
				}
			}
			t.Logf("%d objects by profile %v, %d fields, tree %s unchanged after the undos", len(ids), kinds, fields, orig[:12])
		})
	}
	t.Run("locked", func(t *testing.T) {
		dir := sslCopy(t, "locked")
		src := filepath.Join(dir, "src", "cf")
		orig := treeSum(t, src)
		h, ids := sslObjects(t, dir)
		refused := 0
		for _, id := range ids {
			r, err := h.b.PropertyEditing(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: gen.ObjectID(id)})
			if err != nil {
				t.Fatalf("propertyEditing %s: %s", id, errText(err))
			}
			if r.Writable || len(r.Fields) == 0 {
				t.Errorf("%s: writable %v, %d fields", id, r.Writable, len(r.Fields))
				continue
			}
			f := r.Fields[0]
			change := h.another(id, f)
			_, err = h.b.UpdateProperty(gen.PropertyEditParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: gen.ObjectID(id),
				Snapshot: r.Snapshot, Path: f.Path, Change: change2(t, change)})
			if kindOf(err) != "property_read_only" || !strings.Contains(detailsOf(err), `"reason":"support"`) || !strings.Contains(detailsOf(err), `"supportReason":"changes_disabled"`) {
				t.Errorf("%s %s: %s", id, f.Path, errText(err))
				continue
			}
			refused++
		}
		if treeSum(t, src) != orig {
			t.Errorf("the locked tree changed")
		}
		t.Logf("%d of %d objects refused an edit with the support reason; tree unchanged", refused, len(ids))
	})
}

func change2(t *testing.T, js string) gen.PropertyChange { return change(t, js) }

// cycle runs one field through preview, update, undo and redo, checking
// the bytes at each step; false when the change is refused as invalid
// (then the next field of that kind is tried).
func (h *harness) cycle(src, orig, id, path, js string) bool {
	t := h.t
	ed, err := h.b.PropertyEditing(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: gen.ObjectID(id)})
	if err != nil {
		t.Fatal(errText(err))
	}
	p := gen.PropertyEditParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: gen.ObjectID(id), Snapshot: ed.Snapshot, Path: path, Change: change(t, js)}
	pr, err := h.b.PreviewProperty(p)
	if re, ok := err.(*gen.RPCError); ok && re.Code == gen.CodeInvalidParams {
		return false
	}
	if err != nil || !pr.Valid || !pr.Changed {
		t.Fatalf("preview %s %s %s: %+v %s", id, path, js, pr, errText(err))
	}
	descPath := filepath.Join(src, filepath.FromSlash(ed.Source.Value))
	before, _ := os.ReadFile(descPath)
	r, err := h.b.UpdateProperty(p)
	if err != nil {
		t.Fatalf("update %s %s %s: %s", id, path, js, errText(err))
	}
	h.gen = r.Generation
	written, _ := os.ReadFile(descPath)
	// The update wrote exactly the previewed replacements.
	want := append([]byte(nil), before...)
	for i := len(pr.Changes) - 1; i >= 0; i-- {
		c := pr.Changes[i]
		want = append(append(append([]byte(nil), want[:c.Range.Start]...), c.Text...), want[c.Range.End:]...)
	}
	if !bytes.Equal(written, want) {
		t.Fatalf("%s %s: the file is not the previewed bytes", id, path)
	}
	if !sameValue(json.RawMessage(fieldValue(r.Editing, path)), []byte(js), schemaOfChange(js)) {
		t.Fatalf("%s %s: after the update the field is %s, the change %s", id, path, fieldValue(r.Editing, path), js)
	}
	if len(r.Properties) == 0 {
		t.Fatalf("%s: no properties after the update", id)
	}
	if _, err := h.undo(id, false); err != nil {
		t.Fatalf("undo %s: %s", id, errText(err))
	}
	if treeSum(t, src) != orig {
		t.Fatalf("%s %s: after the undo the tree differs from the original", id, path)
	}
	if _, err := h.undo(id, true); err != nil {
		t.Fatalf("redo %s: %s", id, errText(err))
	}
	if again, _ := os.ReadFile(descPath); !bytes.Equal(again, written) {
		t.Fatalf("%s %s: the redo did not give the update's bytes", id, path)
	}
	if _, err := h.undo(id, false); err != nil || treeSum(t, src) != orig {
		t.Fatalf("%s: the last undo: %s", id, errText(err))
	}
	return true
}

func schemaOfChange(js string) string {
	if strings.Contains(js, `"kind":"value"`) {
		return "value"
	}
	return ""
}
