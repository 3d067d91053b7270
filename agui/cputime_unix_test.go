//go:build unix

package agui_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used so far, user and
// system, as the kernel counts it; ok is false where it cannot be read.
// The loopback benchmark divides it by the wall time: the execution
// trace counts a goroutine in a system call as running even while its
// thread waits in the kernel, so only the kernel's count tells how many
// cores the live path keeps busy.
func processCPU() (d time.Duration, ok bool) {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0, false
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()), true
}
