package agui

import (
	"fmt"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// FileLevel is the Event index of a finding about the record as a whole
// (its size, its shape) rather than about one event.
const FileLevel = -1

// Finding is a rejection or a warning: which event (its index in the
// record, counted from 0, or FileLevel), the JSON pointer of the value
// inside that event ("" for the event itself), the id of the rule the
// record breaks, and a message for people.
type Finding struct {
	Event   int    `json:"event"`
	Pointer string `json:"pointer"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// Where renders the event index and pointer the way reports show them:
// "event 3 at /delta/0/path", or "the record".
func (f Finding) Where() string {
	if f.Event == FileLevel {
		if f.Pointer == "" {
			return "the record"
		}
		return "the record at " + f.Pointer
	}
	if f.Pointer == "" {
		return fmt.Sprintf("event %d", f.Event)
	}
	return fmt.Sprintf("event %d at %s", f.Event, f.Pointer)
}

func (f Finding) String() string {
	return fmt.Sprintf("%s: %s [%s]", f.Where(), f.Message, f.Rule)
}

// RuleTitle returns the English title of a rule of the contract, or "".
func RuleTitle(id string) string {
	for _, r := range contract.Rules {
		if r.ID == id {
			return r.Title
		}
	}
	return ""
}

// fail is a finding that stops the check; the checker's stages return it as
// an error so that the first one ends the run.
type fail struct{ Finding }

func (f *fail) Error() string { return f.Finding.String() }

func failf(event int, ptr, rule, format string, args ...any) *fail {
	return &fail{Finding{Event: event, Pointer: ptr, Rule: rule, Message: fmt.Sprintf(format, args...)}}
}
