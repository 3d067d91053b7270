package apicheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/repotest"
)

// apicheck runs the script on the repository at root against base ("" is
// the default baseline) and returns its exit code and output.
func apicheck(t *testing.T, root, base string) (int, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		repotest.MissingPart(t, "git is not on PATH")
	}
	args := []string{"--root", root}
	if base != "" {
		args = append(args, base)
	}
	cmd := exec.Command(filepath.Join(repotest.Root(t), "scripts", "apicheck.sh"), args...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	switch code {
	case 2:
		repotest.MissingPart(t, "apicheck could not run (apidiff comes through the module proxy):\n%s", out)
	case 3:
		repotest.MissingPart(t, "apicheck has no baseline to compare with (a clone without history):\n%s", out)
	}
	return code, string(out)
}

// The runtime packages of this tree are compatible with the merge-base.
func TestRuntimeAPICompatible(t *testing.T) {
	root := repotest.Root(t)
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		repotest.MissingPart(t, "%s is not a git checkout: no merge-base to compare with", root)
	}
	code, out := apicheck(t, root, "")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// On a copy of the runtime in a repository of its own, the check passes an
// addition and fails a removal and a changed signature, naming each.
func TestDetectsBreak(t *testing.T) {
	m := repotest.MapFS(t)
	for p := range m {
		if p != "go.mod" && p != "go.sum" && !strings.HasPrefix(p, "runtime/") {
			delete(m, p)
		}
	}
	dir := repotest.CopyTo(t, m)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "base")
	edit := func(file, old, new string) {
		t.Helper()
		p := filepath.Join(dir, file)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), old) {
			t.Fatalf("%s lacks %q", file, old)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// An addition is compatible.
	os.WriteFile(filepath.Join(dir, "runtime/genrt/added.go"), []byte("package genrt\n\n// Added is new.\nfunc Added() int { return 1 }\n"), 0o644)
	if code, out := apicheck(t, dir, "HEAD"); code != 0 || !strings.Contains(out, "runtime/genrt compatible") {
		t.Errorf("an addition: exit %d\n%s", code, out)
	}
	// A removed function and a changed signature are not.
	edit("runtime/genrt/genrt.go", "func CompareVersions(", "func compareVersions(")
	edit("runtime/strictjson/write.go", "func AppendUint(b []byte, n uint64) []byte { return strconv.AppendUint(b, n, 10) }",
		"func AppendUint(b []byte, n uint32) []byte { return strconv.AppendUint(b, uint64(n), 10) }")
	code, out := apicheck(t, dir, "HEAD")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{"runtime/genrt changed incompatibly", "CompareVersions: removed", "runtime/strictjson changed incompatibly", "AppendUint: changed from"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
