package agui

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// Profile is one profile of the contract: the events it accepts and the
// rules that apply under it. A check enforces a rule only when its profile
// lists it, so what a profile does is read from the spec, not from here.
type Profile struct {
	info contract.ProfileInfo
	// accepts says, by event kind (see eventKinds), whether the profile
	// accepts the event: the checker looks the kind up once per event
	// and reads here and in kindDirects by it.
	accepts []bool
	// applies says, by rule number (see ruleNumbers), whether the rule
	// applies under the profile.
	applies []bool
}

// DefaultProfile is the profile Check uses when Options names none: the
// limited stand.
const DefaultProfile = contract.ProfileStand

// ProfileNames lists the names of every profile of the contract.
func ProfileNames() []string {
	var out []string
	for _, p := range contract.Profiles {
		out = append(out, p.Name)
	}
	return out
}

// LookupProfile returns the profile with the given name. Profiles do not
// change, so every lookup of a name returns the same one.
func LookupProfile(name string) (*Profile, error) {
	if p, ok := profiles()[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("unknown profile %q (known: %s)", name, strings.Join(ProfileNames(), ", "))
}

// profiles holds the profiles of the contract by name, made once.
var profiles = sync.OnceValue(func() map[string]*Profile {
	out := map[string]*Profile{}
	for _, info := range contract.Profiles {
		out[info.Name] = newProfile(info)
	}
	return out
})

// newProfile makes the profile info describes.
func newProfile(info contract.ProfileInfo) *Profile {
	p := &Profile{info: info, accepts: make([]bool, len(contract.Events)), applies: make([]bool, len(contract.Rules))}
	for _, e := range info.Events {
		if k, ok := eventKinds.lookup(e); ok {
			p.accepts[k] = true
		}
	}
	for _, r := range info.Rules {
		if k, ok := ruleNumbers.lookup(r); ok {
			p.applies[k] = true
		}
	}
	return p
}

// Name is the profile's name, as users select it.
func (p *Profile) Name() string { return p.info.Name }

// ID is the profile's stable entry id.
func (p *Profile) ID() string { return p.info.ID }

// Revision is the revision of the document the profile follows, or "".
func (p *Profile) Revision() string { return p.info.Revision }

// Events lists the wire names of the events the profile accepts.
func (p *Profile) Events() []string { return slices.Clone(p.info.Events) }

// Rules lists the ids of the rules that apply under the profile.
func (p *Profile) Rules() []string { return slices.Clone(p.info.Rules) }

// Has reports whether the rule with the given id applies under the profile.
func (p *Profile) Has(rule string) bool {
	if k, ok := ruleNumbers.lookup(rule); ok {
		return p.applies[k]
	}
	return false // not a rule of the contract: a profile lists none
}

// Accepts reports whether the profile accepts events of the given type.
func (p *Profile) Accepts(eventType string) bool {
	k, ok := eventKinds.lookup(eventType)
	return ok && p.accepts[k]
}
