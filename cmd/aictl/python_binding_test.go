package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/internal/aicontroltest"
	"github.com/contractkit/contractkit/internal/bindingcheck"
	"github.com/contractkit/contractkit/internal/fonline"
	"github.com/contractkit/contractkit/internal/repotest"
)

// A small Python client on the generated binding
// (generated/aicontrol/python), type-checked here by Pyright in strict
// mode, runs the protocol smoke's 12 checks against our sample and against
// FOnline's reference Python sample: the binding is what a Python QA
// script imports, and it fits both listeners.
//
//contract:proves ai-control-protocol.validation.protocol-smoke
func TestPythonBindingSmoke(t *testing.T) {
	tools := bindingcheck.Find(t)
	root := repotest.Root(t)
	client := filepath.Join(root, "cmd", "aictl", "testdata", "python", "aicontrol_smoke.py")
	binding := filepath.Join(root, "generated", "aicontrol", "python")
	if out, err := tools.Pyright(t, t.TempDir(), []string{binding}, []string{client}); err != nil {
		t.Fatalf("pyright strict over the client: %v\n%s", err, out)
	}
	py, err := fonline.Python()
	if err != nil {
		t.Fatal(err) // make test installs python3
	}
	smoke := func(t *testing.T, port int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, py, client, "--port", strconv.Itoa(port), "--token-env", "FONLINE_AI_TOKEN")
		// No __pycache__ may appear in generated/, which gen owns.
		cmd.Env = append(append(os.Environ(), "PYTHONPATH="+binding, "PYTHONDONTWRITEBYTECODE=1"), refEnv...)
		out, err := cmd.Output()
		var rep bridge.SmokeReport
		if jerr := json.Unmarshal(out, &rep); jerr != nil || err != nil || rep.Status != "passed" {
			t.Fatalf("python smoke: %v %v\n%s", err, jerr, out)
		}
		if len(rep.Checks) != len(bridge.SmokeChecks) || rep.CheckCount != len(bridge.SmokeChecks) {
			t.Fatalf("python smoke ran %d checks, want %d: %s", len(rep.Checks), len(bridge.SmokeChecks), out)
		}
		for i, c := range rep.Checks {
			if c.Name != bridge.SmokeChecks[i] || c.Status != "passed" {
				t.Errorf("check %d: %s %s (%s), want %s passed", i, c.Name, c.Status, c.Detail, bridge.SmokeChecks[i])
			}
		}
		t.Logf("python smoke: %d/%d passed", len(rep.Checks), len(bridge.SmokeChecks))
	}
	t.Run("aicontrol-sample", func(t *testing.T) {
		s := aicontroltest.StartSample(t, build(t, "cmd/aicontrol-sample"), refEnv, "--token-env", "FONLINE_AI_TOKEN")
		smoke(t, s.Port)
	})
	t.Run("reference-sample", func(t *testing.T) {
		dir := fonline.Require(t, root, true)
		ref, err := fonline.StartSample(dir, refEnv, 20*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(ref.Stop)
		smoke(t, ref.Port)
	})
}
