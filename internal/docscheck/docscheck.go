// Package docscheck validates the generated bilingual markdown reference
// pages (Docs/<lang>/reference/...). It parses every page with goldmark using
// the GFM extensions, so the checks see exactly the structure a renderer sees,
// and reports defects that a renderer would silently hide: broken relative
// links and fragments, duplicate anchors, ragged tables, and structural drift
// between the language versions of a page.
package docscheck

import (
	"fmt"
	"sort"
	"strings"
)

// Problem is one defect. Line is 1-based; 0 means the problem concerns the
// file as a whole (for example a page missing in the other language).
type Problem struct {
	Path string
	Line int
	Msg  string
}

// String formats the problem as "path:line: message" so that editors and CI
// logs can jump to it; file-level problems (Line 0) print as "path: message".
func (p Problem) String() string {
	if p.Line <= 0 {
		return fmt.Sprintf("%s: %s", p.Path, p.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Msg)
}

// Page is the structure of one parsed markdown page, reduced to what the
// checks compare. Everything is kept in document order because the language
// versions are compared position by position.
type Page struct {
	// Path is slash-separated and relative to the repository root, e.g.
	// "Docs/en/reference/x/index.md"; relative links are resolved against it.
	Path     string
	Anchors  []Anchor
	Headings []Heading
	Links    []Link
	Code     []CodeBlock
	Tables   []Table
}

// Anchor is a link target declared by a raw HTML element: an id attribute on
// any element, or a name attribute on <a>. Heading slugs are deliberately not
// anchors, because they would differ between languages.
type Anchor struct {
	ID   string
	Line int
}

// Heading is an ATX or setext heading. Text is the plain text without raw
// HTML; Anchors are the ids declared inside the heading itself.
type Heading struct {
	Level   int
	Text    string
	Anchors []string
	Line    int
}

// Link is a link destination as the renderer would emit it: backslash
// escapes and character references resolved, percent-encoding kept. It comes
// from markdown links, images, autolinks and raw HTML <a href>.
type Link struct {
	Dest string
	Line int
}

// CodeBlock is a fenced or indented code block. Info is the whole fence info
// string (empty for indented blocks); Line is the line of the opening fence or
// of the first indented line.
type CodeBlock struct {
	Info string
	Text string
	Line int
}

// Table is a GFM table. Line is the header row's line, Columns the header
// row's cell count as written in the source, and Rows the body rows (the
// header and delimiter rows are not included).
type Table struct {
	Line    int
	Columns int
	Rows    []TableRow
}

// TableRow is one body row. Cells is counted from the raw source line, not
// from the AST, because goldmark pads short rows and truncates long ones.
type TableRow struct {
	Line  int
	Cells int
}

// sortProblems orders problems for stable, readable output.
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Path != ps[j].Path {
			return ps[i].Path < ps[j].Path
		}
		if ps[i].Line != ps[j].Line {
			return ps[i].Line < ps[j].Line
		}
		return ps[i].Msg < ps[j].Msg
	})
}

// formatIDs renders an id list the way the messages show it: [a b].
func formatIDs(ids []string) string {
	return "[" + strings.Join(ids, " ") + "]"
}
