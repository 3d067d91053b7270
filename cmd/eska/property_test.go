package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
)

const catalogHead = "\ufeff<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n" +
	`<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses" xmlns:v8="http://v8.1c.ru/8.1/data/core" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="2.17">` + "\r\n"

// catalogXML is a catalog descriptor laid out as the Designer writes one.
func catalogXML(name string, uuid int) string {
	return catalogHead + fmt.Sprintf("\t<Catalog uuid=\"00000000-0000-0000-0000-%012d\">\r\n\t\t<Properties>\r\n\t\t\t<Name>%s</Name>\r\n"+
		"\t\t\t<Synonym>\r\n\t\t\t\t<v8:item>\r\n\t\t\t\t\t<v8:lang>ru</v8:lang>\r\n\t\t\t\t\t<v8:content>%s</v8:content>\r\n\t\t\t\t</v8:item>\r\n\t\t\t</Synonym>\r\n"+
		"\t\t\t<Comment/>\r\n\t\t\t<CodeLength>9</CodeLength>\r\n\t\t</Properties>\r\n\t</Catalog>\r\n</MetaDataObject>\r\n", uuid, name, name)
}

// editableProject writes a configuration of n catalogs under a vendor's
// support whose rules allow editing (mode 1, changes allowed), and
// returns its directory.
func editableProject(t *testing.T, n int, locked bool) string {
	t.Helper()
	dir := t.TempDir()
	var children, rules strings.Builder
	for i := 1; i <= n; i++ {
		children.WriteString(fmt.Sprintf("<Catalog>К%d</Catalog>", i))
		rules.WriteString(fmt.Sprintf(",1,0,00000000-0000-0000-0000-%012d,00000000-0000-0000-0000-%012d", i+1, i+1))
	}
	changes := 0
	if locked {
		changes = 1
	}
	files := map[string]string{
		"eska.toml":             "[project]\ntype = \"configuration\"\nsource = \"src\"\n",
		"src/Configuration.xml": catalogHead + "<Configuration uuid=\"00000000-0000-0000-0000-000000000001\"><Properties><Name>К</Name></Properties><ChildObjects>" + children.String() + "</ChildObjects></Configuration>\r\n</MetaDataObject>\r\n",
		"src/Ext/ParentConfigurations.bin": fmt.Sprintf("\ufeff{6,%d,1,00000000-0000-0000-0000-0000000000aa,%d,00000000-0000-0000-0000-0000000000bb,\"1.0\",\"Фирма\",\"Библиотека\",%d%s,0,0,1}",
			changes, changes, n, rules.String()),
	}
	for i := 1; i <= n; i++ {
		files[fmt.Sprintf("src/Catalogs/К%d.xml", i)] = catalogXML(fmt.Sprintf("К%d", i), i+1)
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// eskaRun runs the binary and returns stdout and the exit code.
func eskaRun(t *testing.T, bin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), code
}

// eska property: the same JSON as the API, the same checks, exact undo
// and redo across runs through the history under .eska, refusals as the
// API's error JSON with exit code 1.
//
//contract:proves eska-ide-api.editing.cli eska-ide-api.editing.history
//contract:proves eska-ide-api.error-kind.property-read-only eska-ide-api.error.invalid-params
func TestPropertyCommand(t *testing.T) {
	bin := build(t)
	dir := editableProject(t, 2, false)
	path := filepath.Join(dir, "src", "Catalogs", "К1.xml")
	orig := fileSum(t, path)
	out, code := eskaRun(t, bin, "property", "show", "--json", dir, "catalog:К1")
	ed, err := gen.DecodeEditingResult([]byte(strings.TrimSpace(out)))
	if code != 0 || err != nil || ed.Snapshot != orig || !ed.Writable || ed.Profile != "catalog" {
		t.Fatalf("show: %d %v %s", code, err, out)
	}
	change := `{"kind":"text","value":"Каталог & <товары>"}`
	out, code = eskaRun(t, bin, "property", "preview", "--json", dir, "catalog:К1", "Synonym[lang=ru]", change)
	pr, err := gen.DecodePreviewResult([]byte(strings.TrimSpace(out)))
	if code != 0 || err != nil || !pr.Valid || !pr.Changed || len(pr.Changes) != 1 || pr.Changes[0].Text != "Каталог &amp; &lt;товары&gt;" || fileSum(t, path) != orig {
		t.Fatalf("preview: %d %v %s", code, err, out)
	}
	out, code = eskaRun(t, bin, "property", "set", "--json", "-snapshot", orig, dir, "catalog:К1", "Synonym[lang=ru]", change)
	wr, err := gen.DecodePropertyWriteResult([]byte(strings.TrimSpace(out)))
	if code != 0 || err != nil || wr.Editing.Snapshot == orig || fileSum(t, path) != wr.Editing.Snapshot || !wr.Editing.Undo {
		t.Fatalf("set: %d %v %s", code, err, out)
	}
	written := wr.Editing.Snapshot
	// The snapshot of the change is checked: the old one is refused.
	out, code = eskaRun(t, bin, "property", "set", "--json", "-snapshot", orig, dir, "catalog:К1", "Comment", `{"kind":"text","value":"x"}`)
	if code != 1 || !strings.Contains(out, `"kind":"source_changed"`) {
		t.Errorf("old snapshot: %d %s", code, out)
	}
	// Undo and redo in later runs restore exact bytes.
	if out, code = eskaRun(t, bin, "property", "undo", "--json", dir, "catalog:К1"); code != 0 || fileSum(t, path) != orig {
		t.Fatalf("undo: %d %s", code, out)
	}
	if out, code = eskaRun(t, bin, "property", "undo", "--json", "-redo", dir, "catalog:К1"); code != 0 || fileSum(t, path) != written {
		t.Fatalf("redo: %d %s", code, out)
	}
	// Values the field refuses, with the path.
	out, code = eskaRun(t, bin, "property", "set", "--json", dir, "catalog:К1", "CodeLength", `{"kind":"integer","value":51}`)
	if code != 1 || !strings.Contains(out, `"code":-32602`) || !strings.Contains(out, "CodeLength") {
		t.Errorf("out of bounds: %d %s", code, out)
	}
	// Choices of a field that takes none of them.
	out, code = eskaRun(t, bin, "property", "choices", "--json", dir, "catalog:К1", "CodeLength")
	if code != 1 || !strings.Contains(out, `"reason":"not_editable"`) {
		t.Errorf("choices of an integer: %d %s", code, out)
	}
	// A change that is not JSON is a usage error.
	if _, code = eskaRun(t, bin, "property", "set", dir, "catalog:К1", "Comment", `{"kind":`); code != 2 {
		t.Errorf("bad change: exit %d", code)
	}
	// The project as the vendor ships it: every edit refused for support.
	locked := editableProject(t, 1, true)
	out, code = eskaRun(t, bin, "property", "set", "--json", locked, "catalog:К1", "Comment", `{"kind":"text","value":"x"}`)
	var e struct {
		Error struct {
			Code int64
			Data struct {
				Kind    string
				Details map[string]string
			}
		}
	}
	json.Unmarshal([]byte(out), &e)
	if code != 1 || e.Error.Data.Kind != "property_read_only" || e.Error.Data.Details["reason"] != "support" || e.Error.Data.Details["supportReason"] != "changes_disabled" {
		t.Errorf("locked: %d %s", code, out)
	}
}
