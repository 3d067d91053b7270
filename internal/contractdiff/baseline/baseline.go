// Package baseline reads the specs contractdiff compares against: every
// spec/*.json of a git revision (with git show) or of a folder laid out
// like the repository, each checked against the meta-schema of that same
// revision, so that a baseline valid under its own format stays readable
// after the format evolves.
package baseline

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing/fstest"

	"github.com/contractkit/contractkit/internal/spec"
)

// Baseline is the revision the current specs are compared with.
type Baseline struct {
	// Label is what the user named: a git ref or a folder.
	Label string
	// Commit is the full hash a git ref resolved to ("" for a folder).
	Commit string
	// Missing is set when there is no baseline at all (an empty or
	// all-zero ref with missing baselines allowed): nothing to compare.
	Missing bool
	// Domains are the baseline's specs, sorted by domain id.
	Domains []*spec.Domain
	// Dispositions is the dispositions file of the baseline, nil when it
	// has none.
	Dispositions []byte
}

// Error is a baseline that cannot be read. Problems are the spec
// diagnostics, each prefixed with the revision.
type Error struct {
	Msg      string
	Problems []string
}

func (e *Error) Error() string {
	if len(e.Problems) == 0 {
		return e.Msg
	}
	return e.Msg + "\n" + strings.Join(e.Problems, "\n")
}

// zeroRef matches the all-zero object name git and CI systems use for "no
// commit" (for example the "before" of a push that creates a branch).
var zeroRef = regexp.MustCompile(`^0+$`)

// IsEmptyRef reports whether ref names no commit at all: empty, or all zeros.
func IsEmptyRef(ref string) bool {
	return strings.TrimSpace(ref) == "" || zeroRef.MatchString(ref)
}

// Layout says where a revision keeps what a baseline reads: its specs,
// its own meta-schema and its dispositions file.
type Layout struct {
	// Lists are the folders whose files (recursively) may be specs.
	Lists []string
	// IsSpec reports whether a repository-relative file is a spec.
	IsSpec func(p string) bool
	// MetaSchema is the path of the revision's own meta-schema, read in
	// place of the current one when the revision has it; "" reads none.
	MetaSchema string
	// Dispositions is the path of the dispositions file.
	Dispositions string
}

// DefaultLayout is spec/*.json with spec/contract.schema.json and
// contract-change-dispositions.json at the root.
var DefaultLayout = Layout{
	Lists:        []string{spec.SpecDir},
	IsSpec:       isSpecFile,
	MetaSchema:   spec.MetaSchemaPath,
	Dispositions: dispositionsFile,
}

// FromGit reads the baseline at ref of the git repository at dir in the
// default layout.
func FromGit(dir, ref string, currentMeta []byte, allowMissing bool, reuse ...*spec.Domain) (*Baseline, error) {
	return FromGitIn(DefaultLayout, dir, ref, currentMeta, allowMissing, reuse...)
}

// FromGitIn reads the baseline at ref of the git repository at dir. An empty
// or all-zero ref is a missing baseline, allowed only with allowMissing; a
// ref git cannot resolve is always an error. currentMeta is the
// meta-schema used for a revision that has none of its own.
//
// reuse are the current specs: a baseline spec with the same bytes, read
// with the same meta-schema, is that spec, and is not parsed again.
func FromGitIn(l Layout, dir, ref string, currentMeta []byte, allowMissing bool, reuse ...*spec.Domain) (*Baseline, error) {
	if IsEmptyRef(ref) {
		if !allowMissing {
			return nil, &Error{Msg: fmt.Sprintf("baseline ref %q names no commit; pass --allow-missing-baseline to take the current specs as the starting point", ref)}
		}
		return &Baseline{Label: ref, Missing: true}, nil
	}
	if strings.HasPrefix(ref, "-") {
		return nil, &Error{Msg: fmt.Sprintf("baseline ref %q: a ref cannot start with '-'", ref)}
	}
	g := git{dir: dir}
	if _, err := g.run("rev-parse", "--git-dir"); err != nil {
		return nil, &Error{Msg: fmt.Sprintf("baseline ref %q: %s is not in a git repository (%v)", ref, dir, err)}
	}
	out, err := g.run("rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		if _, ok := err.(*exec.ExitError); ok {
			return nil, &Error{Msg: fmt.Sprintf("baseline ref %q is not a commit of the repository at %s (for a shallow clone, fetch more history)", ref, dir)}
		}
		return nil, &Error{Msg: fmt.Sprintf("baseline ref %q: %v", ref, err)}
	}
	commit := strings.TrimSpace(string(out))
	b := &Baseline{Label: ref, Commit: commit}
	// One listing and one batch read for every file: a git process costs
	// more than parsing the specs it reads.
	pathspecs := append([]string{}, l.Lists...)
	pathspecs = append(pathspecs, l.Dispositions)
	if l.MetaSchema != "" {
		pathspecs = append(pathspecs, l.MetaSchema)
	}
	files, err := g.blobs(commit, pathspecs...)
	if err != nil {
		return nil, &Error{Msg: fmt.Sprintf("baseline %s: list %s: %v", ref, strings.Join(l.Lists, ", "), err)}
	}
	var want []string
	seen := map[string]bool{}
	for _, f := range files {
		if !seen[f] && ((l.MetaSchema != "" && f == l.MetaSchema) || f == l.Dispositions || l.IsSpec(f)) {
			seen[f] = true
			want = append(want, f)
		}
	}
	blobs, err := g.catFiles(commit, want)
	if err != nil {
		return nil, &Error{Msg: fmt.Sprintf("baseline %s: %v", ref, err)}
	}
	meta := currentMeta
	var specs []string
	for _, f := range want {
		switch {
		case l.MetaSchema != "" && f == l.MetaSchema:
			meta = blobs[f]
		case f == l.Dispositions:
			b.Dispositions = blobs[f]
		default:
			specs = append(specs, f)
		}
	}
	read := func(p string) ([]byte, error) { return blobs[p], nil }
	b.Domains, err = parse(ref, meta, specs, read, same(meta, currentMeta, reuse))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// dispositionsFile is read from the baseline to tell settled dispositions
// from stale ones (see package disposition).
const dispositionsFile = "contract-change-dispositions.json"

// FromDir reads the baseline from a folder laid out like the repository
// (spec/*.json, optionally spec/contract.schema.json).
func FromDir(dir string, currentMeta []byte, reuse ...*spec.Domain) (*Baseline, error) {
	return FromDirIn(DefaultLayout, dir, currentMeta, reuse...)
}

// FromDirIn reads the baseline from a folder laid out like the repository.
func FromDirIn(l Layout, dir string, currentMeta []byte, reuse ...*spec.Domain) (*Baseline, error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, &Error{Msg: fmt.Sprintf("baseline folder %s does not exist or is not a folder", dir)}
	}
	fsys := os.DirFS(dir)
	b := &Baseline{Label: dir}
	var specs []string
	for _, root := range l.Lists {
		err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			if !d.IsDir() && l.IsSpec(p) {
				specs = append(specs, p)
			}
			return nil
		})
		if err != nil {
			return nil, &Error{Msg: fmt.Sprintf("baseline %s: %v", dir, err)}
		}
	}
	sort.Strings(specs)
	specs = slices.Compact(specs)
	meta := currentMeta
	if l.MetaSchema != "" {
		if data, err := fs.ReadFile(fsys, l.MetaSchema); err == nil {
			meta = data
		}
	}
	if data, err := fs.ReadFile(fsys, l.Dispositions); err == nil {
		b.Dispositions = data
	}
	b.Domains, err = parse(dir, meta, specs, func(p string) ([]byte, error) { return fs.ReadFile(fsys, p) }, same(meta, currentMeta, reuse))
	if err != nil {
		return nil, err
	}
	return b, nil
}

func isSpecFile(p string) bool {
	return path.Dir(p) == spec.SpecDir && strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".schema.json")
}

// parse checks each baseline spec against the baseline's meta-schema.
// Source anchors are not checked: they point into the baseline's tree.
// same returns the reusable current specs by file, or nil when the
// baseline's meta-schema differs from the current one (the same bytes may
// then be read otherwise).
func same(meta, currentMeta []byte, reuse []*spec.Domain) map[string]*spec.Domain {
	if !bytes.Equal(meta, currentMeta) {
		return nil
	}
	m := map[string]*spec.Domain{}
	for _, d := range reuse {
		m[d.File] = d
	}
	return m
}

func parse(label string, meta []byte, files []string, read func(string) ([]byte, error), reuse map[string]*spec.Domain) ([]*spec.Domain, error) {
	metaFS := fstest.MapFS{spec.MetaSchemaPath: {Data: meta}}
	var out []*spec.Domain
	var problems []string
	byID := map[string]string{}
	for _, f := range files {
		data, err := read(f)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s:%s: %v", label, f, err))
			continue
		}
		var d *spec.Domain
		var diags spec.Diagnostics
		if r := reuse[f]; r != nil && bytes.Equal(r.Raw(), data) {
			d = r
		} else {
			d, diags = spec.ParseOne(metaFS, f, data)
		}
		if diags.HasErrors() {
			for _, dg := range diags.Errors() {
				problems = append(problems, label+":"+dg.String())
			}
			continue
		}
		if o, dup := byID[d.Header.ID]; dup {
			problems = append(problems, fmt.Sprintf("%s:%s: domain %s is also declared by %s", label, f, d.Header.ID, o))
			continue
		}
		byID[d.Header.ID] = f
		out = append(out, d)
	}
	if len(problems) > 0 {
		return nil, &Error{Msg: fmt.Sprintf("the baseline specs at %s are invalid", label), Problems: problems}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Header.ID < out[j].Header.ID })
	return out, nil
}

// git runs git in one repository.
type git struct{ dir string }

func (g git) run(args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", g.dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			ee.Stderr = stderr.Bytes()
			if msg := strings.TrimSpace(stderr.String()); msg != "" && !isQuiet(args) {
				return nil, fmt.Errorf("git %s: %s", args[0], msg)
			}
			return nil, ee
		}
		return nil, fmt.Errorf("git: %w", err)
	}
	return out, nil
}

func isQuiet(args []string) bool {
	for _, a := range args {
		if a == "--quiet" {
			return true
		}
	}
	return false
}

// catFiles reads the given files of commit with one git cat-file.
func (g git) catFiles(commit string, paths []string) (map[string][]byte, error) {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = commit + ":" + p
	}
	blobs, err := g.catObjects(names)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for i, p := range paths {
		b, ok := blobs[names[i]]
		if !ok {
			return nil, fmt.Errorf("git cat-file: %s: missing", p)
		}
		out[p] = b.data
	}
	return out, nil
}

// blob is a file's content and its object name.
type blob struct {
	sha  string
	data []byte
}

// catObjects reads the named blobs ("<rev>:<path>") with one git cat-file;
// a name git does not find is absent from the map.
func (g git) catObjects(names []string) (map[string]blob, error) {
	out := map[string]blob{}
	if len(names) == 0 {
		return out, nil
	}
	var in bytes.Buffer
	for _, n := range names {
		in.WriteString(n + "\n")
	}
	cmd := exec.Command("git", "-C", g.dir, "cat-file", "--batch")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	data, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %v %s", err, strings.TrimSpace(stderr.String()))
	}
	// Each answer is "<sha> <type> <size>\n<content>\n", or "<name> missing\n".
	for _, name := range names {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("git cat-file: short answer for %s", name)
		}
		head := strings.Fields(string(data[:nl]))
		data = data[nl+1:]
		if len(head) == 2 && head[1] == "missing" {
			continue
		}
		if len(head) != 3 || head[1] != "blob" {
			return nil, fmt.Errorf("git cat-file: %s: %s", name, strings.Join(head, " "))
		}
		n, err := strconv.Atoi(head[2])
		if err != nil || n > len(data) {
			return nil, fmt.Errorf("git cat-file: %s: bad size %q", name, head[2])
		}
		out[name] = blob{sha: head[0], data: data[:n:n]}
		data = data[n:]
		if len(data) > 0 && data[0] == '\n' {
			data = data[1:]
		}
	}
	return out, nil
}

// blobs lists the files (blobs) at the pathspecs in commit, those in
// folders recursively.
func (g git) blobs(commit string, pathspecs ...string) ([]string, error) {
	out, err := g.run(append([]string{"ls-tree", "-r", "-z", commit, "--"}, pathspecs...)...)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, name, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		if f := strings.Fields(meta); len(f) == 3 && f[1] == "blob" {
			files = append(files, filepath.ToSlash(name))
		}
	}
	sort.Strings(files)
	return files, nil
}
