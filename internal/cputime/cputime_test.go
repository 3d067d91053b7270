//go:build unix

package cputime

import (
	"testing"
	"time"
)

// The time is read, never goes back, and grows while the process works:
// a loop that keeps a core busy passes a clock tick of it within seconds
// (the kernel counts in ticks, 10 ms or less), however loaded the machine.
func TestProcessGrowsWithWork(t *testing.T) {
	d0, ok := Process()
	if !ok || d0 <= 0 {
		t.Fatalf("Process() = %v, %v: a process that has run has used some time", d0, ok)
	}
	deadline := time.Now().Add(20 * time.Second)
	x := uint64(1)
	for {
		for i := 0; i < 1_000_000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		d, ok := Process()
		if !ok || d < d0 {
			t.Fatalf("Process() = %v, %v after %v", d, ok, d0)
		}
		if d > d0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Process() stayed at %v through 20 s of work (%d)", d0, x)
		}
	}
}
