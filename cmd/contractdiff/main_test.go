package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contractkit/contractkit/internal/contractdiff/disposition"
	"github.com/contractkit/contractkit/internal/repotest"
)

// now is the date every test runs on, so that expiry is deterministic.
var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// git runs git in dir and fails the test on error.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=test", "-c", "user.email=test@example.com",
		"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func commitAll(t *testing.T, dir, msg string) {
	t.Helper()
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", msg)
}

// demoRepo is a git repository with one commit holding the demo spec of
// the golden tests, the meta-schemas and an empty dispositions file.
func demoRepo(t *testing.T) string {
	t.Helper()
	needGit(t)
	root := repotest.Root(t)
	dir := t.TempDir()
	for dst, src := range map[string]string{
		"spec/contract.schema.json":     "spec/contract.schema.json",
		"spec/dispositions.schema.json": "spec/dispositions.schema.json",
		"spec/demo.json":                "internal/contractdiff/testdata/base.json",
	} {
		copyFile(t, filepath.Join(root, src), filepath.Join(dir, dst))
	}
	// The demo starts with no dispositions: the repository's own are about
	// its own specs, and would be stale against the demo's.
	writeFile(t, filepath.Join(dir, "contract-change-dispositions.json"),
		[]byte(`{"$schema": "./spec/dispositions.schema.json", "dispositions": []}`+"\n"))
	git(t, dir, "init", "-q")
	commitAll(t, dir, "baseline")
	return dir
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dst, data)
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// editJSON decodes a JSON file, lets edit change it, and writes it back.
func editJSON(t *testing.T, path string, edit func(doc map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, out)
}

// find returns the element of a list of objects whose key has the value.
func find(list any, key, value string) map[string]any {
	for _, e := range list.([]any) {
		if m := e.(map[string]any); m[key] == value {
			return m
		}
	}
	return nil
}

func without(list any, key, value string) []any {
	var out []any
	for _, e := range list.([]any) {
		if e.(map[string]any)[key] != value {
			out = append(out, e)
		}
	}
	return out
}

func runCLI(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"--root", dir}, args...), &out, &errb, now)
	return code, out.String(), errb.String()
}

// jsonReport is the part of the JSON report the tests read.
type jsonReport struct {
	Status  string `json:"status"`
	Summary string `json:"summary"`
	Counts  map[string]int
	Domains []struct {
		Domain   string `json:"domain"`
		Status   string `json:"status"`
		Findings []struct {
			ChangeID    string `json:"changeId"`
			Rule        string `json:"rule"`
			Severity    string `json:"severity"`
			Target      string `json:"target"`
			Line        int    `json:"line"`
			Disposition string `json:"disposition"`
		} `json:"findings"`
	} `json:"domains"`
	DispositionProblems []struct {
		Pointer string `json:"pointer"`
		Message string `json:"message"`
	} `json:"dispositionProblems"`
	Missing []disposition.Entry `json:"missingDispositions"`
}

// runJSON runs with --format json --output and decodes the report.
func runJSON(t *testing.T, dir string, args ...string) (int, jsonReport, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.json")
	code, stdout, stderr := runCLI(t, dir, append(args, "--format", "json", "--output", out)...)
	var r jsonReport
	if data, err := os.ReadFile(out); err == nil {
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatalf("report: %v\n%s", err, data)
		}
		if !strings.HasSuffix(strings.TrimSpace(stdout), r.Summary) || strings.Count(stdout, "\n") != 1 {
			t.Errorf("stdout %q is not the summary line %q", stdout, r.Summary)
		}
	}
	return code, r, stdout + stderr
}

// pasteTemplates fills the placeholders of printed templates and writes
// them as the dispositions file, as a person would.
func pasteTemplates(t *testing.T, dir string, entries []disposition.Entry, expires string) {
	t.Helper()
	for i := range entries {
		entries[i].Reason, entries[i].Migration = "Nobody relies on it.", "Nothing to do."
		entries[i].Owner, entries[i].Issue = "@contracts", "#4"
		if expires != "" {
			entries[i].Expires = expires
		}
	}
	data, err := json.MarshalIndent(map[string]any{"$schema": "./spec/dispositions.schema.json", "dispositions": entries}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, disposition.FileName), data)
}

func TestBootstrap(t *testing.T) {
	dir := demoRepo(t)
	for _, ref := range []string{"", "0000000000000000000000000000000000000000"} {
		code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", ref, "--allow-missing-baseline", "--enforce")
		if code != 0 || !strings.Contains(stdout, "contractdiff: bootstrap: nothing to compare, 1 domain taken as the starting point") {
			t.Errorf("ref %q: exit %d\n%s%s", ref, code, stdout, stderr)
		}
		// Without --allow-missing-baseline, no baseline is an error.
		code, stdout, _ = runCLI(t, dir, "--baseline-git-ref", ref)
		if code != 2 || !strings.Contains(stdout, "contractdiff: error: baseline ref") {
			t.Errorf("ref %q without --allow-missing-baseline: exit %d\n%s", ref, code, stdout)
		}
	}
	// A domain added after the baseline is new: a bootstrap of that domain
	// with the flag, an error without it.
	copyFile(t, filepath.Join(dir, "spec/demo.json"), filepath.Join(dir, "spec/other.json"))
	editJSON(t, filepath.Join(dir, "spec/other.json"), func(doc map[string]any) {
		doc["domain"].(map[string]any)["id"] = "other"
		doc["domain"].(map[string]any)["package"] = "other"
		for _, key := range []string{"constants", "types", "methods", "notifications", "events", "errors", "capabilities", "rules"} {
			for _, e := range doc[key].([]any) {
				renameIDs(e.(map[string]any))
			}
		}
		doc["domain"].(map[string]any)["invalidParams"] = "other.error.invalid-params"
	})
	code, r, out := runJSON(t, dir, "--baseline-git-ref", "HEAD", "--allow-missing-baseline", "--enforce")
	if code != 0 || r.Status != "pass" || len(r.Domains) != 2 || r.Domains[1].Domain != "other" || r.Domains[1].Status != "bootstrap" {
		t.Errorf("new domain: exit %d, %+v\n%s", code, r, out)
	}
	code, stdout, _ := runCLI(t, dir, "--baseline-git-ref", "HEAD")
	if code != 2 || !strings.Contains(stdout, "spec/other.json: domain other has no baseline; pass --allow-missing-baseline") {
		t.Errorf("new domain without the flag: exit %d\n%s", code, stdout)
	}
}

// renameIDs moves every id of a spec element from the demo domain to other.
func renameIDs(m map[string]any) {
	for k, v := range m {
		switch x := v.(type) {
		case string:
			if k == "id" || k == "constant" || strings.HasPrefix(x, "demo.") {
				m[k] = strings.Replace(x, "demo.", "other.", 1)
			}
		case map[string]any:
			renameIDs(x)
		case []any:
			for i, e := range x {
				if em, ok := e.(map[string]any); ok {
					renameIDs(em)
				} else if s, ok := e.(string); ok && strings.HasPrefix(s, "demo.") {
					x[i] = strings.Replace(s, "demo.", "other.", 1)
				}
			}
		}
	}
}

func TestUnknownRef(t *testing.T) {
	dir := demoRepo(t)
	for _, args := range [][]string{
		{"--baseline-git-ref", "no-such-branch", "--allow-missing-baseline"},
		{"--baseline-git-ref", "HEAD~1", "--allow-missing-baseline", "--enforce"}, // one commit: HEAD~1 does not exist
		{"--baseline-git-ref", "--enforce"},
	} {
		code, stdout, stderr := runCLI(t, dir, args...)
		if code != 2 || !strings.HasPrefix(stdout, "contractdiff: error: baseline ref") || strings.Count(stdout, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	// Outside a git repository.
	plain := t.TempDir()
	for _, f := range []string{"spec/demo.json", "spec/contract.schema.json", "spec/dispositions.schema.json"} {
		copyFile(t, filepath.Join(dir, f), filepath.Join(plain, f))
	}
	if code, stdout, _ := runCLI(t, plain, "--baseline-git-ref", "HEAD"); code != 2 || !strings.Contains(stdout, "not in a git repository") {
		t.Errorf("no repository: exit %d\n%s", code, stdout)
	}
}

// A removal blocks and prints a template; the pasted template passes.
func TestRemovalBlocksUntilDisposition(t *testing.T) {
	dir := demoRepo(t)
	editJSON(t, filepath.Join(dir, "spec/demo.json"), func(doc map[string]any) {
		doc["methods"] = without(doc["methods"], "id", "demo.method.confirm")
	})
	code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"BREAKING      method-removed  demo.method.confirm",
		"Missing dispositions: paste into the \"dispositions\" list of contract-change-dispositions.json",
		`"rule": "method-removed"`,
		`"reason": "TODO: why this narrowing is acceptable"`,
		"contractdiff: blocked: 1 breaking (1 without disposition), 0 warning, 0 additive, 0 policy, 0 documentation in 1 domain; baseline HEAD (",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	// Without --enforce the same run reports but passes.
	if code, _, _ := runCLI(t, dir, "--baseline-git-ref", "HEAD"); code != 0 {
		t.Errorf("without --enforce: exit %d", code)
	}
	code, r, out := runJSON(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
	if code != 1 || len(r.Missing) != 1 || r.Missing[0].Target != "demo.method.confirm" {
		t.Fatalf("exit %d, missing %+v\n%s", code, r.Missing, out)
	}
	// The template pasted unread is rejected: it still says TODO.
	data, _ := json.Marshal(map[string]any{"dispositions": r.Missing})
	writeFile(t, filepath.Join(dir, disposition.FileName), data)
	if code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--enforce"); code != 2 || !strings.Contains(stderr, "contract-change-dispositions.json:/dispositions/0/reason: reason still holds the template's placeholder") {
		t.Errorf("unfilled template: exit %d\n%s%s", code, stdout, stderr)
	}
	pasteTemplates(t, dir, r.Missing, "")
	code, r, out = runJSON(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
	if code != 0 || r.Status != "pass" || r.Domains[0].Findings[0].Disposition != "accepted" {
		t.Errorf("with the disposition: exit %d, %+v\n%s", code, r, out)
	}
}

// The disposition names one exact change: when the change is edited again
// the entry goes stale and the new change blocks.
func TestEditedChangeBlocksAgain(t *testing.T) {
	dir := demoRepo(t)
	spec := filepath.Join(dir, "spec/demo.json")
	setLimit := func(v int) {
		editJSON(t, spec, func(doc map[string]any) {
			find(doc["constants"], "id", "demo.limit.items")["value"] = v
		})
	}
	setLimit(8)
	code, r, out := runJSON(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
	if code != 1 || len(r.Missing) != 1 || r.Missing[0].Rule != "limit-lowered" {
		t.Fatalf("exit %d, %+v\n%s", code, r, out)
	}
	pasteTemplates(t, dir, r.Missing, "")
	if code, r, out := runJSON(t, dir, "--baseline-git-ref", "HEAD", "--enforce"); code != 0 || r.Status != "pass" {
		t.Fatalf("with the disposition: exit %d, %+v\n%s", code, r, out)
	}
	setLimit(6)
	code, r, out = runJSON(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
	if code != 1 || r.Status != "blocked" || len(r.Missing) != 1 || r.Domains[0].Findings[0].Disposition != "missing" {
		t.Fatalf("edited again: exit %d, %+v\n%s", code, r, out)
	}
	if len(r.DispositionProblems) != 1 || !strings.Contains(r.DispositionProblems[0].Message, "stale") {
		t.Errorf("problems %+v, want the old entry stale", r.DispositionProblems)
	}
}

func TestExpiredDisposition(t *testing.T) {
	dir := demoRepo(t)
	editJSON(t, filepath.Join(dir, "spec/demo.json"), func(doc map[string]any) {
		doc["rules"] = without(doc["rules"], "id", "demo.wire.frames")
	})
	_, r, _ := runJSON(t, dir, "--baseline-git-ref", "HEAD")
	pasteTemplates(t, dir, r.Missing, "2026-11-28") // yesterday
	code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
	if code != 1 || !strings.Contains(stdout, "contract-change-dispositions.json:/dispositions/0/expires: expired on 2026-11-28") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	pasteTemplates(t, dir, r.Missing, "2026-11-29") // today is still valid
	if code, stdout, _ := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--enforce"); code != 0 {
		t.Errorf("expiring today: exit %d\n%s", code, stdout)
	}
}

// An entry that matches nothing is stale, unless the baseline has it too:
// then its change has reached the baseline and it is only listed.
func TestStaleAndSettledDisposition(t *testing.T) {
	dir := demoRepo(t)
	editJSON(t, filepath.Join(dir, "spec/demo.json"), func(doc map[string]any) {
		doc["rules"] = without(doc["rules"], "id", "demo.wire.frames")
	})
	_, r, _ := runJSON(t, dir, "--baseline-git-ref", "HEAD")
	pasteTemplates(t, dir, r.Missing, "")
	// Undo the change: the entry is stale.
	git(t, dir, "checkout", "-q", "--", "spec/demo.json")
	code, stdout, _ := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
	if code != 1 || !strings.Contains(stdout, "contract-change-dispositions.json:/dispositions/0/changeId: stale") {
		t.Errorf("stale: exit %d\n%s", code, stdout)
	}
	// Redo it and commit change and disposition: compared with the new
	// HEAD nothing changed, and the entry is settled, not stale.
	editJSON(t, filepath.Join(dir, "spec/demo.json"), func(doc map[string]any) {
		doc["rules"] = without(doc["rules"], "id", "demo.wire.frames")
	})
	commitAll(t, dir, "remove the frames rule")
	code, stdout, _ = runCLI(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
	if code != 0 || !strings.Contains(stdout, "Settled dispositions") {
		t.Errorf("settled: exit %d\n%s", code, stdout)
	}
	// Compared with the commit before, the change and its entry match.
	if code, stdout, _ := runCLI(t, dir, "--baseline-git-ref", "HEAD~1", "--enforce"); code != 0 {
		t.Errorf("HEAD~1: exit %d\n%s", code, stdout)
	}
}

func TestInvalidDispositionsFile(t *testing.T) {
	dir := demoRepo(t)
	writeFile(t, filepath.Join(dir, disposition.FileName), []byte(`{"dispositions": [{"domain": "demo"}]}`))
	code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
	if code != 2 || !strings.Contains(stderr, "contract-change-dispositions.json:/dispositions/0: missing changeId, rule, target, reason, migration, owner, issue, expires") ||
		!strings.Contains(stdout, "contractdiff: error: contract-change-dispositions.json is invalid") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	// A dispositions file named on the command line must exist.
	if code, stdout, _ := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--dispositions", filepath.Join(dir, "nope.json")); code != 2 || !strings.Contains(stdout, "nope.json") {
		t.Errorf("missing --dispositions file: exit %d\n%s", code, stdout)
	}
	// The default one may be absent: no dispositions.
	os.Remove(filepath.Join(dir, disposition.FileName))
	if code, stdout, _ := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--enforce"); code != 0 {
		t.Errorf("no dispositions file: exit %d\n%s", code, stdout)
	}
}

func TestFormats(t *testing.T) {
	dir := demoRepo(t)
	editJSON(t, filepath.Join(dir, "spec/demo.json"), func(doc map[string]any) {
		doc["methods"] = without(doc["methods"], "id", "demo.method.confirm")
		rule := find(doc["rules"], "id", "demo.wire.frames")
		rule["requirement"].(map[string]any)["en"] = "Frames end with CRLF. Nothing else ends them."
	})
	_, r, _ := runJSON(t, dir, "--baseline-git-ref", "HEAD")
	var line int
	for _, f := range r.Domains[0].Findings {
		if f.Rule == "method-removed" {
			line = f.Line
		}
	}
	if line < 2 {
		t.Fatalf("method-removed at line %d", line)
	}
	_, gh, _ := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "github")
	for _, want := range []string{
		"::error file=spec/demo.json,line=" + strconv.Itoa(line) + ",title=method-removed::breaking: method confirm was removed (demo.method.confirm). Disposition: missing.",
		"::warning file=spec/demo.json,line=",
		",title=translation-stale::warning: the English requirement of rule demo.wire.frames changed but the Russian one did not",
		"::group::Missing dispositions",
		"::endgroup::",
	} {
		if !strings.Contains(gh, want) {
			t.Errorf("github output lacks %q:\n%s", want, gh)
		}
	}
	_, md, _ := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "markdown")
	for _, want := range []string{
		"**Status: blocked**",
		"| breaking | `method-removed` | `demo.method.confirm` | method confirm was removed | **missing** |",
		"### Changed texts",
		"```diff\n--- baseline/en\n+++ current/en\n@@ -1 +1,2 @@\n-Frames end with LF.\n+Frames end with CRLF.\n+Nothing else ends them.\n  (ru unchanged)\n```",
		"## Missing dispositions",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if r.Counts["breaking"] != 1 || r.Counts["warning"] != 2 || r.Counts["missingDispositions"] != 1 {
		t.Errorf("counts %v", r.Counts)
	}
}

func TestBaselineDir(t *testing.T) {
	dir := demoRepo(t)
	base := t.TempDir()
	copyFile(t, filepath.Join(dir, "spec/demo.json"), filepath.Join(base, "spec/demo.json"))
	editJSON(t, filepath.Join(dir, "spec/demo.json"), func(doc map[string]any) {
		find(doc["constants"], "id", "demo.limit.frame-bytes")["value"] = 4096
	})
	code, r, out := runJSON(t, dir, "--baseline-dir", base, "--enforce")
	if code != 0 || len(r.Domains[0].Findings) != 1 || r.Domains[0].Findings[0].Rule != "limit-raised" {
		t.Errorf("exit %d, %+v\n%s", code, r, out)
	}
	if code, stdout, _ := runCLI(t, dir, "--baseline-dir", filepath.Join(base, "missing")); code != 2 || !strings.Contains(stdout, "does not exist") {
		t.Errorf("missing folder: exit %d\n%s", code, stdout)
	}
}

// A baseline is read with its own meta-schema: a member the format has
// since dropped does not make an old baseline unreadable.
func TestBaselineUsesItsOwnMetaSchema(t *testing.T) {
	dir := demoRepo(t)
	editJSON(t, filepath.Join(dir, "spec/contract.schema.json"), func(doc map[string]any) {
		doc["properties"].(map[string]any)["comment"] = map[string]any{"type": "string"}
	})
	editJSON(t, filepath.Join(dir, "spec/demo.json"), func(doc map[string]any) { doc["comment"] = "an old member" })
	commitAll(t, dir, "old format")
	git(t, dir, "checkout", "-q", "HEAD~1", "--", "spec/contract.schema.json", "spec/demo.json")
	code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
	if code != 0 || !strings.Contains(stdout, "contractdiff: pass: 0 breaking") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestUsage(t *testing.T) {
	dir := demoRepo(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "give exactly one of --baseline-git-ref and --baseline-dir"},
		{[]string{"--baseline-git-ref", "HEAD", "--baseline-dir", dir}, "give exactly one of"},
		{[]string{"--baseline-git-ref", "HEAD", "--format", "xml"}, `unknown --format "xml"`},
		{[]string{"--baseline-git-ref", "HEAD", "extra"}, `unexpected argument "extra"`},
		{[]string{"--no-such-flag"}, "bad usage"},
	} {
		code, stdout, _ := runCLI(t, dir, c.args...)
		if code != 2 || !strings.Contains(stdout, c.want) || !strings.HasPrefix(stdout, "contractdiff: error:") {
			t.Errorf("%v: exit %d, stdout %q", c.args, code, stdout)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, &out, &errb, now); code != 0 || !strings.Contains(out.String(), "usage: contractdiff (--baseline-git-ref REF | --baseline-dir DIR)") ||
		!strings.Contains(out.String(), "-allow-missing-baseline") || !strings.Contains(out.String(), "Exit codes:") {
		t.Errorf("--help: exit %d\n%s", code, out.String())
	}
}

// ---- on this repository ----

// repoCopy is a git repository holding a copy of this repository's tree
// (without large build outputs), committed once.
func repoCopy(t *testing.T) string {
	t.Helper()
	needGit(t)
	m := repotest.MapFS(t)
	for p, f := range m {
		if len(f.Data) > 1<<20 && !strings.HasPrefix(p, "spec/") {
			delete(m, p)
		}
	}
	dir := repotest.CopyTo(t, m)
	git(t, dir, "init", "-q")
	commitAll(t, dir, "copy")
	return dir
}

const aiSpec = "spec/AiControlProtocol.json"

func TestRepositoryAgainstHEAD(t *testing.T) {
	dir := repoCopy(t)
	code, r, out := runJSON(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
	if code != 0 || r.Status != "pass" {
		t.Fatalf("exit %d, status %s\n%s", code, r.Status, out)
	}
	n := 0
	for _, d := range r.Domains {
		n += len(d.Findings)
	}
	if n != 0 || len(r.Domains) == 0 {
		t.Errorf("%d findings in %d domains, want 0 findings", n, len(r.Domains))
	}

	t.Run("method removed", func(t *testing.T) {
		var methods []string
		editJSON(t, filepath.Join(dir, aiSpec), func(doc map[string]any) {
			for _, m := range doc["methods"].([]any) {
				methods = append(methods, m.(map[string]any)["method"].(string))
			}
		})
		if len(methods) == 0 {
			t.Fatal("the AiControl spec has no methods")
		}
		orig, err := os.ReadFile(filepath.Join(dir, aiSpec))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range methods {
			editJSON(t, filepath.Join(dir, aiSpec), func(doc map[string]any) {
				doc["methods"] = without(doc["methods"], "method", name)
			})
			code, r, out := runJSON(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
			var got []string
			for _, d := range r.Domains {
				for _, f := range d.Findings {
					got = append(got, f.Severity+" "+f.Rule+" "+f.Target)
				}
			}
			want := "breaking method-removed ai-control-protocol.method." + name
			if code != 1 || len(got) != 1 || got[0] != want {
				t.Errorf("removing %s: exit %d, findings %q, want exactly %q\n%s", name, code, got, want, out)
			}
			writeFile(t, filepath.Join(dir, aiSpec), orig)
		}
	})

	t.Run("line limit", func(t *testing.T) {
		orig, err := os.ReadFile(filepath.Join(dir, aiSpec))
		if err != nil {
			t.Fatal(err)
		}
		var limit int64
		editJSON(t, filepath.Join(dir, aiSpec), func(doc map[string]any) {
			limit, _ = find(doc["constants"], "id", "ai-control-protocol.limit.line-bytes")["value"].(json.Number).Int64()
		})
		for _, c := range []struct {
			value     int64
			code      int
			sev, rule string
		}{
			{limit + 1, 0, "additive", "limit-raised"},
			{limit * 2, 0, "additive", "limit-raised"},
			{limit - 1, 1, "breaking", "limit-lowered"},
		} {
			editJSON(t, filepath.Join(dir, aiSpec), func(doc map[string]any) {
				find(doc["constants"], "id", "ai-control-protocol.limit.line-bytes")["value"] = c.value
			})
			code, r, out := runJSON(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
			// Other specs may sort before AiControl: pick its domain by id.
			f := r.Domains[0].Findings
			for _, d := range r.Domains {
				if d.Domain == "ai-control-protocol" {
					f = d.Findings
				}
			}
			if code != c.code || len(f) != 1 || f[0].Severity != c.sev || f[0].Rule != c.rule || f[0].Target != "ai-control-protocol.limit.line-bytes/value" {
				t.Errorf("line limit %d → %d: exit %d, findings %+v\n%s", limit, c.value, code, f, out)
			}
			writeFile(t, filepath.Join(dir, aiSpec), orig)
		}
	})
}

// BenchmarkRun is a whole run against HEAD on a copy of this repository:
// git show of every baseline spec, loading and checking both sides, the
// comparison, the dispositions and the report.
func BenchmarkRun(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	m := repotest.MapFS(b)
	for p, f := range m {
		if len(f.Data) > 1<<20 && !strings.HasPrefix(p, "spec/") {
			delete(m, p)
		}
	}
	dir := repotest.CopyTo(b, m)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "copy"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var out bytes.Buffer
		if code := run([]string{"--root", dir, "--baseline-git-ref", "HEAD", "--enforce"}, &out, io.Discard, now); code != 0 {
			b.Fatalf("exit %d\n%s", code, out.String())
		}
	}
}
