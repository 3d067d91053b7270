package errdetail

import (
	"errors"
	"fmt"
	"testing"

	aicontrol "github.com/contractkit/contractkit/generated/aicontrol"
	ide "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/runtime/genrt"
)

// A refused value gives its pointer and message, wrapped or not; any
// other error gives its text and no pointer.
func TestOf(t *testing.T) {
	ve := &genrt.ValidationError{Pointer: "/afterSeq", Message: "expected an integer, got a string"}
	for _, err := range []error{ve, fmt.Errorf("params: %w", ve)} {
		d := Of(err)
		if d.Pointer == nil || *d.Pointer != "/afterSeq" || d.Reason != "expected an integer, got a string" {
			t.Errorf("Of(%v) = %v %q", err, d.Pointer, d.Reason)
		}
	}
	if d := Of(ve); d.Pointer == &ve.Pointer {
		t.Error("the detail shares its pointer with the error")
	}
	if d := Of(errors.New("unknown method")); d.Pointer != nil || d.Reason != "unknown method" {
		t.Errorf("a plain error: %v %q", d.Pointer, d.Reason)
	}
	// The root pointer "" is a pointer: params themselves were refused.
	if d := At("", "params must be an object"); d.Pointer == nil || *d.Pointer != "" {
		t.Errorf("At(\"\") has no pointer")
	}
}

// A detail is either contract's ErrorDetail, field for field, and
// encodes as the contract says.
func TestConverts(t *testing.T) {
	d := At("/limit", "501 is above the maximum 500")
	a, i := aicontrol.ErrorDetail(d), ide.ErrorDetail(d)
	for _, m := range []interface{ MarshalJSON() ([]byte, error) }{a, i} {
		b, err := m.MarshalJSON()
		if err != nil || string(b) != `{"pointer":"/limit","reason":"501 is above the maximum 500"}` {
			t.Errorf("%T encodes as %s (%v)", m, b, err)
		}
	}
}
