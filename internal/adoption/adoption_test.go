package adoption

import (
	"bytes"
	"context"
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contractkit/contractkit/internal/emit/goemit"
	"github.com/contractkit/contractkit/internal/repotest"
)

// tutorial is the page whose commands the test runs.
const tutorial = "Docs/en/how-to/adopt.md"

// getLine is the one command of the page the test cannot run as written:
// no release of this checkout exists. It is replaced by what the page
// offers for an unreleased checkout, pointed at this one.
const getLine = "go get github.com/contractkit/contractkit@latest"

type block struct{ info, text string }

// codeBlocks returns the fenced code blocks of a markdown page in order.
func codeBlocks(page string) []block {
	var out []block
	lines := strings.Split(page, "\n")
	for i := 0; i < len(lines); i++ {
		info, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		var body []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		out = append(out, block{info, strings.Join(body, "\n") + "\n"})
	}
	return out
}

// The adoption path of the tutorial, run in a fresh module outside the
// tree: gen init, a method added, go generate, build, vet, a test of the
// spec's examples against the generated decoders and schemas, gen --check,
// a commit, a narrowing contractdiff blocks with its witness, the printed
// disposition pasted, and the action's script on the same repository.
func TestAdoption(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gen and contractdiff in a module of its own; skipped with -short")
	}
	if _, err := exec.LookPath("git"); err != nil {
		repotest.MissingPart(t, "git is not on PATH")
	}
	root := repotest.Root(t)
	page, err := os.ReadFile(filepath.Join(root, tutorial))
	if err != nil {
		t.Fatal(err)
	}
	var sh []string
	var spec, test string
	for _, b := range codeBlocks(string(page)) {
		// The language is the info string's first word; the docs test's
		// mark after it (skip="...": this test runs those blocks) is not
		// part of it.
		lang, _, _ := strings.Cut(b.info, " ")
		switch {
		case lang == "sh":
			sh = append(sh, b.text)
		case lang == "json" && strings.Contains(b.text, `"methods"`):
			spec = b.text
		case lang == "go":
			test = b.text
		}
	}
	// The steps below act between the page's command blocks: a change of
	// the page's structure must be met by a change here.
	if len(sh) != 7 || spec == "" || test == "" {
		t.Fatalf("%s has %d sh blocks (want 7), a spec edit: %v, a test: %v", tutorial, len(sh), spec != "", test != "")
	}

	dir := filepath.Join(t.TempDir(), "game")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	env := environ(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	run := func(line string) (int, string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, "sh", "-c", line)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return 0, string(out)
	}
	pasted := false
	var blocked string
	runBlock := func(i int) string {
		t.Helper()
		var all strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(sh[i]), "\n") {
			if line == getLine {
				line = "go mod edit -require=github.com/contractkit/contractkit@v0.0.0 -replace=github.com/contractkit/contractkit=" + shellQuote(root)
				sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := 0
			if strings.Contains(line, "cmd/contractdiff") && !pasted {
				want = 1 // the narrowing blocks until its disposition is pasted
			}
			code, out := run(line)
			if code != want {
				t.Fatalf("block %d: %s: exit %d, want %d\n%s", i+1, line, code, want, out)
			}
			if want == 1 {
				blocked = out
			}
			all.WriteString(out)
		}
		return all.String()
	}

	// Start: gen init writes its files and prints the next commands,
	// which are the page's.
	out := runBlock(0)
	for _, want := range []string{"wrote contractkit.json\n", "wrote spec/game.json\n", "wrote contractkit.go\n", "  go generate ./...\n", "  go build ./... && go vet ./...\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("gen init's output lacks %q:\n%s", want, out)
		}
	}
	runBlock(1)
	mustHave(t, dir, "contract/game/contract.go", "MethodEcho")

	// Add the page's method.
	editSpec(t, dir, func(doc map[string]any) {
		var add struct{ Types, Methods []any }
		if err := json.Unmarshal([]byte(spec), &add); err != nil {
			t.Fatalf("the page's spec edit: %v", err)
		}
		doc["types"] = append(doc["types"].([]any), add.Types...)
		doc["methods"] = append(doc["methods"].([]any), add.Methods...)
	})
	runBlock(2)
	mustHave(t, dir, "contract/game/contract.go", "MethodMove")
	mustHave(t, dir, "contract/game/schema/MoveParams.json", `"west"`)
	mustHave(t, dir, "docs/ru/reference/game/api.md", "game.method.move")

	// The page's test of the examples, then tidy, test, gen --check.
	if err := os.WriteFile(filepath.Join(dir, "contract_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	out = runBlock(3)
	if !strings.Contains(out, "ok  \texample.com/game") || !strings.Contains(out, "files up to date") {
		t.Errorf("go test and gen --check:\n%s", out)
	}
	checkImports(t, dir)

	// Commit, branch, narrow, and contractdiff blocks with its witness.
	runBlock(4)
	editSpec(t, dir, func(doc map[string]any) {
		for _, ty := range doc["types"].([]any) {
			ty := ty.(map[string]any)
			if ty["name"] != "Direction" {
				continue
			}
			var kept []any
			for _, v := range ty["values"].([]any) {
				if v.(map[string]any)["value"] != "west" {
					kept = append(kept, v)
				}
			}
			if len(kept) != 3 {
				t.Fatalf("Direction has %d values after removing west, want 3", len(kept))
			}
			ty["values"] = kept
		}
	})
	runBlock(5)
	for _, want := range []string{"BREAKING", "enum-value-removed", "game.type.direction/values/west", "witness", `"direction":"west"`, "Missing dispositions", "contractdiff: blocked"} {
		if !strings.Contains(blocked, want) {
			t.Errorf("contractdiff's report lacks %q:\n%s", want, blocked)
		}
	}
	// The default baseline, and as on a pull request into main (no remote
	// here: the local branch), whose merge-base is the same commit.
	_, mb := run("git merge-base main HEAD")
	mb = strings.TrimSpace(mb)
	action(t, root, dir, env, 1, "merge-base of HEAD and main ("+mb[:12]+")")
	action(t, root, dir, env, 1, mb+" (", "EVENT=pull_request", "BASE_REF=main")

	// Paste the printed entry, fill in its TODOs, and it passes.
	paste(t, dir, blocked)
	pasted = true
	out = runBlock(6)
	if !strings.Contains(out, "contractdiff: pass: 1 breaking") {
		t.Errorf("after the paste:\n%s", out)
	}
	action(t, root, dir, env, 0, "merge-base of HEAD and main ("+mb[:12]+")")
	action(t, root, dir, env, 0, mb+" (", "EVENT=pull_request", "BASE_REF=main")
}

// environ is the environment of the module's commands: no network (every
// module comes from the cache this checkout's build filled), go.sum
// completed as go get would, a git identity, no gen cache of the user's.
func environ(t *testing.T) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOFLAGS", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GOTOOLCHAIN", "GIT_DIR", "GIT_WORK_TREE", "CONTRACTKIT_GEN_CACHE", "GITHUB_STEP_SUMMARY":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GOFLAGS=-mod=mod -buildvcs=false", "GOPROXY=off", "GOSUMDB=off", "GOTOOLCHAIN=local",
		"CONTRACTKIT_GEN_CACHE=off", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Adopter", "GIT_AUTHOR_EMAIL=adopter@example.com",
		"GIT_COMMITTER_NAME=Adopter", "GIT_COMMITTER_EMAIL=adopter@example.com")
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func editSpec(t *testing.T, dir string, edit func(map[string]any)) {
	t.Helper()
	p := filepath.Join(dir, "spec", "game.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	data, err = json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustHave(t *testing.T, dir, file, want string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), want) {
		t.Errorf("%s lacks %q", file, want)
	}
}

// checkImports fails on a generated file of the module that imports an
// internal/ package of contractkit, which could not build there anyway,
// and checks the generated code imports the public runtime.
func checkImports(t *testing.T, dir string) {
	t.Helper()
	runtime := 0
	files, _ := filepath.Glob(filepath.Join(dir, "contract", "*", "*.go"))
	if len(files) == 0 {
		t.Fatal("no generated Go files under contract/")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, goemit.Module+"/") && strings.Contains(p+"/", "/internal/") {
				t.Errorf("%s imports %s", f, p)
			}
			for _, r := range goemit.RuntimePackages {
				if p == r {
					runtime++
				}
			}
		}
	}
	if runtime == 0 {
		t.Error("the generated code imports neither runtime package")
	}
}

// paste takes the entries contractdiff printed, fills in every TODO as a
// person would, and writes them as the dispositions file.
func paste(t *testing.T, dir, report string) {
	t.Helper()
	_, after, ok := strings.Cut(report, "Missing dispositions: paste into the \"dispositions\" list of contract-change-dispositions.json, then replace every TODO:\n")
	if !ok {
		t.Fatalf("no entry to paste in:\n%s", report)
	}
	end := strings.Index(after, "\n]\n")
	if end < 0 {
		t.Fatalf("the entries do not end:\n%s", after)
	}
	var entries []map[string]any
	if err := json.Unmarshal([]byte(after[:end+2]), &entries); err != nil {
		t.Fatalf("the printed entries: %v\n%s", err, after[:end+2])
	}
	if len(entries) != 1 || entries[0]["rule"] != "enum-value-removed" {
		t.Fatalf("entries %v", entries)
	}
	fill := map[string]string{"reason": "No client sends west yet.", "migration": "Clients stop offering west.", "owner": "@game-team", "issue": "GAME-12"}
	for k, v := range fill {
		if s, _ := entries[0][k].(string); !strings.HasPrefix(s, "TODO") {
			t.Errorf("printed %s is %q, not a TODO", k, s)
		}
		entries[0][k] = v
	}
	data, err := json.MarshalIndent(map[string]any{"dispositions": entries}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "contract-change-dispositions.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// action runs the action's script on the repository as its composite
// step would, and checks its exit code, annotations, job summary and
// report.
func action(t *testing.T, root, dir string, env []string, want int, baseline string, event ...string) {
	t.Helper()
	tmp := t.TempDir()
	summary, report := filepath.Join(tmp, "summary.md"), filepath.Join(tmp, "report.md")
	cmd := exec.Command(filepath.Join(root, "scripts", "contractdiff-action.sh"))
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, env...), "WORKDIR="+dir, "CONTRACTKIT_SRC="+root, "GITHUB_STEP_SUMMARY="+summary, "REPORT="+report, "RUNNER_TEMP="+tmp)
	cmd.Env = append(cmd.Env, event...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != want {
		t.Fatalf("the action's script: exit %d, want %d\n%s", code, want, out.String())
	}
	// The binary the script built is gone with it.
	if left, _ := filepath.Glob(filepath.Join(tmp, "contractdiff-action.*")); len(left) != 0 {
		t.Errorf("the action's script left %v", left)
	}
	sum, _ := os.ReadFile(summary)
	rep, _ := os.ReadFile(report)
	if !bytes.Contains(rep, []byte("# Contract diff")) || !bytes.Contains(sum, []byte("# Contract diff")) {
		t.Errorf("the action wrote no report or job summary:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "; baseline "+baseline) {
		t.Errorf("the action did not compare with %s:\n%s", baseline, out.String())
	}
	if want == 1 && (!strings.Contains(out.String(), "::error file=spec/game.json,line=") || !bytes.Contains(sum, []byte("Missing dispositions"))) {
		t.Errorf("blocked, the action shows no annotation on the spec or no missing disposition:\n%s\n%s", out.String(), sum)
	}
}

// The action whose script TestAdoption runs is that script: action.yml is
// a composite action with one run step calling it, and this repository's
// workflow uses the action rather than a copy of its steps.
func TestActionRunsTheScript(t *testing.T) {
	root := repotest.Root(t)
	action, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(action), "\n  using: composite\n") {
		t.Error("action.yml is not a composite action")
	}
	if n := strings.Count(string(action), "\n      run: "); n != 1 {
		t.Errorf("action.yml has %d run steps, want 1", n)
	}
	if !strings.Contains(string(action), `"$GITHUB_ACTION_PATH/scripts/contractdiff-action.sh"`) {
		t.Error("the action's run step does not call scripts/contractdiff-action.sh")
	}
	st, err := os.Stat(filepath.Join(root, "scripts", "contractdiff-action.sh"))
	if err != nil || st.Mode()&0o111 == 0 {
		t.Errorf("scripts/contractdiff-action.sh is missing or not executable: %v", err)
	}
	flow, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "contracts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(flow), "\n        uses: ./\n") || strings.Contains(string(flow), "cmd/contractdiff") {
		t.Error("the contracts workflow does not use the action (or still runs contractdiff itself)")
	}
}
