// Package errdetail is what the data of an error response says in the
// contracts the runtimes serve (the ErrorDetail of AiControl and of the
// eska IDE API): why the request failed and, for a value refused, its
// JSON Pointer within params. The message beside it is always the error
// table's literal for the code, so clients that match it keep working;
// the detail carries what was wrong with this request.
//
// Each contract generates its own ErrorDetail type with these two fields;
// a Detail converts to either (aicontrol.ErrorDetail(d),
// ide.ErrorDetail(d)), so the runtimes build it in one way.
package errdetail

import (
	"errors"

	"github.com/contractkit/contractkit/runtime/genrt"
)

// Detail is the data of an error response.
type Detail struct {
	Pointer *string // the failing value within params; nil when no one value failed
	Reason  string  // in English, for logs and people; clients do not branch on it
}

// Of is the detail of err: a value the contract's decoder refused
// (genrt.ValidationError, also wrapped) gives its pointer and message,
// any other error its text.
func Of(err error) Detail {
	var ve *genrt.ValidationError
	if errors.As(err, &ve) {
		return At(ve.Pointer, ve.Message)
	}
	return Detail{Reason: err.Error()}
}

// At is the detail of the value at pointer, refused for reason: a
// handler's own check of params answers as the decoder's do.
func At(pointer, reason string) Detail {
	return Detail{Pointer: &pointer, Reason: reason}
}
