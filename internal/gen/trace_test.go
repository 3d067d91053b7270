package gen

import (
	"os"
	"sort"
	"testing"

	"github.com/contractkit/contractkit/internal/repotest"
	"github.com/contractkit/contractkit/internal/spec"
	"github.com/contractkit/contractkit/internal/trace"
)

// pendingTrace lists the normative entries that have no source or no test
// naming them yet, and why. It may only shrink: an entry that becomes
// traced must leave the list (the test says so), and an entry that is not
// traced must be in it.
var pendingTrace = map[string]string{}

// TestTraceability: in every domain, every normative entry has a source
// and at least one test that names it with //contract:proves, unless it is
// listed as pending with a reason.
func TestTraceability(t *testing.T) {
	root := repotest.Root(t)
	set, diags := spec.Load(os.DirFS(root))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	tests, problems, err := trace.Scan(os.DirFS(root), nil)
	if err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	normative := map[string]bool{}
	for _, d := range set.Domains {
		n, traced := 0, 0
		for _, e := range d.Entries() {
			if !e.Normative() {
				continue
			}
			n++
			normative[e.ID] = true
			var missing []string
			if len(e.Source) == 0 {
				missing = append(missing, "no source")
			}
			if len(tests[e.ID]) == 0 {
				missing = append(missing, "named by no test (//contract:proves)")
			}
			reason, pending := pendingTrace[e.ID]
			switch {
			case len(missing) == 0 && pending:
				t.Errorf("%s is traced now (%d source(s), %d test(s)): remove it from pendingTrace (%s)", e.ID, len(e.Source), len(tests[e.ID]), reason)
			case len(missing) > 0 && !pending:
				t.Errorf("%s has %v", e.ID, missing)
			case len(missing) == 0:
				traced++
			}
		}
		if n == 0 {
			t.Errorf("%s has no normative entries", d.Header.ID)
		}
		t.Logf("%s: %d of %d normative entries traced", d.Header.ID, traced, n)
	}
	var stale []string
	for id := range pendingTrace {
		if !normative[id] {
			stale = append(stale, id)
		}
	}
	sort.Strings(stale)
	for _, id := range stale {
		t.Errorf("pendingTrace lists %s, which is not a normative entry of any spec", id)
	}
}
