package metadata

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// A descriptor that is there but cannot be used as a file (here a
// directory in its place) is source_invalid with the reason and the path,
// not source_missing and not an internal error.
//
//contract:proves eska-ide-api.error-kind.source-invalid
func TestSourceInvalid(t *testing.T) {
	h := openConfiguration(t)
	desc := filepath.Join(h.root, "src", "Catalogs", "Товары.xml")
	if err := os.Remove(desc); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(desc, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := h.b.Children(gen.ChildrenParams{SessionID: h.sid, ProjectID: h.pid, Node: obj("catalog:Товары")})
	if kindOf(err) != string(gen.DomainErrorKindSourceInvalid) || !strings.Contains(detailsOf(err), `"reason":"not_file"`) ||
		!strings.Contains(detailsOf(err), `Catalogs/Товары.xml`) {
		t.Errorf("descriptor replaced by a directory: %s", errText(err))
	}
}

// The server learns of changes only from workspace/didChangeFiles: a file
// rewritten on disk changes no answer, generation or notification until
// the client reports it.
//
//contract:proves eska-ide-api.file-events.watcher
func TestChangesOnlyByEvents(t *testing.T) {
	h := openConfiguration(t)
	before := keys(h.children(coll("catalog:Товары", "attribute")))
	if len(before) == 0 || reflect.DeepEqual(before, []string{"o:catalog:Товары/attribute:Новый"}) {
		t.Fatalf("fixture catalog attributes %v", before)
	}
	writeTree(t, h.root, map[string]string{"src/Catalogs/Товары.xml": desc("Catalog", "Товары", "", inline("Attribute", "Новый", "", ""))})
	// Reading other descriptors and the same node again does not notice.
	h.children(coll("configuration:Конф", "document"))
	if got := keys(h.children(coll("catalog:Товары", "attribute"))); !reflect.DeepEqual(got, before) {
		t.Errorf("without an event the catalog changed: %v, was %v", got, before)
	}
	if n := len(h.changedNotes()); n != 0 {
		t.Errorf("%d metadata/changed without an event", n)
	}
	if _, err := h.b.Root(h.ctx()); err != nil {
		t.Errorf("generation moved without an event: %s", errText(err))
	}
	if err := h.files("1", "Catalogs/Товары.xml"); err != nil {
		t.Fatal(err)
	}
	h.gen = 1
	if got := keys(h.children(coll("catalog:Товары", "attribute"))); !reflect.DeepEqual(got, []string{"o:catalog:Товары/attribute:Новый"}) {
		t.Errorf("after the event the catalog has %v", got)
	}
}
