package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/aicontroltest"
	"github.com/contractkit/contractkit/internal/repotest"
	"github.com/contractkit/contractkit/internal/syncbuf"
)

// e2eToken is distinctive, so a search for it cannot hit by chance.
const e2eToken = "e2e-mcp-token-Vx71"

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds aicontrol-mcp and aicontrol-sample once per test run.
func binaries(t *testing.T) (mcpBin, sampleBin string) {
	t.Helper()
	root := repotest.Root(t)
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "aicontrol-mcp-e2e")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir+string(os.PathSeparator), "./cmd/aicontrol-mcp", "./cmd/aicontrol-sample")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = &buildFailure{err, out}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, "aicontrol-mcp"), filepath.Join(binDir, "aicontrol-sample")
}

type buildFailure struct {
	err error
	out []byte
}

func (b *buildFailure) Error() string { return "go build: " + b.err.Error() + "\n" + string(b.out) }

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// The real binary over stdio, driven by the go-sdk client, against the
// real sample: tools, a move, a list change while the agent rests, and
// the token in no message and no log line.
//
//contract:proves ai-control-protocol.integration.mcp-transports ai-control-protocol.integration.mcp-available-tools ai-control-protocol.integration.mcp-identity
func TestStdioAgainstSample(t *testing.T) {
	mcpBin, sampleBin := binaries(t)
	port := aicontroltest.StartSample(t, sampleBin, []string{"AICONTROL_TOKEN=" + e2eToken}).Port
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(mcpBin, "--actions", sampleActions(t), "--port", strconv.Itoa(port), "--refresh", "20ms", "--lang", "ru")
	cmd.Env = append(os.Environ(), "AICONTROL_TOKEN="+e2eToken)
	stderr := &syncbuf.Buffer{}
	cmd.Stderr = stderr
	wire := &syncbuf.Buffer{}
	changed := make(chan struct{}, 8)
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	cs, err := client.Connect(ctx, &mcp.LoggingTransport{Transport: &mcp.CommandTransport{Command: cmd}, Writer: wire}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr %s", err, stderr)
	}
	tools := func() []string {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
			if tl.Name == "move" && tl.Description != "Переместить агента в клетку сетки (x, y). Недоступно, пока агент отдыхает." {
				t.Errorf("move's description in Russian: %q", tl.Description)
			}
		}
		return names
	}
	if got := strings.Join(tools(), ","); got != "echo,fail,move,observe,wait" {
		t.Fatalf("tools %s", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "move", Arguments: map[string]any{"x": 7, "y": 8}})
	if err != nil || res.IsError {
		t.Fatalf("move: %+v %v", res, err)
	}
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"intArg": 300}})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no list_changed when the agent started resting")
	}
	if got := strings.Join(tools(), ","); got != "echo,fail,observe,wait" {
		t.Fatalf("tools while resting: %s", got)
	}
	if r := <-done; r == nil || r.IsError {
		t.Fatalf("wait: %+v", r)
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("aicontrol-mcp exited %d; stderr %s", code, stderr)
	}
	if !strings.Contains(stderr.String(), "msg=connected") || !strings.Contains(wire.String(), `"waited 300 ms"`) {
		t.Fatalf("missing output; stderr %s", stderr)
	}
	for what, text := range map[string]string{"MCP messages": wire.String(), "stderr": stderr.String()} {
		if strings.Contains(text, e2eToken) {
			t.Errorf("the token appears in the %s", what)
		}
	}
}

// An independent client, the TypeScript MCP SDK on Node, starts the real
// binary over stdio against the real sample (see testdata/node/client.mjs
// for what it checks). .ci/run installs the package (make mcp-node);
// without node or the package the test says so and skips. Afterwards the
// listener's own record confirms what the client could not see.
//
//contract:proves ai-control-protocol.integration.mcp-available-tools ai-control-protocol.integration.mcp-typed-arguments ai-control-protocol.integration.mcp-completion ai-control-protocol.integration.mcp-identity
func TestTypeScriptSDKClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		repotest.MissingPart(t, "node is not installed: the TypeScript MCP SDK client test needs it")
	}
	dir := filepath.Join(repotest.Root(t), "cmd", "aicontrol-mcp", "testdata", "node")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		repotest.MissingPart(t, "@modelcontextprotocol/sdk is not installed: run make mcp-node")
	}
	mcpBin, sampleBin := binaries(t)
	port := aicontroltest.StartSample(t, sampleBin, []string{"AICONTROL_TOKEN=" + e2eToken}).Port
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", mcpBin, sampleActions(t), strconv.Itoa(port))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AICONTROL_TOKEN="+e2eToken)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v\n%s", err, out)
	}
	var report struct {
		Tools       []string
		Move        struct{ CommandSeq int64 }
		Invalid     []string
		AfterCancel struct {
			CommandSeq int64
			Message    string
		}
		Messages                       int
		TokenInMessages, TokenInStderr bool
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &report); err != nil || report.Move.CommandSeq != 1 || len(report.Invalid) != 5 ||
		report.AfterCancel.CommandSeq != 5 || report.TokenInMessages || report.TokenInStderr {
		t.Fatalf("client report %s: %v", out, err)
	}
	t.Logf("TypeScript MCP SDK client: %s", bytes.TrimSpace(out))

	// The listener's view: five commands, no rejected request, and the
	// cancelled command (4) completed on its own, before command 5.
	c, err := bridge.Dial(ctx, bridge.ClientConfig{Port: port, Token: e2eToken})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if ok, err := c.Auth(ctx); err != nil || !ok {
		t.Fatalf("auth: %v %v", ok, err)
	}
	st, err := c.Status(ctx)
	if err != nil || st.LastError != "" || st.QueuedCommands != 0 {
		t.Fatalf("listener status %+v %v", st, err)
	}
	ev, err := c.Events(ctx, 0, aicontrol.MaxEventsPerRequest)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range ev.Events {
		if cc, ok := bridge.CompletionOf(r.Event); ok {
			order = append(order, strconv.FormatInt(cc.CommandSeq, 10)+":"+cc.Message)
		}
	}
	if got, want := strings.Join(order, ","), "1:moved,2:после проверки,3:waited 400 ms,4:waited 700 ms,5:waited 1000 ms"; got != want {
		t.Fatalf("completions %s, want %s", got, want)
	}
}
