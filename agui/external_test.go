package agui

import (
	"bytes"
	"errors"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// A refusal by the caller's own input rule has the shape of a refusal by
// the checker's: compare it with CheckValues refusing a cycle.
func TestRejectInput(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	want, err := CheckValues([]any{map[string]any{"type": contract.EventStateSnapshot, "snapshot": cyclic}}, Options{Source: "v"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := RejectInput(want.Findings[0], Options{Source: "v"})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := got.RenderJSON()
	b, _ := want.RenderJSON()
	if !bytes.Equal(a, b) || got.Accepted {
		t.Errorf("RejectInput:\n%s\nCheckValues:\n%s", a, b)
	}
	var ie *InputError
	if _, err := RejectInput(want.Findings[0], Options{Profile: "loose"}); !errors.As(err, &ie) {
		t.Errorf("unknown profile: %v", err)
	}
}
