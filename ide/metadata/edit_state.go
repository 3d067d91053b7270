package metadata

// The members of the editing state that later minors add, and the undo
// and redo of steps of several files.

import (
	"errors"
	"fmt"
	"path/filepath"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata/edithistory"
)

// extend adds to an editing state what the client's capabilities grant:
// the rename members (1.9) and the linked ones (1.10).
func (e *editor) extend(st *gen.EditingState, writable bool) {
	h := e.p.editing(e.b).hist
	undo, hasUndo := h.Peek(e.desc, false)
	redo, hasRedo := h.Peek(e.desc, true)
	if e.b.granted(gen.CapabilityMetadataRename) {
		st.RenameAvailable = ptrTo(writable && e.p.renameKindIssue(e.o) == "")
		st.UndoRename = ptrTo(hasUndo && undo.Set != nil && undo.Set.Renamed != nil)
		st.RedoRename = ptrTo(hasRedo && redo.Set != nil && redo.Set.Renamed != nil)
	}
	if e.b.granted(gen.CapabilityLinkedPropertyEdits) {
		e.linkedState(st, hasUndo && undo.Set != nil && undo.Set.Linked, hasRedo && redo.Set != nil && redo.Set.Linked)
	}
}

// replaySet undoes or redoes a step of several files: every file must
// still hold the bytes the step expects, then the whole step is written
// backwards (or again) through the journal.
func (b *Backend) replaySet(e *editor, step edithistory.Step, redo bool) (gen.PropertyWriteResult, error) {
	p := e.p
	var s *edithistory.SetStep
	var err error
	if redo {
		s, err = step.Set.Again(p.readRel)
	} else {
		s, err = step.Set.Inverse(p.readRel)
	}
	var si *edithistory.InvalidError
	if errors.As(err, &si) {
		// Never applied: the step goes, and the client is told there was
		// nothing valid to replay.
		b.stateDiag(edithistory.DiagRejected, err)
		if derr := p.editing(b).hist.Drop(e.desc, redo); derr != nil {
			b.diag("edit-history")
		}
		return gen.PropertyWriteResult{}, invalidParams("/direction", fmt.Sprintf("the history step of %s does not hold together and was dropped", e.o.id))
	}
	if err == nil {
		err = b.writeSet(p, s)
	}
	if err != nil {
		if s != nil && s.Renamed != nil || step.Set.Renamed != nil {
			return gen.PropertyWriteResult{}, b.renameWriteError(p, err)
		}
		return gen.PropertyWriteResult{}, b.linkedWriteError(e, err)
	}
	hist := p.editing(b).hist
	if err := hist.Moved(e.desc, redo); err != nil {
		b.diag("edit-history")
	}
	if s.Renamed == nil {
		b.linkedCommitted(p, s)
		return b.writeResult(p, e.o.id)
	}
	var keys [][2]string
	for _, m := range s.Moves {
		keys = append(keys, [2]string{filepath.Join(p.srcDir, filepath.FromSlash(m.From)), filepath.Join(p.srcDir, filepath.FromSlash(m.To))})
	}
	if err := hist.Rekey(keys); err != nil {
		b.diag("edit-history")
	}
	b.renameCommitted(p, *s.Renamed)
	r, err := b.writeResult(p, string(s.Renamed.To))
	if err != nil {
		return r, derr(gen.DomainErrorKindRenameCommittedRefreshRequired, gen.EmptyDetails{}, p, b.s)
	}
	r.Renamed = s.Renamed
	return r, nil
}
