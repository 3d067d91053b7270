//go:build corpus

package metadata

// The shared Designer corpora, run by `make corpus-test`: every project
// opens, expands completely and indexes without a crash; the objects
// served under each root section match an independent count of the
// declarations in the root descriptor; the sources are byte-identical
// afterwards.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/designer"
	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/corpus"
	"github.com/contractkit/contractkit/internal/repotest"
)

// extract unpacks a corpus archive into dir.
func extract(t *testing.T, archive, dir string) {
	t.Helper()
	if err := corpus.Extract(archive, dir); err != nil {
		t.Fatalf("corpus archive: %v (../shared must be beside the repository)", err)
	}
}

// declared counts the ChildObjects entries of a root descriptor per tag
// with a regular expression, independently of the reader under test.
func declared(t *testing.T, path string) map[string]int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	start, end := strings.Index(s, "<ChildObjects>"), strings.LastIndex(s, "</ChildObjects>")
	if start < 0 || end < 0 {
		return map[string]int{}
	}
	out := map[string]int{}
	for _, m := range regexp.MustCompile(`<([A-Za-z]+)>[^<]+</[A-Za-z]+>`).FindAllStringSubmatch(s[start:end], -1) {
		out[m[1]]++
	}
	return out
}

type corpusProject = corpus.DesignerProject

func TestDesignerCorpus(t *testing.T) {
	shared := filepath.Join(repotest.Root(t), "..", "shared", "corpus", "designer")
	tmp := t.TempDir()
	for _, a := range corpus.DesignerArchives {
		extract(t, filepath.Join(shared, a+".tar.gz"), tmp)
	}
	projects := corpus.DesignerProjects(tmp)
	for _, cp := range projects {
		t.Run(fmt.Sprintf("%s/%s", cp.Name, cp.Type), func(t *testing.T) {
			// The manifest goes into the extracted copy; from then on
			// nothing under the project may change, the manifest included.
			proj := filepath.Join(tmp, cp.Name)
			dir := proj
			os.WriteFile(filepath.Join(proj, "eska.toml"), []byte(cp.Manifest()), 0o644)
			before := snapshot(t, dir)
			plain := runCorpusProject(t, proj, filepath.Join(dir, cp.Source), cp, false)
			if after := snapshot(t, dir); !sameSnapshot(before, after) {
				t.Errorf("diskCache=false: the corpus changed on disk")
			}
			// With the cache: only .eska/cache/metadata may change, and a
			// second session answers the same from it.
			filled := runCorpusProject(t, proj, filepath.Join(dir, cp.Source), cp, true)
			cached := runCorpusProject(t, proj, filepath.Join(dir, cp.Source), cp, true)
			after := snapshot(t, dir)
			for k, v := range after {
				if !strings.HasPrefix(k, ".eska"+string(filepath.Separator)) && k != ".eska/" && before[k] != v {
					t.Errorf("diskCache=true: %s changed outside the cache", k)
				}
			}
			for k := range before {
				if _, ok := after[k]; !ok {
					t.Errorf("diskCache=true: %s disappeared", k)
				}
			}
			if plain != filled || plain != cached {
				t.Errorf("answers differ with the cache:\n%s\n%s\n%s", plain, filled, cached)
			}
		})
	}
}

// runCorpusProject opens, walks and indexes a project and returns a
// summary of what it served.
func runCorpusProject(t *testing.T, proj, src string, cp corpusProject, cache bool) string {
	b := New(nil)
	grants := clientGrants(5, false, gen.CapabilitySupportPolicy)
	info, err := b.Open(gen.OpenParams{Start: ToPath(proj), Selection: gen.SelectionCurrent{}, DiskCache: &cache}, grants)
	if err != nil {
		t.Fatalf("open: %s", errText(err))
	}
	sid, pid := info.SessionID, info.Projects[0].ProjectID
	kinds := map[string]int{}
	nodes, failures, diags, pictures, presented := 0, 0, map[string]int{}, map[string]int{}, map[string]int{}
	rootSectionObjects := map[string]int{}
	properties, captioned, uncaptioned := 0, 0, map[string]int{}
	var walk func(id gen.NodeID, section string)
	walk = func(id gen.NodeID, section string) {
		r, err := b.Children(gen.ChildrenParams{SessionID: sid, ProjectID: pid, Node: id, HideEmptyRootSections: new(bool)})
		if err != nil {
			failures++
			t.Logf("cannot expand %s: %s", nodeKey(id), errText(err))
			return
		}
		for _, n := range r.Nodes {
			nodes++
			for _, d := range n.Diagnostics {
				diags[string(d.Code)]++
				t.Logf("diagnostic on %s: %s %s", nodeKey(n.ID), d.Code, d.Details)
			}
			sec := section
			if n.RootSection {
				sec = nodeKey(n.ID)
			}
			if on, ok := n.ID.(gen.ObjectNodeID); ok {
				kind := "(unsupported)"
				if k, ok := n.MetadataKind.Get(); ok {
					kind = string(k)
				}
				kinds[kind]++
				if parent, ok := n.Parent.(gen.CollectionNodeID); ok && string(parent.Owner) == string(info.Projects[0].Root.(gen.ObjectNodeID).ObjectID) {
					rootSectionObjects[kind]++
				}
				pr, err := b.Properties(gen.ObjectParams{SessionID: sid, ProjectID: pid, ObjectID: on.ObjectID})
				if err != nil {
					t.Logf("properties of %s: %s", on.ObjectID, errText(err))
				} else {
					if pr.Picture != nil {
						raw, _ := gen.MarshalPicturePreview(pr.Picture)
						pictures[statusRE.FindStringSubmatch(string(raw))[1]]++
					}
					for _, p := range pr.Properties {
						countPresentation(presented, p.Presentation)
						properties++
						if p.Caption != nil {
							captioned++
						} else {
							uncaptioned[p.Key.Name]++
						}
					}
				}
			}
			walk(n.ID, sec)
		}
	}
	walk(info.Projects[0].Root, "")
	if cp.Type == "configuration" || cp.Type == "extension" {
		want := map[string]int{}
		for tag, n := range declared(t, filepath.Join(src, "Configuration.xml")) {
			info, ok := designer.KindOfTag(tag)
			if !ok {
				want["(unsupported)"] += n
				continue
			}
			want[string(info.Kind)] += n
		}
		if !equalCounts(want, rootSectionObjects) {
			t.Errorf("objects under the root sections\n served  %v\ndeclared %v", rootSectionObjects, want)
		}
	}
	if _, err := b.Index(gen.IndexParams{SessionID: sid, ProjectID: pid, Action: gen.IndexActionStart}); err != nil {
		t.Fatal(errText(err))
	}
	for b.Background() {
	}
	st, _ := b.Index(gen.IndexParams{SessionID: sid, ProjectID: pid, Action: gen.IndexActionStatus})
	errs, _ := b.IndexErrors(gen.IndexErrorsParams{SessionID: sid, ProjectID: pid, Limit: ptr(int64(500))})
	for _, e := range errs.Errors {
		t.Logf("index error %s: %s %s", e.ObjectID, e.Code, e.Details)
	}
	var ks []string
	for k, n := range kinds {
		ks = append(ks, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(ks)
	summary := fmt.Sprintf("%d nodes, %d expansion failures, diagnostics %v, index %s: %d records, %d failed; pictures %v; top-level presentations %v; objects by kind: %s",
		nodes, failures, diags, st.Progress.State, st.Progress.IndexedObjects, st.Progress.FailedDescriptors, pictures, presented, strings.Join(ks, " "))
	// Every property key of the corpora has a caption in both languages.
	t.Logf("captions: %d of %d properties", captioned, properties)
	if len(uncaptioned) > 0 {
		t.Errorf("properties without a caption: %v", uncaptioned)
	}
	c := b.s.projects[0].r.Cache
	if c != nil {
		t.Logf("disk cache: %d hits, %d misses, %d writes, %d failures", c.Hits, c.Misses, c.Writes, c.Failures)
	} else {
		t.Log(summary)
	}
	return summary
}

func ptr[T any](v T) *T { return &v }

var statusRE = regexp.MustCompile(`"status":"([a-z_]+)"`)

// countPresentation counts a property's presentation by kind, and
// references by status.
func countPresentation(m map[string]int, p gen.Presentation) {
	switch v := p.(type) {
	case nil:
	case gen.EmptyPresentation:
		m["empty"]++
	case gen.ReferencePresentation:
		m["reference/"+string(v.Status)]++
	case gen.TypesPresentation:
		m["types"]++
		for _, it := range v.Items {
			if it.Status != nil {
				m["type-reference/"+string(*it.Status)]++
			}
		}
	}
}

func equalCounts(a, b map[string]int) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}
