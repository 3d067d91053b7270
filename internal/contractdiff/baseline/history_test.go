package baseline

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestWalk: the history of a spec file is visited newest first, one step
// per commit that changed it, each with the spec before and after; the
// commit that created the file, a commit that left it invalid and the
// commits that did not touch it show no step; max bounds the walk.
func TestWalk(t *testing.T) {
	dir := gitRepo(t)
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	commit := func(msg string, spec []byte) string {
		if spec != nil {
			write(t, dir, "spec/demo.json", spec)
		} else {
			write(t, dir, "README.md", []byte(msg))
		}
		git("add", "-A")
		git("commit", "-q", "-m", msg)
		return git("rev-parse", "HEAD")
	}
	base := demo(t)
	v2 := bytes.Replace(base, []byte(`"en": "`), []byte(`"en": "Two. `), 1)
	v3 := bytes.Replace(v2, []byte(`"en": "`), []byte(`"en": "Three. `), 1)
	if bytes.Equal(v2, base) || bytes.Equal(v3, v2) {
		t.Fatal("the edits did not apply")
	}
	c2 := commit("two", v2)
	commit("readme", nil)
	cBad := commit("broken", []byte(`{"domain": {}}`))
	c3 := commit("three", v3)
	var steps []Step
	w, err := Walk(dir, "HEAD", "spec/demo.json", meta(t), 10, func(s Step) bool { steps = append(steps, s); return true })
	if err != nil {
		t.Fatal(err)
	}
	// Four commits changed the file: three, broken, two and the first.
	if w.Commits != 4 || w.Limited || w.Shallow {
		t.Errorf("walked %+v, want 4 commits, not limited", w)
	}
	if len(steps) != 1 || steps[0].Commit != c2 || !bytes.Equal(steps[0].Before.Raw(), base) || !bytes.Equal(steps[0].After.Raw(), v2) {
		t.Fatalf("steps %v, want the one of %s (%s and %s show none: their other side does not parse)", steps, c2, cBad, c3)
	}
	// Back to v2 (from the valid v3) and on to v3 again: every step
	// between valid revisions shows, newest first.
	cBack := commit("back", v2)
	c4 := commit("four", v3)
	steps = nil
	if _, err := Walk(dir, "HEAD", "spec/demo.json", meta(t), 10, func(s Step) bool { steps = append(steps, s); return true }); err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 || steps[0].Commit != c4 || steps[1].Commit != cBack || steps[2].Commit != c2 ||
		!bytes.Equal(steps[1].Before.Raw(), v3) || !bytes.Equal(steps[1].After.Raw(), v2) {
		t.Errorf("%d steps, want %s, %s, %s", len(steps), c4, cBack, c2)
	}
	// visit stops the walk; max bounds it.
	steps = nil
	if _, err := Walk(dir, "HEAD", "spec/demo.json", meta(t), 10, func(s Step) bool { steps = append(steps, s); return false }); err != nil || len(steps) != 1 {
		t.Errorf("stopped walk: %d steps, %v", len(steps), err)
	}
	w, err = Walk(dir, "HEAD", "spec/demo.json", meta(t), 2, func(Step) bool { return true })
	if err != nil || w.Commits != 2 || !w.Limited {
		t.Errorf("bounded walk: %+v, %v", w, err)
	}
}
