package agui

import (
	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// The stand's bounds on a state and on a patch of it, in one place for
// both ways a state arrives: in a record, as the STATE_SNAPSHOT and
// STATE_DELTA events the sequence checker reads, and as Go values handed
// to ApplyPatch. Each check is gated by its rule in the profile and holds
// its rule, its limit and its message, so the two ways cannot come to
// differ; the caller says what the value is called, how its size was
// measured and where the finding points.

// stateBounds checks one state or patch of one event under a profile.
type stateBounds struct {
	p     *Profile
	event int
	ptr   string // the pointer of the value in its event
	what  string // what a message calls the value: "the snapshot", "the patch"
	// measure says how a size was measured: asWritten or asCompact.
	measure string
}

// How the size of a value was measured: the bytes a record writes it in,
// or, for a value handed over in process, those of the compact JSON it
// stands for.
const (
	asWritten = "as the record writes it"
	asCompact = "of compact JSON"
)

// root checks that a state is an object.
func (b stateBounds) root(v *strictjson.Value) error {
	if !b.p.Has(contract.RuleStandStateRoot) || v.Kind == strictjson.Object {
		return nil
	}
	return failf(b.event, b.ptr, contract.RuleStandStateRoot, "the state of the stand is an object; %s is %s", b.what, describeKind(v.Kind))
}

// patchedRoot checks that a patch left a state that is an object.
func (b stateBounds) patchedRoot(v *strictjson.Value) error {
	if !b.p.Has(contract.RuleStandStateRoot) || v.Kind == strictjson.Object {
		return nil
	}
	return failf(b.event, b.ptr, contract.RuleStandStateRoot, "%s would leave a state root that is %s, not an object", b.what, describeKind(v.Kind))
}

// stateBytes checks the size of a state of n bytes.
func (b stateBounds) stateBytes(n int) error {
	if !b.p.Has(contract.RuleStandInitialStateBytes) || n <= contract.LimitInitialStateBytes {
		return nil
	}
	return failf(b.event, b.ptr, contract.RuleStandInitialStateBytes, "%s is %d bytes %s, more than the limit of %d", b.what, n, b.measure, contract.LimitInitialStateBytes)
}

// patchOperations checks the length of a patch of n operations.
func (b stateBounds) patchOperations(n int) error {
	if !b.p.Has(contract.RuleStandPatchOperations) || n <= contract.LimitPatchOperations {
		return nil
	}
	return failf(b.event, b.ptr, contract.RuleStandPatchOperations, "%s holds %d operations, more than the limit of %d", b.what, n, contract.LimitPatchOperations)
}

// patchBytes checks the size of a patch of n bytes.
func (b stateBounds) patchBytes(n int) error {
	if !b.p.Has(contract.RuleStandPatchBytes) || n <= contract.LimitPatchBytes {
		return nil
	}
	return failf(b.event, b.ptr, contract.RuleStandPatchBytes, "%s is %d bytes %s, more than the limit of %d", b.what, n, b.measure, contract.LimitPatchBytes)
}

// statePatchOptions are the operations and the depth a profile allows a
// patch of the state.
func statePatchOptions(p *Profile) patchOptions {
	return patchOptions{copyMove: !p.Has(contract.RuleUnsupportedCopyMove), maxDepth: stateDepth(p)}
}

// memberLevel is the level of a member of an event, which is level 1:
// where a state stands in the STATE_SNAPSHOT that carries it, an
// activity's content in its ACTIVITY_SNAPSHOT, and a patch's list in its
// STATE_DELTA. The depth limit counts from the event, so a state that
// nests more than LimitDepth-memberLevel+1 levels from its own root could
// not be sent as a snapshot.
const memberLevel = 2

// stateDepth is the bound on the depth of the state, and of activities,
// after a patch, counted from their root, or 0 when the profile sets none:
// the most a snapshot of them could nest within the depth limit, so that
// every state the checker accepts can be restated as a STATE_SNAPSHOT.
func stateDepth(p *Profile) int {
	if p.Has(contract.RuleSequenceStateDepth) {
		return contract.LimitDepth - memberLevel + 1
	}
	return 0
}

// stateFault returns the rule a patch of the state breaks when it fails
// with f under p, and whether that rejects the input; otherwise the fault
// is a warning and the patch is skipped.
func stateFault(p *Profile, f *patchFault) (rule string, reject bool) {
	switch {
	case f.Kind == faultDepth:
		return contract.RuleSequenceStateDepth, p.Has(contract.RuleStandStateAtomicity)
	case f.Kind == faultCopyMove && p.Has(contract.RuleUnsupportedCopyMove):
		return contract.RuleUnsupportedCopyMove, true
	case f.Kind == faultRemoveRoot && p.Has(contract.RuleUnsupportedRemoveRoot):
		return contract.RuleUnsupportedRemoveRoot, true
	case p.Has(contract.RuleStandStateAtomicity):
		return contract.RuleStandStateAtomicity, true
	}
	return contract.RuleSequenceStateDelta, false
}

// faultPointer is the pointer of a fault's operation, and of its member
// when the fault is one member's, in the patch at ptr.
func faultPointer(ptr string, f *patchFault) string {
	ptr = strictjson.AppendIndexPointer(ptr, f.Index)
	if f.Member != "" {
		ptr = strictjson.AppendPointer(ptr, f.Member)
	}
	return ptr
}
