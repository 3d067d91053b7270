// Package machine describes the machine a benchmark tool runs on, for the
// lines it prints beside its figures.
package machine

import (
	"os"
	"runtime"
	"strings"
)

// LoadAverage returns the 1-, 5- and 15-minute load averages from
// /proc/loadavg, or "unknown" where there is no such file.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// CPUModel returns the processor's model name from /proc/cpuinfo, or the
// architecture where there is none.
func CPUModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
