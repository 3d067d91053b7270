//go:build !race && !aicontrol_disabled

// The race detector multiplies memory use, so this bound is checked in a
// build without it: make test runs it in a second, non-race step.

package bridge

import (
	"bufio"
	"net"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractkit/contractkit/generated/aicontrol"
)

// heapBound is what 16 hostile peers may make the listener's heap grow to.
const heapBound = 64 << 20

// heapObjects reads the bytes of heap objects, live or not yet swept.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// Sixteen peers sending megabyte lines of zeros in a loop keep the heap
// under 64 MiB, and it returns to its baseline once they close: strangers
// on a listener with a token are cut off at the pre-auth line limit, and
// on a tokenless listener every line is refused at the value limit
// without a tree being built.
//
//contract:proves ai-control-protocol.security.pre-auth-bounds ai-control-protocol.wire.value-limit
func TestHostilePeersHeap(t *testing.T) {
	zeros := []byte("[" + strings.Repeat("0,", (aicontrol.MaxLineBytes-3)/2) + "0]\n")
	if len(zeros)-1 > aicontrol.MaxLineBytes {
		t.Fatalf("hostile line of %d bytes", len(zeros))
	}
	for _, c := range []struct {
		name      string
		cfg       Config
		reconnect bool // the listener closes after each line
	}{
		{"unauthenticated", Config{Token: testToken}, true},
		{"tokenless", Config{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := start(t, c.cfg)
			runtime.GC()
			runtime.GC()
			baseline := heapObjects()

			var peak atomic.Uint64
			stop := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				for {
					if h := heapObjects(); h > peak.Load() {
						peak.Store(h)
					}
					select {
					case <-stop:
						return
					case <-time.After(time.Millisecond):
					}
				}
			}()

			const peers, lines = 16, 12
			var answered atomic.Int64
			var wg sync.WaitGroup
			for p := 0; p < peers; p++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var conn net.Conn
					var br *bufio.Reader
					for i := 0; i < lines; i++ {
						if conn == nil {
							var err error
							if conn, err = net.DialTimeout("tcp", s.Addr().String(), 5*time.Second); err != nil {
								t.Error(err)
								return
							}
							_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
							br = bufio.NewReader(conn)
						}
						_, _ = conn.Write(zeros) // the listener may close before it has read it all
						if line, err := br.ReadSlice('\n'); err == nil && strings.Contains(string(line), `"code":-32600`) {
							answered.Add(1)
						}
						if c.reconnect {
							conn.Close()
							conn = nil
						}
					}
					if conn != nil {
						conn.Close()
					}
				}()
			}
			wg.Wait()
			close(stop)
			<-sampled
			if !eventually(func() bool { return s.openConns() == 0 }) {
				t.Fatal("connections still open after the peers closed")
			}
			runtime.GC()
			runtime.GC()
			after := heapObjects()
			t.Logf("%d of %d lines answered with -32600; heap: baseline %.1f MiB, peak %.1f MiB, after %.1f MiB",
				answered.Load(), peers*lines, mib(baseline), mib(peak.Load()), mib(after))
			if answered.Load() < peers*lines/2 {
				t.Errorf("only %d of %d hostile lines were answered: the peers did not reach the listener", answered.Load(), peers*lines)
			}
			if peak.Load() > heapBound {
				t.Errorf("peak heap %.1f MiB, bound %.0f MiB", mib(peak.Load()), mib(heapBound))
			}
			if after > baseline+4<<20 {
				t.Errorf("heap after the peers closed %.1f MiB, baseline %.1f MiB", mib(after), mib(baseline))
			}
		})
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
