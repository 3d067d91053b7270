// Package cputime reads the processor time the process has used, for the
// benchmarks that report it beside the wall time: on a shared machine, or
// where a goroutine waits in the kernel while a trace counts it running,
// the kernel's count says more of the work than the wall clock does.
package cputime

import "time"

// Process is the processor time the process has used so far, user and
// system together, as the kernel counts it; ok is false where it cannot
// be read (d is then 0).
func Process() (d time.Duration, ok bool) { return process() }
