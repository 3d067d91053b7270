// Package udiff renders unified diffs of text files. The line diff comes
// from github.com/sergi/go-diff; this package only groups it into hunks
// with context, in the format patch and code review tools read.
package udiff

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Context is the number of unchanged lines shown around each change.
const Context = 3

type line struct {
	op   diffmatchpatch.Operation
	text string
}

// Unified returns the unified diff that turns a into b, or "" when they are
// equal. Names label the two sides ("--- a", "+++ b").
func Unified(aName, bName string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(string(a), string(b))
	diffs := dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
	var all []line
	for _, d := range diffs {
		for _, l := range splitLines(d.Text) {
			all = append(all, line{d.Type, l})
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	// Walk the lines, emitting a hunk around every run of changes.
	i := 0
	aLine, bLine := 1, 1
	for i < len(all) {
		if all[i].op == diffmatchpatch.DiffEqual {
			i++
			aLine++
			bLine++
			continue
		}
		start := i - Context
		if start < 0 {
			start = 0
		}
		// Extend the hunk while changes are within 2*Context equal lines.
		end := i
		for end < len(all) {
			if all[end].op != diffmatchpatch.DiffEqual {
				end++
				continue
			}
			run := end
			for run < len(all) && all[run].op == diffmatchpatch.DiffEqual {
				run++
			}
			if run == len(all) || run-end > 2*Context {
				end += min(Context, run-end)
				break
			}
			end = run
		}
		hunkA, hunkB := aLine-(i-start), bLine-(i-start)
		var body strings.Builder
		na, nb := 0, 0
		for _, l := range all[start:end] {
			switch l.op {
			case diffmatchpatch.DiffEqual:
				body.WriteString(" " + l.text)
				na++
				nb++
			case diffmatchpatch.DiffDelete:
				body.WriteString("-" + l.text)
				na++
			case diffmatchpatch.DiffInsert:
				body.WriteString("+" + l.text)
				nb++
			}
			if !strings.HasSuffix(l.text, "\n") {
				body.WriteString("\n\\ No newline at end of file\n")
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", span(hunkA, na), span(hunkB, nb))
		out.WriteString(body.String())
		for _, l := range all[i:end] {
			switch l.op {
			case diffmatchpatch.DiffEqual:
				aLine++
				bLine++
			case diffmatchpatch.DiffDelete:
				aLine++
			case diffmatchpatch.DiffInsert:
				bLine++
			}
		}
		i = end
	}
	return out.String()
}

// span formats a hunk range: "start,count", with start one before the
// hunk for an empty side, as diff does.
func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
