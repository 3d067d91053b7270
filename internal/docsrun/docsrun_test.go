package docsrun

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/contractkit/contractkit/internal/docscheck"
	"github.com/contractkit/contractkit/internal/repotest"
)

// pageTimeout bounds one page's script: the slowest page extracts and
// reads SSL 3.1.
const pageTimeout = 5 * time.Minute

// pages returns README.md and the English how-to pages, in that order.
func pages(t *testing.T, root string) []string {
	t.Helper()
	howto, err := filepath.Glob(filepath.Join(root, "Docs", "en", "how-to", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(howto)
	out := []string{"README.md"}
	for _, p := range howto {
		rel, _ := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

func readBlocks(t *testing.T, root, rel string) ([]Block, []error) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	page, problems := docscheck.Parse(rel, src)
	for _, p := range problems {
		t.Errorf("%s", p)
	}
	return Blocks(page)
}

// TestMarks: every shell block of README.md and of the how-to pages says
// whether the docs test runs it; a new page's unmarked block fails here
// with its page, line and what to write.
func TestMarks(t *testing.T) {
	root := repotest.Root(t)
	for _, rel := range pages(t, root) {
		_, errs := readBlocks(t, root, rel)
		for _, err := range errs {
			t.Error(err)
		}
	}
}

// TestDocs runs the pages' blocks (see the package comment). Each block is
// a subtest named by its page and line, so a skipped block shows with its
// reason in make test's summary.
func TestDocs(t *testing.T) {
	root := repotest.Root(t)
	base := t.TempDir()
	bin := filepath.Join(base, "bin")
	shim := filepath.Join(base, "shim")
	for _, d := range []string{bin, shim} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Every command once, in one go build (built in parallel, sharing the
	// build cache).
	build := exec.Command("go", "build", "-o", bin+"/", "./cmd/...")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/...: %v\n%s", err, out)
	}
	if err := writeShim(shim); err != nil {
		t.Fatal(err)
	}
	tree := repotest.MapFS(t)
	shared, _ := filepath.Abs(filepath.Join(root, "..", "shared"))

	for _, rel := range pages(t, root) {
		blocks, errs := readBlocks(t, root, rel)
		if len(errs) > 0 {
			continue // TestMarks reports them
		}
		if !slices.ContainsFunc(blocks, func(b Block) bool { return b.Mode == Run || b.Mode == Skip }) {
			continue
		}
		t.Run(rel, func(t *testing.T) {
			dir := filepath.Join(base, "pages", strings.ReplaceAll(rel, "/", "_"))
			env := scratch(t, dir, tree, shared, bin, shim)
			results := RunPage(context.Background(), env, blocks, pageTimeout)
			for _, r := range results {
				t.Run(fmt.Sprintf("line%d", r.Block.Line), func(t *testing.T) {
					switch {
					case r.Problem != "":
						t.Errorf("%s:%d: %s", r.Block.Page, r.Block.Line, r.Problem)
					case r.MissingCorpus:
						repotest.MissingPart(t, "%s:%d: %s", r.Block.Page, r.Block.Line, r.Skipped)
					case !r.Ran:
						t.Skipf("%s:%d: %s", r.Block.Page, r.Block.Line, r.Skipped)
					}
				})
			}
		})
	}
}

// scratch lays out one page's world: a copy of the checkout in dir/work
// (the blocks' working directory), ../shared beside it, a home of its own
// with the GOPATH go install fills, and PATH with the go stand-in first and
// without the user's own installed commands.
func scratch(t *testing.T, dir string, tree fstest.MapFS, shared, bin, shim string) Env {
	t.Helper()
	work, state, home := filepath.Join(dir, "work"), filepath.Join(dir, "state"), filepath.Join(dir, "home")
	for p, f := range tree {
		full := filepath.Join(work, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") || strings.HasPrefix(p, ".ci/") {
			mode = 0o755
		}
		if err := os.WriteFile(full, f.Data, mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{state, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := os.Stat(shared); err == nil && st.IsDir() {
		if err := os.Symlink(shared, filepath.Join(dir, "shared")); err != nil {
			t.Fatal(err)
		}
	}
	gopath := filepath.Join(home, "go")
	var keep []string
	drop := map[string]bool{}
	for _, v := range []string{"GOBIN", "GOPATH"} {
		if out, err := exec.Command("go", "env", v).Output(); err == nil && strings.TrimSpace(string(out)) != "" {
			p := strings.TrimSpace(string(out))
			if v == "GOPATH" {
				p = filepath.Join(p, "bin")
			}
			drop[p] = true
		}
	}
	for _, p := range filepath.SplitList(os.Getenv("PATH")) {
		if !drop[p] {
			keep = append(keep, p)
		}
	}
	vars := []string{
		"PATH=" + strings.Join(append([]string{shim}, keep...), string(os.PathListSeparator)),
		"HOME=" + home,
		"GOPATH=" + gopath,
		"DOCSRUN_BIN=" + bin,
		"LANG=C.UTF-8",
	}
	for _, v := range []string{"TMPDIR", repotest.RequirePartsEnv} {
		if s, ok := os.LookupEnv(v); ok {
			vars = append(vars, v+"="+s)
		}
	}
	return Env{Work: work, State: state, Vars: vars, Corpora: filepath.Join(dir, "shared", "corpus")}
}
