// Package edithistory is the edit history of the eska IDE backend
// (metadata/undoProperty): for each descriptor, the writes made through
// the server with the exact bytes before and after, so that undo and redo
// restore exact bytes and refuse when the file holds anything else. The
// eska property command keeps the same history in files under
// .eska/history between its runs, signed (package signedfile).
package edithistory

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata/signedfile"
	"github.com/contractkit/contractkit/internal/atomicfile"
)

// Step is one write: the descriptor and its bytes around it, or for a
// write of several files (a rename, a linked edit) the set of their
// replacements (set.go).
type Step struct {
	Object string   `json:"object"` // the ObjectId it was made through
	Before []byte   `json:"before,omitempty"`
	After  []byte   `json:"after,omitempty"`
	Set    *SetStep `json:"set,omitempty"`
}

// History is the undo and redo stacks of every descriptor written,
// by path. With dir set, each descriptor's stacks live in a file there.
type History struct {
	undo, redo map[string][]Step
	base       string          // the project's directory
	dir        string          // the history folder, relative to base
	root       string          // paths in the files are relative to it
	signed     signedfile.Kind // signs the files with the user's key (signedfile.LoadKey)
	diag       func(code string, err error)
}

// New is a history kept in the process alone.
func New() *History {
	return &History{undo: map[string][]Step{}, redo: map[string][]Step{}}
}

// OnDisk keeps the history of each descriptor in the folder dir below
// the project's directory base, paths relative to root, so that a later
// process continues it. Without a key the history stays in the
// process: a file that cannot be signed cannot be trusted later.
func OnDisk(base, dir, root string, key []byte, diag func(string, error)) *History {
	h := New()
	h.diag = diag
	if key == nil {
		diag(DiagNoKey, nil)
		return h
	}
	h.base, h.dir, h.root = base, dir, root
	h.signed = signedfile.Kind{Magic: Magic, Format: Format, Key: key}
	return h
}

// The history on disk is derived state in the user's project, where a
// repository can plant one: it is read back only when it is a regular
// file reached without a link, no longer than MaxFileBytes, of this
// format, signed with this user's key (package signedfile), and about
// the descriptor it is found for. Anything else is dropped with a
// diagnostic and never replayed. Undo and redo then write only over the
// exact bytes the step left (package metadata's edit.go and edit_set.go).
const (
	Format = 1
	Magic  = "eska-edit-history/"
	// MaxFileBytes bounds one descriptor's history file: a step of
	// one file holds its bytes before and after, so the file of a large
	// descriptor keeps fewer steps; the oldest go first (save).
	MaxFileBytes = 16 << 20
)

// Diagnostics of the history on disk.
const (
	DiagNoKey    = "edit-history-off:no-key"
	DiagLink     = "edit-history-off:link"
	DiagRejected = "edit-history-rejected"
	DiagTrimmed  = "edit-history-trimmed"
)

// File is what a history file holds after its header line.
type File struct {
	Format int    `json:"format"`
	File   string `json:"file"`
	Undo   []Step `json:"undo"`
	Redo   []Step `json:"redo"`
}

// FileName is the name of the file, in the history folder, that keeps
// the stacks of the descriptor at path; root is the folder the paths in
// the history are relative to.
func FileName(root, path string) string {
	sum := sha256.Sum256([]byte(relOf(root, path)))
	return hex.EncodeToString(sum[:8]) + ".json"
}

func (h *History) fileName(path string) string { return FileName(h.root, path) }

func relOf(root, path string) string {
	rel, _ := filepath.Rel(root, path)
	return filepath.ToSlash(rel)
}

func (h *History) relOf(path string) string { return relOf(h.root, path) }

// decode checks a history file read from disk and returns its stacks;
// rel is the descriptor it was looked up for.
func (h *History) decode(raw []byte, rel string) (File, error) {
	var hf File
	if err := h.signed.Open(raw, &hf); err != nil {
		if errors.Is(err, signedfile.ErrNotSigned) {
			return hf, errors.New("not an edit history")
		}
		return hf, err
	}
	if hf.Format != Format || (rel != "" && hf.File != rel) {
		return hf, fmt.Errorf("the history of %q found for %q", hf.File, rel)
	}
	return hf, nil
}

// open opens the history folder (making it with create); a link on the
// way turns the history on disk off with a diagnostic.
func (h *History) open(create bool) (*os.Root, error) {
	dir, err := atomicfile.OpenStateDir(h.base, h.dir, create)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		h.diag(DiagLink, err)
	}
	return dir, err
}

// read reads and checks the history file called name; rel is the
// descriptor it must be about ("" for any). A file that fails a check is
// reported and dropped.
func (h *History) read(dir *os.Root, name, rel string) (File, bool) {
	dirPath := filepath.Join(h.base, h.dir)
	raw, err := atomicfile.ReadStateFile(dir, dirPath, name, MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return File{}, false
	}
	if err == nil {
		var hf File
		if hf, err = h.decode(raw, rel); err == nil {
			return hf, true
		}
		err = fmt.Errorf("%s: %w", filepath.Join(dirPath, name), err)
	}
	h.diag(DiagRejected, err)
	return File{}, false
}

// load reads a descriptor's stacks from the history folder once.
func (h *History) load(path string) {
	if _, ok := h.undo[path]; ok || h.dir == "" {
		return
	}
	h.undo[path], h.redo[path] = nil, nil
	dir, err := h.open(false)
	if err != nil {
		return
	}
	defer dir.Close()
	if hf, ok := h.read(dir, h.fileName(path), h.relOf(path)); ok {
		h.undo[path], h.redo[path] = hf.Undo, hf.Redo
	}
}

// Ready checks, before a write, that its step can be kept: the history
// folder, and the files in it of the descriptors named, are reached
// without a link.
func (h *History) Ready(paths ...string) error {
	if h.dir == "" {
		return nil
	}
	dir, err := h.open(true)
	if err != nil {
		return err
	}
	defer dir.Close()
	for _, path := range paths {
		if err := atomicfile.StateFile(dir, filepath.Join(h.base, h.dir), h.fileName(path)); err != nil {
			return err
		}
	}
	return nil
}

// save writes a descriptor's stacks to the history folder through a
// temporary file, so that a crash leaves the old stacks or the new. The
// oldest steps that do not fit MaxFileBytes stay out of the file
// (the session keeps them).
func (h *History) save(path string) error {
	if h.dir == "" {
		return nil
	}
	hf := File{Format: Format, File: h.relOf(path), Undo: h.undo[path], Redo: h.redo[path]}
	data, err := h.signed.Seal(hf)
	trimmed := false
	for err == nil && len(data) > MaxFileBytes {
		if len(hf.Undo) > 0 {
			hf.Undo = hf.Undo[1:]
		} else {
			hf.Redo = hf.Redo[1:]
		}
		data, err = h.signed.Seal(hf)
		trimmed = true
	}
	if trimmed {
		h.diag(DiagTrimmed, nil)
	}
	if err != nil {
		return err
	}
	dir, err := h.open(true)
	if err != nil {
		return err
	}
	defer dir.Close()
	return atomicfile.WriteStateFile(dir, filepath.Join(h.base, h.dir), h.fileName(path), data)
}

// Push records a write; the steps that could be redone are gone, and the
// oldest step goes when the stack is full.
func (h *History) Push(path string, s Step) error {
	h.load(path)
	st := append(h.undo[path], s)
	if len(st) > gen.MaxEditHistorySteps {
		st = st[len(st)-gen.MaxEditHistorySteps:]
	}
	h.undo[path], h.redo[path] = st, nil
	return h.save(path)
}

// Peek returns the step an undo (or redo) of the descriptor would make.
func (h *History) Peek(path string, redo bool) (Step, bool) {
	h.load(path)
	st := h.undo[path]
	if redo {
		st = h.redo[path]
	}
	if len(st) == 0 {
		return Step{}, false
	}
	return st[len(st)-1], true
}

// Moved moves the last step from one stack to the other, after it was
// written.
func (h *History) Moved(path string, redo bool) error {
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

// Drop removes the last step of a stack, which failed its checks.
func (h *History) Drop(path string, redo bool) error {
	stacks := h.undo
	if redo {
		stacks = h.redo
	}
	if st := stacks[path]; len(st) > 0 {
		stacks[path] = st[:len(st)-1]
	}
	return h.save(path)
}

// Rekey moves the stacks of a renamed descriptor and of every descriptor
// below its folder to their new paths, so that the history of the
// object goes on under its new name. moves pairs old and new paths.
func (h *History) Rekey(moves [][2]string) error {
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
		// Stacks on disk are loaded first, so that they move too; only
		// files that pass their checks name a descriptor.
		if dir, err := h.open(false); err == nil {
			entries, _ := fs.ReadDir(dir.FS(), ".")
			for _, e := range entries {
				if !strings.HasSuffix(e.Name(), ".json") {
					continue
				}
				if hf, ok := h.read(dir, e.Name(), ""); ok && hf.File != "" {
					path := filepath.Join(h.root, filepath.FromSlash(hf.File))
					if h.fileName(path) == e.Name() {
						h.load(path)
					}
				}
			}
			dir.Close()
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
				if dir, err := h.open(false); err == nil {
					dir.Remove(h.fileName(k))
					dir.Close()
				}
				if err := h.save(nk); err != nil && firstErr == nil {
					firstErr = err
				}
			}
		}
	}
	return firstErr
}
