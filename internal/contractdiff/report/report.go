// Package report renders the verdict of a contract comparison: as text for
// a terminal, markdown for a pull request, JSON for tools, and GitHub
// Actions workflow commands that annotate the changed lines of the specs.
package report

import (
	"fmt"
	"strings"

	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/contractdiff/disposition"
)

// Report is a judged comparison with what it compared.
type Report struct {
	// Baseline names the baseline as the user gave it (a ref or a
	// folder); BaselineCommit is the commit a ref resolved to.
	Baseline       string
	BaselineCommit string
	// Current names the compared tree, usually "working tree".
	Current string
	// Dispositions is the path of the dispositions file.
	Dispositions string
	*disposition.Result
}

// CatalogPage is where the rule catalog lives in the repository.
const CatalogPage = "Docs/en/reference/contract-diff/rules.md"

// Summary is the one line that always goes to stdout.
func Summary(r *Report) string {
	var parts []string
	for _, s := range contractdiff.Severities {
		n, missing := r.Count(s)
		p := fmt.Sprintf("%d %s", n, s)
		if missing > 0 {
			p += fmt.Sprintf(" (%d without disposition)", missing)
		}
		parts = append(parts, p)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "contractdiff: %s: ", r.Status)
	if r.Status == disposition.Bootstrap {
		fmt.Fprintf(&b, "nothing to compare, %s taken as the starting point", plural(len(r.Domains), "domain"))
	} else {
		fmt.Fprintf(&b, "%s in %s", strings.Join(parts, ", "), plural(len(r.Domains), "domain"))
	}
	if n := len(r.Problems); n > 0 {
		fmt.Fprintf(&b, "; %s", plural(n, "disposition problem"))
	}
	fmt.Fprintf(&b, "; baseline %s", baselineLabel(r))
	return b.String()
}

func baselineLabel(r *Report) string {
	if isEmptyRef(r.Baseline) {
		return "none"
	}
	if r.BaselineCommit != "" {
		return fmt.Sprintf("%s (%s)", r.Baseline, short(r.BaselineCommit))
	}
	return r.Baseline
}

// isEmptyRef matches baseline.IsEmptyRef: an empty or all-zero ref names no commit.
func isEmptyRef(ref string) bool { return strings.Trim(ref, "0 ") == "" }

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// stateText says what a finding's disposition state means for a reader.
func stateText(j disposition.Judged) string {
	switch j.State {
	case disposition.Accepted:
		return "accepted by " + j.Disposition.Pointer
	case disposition.Missing:
		return "missing"
	case disposition.InternalOnly:
		return "not needed (internal at the baseline)"
	}
	return "not needed"
}
