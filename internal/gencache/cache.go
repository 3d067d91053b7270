package gencache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// format is the version of the entry format; an entry of another version
// is a miss.
const format = 1

// keep is how many entries a cache folder holds; older ones are removed.
const keep = 16

// Entry is what one generation read and what it produced.
type Entry struct {
	Format    int               `json:"format"`
	Generator string            `json:"generator"` // digest of the generator executable
	Root      string            `json:"root"`      // absolute repository root
	Reads     []Read            `json:"reads"`
	Outputs   map[string]string `json:"outputs"` // path → content digest
	// Owned are the folders whose every file is output: the listing of
	// each must hold exactly the outputs under it.
	Owned    []string `json:"owned"`
	Specs    int      `json:"specs"`
	Warnings []string `json:"warnings"`
}

// Executable returns the digest of the running executable, which names
// the generator build (its code, its dependencies and the Go toolchain
// that formats its output).
func Executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// file is where the entry of one generator and repository lives.
func file(dir, generator, root string) string {
	sum := sha256.Sum256([]byte(generator + "\x00" + root))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".json")
}

// NewEntry describes a generation: what rec saw and the outputs it made.
func NewEntry(generator, root string, rec *Recorder, outputs map[string][]byte, owned []string, specs int, warnings []string) *Entry {
	e := &Entry{Format: format, Generator: generator, Root: root, Reads: rec.Reads(), Outputs: map[string]string{},
		Owned: append([]string(nil), owned...), Specs: specs, Warnings: append([]string{}, warnings...)}
	for p, data := range outputs {
		e.Outputs[p] = digest(data)
	}
	return e
}

// Store writes the entry into dir, replacing the previous one of the same
// generator and root, and keeps only the newest entries of the folder.
// The entry ends with its own digest, so a torn or altered file is a miss.
func Store(dir string, e *Entry) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	body, err := json.Marshal(e)
	if err != nil {
		return err
	}
	data := append(body, []byte("\n"+digest(body)+"\n")...)
	dst := file(dir, e.Generator, e.Root)
	tmp, err := os.CreateTemp(dir, ".entry-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	prune(dir)
	return nil
}

// prune removes all but the newest entries.
func prune(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var files []aged
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		if info, err := e.Info(); err == nil {
			files = append(files, aged{e.Name(), info.ModTime().UnixNano()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod > files[j].mod })
	for i := keep; i < len(files); i++ {
		os.Remove(filepath.Join(dir, files[i].name))
	}
}

// Load reads the entry of a generator and root, or returns an error (a
// missing, torn or foreign entry).
func Load(dir, generator, root string) (*Entry, error) {
	data, err := os.ReadFile(file(dir, generator, root))
	if err != nil {
		return nil, err
	}
	data = bytes.TrimSuffix(data, []byte("\n"))
	i := bytes.LastIndexByte(data, '\n')
	if i < 0 || digest(data[:i]) != string(data[i+1:]) {
		return nil, errors.New("gencache: entry does not match its digest")
	}
	var e Entry
	if err := json.Unmarshal(data[:i], &e); err != nil {
		return nil, err
	}
	if e.Format != format || e.Generator != generator || e.Root != root {
		return nil, errors.New("gencache: entry of another generator, root or format")
	}
	return &e, nil
}

// Verify reports whether the tree fsys is what the entry describes: every
// recorded read gives the same result again, every output file has the
// recorded content, and the owned folders hold no other file. It stops at
// the first difference and says which.
func (e *Entry) Verify(fsys fs.FS) error {
	// The reads and outputs are checked side by side; most of the time is
	// reading files.
	jobs := make(chan func() error)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range jobs {
				if err := job(); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for _, x := range e.Reads {
		jobs <- func() error {
			if !replay(fsys, x) {
				return fmt.Errorf("%s %s changed", x.Op, x.Path)
			}
			return nil
		}
	}
	for p, want := range e.Outputs {
		jobs <- func() error {
			data, err := fs.ReadFile(fsys, p)
			if err != nil || digest(data) != want {
				return fmt.Errorf("output %s differs", p)
			}
			return nil
		}
	}
	for _, dir := range e.Owned {
		jobs <- func() error { return e.ownedOnly(fsys, dir) }
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// ownedOnly checks that every file under dir is an output.
func (e *Entry) ownedOnly(fsys fs.FS, dir string) error {
	return fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return nil
		}
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if _, ok := e.Outputs[p]; !ok {
			return fmt.Errorf("unexpected file %s", path.Clean(p))
		}
		return nil
	})
}
