// Package gencache lets gen --check answer "up to date" without
// regenerating, when it can prove that nothing generation depends on has
// changed since a generation whose output the tree already held.
//
// Generation is a deterministic function of the generator build and of
// what it reads through its file system. A Recorder wraps that file system
// and notes every read: each file's content digest, each directory's
// listing, each stat, each miss. An Entry keeps those reads with the
// digest of the generator executable and the digest of every output file.
// Verify replays every read against the tree as it is now and compares
// each result, then compares every output file and the owned folders'
// listings with the entry: only when all of it is identical is the tree
// up to date. Anything else, including an entry that cannot be read, is a
// miss, and the caller generates as if there were no cache. The cache is
// verified on every use, never trusted: it only ever saves work.
package gencache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"testing/fstest"
	"time"
)

// Read kinds.
const (
	OpFile    = "file"    // ReadFile or Open of a file: Digest is its content's
	OpDir     = "dir"     // ReadDir: Digest is that of the listing (names and kinds)
	OpStat    = "stat"    // Stat: Digest is "dir" or "file"
	OpMissing = "missing" // a read that found nothing
)

// Read is one observation generation made of its file system.
type Read struct {
	Op     string `json:"op"`
	Path   string `json:"path"`
	Digest string `json:"digest,omitempty"`
}

// Recorder is a file system that records what is read through it.
type Recorder struct {
	fsys  fs.FS
	mu    sync.Mutex
	reads map[string]Read // by op and path
}

// Record wraps fsys.
func Record(fsys fs.FS) *Recorder { return &Recorder{fsys: fsys, reads: map[string]Read{}} }

// Reads returns every read so far, sorted by path and kind.
func (r *Recorder) Reads() []Read {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Read, 0, len(r.reads))
	for _, x := range r.reads {
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Op < out[j].Op
	})
	return out
}

func (r *Recorder) note(x Read) {
	r.mu.Lock()
	r.reads[x.Op+"\x00"+x.Path] = x
	r.mu.Unlock()
}

// ReadFile implements fs.ReadFileFS.
func (r *Recorder) ReadFile(name string) ([]byte, error) {
	data, err := fs.ReadFile(r.fsys, name)
	r.note(fileRead(name, data, err))
	return data, err
}

// Open implements fs.FS. A file is read whole, so that its digest is what
// the reader got; a directory is listed.
func (r *Recorder) Open(name string) (fs.File, error) {
	st, err := fs.Stat(r.fsys, name)
	if err != nil {
		r.note(missing(name, err))
		return nil, err
	}
	if st.IsDir() {
		ents, err := r.ReadDir(name)
		if err != nil {
			return nil, err
		}
		m := fstest.MapFS{}
		for _, e := range ents {
			mode := fs.FileMode(0o644)
			if e.IsDir() {
				mode = fs.ModeDir | 0o755
			}
			m[e.Name()] = &fstest.MapFile{Mode: mode}
		}
		return m.Open(".")
	}
	data, err := r.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return fstest.MapFS{"f": &fstest.MapFile{Data: data, Mode: st.Mode(), ModTime: time.Time{}}}.Open("f")
}

// ReadDir implements fs.ReadDirFS.
func (r *Recorder) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := fs.ReadDir(r.fsys, name)
	if err != nil {
		r.note(missing(name, err))
		return ents, err
	}
	r.note(Read{Op: OpDir, Path: name, Digest: listingDigest(ents)})
	return ents, nil
}

// Stat implements fs.StatFS.
func (r *Recorder) Stat(name string) (fs.FileInfo, error) {
	st, err := fs.Stat(r.fsys, name)
	if err != nil {
		r.note(missing(name, err))
		return st, err
	}
	r.note(Read{Op: OpStat, Path: name, Digest: kind(st.IsDir())})
	return st, nil
}

func fileRead(name string, data []byte, err error) Read {
	if err != nil {
		return missing(name, err)
	}
	return Read{Op: OpFile, Path: name, Digest: digest(data)}
}

// missing records a failed read. Only absence is a stable observation;
// any other failure (permissions, I/O) is recorded so that it never
// matches and the next run generates.
func missing(name string, err error) Read {
	if errors.Is(err, fs.ErrNotExist) {
		return Read{Op: OpMissing, Path: name}
	}
	return Read{Op: OpMissing, Path: name, Digest: "error: " + err.Error()}
}

func kind(dir bool) string {
	if dir {
		return "dir"
	}
	return "file"
}

func listingDigest(ents []fs.DirEntry) string {
	var b strings.Builder
	for _, e := range ents {
		b.WriteString(kind(e.IsDir()))
		b.WriteByte(' ')
		b.WriteString(e.Name())
		b.WriteByte('\n')
	}
	return digest([]byte(b.String()))
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// replay performs x again on fsys and reports whether it sees the same.
func replay(fsys fs.FS, x Read) bool {
	switch x.Op {
	case OpFile:
		data, err := fs.ReadFile(fsys, x.Path)
		return err == nil && digest(data) == x.Digest
	case OpDir:
		ents, err := fs.ReadDir(fsys, x.Path)
		return err == nil && listingDigest(ents) == x.Digest
	case OpStat:
		st, err := fs.Stat(fsys, x.Path)
		return err == nil && kind(st.IsDir()) == x.Digest
	case OpMissing:
		if x.Digest != "" {
			return false
		}
		_, err := fs.Stat(fsys, x.Path)
		return errors.Is(err, fs.ErrNotExist)
	}
	return false
}
