package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contractkit/contractkit/internal/contractdiff"
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
	writeFile(t, filepath.Join(dir, "contract-change-dispositions.json"), noDispositions)
	writeFile(t, filepath.Join(dir, "contractkit.json"), demoConfig)
	git(t, dir, "init", "-q")
	commitAll(t, dir, "baseline")
	return dir
}

// demoConfig names the demo repository's spec and, as an override, its
// own meta-schema, which contractdiff then reads from each revision.
var demoConfig = []byte(`{"version": 1, "specs": [{"path": "spec/*.json", "go": {"out": "generated/{package}"}}], "metaSchema": "spec/contract.schema.json"}` + "\n")

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
		// stdout is the report's alone: with --output it is empty, and
		// the summary line goes to stderr.
		if stdout != "" || !strings.Contains(stderr, r.Summary+"\n") {
			t.Errorf("stdout %q, stderr %q: want nothing on stdout and the summary %q on stderr", stdout, stderr, r.Summary)
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
	for _, f := range []string{"spec/demo.json", "spec/contract.schema.json", "spec/dispositions.schema.json", "contractkit.json"} {
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
		`"reason": "TODO: why removing it is acceptable to those who still use it"`,
		"contractdiff: blocked: 1 breaking (1 without disposition), 0 warning, 0 additive, 3 policy, 0 documentation in 1 domain; baseline HEAD (",
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
	// The template pasted unread does not pass: it still says TODO. The
	// run is blocked (exit 1), the report is still written in the format
	// asked for, and no second template is printed for the change.
	data, _ := json.Marshal(map[string]any{"dispositions": r.Missing})
	writeFile(t, filepath.Join(dir, disposition.FileName), data)
	code, stdout, stderr = runCLI(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
	if code != 1 || !strings.Contains(stdout, "contract-change-dispositions.json:/dispositions/0/reason: reason still holds the template's placeholder") ||
		strings.Contains(stdout, "Missing dispositions") || !strings.Contains(stdout, "; 4 disposition problems;") {
		t.Errorf("unfilled template: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, ur, out := runJSON(t, dir, "--baseline-git-ref", "HEAD", "--enforce"); code != 1 || ur.Status != "blocked" || len(ur.DispositionProblems) != 4 || len(ur.Missing) != 0 {
		t.Errorf("unfilled template, json: exit %d, %+v\n%s", code, ur, out)
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
	if code != 1 || len(r.Missing) != 1 || r.Missing[0].Rule != "limit-narrowed" {
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
	if len(r.DispositionProblems) != 1 || !strings.Contains(r.DispositionProblems[0].Message, "stale: the change at demo.limit.items/value is now change "+r.Missing[0].ChangeID) {
		t.Errorf("problems %+v, want the old entry stale", r.DispositionProblems)
	}
	// The new template keeps what the person wrote in the stale entry.
	if m := r.Missing[0]; m.Reason != "Nobody relies on it." || m.Owner != "@contracts" || m.Migration != "Nothing to do." {
		t.Errorf("new template %+v lost the texts of the stale entry", m)
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
	if code != 1 || !strings.Contains(stdout, "contract-change-dispositions.json:/dispositions/0/expires: expired on 2026-11-28, and the change still needs it") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	// A renewal (same change id, a date 90 days on), not a second template.
	if !strings.Contains(stdout, "Renewals: replace the expired entries") || !strings.Contains(stdout, `"changeId": "`+r.Missing[0].ChangeID+`"`) ||
		!strings.Contains(stdout, `"expires": "2027-02-27"`) || strings.Contains(stdout, "Missing dispositions") {
		t.Errorf("no renewal, or a duplicate template:\n%s", stdout)
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
	if code != 1 || !strings.Contains(stdout, "contract-change-dispositions.json:/dispositions/0/changeId: stale: change "+r.Missing[0].ChangeID+" (rule rule-removed at demo.wire.frames) is not a change of this comparison") ||
		!strings.Contains(stdout, "and none of the 1 commit of "+git(t, dir, "rev-parse", "--short=12", "HEAD")+"'s history that changed spec/demo.json made it either: it exists on neither side, so nothing needs this entry; delete it") ||
		!strings.Contains(stdout, "; 1 disposition problem;") {
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

// TestDispositionAfterChangeLanded: a change is committed without a
// disposition, and the entry is added afterwards. Compared with that
// commit, no change of the comparison needs the entry and the baseline's
// dispositions file lacks it, but the baseline's history made the change:
// the entry is settled, naming the commit, not stale.
func TestDispositionAfterChangeLanded(t *testing.T) {
	dir := demoRepo(t)
	editJSON(t, filepath.Join(dir, "spec/demo.json"), func(doc map[string]any) {
		doc["rules"] = without(doc["rules"], "id", "demo.wire.frames")
	})
	_, r, _ := runJSON(t, dir, "--baseline-git-ref", "HEAD")
	if len(r.Missing) != 1 {
		t.Fatalf("missing %v, want one template", r.Missing)
	}
	commitAll(t, dir, "remove the frames rule, without a disposition")
	// Another commit after it, so that the search walks past one that
	// does not touch the spec.
	writeFile(t, filepath.Join(dir, "README.md"), []byte("demo\n"))
	commitAll(t, dir, "readme")
	pasteTemplates(t, dir, r.Missing, "")
	landedIn := git(t, dir, "rev-parse", "--short=12", "HEAD~1")
	code, stdout, _ := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
	if code != 0 || !strings.Contains(stdout, "Settled dispositions") ||
		!strings.Contains(stdout, "contract-change-dispositions.json:/dispositions/0: rule-removed at demo.wire.frames (made by commit "+landedIn+" of the baseline's history)") ||
		strings.Contains(stdout, "stale") {
		t.Errorf("exit %d, want the entry settled by %s\n%s", code, landedIn, stdout)
	}
	code, jr, _ := runJSON(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
	if code != 0 || len(jr.DispositionProblems) != 0 {
		t.Errorf("json: exit %d, problems %v", code, jr.DispositionProblems)
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
	// frame-bytes bounds what the server sends, and the server is
	// implemented here: clients sized for 1024 bytes may now get 4096.
	code, r, out := runJSON(t, dir, "--baseline-dir", base, "--enforce")
	if code != 1 || len(r.Domains[0].Findings) != 2 || r.Domains[0].Findings[0].Rule != "limit-widened" || r.Domains[0].Findings[0].Severity != "breaking" {
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
		{nil, "no baseline: HEAD~1 (HEAD has no parent); pass --allow-missing-baseline"},
		{[]string{"--baseline-git-ref", "HEAD", "--baseline-dir", dir}, "give at most one of"},
		{[]string{"--baseline-git-ref", "HEAD", "--format", "xml"}, `unknown --format "xml"`},
		{[]string{"--baseline-git-ref", "HEAD", "extra"}, `unexpected argument "extra"`},
		{[]string{"--no-such-flag"}, "bad usage"},
	} {
		code, stdout, _ := runCLI(t, dir, c.args...)
		if code != 2 || !strings.Contains(stdout, c.want) || !strings.HasPrefix(stdout, "contractdiff: error:") {
			t.Errorf("%v: exit %d, stdout %q", c.args, code, stdout)
		}
	}
	// --help prints once, to stdout, and nothing to stderr.
	for _, h := range []string{"--help", "-h"} {
		var out, errb bytes.Buffer
		if code := run([]string{h}, &out, &errb, now); code != 0 || strings.Count(out.String(), "usage: contractdiff [--baseline-git-ref REF | --baseline-dir DIR]") != 1 ||
			strings.Count(out.String(), "-allow-missing-baseline") != 1 || !strings.Contains(out.String(), "Exit codes:") || errb.Len() != 0 {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", h, code, out.String(), errb.String())
		}
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

// noDispositions is an empty dispositions file.
var noDispositions = []byte(`{"$schema": "./spec/dispositions.schema.json", "dispositions": []}` + "\n")

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
			// The removal, what it skipped (deprecation, reservation) and
			// the version it does not announce.
			want := []string{"breaking method-removed ai-control-protocol.method." + name,
				"policy removed-not-reserved ai-control-protocol.method." + name,
				"policy removed-without-deprecation ai-control-protocol.method." + name,
				"policy breaking-without-major-bump ai-control-protocol/version"}
			if code != 1 || strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("removing %s: exit %d, findings %q, want %q\n%s", name, code, got, want, out)
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
		// The line limit bounds what both parties send and accept, and
		// this repository implements both (the bridge and its client):
		// raising it lets them send lines old peers reject, lowering it
		// rejects lines old peers send.
		for _, c := range []struct {
			value     int64
			code      int
			sev, rule string
		}{
			{limit + 1, 1, "breaking", "limit-widened"},
			{limit * 2, 1, "breaking", "limit-widened"},
			{limit - 1, 1, "breaking", "limit-narrowed"},
		} {
			editJSON(t, filepath.Join(dir, aiSpec), func(doc map[string]any) {
				find(doc["constants"], "id", "ai-control-protocol.limit.line-bytes")["value"] = c.value
			})
			code, r, out := runJSON(t, dir, "--baseline-git-ref", "HEAD", "--enforce")
			if len(r.Domains) == 0 {
				t.Fatalf("line limit %d → %d: exit %d, no domain compared\n%s", limit, c.value, code, out)
			}
			// Other specs may sort before AiControl: pick its domain by id.
			f := r.Domains[0].Findings
			for _, d := range r.Domains {
				if d.Domain == "ai-control-protocol" {
					f = d.Findings
				}
			}
			if code != c.code || len(f) != 2 || f[0].Severity != c.sev || f[0].Rule != c.rule || f[0].Target != "ai-control-protocol.limit.line-bytes/value" ||
				f[1].Rule != "breaking-without-major-bump" {
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

// ---- the check cannot be bypassed ----

// branchRepo is demoRepo with a feature branch checked out.
func branchRepo(t *testing.T) string {
	dir := demoRepo(t)
	git(t, dir, "checkout", "-q", "-b", "feature")
	return dir
}

// A breaking commit followed by any other commit is still compared: the
// default baseline is the merge-base with main, not the commit before.
func TestMultiCommitBypass(t *testing.T) {
	dir := branchRepo(t)
	editJSON(t, filepath.Join(dir, "spec/demo.json"), func(doc map[string]any) {
		doc["methods"] = without(doc["methods"], "id", "demo.method.confirm")
	})
	commitAll(t, dir, "break the contract")
	writeFile(t, filepath.Join(dir, "README.md"), []byte("docs\n"))
	commitAll(t, dir, "a harmless commit on top")

	code, r, out := runJSON(t, dir, "--enforce")
	if code != 1 || r.Status != "blocked" || len(r.Missing) != 1 || r.Missing[0].Target != "demo.method.confirm" {
		t.Fatalf("default baseline: exit %d, %+v\n%s", code, r, out)
	}
	if !strings.Contains(out, "baseline merge-base of HEAD and main (") {
		t.Errorf("the summary does not name the merge-base:\n%s", out)
	}
	// The old default, the commit before, sees only the harmless commit:
	// that is the bypass the merge-base closes.
	if code, r, out := runJSON(t, dir, "--baseline-git-ref", "HEAD~1", "--enforce"); code != 0 || r.Status != "pass" {
		t.Errorf("HEAD~1: exit %d, %+v\n%s", code, r, out)
	}
	// origin/main is preferred to a local main that lags behind it.
	git(t, dir, "update-ref", "refs/remotes/origin/main", "HEAD~1")
	if code, r, out := runJSON(t, dir, "--enforce"); code != 0 || !strings.Contains(out, "baseline merge-base of HEAD and origin/main (") {
		t.Errorf("with origin/main at the breaking commit: exit %d, %+v\n%s", code, r, out)
	}
}

// The spec change in one commit and its disposition in the next passes on
// the branch, and on main after the merge; the entry is not stale.
func TestTwoCommitDispositionFlow(t *testing.T) {
	dir := branchRepo(t)
	editJSON(t, filepath.Join(dir, "spec/demo.json"), func(doc map[string]any) {
		doc["methods"] = without(doc["methods"], "id", "demo.method.confirm")
	})
	commitAll(t, dir, "remove confirm")
	_, r, _ := runJSON(t, dir)
	if len(r.Missing) != 1 {
		t.Fatalf("missing %+v", r.Missing)
	}
	pasteTemplates(t, dir, r.Missing, "")
	commitAll(t, dir, "its disposition")
	code, r, out := runJSON(t, dir, "--enforce")
	if code != 0 || r.Status != "pass" || len(r.DispositionProblems) != 0 {
		t.Fatalf("branch, two commits: exit %d, %+v\n%s", code, r, out)
	}
	// Merged into main with a merge commit: on main the baseline is the
	// commit before, the main of before the merge.
	git(t, dir, "checkout", "-q", "main")
	git(t, dir, "-c", "user.name=test", "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
	code, r, out = runJSON(t, dir, "--enforce")
	if code != 0 || r.Status != "pass" || !strings.Contains(out, "baseline HEAD~1 (") {
		t.Errorf("main after the merge: exit %d, %+v\n%s", code, r, out)
	}
}

// On main itself the baseline is the commit before; with one commit there
// is none, which only --allow-missing-baseline accepts.
func TestDefaultBaselineOnMain(t *testing.T) {
	dir := demoRepo(t)
	if code, stdout, _ := runCLI(t, dir, "--enforce"); code != 2 || !strings.Contains(stdout, "no baseline: HEAD~1 (HEAD has no parent)") {
		t.Errorf("one commit: exit %d\n%s", code, stdout)
	}
	if code, stdout, _ := runCLI(t, dir, "--allow-missing-baseline", "--enforce"); code != 0 || !strings.Contains(stdout, "contractdiff: bootstrap:") {
		t.Errorf("one commit, missing allowed: exit %d\n%s", code, stdout)
	}
	editJSON(t, filepath.Join(dir, "spec/demo.json"), func(doc map[string]any) {
		doc["methods"] = without(doc["methods"], "id", "demo.method.confirm")
	})
	commitAll(t, dir, "break on main")
	if code, stdout, _ := runCLI(t, dir, "--enforce"); code != 1 || !strings.Contains(stdout, "baseline HEAD~1 (") || !strings.Contains(stdout, "method-removed") {
		t.Errorf("on main: exit %d\n%s", code, stdout)
	}
}

// ---- annotations land in the diff ----

// hunks returns the line ranges of the current file that git diff shows.
func hunks(t *testing.T, dir, file string) [][2]int {
	t.Helper()
	out := git(t, dir, "diff", "-U3", "--", file)
	re := regexp.MustCompile(`(?m)^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)
	var rs [][2]int
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		start, _ := strconv.Atoi(m[1])
		n := 1
		if m[2] != "" {
			n, _ = strconv.Atoi(m[2])
		}
		rs = append(rs, [2]int{start, start + n - 1})
	}
	if len(rs) == 0 {
		t.Fatalf("git diff shows no hunk:\n%s", out)
	}
	return rs
}

// Every annotation of a finding points at a line that git diff shows:
// the changed value, the en or ru line of a changed text, and for a
// removal the line of the current file next to it, not the line that
// opens its list.
func TestAnnotationLinesInDiffHunks(t *testing.T) {
	dir := demoRepo(t)
	path := filepath.Join(dir, "spec/demo.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	lines := strings.Split(text, "\n")
	var kept []string
	for _, l := range lines {
		switch {
		case strings.Contains(l, `{"name": "tags", "type": {"array": "string"}`): // a field, eight lines below its list
		case strings.Contains(l, `{"value": "fast", "description"`): // an enum value
		default:
			kept = append(kept, l)
		}
	}
	text = strings.Join(kept, "\n")
	for old, new := range map[string]string{
		`"requirement": {"en": "get returns matching items."`: `"requirement": {"en": "get returns the matching items."`,
		`"maxLength": 64`: `"maxLength": 32`,
	} {
		if !strings.Contains(text, old) {
			t.Fatalf("the demo spec lacks %q", old)
		}
		text = strings.Replace(text, old, new, 1)
	}
	writeFile(t, path, []byte(text))

	_, gh, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "github")
	ranges := hunks(t, dir, "spec/demo.json")
	re := regexp.MustCompile(`(?m)^::(error|warning|notice) file=spec/demo\.json,line=(\d+),title=([a-z-]+)::`)
	seen := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(gh, -1) {
		line, _ := strconv.Atoi(m[2])
		rule := m[3]
		seen[rule] = true
		if rule == contractdiff.RuleBreakingWithoutMajorBump {
			continue // about the version line, which the change leaves alone
		}
		in := false
		for _, r := range ranges {
			in = in || line >= r[0] && line <= r[1]
		}
		if !in {
			t.Errorf("%s annotated at line %d, outside every hunk %v", rule, line, ranges)
		}
	}
	for _, rule := range []string{"field-removed", "enum-value-removed", "translation-stale", "requirement-changed", "compatible-change"} {
		if !seen[rule] {
			t.Errorf("no %s annotation:\n%s%s", rule, gh, stderr)
		}
	}
}

// TestStepSummary runs the github format with GITHUB_STEP_SUMMARY set, as
// a GitHub Actions step does: the markdown report is appended to that
// file for a pass, a blocked run and a bootstrap, and nothing is written
// without the variable.
func TestStepSummary(t *testing.T) {
	dir := demoRepo(t)
	summary := filepath.Join(t.TempDir(), "step-summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	read := func() string {
		t.Helper()
		data, err := os.ReadFile(summary)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	// Pass: nothing changed since HEAD.
	if code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "github", "--enforce"); code != 0 {
		t.Fatalf("pass: exit %d\n%s%s", code, stdout, stderr)
	}
	pass := read()
	containsAll(t, "pass summary", pass,
		"# Contract diff\n\n**Status: pass**\n",
		"| Baseline | `HEAD (",
		"| Current | working tree |\n",
		"| Summary | pass: 0 breaking, 0 warning, 0 additive, 0 policy, 0 documentation in 1 domain; baseline HEAD (",
		"\n## demo\n\n`spec/demo.json` · compared · 0 findings\n",
	)
	if strings.Contains(pass, "## Missing dispositions") {
		t.Errorf("pass summary asks for dispositions:\n%s", pass)
	}

	// Failure: a removed method without a disposition; the summary is
	// appended after the first, with the finding and its template.
	editJSON(t, filepath.Join(dir, "spec/demo.json"), func(doc map[string]any) {
		doc["methods"] = without(doc["methods"], "id", "demo.method.confirm")
	})
	if code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "github", "--enforce"); code != 1 {
		t.Fatalf("blocked: exit %d\n%s%s", code, stdout, stderr)
	}
	both := read()
	if !strings.HasPrefix(both, pass) {
		t.Fatalf("the second run did not append to the summary:\n%s", both)
	}
	blocked := strings.TrimPrefix(both, pass)
	containsAll(t, "blocked summary", blocked,
		"# Contract diff\n\n**Status: blocked**\n",
		"| breaking | `method-removed` | `demo.method.confirm` | method confirm was removed | **missing** |",
		"## Missing dispositions\n\nPaste into the `dispositions` list of `contract-change-dispositions.json`, then replace every `TODO`:",
		`"target": "demo.method.confirm"`,
	)

	// Bootstrap: no baseline, nothing to compare.
	if err := os.Remove(summary); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "", "--allow-missing-baseline", "--format", "github", "--enforce"); code != 0 {
		t.Fatalf("bootstrap: exit %d\n%s%s", code, stdout, stderr)
	}
	boot := read()
	containsAll(t, "bootstrap summary", boot, "**Status: bootstrap**", "\n## demo\n\n`spec/demo.json` · bootstrap · 0 findings\n")

	// Without the variable (a run outside GitHub Actions) nothing is written.
	if err := os.Remove(summary); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	if code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "github"); code != 0 {
		t.Fatalf("no summary: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(summary); !os.IsNotExist(err) {
		t.Errorf("a summary was written without GITHUB_STEP_SUMMARY: %v", err)
	}

	// A summary file that cannot be opened is an error, exit 2.
	t.Setenv("GITHUB_STEP_SUMMARY", filepath.Join(t.TempDir(), "no-such-dir", "summary.md"))
	if code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "github"); code != 2 || !strings.Contains(stdout+stderr, "job summary:") {
		t.Errorf("unwritable summary: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestMadeBy: a commit of the history made an entry's change when it made
// the same edit at the same target, even if it judged the edit under
// another rule (other parties then); another edit there is not it.
func TestMadeBy(t *testing.T) {
	const dom, target, after = "demo", "demo.type.ping-result/fields/ok", `{"name":"ok","nullable":false,"required":true,"type":"boolean"}`
	e := &disposition.Entry{Domain: dom, Rule: contractdiff.RuleRequiredFieldAdded, Target: target,
		ChangeID: contractdiff.ChangeID(dom, contractdiff.RuleRequiredFieldAdded, target, "", after)}
	then := contractdiff.Finding{Domain: dom, Rule: contractdiff.RuleFieldAdded, Target: target, After: after}
	if !madeBy(e, then) {
		t.Errorf("the same edit judged %s then is not recognised", then.Rule)
	}
	other := then
	other.After = `{"name":"ok","nullable":true,"required":true,"type":"boolean"}`
	if madeBy(e, other) {
		t.Errorf("another edit at the same target counts as the entry's change")
	}
	elsewhere := then
	elsewhere.Target = "demo.type.pong-result/fields/ok"
	if madeBy(e, elsewhere) {
		t.Errorf("the same edit at another target counts as the entry's change")
	}
}

// containsAll fails the test for each wanted text that got lacks.
func containsAll(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, got)
		}
	}
}

// ---- a repository that names its own layout ----

// A repository with none of the schema files, its spec under contracts/,
// its dispositions under ci/ and "trunk" as its main branch: contractdiff
// reads all of that from contractkit.json and the schemas it carries.
func TestConfiguredRepository(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	copyFile(t, filepath.Join(repotest.Root(t), "internal/contractdiff/testdata/base.json"), filepath.Join(dir, "contracts/demo.json"))
	writeFile(t, filepath.Join(dir, "contractkit.json"), []byte(`{"version": 1,
  "specs": [{"path": "contracts/demo.json", "docs": {"out": "docs/{lang}/{id}"}}],
  "contractdiff": {"dispositions": "ci/dispositions.json", "defaultBranch": "trunk"}}`))
	git(t, dir, "init", "-q", "-b", "trunk")
	commitAll(t, dir, "baseline")
	git(t, dir, "checkout", "-q", "-b", "feature")
	editJSON(t, filepath.Join(dir, "contracts/demo.json"), func(doc map[string]any) {
		doc["methods"] = without(doc["methods"], "id", "demo.method.confirm")
	})
	commitAll(t, dir, "remove a method")
	code, r, out := runJSON(t, dir, "--enforce")
	if code != 1 || len(r.Missing) != 1 || r.Missing[0].Target != "demo.method.confirm" || !strings.Contains(out, "merge-base of HEAD and trunk") {
		t.Fatalf("exit %d, missing %+v\n%s", code, r.Missing, out)
	}
	for i := range r.Missing {
		r.Missing[i].Reason, r.Missing[i].Migration = "Nobody calls it.", "Nothing to do."
		r.Missing[i].Owner, r.Missing[i].Issue = "@contracts", "#5"
	}
	data, err := json.Marshal(map[string]any{"dispositions": r.Missing})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "ci/dispositions.json"), data)
	if code, r, out := runJSON(t, dir, "--enforce"); code != 0 || r.Status != "pass" {
		t.Errorf("with the disposition in ci/dispositions.json: exit %d, %+v\n%s", code, r, out)
	}
	// The spec folder is all the baseline lists: a spec elsewhere is not one.
	for _, f := range []string{"spec/contract.schema.json", "spec/dispositions.schema.json", "contract-change-dispositions.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s exists; the test needs a repository without it", f)
		}
	}
}

// A config contractdiff cannot use stops it before any comparison, with
// the config's pointer.
func TestConfigRefused(t *testing.T) {
	dir := demoRepo(t)
	writeFile(t, filepath.Join(dir, "contractkit.json"), []byte(`{"version": 1, "specs": [{"path": "spec/*.json", "go": {"out": "generated/{package}"}}], "contractdiff": {"dispositon": "x.json"}}`))
	code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD")
	if code != 2 || !strings.Contains(stderr, `contractkit.json:/contractdiff/dispositon: unknown key "dispositon"`) {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

// --format changelog writes the release notes of the change, grouped by
// party, in the language --lang names (issue 30 §3).
func TestChangelogFormat(t *testing.T) {
	dir := demoRepo(t)
	editJSON(t, filepath.Join(dir, "spec/demo.json"), func(doc map[string]any) {
		doc["domain"].(map[string]any)["version"] = "1.3"
		doc["methods"] = without(doc["methods"], "id", "demo.method.confirm")
	})
	code, en, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "changelog")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"## Demo protocol 1.3", "Changes since 1.2.", "### For the client end (Client)", "### For the server end (Server)",
		"#### Breaking changes", "**method removed**: method `confirm`", "(no disposition yet)"} {
		if !strings.Contains(en, want) {
			t.Errorf("the notes lack %q:\n%s", want, en)
		}
	}
	_, ru, _ := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "changelog", "--lang", "ru")
	for _, want := range []string{"## Демонстрационный протокол 1.3", "Изменения с версии 1.2.", "#### Ломающие изменения", "**метод удалён**: метод `confirm`"} {
		if !strings.Contains(ru, want) {
			t.Errorf("the Russian notes lack %q:\n%s", want, ru)
		}
	}
	if code, _, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "changelog", "--lang", "de"); code != 2 || !strings.Contains(stderr, `unknown --lang "de"`) {
		t.Errorf("--lang de: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--lang", "ru"); code != 2 || !strings.Contains(stderr, "--lang applies to --format changelog only") {
		t.Errorf("--lang without changelog: exit %d, %s", code, stderr)
	}
}

// --markdown writes, from the one comparison of a --format github run,
// the report --format markdown prints: the action gets its annotations,
// job summary and report file from one run. A symbolic link where a
// report goes is refused, with the file it points to left as it was.
func TestMarkdownBesideAnotherFormat(t *testing.T) {
	dir := demoRepo(t)
	editJSON(t, filepath.Join(dir, "spec/demo.json"), func(doc map[string]any) {
		doc["methods"] = without(doc["methods"], "id", "demo.method.confirm")
	})
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	_, alone, _ := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "markdown")
	md := filepath.Join(t.TempDir(), "contract-diff.md")
	code, gh, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "github", "--markdown", md, "--enforce")
	if code != 1 || !strings.Contains(gh, "::error file=spec/demo.json,line=") {
		t.Fatalf("exit %d, want 1 with an annotation:\n%s%s", code, gh, stderr)
	}
	if want := "contractdiff: 1 disposition missing; the report in " + md + " has an entry to paste for each\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	js := filepath.Join(t.TempDir(), "contract-diff.json")
	_, _, stderr = runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "json", "--output", js, "--markdown", md)
	if want := "contractdiff: 1 disposition missing; the reports in " + js + " and " + md + " have an entry to paste for each\n"; !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr %q, want it to begin %q", stderr, want)
	}
	got, err := os.ReadFile(md)
	// The markdown run prints its summary line after the report.
	if err != nil || !strings.HasPrefix(alone, string(got)) || !strings.Contains(string(got), "## Missing dispositions") {
		t.Errorf("--markdown wrote %q (%v); --format markdown printed:\n%s", got, err, alone)
	}
	// One file named twice would keep the markdown report only.
	code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "json", "--output", md, "--markdown", filepath.Dir(md)+"/./"+filepath.Base(md))
	if code != 2 || !strings.Contains(stderr, "--output and --markdown name the same file "+md) {
		t.Errorf("--output and --markdown of one file: exit %d\n%s%s", code, stdout, stderr)
	}
	// So would one named by a relative path and by its absolute one.
	t.Chdir(filepath.Dir(md))
	code, stdout, stderr = runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "json", "--output", filepath.Base(md), "--markdown", md)
	if code != 2 || !strings.Contains(stderr, "--output and --markdown name the same file "+filepath.Base(md)) {
		t.Errorf("--output %s and --markdown %s: exit %d\n%s%s", filepath.Base(md), md, code, stdout, stderr)
	}
	for _, flag := range []string{"--markdown", "--output"} {
		other := filepath.Join(t.TempDir(), "other.md")
		writeFile(t, other, []byte("kept\n"))
		link := filepath.Join(t.TempDir(), "report.md")
		if err := os.Symlink(other, link); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "github", flag, link)
		kept, _ := os.ReadFile(other)
		if code != 2 || !strings.Contains(stderr, "symbolic link") || string(kept) != "kept\n" {
			t.Errorf("%s through a link: exit %d, the link's target holds %q\n%s%s", flag, code, kept, stdout, stderr)
		}
	}
}

// A policy file of contractdiff.MaxPolicyBytes is read; one byte more is
// refused naming the limit, and a file far larger is refused by its size
// before it is read (a sparse file of 4 GiB, which reading would take).
func TestPolicyFileLimit(t *testing.T) {
	dir := demoRepo(t)
	policy := filepath.Join(dir, contractdiff.PolicyFile)
	pad := func(n int) string {
		const doc = `{"severities": []}`
		return doc + strings.Repeat(" ", n-len(doc))
	}
	writeFile(t, policy, []byte(pad(contractdiff.MaxPolicyBytes)))
	if code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD"); code != 0 {
		t.Errorf("a policy of %d bytes: exit %d\n%s%s", contractdiff.MaxPolicyBytes, code, stdout, stderr)
	}
	writeFile(t, policy, []byte(pad(contractdiff.MaxPolicyBytes+1)))
	want := fmt.Sprintf("the file is %d bytes; the limit is %d", contractdiff.MaxPolicyBytes+1, contractdiff.MaxPolicyBytes)
	if code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD"); code != 2 || !strings.Contains(stderr, policy+": "+want) {
		t.Errorf("a policy of %d bytes: exit %d, want 2 and %q\n%s%s", contractdiff.MaxPolicyBytes+1, code, want, stdout, stderr)
	}
	if err := os.Truncate(policy, 4<<30); err != nil {
		t.Fatal(err)
	}
	want = fmt.Sprintf("the file is %d bytes; the limit is %d", int64(4<<30), contractdiff.MaxPolicyBytes)
	if code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD"); code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("a policy of 4 GiB: exit %d, want 2 and %q\n%s%s", code, want, stdout, stderr)
	}
}

// A dispositions file far larger than disposition.MaxFileBytes is refused
// by its size before it is read (its limit at the byte is tested where it
// is parsed).
func TestDispositionsFileTooLarge(t *testing.T) {
	dir := demoRepo(t)
	if err := os.Truncate(filepath.Join(dir, "contract-change-dispositions.json"), 4<<30); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("contract-change-dispositions.json: the file is %d bytes; the limit is %d", int64(4<<30), disposition.MaxFileBytes)
	if code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD"); code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, want 2 and %q\n%s%s", code, want, stdout, stderr)
	}
}

// A report written over a file of --output or --markdown replaces its
// bytes whole and keeps its mode (atomicfile: the new file takes the old
// one's permissions).
func TestReportFilesKeepTheirMode(t *testing.T) {
	dir := demoRepo(t)
	out, md := filepath.Join(t.TempDir(), "r.json"), filepath.Join(t.TempDir(), "r.md")
	for path, mode := range map[string]os.FileMode{out: 0o600, md: 0o640} {
		writeFile(t, path, []byte("old\n"))
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	if code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "json", "--output", out, "--markdown", md); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for path, mode := range map[string]os.FileMode{out: 0o600, md: 0o640} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(path); st.Mode().Perm() != mode || string(data) == "old\n" {
			t.Errorf("%s: mode %v (want %v), %q", path, st.Mode().Perm(), mode, data)
		}
	}
}
