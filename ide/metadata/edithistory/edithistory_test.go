package edithistory

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/ide/metadata/signedfile"
	"github.com/contractkit/contractkit/internal/byteedit"
)

// A history that would outgrow MaxFileBytes keeps its newest
// steps on disk: the oldest go, and the file stays within the bound.
func TestHistorySaveTrims(t *testing.T) {
	root := t.TempDir()
	key := bytes.Repeat([]byte{1}, signedfile.KeySize)
	var diags []string
	h := OnDisk(root, filepath.Join(".eska", "history"), filepath.Join(root, "src"), key, func(c string, _ error) { diags = append(diags, c) })
	path := filepath.Join(root, "src", "big.xml")
	big := MaxFileBytes / 4 // base64 makes each about a third of the bound
	for i := range 3 {
		step := Step{Object: "o", Before: bytes.Repeat([]byte{'a' + byte(i)}, big), After: bytes.Repeat([]byte{'b' + byte(i)}, big)}
		if err := h.Push(path, step); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(filepath.Join(root, ".eska", "history", h.fileName(path)))
	if err != nil || st.Size() > MaxFileBytes {
		t.Fatalf("%v %v", st, err)
	}
	fresh := OnDisk(root, filepath.Join(".eska", "history"), filepath.Join(root, "src"), key, func(string, error) {})
	fresh.load(path)
	got := fresh.undo[path]
	if len(got) != 1 || got[0].Before[0] != 'c' || !slices.Contains(diags, DiagTrimmed) {
		t.Errorf("kept %d steps, diagnostics %v", len(got), diags)
	}
}

// A step of several files whose replacements do not lead to the bytes it
// recorded is refused by both directions before anything is written.
func TestSetStepHoldsTogether(t *testing.T) {
	before, after := []byte("Товары и Товары"), []byte("Изделия и Товары")
	f, err := NewSetFile("a.xml", before, []byteedit.Edit{{Start: 0, End: int64(len("Товары")), Text: "Изделия"}})
	if err != nil {
		t.Fatal(err)
	}
	good := SetStep{Files: []SetFile{f}}
	read := func(content []byte) func(string) ([]byte, error) {
		return func(string) ([]byte, error) { return content, nil }
	}
	if _, err := good.Inverse(read(after)); err != nil {
		t.Fatalf("a good step: %v", err)
	}
	if _, err := good.Again(read(before)); err != nil {
		t.Fatalf("a good step: %v", err)
	}
	bad := good
	bad.Files = []SetFile{f}
	bad.Files[0].Undo = []byteedit.Edit{{Start: 0, End: int64(len("Изделия")), Text: "Чужое"}}
	bad.Files[0].Edits = []byteedit.Edit{{Start: 0, End: int64(len("Товары")), Text: "Чужое"}}
	var si *InvalidError
	if _, err := bad.Inverse(read(after)); !asStepInvalid(err, &si) {
		t.Errorf("undo of a bad step: %v", err)
	}
	if _, err := bad.Again(read(before)); !asStepInvalid(err, &si) {
		t.Errorf("redo of a bad step: %v", err)
	}
}

func asStepInvalid(err error, si **InvalidError) bool {
	e, ok := err.(*InvalidError)
	*si = e
	return ok
}

// The bound on writing, at it and one past: a history whose file is
// exactly MaxFileBytes is kept whole; one byte more and the oldest step
// goes.
func TestHistorySaveAtTheBound(t *testing.T) {
	key := bytes.Repeat([]byte{1}, signedfile.KeySize)
	for _, extra := range []int{0, 1} {
		root := t.TempDir()
		var diags []string
		h := OnDisk(root, filepath.Join(".eska", "history"), filepath.Join(root, "src"), key, func(c string, _ error) { diags = append(diags, c) })
		path := filepath.Join(root, "src", "big.xml")
		old := Step{Object: "old", Before: []byte("a"), After: []byte("b")}
		if err := h.Push(path, old); err != nil {
			t.Fatal(err)
		}
		// The object name pads the newer step to the size wanted: one
		// more byte of it is one more byte of the file.
		step := Step{Object: "", Before: []byte("c"), After: []byte("d")}
		unpadded, err := h.signed.Seal(File{Format: Format, File: h.relOf(path), Undo: []Step{old, step}})
		if err != nil {
			t.Fatal(err)
		}
		step.Object = strings.Repeat("x", MaxFileBytes+extra-len(unpadded))
		if err := h.Push(path, step); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(filepath.Join(root, ".eska", "history", h.fileName(path)))
		if err != nil {
			t.Fatal(err)
		}
		fresh := OnDisk(root, filepath.Join(".eska", "history"), filepath.Join(root, "src"), key, func(string, error) {})
		fresh.load(path)
		kept := len(fresh.undo[path])
		switch trimmed := slices.Contains(diags, DiagTrimmed); {
		case extra == 0 && (kept != 2 || trimmed || st.Size() != MaxFileBytes):
			t.Errorf("a file of exactly MaxFileBytes: %d bytes written, %d steps kept, trimmed %v", st.Size(), kept, trimmed)
		case extra == 1 && (kept != 1 || !trimmed || fresh.undo[path][0].Object != step.Object):
			t.Errorf("a file one byte past MaxFileBytes: %d bytes written, %d steps kept, trimmed %v", st.Size(), kept, trimmed)
		}
	}
}
