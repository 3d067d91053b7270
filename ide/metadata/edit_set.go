package metadata

// Writes of several files (a rename, a linked numerator edit) and their
// undo and redo: one step of the history holds the replacements of every
// file, both ways, and the renames of paths, and goes to disk through the
// journal of internal/atomicfile, all or none.

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata/edithistory"
	"github.com/contractkit/contractkit/ide/metadata/sourceread"
	"github.com/contractkit/contractkit/internal/atomicfile"
)

// readRel reads a file of the sources by its path with /, refusing a
// symbolic link on the way.
func (p *project) readRel(rel string) ([]byte, error) {
	return p.r.Read(filepath.Join(p.srcDir, filepath.FromSlash(rel)))
}

// writeSet writes a step through the project's journal under its lock.
func (b *Backend) writeSet(p *project, s *edithistory.SetStep) error {
	w := p.editing(b).w
	unlock, err := w.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := p.editing(b).hist.Ready(); err != nil {
		return err
	}
	set := atomicfile.Set{}
	for _, f := range s.Files {
		set.Files = append(set.Files, atomicfile.SetFile{Rel: filepath.FromSlash(f.Rel), Old: f.Old, Edits: f.Edits})
	}
	for _, m := range s.Moves {
		set.Moves = append(set.Moves, atomicfile.Move{From: filepath.FromSlash(m.From), To: filepath.FromSlash(m.To)})
	}
	return w.ApplySet(set)
}

// setWriteError maps the failure of a write of several files to the
// contract's errors; symlink and collision say how the caller names a
// symbolic link and an existing target.
func (b *Backend) setWriteError(p *project, err error, symlink, exists func() error) error {
	var sc *edithistory.ChangedError
	var se *atomicfile.SetError
	if serr, ok := b.stateError(p, nil, err); ok {
		return serr
	}
	switch {
	case errors.As(err, &sc):
		return derr(gen.DomainErrorKindSourceChanged, gen.SourceChangedDetails{Path: ToPath(filepath.FromSlash(sc.Rel))}, p, b.s)
	case errors.Is(err, atomicfile.ErrBusy):
		return derr(gen.DomainErrorKindPropertyEditBusy, gen.EmptyDetails{}, p, b.s)
	case errors.Is(err, atomicfile.ErrRecoveryRequired):
		return derr(gen.DomainErrorKindPropertyRecoveryRequired, gen.EmptyDetails{}, p, b.s)
	case errors.Is(err, atomicfile.ErrSymlink):
		return symlink()
	case errors.Is(err, fs.ErrExist):
		return exists()
	case errors.As(err, new(*atomicfile.TooLargeError)):
		// The change is too large for its journal: nothing was written.
		return b.loadError(p, nil, &sourceread.Error{Path: p.srcDir, Reason: gen.SourceErrorReasonTooLarge, Err: err})
	case errors.As(err, &se) && errors.Is(err, atomicfile.ErrChanged):
		return derr(gen.DomainErrorKindSourceChanged, gen.SourceChangedDetails{Path: ToPath(se.Rel)}, p, b.s)
	case errors.As(err, &se):
		path := filepath.Join(p.srcDir, se.Rel)
		return b.loadError(p, nil, &sourceread.Error{Path: path, Reason: gen.SourceErrorReasonIo, Err: err})
	}
	return b.loadError(p, nil, &sourceread.Error{Path: p.srcDir, Reason: gen.SourceErrorReasonIo, Err: err})
}

// pendingRecovery reports a journal a crash left that could not be
// recovered: every write waits for a person.
func (p *project) pendingRecovery(b *Backend) bool {
	return p.editing(b).w.Pending()
}

// exists reports whether a path below the sources exists (a file, a
// folder or a link).
func (p *project) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(p.srcDir, filepath.FromSlash(rel)))
	return err == nil
}
