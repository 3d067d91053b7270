package metadata

// The edit history of a session (metadata/undoProperty): for each
// descriptor, the writes made through this server with the exact bytes
// before and after, so that undo and redo restore exact bytes and refuse
// when the file holds anything else. The eska property command keeps the
// same history in files under .eska/history between its runs.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// editStep is one write: the descriptor and its bytes around it, or for
// a write of several files (a rename, a linked edit) the set of their
// replacements (edit_set.go).
type editStep struct {
	Object string   `json:"object"` // the ObjectId it was made through
	Before []byte   `json:"before,omitempty"`
	After  []byte   `json:"after,omitempty"`
	Set    *setStep `json:"set,omitempty"`
}

// editHistory is the undo and redo stacks of every descriptor written,
// by path. With dir set, each descriptor's stacks live in a file there.
type editHistory struct {
	undo, redo map[string][]editStep
	dir        string
	root       string // paths in the files are relative to it
}

func newHistory() *editHistory {
	return &editHistory{undo: map[string][]editStep{}, redo: map[string][]editStep{}}
}

// FileHistory keeps the history of each descriptor under dir, relative
// to root, so that a later process continues it.
func fileHistory(dir, root string) *editHistory {
	h := newHistory()
	h.dir, h.root = dir, root
	return h
}

type historyFile struct {
	File string     `json:"file"`
	Undo []editStep `json:"undo"`
	Redo []editStep `json:"redo"`
}

func (h *editHistory) fileOf(path string) string {
	rel, _ := filepath.Rel(h.root, path)
	sum := sha256.Sum256([]byte(filepath.ToSlash(rel)))
	return filepath.Join(h.dir, hex.EncodeToString(sum[:8])+".json")
}

// load reads a descriptor's stacks from the history directory once.
func (h *editHistory) load(path string) {
	if h.dir == "" {
		return
	}
	if _, ok := h.undo[path]; ok {
		return
	}
	var hf historyFile
	if data, err := os.ReadFile(h.fileOf(path)); err == nil && json.Unmarshal(data, &hf) == nil {
		h.undo[path], h.redo[path] = hf.Undo, hf.Redo
		return
	}
	h.undo[path], h.redo[path] = nil, nil
}

// save writes a descriptor's stacks to the history directory through a
// temporary file, so that a crash leaves the old stacks or the new.
func (h *editHistory) save(path string) error {
	if h.dir == "" {
		return nil
	}
	if err := os.MkdirAll(h.dir, 0o755); err != nil {
		return err
	}
	rel, _ := filepath.Rel(h.root, path)
	data, err := json.Marshal(historyFile{File: filepath.ToSlash(rel), Undo: h.undo[path], Redo: h.redo[path]})
	if err != nil {
		return err
	}
	tmp := h.fileOf(path) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, h.fileOf(path))
}

// push records a write; the steps that could be redone are gone, and the
// oldest step goes when the stack is full.
func (h *editHistory) push(path string, s editStep) error {
	h.load(path)
	st := append(h.undo[path], s)
	if len(st) > gen.MaxEditHistorySteps {
		st = st[len(st)-gen.MaxEditHistorySteps:]
	}
	h.undo[path], h.redo[path] = st, nil
	return h.save(path)
}

// peek returns the step an undo (or redo) of the descriptor would make.
func (h *editHistory) peek(path string, redo bool) (editStep, bool) {
	h.load(path)
	st := h.undo[path]
	if redo {
		st = h.redo[path]
	}
	if len(st) == 0 {
		return editStep{}, false
	}
	return st[len(st)-1], true
}

// moved moves the last step from one stack to the other, after it was
// written.
func (h *editHistory) moved(path string, redo bool) error {
	from, to := h.undo, h.redo
	if redo {
		from, to = h.redo, h.undo
	}
	st := from[path]
	if len(st) == 0 {
		return errors.New("no step to move")
	}
	s := st[len(st)-1]
	from[path] = st[:len(st)-1]
	to[path] = append(to[path], s)
	return h.save(path)
}

// rekey moves the stacks of a renamed descriptor and of every descriptor
// below its folder to their new paths, so that the history of the
// object goes on under its new name. moves pairs old and new paths.
func (h *editHistory) rekey(moves [][2]string) error {
	under := func(key, old string) (string, bool) {
		if key == old {
			return "", true
		}
		if rest, ok := strings.CutPrefix(key, old+string(filepath.Separator)); ok {
			return rest, true
		}
		return "", false
	}
	if h.dir != "" {
		// Stacks on disk are loaded first, so that they move too.
		entries, _ := os.ReadDir(h.dir)
		for _, e := range entries {
			var hf historyFile
			if data, err := os.ReadFile(filepath.Join(h.dir, e.Name())); err == nil && json.Unmarshal(data, &hf) == nil && hf.File != "" {
				h.load(filepath.Join(h.root, filepath.FromSlash(hf.File)))
			}
		}
	}
	var firstErr error
	for _, m := range moves {
		keys := map[string]bool{}
		for k := range h.undo {
			keys[k] = true
		}
		for k := range h.redo {
			keys[k] = true
		}
		for k := range keys {
			rest, ok := under(k, m[0])
			if !ok {
				continue
			}
			nk := m[1]
			if rest != "" {
				nk = filepath.Join(m[1], rest)
			}
			h.undo[nk], h.redo[nk] = h.undo[k], h.redo[k]
			delete(h.undo, k)
			delete(h.redo, k)
			if h.dir != "" {
				os.Remove(h.fileOf(k))
				if err := h.save(nk); err != nil && firstErr == nil {
					firstErr = err
				}
			}
		}
	}
	return firstErr
}
