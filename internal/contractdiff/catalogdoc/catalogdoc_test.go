package catalogdoc

import (
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/docscheck"
	"github.com/contractkit/contractkit/internal/emit/docemit"
	"github.com/contractkit/contractkit/templates"
)

// The pages parse cleanly, the Russian pages have the structure of the
// English ones, and every rule has its anchored section with all its parts.
func TestEmit(t *testing.T) {
	files, err := Emit(templates.FS)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(Languages)*len(Pages) {
		t.Fatalf("%d files", len(files))
	}
	pages := map[string]*docscheck.Page{}
	data := map[string]string{}
	for _, f := range files {
		p, problems := docscheck.Parse(f.Path, f.Data)
		for _, pr := range problems {
			t.Error(pr)
		}
		pages[f.Path], data[f.Path] = p, string(f.Data)
	}
	for _, lang := range Languages {
		rules := pages[Dir(lang)+"/rules.md"]
		anchors := map[string]bool{}
		for _, a := range rules.Anchors {
			anchors[a.ID] = true
		}
		for _, r := range contractdiff.Rules() {
			if !anchors[r.ID] {
				t.Errorf("%s: no anchor for rule %s", lang, r.ID)
			}
			sentence := funcs(lang)["sentence"].(func(string) string)
			for what, txt := range map[string]string{
				"title":   "**" + sentence(docemit.Escape(r.Title.Get(lang))) + ".** " + docemit.Escape(r.Description.Get(lang)),
				"trigger": docemit.Escape(r.Trigger.Get(lang)), "resolution": docemit.Escape(r.Resolution.Get(lang)),
				"example": docemit.Escape(r.Example.Context.Get(lang)),
			} {
				if !strings.Contains(data[Dir(lang)+"/rules.md"], txt) {
					t.Errorf("%s: the %s of %s is not on the page", lang, what, r.ID)
				}
			}
			for _, frag := range []string{r.Example.Before, r.Example.After} {
				if frag != "" && !strings.Contains(data[Dir(lang)+"/rules.md"], "```json\n"+frag+"\n```") {
					t.Errorf("%s: the example of %s is not on the page", lang, r.ID)
				}
			}
			if !strings.Contains(data[Dir(lang)+"/index.md"], "(rules.md#"+r.ID+")") {
				t.Errorf("%s: the overview does not link rule %s", lang, r.ID)
			}
		}
	}
	for _, page := range Pages {
		for _, pr := range docscheck.ComparePair(pages[Dir("ru")+"/"+page], pages[Dir("en")+"/"+page]) {
			t.Error(pr)
		}
	}
}
