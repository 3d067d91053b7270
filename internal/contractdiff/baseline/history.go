package baseline

import (
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/contractkit/contractkit/internal/spec"
)

// Step is one commit of a baseline's history that changed a spec file:
// the spec as that commit left it and as it was in the commit before
// (the nearest earlier commit that changed the file).
type Step struct {
	Commit        string
	Before, After *spec.Domain
}

// Walked says what Walk searched.
type Walked struct {
	// Commits is how many commits that changed the file were visited.
	Commits int
	// Limited is set when the history has more such commits than Walk
	// was allowed to visit; Shallow when the clone lacks older history.
	Limited, Shallow bool
}

// Walk visits, newest first, the commits of the history of commit that
// changed file, at most max of them, each with the spec before and after
// it (each read with the meta-schema of its own revision, or currentMeta
// when the revision has none), until visit returns false. A commit that
// created the file, or whose spec on either side does not parse, has no
// change to show and is skipped (but counted).
func Walk(dir, commit, file string, currentMeta []byte, max int, visit func(Step) bool) (Walked, error) {
	return WalkIn(DefaultLayout, dir, commit, file, currentMeta, max, visit)
}

// WalkIn is Walk in a layout: each revision's own meta-schema is read from
// l.MetaSchema (none when it is empty).
func WalkIn(l Layout, dir, commit, file string, currentMeta []byte, max int, visit func(Step) bool) (Walked, error) {
	var w Walked
	g := git{dir: dir}
	if out, err := g.run("rev-parse", "--is-shallow-repository"); err == nil {
		w.Shallow = strings.TrimSpace(string(out)) == "true"
	}
	// With a path, --parents names the rewritten parents: the nearest
	// earlier commits that changed the file, so each pair is one change.
	out, err := g.run("rev-list", "--parents", fmt.Sprintf("--max-count=%d", max+1), commit, "--", file)
	if err != nil {
		return w, fmt.Errorf("history of %s at %s: %v", file, commit, err)
	}
	type pair struct{ c, p string }
	var pairs []pair
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		p := ""
		if len(f) > 1 {
			p = f[1]
		}
		pairs = append(pairs, pair{f[0], p})
	}
	if len(pairs) > max {
		pairs, w.Limited = pairs[:max], true
	}
	var names []string
	for _, p := range pairs {
		for _, rev := range []string{p.c, p.p} {
			if rev != "" {
				names = append(names, rev+":"+file)
				if l.MetaSchema != "" {
					names = append(names, rev+":"+l.MetaSchema)
				}
			}
		}
	}
	blobs, err := g.catObjects(names)
	if err != nil {
		return w, fmt.Errorf("history of %s at %s: %v", file, commit, err)
	}
	// Consecutive steps share a revision: parse each (spec, meta-schema)
	// once.
	parsed := map[[2]string]*spec.Domain{}
	load := func(rev string) *spec.Domain {
		data, ok := blobs[rev+":"+file]
		if rev == "" || !ok {
			return nil
		}
		meta := blob{sha: "current", data: currentMeta}
		if m, ok := blobs[rev+":"+l.MetaSchema]; l.MetaSchema != "" && ok {
			meta = m
		}
		key := [2]string{data.sha, meta.sha}
		if d, ok := parsed[key]; ok {
			return d
		}
		d, diags := spec.ParseOne(fstest.MapFS{spec.MetaSchemaPath: {Data: meta.data}}, file, data.data)
		if diags.HasErrors() {
			d = nil
		}
		parsed[key] = d
		return d
	}
	for _, p := range pairs {
		w.Commits++
		after, before := load(p.c), load(p.p)
		if after == nil || before == nil || before.Header.ID != after.Header.ID {
			continue
		}
		if !visit(Step{Commit: p.c, Before: before, After: after}) {
			break
		}
	}
	return w, nil
}
