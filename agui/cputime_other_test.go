//go:build !unix

package agui_test

import "time"

// processCPU cannot be read here: the loopback benchmark leaves out the
// cores it reports.
func processCPU() (time.Duration, bool) { return 0, false }
