package repotest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// builds holds the binaries Build made in this test process, so that a
// command is compiled and linked once per run instead of once per test.
var builds struct {
	sync.Mutex
	dir   string
	paths map[string]string
}

// Build compiles a command of this module (pkg is its path from the
// repository root, e.g. "cmd/eska") with the given build tags, once per
// test process, and returns the binary's path. A package that uses it
// calls RemoveBuilds from its TestMain after m.Run.
func Build(t testing.TB, pkg string, tags ...string) string {
	t.Helper()
	key := pkg + " " + strings.Join(tags, ",")
	builds.Lock()
	defer builds.Unlock()
	if p, ok := builds.paths[key]; ok {
		return p
	}
	if builds.dir == "" {
		dir, err := os.MkdirTemp("", "repotest-build")
		if err != nil {
			t.Fatal(err)
		}
		builds.dir, builds.paths = dir, map[string]string{}
	}
	out := filepath.Join(builds.dir, strconv.Itoa(len(builds.paths)), filepath.Base(pkg))
	args := []string{"build", "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, "./"+filepath.ToSlash(pkg))...)
	cmd.Dir = Root(t)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	builds.paths[key] = out
	return out
}

// RemoveBuilds deletes what Build made.
func RemoveBuilds() {
	builds.Lock()
	defer builds.Unlock()
	if builds.dir != "" {
		os.RemoveAll(builds.dir)
		builds.dir, builds.paths = "", nil
	}
}
