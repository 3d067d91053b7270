package metadata

// The edit history of a session (metadata/undoProperty): for each
// descriptor, the writes made through this server with the exact bytes
// before and after, so that undo and redo restore exact bytes and refuse
// when the file holds anything else. The eska property command keeps the
// same history in files under .eska/history between its runs.

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/atomicfile"
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
	base       string // the project's directory
	dir        string // the history folder, relative to base
	root       string // paths in the files are relative to it
	key        []byte // signs the files; the disk cache's per-user key
	diag       func(code string, err error)
}

func newHistory() *editHistory {
	return &editHistory{undo: map[string][]editStep{}, redo: map[string][]editStep{}}
}

// fileHistory keeps the history of each descriptor in the folder dir
// below the project's directory base, paths relative to root, so that a
// later process continues it. Without a key the history stays in the
// process: a file that cannot be signed cannot be trusted later.
func fileHistory(base, dir, root string, key []byte, diag func(string, error)) *editHistory {
	h := newHistory()
	h.diag = diag
	if key == nil {
		diag(diagHistoryNoKey, nil)
		return h
	}
	h.base, h.dir, h.root, h.key = base, dir, root, key
	return h
}

// The history on disk is derived state in the user's project, where a
// repository can plant one: it is read back only when it is a regular
// file reached without a link, no longer than maxHistoryFileBytes, of
// this format, signed with this user's key, and about the descriptor it
// is found for. Anything else is dropped with a diagnostic and never
// replayed. Undo and redo then write only over the exact bytes the step
// left (edit.go, edit_set.go).
const (
	historyFormat = 1
	historyMagic  = "eska-edit-history/"
	// maxHistoryFileBytes bounds one descriptor's history file: a step of
	// one file holds its bytes before and after, so the file of a large
	// descriptor keeps fewer steps; the oldest go first (save).
	maxHistoryFileBytes = 16 << 20
)

// Diagnostics of the history on disk.
const (
	diagHistoryNoKey    = "edit-history-off:no-key"
	diagHistoryLink     = "edit-history-off:link"
	diagHistoryRejected = "edit-history-rejected"
	diagHistoryTrimmed  = "edit-history-trimmed"
)

type historyFile struct {
	Format int        `json:"format"`
	File   string     `json:"file"`
	Undo   []editStep `json:"undo"`
	Redo   []editStep `json:"redo"`
}

func (h *editHistory) nameOf(path string) string {
	sum := sha256.Sum256([]byte(h.relOf(path)))
	return hex.EncodeToString(sum[:8]) + ".json"
}

func (h *editHistory) relOf(path string) string {
	rel, _ := filepath.Rel(h.root, path)
	return filepath.ToSlash(rel)
}

func (h *editHistory) mac(body []byte) []byte {
	m := hmac.New(sha256.New, h.key)
	m.Write([]byte(historyMagic))
	m.Write(body)
	return m.Sum(nil)
}

// encode signs a history file: a header line with the format and the MAC
// of the JSON that follows.
func (h *editHistory) encode(hf historyFile) ([]byte, error) {
	body, err := json.Marshal(hf)
	if err != nil {
		return nil, err
	}
	out := fmt.Appendf(nil, "%s%d ", historyMagic, historyFormat)
	out = hex.AppendEncode(out, h.mac(body))
	out = append(out, '\n')
	return append(out, body...), nil
}

// decode checks a history file read from disk and returns its stacks;
// rel is the descriptor it was looked up for.
func (h *editHistory) decode(raw []byte, rel string) (historyFile, error) {
	var hf historyFile
	head, body, ok := bytes.Cut(raw, []byte{'\n'})
	if !ok || !bytes.HasPrefix(head, []byte(historyMagic)) {
		return hf, errors.New("not an edit history")
	}
	format, macHex, ok := bytes.Cut(head[len(historyMagic):], []byte{' '})
	if !ok || string(format) != strconv.Itoa(historyFormat) {
		return hf, fmt.Errorf("format %q, want %d", format, historyFormat)
	}
	want, err := hex.DecodeString(string(macHex))
	if err != nil || !hmac.Equal(want, h.mac(body)) {
		return hf, errors.New("the signature does not match: not written by this user's eska, or changed since")
	}
	if err := json.Unmarshal(body, &hf); err != nil {
		return hf, err
	}
	if hf.Format != historyFormat || (rel != "" && hf.File != rel) {
		return hf, fmt.Errorf("the history of %q found for %q", hf.File, rel)
	}
	return hf, nil
}

// open opens the history folder (making it with create); a link on the
// way turns the history on disk off with a diagnostic.
func (h *editHistory) open(create bool) (*os.Root, error) {
	dir, err := atomicfile.OpenStateDir(h.base, h.dir, create)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		h.diag(diagHistoryLink, err)
	}
	return dir, err
}

// read reads and checks the history file called name; rel is the
// descriptor it must be about ("" for any). A file that fails a check is
// reported and dropped.
func (h *editHistory) read(dir *os.Root, name, rel string) (historyFile, bool) {
	dirPath := filepath.Join(h.base, h.dir)
	raw, err := atomicfile.ReadStateFile(dir, dirPath, name, maxHistoryFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return historyFile{}, false
	}
	if err == nil {
		var hf historyFile
		if hf, err = h.decode(raw, rel); err == nil {
			return hf, true
		}
		err = fmt.Errorf("%s: %w", filepath.Join(dirPath, name), err)
	}
	h.diag(diagHistoryRejected, err)
	return historyFile{}, false
}

// load reads a descriptor's stacks from the history folder once.
func (h *editHistory) load(path string) {
	if _, ok := h.undo[path]; ok || h.dir == "" {
		return
	}
	h.undo[path], h.redo[path] = nil, nil
	dir, err := h.open(false)
	if err != nil {
		return
	}
	defer dir.Close()
	if hf, ok := h.read(dir, h.nameOf(path), h.relOf(path)); ok {
		h.undo[path], h.redo[path] = hf.Undo, hf.Redo
	}
}

// ready checks, before a write, that its step can be kept: the history
// folder, and the files in it of the descriptors named, are reached
// without a link.
func (h *editHistory) ready(paths ...string) error {
	if h.dir == "" {
		return nil
	}
	dir, err := h.open(true)
	if err != nil {
		return err
	}
	defer dir.Close()
	for _, path := range paths {
		if err := atomicfile.StateFile(dir, filepath.Join(h.base, h.dir), h.nameOf(path)); err != nil {
			return err
		}
	}
	return nil
}

// save writes a descriptor's stacks to the history folder through a
// temporary file, so that a crash leaves the old stacks or the new. The
// oldest steps that do not fit maxHistoryFileBytes stay out of the file
// (the session keeps them).
func (h *editHistory) save(path string) error {
	if h.dir == "" {
		return nil
	}
	hf := historyFile{Format: historyFormat, File: h.relOf(path), Undo: h.undo[path], Redo: h.redo[path]}
	data, err := h.encode(hf)
	trimmed := false
	for err == nil && len(data) > maxHistoryFileBytes {
		if len(hf.Undo) > 0 {
			hf.Undo = hf.Undo[1:]
		} else {
			hf.Redo = hf.Redo[1:]
		}
		data, err = h.encode(hf)
		trimmed = true
	}
	if trimmed {
		h.diag(diagHistoryTrimmed, nil)
	}
	if err != nil {
		return err
	}
	dir, err := h.open(true)
	if err != nil {
		return err
	}
	defer dir.Close()
	return atomicfile.WriteStateFile(dir, filepath.Join(h.base, h.dir), h.nameOf(path), data)
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

// drop removes the last step of a stack, which failed its checks.
func (h *editHistory) drop(path string, redo bool) error {
	stacks := h.undo
	if redo {
		stacks = h.redo
	}
	if st := stacks[path]; len(st) > 0 {
		stacks[path] = st[:len(st)-1]
	}
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
					if h.nameOf(path) == e.Name() {
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
					dir.Remove(h.nameOf(k))
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
