package ide

import (
	"io"
	"os"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/rpc"
)

// The request both benchmarks carry: a metadata/root, which this build
// answers with unknown_session after decoding its params.
var benchRequest = rpc.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":"r","method":"metadata/root","params":{"sessionId":"s1","projectId":"p1","generation":"0"}}`))

func pipes(b *testing.B) (cr, sr, sw, cw *os.File) {
	b.Helper()
	sr, cw, err := os.Pipe() // client writes, server reads
	if err != nil {
		b.Fatal(err)
	}
	cr, sw, err = os.Pipe() // server writes, client reads
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cw.Close(); sr.Close(); sw.Close(); cr.Close() })
	return cr, sr, sw, cw
}

// BenchmarkFramedEchoFloor is the floor: a bare loop that reads one
// Content-Length frame from a pipe and writes it back, with the same
// frame reader, over OS pipes like a stdio process.
func BenchmarkFramedEchoFloor(b *testing.B) {
	cr, sr, sw, cw := pipes(b)
	go func() {
		fr := rpc.NewFrameReader(sr, gen.MaxHeaderBytes, gen.MaxRequestBytes)
		var out []byte
		for {
			body, err := fr.ReadFrame()
			if err != nil {
				return
			}
			out = rpc.AppendFrame(out[:0], body)
			if _, err := sw.Write(out); err != nil {
				return
			}
		}
	}()
	roundTrips(b, cr, cw)
}

// BenchmarkRoundTrip is one request through the whole transport (reader,
// worker, writer, generated dispatch and decoders) over OS pipes.
func BenchmarkRoundTrip(b *testing.B) {
	cr, sr, sw, cw := pipes(b)
	var srv *rpc.Server
	h := NewServer("bench", func(c string) { srv.Diag(c) })
	srv = rpc.NewServer(h.Config(io.Discard))
	go srv.Run(sr, sw)
	init := rpc.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"apiVersion":{"major":1,"minor":11},"client":{"name":"bench","version":"1"}}}`))
	if _, err := cw.Write(init); err != nil {
		b.Fatal(err)
	}
	fr := rpc.NewFrameReader(cr, gen.MaxHeaderBytes, gen.MaxResponseBytes)
	if _, err := fr.ReadFrame(); err != nil {
		b.Fatal(err)
	}
	roundTripsWith(b, fr, cw)
}

func roundTrips(b *testing.B, cr io.Reader, cw io.Writer) {
	roundTripsWith(b, rpc.NewFrameReader(cr, gen.MaxHeaderBytes, gen.MaxResponseBytes), cw)
}

func roundTripsWith(b *testing.B, fr *rpc.FrameReader, cw io.Writer) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRequest)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := cw.Write(benchRequest); err != nil {
			b.Fatal(err)
		}
		if _, err := fr.ReadFrame(); err != nil {
			b.Fatal(err)
		}
	}
}
