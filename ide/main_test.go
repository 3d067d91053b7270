package ide

import (
	"os"
	"testing"
)

// The disk cache signs its entries with a key kept in the user's cache
// directory; the tests keep theirs in a temporary one.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "eska-cache-home")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
