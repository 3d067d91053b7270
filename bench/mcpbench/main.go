// Command mcpbench measures a tool call of aicontrol-mcp as an MCP host
// sees it, next to aictl wait for the same command, against one running
// aicontrol-sample on loopback.
//
// Usage:
//
//	go run ./bench/mcpbench [-calls 300] [-processes 40] [-warmup 20]
//
// It builds aicontrol-mcp, aicontrol-sample and aictl into a temporary
// directory, starts the sample with a token, and times, in one run:
//
//   - mcp-stdio: the echo tool called through the go-sdk client over the
//     adapter's stdin/stdout (JSON-RPC, argument check, act, the wait for
//     command_completed, the result), one call after another;
//   - aictl-wait: `aictl wait --type echo` as a fresh process per command,
//     as a shell script runs it (process start, dial, auth, act, the wait);
//   - library: the bridge client's Act and WaitCompleted in process on one
//     connection, with aictl's poll period (50 ms) and with a 1 ms poll,
//     the floor under both.
//
// It prints a Markdown table with p50, p95 and mean per row and the load
// average before and after, ready for Docs/performance.md.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contractkit/contractkit/bench/internal/machine"
	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/generated/aicontrol"
)

// token is the sample's token for the run; it is not a secret.
const token = "mcpbench-token"

func main() {
	calls := flag.Int("calls", 300, "timed tool calls and library calls")
	processes := flag.Int("processes", 40, "timed aictl wait processes")
	warmup := flag.Int("warmup", 20, "untimed calls before each series")
	flag.Parse()
	if *calls < 1 || *processes < 1 || *warmup < 0 {
		fmt.Fprintln(os.Stderr, "mcpbench: -calls and -processes must be positive, -warmup not negative")
		os.Exit(2)
	}
	if err := run(*calls, *processes, *warmup); err != nil {
		fmt.Fprintln(os.Stderr, "mcpbench:", err)
		os.Exit(1)
	}
}

// series is one row of the table.
type series struct {
	name, what string
	samples    []time.Duration
}

func (s series) quantile(q float64) time.Duration {
	d := slices.Clone(s.samples)
	slices.Sort(d)
	i := int(q*float64(len(d)-1) + 0.5)
	return d[i]
}

func (s series) mean() time.Duration {
	var sum time.Duration
	for _, d := range s.samples {
		sum += d
	}
	return sum / time.Duration(len(s.samples))
}

func run(calls, processes, warmup int) error {
	dir, err := os.MkdirTemp("", "mcpbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	build := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "./cmd/aicontrol-mcp", "./cmd/aicontrol-sample", "./cmd/aictl")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build (run from the repository root): %v\n%s", err, out)
	}
	loadBefore := machine.LoadAverage()
	port, stop, err := startSample(filepath.Join(dir, "aicontrol-sample"))
	if err != nil {
		return err
	}
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	mcpSeries, err := benchMCP(ctx, filepath.Join(dir, "aicontrol-mcp"), port, calls, warmup)
	if err != nil {
		return fmt.Errorf("mcp-stdio: %w", err)
	}
	aictl, err := benchAictl(ctx, filepath.Join(dir, "aictl"), port, processes, min(warmup, 3))
	if err != nil {
		return fmt.Errorf("aictl-wait: %w", err)
	}
	lib50, err := benchLibrary(ctx, port, calls, warmup, 50*time.Millisecond)
	if err != nil {
		return fmt.Errorf("library: %w", err)
	}
	lib1, err := benchLibrary(ctx, port, calls, warmup, time.Millisecond)
	if err != nil {
		return fmt.Errorf("library: %w", err)
	}
	loadAfter := machine.LoadAverage()

	rows := []series{mcpSeries, aictl, lib50, lib1}
	fmt.Printf("Machine: %d CPU, %s/%s, %s, %s. Load average before: %s; after: %s.\n\n",
		runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), time.Now().Format("2006-01-02"), loadBefore, loadAfter)
	fmt.Println("| series | what is timed | n | p50 | p95 | mean |")
	fmt.Println("| --- | --- | --- | --- | --- | --- |")
	for _, r := range rows {
		fmt.Printf("| `%s` | %s | %d | %s | %s | %s |\n", r.name, r.what, len(r.samples), ms(r.quantile(0.5)), ms(r.quantile(0.95)), ms(r.mean()))
	}
	fmt.Printf("\nTool call over aictl wait (p50): %.2f×; tool call over the 1 ms library floor (p50): %.2f×.\n",
		float64(mcpSeries.quantile(0.5))/float64(aictl.quantile(0.5)), float64(mcpSeries.quantile(0.5))/float64(lib1.quantile(0.5)))
	fmt.Println("\nCommand: `make bench-mcp` (go run ./bench/mcpbench).")
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// startSample runs the sample on a free loopback port with the token.
func startSample(bin string) (int, func(), error) {
	cmd := exec.Command(bin, "--port", "0")
	cmd.Env = append(os.Environ(), "AICONTROL_TOKEN="+token)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, nil, err
	}
	if err := cmd.Start(); err != nil {
		return 0, nil, err
	}
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Scan()
		line <- sc.Text()
	}()
	select {
	case l := <-line:
		var ready struct {
			Ready bool `json:"ready"`
			Port  int  `json:"port"`
		}
		if err := json.Unmarshal([]byte(l), &ready); err != nil || !ready.Ready {
			stop()
			return 0, nil, fmt.Errorf("sample ready line %q", l)
		}
		return ready.Port, stop, nil
	case <-time.After(20 * time.Second):
		stop()
		return 0, nil, errors.New("no ready line from the sample")
	}
}

func benchMCP(ctx context.Context, bin string, port, calls, warmup int) (series, error) {
	s := series{name: "mcp-stdio", what: "`echo` tool call through the go-sdk client over the adapter's stdio, until its result"}
	cmd := exec.Command(bin, "--actions", "cmd/aicontrol-sample/actions.json", "--port", strconv.Itoa(port))
	cmd.Env = append(os.Environ(), "AICONTROL_TOKEN="+token)
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpbench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return s, err
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"stringArg": "bench"}}
	for i := range warmup + calls {
		start := time.Now()
		res, err := cs.CallTool(ctx, params)
		d := time.Since(start)
		if err != nil {
			return s, err
		}
		if res.IsError {
			return s, fmt.Errorf("tool error: %+v", res.Content)
		}
		if i >= warmup {
			s.samples = append(s.samples, d)
		}
	}
	return s, nil
}

func benchAictl(ctx context.Context, bin string, port, processes, warmup int) (series, error) {
	s := series{name: "aictl-wait", what: "`aictl wait --type echo --string-arg bench`, a fresh process per command"}
	for i := range warmup + processes {
		cmd := exec.CommandContext(ctx, bin, "wait", "--port", strconv.Itoa(port), "--type", "echo", "--string-arg", "bench")
		cmd.Env = append(os.Environ(), "AICONTROL_TOKEN="+token)
		start := time.Now()
		out, err := cmd.Output()
		d := time.Since(start)
		if err != nil {
			return s, fmt.Errorf("%v: %s", err, out)
		}
		if !strings.Contains(string(out), `"success":true`) {
			return s, fmt.Errorf("aictl wait printed %s", out)
		}
		if i >= warmup {
			s.samples = append(s.samples, d)
		}
	}
	return s, nil
}

func benchLibrary(ctx context.Context, port, calls, warmup int, poll time.Duration) (series, error) {
	s := series{
		name: fmt.Sprintf("library-poll-%s", poll),
		what: fmt.Sprintf("bridge client `Act` + `WaitCompleted` in process on one connection, polling every %s", poll),
	}
	c, err := bridge.Dial(ctx, bridge.ClientConfig{Port: port, Token: token})
	if err != nil {
		return s, err
	}
	defer c.Close()
	if ok, err := c.Auth(ctx); err != nil || !ok {
		return s, fmt.Errorf("auth: %v %v", ok, err)
	}
	head, err := c.Events(ctx, 0, 1)
	if err != nil {
		return s, err
	}
	cur := bridge.Cursor{AfterSeq: head.LatestSeq}
	text := "bench"
	cmd := aicontrol.ActParams{Type: "echo", StringArg: &text}
	for i := range warmup + calls {
		start := time.Now()
		r, err := c.Act(ctx, cmd)
		if err != nil {
			return s, err
		}
		cc, _, err := c.WaitCompleted(ctx, &cur, r.CommandSeq, poll)
		d := time.Since(start)
		if err != nil {
			return s, err
		}
		if !cc.Success {
			return s, fmt.Errorf("command %d failed: %s", r.CommandSeq, cc.Message)
		}
		if i >= warmup {
			s.samples = append(s.samples, d)
		}
	}
	return s, nil
}
