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
			if len(f.Messages) > 0 {
				ew.printf("      in %s\n", messagesText(f.Messages))
			}
			if f.Witness.Found() {
				ew.printf("      witness (%s; %s): %s\n", f.Witness.Message, f.Witness.Verdict(), f.Witness.JSON)
			}
			if f.Overridden != "" {
				ew.printf("      severity set by the policy: %s\n", f.Overridden)
			}
			ew.printf("      %s:%d  change %s  disposition: %s\n", f.File, f.Line, f.ChangeID, stateText(f))
		}
	}
	writeDispositionSections(ew, r, func(s string) { ew.printf("\n%s\n", s) }, func(s string) { ew.printf("  %s\n", s) })
	if len(r.Renewals) > 0 {
		ew.printf("\nRenewals: replace the expired entries of %s by these (same change, later date):\n%s",
			r.Dispositions, disposition.JSON(r.Renewals))
	}
	if len(r.Templates) > 0 {
		ew.printf("\nMissing dispositions: paste into the \"dispositions\" list of %s, then replace every %s:\n%s",
			r.Dispositions, disposition.Placeholder, disposition.JSON(r.Templates))
	}
	return ew.err
}

// maxMessages is how many messages a finding lists before "and N more".
const maxMessages = 6

// messagesText lists the messages a change reaches.
func messagesText(ms []string) string {
	if len(ms) <= maxMessages {
		return strings.Join(ms, ", ")
	}
	return strings.Join(ms[:maxMessages], ", ") + fmt.Sprintf(" and %d more", len(ms)-maxMessages)
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
			item(fmt.Sprintf("%s:%s: %s at %s (%s)", r.Dispositions, e.Pointer, e.Rule, e.Target, settledBy(r, e)))
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

// settledBy says how a settled entry's change is known to be in the
// baseline.
func settledBy(r *Report, e *disposition.Entry) string {
	if l, ok := r.SettledBy[e]; ok {
		s := "made by commit " + short(l.Commit) + " of the baseline's history"
		if l.Rule != e.Rule {
			s += ", which judged it " + l.Rule + " under that revision's parties"
		}
		return s
	}
	return "the baseline's dispositions file lists it"
}
