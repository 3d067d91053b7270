package contractdiff

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sort"

	"github.com/contractkit/contractkit/internal/contractdiff/witness"
	"github.com/contractkit/contractkit/internal/spec"
)

// Finding is one change between a baseline and the current spec, named by
// the catalog rule it matches.
type Finding struct {
	// Domain is the id of the domain the change is in.
	Domain string
	// Rule is the id of the catalog rule; Severity is that rule's severity.
	Rule     string
	Severity Severity
	// Target names what changed: an entry id, or an entry id followed by a
	// path inside the entry in which array positions are replaced by names
	// ("demo.type.get-params/fields/name/constraints/maxLength"), so that it
	// stays the same when a spec is reordered or reformatted. Changes of
	// the domain header start with the domain id ("demo/version").
	Target string
	// Before and After are the changed value at the baseline and now, as
	// compact JSON or a short signature of a removed or added element; ""
	// when the value is absent on that side.
	Before, After string
	// Message says in one line what changed, in English.
	Message string
	// Direction is who sends the value: "client-sent", "server-sent" or
	// "both"; "" when the change is not about a value on the wire.
	Direction string
	// Messages are the messages whose values contain the changed value
	// ("method get params", "event changed"); none for a change that is not
	// about a value. A change of a type that several types include or
	// use is reported once, at the type, listing them all.
	Messages []string
	// Witness is a message that shows the change, checked against the
	// generated JSON Schemas of both revisions (see package witness);
	// zero when the change is not one of the values a message may hold.
	Witness witness.Witness
	// Probe says how to build the witness; Witnesses fills Witness from it.
	Probe witness.Probe
	// Overridden holds the reason of the severity policy entry that set
	// Severity, "" when the catalog's severity stands.
	Overridden string
	// BaselineStability is the stability of the changed element at the
	// baseline ("" for an element that did not exist). A breaking change
	// of an internal element never blocks.
	BaselineStability spec.Stability
	// File, Pointer and Line locate the change in the current spec file (the
	// baseline file for a removed domain): Pointer is the JSON pointer of
	// the changed value, or of its nearest container when it was removed.
	File    string
	Pointer string
	Line    int
	// BaselinePointer locates a removed value in the baseline file, so that
	// a report can point at the nearest line of the current file that the
	// diff of the two shows (Line is that line: see removalLine).
	BaselinePointer string
}

// Blocking reports whether the finding blocks without a disposition: a
// breaking change of an element that was not internal at the baseline.
func (f *Finding) Blocking() bool {
	return f.Severity == Breaking && f.BaselineStability != spec.Internal
}

// ChangeID is the finding's stable fingerprint: a hash of the domain, rule,
// target and the values before and after. A disposition names it, so the
// disposition stops matching as soon as the change itself is different.
func (f *Finding) ChangeID() string {
	return ChangeID(f.Domain, f.Rule, f.Target, f.Before, f.After)
}

// ChangeIDLength is the number of hex digits of a change id.
const ChangeIDLength = 32

// ChangeID computes a change id from its parts: the first 128 bits, in hex,
// of the sha256 of the parts, each preceded by its length so that no two
// different lists of parts hash the same bytes.
func ChangeID(domain, rule, target, before, after string) string {
	h := sha256.New()
	var n [8]byte
	for _, s := range []string{domain, rule, target, before, after} {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))[:ChangeIDLength]
}

// SortFindings orders findings by domain, severity, target and rule, the
// order in which reports list them.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := &fs[i], &fs[j]
		if a.Domain != b.Domain {
			return a.Domain < b.Domain
		}
		if a.Severity != b.Severity {
			return a.Severity.Rank() < b.Severity.Rank()
		}
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if a.Before != b.Before {
			return a.Before < b.Before
		}
		return a.After < b.After
	})
}
