package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractkit/contractkit/internal/syncbuf"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// The tests run the transport with a protocol of their own: small limits,
// and codes and messages that only these tests use.
var testLimits = Limits{
	MaxHeaderBytes: 256, MaxRequestBytes: 4096, MaxResponseBytes: 2048, MaxDepth: 8, MaxBatchItems: 4,
	MaxPendingRequests: 3, MaxQueuedBytes: 1024, MaxWriterQueueBytes: 1 << 20, BatchReserveBytes: 256,
	MaxIDLength: 8, MaxStderrDiagnostics: 3,
}

var testMessages = map[int64]string{-32700: "Parse error", -32600: "Invalid Request", -32601: "Method not found", -32602: "Invalid params", -32603: "Internal error", -32000: "Request failed"}

func domainErr(kind string, details any) *Error {
	d, _ := json.Marshal(map[string]any{"kind": kind, "details": details})
	return &Error{Code: -32000, Message: "Request failed", Data: d}
}

func testConfig(h Handler, stderr io.Writer) Config {
	return Config{
		Limits: testLimits,
		Codes: Codes{ParseError: -32700, InvalidRequest: -32600, MethodNotFound: -32601, InvalidParams: -32602, InternalError: -32603,
			Message: func(c int64) string { return testMessages[c] }},
		Errors: DomainErrors{
			ResourceLimit: func(r string, l int) *Error {
				return domainErr("resource_limit", map[string]any{"resource": r, "limit": l})
			},
			Cancelled:        func() *Error { return domainErr("cancelled", map[string]any{}) },
			ResponseTooLarge: func(l int) *Error { return domainErr("response_too_large", map[string]any{"limitBytes": l}) },
			InvalidState:     func(st string) *Error { return domainErr("invalid_state", map[string]any{"state": st}) },
		},
		Lifecycle:      Lifecycle{Initialize: "initialize", Shutdown: "shutdown", Exit: "exit", CancelRequest: "$/cancelRequest"},
		JSONRPCVersion: "2.0",
		Handler:        h,
		Stderr:         stderr,
	}
}

// fakeHandler serves: initialize, shutdown, echo (returns params), big
// (returns a result of params.n bytes), block (waits until released,
// read-only), commit (waits until released, committing), note (a
// notification), panic.
type fakeHandler struct {
	mu       sync.Mutex
	calls    []string
	notes    int
	release  chan struct{}
	started  chan string
	bgSteps  int
	bgBudget int
	bgDone   chan struct{} // closed by the step that uses up bgBudget
	closed   bool
}

func newFake() *fakeHandler {
	return &fakeHandler{release: make(chan struct{}), started: make(chan string, 16), bgDone: make(chan struct{})}
}

func (h *fakeHandler) Kind(m string) Kind {
	switch m {
	case "initialize", "shutdown", "echo", "big", "block", "commit", "panic", "wait":
		return Request
	case "note", "exit", "$/cancelRequest":
		return Notification
	}
	return Unknown
}

func (h *fakeHandler) Class(m string) CancelClass {
	if m == "commit" || m == "initialize" || m == "shutdown" {
		return Committing
	}
	return ReadOnly
}

func (h *fakeHandler) Call(ctx context.Context, m string, params *strictjson.Value) (json.RawMessage, *Error) {
	h.mu.Lock()
	h.calls = append(h.calls, m)
	h.mu.Unlock()
	switch m {
	case "initialize":
		return json.RawMessage(`{"ok":true}`), nil
	case "shutdown":
		return nil, nil
	case "echo":
		if params == nil {
			return json.RawMessage(`{}`), nil
		}
		return params.AppendCompact(nil), nil
	case "big":
		var n int64
		if params != nil {
			for _, m := range params.Members {
				if strings.EqualFold(m.Key, "n") {
					n, _ = m.Value.Int64()
				}
			}
		}
		return json.RawMessage(`"` + strings.Repeat("b", int(n)) + `"`), nil
	case "block", "commit":
		h.started <- m
		<-h.release
		return json.RawMessage(`"done"`), nil
	case "panic":
		panic("handler bug")
	case "wait":
		// Runs until its context says the request was cancelled: only a
		// reader that keeps reading while it runs can tell it so.
		h.started <- m
		select {
		case <-ctx.Done():
			return json.RawMessage(`"saw the cancel"`), nil
		case <-time.After(10 * time.Second):
			return json.RawMessage(`"no cancel arrived"`), nil
		}
	}
	return nil, &Error{Code: -32601, Message: "Method not found"}
}

func (h *fakeHandler) Notify(ctx context.Context, m string, params *strictjson.Value) error {
	h.mu.Lock()
	h.notes++
	h.mu.Unlock()
	return nil
}

func (h *fakeHandler) Background(ctx context.Context) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.bgSteps < h.bgBudget {
		if h.bgSteps++; h.bgSteps == h.bgBudget {
			close(h.bgDone)
		}
		return true
	}
	return false
}

func (h *fakeHandler) Close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
}

// conv is a conversation with a running transport over pipes.
type conv struct {
	t      *testing.T
	srv    *Server
	in     *io.PipeWriter
	frames chan string
	code   chan int
	stderr *stderrLines
}

// stderrLines is the transport's stderr in a test: kept whole, and each
// diagnostic passed on as it is written (one Write per line), so that a
// test can wait for one. The test limits allow three per conversation,
// which the channel's buffer holds.
type stderrLines struct {
	syncbuf.Buffer
	lines chan string
}

func (w *stderrLines) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	w.lines <- string(p)
	return n, err
}

func start(t *testing.T, h Handler) *conv {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &conv{t: t, in: inW, frames: make(chan string, 64), code: make(chan int, 1),
		stderr: &stderrLines{lines: make(chan string, 2*testLimits.MaxStderrDiagnostics)}}
	srv := NewServer(testConfig(h, c.stderr))
	c.srv = srv
	go func() {
		c.code <- srv.Run(inR, outW)
		outW.Close()
	}()
	go func() {
		fr := NewFrameReader(outR, 1<<10, 1<<20)
		for {
			b, err := fr.ReadFrame()
			if err != nil {
				close(c.frames)
				return
			}
			c.frames <- string(b)
		}
	}()
	t.Cleanup(func() { inW.Close(); inR.Close(); outR.Close() })
	return c
}

func (c *conv) write(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, s); err != nil {
		c.t.Fatal(err)
	}
}

func (c *conv) send(body string) { c.write(frame(body)) }

func (c *conv) next() string {
	c.t.Helper()
	select {
	case f, ok := <-c.frames:
		if !ok {
			c.t.Fatal("output closed; expected a frame")
		}
		return f
	case <-time.After(5 * time.Second):
		c.t.Fatal("no frame")
	}
	return ""
}

// readerCaughtUp waits until the reader has handled every frame sent so
// far: it sends a $/cancelRequest without params, which the reader
// diagnoses on stderr as it reads it, after the frames before it, and
// waits for that line. It uses one of the conversation's diagnostics.
func (c *conv) readerCaughtUp() {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest"}`)
	select {
	case line := <-c.stderr.lines:
		if !strings.Contains(line, "cancel-bad-params") {
			c.t.Fatalf("stderr %q, want the marker's cancel-bad-params", line)
		}
	case <-time.After(5 * time.Second):
		c.t.Fatal("the reader did not reach the marker")
	}
}

// workerLetGo waits until no goroutine holds the worker role, as between
// requests of an idle conversation: the goroutine that reads the next
// frame then takes the role itself and runs the request at once.
func (c *conv) workerLetGo() {
	c.t.Helper()
	idle := make(chan struct{})
	go func() {
		s := c.srv
		s.mu.Lock()
		for s.working {
			s.workerIdle.Wait()
		}
		s.mu.Unlock()
		close(idle)
	}()
	select {
	case <-idle:
	case <-time.After(5 * time.Second):
		c.t.Fatal("the worker role was never let go")
	}
}

// ended waits for the output to end (the transport has returned) and
// fails on any frame before that end.
func (c *conv) ended() {
	c.t.Helper()
	for {
		select {
		case f, ok := <-c.frames:
			if !ok {
				return
			}
			c.t.Fatalf("unexpected frame %s", f)
		case <-time.After(5 * time.Second):
			c.t.Fatal("the output did not end")
		}
	}
}

func (c *conv) exit() int {
	c.t.Helper()
	select {
	case code := <-c.code:
		return code
	case <-time.After(5 * time.Second):
		c.t.Fatal("transport did not end")
	}
	return -1
}

func (c *conv) init() {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	if got := c.next(); got != `{"jsonrpc":"2.0","id":0,"result":{"ok":true}}` {
		c.t.Fatalf("initialize: %s", got)
	}
}

func errResp(id, code string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":` + code + `,"message":"` + testMessages[mustInt(code)] + `"}}`
}

func mustInt(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }

func domainResp(id, kind, details string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32000,"message":"Request failed","data":{"details":` + details + `,"kind":"` + kind + `"}}}`
}

//contract:proves eska-ide-api.envelope.request eska-ide-api.envelope.parse-error eska-ide-api.envelope.depth eska-ide-api.envelope.duplicate-keys eska-ide-api.id.shape eska-ide-api.notification-handling.kind-mismatch
//contract:proves eska-ide-api.error.invalid-request eska-ide-api.error.method-not-found eska-ide-api.error.parse-error
func TestEnvelopeErrors(t *testing.T) {
	c := start(t, newFake())
	c.init()
	for _, tc := range []struct{ body, want string }{
		{`{`, errResp("null", "-32700")},
		{"\xef\xbb\xbf{}", errResp("null", "-32700")},
		{`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":"\xff"}}`, errResp("null", "-32700")},
		{`[[[[[[[[[1]]]]]]]]]`, errResp("null", "-32600")},
		{`{"jsonrpc":"2.0","id":1,"method":"echo","method":"big"}`, errResp("null", "-32600")},
		{`42`, errResp("null", "-32600")},
		{`[]`, errResp("null", "-32600")},
		{`{"jsonrpc":"1.0","id":1,"method":"echo"}`, errResp("1", "-32600")},
		{`{"jsonrpc":"2.0","id":"x","method":""}`, errResp(`"x"`, "-32600")},
		{`{"jsonrpc":"2.0","id":2,"method":"echo","params":[1]}`, errResp("2", "-32602")},
		{`{"jsonrpc":"2.0","id":3,"method":"echo","params":"a"}`, errResp("3", "-32600")},
		{`{"jsonrpc":"2.0","id":null,"method":"echo"}`, errResp("null", "-32600")},
		{`{"jsonrpc":"2.0","id":1.5,"method":"echo"}`, errResp("null", "-32600")},
		{`{"jsonrpc":"2.0","id":1.0,"method":"echo"}`, errResp("null", "-32600")},
		{`{"jsonrpc":"2.0","id":-1,"method":"echo"}`, errResp("null", "-32600")},
		{`{"jsonrpc":"2.0","id":9007199254740992,"method":"echo"}`, errResp("null", "-32600")},
		{`{"jsonrpc":"2.0","id":"","method":"echo"}`, errResp("null", "-32600")},
		{`{"jsonrpc":"2.0","id":"123456789","method":"echo"}`, errResp("null", "-32600")},
		{`{"jsonrpc":"2.0","id":"é","method":"echo"}`, errResp("null", "-32600")},
		{`{"jsonrpc":"2.0","id":7,"method":"nope"}`, errResp("7", "-32601")},
		{`{"jsonrpc":"2.0","id":8,"method":"note"}`, errResp("8", "-32601")},
	} {
		c.send(tc.body)
		if got := c.next(); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.body, got, tc.want)
		}
	}
	// Ids at their limits are accepted, and 1 and "1" are different ids.
	for _, id := range []string{`9007199254740991`, `0`, `"12345678"`, `"1"`, `1`} {
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"echo","params":{"id":` + id + `}}`)
		if got, want := c.next(), `{"jsonrpc":"2.0","id":`+id+`,"result":{"id":`+id+`}}`; got != want {
			t.Errorf("id %s: %s", id, got)
		}
	}
}

//contract:proves eska-ide-api.lifecycle.initialize-first eska-ide-api.lifecycle.shutdown eska-ide-api.notification-handling.no-response
//contract:proves eska-ide-api.error-kind.invalid-state eska-ide-api.method.initialize eska-ide-api.method.shutdown
func TestLifecycle(t *testing.T) {
	h := newFake()
	c := start(t, h)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"echo"}`)
	if got := c.next(); got != domainResp("1", "invalid_state", `{"state":"uninitialized"}`) {
		t.Errorf("request before initialize: %s", got)
	}
	c.send(`{"jsonrpc":"2.0","method":"note"}`) // ignored before initialize
	c.init()
	c.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}`)
	if got := c.next(); got != domainResp("2", "invalid_state", `{"state":"initialized"}`) {
		t.Errorf("second initialize: %s", got)
	}
	c.send(`{"jsonrpc":"2.0","method":"note"}`)
	c.send(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`)
	if got := c.next(); got != `{"jsonrpc":"2.0","id":3,"result":null}` {
		t.Errorf("shutdown: %s", got)
	}
	c.send(`{"jsonrpc":"2.0","id":4,"method":"echo"}`)
	if got := c.next(); got != domainResp("4", "invalid_state", `{"state":"closing"}`) {
		t.Errorf("request while closing: %s", got)
	}
	c.send(`{"jsonrpc":"2.0","method":"exit"}`)
	if code := c.exit(); code != ExitClean {
		t.Errorf("exit after shutdown: %d", code)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.notes != 1 || !h.closed {
		t.Errorf("notifications run %d (want the one after initialize), closed %v", h.notes, h.closed)
	}
}

//contract:proves eska-ide-api.notification.exit
func TestExitCodes(t *testing.T) {
	c := start(t, newFake())
	c.send(`{"jsonrpc":"2.0","method":"exit"}`)
	if code := c.exit(); code != ExitNoShutdown {
		t.Errorf("exit before initialize: %d", code)
	}
	c = start(t, newFake())
	c.init()
	c.send(`{"jsonrpc":"2.0","method":"exit"}`)
	if code := c.exit(); code != ExitNoShutdown {
		t.Errorf("exit without shutdown: %d", code)
	}
	c = start(t, newFake())
	c.init()
	c.in.Close() // EOF between frames
	if code := c.exit(); code != ExitClean {
		t.Errorf("EOF between frames: %d", code)
	}
	c = start(t, newFake())
	c.init()
	c.write("Content-Length: 50\r\n\r\n{\"jsonrpc\"")
	c.in.Close()
	if code := c.exit(); code != ExitFraming {
		t.Errorf("EOF inside a frame: %d", code)
	}
	c.ended()
	c = start(t, newFake())
	c.init()
	c.write("Content-Length: 1\r\nContent-Length: 1\r\n\r\n{")
	if code := c.exit(); code != ExitFraming {
		t.Errorf("repeated Content-Length: %d", code)
	}
	c.ended()
}

// A pending id used again is fatal; nothing more is written.
//
//contract:proves eska-ide-api.id.pending eska-ide-api.id.duplicate-pending
func TestDuplicatePendingID(t *testing.T) {
	h := newFake()
	c := start(t, h)
	c.init()
	c.send(`{"jsonrpc":"2.0","id":"a","method":"block"}`)
	<-h.started
	c.send(`{"jsonrpc":"2.0","id":"a","method":"echo"}`)
	if code := c.exit(); code != ExitFraming {
		t.Errorf("duplicate pending id: %d", code)
	}
	close(h.release)
	c.ended()
	// A finished id may be used again.
	h = newFake()
	c = start(t, h)
	c.init()
	for i := 0; i < 2; i++ {
		c.send(`{"jsonrpc":"2.0","id":"same","method":"echo"}`)
		if got := c.next(); !strings.Contains(got, `"id":"same","result"`) {
			t.Fatalf("reuse of a finished id: %s", got)
		}
	}
}

//contract:proves eska-ide-api.batch.order eska-ide-api.batch.invalid eska-ide-api.batch.item-limit eska-ide-api.batch.response-budget eska-ide-api.limits.response-size
//contract:proves eska-ide-api.error-kind.resource-limit eska-ide-api.error-kind.response-too-large eska-ide-api.error.invalid-request
func TestBatches(t *testing.T) {
	h := newFake()
	c := start(t, h)
	c.init()
	c.send(`[{"jsonrpc":"2.0","id":"b1","method":"echo","params":{"n":1}},{"jsonrpc":"2.0","method":"unknown/event"},42,{"jsonrpc":"2.0","id":"b2","method":"note"},{"jsonrpc":"2.0","id":"b3","method":"echo"}]`)
	// 5 items is over the test limit of 4: requests refused, invalid items answered, nothing run.
	want := `[` + domainResp(`"b1"`, "resource_limit", `{"limit":4,"resource":"batch"}`) + `,` + errResp("null", "-32600") + `,` +
		domainResp(`"b2"`, "resource_limit", `{"limit":4,"resource":"batch"}`) + `,` + domainResp(`"b3"`, "resource_limit", `{"limit":4,"resource":"batch"}`) + `]`
	if got := c.next(); got != want {
		t.Errorf("oversize batch:\n got %s\nwant %s", got, want)
	}
	// At the limit: in order, notifications not answered, malformed items answered in place.
	c.send(`[{"jsonrpc":"2.0","id":"b1","method":"echo","params":{"n":1}},{"jsonrpc":"2.0","method":"unknown/event"},42,{"jsonrpc":"2.0","id":"b2","method":"note"}]`)
	want = `[{"jsonrpc":"2.0","id":"b1","result":{"n":1}},` + errResp("null", "-32600") + `,` + errResp(`"b2"`, "-32601") + `]`
	if got := c.next(); got != want {
		t.Errorf("batch:\n got %s\nwant %s", got, want)
	}
	// Notifications only: no reply at all. Responses keep the order of
	// the requests, so the next frame is the answer to the echo after it.
	c.send(`[{"jsonrpc":"2.0","method":"note"},{"jsonrpc":"2.0","method":"note"}]`)
	c.send(`{"jsonrpc":"2.0","id":"after","method":"echo"}`)
	if got := c.next(); got != `{"jsonrpc":"2.0","id":"after","result":{}}` {
		t.Errorf("after a batch of notifications: %s", got)
	}
	// A response that would not fit within the batch reserve is replaced.
	c.send(`[{"jsonrpc":"2.0","id":1,"method":"big","params":{"N":1000}},{"jsonrpc":"2.0","id":2,"method":"big","params":{"N":1000}}]`)
	got := c.next()
	if !strings.HasPrefix(got, `[{"jsonrpc":"2.0","id":1,"result":"bbb`) || !strings.HasSuffix(got, domainResp("2", "response_too_large", `{"limitBytes":2048}`)+`]`) || len(got) > testLimits.MaxResponseBytes {
		t.Errorf("batch over the response budget: %d bytes %s…", len(got), got[:80])
	}
	// A single response over the limit is replaced too; at the limit it passes.
	overhead := len(`{"jsonrpc":"2.0","id":1,"result":""}`)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"big","params":{"N":` + strconv.Itoa(testLimits.MaxResponseBytes-overhead) + `}}`)
	if got := c.next(); len(got) != testLimits.MaxResponseBytes {
		t.Errorf("response at the limit: %d bytes", len(got))
	}
	c.send(`{"jsonrpc":"2.0","id":1,"method":"big","params":{"N":` + strconv.Itoa(testLimits.MaxResponseBytes-overhead+1) + `}}`)
	if got := c.next(); got != domainResp("1", "response_too_large", `{"limitBytes":2048}`) {
		t.Errorf("response one past the limit: %s", got)
	}
}

//contract:proves eska-ide-api.cancellation.queued eska-ide-api.cancellation.active-read eska-ide-api.cancellation.commit-point eska-ide-api.cancellation.one-response
//contract:proves eska-ide-api.error-kind.cancelled eska-ide-api.notification.cancel-request
func TestCancellation(t *testing.T) {
	h := newFake()
	c := start(t, h)
	c.init()
	c.send(`{"jsonrpc":"2.0","id":"active","method":"block"}`)
	<-h.started
	c.send(`{"jsonrpc":"2.0","id":"queued","method":"echo"}`)
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"queued"}}`)
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"active"}}`)
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"never-sent"}}`)
	c.readerCaughtUp() // every cancel is marked before the active request ends
	h.release <- struct{}{}
	if got := c.next(); got != domainResp(`"active"`, "cancelled", `{}`) {
		t.Errorf("active read-only request: %s", got)
	}
	if got := c.next(); got != domainResp(`"queued"`, "cancelled", `{}`) {
		t.Errorf("queued request: %s", got)
	}
	// A committing request keeps its real result once started.
	c.send(`{"jsonrpc":"2.0","id":"c","method":"commit"}`)
	<-h.started
	c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"c"}}`)
	c.readerCaughtUp() // the cancel is marked while the request runs
	h.release <- struct{}{}
	if got := c.next(); got != `{"jsonrpc":"2.0","id":"c","result":"done"}` {
		t.Errorf("committing request: %s", got)
	}
	h.mu.Lock()
	calls := strings.Join(h.calls, ",")
	h.mu.Unlock()
	if strings.Contains(calls, "echo") {
		t.Errorf("a cancelled queued request ran: %s", calls)
	}
}

// Pending requests and queued bytes are bounded: at the limit accepted,
// one more refused with resource_limit without running.
//
//contract:proves eska-ide-api.limits.queue
//contract:proves eska-ide-api.error-kind.resource-limit
func TestQueueLimits(t *testing.T) {
	h := newFake()
	c := start(t, h)
	c.init()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	<-h.started
	c.send(`{"jsonrpc":"2.0","id":2,"method":"echo"}`)
	c.send(`{"jsonrpc":"2.0","id":3,"method":"echo"}`)
	c.send(`{"jsonrpc":"2.0","id":4,"method":"echo"}`) // the 4th pending request: over the limit of 3
	if got := c.next(); got != domainResp("4", "resource_limit", `{"limit":3,"resource":"queue"}`) {
		t.Errorf("over the pending limit: %s", got)
	}
	h.release <- struct{}{}
	for i := 1; i <= 3; i++ {
		if got := c.next(); !strings.Contains(got, `"id":`+strconv.Itoa(i)+`,"result"`) {
			t.Errorf("response %d: %s", i, got)
		}
	}
	// Queued bytes: a request body that would pass the byte budget is refused.
	c.send(`{"jsonrpc":"2.0","id":5,"method":"block"}`)
	<-h.started
	pad := strings.Repeat("p", testLimits.MaxQueuedBytes)
	c.send(`{"jsonrpc":"2.0","id":6,"method":"echo","params":{"p":"` + pad + `"}}`)
	if got := c.next(); got != domainResp("6", "resource_limit", `{"limit":3,"resource":"queue"}`) {
		t.Errorf("over the queued bytes: %s", got)
	}
	h.release <- struct{}{}
	c.next()
}

//contract:proves eska-ide-api.error-reporting.internal
//contract:proves eska-ide-api.error.internal-error
func TestInternalErrorAndDiagnostics(t *testing.T) {
	h := newFake()
	c := start(t, h)
	c.init()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"panic"}`)
	if got := c.next(); got != errResp("1", "-32603") {
		t.Errorf("panic: %s", got)
	}
	for i := 0; i < 5; i++ {
		c.send(`{"jsonrpc":"2.0","method":"echo"}`) // request-only method without id: not run, diagnosed
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"echo"}`)
	c.next()
	if n := strings.Count(c.stderr.String(), "\n"); n != testLimits.MaxStderrDiagnostics {
		t.Errorf("%d stderr lines, want the limit %d:\n%s", n, testLimits.MaxStderrDiagnostics, c.stderr.String())
	}
	if strings.Contains(c.stderr.String(), "handler bug") {
		t.Error("stderr carries the panic's text")
	}
}

// Background work runs between requests, one step at a time.
//
//contract:proves eska-ide-api.scheduling.roles
func TestBackground(t *testing.T) {
	h := newFake()
	h.bgBudget = 1000
	c := start(t, h)
	c.init()
	for i := 0; i < 20; i++ {
		c.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"echo"}`)
		c.next()
	}
	select {
	case <-h.bgDone:
	case <-time.After(5 * time.Second):
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.bgSteps != h.bgBudget {
		t.Errorf("background steps %d of %d", h.bgSteps, h.bgBudget)
	}
}

// brokenWriter fails every write, as a closed stdout does.
type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestBrokenStdout(t *testing.T) {
	srv := NewServer(testConfig(newFake(), nil))
	in := strings.NewReader(frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`) + frame(`{"jsonrpc":"2.0","id":2,"method":"echo"}`))
	// The input stays open: the failed write alone must end the
	// conversation (an end of input after initialize would exit 0).
	pr, pw := io.Pipe()
	defer pw.Close()
	go io.Copy(pw, in)
	code := make(chan int, 1)
	go func() { code <- srv.Run(pr, brokenWriter{}) }()
	select {
	case c := <-code:
		if c != ExitNoShutdown {
			t.Errorf("broken stdout: exit %d", c)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a broken stdout did not end the conversation")
	}
}

// Every frame split at every byte boundary gives the same responses.
//
//contract:proves eska-ide-api.framing.chunking
//contract:proves eska-ide-api.error.parse-error
func TestChunking(t *testing.T) {
	script := frame(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`) +
		frame(`{"jsonrpc":"2.0","id":"кириллица","method":"echo","params":{"текст":"Привет"}}`) + frame(`{`) +
		frame(`[{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc":"2.0","method":"note"}]`)
	want := []string{
		`{"jsonrpc":"2.0","id":0,"result":{"ok":true}}`,
		errResp("null", "-32600"), // the id is a string of more than 8 bytes
		errResp("null", "-32700"),
		`[{"jsonrpc":"2.0","id":1,"result":{}}]`,
	}
	for split := 1; split < len(script); split += 7 {
		c := start(t, newFake())
		c.write(script[:split])
		c.write(script[split:])
		for i, w := range want {
			if got := c.next(); got != w {
				t.Fatalf("split at %d, response %d: %s, want %s", split, i, got, w)
			}
		}
	}
}

func ExampleAppendFrame() {
	fmt.Printf("%q\n", AppendFrame(nil, []byte(`{"a":"é"}`)))
	// Output: "Content-Length: 10\r\n\r\n{\"a\":\"é\"}"
}

// The writer's queue is bounded in bytes: a sender waits while it is
// full, and goes on once the reader of the output catches up.
//
//contract:proves eska-ide-api.scheduling.back-pressure
func TestWriterBackPressure(t *testing.T) {
	r, w := io.Pipe()
	wr := newWriter(w, 20, func() {})
	go wr.run()
	wr.send([]byte("0123456789")) // being written: the pipe blocks until read
	wr.send([]byte("abcdefghij")) // queued: the bound of 20 bytes is reached
	sent := make(chan struct{})
	go func() { wr.send([]byte("KLMNOPQRST")); close(sent) }()
	select {
	case <-sent:
		t.Fatal("a send beyond the queue bound did not wait")
	case <-time.After(100 * time.Millisecond):
	}
	buf := make([]byte, 30)
	if _, err := io.ReadFull(r, buf); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sent:
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting send never went on")
	}
	if string(buf) != "0123456789abcdefghijKLMNOPQRST" {
		t.Errorf("output %q", buf)
	}
}

// A request runs at once on the goroutine that read it when nothing else
// is queued; the reader role has moved on by then, so a $/cancelRequest
// sent while the request runs is read and reaches it. This holds for the
// first request of a conversation, for one after an idle pause and for
// one queued behind another.
//
//contract:proves eska-ide-api.scheduling.roles eska-ide-api.cancellation.active-read
func TestCancelSeenWhileRunning(t *testing.T) {
	h := newFake()
	c := start(t, h)
	c.init()
	for round := 0; round < 3; round++ {
		id := `"w` + strconv.Itoa(round) + `"`
		if round == 2 {
			// Queued behind a blocked request, then run by the worker.
			c.send(`{"jsonrpc":"2.0","id":"first","method":"block"}`)
			<-h.started
			c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"wait"}`)
			h.release <- struct{}{}
			if got := c.next(); got != `{"jsonrpc":"2.0","id":"first","result":"done"}` {
				t.Fatalf("blocked request: %s", got)
			}
		} else {
			c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"wait"}`)
		}
		select {
		case <-h.started:
		case <-time.After(5 * time.Second):
			t.Fatal("the request never started")
		}
		c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + id + `}}`)
		if got := c.next(); got != domainResp(id, "cancelled", `{}`) {
			t.Fatalf("round %d: %s", round, got)
		}
		c.workerLetGo() // idle: the next request starts from a parked worker
	}
	// The handler ended because it saw the cancellation, not by timing out.
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := strings.Count(strings.Join(h.calls, ","), "wait"); n != 3 {
		t.Errorf("wait ran %d times", n)
	}
}

// Frames read before the end of input are handled before the end-of-input
// rule applies: initialize, exit and EOF in one write end with 1 (exit
// without shutdown) every time, and with shutdown before exit with 0.
//
//contract:proves eska-ide-api.lifecycle.exit-codes
func TestExitFramesThenEOF(t *testing.T) {
	init := frame(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	shutdown := frame(`{"jsonrpc":"2.0","id":1,"method":"shutdown"}`)
	exit := frame(`{"jsonrpc":"2.0","method":"exit"}`)
	for _, tc := range []struct {
		name   string
		input  string
		code   int
		frames int
	}{
		{"initialize, exit, EOF", init + exit, ExitNoShutdown, 1},
		{"initialize, shutdown, exit, EOF", init + shutdown + exit, ExitClean, 2},
		{"exit, EOF", exit, ExitNoShutdown, 0},
		{"initialize, EOF", init, ExitClean, -1},
	} {
		for i := 0; i < 100; i++ {
			var out syncbuf.Buffer
			srv := NewServer(testConfig(newFake(), nil))
			code := srv.Run(strings.NewReader(tc.input), &out)
			if code != tc.code {
				t.Fatalf("%s, run %d: exit %d, want %d", tc.name, i, code, tc.code)
			}
			if n := strings.Count(out.String(), "Content-Length"); tc.frames >= 0 && n != tc.frames {
				t.Fatalf("%s, run %d: %d frames, want %d", tc.name, i, n, tc.frames)
			}
		}
	}
}

// A batch over the item limit is answered element by element: every
// element gets its answer in order (here the test's 2,048-byte limit cuts
// the reply short with response_too_large, as for any batch), whatever
// the elements hold.
//
//contract:proves eska-ide-api.batch.item-limit eska-ide-api.batch.response-budget
func TestOversizeBatchAnsweredInOrder(t *testing.T) {
	c := start(t, newFake())
	c.init()
	elems := []string{`0`, `"]"`, `{"jsonrpc":"2.0","id":"x","method":"echo","params":{"s":"},]"}}`, `[1,[2]]`,
		`{"jsonrpc":"2.0","method":"note"}`, `{"jsonrpc":"1.0","id":7,"method":"echo"}`, ` null `, `{"a":{"b":"\"}"}}`}
	c.send("[ " + strings.Join(elems, " , ") + " ]")
	want := `[` + errResp("null", "-32600") + `,` + errResp("null", "-32600") + `,` +
		domainResp(`"x"`, "resource_limit", `{"limit":4,"resource":"batch"}`) + `,` + errResp("null", "-32600") + `,` +
		errResp("7", "-32600") + `,` + errResp("null", "-32600") + `,` + errResp("null", "-32600") + `]`
	if got := c.next(); got != want {
		t.Errorf("oversize batch:\n got %s\nwant %s", got, want)
	}
	// Many elements: each past the outgoing budget is answered with
	// response_too_large in its place.
	c.send("[" + strings.TrimSuffix(strings.Repeat("0,", 1000), ",") + "]")
	var items []json.RawMessage
	if err := json.Unmarshal([]byte(c.next()), &items); err != nil {
		t.Fatal(err)
	}
	if len(items) != 1000 {
		t.Fatalf("%d answers to 1000 elements", len(items))
	}
	if string(items[0]) != errResp("null", "-32600") || string(items[999]) != domainResp("null", "response_too_large", `{"limitBytes":2048}`) {
		t.Errorf("first %s, last %s", items[0], items[999])
	}
}

// spinner has endless background work, which it does while its context
// lets it: only a context that turns when a request arrives lets the
// request through.
type spinner struct {
	*fakeHandler
	spins atomic.Int64
	spun  chan struct{} // holds a token once spins went up since it was last taken
}

func (h *spinner) Background(ctx context.Context) bool {
	for ctx.Err() == nil {
		h.spins.Add(1)
		select {
		case h.spun <- struct{}{}:
		default:
		}
	}
	return true
}

// Background work goes on step after step while nothing waits, and gives
// way to a request as soon as one arrives.
//
//contract:proves eska-ide-api.scheduling.indexing
func TestBackgroundGivesWay(t *testing.T) {
	h := &spinner{fakeHandler: newFake(), spun: make(chan struct{}, 1)}
	c := start(t, h)
	c.init()
	for i := 0; i < 5; i++ {
		// A token left from before the last request is dropped: the one
		// waited for is from work done after its answer.
		select {
		case <-h.spun:
		default:
		}
		select {
		case <-h.spun:
		case <-time.After(5 * time.Second):
			t.Fatal("no background work while idle")
		}
		c.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"echo"}`)
		if got := c.next(); got != `{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"result":{}}` {
			t.Fatalf("request %d: %s", i, got)
		}
	}
}

// pollHandler is the fake with one more request, poll, whose handler
// looks at ctx.Err between steps and never at Done, as a handler doing
// bounded work does.
type pollHandler struct{ *fakeHandler }

func (h pollHandler) Kind(m string) Kind {
	if m == "poll" {
		return Request
	}
	return h.fakeHandler.Kind(m)
}

func (h pollHandler) Call(ctx context.Context, m string, params *strictjson.Value) (json.RawMessage, *Error) {
	if m != "poll" {
		return h.fakeHandler.Call(ctx, m, params)
	}
	h.started <- m
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Microsecond) {
		if ctx.Err() != nil {
			return json.RawMessage(`"saw the cancel"`), nil
		}
	}
	return json.RawMessage(`"no cancel arrived"`), nil
}

// A handler that only polls ctx.Err still learns of its cancellation: the
// goroutine running it holds the reader role, dormant, but hands it over
// once the work lasts, so the $/cancelRequest is read while the handler
// runs, and the response is replaced by cancelled as for any read. Short
// requests between run with the reader role dormant.
func TestCancelSeenByPollingHandler(t *testing.T) {
	h := newFake()
	c := start(t, pollHandler{h})
	c.init()
	for round := 0; round < 3; round++ {
		n := strconv.Itoa(round)
		c.send(`{"jsonrpc":"2.0","id":"p` + n + `","method":"poll"}`)
		select {
		case <-h.started:
		case <-time.After(5 * time.Second):
			t.Fatal("the request never started")
		}
		c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"p` + n + `"}}`)
		if got := c.next(); got != domainResp(`"p`+n+`"`, "cancelled", `{}`) {
			t.Fatalf("round %d: %s", round, got)
		}
		c.send(`{"jsonrpc":"2.0","id":"e` + n + `","method":"echo","params":{"r":` + n + `}}`)
		if got, want := c.next(), `{"jsonrpc":"2.0","id":"e`+n+`","result":{"r":`+n+`}}`; got != want {
			t.Fatalf("echo %d: %s, want %s", round, got, want)
		}
	}
}
