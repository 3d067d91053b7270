package gen

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"

	"github.com/contractkit/contractkit/internal/atomicfile"
	"github.com/contractkit/contractkit/internal/udiff"
)

// Change is one way the tree on disk differs from the generated output.
type Change struct {
	Path string
	Kind string // "stale", "missing" or "unexpected"
	Diff string // unified diff from disk to output, for stale and missing files
}

// Compare reports every generated file that is stale or missing in the
// repository fsys, and every file in an owned folder that gen would not produce.
func Compare(fsys fs.FS, out *Output) ([]Change, error) {
	var changes []Change
	for _, p := range out.Paths() {
		want := out.Files[p]
		have, err := fs.ReadFile(fsys, p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			changes = append(changes, Change{Path: p, Kind: "missing", Diff: udiff.Unified("/dev/null", "b/"+p, nil, want)})
		case err != nil:
			return nil, err
		case !bytes.Equal(have, want):
			changes = append(changes, Change{Path: p, Kind: "stale", Diff: udiff.Unified("a/"+p, "b/"+p, have, want)})
		}
	}
	extra, err := unexpected(fsys, out)
	if err != nil {
		return nil, err
	}
	for _, p := range extra {
		changes = append(changes, Change{Path: p, Kind: "unexpected"})
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	return changes, nil
}

// unexpected lists files under the owned folders that are not in out.
func unexpected(fsys fs.FS, out *Output) ([]string, error) {
	var extra []string
	for _, dir := range out.Owned {
		err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if _, ok := out.Files[p]; !ok {
				extra = append(extra, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(extra)
	return extra, nil
}

// Write brings the tree under root in line with out: it writes files whose
// content differs (leaving identical files untouched), each atomically and
// never through a symbolic link, removes unexpected files in owned folders
// (among them what a killed write left) and any folders that leaves empty.
func Write(root string, out *Output) (written, removed []string, err error) {
	for _, p := range out.Paths() {
		full := filepath.Join(root, filepath.FromSlash(p))
		if have, err := os.ReadFile(full); err == nil && bytes.Equal(have, out.Files[p]) {
			continue
		}
		// The repository is the user's: a killed gen leaves each file old or
		// new, and a link in an owned folder is not followed out of it.
		if err := atomicfile.WriteFile(root, filepath.FromSlash(p), out.Files[p], 0o644, nil); err != nil {
			return written, removed, err
		}
		written = append(written, p)
	}
	extra, err := unexpected(os.DirFS(root), out)
	if err != nil {
		return written, removed, err
	}
	for _, p := range extra {
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(p))); err != nil {
			return written, removed, err
		}
		removed = append(removed, p)
		// Remove folders the removal emptied, up to the owned folder.
		for dir := path.Dir(p); dir != "." && !isOwnedRoot(out.Owned, dir); dir = path.Dir(dir) {
			if os.Remove(filepath.Join(root, filepath.FromSlash(dir))) != nil {
				break
			}
		}
	}
	return written, removed, nil
}

func isOwnedRoot(owned []string, dir string) bool {
	for _, o := range owned {
		if dir == o {
			return true
		}
	}
	return false
}
