package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/contractdiff/disposition"
)

// GitHub writes GitHub Actions workflow commands: an annotation per finding
// and per disposition problem on the line it concerns, and the missing
// dispositions in a collapsible group.
//
// A breaking finding without a disposition is an error; a warning, or a
// breaking finding that is accepted or internal, is a warning; the rest are
// notices.
func GitHub(w io.Writer, r *Report) error {
	ew := &errWriter{w: w}
	for _, j := range r.Findings() {
		level := "notice"
		switch {
		case j.State == disposition.Missing:
			level = "error"
		case j.Severity == contractdiff.Breaking || j.Severity == contractdiff.Warning:
			level = "warning"
		}
		msg := fmt.Sprintf("%s: %s (%s). Disposition: %s. Change %s.", j.Severity, j.Message, j.Target, stateText(j), j.ChangeID)
		ew.printf("%s\n", command(level, j.File, j.Line, j.Rule, msg))
	}
	for _, p := range r.Problems {
		ew.printf("%s\n", command("error", p.File, p.Line, "disposition", p.Msg))
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
