//go:build !race && !aicontrol_disabled

// The race detector drops pooled trees at random, so what a request
// allocates is measured in a build without it: make test runs these in
// its second, non-race step.

package bridge

import (
	"runtime"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/generated/aicontrol"
)

// allocatedBytes is what n calls of f allocate, per call.
func allocatedBytes(n int, f func()) float64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < n; i++ {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// A request's params are decoded from the tree the envelope parse built,
// not parsed again from their text: what handling a request allocates does
// not grow with the size of its params. A second parse copies the params
// it reads (strictjson.Parse makes a string of its input) and builds a
// fresh tree of them, so a 16 KiB member that the method ignores would
// cost 16 KiB more per request; the line's own tree is borrowed from the
// line and lives in reused memory.
func TestParamsParsedOnce(t *testing.T) {
	s := &Server{cfg: Config{}.withDefaults(), state: newState(aicontrol.DefaultMaxQueuedCommands, aicontrol.DefaultMaxEvents)}
	cs := &connState{authorized: true}
	const padBytes = 16 << 10
	pad := strings.Repeat("x", padBytes)
	zeros := strings.TrimSuffix(strings.Repeat("0,", padBytes/16), ",") // a tree of 1,025 values
	for _, c := range []struct{ name, small, large string }{
		{"auth, a long string",
			`{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":"t"}}`,
			`{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":"t","pad":"` + pad + `"}}`},
		{"auth, many values",
			`{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":"t"}}`,
			`{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":"t","pad":[` + zeros + `]}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if len(c.large) >= overValueLimitBytes {
				t.Fatalf("the large line (%d bytes) is validated before its parse; keep it under %d bytes", len(c.large), overValueLimitBytes)
			}
			var out []byte
			run := func(line []byte) func() {
				return func() {
					out = s.handle(out[:0], cs, line)
					if !strings.Contains(string(out), `"authorized":true`) {
						t.Fatalf("answer %s", out)
					}
				}
			}
			small, large := run([]byte(c.small)), run([]byte(c.large))
			large() // the pool's tree grows to the large line once
			// Enough requests that a tree the pool hands out afresh (the
			// goroutine moved to another P) weighs little per request.
			const n = 500
			perSmall := allocatedBytes(n, small)
			perLarge := allocatedBytes(n, large)
			t.Logf("allocated per request: %.0f B with small params, %.0f B with %d more bytes of params", perSmall, perLarge, len(c.large)-len(c.small))
			if perLarge-perSmall > padBytes/4 {
				t.Errorf("params %d bytes longer cost %.0f B more per request: they were parsed again", len(c.large)-len(c.small), perLarge-perSmall)
			}
		})
	}
}
