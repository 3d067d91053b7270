package metadata

// Writes of several files (a rename, a linked numerator edit) and their
// undo and redo: one step of the history holds the replacements of every
// file, both ways, and the renames of paths, and goes to disk through the
// journal of internal/atomicfile, all or none.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/atomicfile"
	"github.com/contractkit/contractkit/internal/byteedit"
)

// setStep is a step of several files.
type setStep struct {
	Files   []setFile    `json:"files"`
	Moves   []setMove    `json:"moves,omitempty"`
	Renamed *gen.Renamed `json:"renamed,omitempty"`
	Linked  bool         `json:"linked,omitempty"`
}

// setFile is one file of a step: its path (with /, relative to the
// sources, before the step's renames), the digests of its bytes before
// and after, the replacements that make the after from the before and
// those that make the before from the after.
type setFile struct {
	Rel    string          `json:"rel"`
	Before string          `json:"before"`
	After  string          `json:"after"`
	Edits  []byteedit.Edit `json:"edits"`
	Undo   []byteedit.Edit `json:"undo"`
	old    []byte          // the bytes before, while the step is written
}

// newSetFile makes the file of a step from its present bytes and the
// replacements to make.
func newSetFile(rel string, old []byte, edits []byteedit.Edit) (setFile, error) {
	h := sha256.New()
	if err := byteedit.WriteApplied(h, old, edits); err != nil {
		return setFile{}, err
	}
	undo, err := byteedit.Inverse(old, edits)
	if err != nil {
		return setFile{}, err
	}
	return setFile{Rel: rel, Before: sha(old), After: hex.EncodeToString(h.Sum(nil)), Edits: edits, Undo: undo, old: old}, nil
}

// setMove renames a path (with /, relative to the sources).
type setMove struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// movedRel maps a path through renames.
func movedRel(rel string, moves []setMove) string {
	for _, m := range moves {
		switch {
		case rel == m.From:
			rel = m.To
		case strings.HasPrefix(rel, m.From+"/"):
			rel = m.To + rel[len(m.From):]
		}
	}
	return rel
}

// stepChanged is a file of a step that no longer holds the bytes the
// step expects: replay would undo someone else's work.
type stepChanged struct{ rel string }

func (e *stepChanged) Error() string { return e.rel + ": the file changed since the step" }

// stepInvalid is a step whose replacements do not give the bytes it
// recorded: it is dropped, never written.
type stepInvalid struct {
	rel string
	err error
}

func (e *stepInvalid) Error() string {
	return e.rel + ": the history step does not hold together: " + e.err.Error()
}

// gives checks that the replacements make, from cur, bytes of the digest
// want: a step is written only when it leads exactly where it says.
func gives(cur []byte, edits []byteedit.Edit, want string) error {
	h := sha256.New()
	if err := byteedit.WriteApplied(h, cur, edits); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return errors.New("its replacements give other bytes than it recorded")
	}
	return nil
}

// inverse is the step that undoes s, checked against the files as they
// are: every file (at its renamed path) must hold the bytes s left.
func (s *setStep) inverse(read func(rel string) ([]byte, error)) (*setStep, error) {
	out := &setStep{Linked: s.Linked}
	if s.Renamed != nil {
		out.Renamed = &gen.Renamed{From: s.Renamed.To, To: s.Renamed.From, DescendantFrom: s.Renamed.DescendantTo, DescendantTo: s.Renamed.DescendantFrom}
	}
	for _, f := range s.Files {
		rel := movedRel(f.Rel, s.Moves)
		cur, err := read(rel)
		if err != nil || sha(cur) != f.After {
			return nil, &stepChanged{rel: rel}
		}
		if err := gives(cur, f.Undo, f.Before); err != nil {
			return nil, &stepInvalid{rel: rel, err: err}
		}
		out.Files = append(out.Files, setFile{Rel: rel, Before: f.After, After: f.Before, Edits: f.Undo, Undo: f.Edits, old: cur})
	}
	for i := len(s.Moves) - 1; i >= 0; i-- {
		out.Moves = append(out.Moves, setMove{From: s.Moves[i].To, To: s.Moves[i].From})
	}
	return out, nil
}

// again is the step s itself, checked against the files as they are
// before it is made again (a redo).
func (s *setStep) again(read func(rel string) ([]byte, error)) (*setStep, error) {
	out := *s
	out.Files = make([]setFile, len(s.Files))
	for i, f := range s.Files {
		cur, err := read(f.Rel)
		if err != nil || sha(cur) != f.Before {
			return nil, &stepChanged{rel: f.Rel}
		}
		if err := gives(cur, f.Edits, f.After); err != nil {
			return nil, &stepInvalid{rel: f.Rel, err: err}
		}
		f.old = cur
		out.Files[i] = f
	}
	return &out, nil
}

// readRel reads a file of the sources by its path with /, refusing a
// symbolic link on the way.
func (p *project) readRel(rel string) ([]byte, error) {
	return p.r.read(filepath.Join(p.srcDir, filepath.FromSlash(rel)))
}

// writeSet writes a step through the project's journal under its lock.
func (b *Backend) writeSet(p *project, s *setStep) error {
	w := p.editing(b).w
	unlock, err := w.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	if err := p.editing(b).hist.ready(); err != nil {
		return err
	}
	set := atomicfile.Set{}
	for _, f := range s.Files {
		set.Files = append(set.Files, atomicfile.SetFile{Rel: filepath.FromSlash(f.Rel), Old: f.old, Edits: f.Edits})
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
	var sc *stepChanged
	var se *atomicfile.SetError
	if serr, ok := b.stateError(p, nil, err); ok {
		return serr
	}
	switch {
	case errors.As(err, &sc):
		return derr(gen.DomainErrorKindSourceChanged, gen.SourceChangedDetails{Path: ToPath(filepath.FromSlash(sc.rel))}, p, b.s)
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
		return b.loadError(p, nil, &sourceError{path: p.srcDir, reason: gen.SourceErrorReasonTooLarge, err: err})
	case errors.As(err, &se) && errors.Is(err, atomicfile.ErrChanged):
		return derr(gen.DomainErrorKindSourceChanged, gen.SourceChangedDetails{Path: ToPath(se.Rel)}, p, b.s)
	case errors.As(err, &se):
		path := filepath.Join(p.srcDir, se.Rel)
		return b.loadError(p, nil, &sourceError{path: path, reason: gen.SourceErrorReasonIo, err: err})
	}
	return b.loadError(p, nil, &sourceError{path: p.srcDir, reason: gen.SourceErrorReasonIo, err: err})
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
