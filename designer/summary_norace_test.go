//go:build !race

package designer

import (
	"slices"
	"testing"
)

// The exhaustive comparison below parses some 200,000 inputs in one
// goroutine: the race detector slows it down many times and can find
// nothing in it. make test runs it without the detector, after the race
// pass (scripts/norace-tests.sh).

// TestParseDescriptorSummaryMutations compares the two on every prefix of
// the variations and on each with one byte replaced by a byte that
// matters to XML, so that errors arise at every place, kept or skipped.
func TestParseDescriptorSummaryMutations(t *testing.T) {
	n := 0
	repl := []byte{'<', '>', '&', '/', '"', ' ', 'x', 0xff, 0x01}
	lim := Limits{MaxBytes: 1 << 20, MaxDepth: 6}
	for i, s := range append(slices.Clone(summaryVariations), string(syntheticDescriptor(1))) {
		data := []byte(s)
		for k := 0; k <= len(data); k++ {
			n++
			if d := summaryDiff(data[:k:k], lim); d != "" {
				t.Fatalf("variation %d cut at %d %q: %s", i, k, data[:k], d)
			}
		}
		buf := make([]byte, len(data))
		for k := range data {
			for _, c := range repl {
				if data[k] == c {
					continue
				}
				copy(buf, data)
				buf[k] = c
				n++
				if d := summaryDiff(buf, lim); d != "" {
					t.Fatalf("variation %d with %q at %d %q: %s", i, c, k, buf, d)
				}
			}
		}
	}
	t.Logf("%d comparisons", n)
}
