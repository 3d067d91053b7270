package contractdiff

import (
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// A removed value has no line in the current file. Its finding points at
// the line of the current file where the removal shows in a diff of the
// two files: the first line after the removed ones (the next element, or
// the line closing the list), which every diff hunk of the removal holds,
// rather than the line opening the list, which may be far away.

// removalLines maps each 1-based line of the baseline file to the line of
// the current file next to it in a line diff of the two: the same line
// for an unchanged one, the first following line for a removed one.
func removalLines(base, cur string) []int {
	dmp := diffmatchpatch.New()
	// No deadline: with the default one (1 s) a busy machine gets a
	// coarser diff, and the same specs got other annotation lines.
	dmp.DiffTimeout = 0
	ca, cb, lines := dmp.DiffLinesToChars(base, cur)
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	out := []int{0}
	curLine := 1
	last := max(1, strings.Count(cur, "\n"))
	for _, d := range diffs {
		n := strings.Count(d.Text, "\n")
		if !strings.HasSuffix(d.Text, "\n") {
			n++
		}
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			for i := 0; i < n; i++ {
				out = append(out, curLine+i)
			}
			curLine += n
		case diffmatchpatch.DiffDelete:
			for i := 0; i < n; i++ {
				out = append(out, min(curLine, last))
			}
		case diffmatchpatch.DiffInsert:
			curLine += n
		}
	}
	return out
}

// removalLine returns the current line of a value removed from the
// baseline at basePtr, or 0 when it cannot be told.
func (c *comparer) removalLine(basePtr string) int {
	if c.lineMap == nil {
		c.lineMap = removalLines(string(c.base.Raw()), string(c.cur.Raw()))
	}
	l := c.base.Line(basePtr)
	if l <= 0 || l >= len(c.lineMap) {
		return 0
	}
	return c.lineMap[l]
}
