package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contractkit/contractkit/ide/rpc"
	"github.com/contractkit/contractkit/internal/bindingcheck"
	"github.com/contractkit/contractkit/internal/repotest"
)

func framed(bodies ...string) []byte {
	var b []byte
	for _, body := range bodies {
		b = rpc.AppendFrame(b, []byte(body))
	}
	return b
}

const init10 = `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"apiVersion":{"major":1,"minor":0},"client":{"name":"Пример клиента","version":"1"},"locale":"ru-RU"}}`

// The lifecycle and exit-code matrix.
//
//contract:proves eska-ide-api.lifecycle.exit-codes eska-ide-api.lifecycle.shutdown eska-ide-api.framing.fatal eska-ide-api.framing.output
//contract:proves eska-ide-api.method.shutdown eska-ide-api.notification.exit
func TestExitCodes(t *testing.T) {
	bin := build(t)
	exit := `{"jsonrpc":"2.0","method":"exit"}`
	shutdown := `{"jsonrpc":"2.0","id":"s","method":"shutdown"}`
	for _, c := range []struct {
		name   string
		input  []byte
		code   int
		frames int
		eof    bool // the input ends (stdin closed); otherwise the process must end by itself
	}{
		{"exit before initialize", framed(exit), 1, 0, false},
		{"exit without shutdown", framed(init10, exit), 1, 1, false},
		{"shutdown then exit", framed(init10, shutdown, exit), 0, 2, false},
		{"end of input between frames", framed(init10), 0, -1, true},
		{"end of input inside a frame", append(framed(init10), "Content-Length: 40\r\n\r\n{\"jsonrpc\""...), 2, -1, true},
		{"negative length", []byte("Content-Length: -1\r\n\r\n"), 2, 0, false},
		{"repeated length", []byte("Content-Length: 1\r\nContent-Length: 1\r\n\r\n{"), 2, 0, false},
		{"LF instead of CRLF", []byte("Content-Length: 2\n\n{}"), 2, 0, false},
		{"body over the limit", []byte("Content-Length: 1048577\r\n\r\n"), 2, 0, false},
	} {
		var until func([]string) bool // wait for the exit
		if c.eof {
			until = atOnce
		}
		bodies, _, code := runProcess(t, bin, c.input, c.name, until)
		if code != c.code || (c.frames >= 0 && len(bodies) != c.frames) {
			t.Errorf("%s: exit %d with %d frames, want exit %d with %d", c.name, code, len(bodies), c.code, c.frames)
		}
	}
	// A broken stdout ends the process with 1.
	cmd := exec.Command(bin, "ide", "--stdio")
	stdin, _ := cmd.StdinPipe()
	r, w, _ := os.Pipe()
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r.Close()
	stdin.Write(framed(init10))
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("broken stdout: %v", err)
	}
}

// corpus returns the eska contract folder of the shared corpora, or skips.
func corpus(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(repotest.Root(t), "..", "shared", "corpus", "eska", "docs", "ide-protocol")
	if _, err := os.Stat(dir); err != nil {
		repotest.MissingPart(t, "eska corpus not found at %s (../shared is absent): the replay needs it", dir)
	}
	return dir
}

type fixtures struct {
	Cases []struct {
		Name     string            `json:"name"`
		Client   []json.RawMessage `json:"client"`
		Server   []json.RawMessage `json:"server"`
		ExitCode *int              `json:"exitCode"`
	} `json:"cases"`
	TransportErrors []struct {
		InputBody   *string         `json:"inputBody"`
		InputHeader *string         `json:"inputHeader"`
		Expected    json.RawMessage `json:"expected"`
		Connection  string          `json:"connection"`
		ExitCode    *int            `json:"exitCode"`
	} `json:"transportErrors"`
}

// readFixtures reads the eska message fixtures of the shared corpora.
func readFixtures(t *testing.T) fixtures {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(corpus(t), "fixtures.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx fixtures
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	return fx
}

// needsBackend lists the fixture cases whose answers depend on an open
// Designer XML session: TestFixtureReplay leaves them to
// TestFixtureReplaySession, which opens one.
var needsBackend = map[string]string{
	"workspace/open": "opens a project", "project/info": "needs a session", "metadata/root": "needs a session",
	"metadata/children": "needs a session", "metadata/get": "needs a session", "metadata/properties": "needs a session",
	"metadata/source": "needs a session", "metadata/search": "needs a session", "metadata/reveal": "needs a session",
	"metadata/index": "needs a session", "metadata/indexErrors": "needs a session", "metadata/refresh": "needs a session",
	"file-event": "needs a session", "workspace/close": "needs a session", "cancel-pending": "needs a search queued behind work",
	"index-progress": "needs indexing", "stale-generation": "needs a session", "batch": "its first item needs a session (checked in part below)",
}

// The eska fixtures replayed through the real binary: everything the
// contract fixes (codes, kinds, results, ordering, exit codes) for the
// cases that need no open session.
//
//contract:proves eska-ide-api.envelope.parse-error eska-ide-api.error-reporting.unsupported-write eska-ide-api.versions.gating
func TestFixtureReplay(t *testing.T) {
	fx := readFixtures(t)
	bin := build(t)
	var initCase []json.RawMessage
	for _, c := range fx.Cases {
		if c.Name == "initialize" {
			initCase = c.Client
		}
	}
	replayed := 0
	for _, c := range fx.Cases {
		if why, skip := needsBackend[c.Name]; skip {
			t.Logf("left to TestFixtureReplaySession: %s: %s", c.Name, why)
			continue
		}
		var input [][]byte
		if c.Name != "initialize" {
			input = append(input, initCase[0])
		}
		if c.Name == "exit" { // precondition: shutdown completed
			input = append(input, []byte(`{"jsonrpc":"2.0","id":"pre","method":"shutdown"}`))
		}
		for _, m := range c.Client {
			input = append(input, m)
		}
		var bodies []string
		for _, m := range input {
			bodies = append(bodies, string(m))
		}
		// exit ends the process; every other case is followed by the
		// sentinel, whose answer comes after all of the case's.
		var until func([]string) bool
		if c.Name != "exit" {
			bodies = append(bodies, sentinel)
			until = answered(sentinelID)
		}
		got, stderr, code := runProcess(t, bin, framed(bodies...), c.Name, until)
		if c.Name != "exit" {
			got = withoutSentinel(t, c.Name, got)
		}
		// Before the case's answers: initialize's, and for exit the
		// shutdown's.
		skip := 0
		if c.Name != "initialize" {
			skip++
		}
		if c.Name == "exit" {
			skip++
			if code != *c.ExitCode {
				t.Errorf("exit: exit code %d, want %d", code, *c.ExitCode)
			}
		}
		if len(got) != skip+len(c.Server) {
			t.Errorf("%s: %d responses, want %d after %d of the preconditions: %v\nstderr: %s", c.Name, len(got), len(c.Server), skip, got, stderr)
			continue
		}
		got = got[skip:]
		for i := range got {
			if !sameResponse(t, got[i], string(c.Server[i])) {
				t.Errorf("%s: response %d\n got %s\nwant %s", c.Name, i, got[i], c.Server[i])
			}
		}
		replayed++
	}
	// The batch case in part: the malformed element and the unknown
	// notification are answered as the fixture says.
	for _, c := range fx.Cases {
		if c.Name != "batch" {
			continue
		}
		got, _, _ := runProcess(t, bin, framed(string(initCase[0]), string(c.Client[0]), sentinel), "batch", answered(sentinelID))
		got = withoutSentinel(t, "batch", got)
		if len(got) != 2 {
			t.Errorf("batch: %d responses, want initialize's and the batch's: %v", len(got), got)
			continue
		}
		var gotArr, wantArr []json.RawMessage
		if err := json.Unmarshal([]byte(got[1]), &gotArr); err != nil {
			t.Errorf("batch: the answer is not an array: %s", got[1])
			continue
		}
		if err := json.Unmarshal(c.Server[0], &wantArr); err != nil || len(wantArr) < 2 {
			t.Fatalf("batch fixture: %s", c.Server[0])
		}
		if len(gotArr) != len(wantArr) || !sameResponse(t, string(gotArr[1]), string(wantArr[1])) {
			t.Errorf("batch: %s, want %s", got[1], c.Server[0])
		}
	}
	for i, te := range fx.TransportErrors {
		var in []byte
		var until func([]string) bool // a fatal fault ends the process by itself
		switch {
		case te.InputBody != nil:
			in = framed(string(initCase[0]), *te.InputBody, `{"jsonrpc":"2.0","id":"after","method":"shutdown"}`)
		case te.InputHeader != nil:
			in = append(framed(string(initCase[0])), *te.InputHeader...)
		}
		if te.Connection == "continue" {
			until = answered("after")
		}
		got, _, code := runProcess(t, bin, in, "transport error "+strconv.Itoa(i), until)
		switch te.Connection {
		case "continue":
			if len(got) != 3 || !sameResponse(t, got[1], string(te.Expected)) || !strings.Contains(got[2], `"id":"after","result":null`) {
				t.Errorf("transport error %d: %v", i, got)
			}
		case "exit":
			// Nothing after the fault; the initialize response may or may
			// not have been written before the reader met the bad header.
			if code != *te.ExitCode || len(got) > 1 {
				t.Errorf("transport error %d: exit %d, %d frames", i, code, len(got))
			}
		}
	}
	if replayed < 4 {
		t.Errorf("only %d cases replayed", replayed)
	}
	t.Logf("%d fixture cases replayed, %d left to the session replay, %d transport errors", replayed, len(needsBackend), len(fx.TransportErrors))
}

// sameResponse compares what the contract fixes: ids, results and error
// codes, messages and data; the server's own version string may differ.
func sameResponse(t *testing.T, got, want string) bool {
	var g, w map[string]any
	if json.Unmarshal([]byte(got), &g) != nil || json.Unmarshal([]byte(want), &w) != nil {
		return false
	}
	for _, m := range []map[string]any{g, w} {
		if res, ok := m["result"].(map[string]any); ok {
			if srv, ok := res["server"].(map[string]any); ok {
				delete(srv, "version")
			}
		}
	}
	return reflect.DeepEqual(g, w)
}

// Every frame of frames.wire split at every byte boundary gives the same
// responses through the real binary.
//
//contract:proves eska-ide-api.framing.chunking eska-ide-api.framing.content-length
func TestFramesSplitEverywhere(t *testing.T) {
	dir := corpus(t)
	wire, err := os.ReadFile(filepath.Join(dir, "frames.wire"))
	if err != nil {
		t.Fatal(err)
	}
	bin := build(t)
	want, _, _ := runProcess(t, bin, wire, "two responses", responses(2))
	if len(want) != 2 {
		t.Fatalf("frames.wire gave %d responses", len(want))
	}
	for split := 1; split < len(wire); split += 13 {
		p := startProc(t, bin)
		p.send(wire[:split])
		// The pause lets the reader meet the first part alone; the
		// verdict does not depend on it.
		time.Sleep(5 * time.Millisecond)
		p.send(wire[split:])
		p.waitFor("two responses", responses(2))
		got, _, _ := p.finish()
		if !slices.Equal(got, want) {
			t.Fatalf("split at %d: %q, want %q", split, got, want)
		}
	}
}

func TestUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"version"}, nil, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "eska ") || !strings.HasSuffix(out.String(), "; IDE server "+version+"\n") {
		t.Errorf("version: %d %q", code, out.String())
	}
	if code := run([]string{"ide"}, nil, &out, &errb); code != 2 {
		t.Errorf("ide without --stdio: %d", code)
	}
	if code := run(nil, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage: eska") {
		t.Errorf("no arguments: %d", code)
	}
}

// An independent client, vscode-jsonrpc on Node, drives the real binary:
// initialize with a Cyrillic client name, a cancelled request, shutdown
// and exit, and checks the exit code. The client is TypeScript on the
// generated binding (generated/ide/ts: the vscode-jsonrpc descriptors,
// constants and types), compiled here by tsc --strict before it runs, so
// a type error in the binding or a contract change the client no longer
// fits fails this test. .ci/run installs vscode-jsonrpc (make ide-node)
// and tsc (make bindings-node); without them the test says so and skips.
//
//contract:proves eska-ide-api.cancellation.one-response eska-ide-api.cancellation.queued
//contract:proves eska-ide-api.notification.cancel-request
func TestVSCodeJSONRPCClient(t *testing.T) {
	tools := bindingcheck.Find(t)
	dir := filepath.Join(repotest.Root(t), "ide", "testdata", "node")
	mods := filepath.Join(dir, "node_modules")
	if _, err := os.Stat(filepath.Join(mods, "vscode-jsonrpc")); err != nil {
		repotest.MissingPart(t, "vscode-jsonrpc is not installed: run make ide-node")
	}
	// The build sits inside the client's folder, so that Node finds
	// vscode-jsonrpc from every emitted module, the generated ones too;
	// "type": "module" makes them ES modules as tsc wrote them.
	out, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	if err := os.WriteFile(filepath.Join(out, "package.json"), []byte(`{"type": "module"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tsc, err := tools.TSC(t, out, bindingcheck.TSConfig{
		Files:   []string{filepath.Join(dir, "client.ts")},
		Paths:   map[string][]string{"vscode-jsonrpc": {bindingcheck.JSONRPCPath(mods)}},
		OutDir:  out,
		RootDir: repotest.Root(t),
		Bundler: true,
	})
	if err != nil {
		t.Fatalf("tsc --strict client.ts: %v\n%s", err, tsc)
	}
	bin := build(t)
	cmd := exec.Command(tools.Node, filepath.Join(out, "ide", "testdata", "node", "client.js"), bin)
	cmd.Dir = dir
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("client: %v\n%s", err, output)
	}
	var report struct {
		Initialize, Cancelled, Shutdown string
		ExitCode                        int
	}
	if err := json.Unmarshal(bytes.TrimSpace(output), &report); err != nil || report.Initialize != "ok" || report.Shutdown != "ok" || report.ExitCode != 0 {
		t.Fatalf("client report %s: %v", output, err)
	}
	t.Logf("vscode-jsonrpc client: %s", bytes.TrimSpace(output))
}

// The usage names the page and anchor that describe eska.toml; both must
// exist, or a reader who follows it lands nowhere.
func TestUsageManifestPointer(t *testing.T) {
	m := regexp.MustCompile(`described in (Docs/[^\s#]+\.md)#([a-z-]+)\.`).FindStringSubmatch(usage)
	if m == nil {
		t.Fatalf("the usage names no page for the manifest:\n%s", usage)
	}
	page, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(m[1])))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `<a id="`+m[2]+`"></a>`) {
		t.Errorf("%s has no anchor %q", m[1], m[2])
	}
}
