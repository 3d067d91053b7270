//go:build !aicontrol_disabled

package bridge

import (
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/aicontroltest"
	"github.com/contractkit/contractkit/internal/tcpstate"
)

// silent reports whether w has been sent nothing (and is still open) for d.
func silent(w *wire, d time.Duration) bool {
	_ = w.c.SetReadDeadline(time.Now().Add(d))
	_, err := w.br.Peek(1)
	_ = w.c.SetReadDeadline(time.Now().Add(20 * time.Second))
	return isTimeout(err)
}

func (s *Server) strangerCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.strangers.Len()
}

func (s *Server) authorizedCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.authorized
}

// Strangers live in a pool of their own. At MaxUnauthenticatedConnections
// every one of them stays; one past it, the oldest is answered
// too-many-connections (id null) and closed, and the newcomer stays. The
// authorized pool is counted apart: at MaxConnections authorized
// connections a newcomer is turned away at once; a stranger accepted while
// a slot was free and authorizing after the pool filled gets
// too-many-connections for its auth, with its id. A failed auth moves an
// authorized connection back among the strangers and frees its slot.
//
//contract:proves ai-control-protocol.security.connection-slots ai-control-protocol.error.too-many-connections
func TestStrangerPool(t *testing.T) {
	const strangers = 3
	s := start(t, Config{Token: testToken, MaxConnections: 2, MaxUnauthenticatedConnections: strangers, AuthDeadline: time.Minute})
	var pool []*wire
	for range strangers {
		pool = append(pool, dialRaw(t, s))
	}
	if !eventually(func() bool { return s.strangerCount() == strangers }) {
		t.Fatalf("%d strangers in the pool, want %d", s.strangerCount(), strangers)
	}
	for i, w := range pool {
		if !silent(w, 50*time.Millisecond) {
			t.Fatalf("stranger %d was answered or closed at the pool's limit", i)
		}
	}
	// One past the limit: the oldest goes, the newcomer stays.
	newcomer := dialRaw(t, s)
	raw, r := pool[0].reply()
	if codeOf(r) != aicontrol.CodeTooManyConnections || idOf(t, raw) != "null" || !strings.Contains(r.Error.Message, "dropped before authorizing") {
		t.Fatalf("the oldest stranger one past the pool's limit: %s", raw)
	}
	pool[0].expectEOF()
	for i, w := range append(pool[1:], newcomer) {
		if !silent(w, 50*time.Millisecond) {
			t.Fatalf("stranger %d was answered or closed when the oldest was evicted", i+1)
		}
	}
	if n := s.strangerCount(); n != strangers {
		t.Fatalf("%d strangers in the pool after the eviction, want %d", n, strangers)
	}

	// The newcomer, a client with the token, authorizes: it leaves the
	// strangers' pool for an authorized slot.
	if !auth(newcomer, testToken) {
		t.Fatal("the newcomer's token was refused")
	}
	if a, n := s.authorizedCount(), s.strangerCount(); a != 1 || n != strangers-1 {
		t.Fatalf("after one auth: %d authorized, %d strangers", a, n)
	}
	late := pool[1] // accepted while slots were free
	second := dialRaw(t, s)
	if !auth(second, testToken) {
		t.Fatal("the second client's token was refused at the authorized limit")
	}
	// One past the authorized limit: a new connection is turned away at once…
	third := dialRaw(t, s)
	if raw, r := third.reply(); codeOf(r) != aicontrol.CodeTooManyConnections || idOf(t, raw) != "null" || !strings.Contains(r.Error.Message, "all 2 connection slots") {
		t.Fatalf("a connection one past the authorized limit: %s", raw)
	}
	third.expectEOF()
	// …and a stranger that presents the token now gets too-many-connections
	// with its request's id.
	raw, r = late.call(`{"jsonrpc":"2.0","id":41,"method":"auth","params":{"token":` + strconv.Quote(testToken) + `}}`)
	if codeOf(r) != aicontrol.CodeTooManyConnections || idOf(t, raw) != "41" {
		t.Fatalf("auth one past the authorized limit: %s", raw)
	}
	late.expectEOF()

	// A failed auth withdraws the second client's slot: the stranger that
	// waited gets it.
	if auth(second, "wrong") {
		t.Fatal("a wrong token was accepted")
	}
	if a := s.authorizedCount(); a != 1 {
		t.Fatalf("%d authorized after a failed auth, want 1", a)
	}
	if !auth(pool[2], testToken) {
		t.Fatal("a freed slot did not serve the stranger with the token")
	}
}

// 64 strangers that reconnect as soon as they are closed, half of them
// silent and half sending a fragment of a line every few seconds, do not
// keep a client with the token out: it connects and authorizes within a
// second, 30 times of 30. The squatters block on their reads (no
// spinning), so the test is cheap on a busy machine.
//
//contract:proves ai-control-protocol.security.connection-slots ai-control-protocol.security.auth-deadline
func TestSquattersDoNotKeepTheClientOut(t *testing.T) {
	s := start(t, Config{Token: testToken, AuthDeadline: 500 * time.Millisecond})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() { close(stop); wg.Wait() }()
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			aicontroltest.Squat(s.Addr().String(), i%2 == 1, 200*time.Millisecond, stop)
		}()
	}
	// Let the squatters take their places and be cut at their deadline once.
	time.Sleep(700 * time.Millisecond)
	for try := range 30 {
		began := time.Now()
		c := client(t, s, testToken)
		if took := time.Since(began); took > time.Second {
			t.Errorf("try %d: connected and authorized after %v", try, took)
		}
		c.Close()
	}
}

// status.lastError is written only by what authorized connections did:
// strangers' failed auths, garbage, over-limit lines, deadlines,
// evictions and refused connections leave the client's error in place.
//
//contract:proves ai-control-protocol.method.status
func TestLastErrorOnlyFromAuthorized(t *testing.T) {
	s := start(t, Config{Token: testToken, MaxConnections: 2, MaxUnauthenticatedConnections: 1, AuthDeadline: 200 * time.Millisecond,
		AuthFailureDelay: time.Millisecond, AuthFailureMaxDelay: time.Millisecond})
	real := dialRaw(t, s)
	if !auth(real, testToken) {
		t.Fatal("auth refused")
	}
	real.call(`{"jsonrpc":"2.0","id":1,"method":"no-such-method"}`)
	const want = "Method not found"
	if got := s.Status().LastError; got != want {
		t.Fatalf("lastError after the client's error = %q", got)
	}
	w := dialRaw(t, s)
	auth(w, "wrong")
	w.call("garbage")
	w.call(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	w.expectClosedAfter(time.Second) // the auth deadline
	big := dialRaw(t, s)
	big.send(strings.Repeat("x", aicontrol.MaxUnauthenticatedLineBytes+2) + "\n")
	big.reply()
	big.expectEOF()
	first := dialRaw(t, s)
	if !eventually(func() bool { return s.strangerCount() == 1 }) {
		t.Fatal("the stranger was not admitted")
	}
	second := dialRaw(t, s) // evicts first
	first.reply()
	if !auth(second, testToken) { // the authorized pool is now full
		t.Fatal("auth refused")
	}
	refused := dialRaw(t, s)
	refused.reply()
	if got := s.Status().LastError; got != want {
		t.Errorf("strangers overwrote lastError: %q, want %q", got, want)
	}
}

// expectEOF checks that the listener ended the stream cleanly (FIN): a
// reset would have let the peer's kernel drop the answer before it was read.
func (w *wire) expectEOF() {
	w.t.Helper()
	_ = w.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if b, err := w.br.ReadByte(); !errors.Is(err, io.EOF) {
		w.t.Fatalf("want a clean end of stream, got %q, %v", b, err)
	}
}

func (w *wire) expectClosedAfter(d time.Duration) {
	w.t.Helper()
	_ = w.c.SetReadDeadline(time.Now().Add(d + 5*time.Second))
	for {
		if _, err := w.br.ReadByte(); err != nil {
			if isTimeout(err) {
				w.t.Fatalf("still open after %v", d+5*time.Second)
			}
			return
		}
	}
}

// A line over the limit, or a stream that ends inside a line, is answered
// with -32600 and closed with a clean end of stream, however much the
// peer sent: the listener ends its side, then reads and drops the peer's
// bytes (a line limit of them at most) before closing. 2 MiB without LF
// from an authorized client and 1 MiB from a stranger both get the answer.
//
//contract:proves ai-control-protocol.wire.line-limit ai-control-protocol.security.pre-auth-bounds
func TestOverLimitLineClosesCleanly(t *testing.T) {
	s := start(t, Config{Token: testToken})
	for _, c := range []struct {
		name      string
		authorize bool
		size      int
	}{
		{"authorized, 2 MiB without LF", true, 2 << 20},
		{"stranger, 1 MiB without LF", false, 1 << 20},
	} {
		w := dialRaw(t, s)
		if c.authorize && !auth(w, testToken) {
			t.Fatal("auth refused")
		}
		sent := make(chan error, 1)
		go func() {
			_, err := w.c.Write([]byte(strings.Repeat("x", c.size)))
			sent <- err
		}()
		raw, r := w.reply()
		if codeOf(r) != aicontrol.CodeInvalidRequest || !strings.Contains(r.Error.Message, "request too large") || idOf(t, raw) != "null" {
			t.Fatalf("%s: %s", c.name, raw)
		}
		w.expectEOF()
		if err := <-sent; err != nil {
			t.Errorf("%s: the peer's write failed (the listener reset the connection?): %v", c.name, err)
		}
	}
	// A stream that ends inside a line: the answer, then the end.
	w := dialRaw(t, s)
	auth(w, testToken)
	w.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	_ = w.c.(*net.TCPConn).CloseWrite()
	if raw, r := w.reply(); codeOf(r) != aicontrol.CodeInvalidRequest || !strings.Contains(r.Error.Message, "not terminated") {
		t.Fatalf("unterminated line: %s", raw)
	}
	w.expectEOF()
}

// A client that never reads its answers is reset within the write timeout
// (plus a second of slack) once its answers stop fitting in the socket
// buffers: 10 connections of 10, at once. The answers are observations of
// most of a line, which cost a copy to write, so that filling the buffers
// takes little CPU even under the race detector.
//
//contract:proves ai-control-protocol.integration.bounded-state
func TestNeverReadingClientIsCut(t *testing.T) {
	const writeTimeout, clients = 300 * time.Millisecond, 10
	s := start(t, Config{Token: testToken, WriteTimeout: writeTimeout, MaxConnections: clients})
	if _, err := s.PublishObservation(map[string]string{"blob": strings.Repeat("o", 900<<10)}); err != nil {
		t.Fatal(err)
	}
	var requests []string
	for i := range 40 {
		requests = append(requests, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"observe"}`)
	}
	var wg sync.WaitGroup
	took := make([]time.Duration, clients)
	errs := make([]error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			took[i], errs[i] = aicontroltest.NeverRead(s.Addr().String(), testToken, requests, writeTimeout+5*time.Second)
		}()
	}
	wg.Wait()
	for i := range clients {
		switch {
		case errors.Is(errs[i], tcpstate.ErrUnsupported):
			t.Skip(errs[i])
		case errs[i] != nil:
			t.Errorf("client %d: %v", i, errs[i])
		case took[i] > writeTimeout+time.Second:
			t.Errorf("client %d was cut %v after its last request, want at most %v", i, took[i], writeTimeout+time.Second)
		}
	}
}

// Graceful closes are bounded: at most MaxConnections +
// MaxUnauthenticatedConnections connections linger at once, reading and
// dropping their peers' bytes; one past that bound is closed at once. A
// lingering connection takes a late byte quietly; one closed at once
// answers it with a reset.
//
//contract:proves ai-control-protocol.security.connection-slots
func TestLingeringBound(t *testing.T) {
	s := start(t, Config{Token: testToken, MaxConnections: 1, MaxUnauthenticatedConnections: 1, CloseDrain: 5 * time.Second})
	if !auth(dialRaw(t, s), testToken) { // the only authorized slot
		t.Fatal("auth refused")
	}
	const bound = 2 // MaxConnections + MaxUnauthenticatedConnections
	var turned []*wire
	for range bound + 1 {
		w := dialRaw(t, s)
		if raw, r := w.reply(); codeOf(r) != aicontrol.CodeTooManyConnections {
			t.Fatalf("turned away: %s", raw)
		}
		w.expectEOF()
		turned = append(turned, w)
	}
	for _, w := range turned {
		if _, err := w.c.Write([]byte("late")); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(200 * time.Millisecond) // a reset, if any, has arrived on loopback
	for i, w := range turned {
		closed, err := tcpstate.Closed(w.c.(*net.TCPConn))
		if errors.Is(err, tcpstate.ErrUnsupported) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := i >= bound; closed != want {
			t.Errorf("turned-away connection %d of %d: reset %v, want %v", i+1, bound+1, closed, want)
		}
	}
}

// The drain after an error answer is bounded in time and in bytes: a
// peer that stays silent is still read (a late byte is taken quietly)
// until CloseDrain has passed and reset after it; a peer that keeps
// sending is reset once it has sent more than a line limit past its
// over-limit line, long before CloseDrain.
//
//contract:proves ai-control-protocol.wire.line-limit
func TestCloseDrainBounds(t *testing.T) {
	const drain = 400 * time.Millisecond
	s := start(t, Config{CloseDrain: drain})
	w := dialRaw(t, s)
	w.send(strings.Repeat("x", aicontrol.MaxLineBytes+2) + "\n")
	if raw, r := w.reply(); codeOf(r) != aicontrol.CodeInvalidRequest {
		t.Fatalf("over-limit line: %s", raw)
	}
	w.expectEOF()
	answered := time.Now()
	resetAfter := func(d time.Duration) bool {
		time.Sleep(time.Until(answered.Add(d)))
		if _, err := w.c.Write([]byte("x")); err != nil {
			return true
		}
		time.Sleep(50 * time.Millisecond)
		closed, err := tcpstate.Closed(w.c.(*net.TCPConn))
		if errors.Is(err, tcpstate.ErrUnsupported) {
			t.Skip(err)
		}
		return closed
	}
	if resetAfter(drain / 4) {
		t.Fatalf("reset within a quarter of CloseDrain (%v)", drain)
	}
	if !resetAfter(drain + 300*time.Millisecond) {
		t.Fatalf("still drained past CloseDrain (%v)", drain)
	}

	long := start(t, Config{CloseDrain: time.Minute})
	w = dialRaw(t, long)
	w.send(strings.Repeat("x", aicontrol.MaxLineBytes+2) + "\n")
	if raw, r := w.reply(); codeOf(r) != aicontrol.CodeInvalidRequest {
		t.Fatalf("over-limit line: %s", raw)
	}
	// Keep sending: the listener stops reading a line limit later and
	// resets the connection, within seconds, not the minute of CloseDrain.
	// How many bytes the kernel's buffers still take before the reset
	// reaches this side depends on the load, so the bound is in time:
	// writes go on until one fails or ten seconds have passed.
	chunk := []byte(strings.Repeat("y", 64<<10))
	deadline := time.Now().Add(10 * time.Second)
	_ = w.c.SetWriteDeadline(deadline)
	sent := 0
	var err error
	for err == nil && time.Now().Before(deadline) {
		var n int
		n, err = w.c.Write(chunk)
		sent += n
	}
	if err == nil || isTimeout(err) {
		t.Fatalf("sent %d bytes in 10 s after the answer without a reset (%v)", sent, err)
	}
	if sent < aicontrol.MaxLineBytes {
		t.Errorf("reset after %d bytes, before a line limit was drained", sent)
	}
}
