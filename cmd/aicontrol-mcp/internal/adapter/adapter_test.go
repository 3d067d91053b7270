package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/cmd/aicontrol-mcp/internal/actions"
	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/syncbuf"
)

// Both MCP protocol generations the go-sdk client speaks: the session
// protocol with notifications on the session, and the newer one where the
// client subscribes to list changes.
var protocols = []struct{ name, version string }{
	{"2025-11-25", "2025-11-25"},
	{"latest", ""},
}

// Tools are exactly the catalog's actions that availableActions lists,
// plus observe; a change of availableActions sends list_changed; an
// available action the catalog does not describe gets no tool.
//
//contract:proves ai-control-protocol.integration.mcp-available-tools
func TestToolsFollowAvailableActions(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			g := startGame(t, gameOptions{available: []string{"echo", "move", "dance"}})
			s := connect(t, g, sessionOptions{protocol: p.version})
			if got, want := s.tools(t), []string{"echo", "move", "observe"}; !slices.Equal(got, want) {
				t.Fatalf("tools %v, want %v", got, want)
			}
			info := s.endpoint(t)
			if !slices.Equal(info.UntypedActions, []string{"dance"}) || !slices.Equal(info.AvailableActions, []string{"dance", "echo", "move"}) {
				t.Errorf("endpoint resource: untyped %v, available %v", info.UntypedActions, info.AvailableActions)
			}

			g.setAvailable("echo", "fail")
			s.waitChanged(t)
			if got, want := s.toolsSettle(t, "echo", "fail", "observe"), []string{"echo", "fail", "observe"}; !slices.Equal(got, want) {
				t.Fatalf("after the change: tools %v, want %v", got, want)
			}
			// A client that still holds the old list gets a tool error for
			// move, and the game sees nothing.
			res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "move", Arguments: map[string]any{"x": 1, "y": 2}})
			if err == nil && !res.IsError {
				t.Fatalf("move after it was withdrawn: %+v", res)
			}
			if n := len(g.commands()); n != 0 {
				t.Errorf("the game received %d commands", n)
			}

			g.setAvailable()
			s.waitChanged(t)
			if got, want := s.toolsSettle(t, "observe"), []string{"observe"}; !slices.Equal(got, want) {
				t.Fatalf("nothing available: tools %v, want %v", got, want)
			}
		})
	}
}

// A tool call queues one act and returns that command's completion; a
// refusal by the game is a failed call.
//
//contract:proves ai-control-protocol.integration.mcp-completion
func TestCallReturnsItsCompletion(t *testing.T) {
	g := startGame(t, gameOptions{})
	s := connect(t, g, sessionOptions{})
	res := s.call(t, "move", map[string]any{"x": 3, "y": -4})
	out := output(t, res)
	if res.IsError || !out.Success || out.Message != "moved to 3,-4" || out.CommandSeq != 1 || out.Action != "move" || out.EventSeq < 1 {
		t.Fatalf("move: error=%v %+v", res.IsError, out)
	}
	cmds := g.commands()
	if len(cmds) != 1 || cmds[0].Type != "move" || *cmds[0].X != 3 || *cmds[0].Y != -4 {
		t.Fatalf("the game received %+v", cmds)
	}
	res = s.call(t, "fail", nil)
	out = output(t, res)
	if !res.IsError || out.Success || out.Message != "refused by the game" || out.CommandSeq != 2 {
		t.Fatalf("fail: error=%v %+v", res.IsError, out)
	}
	res = s.call(t, "echo", map[string]any{"stringArg": "привет"})
	if out := output(t, res); res.IsError || out.Message != "привет" || out.CommandSeq != 3 {
		t.Fatalf("echo: %+v", out)
	}

	res = s.call(t, "observe", nil)
	var obs observeOutput
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &obs); err != nil || obs.ObservationSeq != 1 || !strings.Contains(string(obs.Observation), `"schemaVersion":1`) {
		t.Fatalf("observe: %s %v", b, err)
	}
}

// Arguments the schema or the act command's field types refuse are a tool
// error, and nothing reaches the listener: no command is accepted and the
// listener records no rejected request.
//
//contract:proves ai-control-protocol.integration.mcp-typed-arguments
func TestInvalidArgumentsSendNothing(t *testing.T) {
	g := startGame(t, gameOptions{})
	s := connect(t, g, sessionOptions{})
	cases := []struct {
		tool string
		args any
		want string
	}{
		{"move", map[string]any{"x": "three", "y": 1}, "/x"},
		{"move", map[string]any{"x": 1}, "y"},
		{"move", map[string]any{"x": 1.5, "y": 1}, "/x"},
		{"move", map[string]any{"x": 11, "y": 1}, "/x"},
		{"move", map[string]any{"x": 1, "y": 1, "z": 1}, "z"},
		{"move", map[string]any{"x": 1, "y": 1, "type": "fail"}, "type"},
		{"echo", map[string]any{"stringArg": 7}, "/stringArg"},
		// The schema allows anything for x; the protocol wants an integer.
		{"loose", map[string]any{"x": "far"}, "act command"},
	}
	for _, c := range cases {
		res := s.call(t, c.tool, c.args)
		mustContain(t, "tool error", errorText(t, res), "invalid arguments for "+c.tool, c.want)
	}
	if n := len(g.commands()); n != 0 {
		t.Fatalf("the game received %d commands", n)
	}
	if st := g.srv.Status(); st.LastError != "" || st.QueuedCommands != 0 {
		t.Fatalf("listener status after invalid calls: %+v", st)
	}
	// A command too large for one protocol line is refused by the client
	// library before it is written; the connection stays as it was.
	huge := strings.Repeat("x", aicontrol.MaxLineBytes)
	mustContain(t, "oversized", errorText(t, s.call(t, "echo", map[string]any{"stringArg": huge})), "does not fit in one protocol line", "nothing was sent")
	if c := strings.Count(s.log.String(), "msg=connected"); c != 1 {
		t.Fatalf("connected %d times after an oversized command", c)
	}
	// The boundary itself is accepted, and it is the first command the
	// listener ever numbered.
	if out := output(t, s.call(t, "move", map[string]any{"x": 10, "y": 1})); out.CommandSeq != 1 || !out.Success {
		t.Fatalf("move at the schema's maximum: %+v", out)
	}
}

// A cancelled call stops waiting; its command's completion, when it comes,
// is consumed and never given to the call that waits next.
//
//contract:proves ai-control-protocol.integration.mcp-completion
func TestCancelledCallsCompletionGoesNowhere(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			g := startGame(t, gameOptions{})
			s := connect(t, g, sessionOptions{protocol: p.version})
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
				errc <- err
			}()
			first := g.waitHeld(1)[0]
			cancel()
			select {
			case err := <-errc:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("cancelled call returned %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("cancelled call did not return")
			}

			type result struct {
				res *mcp.CallToolResult
				err error
			}
			second := make(chan result, 1)
			go func() {
				res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
				second <- result{res, err}
			}()
			held := g.waitHeld(2)
			// The cancelled command completes while the second call waits.
			g.release(first)
			select {
			case r := <-second:
				t.Fatalf("second call returned on the first command's completion: %+v %v", r.res, r.err)
			case <-time.After(100 * time.Millisecond):
			}
			g.release(held[1])
			r := <-second
			if r.err != nil {
				t.Fatal(r.err)
			}
			if out := output(t, r.res); out.CommandSeq != held[1] || out.Message != "released "+strconv.FormatInt(held[1], 10) {
				t.Fatalf("second call got %+v, want command %d", out, held[1])
			}
			s.a.mu.Lock()
			left := len(s.a.waiters)
			s.a.mu.Unlock()
			if left != 0 {
				t.Fatalf("%d waiters left after both completions", left)
			}
		})
	}
}

// A call that outlives its timeout is a tool error; the late completion
// is consumed and the next call gets its own.
//
//contract:proves ai-control-protocol.integration.mcp-completion
func TestCallTimeout(t *testing.T) {
	g := startGame(t, gameOptions{})
	s := connect(t, g, sessionOptions{callTimeout: 50 * time.Millisecond})
	mustContain(t, "timeout", errorText(t, s.call(t, "slow", nil)), "command 1 did not complete within 50ms", "observe")
	g.release(g.waitHeld(1)[0])
	if out := output(t, s.call(t, "echo", map[string]any{"stringArg": "next"})); out.CommandSeq != 2 || out.Message != "next" {
		t.Fatalf("call after a timeout: %+v", out)
	}
}

// The listener shuts down while a call waits: it completes the command
// with success false before it closes the connection, and the call
// returns that completion as a tool error. The adapter notices the closed
// connection before the next call sends anything: while nothing listens
// that call says the listener cannot be reached; when a listener is back
// the call goes to it on a new connection.
//
//contract:proves ai-control-protocol.integration.mcp-faults ai-control-protocol.integration.shutdown-delivery
func TestListenerShutdownMidCall(t *testing.T) {
	g := startGame(t, gameOptions{})
	addr := g.addr
	// No status polling: the call, not the follower, meets the closed
	// connection.
	s := connect(t, g, sessionOptions{refresh: time.Hour})
	done := make(chan *mcp.CallToolResult, 1)
	go func() { done <- s.call(t, "slow", nil) }()
	g.waitHeld(1)
	g.close() // returns once the listener has closed every connection
	var res *mcp.CallToolResult
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end when the listener shut down")
	}
	if out := output(t, res); !res.IsError || out.Success || out.Message != bridge.ShutdownMessage || out.CommandSeq != 1 || out.Action != "slow" {
		t.Fatalf("the listener's completion: error %v, %+v", res.IsError, out)
	}
	waitFor(t, "the listener's close to reach the adapter's socket", func() bool { return !connectedTo(t, g.port()) })

	// Nothing listens: the call says so, and nothing was sent.
	mustContain(t, "tool error", errorText(t, s.call(t, "echo", nil)), "cannot reach the listener at "+addr)

	g2 := startGame(t, gameOptions{addr: addr})
	out := output(t, s.call(t, "echo", map[string]any{"stringArg": "back"}))
	if out.Message != "back" || out.CommandSeq != 1 {
		t.Fatalf("after reconnecting: %+v", out)
	}
	if n := len(g2.commands()); n != 1 {
		t.Fatalf("the new listener received %d commands", n)
	}
	if c := strings.Count(s.log.String(), "msg=connected"); c != 2 {
		t.Fatalf("connected %d times, want 2; log:\n%s", c, s.log)
	}
	if info := s.endpoint(t); !info.Connected || info.Listener == nil || info.Listener.Port != int64(g2.port()) {
		t.Fatalf("endpoint after reconnecting: %+v", info)
	}

	// A listener that restarted between two calls: the next call goes on
	// a new connection to it, at once.
	g2.close()
	waitFor(t, "the listener's close to reach the adapter's socket", func() bool { return !connectedTo(t, g2.port()) })
	g3 := startGame(t, gameOptions{addr: addr})
	out = output(t, s.call(t, "echo", map[string]any{"stringArg": "again"}))
	if out.Message != "again" || out.CommandSeq != 1 || len(g3.commands()) != 1 {
		t.Fatalf("after the restart: %+v, %d commands", out, len(g3.commands()))
	}
	if c := strings.Count(s.log.String(), "msg=connected"); c != 3 {
		t.Fatalf("connected %d times, want 3; log:\n%s", c, s.log)
	}
}

// The connection dies while a call waits, with no completion (a cut
// between the adapter and the listener): the call is a tool error naming
// the endpoint and saying the outcome is unknown; while nothing listens
// the next call says the listener cannot be reached; then a call connects
// again and the game, which never stopped, runs it.
//
//contract:proves ai-control-protocol.integration.mcp-faults
func TestConnectionLostMidCall(t *testing.T) {
	g := startGame(t, gameOptions{})
	px := startProxy(t, g.addr)
	s := connect(t, g, sessionOptions{port: px.port()})
	done := make(chan *mcp.CallToolResult, 1)
	go func() { done <- s.call(t, "slow", nil) }()
	g.waitHeld(1)
	// The adapter has read act's answer (command 1 is awaited) before the
	// connection goes: the lost answer of act itself is the next test's case.
	if !eventuallyTrue(func() bool { s.a.mu.Lock(); defer s.a.mu.Unlock(); return len(s.a.waiters) == 1 }) {
		t.Fatal("the adapter never awaited command 1")
	}
	px.cut()
	var res *mcp.CallToolResult
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end when the connection was lost")
	}
	mustContain(t, "tool error", errorText(t, res), "command 1:", "lost the connection to the listener at "+px.addr, "the next call reconnects", "whether the game ran it is unknown")

	mustContain(t, "tool error", errorText(t, s.call(t, "echo", nil)), "cannot reach the listener at "+px.addr)

	px.restart()
	out := output(t, s.call(t, "echo", map[string]any{"stringArg": "back"}))
	if out.Message != "back" || out.CommandSeq != 2 {
		t.Fatalf("after reconnecting: %+v", out)
	}
	if cmds := g.commands(); len(cmds) != 2 || cmds[0].Type != "slow" || cmds[1].Type != "echo" {
		t.Fatalf("the game received %+v, want slow then echo", cmds)
	}
	if c := strings.Count(s.log.String(), "msg=connected"); c != 2 {
		t.Fatalf("connected %d times, want 2; log:\n%s", c, s.log)
	}
}

// When act's own answer is lost, the command may have been queued: the
// tool error says the command was sent and that its fate is unknown.
//
//contract:proves ai-control-protocol.integration.mcp-faults
func TestActAnswerLost(t *testing.T) {
	g := startGame(t, gameOptions{})
	px := startProxy(t, g.addr)
	s := connect(t, g, sessionOptions{port: px.port()})
	px.muteAfter(`"method":"act"`)
	done := make(chan *mcp.CallToolResult, 1)
	go func() { done <- s.call(t, "slow", nil) }()
	g.waitHeld(1)
	px.cut()
	var res *mcp.CallToolResult
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end when the connection was lost")
	}
	mustContain(t, "tool error", errorText(t, res), "lost the connection to the listener at "+px.addr, "the command was sent", "whether the game queued and ran it is unknown", "the next call reconnects")
	if cmds := g.commands(); len(cmds) != 1 || cmds[0].Type != "slow" {
		t.Fatalf("the game received %+v, want the slow command", cmds)
	}
}

// A full queue (-32002) is a tool error that says nothing was queued and
// to retry; the command that filled the queue still completes.
//
//contract:proves ai-control-protocol.integration.mcp-faults
func TestQueueFullIsToolError(t *testing.T) {
	g := startGame(t, gameOptions{maxQueued: 1})
	g.pause(true)
	s := connect(t, g, sessionOptions{})
	first := make(chan *mcp.CallToolResult, 1)
	go func() { first <- s.call(t, "echo", map[string]any{"stringArg": "queued"}) }()
	deadline := time.Now().Add(10 * time.Second)
	for g.srv.Status().QueuedCommands != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the first command was not queued")
		}
		time.Sleep(time.Millisecond)
	}
	msg := errorText(t, s.call(t, "echo", map[string]any{"stringArg": "refused"}))
	mustContain(t, "queue full", msg, "queue is full", "-32002", "nothing was queued", "retry")
	g.pause(false)
	if out := output(t, <-first); out.Message != "queued" || out.CommandSeq != 1 {
		t.Fatalf("the queued command: %+v", out)
	}
	if out := output(t, s.call(t, "echo", map[string]any{"stringArg": "retried"})); out.CommandSeq != 2 {
		t.Fatalf("retry: %+v", out)
	}
}

// The number of commands awaited at once is bounded: at the limit a call
// is queued, one past it is refused before anything is sent.
//
//contract:proves ai-control-protocol.integration.mcp-faults
func TestInFlightLimit(t *testing.T) {
	g := startGame(t, gameOptions{})
	s := connect(t, g, sessionOptions{maxInFlight: 2})
	var wg sync.WaitGroup
	results := make([]*mcp.CallToolResult, 2)
	for i := range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = s.call(t, "slow", nil) }()
	}
	held := g.waitHeld(2)
	mustContain(t, "third call", errorText(t, s.call(t, "echo", nil)), "too many commands in flight", "2 commands")
	if n := len(g.commands()); n != 2 {
		t.Fatalf("the game received %d commands, want 2", n)
	}
	for _, seq := range held {
		g.release(seq)
	}
	wg.Wait()
	for i, r := range results {
		if r.IsError {
			t.Fatalf("call %d: %+v", i, r)
		}
	}
}

// When events roll out of the history before the adapter reads them, the
// waiting calls end with an error instead of waiting for ever.
//
//contract:proves ai-control-protocol.integration.mcp-completion
func TestMissedCompletion(t *testing.T) {
	g := startGame(t, gameOptions{maxEvents: 2})
	s := connect(t, g, sessionOptions{})
	done := make(chan *mcp.CallToolResult, 1)
	go func() { done <- s.call(t, "slow", nil) }()
	seq := g.waitHeld(1)[0]
	// Hold the follower while the game fills the history past its bound.
	s.a.mu.Lock()
	g.release(seq)
	for range 3 {
		if _, err := g.srv.AppendEvent(map[string]any{"type": "noise"}); err != nil {
			t.Fatal(err)
		}
	}
	s.a.mu.Unlock()
	mustContain(t, "missed", errorText(t, <-done), "rolled out of the event history", "observe")
}

// The start is refused when the observation's schemaVersion differs from
// the actions file's, or when the observation cannot be checked; after a
// reconnect, a mismatch withdraws every action tool.
//
//contract:proves ai-control-protocol.integration.mcp-schema-gate ai-control-protocol.integration.observation-schema
func TestSchemaGate(t *testing.T) {
	log := &syncbuf.Buffer{}
	for _, c := range []struct {
		name   string
		schema any
		want   string
	}{
		{"newer", 2, "schemaVersion 2, actions.json declares 1"},
		{"string", "1", `schemaVersion "1", actions.json declares 1`},
		{"fraction", 1.5, "not an integer"},
	} {
		g := startGame(t, gameOptions{schema: c.schema})
		_, err := New(context.Background(), adapterConfig(t, g, sessionOptions{}, log))
		if err == nil {
			t.Fatalf("%s: New accepted a mismatched observation", c.name)
		}
		mustContain(t, c.name, err.Error(), c.want)
		if c.name == "newer" && !errors.Is(err, actions.ErrSchemaMismatch) {
			t.Errorf("%s: %v is not ErrSchemaMismatch", c.name, err)
		}
		g.close()
	}
	noActions := startGame(t, gameOptions{})
	if _, err := noActions.srv.PublishObservation(map[string]any{"schemaVersion": 1}); err != nil {
		t.Fatal(err)
	}
	_, err := New(context.Background(), adapterConfig(t, noActions, sessionOptions{}, log))
	if err == nil || !strings.Contains(err.Error(), "availableActions") {
		t.Fatalf("observation without availableActions: %v", err)
	}
	noActions.close()

	// A game restarted with another schema: the action tools go away.
	g := startGame(t, gameOptions{})
	addr := g.addr
	s := connect(t, g, sessionOptions{})
	g.close()
	// The follower notices an idle connection's loss by itself.
	waitFor(t, "the follower to notice the lost connection", func() bool { return strings.Contains(s.log.String(), "connection lost") })
	g2 := startGame(t, gameOptions{addr: addr, schema: 2})
	msg := errorText(t, s.call(t, "echo", nil))
	mustContain(t, "mismatch after reconnect", msg, "schemaVersion 2")
	s.waitChanged(t)
	if got := s.tools(t); !slices.Equal(got, []string{"observe"}) {
		t.Fatalf("tools after a mismatch: %v", got)
	}
	if n := len(g2.commands()); n != 0 {
		t.Fatalf("the mismatched game received %d commands", n)
	}
}

// The endpoint resource names the listener, the protocol and schema
// versions and the project revision; the token is in no MCP message,
// resource, log line or error, whatever happens.
//
//contract:proves ai-control-protocol.integration.mcp-identity ai-control-protocol.integration.mcp-boundary
func TestIdentityWithoutToken(t *testing.T) {
	g := startGame(t, gameOptions{token: testToken})
	s := connect(t, g, sessionOptions{callTimeout: 50 * time.Millisecond})
	info := s.endpoint(t)
	if info.Endpoint != g.addr || !info.Connected || info.ProtocolVersion != aicontrol.ProtocolVersion ||
		string(info.SchemaVersion) != "1" || info.Project.Name != "test-game" || info.Project.Revision != "rev-7" ||
		info.Adapter.Name != Name || info.Listener == nil || !info.Listener.Running {
		t.Fatalf("endpoint resource: %+v", info)
	}
	// Successes, refusals, argument errors, a timeout and a lost
	// connection: every kind of output.
	s.call(t, "move", map[string]any{"x": 1, "y": 1})
	s.call(t, "fail", nil)
	s.call(t, "move", map[string]any{"x": "a"})
	s.call(t, "slow", nil)
	s.call(t, "observe", nil)
	g.close()
	s.call(t, "echo", nil)
	s.endpoint(t)

	// Wrong and missing tokens are refused with a message naming the
	// variable, never the value.
	g2 := startGame(t, gameOptions{token: testToken})
	var errs []string
	for _, tok := range []string{"wrong-" + testToken, ""} {
		cfg := adapterConfig(t, g2, sessionOptions{}, s.log)
		cfg.Client.Token = tok
		_, err := New(context.Background(), cfg)
		if err == nil {
			t.Fatalf("token %q accepted", tok)
		}
		mustContain(t, "auth error", err.Error(), "$AICONTROL_TOKEN")
		errs = append(errs, err.Error())
	}
	for what, text := range map[string]string{"MCP messages": s.wire.String(), "adapter log": s.log.String(), "errors": strings.Join(errs, "\n")} {
		if text == "" {
			t.Fatalf("%s: nothing recorded", what)
		}
		if strings.Contains(text, testToken) || strings.Contains(text, "wrong-") {
			t.Errorf("the token appears in the %s", what)
		}
	}
	if !strings.Contains(s.wire.String(), "tools/call") {
		t.Fatal("the recorded MCP messages miss the tool calls")
	}
}

// Argument schemas and the catalog's names reach the client unchanged.
//
//contract:proves ai-control-protocol.integration.mcp-boundary
func TestToolsCarryTheCatalog(t *testing.T) {
	g := startGame(t, gameOptions{})
	cat := strings.Replace(catalog, `"schemaVersion": 1,`, `"schemaVersion": 1, "toolPrefix": "tg.",`, 1)
	s := connect(t, g, sessionOptions{catalog: cat})
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	f := loadCatalog(t, cat)
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Name == "tg.observe" {
			continue
		}
		act, ok := f.Lookup(strings.TrimPrefix(tl.Name, "tg."))
		if !ok {
			t.Fatalf("tool %s is not in the catalog", tl.Name)
		}
		var want any
		if err := json.Unmarshal(act.Arguments, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(tl.InputSchema, want) || tl.Description != act.Description.En || tl.OutputSchema == nil {
			t.Errorf("tool %s: schema %v, description %q", tl.Name, tl.InputSchema, tl.Description)
		}
	}
	if want := []string{"tg.echo", "tg.fail", "tg.loose", "tg.move", "tg.observe", "tg.slow"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	if out := output(t, s.call(t, "tg.echo", map[string]any{"stringArg": "x"})); out.Action != "echo" {
		t.Fatalf("prefixed tool sent %+v", out)
	}
	if cmds := g.commands(); cmds[0].Type != "echo" {
		t.Fatalf("the game received type %q", cmds[0].Type)
	}
}

// Russian descriptions are chosen with Lang.
func TestRussianDescriptions(t *testing.T) {
	g := startGame(t, gameOptions{})
	log := &syncbuf.Buffer{}
	cfg := adapterConfig(t, g, sessionOptions{}, log)
	cfg.Lang = "ru"
	a, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if got := a.observeTool().Description; got != observeDescription.Ru {
		t.Fatalf("observe description %q", got)
	}
	act, _ := cfg.Actions.Lookup("move")
	if got := a.actionTool(act).Description; got != "Идти." {
		t.Fatalf("move description %q", got)
	}
	cfg.Lang = "de"
	if _, err := New(context.Background(), cfg); err == nil {
		t.Fatal("language de accepted")
	}
}

// A call that times out or is cancelled frees its place among the calls
// in flight at once, while the game still holds its command: with a limit
// of two, two timed-out calls leave room for the next two; a cancelled
// call leaves room for the next.
//
//contract:proves ai-control-protocol.integration.mcp-completion ai-control-protocol.integration.mcp-faults
func TestAbandonedCallsFreeTheirPlace(t *testing.T) {
	g := startGame(t, gameOptions{})
	s := connect(t, g, sessionOptions{maxInFlight: 2, callTimeout: 50 * time.Millisecond})
	for i := range 2 {
		mustContain(t, "timeout", errorText(t, s.call(t, "slow", nil)), "did not complete within 50ms")
		if n := len(g.waitHeld(i + 1)); n != i+1 {
			t.Fatalf("the game holds %d commands", n)
		}
	}
	// The game still holds both commands; their calls are gone.
	var wg sync.WaitGroup
	results := make([]*mcp.CallToolResult, 2)
	for i := range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = s.call(t, "echo", map[string]any{"stringArg": "after"}) }()
	}
	wg.Wait()
	for i, r := range results {
		if r.IsError {
			t.Fatalf("call %d after two timed-out calls: %s", i, errorText(t, r))
		}
	}

	long := connect(t, g, sessionOptions{maxInFlight: 1, callTimeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := long.cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow"})
		done <- err
	}()
	g.waitHeld(3)
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled call returned no error")
	}
	// The server learns of the cancellation by a notification: wait until
	// the adapter has let the call go, without the command completing.
	waitFor(t, "the cancelled call to give up its place", func() bool {
		long.a.mu.Lock()
		defer long.a.mu.Unlock()
		return len(long.a.waiters) == 0
	})
	if r := long.call(t, "echo", map[string]any{"stringArg": "after-cancel"}); r.IsError {
		t.Fatalf("call after a cancelled one: %s", errorText(t, r))
	}
	for _, seq := range g.waitHeld(3) {
		g.release(seq)
	}
}
