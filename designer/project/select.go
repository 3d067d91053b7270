package project

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contractkit/contractkit/generated/ide"
)

// Select picks the projects sel names from c, in the workspace's declaration
// order. The result is a fresh slice the caller may keep.
func (c *Context) Select(sel Selection) ([]Project, error) {
	switch s := sel.(type) {
	case ide.SelectionCurrent, *ide.SelectionCurrent:
		return c.current()
	case ide.SelectionAll, *ide.SelectionAll:
		if !c.Workspace {
			return nil, c.selectionError("selection all is for a workspace; a standalone project accepts only current")
		}
		return slices.Clone(c.Projects), nil
	case ide.NamedSelection:
		return c.named(s.Names)
	case *ide.NamedSelection:
		if s != nil {
			return c.named(s.Names)
		}
	}
	return nil, c.selectionError(fmt.Sprintf("selection %T is not current, all or named", sel))
}

func (c *Context) current() ([]Project, error) {
	if c.Current == "" {
		return slices.Clone(c.Projects), nil
	}
	for _, p := range c.Projects {
		if p.Scope.Member == c.Current {
			return []Project{p}, nil
		}
	}
	// Only a hand-built Context gets here; Discover sets Current to a member
	// it loaded.
	return nil, c.selectionError(fmt.Sprintf("current member %q is not a member of the workspace", c.Current))
}

func (c *Context) named(names []string) ([]Project, error) {
	if !c.Workspace {
		return nil, c.selectionError("selection named is for a workspace; a standalone project accepts only current")
	}
	if len(names) == 0 {
		return nil, c.selectionError("selection named lists no members")
	}
	want := make(map[string]bool, len(names))
	for _, name := range names {
		if want[name] {
			return nil, c.selectionError(fmt.Sprintf("selection names member %q twice", name))
		}
		want[name] = true
	}
	var out []Project
	for _, p := range c.Projects {
		if want[p.Scope.Member] {
			out = append(out, p)
			delete(want, p.Scope.Member)
		}
	}
	for _, name := range names {
		if want[name] {
			return nil, c.selectionError(fmt.Sprintf("workspace has no member %q; members are %s", name, c.memberList()))
		}
	}
	return out, nil
}

func (c *Context) memberList() string {
	quoted := make([]string, len(c.Projects))
	for i, p := range c.Projects {
		quoted[i] = fmt.Sprintf("%q", p.Scope.Member)
	}
	return strings.Join(quoted, ", ")
}

func (c *Context) selectionError(msg string) error {
	return fail(ReasonSelectionInvalid, c.Manifest, msg, nil)
}
