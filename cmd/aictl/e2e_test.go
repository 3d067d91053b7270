package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/aicontroltest"
	"github.com/contractkit/contractkit/internal/repotest"
)

const e2eToken = "e2e-token-Zq81"

// builds holds each binary the tests built, so that a command is linked
// once per test run instead of once per test.
var builds = struct {
	sync.Mutex
	dir   string
	paths map[string]string
}{paths: map[string]string{}}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "aictl-e2e")
	if err != nil {
		panic(err)
	}
	builds.dir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// build compiles a command of this module (once per run and build tags)
// and returns the binary's path.
func build(t *testing.T, pkg string, tags ...string) string {
	t.Helper()
	key := pkg + " " + strings.Join(tags, ",")
	builds.Lock()
	defer builds.Unlock()
	if p, ok := builds.paths[key]; ok {
		return p
	}
	out := filepath.Join(builds.dir, strconv.Itoa(len(builds.paths)), filepath.Base(pkg))
	args := []string{"build", "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, "./"+pkg)...)
	cmd.Dir = repotest.Root(t)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	builds.paths[key] = out
	return out
}

func runAictl(t *testing.T, bin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// Tried as a new user would: start the sample, the smoke passes, act then
// wait shows the completion, observe shows the new position; the token
// appears in no output.
//
//contract:proves ai-control-protocol.validation.protocol-smoke ai-control-protocol.security.secret-input ai-control-protocol.validation.project-native ai-control-protocol.integration.observation-schema ai-control-protocol.method.ping
//contract:proves ai-control-protocol.security.server-authority ai-control-protocol.validation.gameplay-authority
func TestSampleAndAictl(t *testing.T) {
	sampleBin := build(t, "cmd/aicontrol-sample")
	aictl := build(t, "cmd/aictl")
	env := []string{"AICONTROL_TOKEN=" + e2eToken}
	s := aicontroltest.StartSample(t, sampleBin, env)
	port := strconv.Itoa(s.Port)
	var outputs []string

	code, out, errOut := runAictl(t, aictl, env, "smoke", "--port", port)
	outputs = append(outputs, out, errOut)
	var rep bridge.SmokeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("smoke report %q: %v", out, err)
	}
	if code != 0 || rep.Status != "passed" || rep.CheckCount != 12 || rep.SchemaVersion != 1 {
		t.Fatalf("smoke: exit %d, %s\n%s", code, out, errOut)
	}
	for i, c := range rep.Checks {
		if c.Name != bridge.SmokeChecks[i] || c.Status != "passed" {
			t.Errorf("check %d: %+v", i, c)
		}
	}

	code, out, errOut = runAictl(t, aictl, env, "act", "--port", port, "--type", "move", "--x", "3", "--y", "4")
	outputs = append(outputs, out, errOut)
	var act aicontrol.ActResult
	if err := json.Unmarshal([]byte(out), &act); code != 0 || err != nil || !act.Accepted {
		t.Fatalf("act: exit %d %q %q", code, out, errOut)
	}
	code, out, errOut = runAictl(t, aictl, env, "wait", "--port", port, "--command-seq", strconv.FormatInt(act.CommandSeq, 10))
	outputs = append(outputs, out, errOut)
	var w waitResult
	if err := json.Unmarshal([]byte(out), &w); code != 0 || err != nil || !w.Completed.Success || w.Completed.Message != "moved" || w.CommandSeq != act.CommandSeq {
		t.Fatalf("wait: exit %d %q %q", code, out, errOut)
	}
	code, out, errOut = runAictl(t, aictl, env, "observe", "--port", port)
	outputs = append(outputs, out, errOut)
	var obs struct {
		Observation struct {
			SchemaVersion int `json:"schemaVersion"`
			Agent         struct{ X, Y int64 }
		} `json:"observation"`
	}
	if err := json.Unmarshal([]byte(out), &obs); code != 0 || err != nil || obs.Observation.Agent.X != 3 || obs.Observation.Agent.Y != 4 || obs.Observation.SchemaVersion != 1 {
		t.Fatalf("observe after move: exit %d %q", code, out)
	}
	// fail and unknown actions complete with success=false.
	for _, typ := range []string{"fail", "teleport"} {
		code, out, _ = runAictl(t, aictl, env, "wait", "--port", port, "--type", typ)
		if err := json.Unmarshal([]byte(out), &w); code != 0 || err != nil || w.Completed.Success {
			t.Errorf("wait --type %s: exit %d %q", typ, code, out)
		}
	}
	code, out, _ = runAictl(t, aictl, env, "ping", "--port", port)
	if code != 0 || strings.TrimSpace(out) != `{"ok":true}` {
		t.Errorf("ping: exit %d %q", code, out)
	}
	code, out, _ = runAictl(t, aictl, env, "events", "--port", port, "--after-seq", "0", "--limit", "2")
	var ev aicontrol.EventsResult
	if err := json.Unmarshal([]byte(out), &ev); code != 0 || err != nil || len(ev.Events) != 2 || ev.Events[0].Seq != 1 {
		t.Errorf("events: exit %d %q", code, out)
	}
	code, out, _ = runAictl(t, aictl, env, "watch", "--port", port, "--after-seq", "0", "--count", "3")
	if code != 0 || strings.Count(out, "\n") != 3 {
		t.Errorf("watch --count 3: exit %d %q", code, out)
	}
	outputs = append(outputs, s.Stderr())
	for _, o := range outputs {
		if strings.Contains(o, e2eToken) {
			t.Errorf("the token leaked into output %q", o)
		}
	}
}

// The smoke fails, check by check, against an endpoint without a token.
func TestSmokeNeedsToken(t *testing.T) {
	s := aicontroltest.StartSample(t, build(t, "cmd/aicontrol-sample"), []string{"AICONTROL_TOKEN="})
	code, out, errOut := runAictl(t, build(t, "cmd/aictl"), []string{"AICONTROL_TOKEN="}, "smoke", "--port", strconv.Itoa(s.Port))
	var rep bridge.SmokeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.Status != "failed" || rep.CheckCount != 12 {
		t.Fatalf("smoke without token: exit %d %q %q", code, out, errOut)
	}
	if rep.Checks[0].Status != "failed" || !strings.Contains(rep.Checks[0].Detail, "no token configured") {
		t.Errorf("first check: %+v", rep.Checks[0])
	}
	if !strings.Contains(errOut, "smoke failed") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("stderr %q is not one line", errOut)
	}
}

// Unsafe settings make the sample exit 2 before binding; aictl refuses a
// remote host without opt-in, and reports failures in one line.
//
//contract:proves ai-control-protocol.security.remote-token ai-control-protocol.security.plaintext
func TestRefusals(t *testing.T) {
	sampleBin := build(t, "cmd/aicontrol-sample")
	aictl := build(t, "cmd/aictl")
	for _, args := range [][]string{
		{"--host", "0.0.0.0"},
		{"--host", "0.0.0.0", "--allow-remote"},
		{"--port", "70000"},
		{"--max-queued", "-1"},
	} {
		cmd := exec.Command(sampleBin, args...)
		cmd.Env = append(os.Environ(), "AICONTROL_TOKEN=")
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("sample %v: %v %s", args, err, out)
		}
	}
	code, _, errOut := runAictl(t, aictl, nil, "ping", "--host", "192.0.2.1")
	if code != 2 || !strings.Contains(errOut, "not loopback") {
		t.Errorf("remote host without opt-in: exit %d %q", code, errOut)
	}
	code, _, errOut = runAictl(t, aictl, nil, "ping", "--host", "192.0.2.1", "--allow-remote", "--timeout", "200ms")
	if code != 1 || !strings.Contains(errOut, "unencrypted") {
		t.Errorf("remote host with opt-in: exit %d %q", code, errOut)
	}
	free := freePort(t)
	code, out, errOut := runAictl(t, aictl, nil, "status", "--port", strconv.Itoa(free))
	if code != 1 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "refused") {
		t.Errorf("nothing listening: exit %d %q %q", code, out, errOut)
	}
	for _, args := range [][]string{{"teleport"}, {"act"}, {"act", "--type"}, {"wait"}, {"events", "--limit", "x"}, {"act", "--type", "t", "--json", "[1]"}, {"act", "--type", "t", "--field", "novalue"}} {
		if code, _, errOut := runAictl(t, aictl, nil, args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d %q", args, code, errOut)
		}
	}
	if code, _, errOut := runAictl(t, aictl, nil, "--help"); code != 0 || !strings.Contains(errOut, "usage: aictl") {
		t.Errorf("--help: %d %q", code, errOut)
	}
}

// A build with the aicontrol_disabled tag has no listener: the sample
// cannot start it, and the binary holds none of the listener's code.
//
//contract:proves ai-control-protocol.security.shipping-build ai-control-protocol.validation.shipping-artifact
func TestShippingBuildHasNoListener(t *testing.T) {
	release := build(t, "cmd/aicontrol-sample", "aicontrol_disabled")
	cmd := exec.Command(release, "--port", "0")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "compiled out") {
		t.Fatalf("release sample: %v %s", err, out)
	}
	dev := build(t, "cmd/aicontrol-sample")
	listenerCode := []string{"bridge.(*Server).serve", "bridge.(*Server).dispatch", "bridge.decodeEnvelope", "bridge.(*state).enqueue"}
	symbols := func(bin string) string {
		b, err := exec.Command("go", "tool", "nm", bin).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool nm: %v %s", err, b)
		}
		return string(b)
	}
	devSyms, relSyms := symbols(dev), symbols(release)
	for _, sym := range listenerCode {
		if !strings.Contains(devSyms, sym) {
			t.Errorf("development build lacks %s: the check would prove nothing", sym)
		}
		if strings.Contains(relSyms, sym) {
			t.Errorf("release build contains %s", sym)
		}
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return p
}
