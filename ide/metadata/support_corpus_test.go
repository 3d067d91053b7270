//go:build corpus

package metadata

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/designer"
	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/repotest"
)

// binCount counts the rules of a ParentConfigurations.bin per effective
// mode by itself: the text split at commas, a rule being a mode, a zero
// and a uuid in a row, every rule locked when the header's second item
// says changes are off.
func binCount(t *testing.T, path string) (map[string]int, map[string]bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	items := strings.Split(strings.Trim(strings.TrimPrefix(string(data), "\ufeff"), "{}"), ",")
	names := map[string]string{"0": "not_editable", "1": "editable_with_support", "2": "removed_from_support"}
	out, uuids := map[string]int{}, map[string]bool{}
	for i := 0; i+2 < len(items); i++ {
		if names[items[i]] != "" && items[i+1] == "0" && designer.IsUUID(items[i+2]) {
			mode := names[items[i]]
			if items[1] == "1" {
				mode = "not_editable"
			}
			out[mode]++
			uuids[strings.ToLower(items[i+2])] = true
			i += 2
		}
	}
	return out, uuids
}

// The support data of the shared corpora: on SSL 3.1 the objects whose
// own rule decides their mode, counted per mode, equal the rules of its
// ParentConfigurations.bin counted independently; every object has a mode
// or is unknown with a reason; a page walk returns every object once;
// supportFiles answers 128 mixed paths in order. Projects without a
// support file have nothing under vendor support and no error.
//
//contract:proves eska-ide-api.support.rules-file eska-ide-api.support.paging eska-ide-api.support.files eska-ide-api.support.nested
func TestSupportCorpus(t *testing.T) {
	shared := filepath.Join(repotest.Root(t), "..", "shared", "corpus", "designer")
	tmp := t.TempDir()
	for _, a := range []string{"ssl_3_1", "mdclasses", "bsl-language-server"} {
		extract(t, filepath.Join(shared, a+".tar.gz"), tmp)
	}
	projects := []corpusProject{
		{Name: "ssl_3_1", Type: "configuration", Source: "src/cf", Descriptor: ""},
		{Name: "mdclasses/mdclasses", Type: "configuration", Source: "src/cf", Descriptor: ""},
		{Name: "mdclasses/mdclasses_3_27", Type: "configuration", Source: "src/cf", Descriptor: ""},
		{Name: "mdclasses/mdclasses_ext", Type: "extension", Source: "src/cf", Descriptor: ""},
		{Name: "mdclasses/external/src/epf", Type: "processing", Source: ".", Descriptor: "ТестоваяВнешняяОбработка.xml"},
	}
	entries, _ := os.ReadDir(filepath.Join(tmp, "bsl-language-server"))
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(tmp, "bsl-language-server", e.Name(), "Configuration.xml")); err == nil {
			projects = append(projects, corpusProject{Name: "bsl-language-server/" + e.Name(), Type: "configuration", Source: "."})
		}
	}
	for _, cp := range projects {
		t.Run(cp.Name, func(t *testing.T) {
			proj := filepath.Join(tmp, cp.Name)
			m := fmt.Sprintf("[project]\ntype = %q\nsource = %q\n", cp.Type, cp.Source)
			if cp.Descriptor != "" {
				m += fmt.Sprintf("descriptor = %q\n", cp.Descriptor)
			}
			os.WriteFile(filepath.Join(proj, "eska.toml"), []byte(m), 0o644)
			b := New(nil)
			grants := clientGrants(2, false)
			noCache := false
			info, err := b.Open(gen.OpenParams{Start: ToPath(proj), Selection: gen.SelectionCurrent{}, DiskCache: &noCache}, grants)
			if err != nil {
				t.Fatalf("open: %s", errText(err))
			}
			h := &harness{t: t, b: b, sid: info.SessionID, pid: info.Projects[0].ProjectID}
			objs, files, last := h.supportAll(gen.MaxSupportLimit)
			seen := map[gen.ObjectID]bool{}
			perMode, own, unknown := map[string]int{}, map[string]int{}, map[string]int{}
			for _, o := range objs {
				if seen[o.ObjectID] {
					t.Errorf("%s twice in the page walk", o.ObjectID)
				}
				seen[o.ObjectID] = true
				switch {
				case o.Unknown && o.Reason != nil && o.Mode == nil:
					unknown[string(*o.Reason)]++
				case !o.Unknown && o.Mode != nil:
					perMode[string(*o.Mode)]++
					if o.Supplier != nil && o.InheritedFrom == nil {
						own[string(*o.Mode)]++
					}
				default:
					t.Errorf("%s has neither a mode nor an unknown reason: %+v", o.ObjectID, o)
				}
			}
			binPath := filepath.Join(proj, cp.Source, filepath.FromSlash(designer.SupportFile))
			if _, err := os.Stat(binPath); err != nil {
				if len(perMode) != 1 || perMode["not_supported"] != len(objs) || len(files) != 0 || len(last.Diagnostics) != 0 || len(last.Suppliers) != 0 {
					t.Errorf("without a support file: modes %v, unknown %v, %d files, diagnostics %v", perMode, unknown, len(files), last.Diagnostics)
				}
				t.Logf("%d objects, none under vendor support", len(objs))
				return
			}
			want, ruleUUIDs := binCount(t, binPath)
			if !equalCounts(own, want) {
				t.Errorf("objects with a rule of their own, per mode: %v; the file's rules: %v", own, want)
			}
			if len(unknown) != 0 {
				t.Errorf("unknown: %v", unknown)
			}
			// Each rule's uuid names exactly one object of the tree.
			uuidOf := map[string]int{}
			for _, e := range b.s.projects[0].sup.inv.entries {
				if e.uuid != "" && !e.predef && ruleUUIDs[e.uuid] {
					uuidOf[e.uuid]++
				}
			}
			if len(uuidOf) != len(ruleUUIDs) {
				t.Errorf("%d of %d rule uuids name an object", len(uuidOf), len(ruleUUIDs))
			}
			t.Logf("%d objects; modes %v; with a rule of their own %v; the file's rules %v; %d files of read-only objects; suppliers %+v",
				len(objs), perMode, own, want, len(files), last.Suppliers)
			// supportFiles: 128 paths mixing descriptors, modules, forms,
			// predefined data, nested descriptors, unknown places.
			paths := mixedPaths(t, filepath.Join(proj, cp.Source), gen.MaxSupportFilePaths)
			r, err := h.supportFiles(paths...)
			if err != nil {
				t.Fatal(errText(err))
			}
			if len(r.Files) != len(paths) {
				t.Fatalf("%d files for %d paths", len(r.Files), len(paths))
			}
			reasons := map[string]int{}
			for i, f := range r.Files {
				if f.Path.Value != filepath.ToSlash(paths[i]) {
					t.Errorf("file %d is %s, asked %s", i, f.Path.Value, paths[i])
				}
				if f.Reason != nil {
					reasons[string(*f.Reason)]++
					if *f.Reason != gen.SupportReasonChangesDisabled {
						t.Logf("%s: %s", f.Path.Value, *f.Reason)
					}
				}
				if !f.ReadOnly {
					t.Errorf("%s is not read-only on SSL as exported", f.Path.Value)
				}
			}
			t.Logf("supportFiles: %d paths, %d owners, reasons %v", len(r.Files), len(r.Objects), reasons)
		})
	}
}
