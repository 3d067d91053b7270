// Package witness finds, for a change of the values a contract allows, a
// concrete message that shows it: one the baseline's generated JSON Schema
// accepts and the current one rejects (a narrowing), the reverse (a
// widening), or one both accept (a change receivers tolerate). Messages are
// built from the specs' own examples, changed where the change is, and
// each candidate is checked against both schemas before it is returned.
package witness

import "encoding/json"

// Op is how a probe changes a value to show a change.
type Op uint8

const (
	// OpNone: the change has no value to show.
	OpNone Op = iota
	// OpOmit leaves Field out.
	OpOmit
	// OpNull sets Field to null.
	OpNull
	// OpMember adds Field with a valid value of its declared type (at Side).
	OpMember
	// OpUnknown adds a member the type does not declare.
	OpUnknown
	// OpSet sets the value (or Field) to one of Values.
	OpSet
	// OpLength sets the string value (or Field) to one with one of Counts
	// characters, matching the pattern of Side when there is one.
	OpLength
	// OpPattern sets the string value (or Field) to one that one side's
	// pattern accepts and the other side's rejects.
	OpPattern
	// OpItems sets the array value (or Field) to one with one of Counts items.
	OpItems
	// OpVariant sets the value (or Field) to a value of the union variant
	// Tag, as Side declares it.
	OpVariant
	// OpType sets Field (or the value) to a valid value of its type at Side.
	OpType
	// OpExactly sets none, or two, of Fields.
	OpExactly
)

// Side names a revision.
type Side uint8

const (
	Baseline Side = iota
	Current
)

// Want is the verdict of the two schemas a witness must have.
type Want uint8

const (
	// Narrows: the baseline accepts the witness and the current spec rejects it.
	Narrows Want = 1 << iota
	// Widens: the current spec accepts the witness and the baseline rejects it.
	Widens
	// Either: a change that both narrows and widens (a replaced pattern);
	// either kind of witness shows it.
	Either = Narrows | Widens
	// Same: both accept it; the change is one receivers tolerate.
	Same Want = 8
)

// Probe describes a change of the values of one type.
type Probe struct {
	// Type is the id of the type whose values changed (ids survive renames).
	Type string
	// Field is the member the change is in, "" for the type's own values.
	Field  string
	Op     Op
	Side   Side
	Values []json.RawMessage
	Counts []int
	Tag    string
	Fields []string
	Want   Want
	// Constant, for a change of a limit constant, names it: the witness is
	// built at a bound that references it.
	Constant string
}

// IsZero reports whether there is nothing to probe.
func (p Probe) IsZero() bool { return p.Op == OpNone }

// Witness is a message that shows a change.
type Witness struct {
	// Message names the message the witness is, such as "method get
	// params", or the type when no message carries it.
	Message string
	// Type is the name of the message's type at the current revision (or
	// at the baseline when it is gone).
	Type string
	// JSON is the message, compact.
	JSON string
	// Baseline and Current say whether each revision's schema accepts it.
	Baseline, Current bool
}

// Found reports whether there is a witness.
func (w Witness) Found() bool { return w.JSON != "" }

// Verdict says in words what the two schemas make of the witness.
func (w Witness) Verdict() string {
	word := func(ok bool) string {
		if ok {
			return "accepts"
		}
		return "rejects"
	}
	return "the baseline " + word(w.Baseline) + " it, the current spec " + word(w.Current) + " it"
}
