//go:build !aicontrol_disabled

package bridge

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contractkit/contractkit/generated/aicontrol"
)

// authLine is an auth request padded to exactly n bytes.
func authLine(t *testing.T, token string, n int) string {
	t.Helper()
	head := `{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":` + strconv.Quote(token) + `,"pad":"`
	tail := `"}}`
	if n < len(head)+len(tail) {
		t.Fatalf("auth line cannot be %d bytes", n)
	}
	return head + strings.Repeat("p", n-len(head)-len(tail)) + tail
}

// Before auth a connection may send lines up to the short pre-auth limit:
// at the limit it is answered, one byte past it is refused and closed.
// After auth the full line limit applies again.
//
//contract:proves ai-control-protocol.security.pre-auth-bounds
func TestUnauthenticatedLineLimit(t *testing.T) {
	s := start(t, Config{Token: testToken})
	w := dialRaw(t, s)
	if _, r := w.call(authLine(t, "wrong-token", aicontrol.MaxUnauthenticatedLineBytes)); r.Error != nil {
		t.Fatalf("auth line at the pre-auth limit: %+v", r.Error)
	}
	if _, r := w.call(authLine(t, testToken, aicontrol.MaxUnauthenticatedLineBytes)); r.Error != nil || string(r.Result) != `{"authorized":true}` {
		t.Fatalf("auth at the pre-auth limit: %s %+v", r.Result, r.Error)
	}
	// Authorized: a line far over the pre-auth limit is served.
	big := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"` + strings.Repeat("x", 100_000) + `"}}`
	if _, r := w.call(big); r.Error != nil {
		t.Fatalf("authorized 100 kB line: %+v", r.Error)
	}

	w = dialRaw(t, s)
	raw, r := w.call(authLine(t, testToken, aicontrol.MaxUnauthenticatedLineBytes+1))
	if codeOf(r) != aicontrol.CodeInvalidRequest || !strings.Contains(r.Error.Message, "request too large") || idOf(t, raw) != "null" {
		t.Fatalf("pre-auth line one byte past the limit: %s", raw)
	}
	w.expectClosed()

	// A megabyte of a stranger's bytes is cut off at the pre-auth limit.
	w = dialRaw(t, s)
	w.send("[" + strings.Repeat("0,", 1<<19) + "0]\n")
	if _, r := w.reply(); codeOf(r) != aicontrol.CodeInvalidRequest {
		t.Fatalf("1 MiB pre-auth line: %+v", r)
	}
	w.expectClosed()

	// Without a token every connection is authorized: the full limit applies.
	open := start(t, Config{})
	w = dialRaw(t, open)
	if _, r := w.call(big); r.Error != nil {
		t.Fatalf("tokenless listener, 100 kB line: %+v", r.Error)
	}
}

// valuesLine is a ping request holding exactly n JSON values.
func valuesLine(n int) string {
	// object, jsonrpc, id, method, params object, array: 6 values around the zeros.
	zeros := strings.TrimSuffix(strings.Repeat("0,", n-6), ",")
	return `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[` + zeros + `]}}`
}

// A line of exactly MaxValuesPerLine values is served; one value more is
// refused with -32600 and id null before any tree is built, and the
// connection stays usable.
//
//contract:proves ai-control-protocol.wire.value-limit
func TestValueLimit(t *testing.T) {
	s := start(t, Config{})
	w := dialRaw(t, s)
	if _, r := w.call(valuesLine(aicontrol.MaxValuesPerLine)); r.Error != nil {
		t.Fatalf("line at the value limit: %+v", r.Error)
	}
	raw, r := w.call(valuesLine(aicontrol.MaxValuesPerLine + 1))
	if codeOf(r) != aicontrol.CodeInvalidRequest || idOf(t, raw) != "null" || !strings.Contains(r.Error.Message, "number of values") {
		t.Fatalf("line one value past the limit: %s", raw)
	}
	if _, r := w.call(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); r.Error != nil {
		t.Fatalf("connection after the value limit: %+v", r.Error)
	}
	// The line: a megabyte of zeros.
	raw, r = w.call("[" + strings.Repeat("0,", (aicontrol.MaxLineBytes-3)/2) + "0]")
	if codeOf(r) != aicontrol.CodeInvalidRequest || idOf(t, raw) != "null" {
		t.Fatalf("a megabyte of zeros: %s", raw)
	}
}

// An unauthorized connection is closed when its auth deadline passes,
// however many lines it sends meanwhile; one that authorizes in time
// stays, and a tokenless listener sets no deadline.
//
//contract:proves ai-control-protocol.security.auth-deadline
func TestAuthDeadline(t *testing.T) {
	if got := (Config{}).withDefaults().AuthDeadline; got != time.Duration(aicontrol.DefaultAuthDeadlineMs)*time.Millisecond {
		t.Errorf("default auth deadline %v", got)
	}
	const deadline = time.Second
	s := start(t, Config{Token: testToken, AuthDeadline: deadline})
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`

	intime := dialRaw(t, s)
	began := time.Now() // the listener accepts chatty after this, so its deadline is later than began+deadline
	chatty := dialRaw(t, s)
	// In time: a failed attempt and a refused ping, then the token.
	auth(intime, "wrong")
	intime.call(ping)
	if !auth(intime, testToken) {
		t.Fatal("auth refused")
	}
	// Chatty: garbage, refused pings and wrong tokens, never the right one.
	// The deadline does not move: the connection is closed while it still talks.
	closedAt := time.Duration(0)
	for i := 0; i < 40 && closedAt == 0; i++ {
		line := []string{"garbage", ping}[i%2]
		if _, err := chatty.c.Write([]byte(line + "\n")); err != nil {
			closedAt = time.Since(began)
			break
		}
		_ = chatty.c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		if _, err := chatty.br.ReadString('\n'); err != nil && !isTimeout(err) {
			closedAt = time.Since(began)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if closedAt == 0 {
		t.Fatalf("an unauthorized connection sending a line every 100ms was still open after 4s (deadline %v)", deadline)
	}
	if closedAt < deadline {
		t.Errorf("closed after %v, before the deadline %v", closedAt, deadline)
	}
	if _, r := intime.call(ping); r.Error != nil {
		t.Fatalf("authorized connection after the deadline: %+v", r.Error)
	}
	if got := s.Status().LastError; got != "" {
		t.Errorf("a stranger's deadline wrote lastError %q", got)
	}

	open := start(t, Config{AuthDeadline: 100 * time.Millisecond})
	w := dialRaw(t, open)
	time.Sleep(300 * time.Millisecond)
	if _, r := w.call(ping); r.Error != nil {
		t.Fatalf("tokenless listener closed a connection at the auth deadline: %+v", r.Error)
	}
}

// isTimeout tells "no answer yet" from "closed".
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// At MaxConnections authorized connections every one is served; one
// past, the newest connection gets one too-many-connections line with id
// null and is closed. A freed slot serves again, and silent strangers
// never take an authorized slot.
//
//contract:proves ai-control-protocol.security.connection-slots ai-control-protocol.error.too-many-connections
func TestConnectionSlots(t *testing.T) {
	s := start(t, Config{Token: testToken, MaxConnections: 2, AuthDeadline: 500 * time.Millisecond})
	a, b := dialRaw(t, s), dialRaw(t, s)
	auth(a, testToken)
	auth(b, testToken)
	c := dialRaw(t, s)
	raw, r := c.reply() // unasked
	if codeOf(r) != aicontrol.CodeTooManyConnections || idOf(t, raw) != "null" || !strings.Contains(r.Error.Message, "2 connection slots") {
		t.Fatalf("third connection: %s", raw)
	}
	c.expectClosed()
	if got := s.Status().LastError; got != "" {
		t.Errorf("a refused connection wrote lastError %q", got)
	}
	// A client that sends its request before reading still gets the line.
	d := dialRaw(t, s)
	d.send(`{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":"x"}}` + "\n")
	if _, r := d.reply(); codeOf(r) != aicontrol.CodeTooManyConnections {
		t.Fatalf("refused connection that spoke first: %+v", r)
	}
	a.c.Close()
	served := func() bool {
		e := dialRaw(t, s)
		defer e.c.Close()
		e.send(`{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":` + strconv.Quote(testToken) + `}}` + "\n")
		line, err := e.br.ReadString('\n')
		return err == nil && strings.Contains(line, `"result":{"authorized":true}`)
	}
	if !eventually(served) {
		t.Fatal("a freed slot did not serve a new connection")
	}
	// Two silent strangers take no authorized slot: the client with the
	// token is served while they wait.
	b.c.Close()
	eventually(func() bool { return s.openConns() == 0 })
	dialRaw(t, s)
	dialRaw(t, s)
	if !served() {
		t.Fatal("silent strangers kept the client with the token out")
	}
}

func (s *Server) openConns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// eventually polls cond for up to five seconds.
func eventually(cond func() bool) bool {
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

// With WaitWhenFull a listener of one slot leaves a second connection
// unanswered in the backlog until the first closes, as the reference
// sample does.
//
//contract:proves ai-control-protocol.wire.single-connection
func TestWaitWhenFull(t *testing.T) {
	s := start(t, Config{Token: testToken, MaxConnections: 1, WaitWhenFull: true})
	first := dialRaw(t, s)
	auth(first, testToken)
	second := dialRaw(t, s) // the kernel completes the handshake; nobody reads
	second.send(`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n")
	_ = second.c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if line, err := second.br.ReadString('\n'); !isTimeout(err) {
		t.Fatalf("second connection answered while the first was open: %q %v", line, err)
	}
	first.c.Close()
	_ = second.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	raw, r := second.reply()
	if codeOf(r) != aicontrol.CodeUnauthorized || idOf(t, raw) != "7" {
		t.Fatalf("second connection after the first closed: %s", raw)
	}
}

// Failed auth attempts are held back, longer with each failure, and
// closed: a connection is allowed MaxAuthFailuresPerConnection failures
// and then still authorizes; one more closes it. Across the listener,
// MaxAuthFailuresPerListener failures within the window are allowed; the
// next closes its connection at its first failure. The right token is
// never held back.
//
//contract:proves ai-control-protocol.security.auth-rate-limit
func TestAuthRateLimit(t *testing.T) {
	const base, maxDelay = 20 * time.Millisecond, 80 * time.Millisecond
	s := start(t, Config{Token: testToken, AuthFailureDelay: base, AuthFailureMaxDelay: maxDelay})
	w := dialRaw(t, s)
	want := base
	for i := 1; i <= aicontrol.MaxAuthFailuresPerConnection; i++ {
		began := time.Now()
		if auth(w, "guess-"+strconv.Itoa(i)) {
			t.Fatal("wrong token accepted")
		}
		if took := time.Since(began); took < want {
			t.Errorf("failure %d answered after %v, want at least %v", i, took, want)
		}
		want = min(2*want, maxDelay)
	}
	if !auth(w, testToken) {
		t.Fatalf("the right token after %d failures was refused", aicontrol.MaxAuthFailuresPerConnection)
	}
	w = dialRaw(t, s)
	for i := 1; i <= aicontrol.MaxAuthFailuresPerConnection+1; i++ {
		auth(w, "guess")
	}
	w.expectClosed()

	// The listener's allowance, with short delays to keep the test quick.
	l := start(t, Config{Token: testToken, AuthFailureDelay: time.Millisecond, AuthFailureMaxDelay: 2 * time.Millisecond})
	failures := 0
	for failures < aicontrol.MaxAuthFailuresPerListener {
		w := dialRaw(t, l)
		for i := 0; i < aicontrol.MaxAuthFailuresPerConnection && failures < aicontrol.MaxAuthFailuresPerListener; i++ {
			auth(w, "guess")
			failures++
		}
		// Within both allowances the connection stays usable.
		if _, r := w.call(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); codeOf(r) != aicontrol.CodeUnauthorized {
			t.Fatalf("after %d listener failures: %+v", failures, r)
		}
	}
	w = dialRaw(t, l)
	auth(w, "guess")
	w.expectClosed()
	w = dialRaw(t, l)
	began := time.Now()
	if !auth(w, testToken) {
		t.Fatal("the right token was refused while the listener was over its failure allowance")
	}
	if took := time.Since(began); took > time.Second {
		t.Errorf("the right token took %v", took)
	}
}

// The hold-back doubles per failure within the window, up to the maximum,
// and failures older than the window stop counting.
//
//contract:proves ai-control-protocol.security.auth-rate-limit
func TestAuthLimiter(t *testing.T) {
	l := newAuthLimiter(Config{AuthFailureDelay: 100 * time.Millisecond, AuthFailureMaxDelay: 800 * time.Millisecond, AuthFailureWindow: time.Minute})
	now := time.Unix(1_000_000, 0)
	var got []string
	for i := 1; i <= 6; i++ {
		d, closeConn := l.fail(now, 1)
		got = append(got, fmt.Sprintf("%v/%v", d, closeConn))
		now = now.Add(time.Second)
	}
	if want := "[100ms/false 200ms/false 400ms/false 800ms/false 800ms/false 800ms/false]"; fmt.Sprint(got) != want {
		t.Errorf("delays %v, want %s", got, want)
	}
	now = now.Add(time.Minute)
	if d, _ := l.fail(now, 1); d != 100*time.Millisecond {
		t.Errorf("after the window: %v", d)
	}
	if d, _ := l.fail(now, 3); d != 400*time.Millisecond {
		t.Errorf("third failure of one connection: %v", d)
	}
	if _, closeConn := l.fail(now, aicontrol.MaxAuthFailuresPerConnection); closeConn {
		t.Error("closed at the per-connection allowance")
	}
	if _, closeConn := l.fail(now, aicontrol.MaxAuthFailuresPerConnection+1); !closeConn {
		t.Error("not closed one past the per-connection allowance")
	}
}

// A listener that may accept non-loopback peers refuses a token shorter
// than MinTokenBytes; on loopback a short token starts with a warning,
// and the reference smoke's 12-byte token authorizes.
//
//contract:proves ai-control-protocol.security.token-length
func TestTokenLength(t *testing.T) {
	short, enough := strings.Repeat("k", aicontrol.MinTokenBytes-1), strings.Repeat("k", aicontrol.MinTokenBytes)
	remote := Config{Enabled: true, Addr: "192.0.2.1:43011", AllowRemote: true}
	remote.Token = short
	if err := remote.Validate(); !errors.Is(err, ErrTokenTooShort) {
		t.Errorf("remote listener, %d-byte token: %v", len(short), err)
	}
	remote.Token = enough
	if err := remote.Validate(); err != nil {
		t.Errorf("remote listener, %d-byte token: %v", len(enough), err)
	}
	for token, warn := range map[string]string{"": "no token", short: "fewer than 16", enough: ""} {
		w := Config{Enabled: true, Token: token}.Warnings()
		if (warn == "") != (len(w) == 0) || warn != "" && !strings.Contains(w[0], warn) {
			t.Errorf("loopback, token of %d bytes: warnings %q", len(token), w)
		}
		for _, line := range w {
			if token != "" && strings.Contains(line, token) {
				t.Errorf("a warning shows the token: %q", line)
			}
		}
	}
	const refToken = "local-smoke1" // the reference smoke's token is 12 bytes
	s := start(t, Config{Token: refToken})
	if !auth(dialRaw(t, s), refToken) {
		t.Error("a 12-byte token on loopback does not authorize")
	}
}

// Close fails unfinished commands and serves the connections that follow
// events until they have read those completions: a client waiting for its
// command sees success=false, not a closed connection.
//
//contract:proves ai-control-protocol.integration.shutdown-delivery ai-control-protocol.integration.command-completion
func TestShutdownDelivery(t *testing.T) {
	s, err := Listen(Config{Enabled: true, Addr: "127.0.0.1:0", Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waiter := client(t, s, testToken)
	idle := client(t, s, testToken)
	ctx := context.Background()
	res, err := waiter.Act(ctx, aicontrol.ActParams{Type: "move"})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		cc, _, err := waiter.WaitCompleted(ctx, &Cursor{}, res.CommandSeq, 10*time.Millisecond)
		if err == nil && (cc.Success || cc.Message != ShutdownMessage) {
			err = fmt.Errorf("completion %+v", cc)
		}
		got <- err
	}()
	// The waiter is following events before Close starts.
	if !eventually(func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, cs := range s.conns {
			if cs.following.Load() {
				return true
			}
		}
		return false
	}) {
		t.Fatal("the waiter never asked for events")
	}
	failed, err := s.Close()
	if err != nil || fmt.Sprint(failed) != fmt.Sprint([]int64{res.CommandSeq}) {
		t.Fatalf("Close: %v %v", failed, err)
	}
	if err := <-got; err != nil {
		t.Fatalf("the waiting client: %v", err)
	}
	if _, err := idle.Ping(ctx); err == nil {
		t.Error("a connection that never followed events is still open after Close")
	}
}
