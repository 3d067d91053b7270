package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/aicontroltest"
	"github.com/contractkit/contractkit/internal/fonline"
	"github.com/contractkit/contractkit/internal/repotest"
)

// refToken has the length of the token the reference's own smoke uses:
// 12 bytes, under the 16 a remote listener needs, so a loopback listener
// takes it with a warning.
const refToken = "ref-smoke-12"

// refEnv is the environment of the reference's tools: they read the token
// from FONLINE_AI_TOKEN.
var refEnv = []string{"FONLINE_AI_TOKEN=" + refToken}

// runRef runs the reference client CLI against port and decodes its JSON output.
func runRef(t *testing.T, dir string, env []string, port int, args ...string) (int, map[string]any, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, out, errOut, err := fonline.RunClient(ctx, dir, env, append([]string{"--port", strconv.Itoa(port)}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if code == 0 {
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("reference client %v printed %q: %v", args, out, err)
		}
	}
	return code, v, errOut
}

// The reference client drives our sample: auth, ping, status, observe,
// act and its completion in events, and a wrong or missing token.
//
//contract:proves ai-control-protocol.method.ping ai-control-protocol.method.status ai-control-protocol.method.act ai-control-protocol.wire.sequential-connection ai-control-protocol.security.token-length
func TestReferenceClientAgainstOurListener(t *testing.T) {
	dir := fonline.Require(t, repotest.Root(t), true)
	s := aicontroltest.StartSample(t, build(t, "cmd/aicontrol-sample"), refEnv, "--token-env", "FONLINE_AI_TOKEN")
	// stderr reaches the test through a copying goroutine: give it a moment.
	for i := 0; i < 100 && !strings.Contains(s.Stderr(), "warning: the token has 12 bytes"); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(s.Stderr(), "warning: the token has 12 bytes") {
		t.Errorf("a 12-byte token did not draw a warning: %q", s.Stderr())
	}

	if code, v, errOut := runRef(t, dir, refEnv, s.Port, "ping"); code != 0 || !reflect.DeepEqual(v, map[string]any{"ok": true}) {
		t.Fatalf("ping: exit %d %v %s", code, v, errOut)
	}
	code, st, errOut := runRef(t, dir, refEnv, s.Port, "status")
	keys := []string{"running", "host", "port", "queuedCommands", "maxQueuedCommands", "events", "maxEvents", "observationSeq", "lastError"}
	if code != 0 || len(st) != len(keys) || st["running"] != true || st["port"] != float64(s.Port) || st["lastError"] != "" {
		t.Fatalf("status: exit %d %v %s", code, st, errOut)
	}
	for _, k := range keys {
		if _, ok := st[k]; !ok {
			t.Errorf("status lacks %s: %v", k, st)
		}
	}
	code, obs, _ := runRef(t, dir, refEnv, s.Port, "observe")
	seq0, _ := obs["observationSeq"].(float64)
	if o, _ := obs["observation"].(map[string]any); code != 0 || seq0 < 1 || o["schemaVersion"] != float64(1) {
		t.Fatalf("observe: exit %d %v", code, obs)
	}
	code, act, _ := runRef(t, dir, refEnv, s.Port, "act", "--type", "move", "--x", "7", "--y", "9")
	if code != 0 || !reflect.DeepEqual(act, map[string]any{"accepted": true, "commandSeq": float64(1)}) {
		t.Fatalf("act: exit %d %v", code, act)
	}
	var completion map[string]any
	for i := 0; i < 50 && completion == nil; i++ {
		code, ev, errOut := runRef(t, dir, refEnv, s.Port, "events", "--after-seq", "0")
		if code != 0 {
			t.Fatalf("events: exit %d %s", code, errOut)
		}
		recs, _ := ev["events"].([]any)
		for _, r := range recs {
			e, _ := r.(map[string]any)["event"].(map[string]any)
			if e["type"] == "command_completed" && e["commandSeq"] == float64(1) {
				completion = e
			}
		}
		if completion == nil {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if completion == nil || completion["success"] != true || completion["message"] != "moved" {
		t.Fatalf("completion of the move: %v", completion)
	}
	code, obs, _ = runRef(t, dir, refEnv, s.Port, "observe")
	o, _ := obs["observation"].(map[string]any)
	agent, _ := o["agent"].(map[string]any)
	if seq, _ := obs["observationSeq"].(float64); code != 0 || seq <= seq0 || agent["x"] != float64(7) || agent["y"] != float64(9) {
		t.Fatalf("observe after the move: exit %d %v", code, obs)
	}

	if code, _, errOut := runRef(t, dir, []string{"FONLINE_AI_TOKEN=wrong-token-0"}, s.Port, "ping"); code != 1 || !strings.Contains(errOut, "rejected the configured token") {
		t.Errorf("wrong token: exit %d %q", code, errOut)
	}
	if code, _, errOut := runRef(t, dir, []string{"FONLINE_AI_TOKEN="}, s.Port, "status"); code != 1 || !strings.Contains(errOut, "-32001") {
		t.Errorf("no token: exit %d %q", code, errOut)
	}
}

// aictl and the client library drive the reference sample, which serves
// one connection at a time: the smoke passes 12/12 and every command
// reads the reference's result shapes (ping {"ok":true}, lastError "",
// completions with the reference's members only).
//
//contract:proves ai-control-protocol.validation.protocol-smoke ai-control-protocol.wire.single-connection ai-control-protocol.validation.malformed-peer
func TestAictlAgainstReferenceSample(t *testing.T) {
	dir := fonline.Require(t, repotest.Root(t), true)
	ref, err := fonline.StartSample(dir, refEnv, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ref.Stop)
	aictl := build(t, "cmd/aictl")
	port := strconv.Itoa(ref.Port)
	run := func(args ...string) (int, string, string) {
		return runAictl(t, aictl, refEnv, append(args, "--port", port, "--token-env", "FONLINE_AI_TOKEN")...)
	}

	code, out, errOut := run("smoke")
	var rep bridge.SmokeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || rep.Status != "passed" || rep.CheckCount != len(bridge.SmokeChecks) {
		t.Fatalf("smoke against the reference sample: exit %d %s %s (sample: %s)", code, out, errOut, ref.Stderr())
	}
	if code, out, _ := run("ping"); code != 0 || strings.TrimSpace(out) != `{"ok":true}` {
		t.Errorf("ping: exit %d %q", code, out)
	}
	code, out, _ = run("status")
	var st aicontrol.StatusResult
	if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil || !st.Running || st.LastError != "" || st.Port != int64(ref.Port) {
		t.Errorf("status: exit %d %q %v", code, out, err)
	}
	for _, c := range []struct {
		args    []string
		success bool
		message string
	}{
		{[]string{"--type", "move", "--x", "3", "--y", "4"}, true, "moved"},
		{[]string{"--type", "echo", "--string-arg", "привет"}, true, "привет"},
		{[]string{"--type", "fail"}, false, "sample_failure"},
		{[]string{"--type", "teleport"}, false, "unknown_sample_command"},
	} {
		code, out, errOut := run(append([]string{"wait"}, c.args...)...)
		var w waitResult
		if err := json.Unmarshal([]byte(out), &w); code != 0 || err != nil || w.Completed.Success != c.success || w.Completed.Message != c.message || len(w.Completed.Extra) != 0 {
			t.Errorf("wait %v: exit %d %q %q", c.args, code, out, errOut)
		}
	}
	code, out, _ = run("observe")
	var obs struct {
		Observation struct{ Agent struct{ X, Y int64 } } `json:"observation"`
	}
	if err := json.Unmarshal([]byte(out), &obs); code != 0 || err != nil || obs.Observation.Agent.X != 3 || obs.Observation.Agent.Y != 4 {
		t.Errorf("observe: exit %d %q", code, out)
	}
	code, out, _ = run("events", "--after-seq", "0", "--limit", "2")
	var ev aicontrol.EventsResult
	if err := json.Unmarshal([]byte(out), &ev); code != 0 || err != nil || len(ev.Events) != 2 || ev.LatestSeq < 5 {
		t.Errorf("events: exit %d %q", code, out)
	}

	// The library directly: typed results of the reference's shapes.
	ctx := context.Background()
	c, err := bridge.Dial(ctx, bridge.ClientConfig{Port: ref.Port, Token: refToken})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if ok, err := c.Auth(ctx); err != nil || !ok {
		t.Fatalf("auth: %v %v", ok, err)
	}
	if p, err := c.Ping(ctx); err != nil || !p.Ok {
		t.Errorf("ping: %+v %v", p, err)
	}
	cur := &bridge.Cursor{}
	if _, _, err := c.Next(ctx, cur, aicontrol.MaxEventsPerRequest); err != nil {
		t.Fatal(err)
	}
	res, err := c.Act(ctx, aicontrol.ActParams{Type: "echo", StringArg: ptr("lib")})
	if err != nil {
		t.Fatal(err)
	}
	if cc, _, err := c.WaitCompleted(ctx, cur, res.CommandSeq, 10*time.Millisecond); err != nil || !cc.Success || cc.Message != "lib" {
		t.Errorf("completion: %+v %v", cc, err)
	}
}

func ptr[T any](v T) *T { return &v }

// A listener configured for one connection at a time leaves a second
// connect unanswered in the backlog, as the reference does, and the smoke
// still passes 12/12; so it does when the extra connection is turned away.
//
//contract:proves ai-control-protocol.wire.single-connection ai-control-protocol.validation.protocol-smoke
func TestSmokeSingleConnection(t *testing.T) {
	sampleBin, aictl := build(t, "cmd/aicontrol-sample"), build(t, "cmd/aictl")
	env := []string{"AICONTROL_TOKEN=" + e2eToken}
	s := aicontroltest.StartSample(t, sampleBin, env, "--max-connections", "1", "--wait-when-full")
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))
	first, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	firstR := bufio.NewReader(first)
	authReq := `{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":"` + e2eToken + `"}}` + "\n"
	_, _ = first.Write([]byte(authReq))
	_ = first.SetReadDeadline(time.Now().Add(10 * time.Second))
	if line, err := firstR.ReadString('\n'); err != nil || !strings.Contains(line, `"authorized":true`) {
		t.Fatalf("first connection: %q %v", line, err)
	}
	second, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("the second connect did not reach the backlog: %v", err)
	}
	defer second.Close()
	secondR := bufio.NewReader(second)
	_, _ = second.Write([]byte(authReq))
	_ = second.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if line, err := secondR.ReadString('\n'); err == nil || !isTimeout(err) {
		t.Fatalf("the second connection was answered while the first was open: %q %v", line, err)
	}
	first.Close()
	_ = second.SetReadDeadline(time.Now().Add(10 * time.Second))
	if line, err := secondR.ReadString('\n'); err != nil || !strings.Contains(line, `"authorized":true`) {
		t.Fatalf("the second connection after the first closed: %q %v", line, err)
	}
	second.Close()

	for _, args := range [][]string{nil, {"--max-connections", "1"}} {
		port := strconv.Itoa(s.Port)
		if args != nil {
			port = strconv.Itoa(aicontroltest.StartSample(t, sampleBin, env, args...).Port)
		}
		code, out, errOut := runAictl(t, aictl, env, "smoke", "--port", port)
		var rep bridge.SmokeReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || rep.Status != "passed" || rep.CheckCount != 12 {
			t.Errorf("smoke against a one-connection sample %v: exit %d %s %s", args, code, out, errOut)
		}
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// SIGTERM with a command pending: the sample fails it, and aictl wait,
// following events on its open connection, reads success=false instead of
// a closed connection.
//
//contract:proves ai-control-protocol.integration.shutdown-delivery ai-control-protocol.event.command-completed
func TestShutdownCompletionReachesWait(t *testing.T) {
	sampleBin, aictl := build(t, "cmd/aicontrol-sample"), build(t, "cmd/aictl")
	env := []string{"AICONTROL_TOKEN=" + e2eToken}
	s := aicontroltest.StartSample(t, sampleBin, env, "--stall")
	port := strconv.Itoa(s.Port)
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runAictl(t, aictl, env, "wait", "--port", port, "--type", "move", "--x", "1", "--y", "1", "--timeout", "30s")
		done <- result{code, out, errOut}
	}()
	// The wait has queued its command once the stalled queue holds one.
	queued := false
	for i := 0; i < 200 && !queued; i++ {
		_, out, _ := runAictl(t, aictl, env, "status", "--port", port)
		var st aicontrol.StatusResult
		queued = json.Unmarshal([]byte(out), &st) == nil && st.QueuedCommands == 1
		if !queued {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if !queued {
		t.Fatal("the wait's command never reached the queue")
	}
	if err := s.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r := <-done
	var w waitResult
	if err := json.Unmarshal([]byte(r.out), &w); r.code != 0 || err != nil || w.Completed.Success || w.Completed.Message != bridge.ShutdownMessage {
		t.Fatalf("aictl wait across SIGTERM: exit %d %q %q", r.code, r.out, r.err)
	}
	if err := s.Cmd.Wait(); err != nil {
		t.Errorf("sample exit: %v", err)
	}
	if !strings.Contains(s.Stderr(), "1 unfinished command(s) completed with success=false") {
		t.Errorf("sample stderr %q", s.Stderr())
	}
}
