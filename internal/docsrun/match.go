package docsrun

import (
	"fmt"
	"regexp"
	"strings"
)

// placeholders are the words a page's shown output may use for what
// varies from run to run.
var placeholders = map[string]string{
	"<port>":    `[0-9]{1,5}`,
	"<n>":       `[0-9]+`,
	"<sha256>":  `[0-9a-f]{64}`,
	"<hex>":     `[0-9a-f]+`,
	"<version>": `[^\s"]+`,
}

var placeholderRE = regexp.MustCompile(`<(port|n|sha256|hex|version)>|\.\.\.`)

// linePattern turns one expected line into an anchored regular expression.
func linePattern(line string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, m := range placeholderRE.FindAllStringIndex(line, -1) {
		b.WriteString(regexp.QuoteMeta(line[last:m[0]]))
		if tok := line[m[0]:m[1]]; tok == "..." {
			b.WriteString(".*")
		} else {
			b.WriteString(placeholders[tok])
		}
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(line[last:]))
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

func splitLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return lines
}

// Match reports whether got is what expected shows, placeholders and
// elisions (see the package comment) taken into account. When it is not,
// the message names the first expected line that no output line answers.
func Match(expected, got string) (bool, string) {
	want, have := splitLines(expected), splitLines(got)
	pats := make([]*regexp.Regexp, len(want))
	for i, w := range want {
		if strings.TrimSpace(w) != "..." {
			pats[i] = linePattern(w)
		}
	}
	// ok[i][j]: want[i:] matches have[j:]. Filled from the end, so the
	// cost is len(want)*len(have) whatever the elisions.
	ok := make([][]bool, len(want)+1)
	for i := range ok {
		ok[i] = make([]bool, len(have)+1)
	}
	ok[len(want)][len(have)] = true
	for i := len(want) - 1; i >= 0; i-- {
		for j := len(have); j >= 0; j-- {
			if pats[i] == nil {
				ok[i][j] = ok[i+1][j] || (j < len(have) && ok[i][j+1])
			} else {
				ok[i][j] = j < len(have) && pats[i].MatchString(have[j]) && ok[i+1][j+1]
			}
		}
	}
	if ok[0][0] {
		return true, ""
	}
	// Walk forward greedily to find where the transcript parts ways.
	i, j := 0, 0
	for i < len(want) {
		if pats[i] == nil {
			i++
			for j < len(have) && (i >= len(want) || pats[i] == nil || !pats[i].MatchString(have[j])) {
				j++
			}
			continue
		}
		if j >= len(have) {
			return false, fmt.Sprintf("expected line %d %q, but the output ended", i+1, want[i])
		}
		if !pats[i].MatchString(have[j]) {
			return false, fmt.Sprintf("expected line %d %q, got output line %d %q", i+1, want[i], j+1, have[j])
		}
		i, j = i+1, j+1
	}
	if j < len(have) {
		return false, fmt.Sprintf("the output goes on after the last expected line: output line %d %q", j+1, have[j])
	}
	return false, "the output does not match (an elision could not be placed)"
}
