package repotest

import (
	"os"
	"testing"
)

// RequirePartsEnv names the environment variable that turns the absence
// of a real part into a failure. .ci/run sets it: CI installs every peer
// and has ../shared beside the clone, so there a skip would report a check
// that never ran as passed.
const RequirePartsEnv = "CONTRACTKIT_REQUIRE_PARTS"

// MissingPart is called by a test whose real part is absent: a peer that
// a make target installs (Node packages, python3) or the shared corpora.
// It skips the test with the message, or fails it when RequirePartsEnv is
// "1".
func MissingPart(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv(RequirePartsEnv) == "1" {
		t.Fatalf(format+" ("+RequirePartsEnv+"=1: every part must be present)", args...)
		return
	}
	t.Skipf(format, args...)
}
