package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/internal/repotest"
)

const (
	good = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_START","messageId":"m"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}
{"type":"TEXT_MESSAGE_END","messageId":"m"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
`
	custom = `[{"type":"RUN_STARTED","threadId":"t","runId":"r"},{"type":"CUSTOM","name":"n","value":1},{"type":"RUN_FINISHED","threadId":"t","runId":"r"}]`
)

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runAgui(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

//contract:proves ag-ui.view.result ag-ui.view.output-bound
func TestCheckCommand(t *testing.T) {
	goodFile := write(t, "good.ndjson", good)
	customFile := write(t, "custom.json", custom)
	emptyFile := write(t, "empty.ndjson", " \n")

	code, out, _ := runAgui(t, "", "check", goodFile)
	if code != exitAccepted || !strings.Contains(out, "Verdict: ACCEPTED") || strings.Contains(out, "TUTORIAL") {
		t.Errorf("good record: exit %d\n%s", code, out)
	}

	code, out, _ = runAgui(t, "", "check", customFile)
	if code != exitRejected || !strings.Contains(out, "event 1 at /type") || !strings.Contains(out, contract.RuleUnsupportedCustomEvents) {
		t.Errorf("rejected record: exit %d\n%s", code, out)
	}
	// The same record under AG-UI 1.1, with the flag after the file.
	if code, out, _ = runAgui(t, "", "check", customFile, "--profile", contract.ProfileAgUI11); code != exitAccepted {
		t.Errorf("--profile ag-ui-1.1: exit %d\n%s", code, out)
	}

	// Machine output: one JSON document naming event, pointer and rule.
	code, out, _ = runAgui(t, "", "check", "--json", customFile)
	var res struct {
		Accepted bool
		Findings []struct {
			Event   int
			Pointer string
			Rule    string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitRejected || res.Accepted ||
		res.Findings[0].Event != 1 || res.Findings[0].Pointer != "/type" || res.Findings[0].Rule != contract.RuleUnsupportedCustomEvents {
		t.Errorf("--json: exit %d, %v\n%s", code, err, out)
	}

	// Standard input.
	if code, out, _ = runAgui(t, good, "check", "-"); code != exitAccepted || !strings.Contains(out, `Record:  "-"`) {
		t.Errorf("stdin: exit %d\n%s", code, out)
	}

	// Several files: the worst outcome decides the exit status.
	if code, _, _ = runAgui(t, "", "check", goodFile, customFile); code != exitRejected {
		t.Errorf("good and rejected: exit %d", code)
	}
	if code, _, errOut := runAgui(t, "", "check", goodFile, filepath.Join(t.TempDir(), "missing.ndjson"), customFile); code != exitUnusable || !strings.Contains(errOut, "missing.ndjson") {
		t.Errorf("with a missing file: exit %d %s", code, errOut)
	}

	// Unusable inputs.
	for name, args := range map[string][]string{
		"empty":           {"check", emptyFile},
		"directory":       {"check", t.TempDir()},
		"unknown profile": {"check", "--profile", "loose", goodFile},
		"unknown flag":    {"check", "--fast", goodFile},
		"unknown command": {"verify", goodFile},
		"no command":      {},
	} {
		if code, _, errOut := runAgui(t, "", args...); code != exitUnusable || errOut == "" {
			t.Errorf("%s: exit %d, stderr %q", name, code, errOut)
		}
	}

	// An oversized record is read only up to the limit and rejected for its size.
	big := write(t, "big.ndjson", good+strings.Repeat(" ", contract.LimitInputBytes))
	if code, out, _ = runAgui(t, "", "check", big); code != exitRejected || !strings.Contains(out, contract.RuleReaderInputBytes) {
		t.Errorf("oversized: exit %d\n%s", code, out)
	}
	// The file's reader stops one byte past the limit: a record of exactly
	// the limit is read whole and accepted, one byte more is refused.
	atLimit := write(t, "at-limit.ndjson", good+strings.Repeat(" ", contract.LimitInputBytes-len(good)))
	if code, out, _ = runAgui(t, "", "check", atLimit); code != exitAccepted {
		t.Errorf("a record of the limit: exit %d\n%s", code, out)
	}
	onePast := write(t, "one-past.ndjson", good+strings.Repeat(" ", contract.LimitInputBytes-len(good)+1))
	if code, out, _ = runAgui(t, "", "check", onePast); code != exitRejected || !strings.Contains(out, contract.RuleReaderInputBytes) {
		t.Errorf("a record one byte past the limit: exit %d\n%s", code, out)
	}
}

//contract:proves ag-ui.unsupported.network
func TestCheckRefusesURLs(t *testing.T) {
	for _, u := range []string{"https://agent.example/stream", "http://127.0.0.1:8000/run", "ws://agent.example/ws"} {
		code, out, errOut := runAgui(t, "", "check", u)
		if code != exitUnusable || out != "" || !strings.Contains(errOut, contract.RuleUnsupportedNetwork) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", u, code, out, errOut)
		}
	}
}

//contract:proves ag-ui.view.result
func TestTutorialExample(t *testing.T) {
	code, out, _ := runAgui(t, "", "check")
	if code != exitAccepted || !strings.HasPrefix(out, "TUTORIAL EXAMPLE") || !strings.Contains(out, "not a file you chose") {
		t.Errorf("exit %d\n%s", code, out)
	}
	code, out, _ = runAgui(t, "", "check", "--json")
	if code != exitAccepted || !strings.Contains(out, `"example": true`) {
		t.Errorf("--json: exit %d\n%s", code, out)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"check", "--help"}, {"-h"}} {
		code, out, _ := runAgui(t, "", args...)
		if code != exitAccepted {
			t.Errorf("%v: exit %d", args, code)
		}
		for _, want := range []string{"agui check", "--profile", "--json", contract.ProfileStand, contract.ProfileAgUI11, "tutorial example", "Exit status", "standard input"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: help lacks %q", args, want)
			}
		}
	}
}

// Every line of the help fits a terminal of 80 columns.
func TestHelpFitsEightyColumns(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"tap", "--help"}, {"serve", "--help"}} {
		_, out, stderr := runAgui(t, "", args...)
		if out+stderr == "" {
			t.Errorf("%v: no help", args)
		}
		for _, line := range strings.Split(out+stderr, "\n") {
			if n := len([]rune(line)); n > 80 {
				t.Errorf("%v: a line of %d columns: %q", args, n, line)
			}
		}
	}
}

// The built command, run as a process: what a user runs.
func TestCommandProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(t.TempDir(), "agui")
	build := exec.Command("go", "build", "-o", bin, "./cmd/agui")
	build.Dir = repotest.Root(t)
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	cmd := exec.Command(bin, "check", "--json", "-")
	cmd.Stdin = strings.NewReader(custom)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errorsAs(err, &ee) || ee.ExitCode() != exitRejected || !bytes.Contains(out, []byte(contract.RuleUnsupportedCustomEvents)) {
		t.Errorf("process: %v\n%s", err, out)
	}
}

func errorsAs(err error, ee **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*ee = e
	}
	return ok
}

// --version names the command and the toolchain that built it (the
// details come from internal/buildinfo, tested there).
func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version", "-version"} {
		code, out, errOut := runAgui(t, "", arg)
		if code != exitAccepted || !strings.HasPrefix(out, "agui ") || !strings.Contains(out, runtime.Version()) || strings.Count(out, "\n") != 1 || errOut != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, code, out, errOut)
		}
	}
	if _, out, _ := runAgui(t, "", "--help"); !strings.Contains(out, "agui --version") {
		t.Error("the help does not name --version")
	}
}
