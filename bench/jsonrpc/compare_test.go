// Package jsonrpc compares contractkit's eska IDE transport (ide/rpc) with
// two other Go JSON-RPC 2.0 servers that speak Content-Length framing:
// github.com/creachadair/jrpc2 (channel.LSP) and go.lsp.dev/jsonrpc2
// (NewHeaderStream). It is a module of its own so that these libraries
// never enter the main module's dependency graph; run it with
// `make bench-compare` from the repository root.
//
// Every benchmark uses the same pair of OS pipes, the same request frame,
// and the same hand-written client (write one frame, read one frame with
// rpc.FrameReader), so the client's cost is identical and the differences
// are the servers'.
package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/channel"
	"github.com/creachadair/jrpc2/handler"
	lsp "go.lsp.dev/jsonrpc2"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide"
	"github.com/contractkit/contractkit/ide/rpc"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// method and body are the request every benchmark sends: the shape of a
// metadata/root call of the eska IDE API.
const method = "metadata/root"

var body = []byte(`{"jsonrpc":"2.0","id":"r","method":"metadata/root","params":{"sessionId":"s1","projectId":"p1","generation":"0"}}`)

var request = rpc.AppendFrame(nil, body)

// conn is the server's side of a pipe pair, as a stdio process sees it.
type conn struct {
	in  *os.File // the server reads requests here
	out *os.File // the server writes responses here
}

func (c conn) Read(p []byte) (int, error)  { return c.in.Read(p) }
func (c conn) Write(p []byte) (int, error) { return c.out.Write(p) }
func (c conn) Close() error                { c.in.Close(); return c.out.Close() }

// client is the benchmark's side: it writes request frames to w and reads
// response frames from fr.
type client struct {
	w  *os.File
	fr *rpc.FrameReader
}

// pipes returns a connected server side and client side; both are closed
// when the benchmark ends.
func pipes(tb testing.TB) (conn, client) {
	tb.Helper()
	sr, cw, err := os.Pipe() // client writes, server reads
	if err != nil {
		tb.Fatal(err)
	}
	cr, sw, err := os.Pipe() // server writes, client reads
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cw.Close(); sr.Close(); sw.Close(); cr.Close() })
	return conn{in: sr, out: sw}, client{w: cw, fr: rpc.NewFrameReader(cr, gen.MaxHeaderBytes, gen.MaxResponseBytes)}
}

// call sends one frame and returns the body of the next response.
func (c client) call(tb testing.TB, frame []byte) []byte {
	if _, err := c.w.Write(frame); err != nil {
		tb.Fatal(err)
	}
	resp, err := c.fr.ReadFrame()
	if err != nil {
		tb.Fatal(err)
	}
	return resp
}

// loop is the measured part, the same for every server.
func (c client) loop(b *testing.B) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.call(b, request)
	}
}

// nullHandler is the least an ide/rpc handler can do: every method is a
// request, answered with null at once.
type nullHandler struct{}

func (nullHandler) Kind(m string) rpc.Kind {
	if m == gen.NotificationExit {
		return rpc.Notification
	}
	return rpc.Request
}
func (nullHandler) Class(string) rpc.CancelClass { return rpc.ReadOnly }
func (nullHandler) Call(context.Context, string, *strictjson.Value) (json.RawMessage, *rpc.Error) {
	return json.RawMessage("null"), nil
}
func (nullHandler) Notify(context.Context, string, *strictjson.Value) error { return nil }
func (nullHandler) Background(context.Context) bool                         { return false }
func (nullHandler) Close()                                                  {}

// The servers under comparison. Each starts on srv and returns after the
// conversation is ready for request; the pipes' cleanup ends it.

func startFloor(tb testing.TB, srv conn) {
	go func() {
		fr := rpc.NewFrameReader(srv.in, gen.MaxHeaderBytes, gen.MaxRequestBytes)
		var out []byte
		for {
			b, err := fr.ReadFrame()
			if err != nil {
				return
			}
			out = rpc.AppendFrame(out[:0], b)
			if _, err := srv.out.Write(out); err != nil {
				return
			}
		}
	}()
}

// startHandoff is the floor with the one hand-off the eska contract
// requires: a reader goroutine passes each body over a channel to a worker
// goroutine, which writes the response, so the reader is free to read on
// while the worker runs.
func startHandoff(tb testing.TB, srv conn) {
	bodies := make(chan []byte, 16)
	go func() {
		defer close(bodies)
		fr := rpc.NewFrameReader(srv.in, gen.MaxHeaderBytes, gen.MaxRequestBytes)
		for {
			b, err := fr.ReadFrame()
			if err != nil {
				return
			}
			bodies <- b
		}
	}()
	go func() {
		var out []byte
		for b := range bodies {
			out = rpc.AppendFrame(out[:0], b)
			if _, err := srv.out.Write(out); err != nil {
				return
			}
		}
	}()
}

// startContractkit runs ide/rpc with the contract's limits and codes and
// h behind it, and completes the initialize the lifecycle requires.
func startContractkit(tb testing.TB, srv conn, cli client, h rpc.Handler) {
	var s *rpc.Server
	ides := ide.NewServer("bench", func(c string) { s.Diag(c) })
	cfg := ides.Config(io.Discard)
	if h != nil {
		cfg.Handler = h
	}
	s = rpc.NewServer(cfg)
	go s.Run(srv.in, srv.out)
	init := rpc.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"apiVersion":{"major":1,"minor":11},"client":{"name":"bench","version":"1"}}}`))
	if resp := cli.call(tb, init); !bytes.Contains(resp, []byte(`"result"`)) {
		tb.Fatalf("initialize: %s", resp)
	}
}

func startJrpc2(tb testing.TB, srv conn) {
	s := jrpc2.NewServer(handler.Map{
		method: func(context.Context, *jrpc2.Request) (any, error) { return nil, nil },
	}, &jrpc2.ServerOptions{Concurrency: 1})
	s.Start(channel.LSP(srv, srv))
	tb.Cleanup(s.Stop)
}

func startLSP(tb testing.TB, srv conn) {
	c := lsp.NewConn(lsp.NewHeaderStream(srv))
	c.Go(context.Background(), func(context.Context, *lsp.Request) (any, error) { return nil, nil })
}

// BenchmarkFloor: a bare loop that reads a frame and writes it back.
func BenchmarkFloor(b *testing.B) {
	srv, cli := pipes(b)
	startFloor(b, srv)
	cli.loop(b)
}

// BenchmarkFloorHandoff: the floor plus a reader→worker hand-off over a
// channel, the least any server that keeps reading while it works pays.
func BenchmarkFloorHandoff(b *testing.B) {
	srv, cli := pipes(b)
	startHandoff(b, srv)
	cli.loop(b)
}

// BenchmarkContractkitTransport: ide/rpc (reader, FIFO worker, writer,
// envelope checks, cancellation bookkeeping) with a handler answering null.
func BenchmarkContractkitTransport(b *testing.B) {
	srv, cli := pipes(b)
	startContractkit(b, srv, cli, nullHandler{})
	cli.loop(b)
}

// BenchmarkContractkitRoundTrip: the eska IDE server behind ide/rpc, with
// generated dispatch and strict params decoding; this build answers
// metadata/root with the domain error unknown_session.
func BenchmarkContractkitRoundTrip(b *testing.B) {
	srv, cli := pipes(b)
	startContractkit(b, srv, cli, nil)
	cli.loop(b)
}

// BenchmarkJrpc2: creachadair/jrpc2 over channel.LSP, handler returning null.
func BenchmarkJrpc2(b *testing.B) {
	srv, cli := pipes(b)
	startJrpc2(b, srv)
	cli.loop(b)
}

// BenchmarkLSPJsonrpc2: go.lsp.dev/jsonrpc2 over its header stream,
// handler returning null.
func BenchmarkLSPJsonrpc2(b *testing.B) {
	srv, cli := pipes(b)
	startLSP(b, srv)
	cli.loop(b)
}

// TestResponses checks that every server answers the benchmark's request
// with a response to id "r" of the expected kind, so that the benchmarks
// compare like with like.
func TestResponses(t *testing.T) {
	cases := []struct {
		name  string
		start func(t *testing.T, srv conn, cli client)
		want  string
	}{
		{"floor", func(t *testing.T, srv conn, _ client) { startFloor(t, srv) }, `"method":"metadata/root"`},
		{"floor-handoff", func(t *testing.T, srv conn, _ client) { startHandoff(t, srv) }, `"method":"metadata/root"`},
		{"contractkit-transport", func(t *testing.T, srv conn, cli client) { startContractkit(t, srv, cli, nullHandler{}) }, `"result":null`},
		{"contractkit-roundtrip", func(t *testing.T, srv conn, cli client) { startContractkit(t, srv, cli, nil) }, `unknown_session`},
		{"jrpc2", func(t *testing.T, srv conn, _ client) { startJrpc2(t, srv) }, `"result":null`},
		{"lsp-jsonrpc2", func(t *testing.T, srv conn, _ client) { startLSP(t, srv) }, `"result":null`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, cli := pipes(t)
			tc.start(t, srv, cli)
			for i := 0; i < 3; i++ {
				resp := cli.call(t, request)
				if !bytes.Contains(resp, []byte(`"id":"r"`)) || !bytes.Contains(resp, []byte(tc.want)) {
					t.Fatalf("response %d: %s (want %s)", i, resp, tc.want)
				}
			}
		})
	}
}
