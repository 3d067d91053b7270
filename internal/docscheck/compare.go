package docscheck

import (
	"fmt"
	"slices"
	"strings"
)

// ComparePair reports the structural differences between two language
// versions of one page: the heading sequence (level and anchor ids, not the
// translated text), the ordered anchor ids, the code blocks (info string and
// exact text), and the tables (how many, and each one's column and row count).
//
// Problems are attached to a, with b's path and line in the message. When
// both pages have the same number of items of a kind, every differing
// position is reported, since the positions still correspond; when the counts
// differ, only the first differing position is, because everything after an
// inserted or missing item would differ too and bury the real cause.
func ComparePair(a, b *Page) []Problem {
	if a == nil || b == nil {
		return nil
	}
	var out []Problem
	out = append(out, compareSeq(a, b, seq{
		kind: "heading",
		lenA: len(a.Headings), lenB: len(b.Headings),
		line: func(p *Page, i int) int { return p.Headings[i].Line },
		same: func(i int) bool {
			return a.Headings[i].Level == b.Headings[i].Level && slices.Equal(a.Headings[i].Anchors, b.Headings[i].Anchors)
		},
		describe: func(p *Page, i int) string {
			h := p.Headings[i]
			return fmt.Sprintf("is level %d with anchors %s", h.Level, formatIDs(h.Anchors))
		},
	})...)
	out = append(out, compareSeq(a, b, seq{
		kind: "anchor",
		lenA: len(a.Anchors), lenB: len(b.Anchors),
		line: func(p *Page, i int) int { return p.Anchors[i].Line },
		same: func(i int) bool { return a.Anchors[i].ID == b.Anchors[i].ID },
		describe: func(p *Page, i int) string {
			return fmt.Sprintf("is %q", p.Anchors[i].ID)
		},
	})...)
	out = append(out, compareSeq(a, b, seq{
		kind: "code block",
		lenA: len(a.Code), lenB: len(b.Code),
		line: func(p *Page, i int) int { return p.Code[i].Line },
		same: func(i int) bool { return a.Code[i] == withLine(b.Code[i], a.Code[i].Line) },
		describe: func(p *Page, i int) string {
			return fmt.Sprintf("has info %q and %s", p.Code[i].Info, plural(strings.Count(p.Code[i].Text, "\n"), "line"))
		},
		differ: func(i int) string {
			ca, cb := a.Code[i], b.Code[i]
			if ca.Info != cb.Info {
				return fmt.Sprintf("code block %d (line %d) has info %q, %s code block %d (line %d) has info %q",
					i+1, ca.Line, ca.Info, b.Path, i+1, cb.Line, cb.Info)
			}
			n, la, lb := firstLineDiff(ca.Text, cb.Text)
			return fmt.Sprintf("code block %d (line %d) differs from %s code block %d (line %d) in its line %d: %q vs %q",
				i+1, ca.Line, b.Path, i+1, cb.Line, n, la, lb)
		},
	})...)
	out = append(out, compareSeq(a, b, seq{
		kind: "table",
		lenA: len(a.Tables), lenB: len(b.Tables),
		line: func(p *Page, i int) int { return p.Tables[i].Line },
		same: func(i int) bool {
			return a.Tables[i].Columns == b.Tables[i].Columns && len(a.Tables[i].Rows) == len(b.Tables[i].Rows)
		},
		describe: func(p *Page, i int) string {
			return fmt.Sprintf("has %s and %s", plural(p.Tables[i].Columns, "column"), plural(len(p.Tables[i].Rows), "row"))
		},
	})...)
	sortProblems(out)
	return out
}

func withLine(c CodeBlock, line int) CodeBlock {
	c.Line = line
	return c
}

// seq describes one kind of positional item for compareSeq.
type seq struct {
	kind       string
	lenA, lenB int
	line       func(p *Page, i int) int
	same       func(i int) bool
	describe   func(p *Page, i int) string
	differ     func(i int) string // optional, for a mismatch where both items exist
}

func compareSeq(a, b *Page, s seq) []Problem {
	mismatch := func(i int) Problem {
		msg := ""
		if s.differ != nil {
			msg = s.differ(i)
		} else {
			msg = fmt.Sprintf("%s %d (line %d) %s, %s %s %d (line %d) %s",
				s.kind, i+1, s.line(a, i), s.describe(a, i), b.Path, s.kind, i+1, s.line(b, i), s.describe(b, i))
		}
		return Problem{Path: a.Path, Line: s.line(a, i), Msg: msg}
	}
	n := min(s.lenA, s.lenB)
	if s.lenA == s.lenB {
		var out []Problem
		for i := 0; i < n; i++ {
			if !s.same(i) {
				out = append(out, mismatch(i))
			}
		}
		return out
	}
	for i := 0; i < n; i++ {
		if !s.same(i) {
			p := mismatch(i)
			p.Msg += fmt.Sprintf(" (%s here, %d there)", plural(s.lenA, s.kind), s.lenB)
			return []Problem{p}
		}
	}
	// All shared positions agree: the difference is the first extra item.
	if s.lenA > s.lenB {
		return []Problem{{Path: a.Path, Line: s.line(a, n), Msg: fmt.Sprintf("%s %d (line %d) %s, %s has only %s",
			s.kind, n+1, s.line(a, n), s.describe(a, n), b.Path, plural(s.lenB, s.kind))}}
	}
	line := 0
	if n > 0 {
		line = s.line(a, n-1)
	}
	return []Problem{{Path: a.Path, Line: line, Msg: fmt.Sprintf("has only %s, %s %s %d (line %d) %s",
		plural(s.lenA, s.kind), b.Path, s.kind, n+1, s.line(b, n), s.describe(b, n))}}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// firstLineDiff finds the first differing line (1-based) of two texts.
func firstLineDiff(x, y string) (int, string, string) {
	xs, ys := strings.SplitAfter(x, "\n"), strings.SplitAfter(y, "\n")
	for i := 0; i < max(len(xs), len(ys)); i++ {
		var lx, ly string
		if i < len(xs) {
			lx = xs[i]
		}
		if i < len(ys) {
			ly = ys[i]
		}
		if lx != ly {
			return i + 1, lx, ly
		}
	}
	return 0, "", ""
}
