package baseline

import (
	"strings"
)

// MainBranches are the branches a change is compared with, in order: the
// remote one first, since a local main may lag behind it.
var MainBranches = []string{"origin/main", "main"}

// DefaultRef picks the baseline of the working tree of the repository at
// dir: the merge-base of HEAD with the main branch, so that every commit
// of a branch is compared, not only the last one; on the main branch
// itself (where that merge-base is HEAD), the commit before HEAD. It
// returns the commit and a label that says how it was found, or an empty
// commit when there is none (a repository with one commit).
func DefaultRef(dir string) (commit, label string, err error) {
	return DefaultRefFor(dir, MainBranches)
}

// DefaultRefFor is DefaultRef with the main branch named by branches, in
// order of preference.
func DefaultRefFor(dir string, branches []string) (commit, label string, err error) {
	g := git{dir: dir}
	if _, err := g.run("rev-parse", "--git-dir"); err != nil {
		return "", "", &Error{Msg: "no baseline given and " + dir + " is not in a git repository: pass --baseline-git-ref or --baseline-dir"}
	}
	head, err := g.revParse("HEAD")
	if err != nil {
		return "", "", &Error{Msg: "no baseline given and HEAD names no commit (an empty repository): pass --baseline-git-ref"}
	}
	for _, branch := range branches {
		tip, err := g.revParse(branch)
		if err != nil {
			continue
		}
		out, err := g.run("merge-base", head, tip)
		if err != nil {
			continue // unrelated histories: try the next
		}
		mb := strings.TrimSpace(string(out))
		if mb != head {
			return mb, "merge-base of HEAD and " + branch, nil
		}
		break // HEAD is on the main branch: compare with the commit before
	}
	prev, err := g.revParse("HEAD~1")
	if err != nil {
		return "", "HEAD~1 (HEAD has no parent)", nil
	}
	return prev, "HEAD~1", nil
}

// revParse resolves a ref to a commit, quietly.
func (g git) revParse(ref string) (string, error) {
	out, err := g.run("rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
