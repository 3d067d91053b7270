//go:build !aicontrol_disabled

package bridge

import (
	"strings"
	"testing"

	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// The densest lines on either side of overValueLimitBytes: the longest
// line parsed without a validation first holds no more than the value
// limit allows, and the same answers come from both sides, the value limit
// at the limit and one past it included.
func TestValidatedFirstThreshold(t *testing.T) {
	const n = aicontrol.MaxValuesPerLine
	zeros := func(k int) string { return "[" + strings.TrimSuffix(strings.Repeat("0,", k), ",") + "]" }
	notObject := newError(aicontrol.CodeInvalidRequest, "request is not a JSON object", nil)
	for _, c := range []struct {
		name   string
		line   string
		atOnce bool // shorter than overValueLimitBytes
		want   *rpcError
	}{
		// An array and n-1 zeros: n values in 2n-1 bytes, parsed at once.
		{"limit, parsed", zeros(n - 1), true, notObject},
		// The same values and a space: validated first, then parsed.
		{"limit, validated first", zeros(n-1) + " ", false, notObject},
		// One value more needs 2n+1 bytes, so it is always validated first.
		{"limit+1", zeros(n), false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var a strictjson.Arena
			_, rerr := decodeEnvelope(&a, []byte(c.line))
			if rerr == nil {
				t.Fatal("envelope accepted")
			}
			parsedAtOnce := len(c.line) < overValueLimitBytes
			reason := ""
			if rerr.detail != nil {
				reason = rerr.detail.Reason
			}
			t.Logf("%d bytes, parsed at once: %v: %d %s: %s", len(c.line), parsedAtOnce, rerr.code, rerr.message(), reason)
			if rerr.message() != "Invalid request" {
				t.Errorf("message %q, want the table's literal", rerr.message())
			}
			if c.want != nil && (rerr.code != c.want.code || reason != c.want.detail.Reason) {
				t.Errorf("got %d %q, want %d %q", rerr.code, reason, c.want.code, c.want.detail.Reason)
			}
			if c.want == nil && (rerr.code != aicontrol.CodeInvalidRequest || !strings.Contains(reason, "values")) {
				t.Errorf("got %d %q, want the value limit's invalid request", rerr.code, reason)
			}
			if parsedAtOnce != c.atOnce {
				t.Errorf("line of %d bytes on the wrong side of %d", len(c.line), overValueLimitBytes)
			}
		})
	}
}
