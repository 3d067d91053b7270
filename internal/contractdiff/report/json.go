package report

import (
	"encoding/json"
	"io"

	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/contractdiff/disposition"
)

// JSONFormat is the version of the JSON report; it changes only when a
// field changes meaning or disappears.
const JSONFormat = 1

// The JSON report. Field names are stable; they are documented in
// Docs/en/how-to/contract-changes.md.
type jsonReport struct {
	Format              int                 `json:"format"`
	Status              disposition.Status  `json:"status"`
	Summary             string              `json:"summary"`
	Baseline            jsonRevision        `json:"baseline"`
	Current             jsonRevision        `json:"current"`
	Counts              map[string]int      `json:"counts"`
	Domains             []jsonDomain        `json:"domains"`
	DispositionProblems []jsonProblem       `json:"dispositionProblems"`
	Settled             []jsonEntryRef      `json:"settledDispositions"`
	Missing             []disposition.Entry `json:"missingDispositions"`
	Renewals            []disposition.Entry `json:"renewals"`
}

type jsonRevision struct {
	Label  string `json:"label"`
	Commit string `json:"commit,omitempty"`
}

type jsonDomain struct {
	Domain   string                    `json:"domain"`
	File     string                    `json:"file"`
	Status   contractdiff.DomainStatus `json:"status"`
	Findings []jsonFinding             `json:"findings"`
}

type jsonFinding struct {
	ChangeID          string       `json:"changeId"`
	Rule              string       `json:"rule"`
	Severity          string       `json:"severity"`
	Target            string       `json:"target"`
	Message           string       `json:"message"`
	Before            string       `json:"before"`
	After             string       `json:"after"`
	Direction         string       `json:"direction,omitempty"`
	Messages          []string     `json:"messages,omitempty"`
	Witness           *jsonWitness `json:"witness,omitempty"`
	Overridden        string       `json:"severityOverride,omitempty"`
	BaselineStability string       `json:"baselineStability,omitempty"`
	File              string       `json:"file"`
	Pointer           string       `json:"pointer"`
	Line              int          `json:"line"`
	Blocking          bool         `json:"blocking"`
	Disposition       string       `json:"disposition"`
	DispositionEntry  string       `json:"dispositionEntry,omitempty"`
}

type jsonWitness struct {
	Message  string          `json:"message"`
	Type     string          `json:"type"`
	JSON     json.RawMessage `json:"json"`
	Baseline bool            `json:"baselineAccepts"`
	Current  bool            `json:"currentAccepts"`
}

type jsonProblem struct {
	File    string `json:"file"`
	Pointer string `json:"pointer"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

type jsonEntryRef struct {
	Pointer  string `json:"pointer"`
	ChangeID string `json:"changeId"`
	Rule     string `json:"rule"`
	Target   string `json:"target"`
	// MadeBy is the commit of the baseline's history that made a settled
	// entry's change, when the baseline's dispositions file lacks it.
	MadeBy string `json:"madeBy,omitempty"`
}

// JSON writes the report as one indented JSON document.
func JSON(w io.Writer, r *Report) error {
	out := jsonReport{
		Format: JSONFormat, Status: r.Status, Summary: Summary(r),
		Baseline:            jsonRevision{Label: r.Baseline, Commit: r.BaselineCommit},
		Current:             jsonRevision{Label: r.Current},
		Counts:              map[string]int{},
		Domains:             []jsonDomain{},
		DispositionProblems: []jsonProblem{},
		Settled:             []jsonEntryRef{},
		Missing:             r.Templates,
		Renewals:            r.Renewals,
	}
	if out.Missing == nil {
		out.Missing = []disposition.Entry{}
	}
	if out.Renewals == nil {
		out.Renewals = []disposition.Entry{}
	}
	for _, s := range contractdiff.Severities {
		n, _ := r.Count(s)
		out.Counts[string(s)] = n
	}
	out.Counts["missingDispositions"] = len(r.Templates)
	out.Counts["dispositionProblems"] = len(r.Problems)
	for _, d := range r.Domains {
		jd := jsonDomain{Domain: d.Domain, File: d.File, Status: d.Status, Findings: []jsonFinding{}}
		for _, f := range d.Findings {
			jf := jsonFinding{
				ChangeID: f.ChangeID, Rule: f.Rule, Severity: string(f.Severity), Target: f.Target, Message: f.Message,
				Before: f.Before, After: f.After, Direction: f.Direction, BaselineStability: string(f.BaselineStability),
				File: f.File, Pointer: f.Pointer, Line: f.Line, Blocking: f.Blocking(), Disposition: string(f.State),
			}
			if f.Disposition != nil {
				jf.DispositionEntry = f.Disposition.Pointer
			}
			jf.Messages, jf.Overridden = f.Messages, f.Overridden
			if w := f.Witness; w.Found() {
				jf.Witness = &jsonWitness{Message: w.Message, Type: w.Type, JSON: json.RawMessage(w.JSON), Baseline: w.Baseline, Current: w.Current}
			}
			jd.Findings = append(jd.Findings, jf)
		}
		out.Domains = append(out.Domains, jd)
	}
	for _, p := range r.Problems {
		out.DispositionProblems = append(out.DispositionProblems, jsonProblem{File: p.File, Pointer: p.Pointer, Line: p.Line, Message: p.Msg})
	}
	for _, e := range r.Settled {
		out.Settled = append(out.Settled, jsonEntryRef{Pointer: e.Pointer, ChangeID: e.ChangeID, Rule: e.Rule, Target: e.Target, MadeBy: r.SettledBy[e].Commit})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
