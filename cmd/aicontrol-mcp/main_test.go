package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/internal/repotest"
	"github.com/contractkit/contractkit/internal/syncbuf"
)

func sampleActions(t *testing.T) string {
	return filepath.Join(repotest.Root(t), "cmd", "aicontrol-sample", "actions.json")
}

func noEnv(string) string { return "" }

// runQuick runs the command in process with a bounded context and no
// MCP client: for the paths that end before serving.
func runQuick(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	st, _ := mcp.NewInMemoryTransports()
	code := run(ctx, args, st, &stdout, &stderr, noEnv)
	return code, stderr.String()
}

func TestUsage(t *testing.T) {
	actions := sampleActions(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "--actions is required"},
		{[]string{"--actions", actions, "--lang", "de"}, `--lang "de"`},
		{[]string{"--actions", actions, "--port", "70000"}, "port 70000"},
		{[]string{"--actions", actions, "--host", "192.0.2.1"}, "not loopback"},
		{[]string{"--actions", actions, "--refresh", "0s"}, "--refresh must be positive"},
		{[]string{"--actions", actions, "--max-in-flight", "0"}, "--max-in-flight must be positive"},
		{[]string{"--actions", actions, "--token-env", ""}, "--token-env must name"},
		{[]string{"--actions", actions, "--http", "0.0.0.0:8080"}, "only a loopback address"},
		{[]string{"--actions", actions, "--http", ":8080"}, "only a loopback address"},
		{[]string{"--actions", actions, "--http", "127.0.0.1"}, "--http"},
		{[]string{"--actions", actions, "extra"}, `unexpected argument "extra"`},
		{[]string{"--nope"}, "flag provided but not defined"},
	} {
		code, stderr := runQuick(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if code, stderr := runQuick(t, "-h"); code != 0 || !strings.Contains(stderr, "usage: aicontrol-mcp") {
		t.Errorf("-h: exit %d, %q", code, stderr)
	}
}

// startListener runs an in-process listener that publishes obs.
func startListener(t *testing.T, obs any) *bridge.Server {
	t.Helper()
	srv, err := bridge.Listen(bridge.Config{Enabled: true, Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if _, err := srv.PublishObservation(obs); err != nil {
		t.Fatal(err)
	}
	return srv
}

func portOf(srv *bridge.Server) string {
	_, p, _ := bridge.SplitAddr(srv.Addr().String())
	return strconv.Itoa(p)
}

// Nothing is served when the start cannot be checked: a schemaVersion the
// actions file does not declare, a listener that is not there, a broken
// actions file.
//
//contract:proves ai-control-protocol.integration.mcp-schema-gate
func TestStartRefused(t *testing.T) {
	srv := startListener(t, map[string]any{"schemaVersion": 2, "availableActions": []string{"echo"}})
	code, stderr := runQuick(t, "--actions", sampleActions(t), "--port", portOf(srv))
	if code != 1 || !strings.Contains(stderr, "the game publishes schemaVersion 2, "+sampleActions(t)+" declares 1") {
		t.Fatalf("schema mismatch: exit %d, %q", code, stderr)
	}
	closed := startListener(t, map[string]any{})
	port := portOf(closed)
	closed.Close()
	if code, stderr := runQuick(t, "--actions", sampleActions(t), "--port", port); code != 1 || !strings.Contains(stderr, "cannot reach the listener at 127.0.0.1:"+port) {
		t.Fatalf("no listener: exit %d, %q", code, stderr)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"schemaVersion":1,"actions":[{"name":"a"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := runQuick(t, "--actions", bad, "--port", portOf(srv)); code != 1 || !strings.Contains(stderr, bad+`:/actions/0: missing member "description"`) {
		t.Fatalf("broken actions file: exit %d, %q", code, stderr)
	}
}

// hostileListen plays a resolver that maps every name to to: a name is
// bound on loopback (no traffic leaves the machine) but reported bound at
// to, as a listener that trusted the resolver would be. resolved counts
// the names it was asked for.
func hostileListen(t *testing.T, to string, resolved *atomic.Int32) {
	saved := listen
	listen = func(network, addr string) (net.Listener, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if net.ParseIP(host) != nil {
			return net.Listen(network, addr)
		}
		resolved.Add(1)
		ln, err := net.Listen(network, net.JoinHostPort("127.0.0.1", port))
		if err != nil {
			return nil, err
		}
		return fakeAddrListener{ln, &net.TCPAddr{IP: net.ParseIP(to), Port: ln.Addr().(*net.TCPAddr).Port}}, nil
	}
	t.Cleanup(func() { listen = saved })
}

type fakeAddrListener struct {
	net.Listener
	addr net.Addr
}

func (l fakeAddrListener) Addr() net.Addr { return l.addr }

// A socket that ends up bound outside loopback is refused, naming the
// address, before anything is served.
//
//contract:proves ai-control-protocol.integration.mcp-transports
func TestHTTPBoundOutsideLoopback(t *testing.T) {
	srv := startListener(t, map[string]any{"schemaVersion": 1, "availableActions": []string{"echo"}})
	saved := listen
	listen = func(network, addr string) (net.Listener, error) {
		ln, err := net.Listen(network, addr)
		if err != nil {
			return nil, err
		}
		return fakeAddrListener{ln, &net.TCPAddr{IP: net.ParseIP("192.0.2.10"), Port: 8080}}, nil
	}
	t.Cleanup(func() { listen = saved })
	st, _ := mcp.NewInMemoryTransports()
	stderr := &syncbuf.Buffer{}
	code := run(context.Background(), []string{"--actions", sampleActions(t), "--port", portOf(srv), "--http", "127.0.0.1:0"}, st, io.Discard, stderr, noEnv)
	if code != 1 || !strings.Contains(stderr.String(), "192.0.2.10:8080") || !strings.Contains(stderr.String(), "not loopback") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// Streamable HTTP serves the same tools on loopback. --http localhost is
// bound as 127.0.0.1 even where the resolver maps the name elsewhere; a
// request whose Host is not local is refused, and so is a browser's
// cross-origin request.
//
//contract:proves ai-control-protocol.integration.mcp-transports
func TestHTTPTransport(t *testing.T) {
	var resolved atomic.Int32
	hostileListen(t, "192.0.2.10", &resolved)
	srv := startListener(t, map[string]any{"schemaVersion": 1, "availableActions": []string{"echo", "move"}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	stderr := &syncbuf.Buffer{}
	exit := make(chan int, 1)
	go func() {
		st, _ := mcp.NewInMemoryTransports()
		exit <- run(ctx, []string{"--actions", sampleActions(t), "--port", portOf(srv), "--http", "localhost:0"}, st, pw, stderr, noEnv)
		pw.Close()
	}()
	line, err := readLine(pr)
	if err != nil {
		t.Fatalf("no ready line: %v; stderr %s", err, stderr)
	}
	var ready struct {
		Ready bool   `json:"ready"`
		URL   string `json:"url"`
	}
	if err := json.Unmarshal([]byte(line), &ready); err != nil || !ready.Ready || !strings.HasPrefix(ready.URL, "http://127.0.0.1:") {
		t.Fatalf("ready line %q: %v", line, err)
	}
	go io.Copy(io.Discard, pr)

	client := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ready.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "echo,move,observe" {
		t.Fatalf("tools over HTTP: %v", names)
	}
	obs, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "observe", Arguments: map[string]any{}})
	if err != nil || obs.IsError {
		t.Fatalf("observe over HTTP: %+v %v", obs, err)
	}
	cs.Close()

	if n := resolved.Load(); n != 0 {
		t.Errorf("--http localhost asked the resolver %d times", n)
	}
	local := strings.TrimPrefix(strings.TrimSuffix(ready.URL, "/mcp"), "http://")
	if code := post(t, ctx, ready.URL, local, nil); code == http.StatusForbidden {
		t.Errorf("a request for Host %s got 403", local)
	}
	if code := post(t, ctx, ready.URL, "attacker.example", nil); code != http.StatusForbidden {
		t.Errorf("a request for Host attacker.example got %d, want 403", code)
	}
	// Cross-origin protection: what a browser sends from a page of another
	// origin is refused; the same origin is served.
	for _, c := range []struct {
		headers map[string]string
		refused bool
	}{
		{map[string]string{"Sec-Fetch-Site": "cross-site"}, true},
		{map[string]string{"Origin": "http://attacker.example"}, true},
		{map[string]string{"Sec-Fetch-Site": "same-origin"}, false},
		{map[string]string{"Origin": "http://" + local}, false},
	} {
		if code := post(t, ctx, ready.URL, local, c.headers); (code == http.StatusForbidden) != c.refused {
			t.Errorf("request with %v: HTTP %d, refused want %v", c.headers, code, c.refused)
		}
	}
	cancel()
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("exit %d; stderr %s", code, stderr)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the HTTP server did not stop")
	}
}

// post sends an initialize request with the given Host header and returns
// the HTTP status.
func post(t *testing.T, ctx context.Context, url, host string, headers map[string]string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func readLine(r io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for {
		if _, err := r.Read(one); err != nil {
			return string(b), err
		}
		if one[0] == '\n' {
			return string(b), nil
		}
		b = append(b, one[0])
	}
}

// --version needs no actions file and connects to nothing.
func TestVersion(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	st, _ := mcp.NewInMemoryTransports()
	code := run(ctx, []string{"--version", "--port", "1"}, st, &stdout, &stderr, noEnv)
	if code != 0 || !strings.HasPrefix(stdout.String(), "aicontrol-mcp ") || !strings.Contains(stdout.String(), runtime.Version()) || stderr.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
