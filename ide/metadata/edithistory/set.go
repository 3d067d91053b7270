package edithistory

// Writes of several files (a rename, a linked numerator edit) and their
// undo and redo: one step of the history holds the replacements of every
// file, both ways, and the renames of paths. Package metadata writes them
// through the journal of internal/atomicfile, all or none.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/byteedit"
)

// SetStep is a step of several files.
type SetStep struct {
	Files   []SetFile    `json:"files"`
	Moves   []SetMove    `json:"moves,omitempty"`
	Renamed *gen.Renamed `json:"renamed,omitempty"`
	Linked  bool         `json:"linked,omitempty"`
}

// SetFile is one file of a step: its path (with /, relative to the
// sources, before the step's renames), the digests of its bytes before
// and after, the replacements that make the after from the before and
// those that make the before from the after.
type SetFile struct {
	Rel    string          `json:"rel"`
	Before string          `json:"before"`
	After  string          `json:"after"`
	Edits  []byteedit.Edit `json:"edits"`
	Undo   []byteedit.Edit `json:"undo"`
	Old    []byte          `json:"-"` // the bytes before, while the step is written
}

// NewSetFile makes the file of a step from its present bytes and the
// replacements to make.
func NewSetFile(rel string, old []byte, edits []byteedit.Edit) (SetFile, error) {
	h := sha256.New()
	if err := byteedit.WriteApplied(h, old, edits); err != nil {
		return SetFile{}, err
	}
	undo, err := byteedit.Inverse(old, edits)
	if err != nil {
		return SetFile{}, err
	}
	return SetFile{Rel: rel, Before: sha(old), After: hex.EncodeToString(h.Sum(nil)), Edits: edits, Undo: undo, Old: old}, nil
}

// SetMove renames a path (with /, relative to the sources).
type SetMove struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// MovedRel maps a path through renames.
func MovedRel(rel string, moves []SetMove) string {
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

// ChangedError is a file of a step that no longer holds the bytes the
// step expects: replay would undo someone else's work.
type ChangedError struct{ Rel string }

func (e *ChangedError) Error() string { return e.Rel + ": the file changed since the step" }

// InvalidError is a step whose replacements do not give the bytes it
// recorded: it is dropped, never written.
type InvalidError struct {
	Rel string
	Err error
}

func (e *InvalidError) Error() string {
	return e.Rel + ": the history step does not hold together: " + e.Err.Error()
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

// Inverse is the step that undoes s, checked against the files as they
// are: every file (at its renamed path) must hold the bytes s left.
func (s *SetStep) Inverse(read func(rel string) ([]byte, error)) (*SetStep, error) {
	out := &SetStep{Linked: s.Linked}
	if s.Renamed != nil {
		out.Renamed = &gen.Renamed{From: s.Renamed.To, To: s.Renamed.From, DescendantFrom: s.Renamed.DescendantTo, DescendantTo: s.Renamed.DescendantFrom}
	}
	for _, f := range s.Files {
		rel := MovedRel(f.Rel, s.Moves)
		cur, err := read(rel)
		if err != nil || sha(cur) != f.After {
			return nil, &ChangedError{Rel: rel}
		}
		if err := gives(cur, f.Undo, f.Before); err != nil {
			return nil, &InvalidError{Rel: rel, Err: err}
		}
		out.Files = append(out.Files, SetFile{Rel: rel, Before: f.After, After: f.Before, Edits: f.Undo, Undo: f.Edits, Old: cur})
	}
	for i := len(s.Moves) - 1; i >= 0; i-- {
		out.Moves = append(out.Moves, SetMove{From: s.Moves[i].To, To: s.Moves[i].From})
	}
	return out, nil
}

// Again is the step s itself, checked against the files as they are
// before it is made again (a redo).
func (s *SetStep) Again(read func(rel string) ([]byte, error)) (*SetStep, error) {
	out := *s
	out.Files = make([]SetFile, len(s.Files))
	for i, f := range s.Files {
		cur, err := read(f.Rel)
		if err != nil || sha(cur) != f.Before {
			return nil, &ChangedError{Rel: f.Rel}
		}
		if err := gives(cur, f.Edits, f.After); err != nil {
			return nil, &InvalidError{Rel: f.Rel, Err: err}
		}
		f.Old = cur
		out.Files[i] = f
	}
	return &out, nil
}

// sha is the hex SHA-256 of a file's bytes, as a step records them.
func sha(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}
