package agui

import (
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// The kind table finds every event of the contract at its index, and no
// other name: not a name that differs in one byte, in case or in length,
// nor one that shares the bytes the table hashes.
func TestEventKinds(t *testing.T) {
	t.Parallel()
	for want, e := range contract.Events {
		if got, ok := eventKinds.lookup(e.Name); !ok || got != want {
			t.Errorf("%s: kind %d %v, want %d", e.Name, got, ok, want)
		}
		n := len(e.Name)
		near := []string{
			strings.ToLower(e.Name),
			e.Name + "_",
			e.Name[:n-1],
			e.Name[:1] + strings.Repeat("X", n-2) + e.Name[n-1:], // the same length, first and last byte
			e.Name[:n/2] + "_" + e.Name[n/2+1:],                  // one hashed byte changed
		}
		if n > 3 {
			near = append(near, e.Name[:1]+"Q"+e.Name[2:]) // one byte the hash skips changed
		}
		for _, name := range near {
			if eventNames[name] {
				continue
			}
			if k, ok := eventKinds.lookup(name); ok {
				t.Errorf("%q is found as kind %d (%s)", name, k, contract.Events[k].Name)
			}
		}
	}
	for _, name := range []string{"", "X", "CUSTOM ", " RAW"} {
		if k, ok := eventKinds.lookup(name); ok {
			t.Errorf("%q is found as kind %d", name, k)
		}
	}
}
