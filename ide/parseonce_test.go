package ide

import (
	"runtime"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/ide/rpc"
)

// TestParamsParsedOnce proves that a request's params are parsed once, with
// the envelope, and decoded from that tree: the bytes the server allocates
// per request grow with the size of the params by the frame buffer and the
// one parse's copy of the body (about 2 bytes per byte), not by a second
// parse of the params (about 3 bytes per byte). The slope between two
// sizes of an extra member cancels what every request costs.
func TestParamsParsedOnce(t *testing.T) {
	s := open(t)
	if resp := s.call(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"apiVersion":{"major":1,"minor":0},"client":{"name":"t","version":"1"}}}`); !strings.Contains(resp, `"result"`) {
		t.Fatalf("initialize: %.300s", resp)
	}
	const small, large = 64 << 10, 512 << 10
	perByte := float64(allocatedPerCall(t, s, large)-allocatedPerCall(t, s, small)) / float64(large-small)
	t.Logf("bytes allocated per byte of params: %.2f", perByte)
	if perByte > 2.5 {
		t.Errorf("the server allocates %.2f bytes per byte of params: they are parsed twice", perByte)
	}
}

// allocatedPerCall is the mean bytes allocated to answer one
// metadata/root whose params carry an undeclared member of pad bytes: the
// strict decoder refuses it with invalid params, after reading it.
func allocatedPerCall(t *testing.T, s *session, pad int) uint64 {
	t.Helper()
	frame := rpc.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"metadata/root","params":{"sessionId":"s","projectId":"p","generation":"0","pad":"`+strings.Repeat("x", pad)+`"}}`))
	call := func() {
		if _, err := s.in.Write(frame); err != nil {
			t.Fatal(err)
		}
		if resp := <-s.frames; !strings.HasPrefix(resp, `{"jsonrpc":"2.0","id":1,"error"`) {
			t.Fatalf("want an error answer, got %.300s", resp)
		}
	}
	call() // warm the pools and buffers
	const n = 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		call()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / n
}
