package metadata

import (
	"os"
	"testing"
)

// The disk cache signs its entries with a key kept in the user's cache
// directory; the tests keep theirs in a temporary one.
func TestMain(m *testing.M) {
	os.Exit(withCacheHome(m.Run))
}

func withCacheHome(run func() int) int {
	dir, err := os.MkdirTemp("", "eska-cache-home")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	os.Setenv("XDG_CACHE_HOME", dir)
	return run()
}
