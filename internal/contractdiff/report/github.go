package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/contractdiff/disposition"
)

// MaxAnnotations is how many annotations of one level (error, warning,
// notice) a run writes: GitHub shows ten of each per step and drops the
// rest, so the eleventh is one annotation that says how many more there
// are, and the full table goes to the job summary (see Markdown).
const MaxAnnotations = 10

// GitHub writes GitHub Actions workflow commands: an annotation per finding
// and per disposition problem on the line it concerns, at most
// MaxAnnotations of each level, and the renewals and missing dispositions
// in collapsible groups.
//
// A breaking finding without a disposition, and a disposition problem, is
// an error; a warning, or a breaking finding that is accepted or internal,
// is a warning; the rest are notices.
func GitHub(w io.Writer, r *Report) error {
	ew := &errWriter{w: w}
	type annotation struct {
		level, file, title, msg string
		line                    int
	}
	var all []annotation
	for _, p := range r.Problems {
		all = append(all, annotation{"error", p.File, "disposition", p.Msg, p.Line})
	}
	for _, j := range r.Findings() {
		level := "notice"
		switch {
		case j.State == disposition.Missing:
			level = "error"
		case j.Severity == contractdiff.Breaking || j.Severity == contractdiff.Warning:
			level = "warning"
		}
		msg := fmt.Sprintf("%s: %s (%s). Disposition: %s. Change %s.", j.Severity, j.Message, j.Target, stateText(j), j.ChangeID)
		if j.Witness.Found() {
			msg += fmt.Sprintf(" Witness (%s; %s): %s", j.Witness.Message, j.Witness.Verdict(), j.Witness.JSON)
		}
		all = append(all, annotation{level, j.File, j.Rule, msg, j.Line})
	}
	shown, more := map[string]int{}, map[string]int{}
	for _, a := range all {
		if shown[a.level] == MaxAnnotations {
			more[a.level]++
			continue
		}
		shown[a.level]++
		ew.printf("%s\n", command(a.level, a.file, a.line, a.title, a.msg))
	}
	for _, level := range []string{"error", "warning", "notice"} {
		if n := more[level]; n > 0 {
			noun := level + "s"
			if n == 1 {
				noun = level
			}
			ew.printf("::%s title=contractdiff::and %d more %s; the job summary lists every finding\n", level, n, noun)
		}
	}
	if len(r.Renewals) > 0 {
		ew.printf("::group::Renewals (replace the expired entries of %s by these)\n%s::endgroup::\n",
			r.Dispositions, disposition.JSON(r.Renewals))
	}
	if len(r.Templates) > 0 {
		ew.printf("::group::Missing dispositions (paste into %s and replace every %s)\n%s::endgroup::\n",
			r.Dispositions, disposition.Placeholder, disposition.JSON(r.Templates))
	}
	return ew.err
}

// command formats one workflow command, escaping its properties and
// message as the runner expects.
func command(level, file string, line int, title, msg string) string {
	props := []string{"file=" + escapeProperty(file)}
	if line > 0 {
		props = append(props, fmt.Sprintf("line=%d", line))
	}
	props = append(props, "title="+escapeProperty(title))
	return "::" + level + " " + strings.Join(props, ",") + "::" + escapeData(msg)
}

func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
