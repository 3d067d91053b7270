package docscheck

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// CheckTree checks the markdown pages of a repository. root is the
// repository; dirs are slash paths (relative to root) whose *.md files are
// parsed recursively. Every page is run through Parse and CheckLinks. Pages
// under langDirs[0] and langDirs[1] (for example "Docs/en/reference" and
// "Docs/ru/reference") are paired by their path relative to the language
// directory and compared with ComparePair, the langDirs[1] page first, so
// structural drift is reported on the translation; a page without a
// counterpart is a problem too. The language directories are parsed even if
// dirs does not cover them. Leave both langDirs empty to skip the pairing.
//
// The error is for a tree that cannot be read (a missing directory, an
// unreadable file, an invalid path), not for defects in the pages.
// Problems are sorted by path, then line.
func CheckTree(root fs.FS, dirs []string, langDirs [2]string) ([]Problem, error) {
	if root == nil {
		return nil, errors.New("docscheck: nil file system")
	}
	pairing := langDirs[0] != "" || langDirs[1] != ""
	walk := append([]string(nil), dirs...)
	if pairing {
		for i := range langDirs {
			langDirs[i] = path.Clean(strings.Trim(langDirs[i], "/"))
			if langDirs[i] == "." || !fs.ValidPath(langDirs[i]) {
				return nil, fmt.Errorf("docscheck: language directory %q is not a directory below the root", langDirs[i])
			}
		}
		if within(langDirs[0], langDirs[1]) || within(langDirs[1], langDirs[0]) {
			return nil, fmt.Errorf("docscheck: language directories %q and %q overlap", langDirs[0], langDirs[1])
		}
		walk = append(walk, langDirs[0], langDirs[1])
	}

	pages := make(map[string]*Page)
	var problems []Problem
	for _, dir := range walk {
		dir = path.Clean(strings.Trim(dir, "/"))
		if !fs.ValidPath(dir) {
			return nil, fmt.Errorf("docscheck: invalid directory %q", dir)
		}
		err := fs.WalkDir(root, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.EqualFold(path.Ext(p), ".md") {
				return nil
			}
			if _, done := pages[p]; done {
				return nil
			}
			src, err := fs.ReadFile(root, p)
			if err != nil {
				return err
			}
			page, probs := Parse(p, src)
			pages[p] = page
			problems = append(problems, probs...)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("docscheck: %w", err)
		}
	}

	problems = append(problems, CheckLinks(pages, func(p string) bool {
		if !fs.ValidPath(p) {
			return false
		}
		_, err := fs.Stat(root, p)
		return err == nil
	})...)

	if pairing {
		problems = append(problems, comparePages(pages, langDirs)...)
	}
	sortProblems(problems)
	return problems, nil
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

func comparePages(pages map[string]*Page, langDirs [2]string) []Problem {
	paths := make([]string, 0, len(pages))
	for p := range pages {
		paths = append(paths, p)
	}
	sort.Strings(paths)

	var out []Problem
	for _, p := range paths {
		for side := 0; side < 2; side++ {
			dir, other := langDirs[side], langDirs[1-side]
			if !strings.HasPrefix(p, dir+"/") {
				continue
			}
			counterpart := other + p[len(dir):]
			twin, ok := pages[counterpart]
			switch {
			case !ok:
				out = append(out, Problem{Path: p, Msg: fmt.Sprintf("page has no counterpart in the other language: %s does not exist", counterpart)})
			case side == 1:
				out = append(out, ComparePair(pages[p], twin)...)
			}
		}
	}
	return out
}
