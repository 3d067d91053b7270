package rpc

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"

	"github.com/contractkit/contractkit/runtime/strictjson"
)

// nullHandler answers every request with null at once, so that a
// benchmark measures the transport alone.
type nullHandler struct{}

func (nullHandler) Kind(m string) Kind {
	if m == "exit" {
		return Notification
	}
	return Request
}
func (nullHandler) Class(string) CancelClass { return ReadOnly }
func (nullHandler) Call(context.Context, string, *strictjson.Value) (json.RawMessage, *Error) {
	return json.RawMessage(`null`), nil
}
func (nullHandler) Notify(context.Context, string, *strictjson.Value) error { return nil }
func (nullHandler) Background(context.Context) bool                         { return false }
func (nullHandler) Close()                                                  {}

// BenchmarkTransportOnly is one request through reader, worker and writer
// over OS pipes with a handler that does nothing: the transport's own cost
// above the framed echo floor (see package ide's BenchmarkFramedEchoFloor).
func BenchmarkTransportOnly(b *testing.B) {
	sr, cw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	cr, sw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cw.Close(); sr.Close(); sw.Close(); cr.Close() })
	cfg := testConfig(nullHandler{}, io.Discard)
	cfg.Limits.MaxIDLength = 64
	srv := NewServer(cfg)
	go srv.Run(sr, sw)
	fr := NewFrameReader(cr, 8192, 1<<20)
	if _, err := cw.Write(AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`))); err != nil {
		b.Fatal(err)
	}
	if _, err := fr.ReadFrame(); err != nil {
		b.Fatal(err)
	}
	req := AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":"r","method":"metadata/root","params":{"sessionId":"s1","projectId":"p1","generation":"0"}}`))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := cw.Write(req); err != nil {
			b.Fatal(err)
		}
		if _, err := fr.ReadFrame(); err != nil {
			b.Fatal(err)
		}
	}
}
