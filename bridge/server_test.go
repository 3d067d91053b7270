//go:build !aicontrol_disabled

package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractkit/contractkit/generated/aicontrol"
)

const testToken = "correct-horse-battery-staple"

// start runs a listener on a free loopback port; it stops with the test.
func start(t testing.TB, cfg Config) *Server {
	t.Helper()
	cfg.Enabled = true
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	s, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// wire is a raw connection that checks every response envelope.
type wire struct {
	t  testing.TB
	c  net.Conn
	br *bufio.Reader
}

func dialRaw(t testing.TB, s *Server) *wire {
	t.Helper()
	c, err := net.DialTimeout("tcp", s.Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	return &wire{t: t, c: c, br: bufio.NewReaderSize(c, 1<<16)}
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.c, line); err != nil {
		w.t.Fatal(err)
	}
}

// reply reads one response line and checks it against the contract's
// response envelope: jsonrpc "2.0", an id, exactly one of result and error.
func (w *wire) reply() (raw string, resp aicontrol.Response) {
	w.t.Helper()
	line, err := w.br.ReadString('\n')
	if err != nil {
		w.t.Fatalf("reading response: %v (got %q)", err, line)
	}
	resp, err = aicontrol.DecodeResponse([]byte(strings.TrimSuffix(line, "\n")))
	if err != nil {
		w.t.Fatalf("response %q breaks the response envelope: %v", line, err)
	}
	return line, resp
}

func (w *wire) call(line string) (string, aicontrol.Response) {
	w.t.Helper()
	w.send(line + "\n")
	return w.reply()
}

// idOf returns the raw id text of a response line.
func idOf(t testing.TB, line string) string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatal(err)
	}
	return string(m["id"])
}

func codeOf(r aicontrol.Response) int64 {
	if r.Error == nil {
		return 0
	}
	return r.Error.Code
}

func (w *wire) expectClosed() {
	w.t.Helper()
	_ = w.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if b, err := w.br.ReadByte(); err == nil {
		w.t.Fatalf("connection still open: read %q", b)
	} else if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "reset") {
		w.t.Fatalf("expected the server to close the connection, got %v", err)
	}
}

func auth(w *wire, token string) bool {
	w.t.Helper()
	_, r := w.call(`{"jsonrpc":"2.0","id":"auth","method":"auth","params":{"token":` + strconv.Quote(token) + `}}`)
	var res aicontrol.AuthResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		w.t.Fatalf("auth result %s: %v", r.Result, err)
	}
	return res.Authorized
}

// Every step of the error precedence, in order, on one connection that
// stays usable after each recoverable error.
//
//contract:proves ai-control-protocol.error.parse ai-control-protocol.error.invalid-request ai-control-protocol.error.method-not-found ai-control-protocol.error.invalid-params ai-control-protocol.error.unauthorized ai-control-protocol.wire.request-envelope ai-control-protocol.wire.response-envelope ai-control-protocol.wire.utf8
//contract:proves ai-control-protocol.wire.error-precedence ai-control-protocol.wire.request-id ai-control-protocol.wire.duplicate-members ai-control-protocol.wire.strict-json
func TestErrorPrecedence(t *testing.T) {
	s := start(t, Config{Token: testToken, MaxQueuedCommands: 1})
	w := dialRaw(t, s)
	steps := []struct {
		name, line string
		code       int64
		id         string
	}{
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}", aicontrol.CodeParseError, "null"},
		{"unpaired surrogate", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\ud800"}}`, aicontrol.CodeParseError, "null"},
		{"bad JSON", `{"jsonrpc":"2.0","id":1,`, aicontrol.CodeParseError, "null"},
		{"empty line", ``, aicontrol.CodeParseError, "null"},
		{"array", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, aicontrol.CodeInvalidRequest, "null"},
		{"string", `"ping"`, aicontrol.CodeInvalidRequest, "null"},
		{"duplicate member", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"act"}`, aicontrol.CodeInvalidRequest, "null"},
		{"duplicate member, escaped", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1,"\u0061":2}}`, aicontrol.CodeInvalidRequest, "null"},
		{"byte-order mark", "\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`, aicontrol.CodeParseError, "null"},
		{"trailing text", `{"jsonrpc":"2.0","id":1,"method":"ping"} x`, aicontrol.CodeParseError, "null"},
		{"escaped member names", `{"\u006asonrpc":"2.0","i\u0064":2,"method":"\u0070ing"}`, aicontrol.CodeUnauthorized, "2"},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":5,"method":"ping","params":{}}`, aicontrol.CodeInvalidRequest, "5"},
		{"missing jsonrpc", `{"id":"x","method":"ping"}`, aicontrol.CodeInvalidRequest, `"x"`},
		{"missing method", `{"jsonrpc":"2.0","id":6,"params":{}}`, aicontrol.CodeInvalidRequest, "6"},
		{"empty method", `{"jsonrpc":"2.0","id":7,"method":""}`, aicontrol.CodeInvalidRequest, "7"},
		{"non-string method", `{"jsonrpc":"2.0","id":8,"method":3}`, aicontrol.CodeInvalidRequest, "8"},
		{"array params", `{"jsonrpc":"2.0","id":9,"method":"ping","params":[1]}`, aicontrol.CodeInvalidRequest, "9"},
		{"null params", `{"jsonrpc":"2.0","id":10,"method":"ping","params":null}`, aicontrol.CodeInvalidRequest, "10"},
		{"missing id", `{"jsonrpc":"2.0","method":"ping"}`, aicontrol.CodeInvalidRequest, "null"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, aicontrol.CodeInvalidRequest, "null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, aicontrol.CodeInvalidRequest, "null"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, aicontrol.CodeInvalidRequest, "null"},
		{"unauthorized ping", `{"jsonrpc":"2.0","id":11,"method":"ping"}`, aicontrol.CodeUnauthorized, "11"},
		{"unauthorized unknown method", `{"jsonrpc":"2.0","id":12,"method":"teleport"}`, aicontrol.CodeUnauthorized, "12"},
		{"unauthorized act with bad params", `{"jsonrpc":"2.0","id":14,"method":"act","params":{"x":"y"}}`, aicontrol.CodeUnauthorized, "14"},
		{"auth with bad params", `{"jsonrpc":"2.0","id":13,"method":"auth","params":{"token":1}}`, aicontrol.CodeInvalidParams, "13"},
	}
	run := func() {
		for _, st := range steps {
			line, r := w.call(st.line)
			if codeOf(r) != st.code || idOf(t, line) != st.id {
				t.Errorf("%s: got code %d id %s (%s), want code %d id %s", st.name, codeOf(r), idOf(t, line), strings.TrimSpace(line), st.code, st.id)
			}
		}
	}
	run()
	if !auth(w, testToken) {
		t.Fatal("auth failed")
	}
	steps = []struct {
		name, line string
		code       int64
		id         string
	}{
		{"ping", `{"jsonrpc":"2.0","id":20,"method":"ping"}`, 0, "20"},
		{"ping with ignored params", `{"jsonrpc":"2.0","id":21,"method":"ping","params":{"x":1}}`, 0, "21"},
		{"string cursor", `{"jsonrpc":"2.0","id":22,"method":"events","params":{"afterSeq":"5"}}`, aicontrol.CodeInvalidParams, "22"},
		{"fractional limit", `{"jsonrpc":"2.0","id":23,"method":"events","params":{"limit":1.5}}`, aicontrol.CodeInvalidParams, "23"},
		{"clamped cursor and limit", `{"jsonrpc":"2.0","id":24,"method":"events","params":{"afterSeq":-5,"limit":100000}}`, 0, "24"},
		{"act without type", `{"jsonrpc":"2.0","id":25,"method":"act","params":{"x":1}}`, aicontrol.CodeInvalidParams, "25"},
		{"act with empty type", `{"jsonrpc":"2.0","id":26,"method":"act","params":{"type":""}}`, aicontrol.CodeInvalidParams, "26"},
		{"act accepted", `{"jsonrpc":"2.0","id":27,"method":"act","params":{"type":"move"}}`, 0, "27"},
		{"act on a full queue", `{"jsonrpc":"2.0","id":28,"method":"act","params":{"type":"move"}}`, aicontrol.CodeQueueFull, "28"},
		{"unknown method", `{"jsonrpc":"2.0","id":29,"method":"teleport","params":{}}`, aicontrol.CodeMethodNotFound, "29"},
		{"unknown method before its params", `{"jsonrpc":"2.0","id":35,"method":"teleport","params":{"type":1}}`, aicontrol.CodeMethodNotFound, "35"},
		// The request object and params take two levels of the depth limit.
		{"as deep as the limit (authorized: over the pre-auth line limit)", `{"jsonrpc":"2.0","id":37,"method":"ping","params":{"a":` + strings.Repeat("[", aicontrol.MaxNestingDepth-2) + strings.Repeat("]", aicontrol.MaxNestingDepth-2) + `}}`, 0, "37"},
		{"one level too deep", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", aicontrol.MaxNestingDepth-1) + strings.Repeat("]", aicontrol.MaxNestingDepth-1) + `}}`, aicontrol.CodeInvalidRequest, "null"},
		{"params before the queue", `{"jsonrpc":"2.0","id":36,"method":"act","params":{"type":""}}`, aicontrol.CodeInvalidParams, "36"},
		{"string id echoed", `{"jsonrpc":"2.0","id":"step-30","method":"ping"}`, 0, `"step-30"`},
		{"string id that looks like a number", `{"jsonrpc":"2.0","id":"31","method":"ping"}`, 0, `"31"`},
		{"integral id echoed as written", `{"jsonrpc":"2.0","id":32.0,"method":"ping"}`, 0, "32.0"},
		{"exponent id echoed as written", `{"jsonrpc":"2.0","id":3.3e1,"method":"ping"}`, 0, "3.3e1"},
		{"CR before LF", "{\"jsonrpc\":\"2.0\",\"id\":34,\"method\":\"ping\"}\r", 0, "34"},
	}
	run()
}

// A line of exactly MaxLineBytes is served; one byte more is refused with
// invalid request and the connection is closed.
//
//contract:proves ai-control-protocol.wire.line-limit
func TestLineLimit(t *testing.T) {
	s := start(t, Config{})
	pad := func(n int) string {
		head := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`
		tail := `"}}`
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	w := dialRaw(t, s)
	line := pad(aicontrol.MaxLineBytes)
	if len(line) != aicontrol.MaxLineBytes {
		t.Fatalf("test line has %d bytes", len(line))
	}
	if _, r := w.call(line); r.Error != nil {
		t.Fatalf("a line of exactly the limit was refused: %+v", r.Error)
	}
	if _, r := w.call(line + "\r"); r.Error != nil {
		t.Fatalf("a line of the limit plus CR was refused: %+v", r.Error)
	}
	raw, r := w.call(pad(aicontrol.MaxLineBytes + 1))
	if codeOf(r) != aicontrol.CodeInvalidRequest || !strings.Contains(r.Error.Message, "request too large") || idOf(t, raw) != "null" {
		t.Fatalf("one byte past the limit: %s", raw)
	}
	w.expectClosed()
	if !strings.Contains(s.Status().LastError, "request too large") {
		t.Errorf("lastError = %q", s.Status().LastError)
	}
	// A line far over the limit, never terminated, is cut off at the limit.
	w = dialRaw(t, s)
	w.send(strings.Repeat("y", 3*aicontrol.MaxLineBytes))
	if _, r := w.reply(); codeOf(r) != aicontrol.CodeInvalidRequest {
		t.Fatalf("oversize stream: %+v", r)
	}
	w.expectClosed()
}

// A stream that ends inside a line is answered and closed.
func TestUnterminatedLine(t *testing.T) {
	s := start(t, Config{})
	w := dialRaw(t, s)
	w.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	w.c.(*net.TCPConn).CloseWrite()
	raw, r := w.reply()
	if codeOf(r) != aicontrol.CodeInvalidRequest || idOf(t, raw) != "null" {
		t.Fatalf("unterminated: %s", raw)
	}
	w.expectClosed()
}

// Bytes arrive in any chunking; several requests in one write get their
// responses in order.
//
//contract:proves ai-control-protocol.wire.tcp-stream ai-control-protocol.wire.ndjson
func TestStreamChunking(t *testing.T) {
	s := start(t, Config{})
	w := dialRaw(t, s)
	req := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	for i := 0; i < len(req); i++ {
		w.send(req[i : i+1])
	}
	if raw, r := w.reply(); r.Error != nil || idOf(t, raw) != "1" {
		t.Fatalf("byte-by-byte request: %s", raw)
	}
	var batch strings.Builder
	for i := 2; i <= 40; i++ {
		fmt.Fprintf(&batch, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
	}
	w.send(batch.String())
	for i := 2; i <= 40; i++ {
		if raw, _ := w.reply(); idOf(t, raw) != strconv.Itoa(i) {
			t.Fatalf("response %d has id %s", i, idOf(t, raw))
		}
	}
}

// Authorization belongs to one connection; a wrong token answers false and
// also withdraws an earlier success on that connection.
//
//contract:proves ai-control-protocol.method.auth ai-control-protocol.validation.security
func TestPerConnectionAuth(t *testing.T) {
	s := start(t, Config{Token: testToken})
	a, b := dialRaw(t, s), dialRaw(t, s)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	if auth(a, "wrong") {
		t.Fatal("wrong token accepted")
	}
	if _, r := a.call(ping); codeOf(r) != aicontrol.CodeUnauthorized {
		t.Fatalf("ping after failed auth: %+v", r)
	}
	if !auth(a, testToken) {
		t.Fatal("retry with the right token refused")
	}
	if _, r := a.call(ping); r.Error != nil {
		t.Fatalf("ping after auth: %+v", r.Error)
	}
	if _, r := b.call(ping); codeOf(r) != aicontrol.CodeUnauthorized {
		t.Fatalf("second connection inherited authorization: %+v", r)
	}
	if auth(a, testToken+"x") {
		t.Fatal("token with a suffix accepted")
	}
	if _, r := a.call(ping); codeOf(r) != aicontrol.CodeUnauthorized {
		t.Fatalf("failed auth did not withdraw authorization: %+v", r)
	}
	// Without a token (loopback only) every connection is authorized.
	open := start(t, Config{})
	c := dialRaw(t, open)
	if _, r := c.call(ping); r.Error != nil {
		t.Fatalf("ping without token configured: %+v", r.Error)
	}
	if !auth(c, "anything") {
		t.Error("auth on a tokenless listener answered false")
	}
}

// A full queue refuses act with -32002; nothing queued is overwritten or
// dropped, and a refused act uses no sequence number.
//
//contract:proves ai-control-protocol.error.queue-full ai-control-protocol.method.act ai-control-protocol.integration.bounded-state
func TestQueueFullWithoutLoss(t *testing.T) {
	s := start(t, Config{MaxQueuedCommands: 3})
	w := dialRaw(t, s)
	act := func(id int, typ string) aicontrol.Response {
		_, r := w.call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"act","params":{"type":%q,"intArg":%d,"note":"n%d"}}`, id, typ, id, id))
		return r
	}
	for i := 1; i <= 3; i++ {
		r := act(i, "move")
		var res aicontrol.ActResult
		if err := json.Unmarshal(r.Result, &res); err != nil || res.CommandSeq != int64(i) || !res.Accepted {
			t.Fatalf("act %d: %s %v", i, r.Result, err)
		}
	}
	for i := 0; i < 3; i++ {
		if r := act(10+i, "move"); codeOf(r) != aicontrol.CodeQueueFull {
			t.Fatalf("act on a full queue: %+v", r)
		}
	}
	if st := s.Status(); st.QueuedCommands != 3 || st.MaxQueuedCommands != 3 {
		t.Errorf("status queue %d/%d", st.QueuedCommands, st.MaxQueuedCommands)
	}
	cmds := s.Drain(0)
	if len(cmds) != 3 {
		t.Fatalf("drained %d commands", len(cmds))
	}
	for i, c := range cmds {
		if c.Seq != int64(i+1) || *c.Params.IntArg != int64(i+1) || string(c.Params.Extra["note"]) != fmt.Sprintf(`"n%d"`, i+1) {
			t.Errorf("command %d: seq %d params %+v extra %s", i, c.Seq, c.Params, c.Params.Extra)
		}
	}
	r := act(20, "move")
	var res aicontrol.ActResult
	if err := json.Unmarshal(r.Result, &res); err != nil || res.CommandSeq != 4 {
		t.Fatalf("first act after the refusals got %s, want commandSeq 4", r.Result)
	}
}

// The history keeps the newest events; latestSeq keeps counting after old
// ones roll out; the cursor is exclusive.
//
//contract:proves ai-control-protocol.method.events ai-control-protocol.integration.mcp-boundary
func TestEventRollover(t *testing.T) {
	s := start(t, Config{MaxEvents: 4})
	for i := 1; i <= 10; i++ {
		seq, err := s.AppendEvent(map[string]any{"type": "tick", "n": i})
		if err != nil || seq != int64(i) {
			t.Fatalf("append %d: seq %d %v", i, seq, err)
		}
	}
	c := client(t, s, "")
	ctx := context.Background()
	check := func(after, limit int64, want ...int64) {
		t.Helper()
		res, err := c.Events(ctx, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, r := range res.Events {
			got = append(got, r.Seq)
		}
		if res.LatestSeq != 10 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("events after %d limit %d: latest %d seqs %v, want 10 %v", after, limit, res.LatestSeq, got, want)
		}
	}
	check(0, 100, 7, 8, 9, 10)
	check(8, 100, 9, 10)
	check(10, 100)
	check(100, 100)
	check(0, 2, 7, 8)
	cur := &Cursor{AfterSeq: 2}
	recs, missed, err := c.Next(ctx, cur, 100)
	if err != nil || len(recs) != 4 || missed != 4 || cur.AfterSeq != 10 {
		t.Errorf("cursor from 2: %d records, %d missed, now at %d, %v", len(recs), missed, cur.AfterSeq, err)
	}
	if st := s.Status(); st.Events != 4 || st.MaxEvents != 4 {
		t.Errorf("status events %d/%d", st.Events, st.MaxEvents)
	}
}

// Observations and events are refused when they could not fit in one
// response line: at the bound accepted, one byte past refused. An events
// page stops before the line limit.
//
//contract:proves ai-control-protocol.integration.bounded-state
func TestValueSizeLimits(t *testing.T) {
	s := start(t, Config{MaxEvents: 64})
	bound := aicontrol.MaxLineBytes - envelopeReserve
	obsOf := func(n int) json.RawMessage { // a compact object of exactly n bytes
		return json.RawMessage(`{"a":"` + strings.Repeat("o", n-8) + `"}`)
	}
	if seq, err := s.PublishObservation(obsOf(bound)); err != nil || seq != 1 {
		t.Fatalf("observation at the bound: %d %v", seq, err)
	}
	if _, err := s.PublishObservation(obsOf(bound + 1)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("observation one byte past the bound: %v", err)
	}
	c := client(t, s, "")
	if o, err := c.Observe(context.Background()); err != nil || len(o.Observation) != bound {
		t.Fatalf("observe at the bound: %d bytes, %v", len(o.Observation), err)
	}
	recOverhead := len(`{"seq":1,"event":{"type":"t","p":""}}`)
	evOf := func(n int) json.RawMessage {
		return json.RawMessage(`{"type":"t","p":"` + strings.Repeat("e", n-recOverhead) + `"}`)
	}
	if _, err := s.AppendEvent(evOf(bound)); err != nil {
		t.Fatalf("event at the bound: %v", err)
	}
	if _, err := s.AppendEvent(evOf(bound + 1)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("event one byte past the bound: %v", err)
	}
	for i := 0; i < 20; i++ {
		if _, err := s.AppendEvent(evOf(200 << 10)); err != nil {
			t.Fatal(err)
		}
	}
	cur := &Cursor{}
	pages, total := 0, 0
	for cur.AfterSeq < 21 {
		recs, _, err := c.Next(context.Background(), cur, aicontrol.MaxEventsPerRequest)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) == 0 {
			t.Fatal("empty page before the end")
		}
		pages++
		total += len(recs)
	}
	if total != 21 || pages < 5 {
		t.Errorf("%d events in %d pages; pages must stay under the line limit", total, pages)
	}
	if _, err := s.AppendEvent(map[string]any{"type": ""}); err == nil {
		t.Error("event with an empty type accepted")
	}
	if _, err := s.AppendEvent([]int{1}); err == nil {
		t.Error("non-object event accepted")
	}
	if _, err := s.AppendEvent(map[string]any{"type": aicontrol.EventCommandCompleted}); !errors.Is(err, ErrReservedEvent) {
		t.Errorf("project command_completed: %v", err)
	}
	if _, err := s.PublishObservation([]int{1}); !errors.Is(err, ErrNotObject) {
		t.Errorf("non-object observation: %v", err)
	}
}

// observe returns whole snapshots: a published value is copied, and a
// reader never sees a mix of two snapshots.
//
//contract:proves ai-control-protocol.method.observe ai-control-protocol.integration.loop-ownership
func TestObservationSnapshots(t *testing.T) {
	s := start(t, Config{})
	c := client(t, s, "")
	ctx := context.Background()
	if o, err := c.Observe(ctx); err != nil || o.ObservationSeq != 0 || string(o.Observation) != "{}" {
		t.Fatalf("before publication: %+v %v", o, err)
	}
	obs := map[string]any{"schemaVersion": 1, "hp": 10}
	if _, err := s.PublishObservation(obs); err != nil {
		t.Fatal(err)
	}
	obs["hp"] = 0 // the caller's later changes are not published
	o, err := c.Observe(ctx)
	if err != nil || o.ObservationSeq != 1 || string(o.Observation) != `{"hp":10,"schemaVersion":1}` {
		t.Fatalf("after publication: %s %d %v", o.Observation, o.ObservationSeq, err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := s.PublishObservation(map[string]int{"a": i, "b": i}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	last := int64(0)
	for i := 0; i < 500; i++ {
		o, err := c.Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ab struct{ A, B int }
		if err := json.Unmarshal(o.Observation, &ab); err != nil || ab.A != ab.B {
			t.Fatalf("torn snapshot %s", o.Observation)
		}
		if o.ObservationSeq < last {
			t.Fatalf("observationSeq went back from %d to %d", last, o.ObservationSeq)
		}
		last = o.ObservationSeq
	}
	close(stop)
	wg.Wait()
}

// Complete appends exactly one command_completed per accepted command;
// Close completes whatever is still unfinished.
//
//contract:proves ai-control-protocol.event.command-completed ai-control-protocol.integration.command-completion
func TestCompletionAndClose(t *testing.T) {
	// The client below follows events and then stops reading: Close serves
	// it for the grace period before closing it.
	s := start(t, Config{ShutdownGrace: 50 * time.Millisecond})
	c := client(t, s, "")
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if _, err := c.Act(ctx, aicontrol.ActParams{Type: "move"}); err != nil {
			t.Fatal(err)
		}
	}
	cmds := s.Drain(1)
	if len(cmds) != 1 || cmds[0].Seq != 1 {
		t.Fatalf("drained %+v", cmds)
	}
	evSeq, err := s.Complete(1, true, "moved", map[string]any{"reason": "ok", "type": "forged", "commandSeq": 99})
	if err != nil || evSeq != 1 {
		t.Fatalf("complete: %d %v", evSeq, err)
	}
	if _, err := s.Complete(1, true, "again", nil); !errors.Is(err, ErrUnknownCommand) {
		t.Errorf("second completion: %v", err)
	}
	if _, err := s.Complete(42, true, "never accepted", nil); !errors.Is(err, ErrUnknownCommand) {
		t.Errorf("completion of an unknown command: %v", err)
	}
	cc, rec, err := c.WaitCompleted(ctx, &Cursor{}, 1, 0)
	if err != nil || !cc.Success || cc.Message != "moved" || cc.CommandSeq != 1 || rec.Seq != 1 || string(cc.Extra["reason"]) != `"ok"` {
		t.Fatalf("completion: %+v %+v %v", cc, rec, err)
	}
	failed, err := s.Close()
	if err != nil || fmt.Sprint(failed) != "[2 3]" {
		t.Fatalf("Close completed %v, %v; want [2 3]", failed, err)
	}
	res := s.state.eventsAfter(0, 100)
	seen := map[int64]int{}
	for _, r := range res.Events {
		cc, ok := CompletionOf(r.Event)
		if !ok {
			t.Fatalf("unexpected event %+v", r)
		}
		seen[cc.CommandSeq]++
		if cc.CommandSeq > 1 && (cc.Success || cc.Message != ShutdownMessage) {
			t.Errorf("shutdown completion %+v", cc)
		}
	}
	if fmt.Sprint(seen) != "map[1:1 2:1 3:1]" {
		t.Errorf("completions per command: %v", seen)
	}
	if st := s.Status(); st.Running {
		t.Error("status running after Close")
	}
	if again, _ := s.Close(); again != nil {
		t.Errorf("second Close completed %v", again)
	}
}

// status reports the listener's state; lastError never carries a token or
// a payload the client sent.
//
//contract:proves ai-control-protocol.method.status
func TestStatusAndLastError(t *testing.T) {
	s := start(t, Config{Token: testToken, MaxQueuedCommands: 5, MaxEvents: 7})
	w := dialRaw(t, s)
	auth(w, "secret-guess-1234")
	if got := s.Status().LastError; got != "" {
		t.Errorf("lastError after a stranger's failed auth = %q, want it untouched", got)
	}
	auth(w, testToken)
	auth(w, "secret-guess-5678") // an authorized connection fails: that is the client's news
	if got := s.Status().LastError; got != "authorization failed" {
		t.Errorf("lastError after an authorized connection's failed auth = %q", got)
	}
	auth(w, testToken)
	w.call(`{"jsonrpc":"2.0","id":1,"method":"PAYLOAD-METHOD-7","params":{}}`)
	w.call(`{"jsonrpc":"2.0","id":2,"method":"act","params":{"type":"","x":"PAYLOAD-VALUE-8"}}`)
	w.call(`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"PAYLOAD-` + "\xff" + `"}}`)
	_, r := w.call(`{"jsonrpc":"2.0","id":4,"method":"status"}`)
	st, err := aicontrol.DecodeStatusResult(r.Result)
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(s.Addr().String())
	if !st.Running || st.Host != host || strconv.Itoa(int(st.Port)) != port || st.MaxQueuedCommands != 5 || st.MaxEvents != 7 || st.ObservationSeq != 0 {
		t.Errorf("status %+v", st)
	}
	if st.LastError != "Parse error" {
		t.Errorf("lastError = %q, want the last error's name", st.LastError)
	}
	for _, leak := range []string{"PAYLOAD", "secret", testToken} {
		if strings.Contains(st.LastError, leak) {
			t.Errorf("lastError %q leaks %q", st.LastError, leak)
		}
	}
}

// An authorized connection idle past the timeout is closed.
func TestIdleTimeout(t *testing.T) {
	s := start(t, Config{IdleTimeout: 200 * time.Millisecond})
	a := dialRaw(t, s)
	a.call(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	a.expectClosed()
}

// Unsafe or unusable settings are refused before anything is bound.
//
//contract:proves ai-control-protocol.security.disabled-default ai-control-protocol.security.loopback-default ai-control-protocol.security.remote-token ai-control-protocol.integration.native-extension
func TestConfigRefusals(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "not enabled"},
		{Config{Enabled: true, Addr: "0.0.0.0:0"}, "needs AllowRemote"},
		{Config{Enabled: true, Addr: ":0"}, "needs AllowRemote"},
		{Config{Enabled: true, Addr: "192.0.2.1:43011", AllowRemote: true}, "needs a non-empty token"},
		{Config{Enabled: true, Addr: "localhost.example:43011", AllowRemote: false}, "needs AllowRemote"},
		{Config{Enabled: true, Addr: "127.0.0.1:65536"}, "not a number from 0 to 65535"},
		{Config{Enabled: true, Addr: "127.0.0.1:-1"}, "not a number from 0 to 65535"},
		{Config{Enabled: true, Addr: "127.0.0.1:http"}, "not a number from 0 to 65535"},
		{Config{Enabled: true, Addr: "127.0.0.1"}, "missing port"},
		{Config{Enabled: true, MaxQueuedCommands: -1}, "MaxQueuedCommands must be positive"},
		{Config{Enabled: true, MaxEvents: -5}, "MaxEvents must be positive"},
		{Config{Enabled: true, MaxConnections: -1}, "MaxConnections must be positive"},
		{Config{Enabled: true, IdleTimeout: -time.Second}, "timeouts and delays must be positive"},
		{Config{Enabled: true, AuthDeadline: -time.Second}, "timeouts and delays must be positive"},
	} {
		_, err := Listen(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	for _, ok := range []Config{
		{Enabled: true, Addr: "192.0.2.1:43011", AllowRemote: true, Token: strings.Repeat("t", aicontrol.MinTokenBytes)},
		{Enabled: true, Addr: "[::1]:0"},
		{Enabled: true, Addr: "localhost:0"},
		{Enabled: true, Addr: "127.8.9.10:0"},
		{Enabled: true},
	} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%+v refused: %v", ok, err)
		}
	}
	for host, want := range map[string]bool{"localhost": true, "LOCALHOST": true, "127.0.0.1": true, "127.255.0.9": true, "::1": true, "[::1]": true,
		"::ffff:127.0.0.1": true, "0.0.0.0": false, "::": false, "10.0.0.1": false, "127.0.0.1.nip.io": false, "": false} {
		if IsLoopback(host) != want {
			t.Errorf("IsLoopback(%q) = %v", host, !want)
		}
	}
	// A refused configuration leaves its port unbound.
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := probe.Addr().(*net.TCPAddr).Port
	probe.Close()
	if _, err := Listen(Config{Enabled: true, Addr: "127.0.0.1:" + strconv.Itoa(port), MaxEvents: -1}); err == nil {
		t.Fatal("refused config bound a port")
	}
	again, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatalf("port held after a refused Listen: %v", err)
	}
	again.Close()
}

func client(t testing.TB, s *Server, token string) *Client {
	t.Helper()
	_, port, _ := net.SplitHostPort(s.Addr().String())
	p, _ := strconv.Atoi(port)
	c, err := Dial(context.Background(), ClientConfig{Host: "127.0.0.1", Port: p, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if token != "" {
		if ok, err := c.Auth(context.Background()); err != nil || !ok {
			t.Fatalf("auth: %v %v", ok, err)
		}
	}
	return c
}
