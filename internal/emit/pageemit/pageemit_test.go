package pageemit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractkit/contractkit/internal/repotest"
	"github.com/contractkit/contractkit/internal/spec"
)

func load(t *testing.T, fsys fstest.MapFS) *spec.Set {
	t.Helper()
	set, diags := spec.Load(fsys)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return set
}

// The catalog of the AG-UI page: what the page and its checker read.
//
//contract:proves ag-ui.view.page-checker
func TestCatalog(t *testing.T) {
	fsys := repotest.MapFS(t)
	d := load(t, fsys).Domain("ag-ui")
	files, err := Emit(d, fsys)
	if err != nil || len(files) != 1 {
		t.Fatalf("%v %v", err, files)
	}
	if files[0].Path != SiteDir+"/данные/каталог-страниц-4.47.5.json" {
		t.Errorf("path %s", files[0].Path)
	}
	var c Catalog
	if err := json.Unmarshal(files[0].Data, &c); err != nil {
		t.Fatal(err)
	}
	tut, _ := os.ReadFile(repotest.Root(t) + "/" + TutorialPath)
	sum := sha256.Sum256(tut)
	if c.Digest != d.Digest || c.Page != "/интерфейс-агента.html" || c.Revision != "4.47.5" || c.DefaultProfile != "stand" ||
		c.Tutorial.Record != string(tut) || c.Tutorial.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("catalog head: %+v", c)
	}
	if len(c.Profiles) != len(d.Profiles) {
		t.Fatalf("%d profiles", len(c.Profiles))
	}
	for _, p := range c.Profiles {
		digest := p.Digest
		p.Digest = ""
		canon, _ := canonical(p)
		s := sha256.Sum256(canon)
		if digest != "sha256:"+hex.EncodeToString(s[:]) || len(p.Events) == 0 || len(p.Limits) == 0 || len(p.Rules) == 0 {
			t.Errorf("profile %s: digest %s, %d events, %d limits", p.Name, digest, len(p.Events), len(p.Limits))
		}
		if p.Name == "stand" && (len(p.Events) != 14 || !strings.Contains(string(canon), `"LimitInputBytes"`)) {
			t.Errorf("the stand lists %d events", len(p.Events))
		}
	}
	for _, r := range c.Rules {
		if r.Symbol != spec.RuleGoName("ag-ui", r.ID) || r.Title.EN == "" || r.Title.RU == "" || r.Requirement.RU == "" {
			t.Errorf("rule %+v", r)
		}
	}
	// Domains without a page have no catalog.
	if files, err := Emit(load(t, fsys).Domain("ai-control-protocol"), fsys); err != nil || files != nil {
		t.Errorf("AiControl: %v %v", err, files)
	}
}

func TestCatalogProblems(t *testing.T) {
	base := repotest.MapFS(t)
	edit := func(old, new string) fstest.MapFS {
		fsys := fstest.MapFS{}
		for k, v := range base {
			fsys[k] = v
		}
		data := string(base["spec/ag-ui-profile.json"].Data)
		if !strings.Contains(data, old) {
			t.Fatalf("the spec lacks %q", old)
		}
		fsys["spec/ag-ui-profile.json"] = &fstest.MapFile{Data: []byte(strings.Replace(data, old, new, 1))}
		return fsys
	}
	for name, fsys := range map[string]fstest.MapFS{
		"catalog without the revision": edit(`"/данные/каталог-страниц-4.47.5.json"`, `"/данные/каталог.json"`),
		"relative page path":           edit(`"/интерфейс-агента.html"`, `"интерфейс-агента.html"`),
		"no revision":                  edit(`"revision": "4.47.5",`, ``),
	} {
		if _, err := Emit(load(t, fsys).Domain("ag-ui"), fsys); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	noTutorial := fstest.MapFS{}
	for k, v := range base {
		if k != TutorialPath {
			noTutorial[k] = v
		}
	}
	if _, err := Emit(load(t, noTutorial).Domain("ag-ui"), noTutorial); err == nil || !strings.Contains(err.Error(), "tutorial") {
		t.Errorf("no tutorial: %v", err)
	}
}
