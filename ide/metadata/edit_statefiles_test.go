package metadata

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata/edithistory"
	"github.com/contractkit/contractkit/ide/metadata/signedfile"
)

// stateHarness is an editing harness that keeps its history on disk, as
// the eska property command does, and records diagnostics and the
// sentences behind them.
type stateHarness struct {
	*harness
	keyDir string
	diags  []string
	words  []string
}

func openStateEditing(t *testing.T, root, keyDir string, minor ...int) *stateHarness {
	t.Helper()
	h := &harness{t: t, root: root}
	h.b = New(nil)
	sh := &stateHarness{harness: h, keyDir: keyDir}
	h.b.HistoryDir, h.b.KeyDir = ".eska/history", keyDir
	h.grants = editGrants(8)
	if len(minor) > 0 {
		h.grants = editGrants(minor[0])
	}
	h.b.Diag = func(c string) { sh.diags = append(sh.diags, c) }
	h.b.Explain = func(m string) { sh.words = append(sh.words, m) }
	h.open(h.root, gen.SelectionCurrent{})
	return sh
}

// newStateProject writes the editing fixture and opens it.
func newStateProject(t *testing.T) *stateHarness {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, editFixture())
	return openStateEditing(t, root, t.TempDir())
}

// again is the next process on the same project and key.
func (sh *stateHarness) again() *stateHarness {
	return openStateEditing(sh.t, sh.root, sh.keyDir)
}

// historyPath is the history file of a descriptor.
func (sh *stateHarness) historyPath(rel string) string {
	src := filepath.Join(sh.root, "src")
	return filepath.Join(sh.root, ".eska", "history", edithistory.FileName(src, filepath.Join(src, filepath.FromSlash(rel))))
}

func (sh *stateHarness) key() []byte {
	sh.t.Helper()
	key, err := signedfile.LoadKey(sh.keyDir)
	if err != nil {
		sh.t.Fatal(err)
	}
	return key
}

// A symbolic link anywhere on the way to eska's state in the project (the
// .eska folder, .eska/edit, .eska/history, the lock, the write journal, a
// history file) stops a property write before anything is written: the
// descriptor keeps its bytes, nothing appears outside the project, stderr
// gets a code and the terminal the sentence naming the link.
//
//contract:proves eska-ide-api.editing.atomic-write
func TestEditStateThroughLink(t *testing.T) {
	for _, c := range []struct {
		link string
		file bool
	}{
		{".eska", false},
		{".eska/edit", false},
		{".eska/history", false},
		{".eska/edit/write.lock", true},
		{".eska/edit/write-journal.json", true},
		{".eska/history/*", true},
	} {
		t.Run(c.link, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, editFixture())
			link := c.link
			if strings.HasSuffix(link, "*") {
				link = ".eska/history/" + edithistory.FileName(filepath.Join(root, "src"), filepath.Join(root, "src", "Catalogs", "Товары.xml"))
			}
			outside := t.TempDir()
			target := outside
			if c.file {
				target = filepath.Join(outside, "victim")
				os.WriteFile(target, []byte("outside"), 0o644)
			}
			at := filepath.Join(root, filepath.FromSlash(link))
			os.MkdirAll(filepath.Dir(at), 0o755)
			if err := os.Symlink(target, at); err != nil {
				t.Fatal(err)
			}
			sh := openStateEditing(t, root, t.TempDir())
			before := sh.file("Catalogs/Товары.xml")
			_, err := sh.update("catalog:Товары", "Comment", `{"kind":"text","value":"через ссылку"}`)
			if kindOf(err) != "source_invalid" {
				t.Errorf("the write: %s", errText(err))
			}
			if sh.file("Catalogs/Товары.xml") != before {
				t.Errorf("the descriptor was written")
			}
			want := at + ": is a symbolic link; eska does not write through links"
			if !slices.Contains(sh.words, want) {
				t.Errorf("said %q, want %q", sh.words, want)
			}
			if !slices.Contains(sh.diags, diagStateLink) {
				t.Errorf("diagnostics %v", sh.diags)
			}
			entries, _ := os.ReadDir(outside)
			if c.file {
				if data, _ := os.ReadFile(target); len(entries) != 1 || string(data) != "outside" {
					t.Errorf("outside: %d entries, %q", len(entries), data)
				}
			} else if len(entries) != 0 {
				t.Errorf("written outside the project: %v", entries)
			}
		})
	}
}

// A rename is refused the same way when .eska/edit or .eska/history is
// a link: no source file changes, none is moved, nothing is written
// outside the project.
//
//contract:proves eska-ide-api.editing.rename-journal
func TestRenameStateThroughLink(t *testing.T) {
	for _, link := range []string{".eska/edit", ".eska/history"} {
		t.Run(link, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, renderRename("Товары"))
			outside := t.TempDir()
			at := filepath.Join(root, filepath.FromSlash(link))
			os.MkdirAll(filepath.Dir(at), 0o755)
			if err := os.Symlink(outside, at); err != nil {
				t.Fatal(err)
			}
			sh := openStateEditing(t, root, t.TempDir(), 11)
			before := readSources(t, root)
			p, err := sh.preview("catalog:Товары", "Изделия")
			if err != nil {
				t.Fatal(errText(err))
			}
			if _, err := sh.apply("catalog:Товары", "Изделия", p.Plan.Snapshot, true); kindOf(err) != "source_invalid" {
				t.Errorf("apply: %s", errText(err))
			}
			if got := readSources(t, root); !reflect.DeepEqual(got, before) {
				t.Errorf("the sources changed")
			}
			if !slices.Contains(sh.words, at+": is a symbolic link; eska does not write through links") {
				t.Errorf("said %q", sh.words)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Errorf("written outside the project: %v", entries)
			}
		})
	}
}

// tamper rewrites a history file through fn, which gets the header line
// and the JSON body.
func tamper(t *testing.T, path string, fn func(head, body []byte) []byte) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, body, ok := bytes.Cut(raw, []byte{'\n'})
	if !ok {
		t.Fatalf("%s: no header line", path)
	}
	if err := os.WriteFile(path, fn(head, body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// signWith signs a history body with key, in the format given.
func signWith(key []byte, format int, body []byte) []byte {
	return signedfile.Kind{Magic: edithistory.Magic, Key: key}.Frame(format, body)
}

// The history on disk is verified, never trusted: a file that was edited,
// signed by another user (one committed to a repository), of another
// format, about another descriptor, or a link, is dropped with a
// diagnostic, and undo finds nothing to replay; the untouched file, read
// by the next process, undoes exactly.
//
//contract:proves eska-ide-api.editing.history
func TestHistoryVerified(t *testing.T) {
	const desc = "Catalogs/Товары.xml"
	evil := []byte("<MetaDataObject>planted</MetaDataObject>")
	cases := []struct {
		name string
		bad  func(sh *stateHarness, path string)
	}{
		{"edited", func(sh *stateHarness, path string) {
			tamper(t, path, func(head, body []byte) []byte {
				var hf edithistory.File
				json.Unmarshal(body, &hf)
				hf.Undo[0].Before = evil
				nb, _ := json.Marshal(hf)
				return append(append(head, '\n'), nb...)
			})
		}},
		{"another user's key", func(sh *stateHarness, path string) {
			tamper(t, path, func(head, body []byte) []byte {
				var hf edithistory.File
				json.Unmarshal(body, &hf)
				hf.Undo[0].Before = evil
				nb, _ := json.Marshal(hf)
				return signWith(bytes.Repeat([]byte{7}, signedfile.KeySize), edithistory.Format, nb)
			})
		}},
		{"another format", func(sh *stateHarness, path string) {
			tamper(t, path, func(head, body []byte) []byte {
				return signWith(sh.key(), edithistory.Format+1, body)
			})
		}},
		{"another descriptor", func(sh *stateHarness, path string) {
			tamper(t, path, func(head, body []byte) []byte {
				var hf edithistory.File
				json.Unmarshal(body, &hf)
				hf.File = "Enums/Статусы.xml"
				nb, _ := json.Marshal(hf)
				return signWith(sh.key(), edithistory.Format, nb)
			})
		}},
		{"cut", func(sh *stateHarness, path string) {
			tamper(t, path, func(head, body []byte) []byte { return head })
		}},
		{"a link", func(sh *stateHarness, path string) {
			data, _ := os.ReadFile(path)
			other := filepath.Join(filepath.Dir(path), "copy")
			os.WriteFile(other, data, 0o644)
			os.Remove(path)
			os.Symlink("copy", path)
		}},
		{"untouched", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sh := newStateProject(t)
			v0 := sh.file(desc)
			if _, err := sh.update("catalog:Товары", "Comment", `{"kind":"text","value":"один"}`); err != nil {
				t.Fatal(errText(err))
			}
			v1 := sh.file(desc)
			path := sh.historyPath(desc)
			raw, err := os.ReadFile(path)
			if err != nil || !bytes.HasPrefix(raw, []byte(edithistory.Magic)) {
				t.Fatalf("the history file: %v %.40q", err, raw)
			}
			if c.bad != nil {
				c.bad(sh, path)
			}
			next := sh.again()
			_, err = next.undo("catalog:Товары", false)
			if c.bad == nil {
				if err != nil || next.file(desc) != v0 {
					t.Fatalf("a good history does not undo: %s", errText(err))
				}
				return
			}
			if err == nil || err.(*gen.RPCError).Code != gen.CodeInvalidParams {
				t.Errorf("undo: %s", errText(err))
			}
			if next.file(desc) != v1 {
				t.Errorf("the descriptor changed: %q", next.file(desc))
			}
			if !slices.Contains(next.diags, edithistory.DiagRejected) || len(next.words) == 0 {
				t.Errorf("diagnostics %v, words %v", next.diags, next.words)
			}
		})
	}
}

// A history file is read up to edithistory.MaxFileBytes: a valid one of
// exactly that size is replayed, one byte more is dropped.
//
//contract:proves eska-ide-api.editing.history
func TestHistorySizeLimit(t *testing.T) {
	const desc = "Catalogs/Товары.xml"
	for _, size := range []int{edithistory.MaxFileBytes, edithistory.MaxFileBytes + 1} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			sh := newStateProject(t)
			v0 := sh.file(desc)
			if _, err := sh.update("catalog:Товары", "Comment", `{"kind":"text","value":"один"}`); err != nil {
				t.Fatal(errText(err))
			}
			path := sh.historyPath(desc)
			tamper(t, path, func(head, body []byte) []byte {
				// JSON may end in spaces; the signature covers them.
				pad := size - (len(signWith(sh.key(), edithistory.Format, body)))
				return signWith(sh.key(), edithistory.Format, append(body, bytes.Repeat([]byte{' '}, pad)...))
			})
			if st, err := os.Stat(path); err != nil || st.Size() != int64(size) {
				t.Fatalf("the file is %v bytes (%v), want %d", st.Size(), err, size)
			}
			next := sh.again()
			_, err := next.undo("catalog:Товары", false)
			if size <= edithistory.MaxFileBytes {
				if err != nil || next.file(desc) != v0 {
					t.Errorf("at the limit: %s", errText(err))
				}
				return
			}
			if err == nil || !slices.Contains(next.diags, edithistory.DiagRejected) {
				t.Errorf("one past the limit: %s, %v", errText(err), next.diags)
			}
		})
	}
}
