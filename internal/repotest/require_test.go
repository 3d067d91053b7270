package repotest

import (
	"fmt"
	"strings"
	"testing"
)

// recorder stands in for a test: it records how MissingPart ended it.
type recorder struct {
	testing.TB
	how, msg string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.how, r.msg = "fail", fmt.Sprintf(format, args...)
}
func (r *recorder) Skipf(format string, args ...any) {
	r.how, r.msg = "skip", fmt.Sprintf(format, args...)
}

// A missing part skips the test, unless RequirePartsEnv is "1" (as in CI):
// then it fails it, naming the variable.
func TestMissingPart(t *testing.T) {
	for env, want := range map[string]string{"": "skip", "0": "skip", "1": "fail"} {
		t.Setenv(RequirePartsEnv, env)
		r := &recorder{}
		MissingPart(r, "node is not installed: %s", "make ide-node")
		if r.how != want || !strings.HasPrefix(r.msg, "node is not installed: make ide-node") {
			t.Errorf("%s=%q: %s %q, want %s", RequirePartsEnv, env, r.how, r.msg, want)
		}
		if want == "fail" && !strings.Contains(r.msg, RequirePartsEnv+"=1") {
			t.Errorf("the failure does not name %s: %q", RequirePartsEnv, r.msg)
		}
	}
}
