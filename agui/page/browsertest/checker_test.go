package browsertest

import (
	"bytes"
	"path/filepath"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

var profiles = []string{contract.ProfileStand, contract.ProfileAgUI11}

// The page's JSON result equals `agui check --json` on the same bytes and
// profile, byte for byte: every conformance stream of AG-UI 1.1, the
// tutorial and the hostile records, under both profiles.
//
//contract:proves ag-ui.view.page-checker
func TestSameCheckerAsCLI(t *testing.T) {
	dir := t.TempDir()
	groups := map[string][]string{"hostile": hostileRecords(t, dir)}
	t.Run("conformance", func(t *testing.T) {
		groups["conformance"] = conformanceRecords(t, dir)
	})
	tb := openTab(t)
	for _, profile := range profiles {
		tb.selectProfile(profile)
		for _, group := range []string{"conformance", "hostile"} {
			paths := groups[group]
			if len(paths) == 0 {
				continue
			}
			tb.choose(paths...)
			got := tb.jsonViews()
			equal := 0
			for i, p := range paths {
				name := filepath.Base(p)
				want, code := cli(t, dir, "--json", "--profile", profile, name)
				c := got[i]
				if c.Source != name {
					t.Fatalf("%s: result %d is of %q", name, i, c.Source)
				}
				if code == 2 {
					// agui check prints nothing when a record cannot be checked.
					if c.Verdict != "unusable" || c.JSON != nil || len(want) != 0 {
						t.Errorf("%s %s: agui check could not check it, the page shows %q", profile, name, c.Verdict)
					}
					equal++
					continue
				}
				if c.JSON == nil || !bytes.Equal([]byte(*c.JSON), want) {
					t.Errorf("%s %s: the page's JSON differs from agui check --json (exit %d)\npage: %.400s\ncli:  %.400s", profile, name, code, deref(c.JSON), want)
					continue
				}
				if (code == 0) != (c.Verdict == "accepted") {
					t.Errorf("%s %s: agui check exits %d, the page says %s", profile, name, code, c.Verdict)
				}
				equal++
			}
			t.Logf("%s, %s: %d of %d records give the same JSON in the page and in agui check --json", profile, group, equal, len(paths))
		}
		// The tutorial, with no file, as agui check with no file.
		tb.do(clickTutorial())
		tb.waitCards(len(groups["hostile"]) + 1)
		cards := tb.jsonViews()
		last := cards[len(cards)-1]
		want, _ := cli(t, dir, "--json", "--profile", profile)
		if last.Kind != "tutorial" || last.JSON == nil || !bytes.Equal([]byte(*last.JSON), want) {
			t.Errorf("%s tutorial: the page's JSON differs from agui check --json\npage: %.400s\ncli:  %.400s", profile, deref(last.JSON), want)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "(no JSON)"
	}
	return *s
}
