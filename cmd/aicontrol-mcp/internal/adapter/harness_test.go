package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/cmd/aicontrol-mcp/internal/actions"
	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/syncbuf"
)

// testToken is distinctive, so a search for it in any output cannot hit
// by chance.
const testToken = "tok-9f3Kq-adapter-secret"

// catalog is the actions file of the in-process game.
const catalog = `{
  "schemaVersion": 1,
  "project": {"name": "test-game", "revision": "rev-7"},
  "actions": [
    {"name": "echo", "description": {"en": "Echo.", "ru": "Эхо."},
     "arguments": {"type": "object", "properties": {"stringArg": {"type": "string"}}, "additionalProperties": false}},
    {"name": "move", "description": {"en": "Move.", "ru": "Идти."},
     "arguments": {"type": "object", "required": ["x", "y"], "additionalProperties": false,
                   "properties": {"x": {"type": "integer", "minimum": -10, "maximum": 10}, "y": {"type": "integer"}}}},
    {"name": "fail", "description": {"en": "Refused.", "ru": "Отказ."},
     "arguments": {"type": "object"}},
    {"name": "slow", "description": {"en": "Held until released.", "ru": "Ждёт освобождения."},
     "arguments": {"type": "object", "properties": {"stringArg": {"type": "string"}}}},
    {"name": "loose", "description": {"en": "A schema looser than the wire.", "ru": "Схема шире протокола."},
     "arguments": {"type": "object", "properties": {"x": {}}}}
  ]
}`

// game is an in-process listener with a small scripted game loop: echo,
// move and fail complete at once; slow commands are held until released.
type game struct {
	t     *testing.T
	srv   *bridge.Server
	addr  string
	token string

	mu        sync.Mutex
	schema    any
	available []string
	seen      []aicontrol.ActParams
	held      []int64
	paused    bool

	stop chan struct{}
	done chan struct{}
}

type gameOptions struct {
	token     string
	addr      string // empty: a free loopback port
	maxQueued int
	maxEvents int
	schema    any // the observation's schemaVersion; nil means 1
	available []string
}

func startGame(t *testing.T, o gameOptions) *game {
	t.Helper()
	if o.addr == "" {
		o.addr = "127.0.0.1:0"
	}
	if o.schema == nil {
		o.schema = 1
	}
	if o.available == nil {
		o.available = []string{"echo", "move", "fail", "slow", "loose"}
	}
	srv, err := bridge.Listen(bridge.Config{Enabled: true, Addr: o.addr, Token: o.token, MaxQueuedCommands: o.maxQueued, MaxEvents: o.maxEvents})
	if err != nil {
		t.Fatal(err)
	}
	g := &game{t: t, srv: srv, addr: srv.Addr().String(), token: o.token, schema: o.schema, available: o.available,
		stop: make(chan struct{}), done: make(chan struct{})}
	g.publish()
	go g.loop()
	t.Cleanup(g.close)
	return g
}

func (g *game) port() int { return g.srv.Addr().(*net.TCPAddr).Port }

func (g *game) publish() {
	g.mu.Lock()
	obs := map[string]any{"schemaVersion": g.schema, "ready": true, "availableActions": g.available}
	g.mu.Unlock()
	if _, err := g.srv.PublishObservation(obs); err != nil {
		g.t.Error(err)
	}
}

// setAvailable replaces availableActions and publishes the observation.
func (g *game) setAvailable(names ...string) {
	g.mu.Lock()
	g.available = names
	g.mu.Unlock()
	g.publish()
}

func (g *game) loop() {
	defer close(g.done)
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-g.stop:
			return
		case <-g.srv.Wake():
		case <-tick.C:
		}
		g.mu.Lock()
		paused := g.paused
		g.mu.Unlock()
		if paused {
			continue
		}
		for _, cmd := range g.srv.Drain(0) {
			g.execute(cmd)
		}
	}
}

func (g *game) execute(cmd bridge.Command) {
	g.mu.Lock()
	g.seen = append(g.seen, cmd.Params)
	g.mu.Unlock()
	switch cmd.Params.Type {
	case "slow":
		g.mu.Lock()
		g.held = append(g.held, cmd.Seq)
		g.mu.Unlock()
		return
	case "fail":
		g.complete(cmd.Seq, false, "refused by the game")
	case "move":
		g.complete(cmd.Seq, true, fmt.Sprintf("moved to %d,%d", *cmd.Params.X, *cmd.Params.Y))
	default:
		msg := "done " + cmd.Params.Type
		if cmd.Params.StringArg != nil {
			msg = *cmd.Params.StringArg
		}
		g.complete(cmd.Seq, true, msg)
	}
}

func (g *game) complete(seq int64, ok bool, msg string) {
	if _, err := g.srv.Complete(seq, ok, msg, nil); err != nil {
		g.t.Errorf("complete %d: %v", seq, err)
	}
}

// waitHeld waits until n slow commands are held and returns their seqs.
func (g *game) waitHeld(n int) []int64 {
	g.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		g.mu.Lock()
		h := append([]int64(nil), g.held...)
		g.mu.Unlock()
		if len(h) >= n {
			return h
		}
		time.Sleep(time.Millisecond)
	}
	g.t.Fatalf("fewer than %d slow commands reached the game", n)
	return nil
}

// release completes a held slow command with a message naming it.
func (g *game) release(seq int64) {
	g.mu.Lock()
	for i, s := range g.held {
		if s == seq {
			g.held = append(g.held[:i], g.held[i+1:]...)
			break
		}
	}
	g.mu.Unlock()
	g.complete(seq, true, fmt.Sprintf("released %d", seq))
}

func (g *game) pause(p bool) {
	g.mu.Lock()
	g.paused = p
	g.mu.Unlock()
}

func (g *game) commands() []aicontrol.ActParams {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]aicontrol.ActParams(nil), g.seen...)
}

func (g *game) close() {
	select {
	case <-g.stop:
		return
	default:
	}
	close(g.stop)
	<-g.done
	g.srv.Close()
}

// session is an adapter with an MCP client connected in process.
type session struct {
	a       *Adapter
	cs      *mcp.ClientSession
	log     *syncbuf.Buffer // the adapter's log
	wire    *syncbuf.Buffer // every MCP message, both ways
	changed chan struct{}
}

type sessionOptions struct {
	port        int // where the adapter connects; 0: the game's port
	catalog     string
	protocol    string // MCP protocol version the client asks for; empty: the SDK's latest
	callTimeout time.Duration
	maxInFlight int
	refresh     time.Duration
}

func loadCatalog(t *testing.T, text string) *actions.File {
	t.Helper()
	if text == "" {
		text = catalog
	}
	f, err := actions.Parse("actions.json", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func adapterConfig(t *testing.T, g *game, o sessionOptions, log *syncbuf.Buffer) Config {
	if o.refresh == 0 {
		o.refresh = 20 * time.Millisecond
	}
	if o.port == 0 {
		o.port = g.port()
	}
	return Config{
		Client:      bridge.ClientConfig{Host: "127.0.0.1", Port: o.port, Token: g.token, Timeout: 5 * time.Second},
		TokenEnv:    "AICONTROL_TOKEN",
		Actions:     loadCatalog(t, o.catalog),
		CallTimeout: o.callTimeout,
		Refresh:     o.refresh,
		MaxInFlight: o.maxInFlight,
		Logger:      slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
}

func connect(t *testing.T, g *game, o sessionOptions) *session {
	t.Helper()
	s := &session{log: &syncbuf.Buffer{}, wire: &syncbuf.Buffer{}, changed: make(chan struct{}, 16)}
	a, err := New(context.Background(), adapterConfig(t, g, o, s.log))
	if err != nil {
		t.Fatal(err)
	}
	s.a = a
	t.Cleanup(a.Close)
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	ss, err := a.Server().Connect(ctx, &mcp.LoggingTransport{Transport: st, Writer: s.wire}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			s.changed <- struct{}{}
		},
	})
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: o.protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	s.cs = cs
	return s
}

// call runs a tool with a bounded context. The bound is for a call that
// never ends: a 1 MiB argument validated under the race detector on a
// loaded machine takes seconds.
func (s *session) call(t *testing.T, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

// tools lists the tool names, sorted as the server lists them.
func (s *session) tools(t *testing.T) []string {
	t.Helper()
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// waitChanged waits for a notifications/tools/list_changed.
func (s *session) waitChanged(t *testing.T) {
	t.Helper()
	select {
	case <-s.changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed")
	}
}

// toolsSettle lists the tools until the list is want, for up to ten
// seconds, and returns the last list. One change of the game's actions
// may add and remove tools in steps, each announced by its own
// notifications/tools/list_changed, so the first notice can come before
// the last step.
func (s *session) toolsSettle(t *testing.T, want ...string) []string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if got := s.tools(t); slices.Equal(got, want) || time.Now().After(deadline) {
			return got
		}
	}
}

// endpoint reads the endpoint resource.
func (s *session) endpoint(t *testing.T) endpointInfo {
	t.Helper()
	res, err := s.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: EndpointURI})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" {
		t.Fatalf("endpoint resource contents %+v", res.Contents)
	}
	var info endpointInfo
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &info); err != nil {
		t.Fatal(err)
	}
	return info
}

// output decodes an action tool's structured content.
func output(t *testing.T, res *mcp.CallToolResult) actionOutput {
	t.Helper()
	var out actionOutput
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return out
}

// errorText returns the text of a tool error, failing unless res is one.
func errorText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if !res.IsError || len(res.Content) == 0 {
		t.Fatalf("want a tool error, got %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("tool error content %T", res.Content[0])
	}
	return tc.Text
}

func mustContain(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s %q does not contain %q", what, s, sub)
		}
	}
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// proxy relays loopback connections to a listener, so that a test can cut
// them abruptly (a reset, no completion), as when the game's process or
// the network dies, and stop listening; restart listens again on the
// same address.
type proxy struct {
	t      *testing.T
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns []*net.TCPConn
	muted atomic.Bool // the listener's bytes are dropped instead of relayed
	// muteOn, when set, mutes the proxy as a request containing it passes.
	muteOn atomic.Pointer[string]
}

// muteAfter drops what the listener sends once a request containing s
// has been relayed, as a connection whose return path has died would,
// while requests still reach the listener.
func (p *proxy) muteAfter(s string) { p.muteOn.Store(&s) }

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	p := &proxy{t: t, target: target, addr: "127.0.0.1:0"}
	p.listen()
	t.Cleanup(p.cut)
	return p
}

func (p *proxy) port() int {
	_, port, _ := net.SplitHostPort(p.addr)
	n, _ := strconv.Atoi(port)
	return n
}

func (p *proxy) listen() {
	p.t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.DialTimeout("tcp", p.target, 5*time.Second)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c.(*net.TCPConn), u.(*net.TCPConn))
			p.mu.Unlock()
			go func() {
				buf := make([]byte, 32<<10)
				for {
					n, err := c.Read(buf)
					if n > 0 {
						if m := p.muteOn.Load(); m != nil && strings.Contains(string(buf[:n]), *m) {
							p.muted.Store(true)
						}
						if _, werr := u.Write(buf[:n]); werr != nil {
							break
						}
					}
					if err != nil {
						break
					}
				}
				u.Close()
			}()
			go func() {
				buf := make([]byte, 32<<10)
				for {
					n, err := u.Read(buf)
					if n > 0 && !p.muted.Load() {
						if _, werr := c.Write(buf[:n]); werr != nil {
							break
						}
					}
					if err != nil {
						break
					}
				}
				c.Close()
			}()
		}
	}()
}

// restart listens again on the same address.
func (p *proxy) restart() { p.listen() }

// eventuallyTrue polls cond for up to ten seconds.
func eventuallyTrue(cond func() bool) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

// cut stops listening and resets every relayed connection.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.SetLinger(0) // close with a reset, as a dying process's kernel may
		c.Close()
	}
	p.conns = nil
}

// connectedTo reports whether a connection to the loopback port is still
// established on this side, from the kernel's table (/proc/net/tcp);
// where there is no such table it reports false.
func connectedTo(t *testing.T, port int) bool {
	t.Helper()
	const established = "01"
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 4 {
				continue
			}
			_, remotePort, ok := strings.Cut(f[2], ":")
			if n, err := strconv.ParseInt(remotePort, 16, 32); ok && err == nil && int(n) == port && f[3] == established {
				return true
			}
		}
	}
	return false
}
