package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/contractkit/contractkit/internal/contractdiff/disposition"
)

// Text writes the report for a terminal.
func Text(w io.Writer, r *Report) error {
	ew := &errWriter{w: w}
	if isEmptyRef(r.Baseline) {
		ew.printf("contractdiff: %s, no baseline\n", r.Current)
	} else {
		ew.printf("contractdiff: %s compared with %s\n", r.Current, baselineLabel(r))
	}
	for _, d := range r.Domains {
		ew.printf("\n%s  %s  %s, %s\n", d.Domain, d.File, d.Status, plural(len(d.Findings), "finding"))
		for _, f := range d.Findings {
			ew.printf("  %-13s %s  %s\n", strings.ToUpper(string(f.Severity)), f.Rule, f.Target)
			ew.printf("      %s\n", f.Message)
			ew.printf("      %s:%d  change %s  disposition: %s\n", f.File, f.Line, f.ChangeID, stateText(f))
		}
	}
	writeDispositionSections(ew, r, func(s string) { ew.printf("\n%s\n", s) }, func(s string) { ew.printf("  %s\n", s) })
	if len(r.Templates) > 0 {
		ew.printf("\nMissing dispositions: paste into the \"dispositions\" list of %s, then replace every %s:\n%s",
			r.Dispositions, disposition.Placeholder, disposition.JSON(r.Templates))
	}
	return ew.err
}

// writeDispositionSections writes the problems and settled entries of the
// dispositions file, with a heading and an item writer of the format.
func writeDispositionSections(ew *errWriter, r *Report, heading, item func(string)) {
	if len(r.Problems) > 0 {
		heading("Disposition problems:")
		for _, p := range r.Problems {
			item(p.String())
		}
	}
	if len(r.Settled) > 0 {
		heading("Settled dispositions (their change is already in the baseline; delete them):")
		for _, e := range r.Settled {
			item(fmt.Sprintf("%s:%s: %s at %s", r.Dispositions, e.Pointer, e.Rule, e.Target))
		}
	}
}

// errWriter keeps the first write error, so renderers can write freely
// and check once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
