// Package supportverdict decides what the vendor's support rules
// (designer.Support, read from Ext/ParentConfigurations.bin) say of one
// object of an eska project: from the object's chain of owners, its
// support mode, the vendor and the owner whose rule decides, and whether
// it is read-only. It also reads the facts of a descriptor the backend
// builds those chains from.
package supportverdict

import (
	"strings"

	"github.com/contractkit/contractkit/designer"
	gen "github.com/contractkit/contractkit/generated/ide"
)

// Verdict is what support says of one object or file.
type Verdict struct {
	Mode      gen.SupportMode
	Unknown   bool
	Reason    gen.SupportReason
	Supplier  string // the vendor whose rule decides
	Inherited string // the owner whose rule decides, when not the object's own
	ReadOnly  bool
}

// UnknownEntry is the verdict of an object whose ownership cannot be
// known, for the reason given: read-only.
func UnknownEntry(reason gen.SupportReason) Verdict {
	return Verdict{Unknown: true, ReadOnly: true, Reason: reason}
}

// Link is one object of an owner chain, the object itself first.
type Link struct {
	ID        string
	UUID      string            // lower case; "" when it has none
	Predef    bool              // a predefined item: never a rule of its own
	Top       bool              // a top-level object, or the project's root
	Ambiguous bool              // its uuid is carried by more than one object
	Failure   gen.SupportReason // why this link's ownership is unknown
}

// contractModes spells designer's support modes as the contract does;
// made once, not on every rule Decide finds.
var contractModes = map[designer.SupportMode]gen.SupportMode{
	designer.SupportNotEditable: gen.SupportModeNotEditable,
	designer.SupportEditable:    gen.SupportModeEditableWithSupport,
	designer.SupportRemoved:     gen.SupportModeRemovedFromSupport,
}

// Decide gives the verdict for the chain's first object under the rules
// s (nil: no support data) or the failure to read them.
func Decide(s *designer.Support, rulesErr error, chain []Link) Verdict {
	if rulesErr != nil {
		return UnknownEntry(gen.SupportReasonSupportUnreadable)
	}
	for _, l := range chain {
		if l.Failure != "" {
			return UnknownEntry(l.Failure)
		}
	}
	if s == nil || len(s.Vendors) == 0 {
		return Verdict{Mode: gen.SupportModeNotSupported}
	}
	v := Verdict{Mode: gen.SupportModeNotSupported}
	for i, l := range chain {
		if l.Predef {
			continue
		}
		if l.Ambiguous {
			return UnknownEntry(gen.SupportReasonAmbiguous)
		}
		if l.UUID == "" {
			return UnknownEntry(gen.SupportReasonNoUUID)
		}
		if mode, vi, ok := s.Rule(l.UUID); ok {
			v.Mode = contractModes[mode]
			v.Supplier = s.Vendors[vi].ID
			if i > 0 {
				v.Inherited = l.ID
			}
			break
		}
		if l.Top {
			// The project's own object: no vendor's rule reaches it.
			break
		}
	}
	if !s.ChangesAllowed {
		if v.Mode != gen.SupportModeNotSupported {
			v.Mode = gen.SupportModeNotEditable
		}
		v.ReadOnly, v.Reason = true, gen.SupportReasonChangesDisabled
	}
	if v.Mode == gen.SupportModeNotEditable {
		v.ReadOnly = true
	}
	return v
}

// Facts is what support needs of one descriptor: its own object and the
// objects it declares.
type Facts struct {
	Sum      string // of the descriptor's bytes the facts were read from
	Invalid  bool   // not a descriptor of a known kind
	Kind     designer.Kind
	Name     string
	UUID     string            // lower case
	Declared map[string]bool   // "kind:name" of objects with descriptors of their own
	Inline   map[string]string // id relative to the descriptor's object → uuid
	Dups     map[string]bool   // "kind:name" declared more than once
}

// FactsOf reads the facts of a parsed descriptor (nil: unreadable) whose
// bytes have the SHA-256 sum.
func FactsOf(sum string, d *designer.Descriptor) *Facts {
	f := &Facts{Sum: sum, Declared: map[string]bool{}, Inline: map[string]string{}, Dups: map[string]bool{}}
	if d == nil || d.Object == nil {
		f.Invalid = true
		return f
	}
	f.Kind, f.Name, f.UUID = d.Object.Info.Kind, d.Object.Name, strings.ToLower(d.Object.UUID)
	var walk func(prefix string, o *designer.Object)
	walk = func(prefix string, o *designer.Object) {
		for _, c := range o.Children {
			if c.Info == nil {
				continue
			}
			rel := designer.ObjectID(prefix, c.Info.Kind, c.Name)
			if c.Inline != nil {
				f.Inline[rel] = strings.ToLower(c.Inline.UUID)
				walk(rel, c.Inline)
			} else if prefix == "" {
				f.Declared[rel] = true
			}
		}
	}
	walk("", d.Object)
	for _, dg := range d.Diagnostics {
		if dg.Code != designer.DiagDuplicateIdentity {
			continue
		}
		var name, kind string
		for _, kv := range dg.Details {
			switch kv[0] {
			case "name":
				name = kv[1]
			case "kind":
				kind = kv[1]
			}
		}
		f.Dups[designer.ObjectID("", designer.Kind(kind), name)] = true
	}
	return f
}

// InlineHas reports whether the descriptor defines the object seg (an id
// relative to its own object) inline.
func (f *Facts) InlineHas(seg string) bool {
	_, ok := f.Inline[seg]
	return ok
}
