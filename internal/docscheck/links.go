package docscheck

import (
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
)

// CheckLinks verifies every relative link of every page. The target file or
// directory must exist: pages in the set count as existing, anything else is
// asked of exists, which receives a cleaned slash path relative to the
// repository root ("." for the root itself). A #fragment must name an anchor
// of the target page, the linking page itself for "#x". A fragment into a
// markdown file outside the set cannot be verified and is reported; a
// fragment into an existing non-markdown file or directory is not checked.
//
// Absolute URLs (any scheme, or "//host") are skipped. A destination starting
// with "/" is taken relative to the repository root, as GitHub does.
func CheckLinks(pages map[string]*Page, exists func(path string) bool) []Problem {
	keys := make([]string, 0, len(pages))
	for k, pg := range pages {
		if pg != nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)

	c := &linkChecker{
		index:   make(map[string]*Page),
		anchors: make(map[*Page]map[string]bool),
		exists:  exists,
	}
	for _, k := range keys {
		pg := pages[k]
		c.index[cleanRepoPath(k)] = pg
		if pg.Path != "" {
			c.index[cleanRepoPath(pg.Path)] = pg
		}
	}

	var problems []Problem
	for _, k := range keys {
		pg := pages[k]
		from := pg.Path
		if from == "" {
			from = k
		}
		for _, l := range pg.Links {
			if msg := c.check(from, l.Dest); msg != "" {
				problems = append(problems, Problem{Path: from, Line: l.Line, Msg: msg})
			}
		}
	}
	sortProblems(problems)
	return problems
}

type linkChecker struct {
	index   map[string]*Page
	anchors map[*Page]map[string]bool
	exists  func(string) bool
}

func cleanRepoPath(p string) string {
	return path.Clean(strings.TrimLeft(p, "/"))
}

// check returns a message for a broken link, or "" when it is fine.
func (c *linkChecker) check(from, dest string) string {
	if isAbsoluteURL(dest) {
		return ""
	}
	if strings.TrimSpace(dest) == "" {
		return "link has an empty destination"
	}
	ref, frag, hasFrag := strings.Cut(dest, "#")
	if i := strings.IndexByte(ref, '?'); i >= 0 {
		ref = ref[:i]
	}

	target := cleanRepoPath(from)
	if ref != "" {
		p, err := url.PathUnescape(ref)
		if err != nil {
			return fmt.Sprintf("link %q has malformed percent-encoding", dest)
		}
		if strings.HasPrefix(p, "/") {
			target = cleanRepoPath(p)
		} else {
			target = path.Join(path.Dir(cleanRepoPath(from)), p)
		}
		if target == ".." || strings.HasPrefix(target, "../") {
			return fmt.Sprintf("link %q leads outside the repository root", dest)
		}
	}

	pg, isPage := c.index[target]
	if !isPage {
		if c.exists == nil || !c.exists(target) {
			return fmt.Sprintf("broken link %q: %s does not exist", dest, target)
		}
		if hasFrag && frag != "" && strings.EqualFold(path.Ext(target), ".md") {
			return fmt.Sprintf("link %q: cannot verify anchor %q because %s is not among the checked pages", dest, frag, target)
		}
		return ""
	}
	if !hasFrag || frag == "" || c.hasAnchor(pg, frag) {
		return ""
	}
	return fmt.Sprintf("broken link %q: no anchor %q in %s", dest, frag, target)
}

// hasAnchor accepts the fragment as written or percent-decoded, because
// browsers try both when matching an id.
func (c *linkChecker) hasAnchor(pg *Page, frag string) bool {
	set, ok := c.anchors[pg]
	if !ok {
		set = make(map[string]bool, len(pg.Anchors))
		for _, a := range pg.Anchors {
			set[a.ID] = true
		}
		c.anchors[pg] = set
	}
	if set[frag] {
		return true
	}
	if dec, err := url.PathUnescape(frag); err == nil && set[dec] {
		return true
	}
	return false
}

// isAbsoluteURL reports whether dest leaves the repository: it has a URL
// scheme (https:, mailto:, ...) or is scheme-relative ("//host/...").
func isAbsoluteURL(dest string) bool {
	if strings.HasPrefix(dest, "//") {
		return true
	}
	i := strings.IndexAny(dest, ":/?#")
	if i <= 0 || dest[i] != ':' {
		return false
	}
	for j := 0; j < i; j++ {
		ch := dest[j]
		switch {
		case isASCIILetter(ch):
		case j > 0 && (ch >= '0' && ch <= '9' || ch == '+' || ch == '-' || ch == '.'):
		default:
			return false
		}
	}
	return true
}
