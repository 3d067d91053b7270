package main

import (
	"fmt"

	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/contractdiff/baseline"
	"github.com/contractkit/contractkit/internal/contractdiff/disposition"
)

// historyDepth bounds how many commits that changed one spec file are
// compared when looking for the change of an entry: enough for the life
// of a contract, and only run for entries that match nothing else.
const historyDepth = 200

// landed searches the git history of a baseline for the changes the
// entries name: a disposition added after its change reached the
// baseline is settled, not stale. Each commit that changed a domain's
// spec file is compared with the one before it, newest first, until
// every entry of that domain is found.
func landed(l baseline.Layout, repo string, base *baseline.Baseline, meta []byte, entries []*disposition.Entry) map[*disposition.Entry]disposition.Landing {
	out := map[*disposition.Entry]disposition.Landing{}
	byDomain := map[string][]*disposition.Entry{}
	var order []string
	for _, e := range entries {
		if byDomain[e.Domain] == nil {
			order = append(order, e.Domain)
		}
		byDomain[e.Domain] = append(byDomain[e.Domain], e)
	}
	files := map[string]string{}
	for _, d := range base.Domains {
		files[d.Header.ID] = d.File
	}
	for _, dom := range order {
		want := byDomain[dom]
		file := files[dom]
		if file == "" {
			for _, e := range want {
				out[e] = disposition.Landing{Searched: fmt.Sprintf("the baseline %s has no domain %s whose history could have", short(base.Commit), dom)}
			}
			continue
		}
		found := map[*disposition.Entry]disposition.Landing{}
		walked, err := baseline.WalkIn(l, repo, base.Commit, file, meta, historyDepth, func(s baseline.Step) bool {
			for _, f := range contractdiff.Changes(s.Before, s.After) {
				for _, e := range want {
					if _, done := found[e]; !done && madeBy(e, f) {
						found[e] = disposition.Landing{Commit: s.Commit, Rule: f.Rule}
					}
				}
			}
			return len(found) < len(want)
		})
		searched := fmt.Sprintf("none of the %s of %s's history that changed %s", plural(walked.Commits, "commit"), short(base.Commit), file)
		switch {
		case err != nil:
			searched = fmt.Sprintf("the baseline's history could not be searched (%v), so nothing", err)
		case walked.Shallow:
			searched += " (the clone is shallow: fetch its full history to search older commits)"
		case walked.Limited:
			searched += fmt.Sprintf(" (only the latest %d were searched)", historyDepth)
		}
		for _, e := range want {
			l := found[e]
			l.Searched = searched
			out[e] = l
		}
	}
	return out
}

// madeBy reports whether a finding of the history is the edit an entry
// names: the same domain, target and values before and after. The rule
// may differ, because it is the verdict on the edit and that revision may
// have judged it under other parties (an edit judged field-added then is
// required-field-added now that this repository implements a receiver),
// so the entry's change id is recomputed with the entry's rule.
func madeBy(e *disposition.Entry, f contractdiff.Finding) bool {
	return f.Domain == e.Domain && f.Target == e.Target &&
		contractdiff.ChangeID(f.Domain, e.Rule, f.Target, f.Before, f.After) == e.ChangeID
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
