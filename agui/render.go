package agui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Rendering. Everything rendered for one record is bounded by
// LimitOutputBytes. The full form indents state and outcome; when it is
// larger than the bound they are written compactly instead, values whole;
// when even that is larger, the display is refused with a short notice.
// No value is ever cut.

// RefusedError reports a display refused because even the compact form
// would be larger than the output bound. Size is that form's size.
type RefusedError struct{ Size int }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("the report would be %d bytes even in compact form, more than the limit of %d; it is not shown, and no value was cut [%s]",
		e.Size, contract.LimitOutputBytes, contract.RuleViewOutputBound)
}

// RenderText renders the result for people. On a refusal it returns a short
// notice (the verdict and the rule ids of the findings, no data) and a
// *RefusedError.
func (r *Result) RenderText() ([]byte, error) {
	return r.render(contract.LimitOutputBytes, false)
}

// RenderJSON renders the result as JSON for machines, with the same bound.
// On a refusal the notice is itself JSON.
func (r *Result) RenderJSON() ([]byte, error) {
	return r.render(contract.LimitOutputBytes, true)
}

func (r *Result) render(limit int, asJSON bool) ([]byte, error) {
	form := r.text
	if asJSON {
		form = r.json
	}
	out := form(false)
	if len(out) <= limit {
		return out, nil
	}
	out = form(true)
	if len(out) <= limit {
		return out, nil
	}
	err := &RefusedError{Size: len(out)}
	return r.refusal(err, asJSON), err
}

// refusal is the notice shown instead of a report that does not fit: only
// what the check decided, no data of the record.
func (r *Result) refusal(err *RefusedError, asJSON bool) []byte {
	short := &Result{Profile: r.Profile, Revision: r.Revision, Source: r.Source, Example: r.Example,
		Accepted: r.Accepted, Events: r.Events, Findings: []Finding{}, Warnings: []Finding{}}
	for _, f := range r.Findings {
		short.Findings = append(short.Findings, Finding{Event: f.Event, Pointer: f.Pointer, Rule: f.Rule})
	}
	var b bytes.Buffer
	if asJSON {
		b.WriteString(`{"refused":`)
		b.Write(strictjson.AppendString(nil, err.Error()))
		b.WriteString(`,"result":`)
		b.Write(bytes.TrimSpace(short.json(true)))
		b.WriteString("}\n")
		return []byte(sanitize(b.Bytes()))
	}
	// The short report has no state or outcome to write compactly, so it
	// does not say it wrote them so.
	b.Write(short.text(false))
	fmt.Fprintf(&b, "\nDisplay refused: %s\n", err.Error())
	return b.Bytes()
}

func (r *Result) json(compact bool) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if !compact {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(r); err != nil {
		// The result holds only strings, numbers and raw JSON the checker
		// produced; failing to encode it is a bug of this package.
		panic(fmt.Sprintf("agui: encode result: %v", err))
	}
	// C1 controls are escaped here as in the text report: JSON allows them
	// raw, but a terminal does not show them as text.
	return []byte(sanitize(b.Bytes()))
}

// unfinishedRun returns the run the record ends inside, if any.
func (r *Result) unfinishedRun() *Unfinished {
	for i := range r.Unfinished {
		if r.Unfinished[i].Kind == UnfinishedRun {
			return &r.Unfinished[i]
		}
	}
	return nil
}

// lit writes s as a JSON string literal that is also safe on a terminal:
// besides what JSON escapes, C1 control characters are escaped too.
func lit(s string) string { return sanitize(strictjson.AppendString(nil, s)) }

// data writes raw JSON from the record, indented or compact; strings in it
// are re-encoded by strictjson, so control characters are escaped.
func data(raw json.RawMessage, compact bool, indent string) string {
	v, err := strictjson.Parse(raw, strictjson.Options{})
	if err != nil {
		return lit(string(raw))
	}
	c := v.AppendCompact(nil)
	if compact {
		return sanitize(c)
	}
	var b bytes.Buffer
	if json.Indent(&b, c, indent, "  ") != nil {
		return sanitize(c)
	}
	return sanitize(b.Bytes())
}

// sanitize escapes C1 control characters and U+2028/U+2029 inside JSON
// text.
func sanitize(b []byte) string {
	if !bytes.ContainsFunc(b, escaped) {
		return string(b)
	}
	var out []byte
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if escaped(r) {
			out = append(out, fmt.Sprintf(`\u%04x`, r)...)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return string(out)
}

// escaped reports whether a character is written as an escape in every
// rendering although JSON allows it raw: the C1 controls, and the line and
// paragraph separators, which raw values of a record may hold as written.
func escaped(r rune) bool { return (r >= 0x80 && r <= 0x9f) || r == '\u2028' || r == '\u2029' }

func (r *Result) text(compact bool) []byte {
	var b bytes.Buffer
	pf := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	src := r.Source
	if src == "" {
		src = "(unnamed record)"
	}
	if r.Example {
		pf("TUTORIAL EXAMPLE — this is the built-in example record, not a file you chose.\n")
		pf("Run `agui check FILE` to check your own record.\n\n")
	}
	rev := ""
	if r.Revision != "" {
		rev = ", revision " + r.Revision
	}
	pf("Record:  %s\n", lit(src))
	pf("Profile: %s%s\n", r.Profile, rev)
	if len(r.Findings) > 0 && r.Findings[0].Event != FileLevel {
		pf("Events:  %d read; checking stopped at event %d\n", r.Events, r.Findings[0].Event)
	} else {
		pf("Events:  %d\n", r.Events)
	}
	switch {
	case !r.Accepted:
		pf("Verdict: REJECTED\n")
	case r.unfinishedRun() != nil:
		pf("Verdict: ACCEPTED, but the run did not finish: the record ends inside run %s\n    rule %s (%s)\n",
			lit(r.unfinishedRun().ID), contract.RuleStandUnfinishedRun, RuleTitle(contract.RuleStandUnfinishedRun))
	default:
		pf("Verdict: ACCEPTED\n")
	}
	for _, f := range r.Findings {
		pf("  %s: %s\n    rule %s", f.Where(), f.Message, f.Rule)
		if t := RuleTitle(f.Rule); t != "" {
			pf(" (%s)", t)
		}
		pf("\n")
	}
	if len(r.Warnings) > 0 {
		pf("\nWarnings (%d): what AG-UI 1.1 tolerates, and what was done with it\n", len(r.Warnings))
		for _, w := range r.Warnings {
			pf("  %s: %s [%s]\n", w.Where(), w.Message, w.Rule)
		}
	}
	if len(r.Runs) > 0 {
		pf("\nRuns (%d), with the outcome each declares (shown, never acted on):\n", len(r.Runs))
		for _, run := range r.Runs {
			oc := run.Outcome
			switch {
			case run.RunID == "" && run.ThreadID == "":
				pf("  a run that failed before it started: %s\n", oc.Kind)
			case oc.FailedAfterFinish:
				pf("  run %s of thread %s: %s, after it had finished (RUN_ERROR after RUN_FINISHED)\n", lit(run.RunID), lit(run.ThreadID), oc.Kind)
			default:
				pf("  run %s of thread %s: %s\n", lit(run.RunID), lit(run.ThreadID), oc.Kind)
			}
			if oc.Error != nil {
				pf("    error message (as sent): %s\n", lit(oc.Error.Message))
				if oc.Error.Code != "" {
					pf("    error code (as sent): %s\n", lit(oc.Error.Code))
				}
			}
			for _, in := range oc.Interrupts {
				pf("    interrupt %s: reason %s", lit(in.ID), lit(in.Reason))
				if in.Message != "" {
					pf(", message %s", lit(in.Message))
				}
				if in.ToolCallID != "" {
					pf(", tool call %s", lit(in.ToolCallID))
				}
				if in.Metadata != nil {
					pf(", metadata %s", data(in.Metadata, true, ""))
				}
				pf("\n")
			}
			if len(oc.Interrupts) > 0 {
				pf("    (interrupts are shown only: the checker never decides, answers or resumes them)\n")
			}
			for _, id := range oc.PendingToolCalls {
				pf("    pending tool call %s\n", lit(id))
			}
			if oc.Result != nil {
				pf("    result: %s\n", data(oc.Result, compact, "    "))
			}
		}
	}
	if len(r.Messages) > 0 {
		pf("\nMessages (%d):\n", len(r.Messages))
		for _, m := range r.Messages {
			pf("  %s %s%s%s%s: ", m.Role, lit(m.ID), answers(m.ToolCallID), sub(m.Subagent), done(m.Complete))
			if m.Data != nil {
				pf("%s\n", data(m.Data, compact, "  "))
			} else {
				pf("%s\n", lit(m.Content))
			}
			if m.Error != "" {
				pf("    the tool failed: %s\n", lit(m.Error))
			}
		}
	}
	if len(r.ToolCalls) > 0 {
		pf("\nTool calls (%d), proposals only — no tool was run:\n", len(r.ToolCalls))
		for _, t := range r.ToolCalls {
			pf("  %s %s%s", lit(t.ID), lit(t.Name), done(t.Complete))
			if t.ParentMessageID != "" {
				pf(" in message %s", lit(t.ParentMessageID))
			}
			pf("\n    arguments (as streamed): %s\n", lit(t.Arguments))
			if t.Result != nil {
				pf("    result (as recorded): %s\n", data(t.Result, compact, "    "))
			}
		}
	}
	if len(r.Steps) > 0 {
		pf("\nSteps (%d):\n", len(r.Steps))
		for _, s := range r.Steps {
			pf("  %s%s%s\n", lit(s.Name), sub(s.Subagent), done(s.Complete))
		}
	}
	if len(r.Unfinished) > 0 {
		pf("\nUnfinished (%d): opened by the record and never closed\n", len(r.Unfinished))
		for _, u := range r.Unfinished {
			pf("  %s %s\n", u.Kind, lit(u.ID))
		}
	}
	if r.State != nil {
		pf("\nFinal state (shown, not applied anywhere):\n  %s\n", data(r.State, compact, "  "))
	}
	if r.Accepted {
		pf("\nAn accepted record proves neither who sent it, nor that its answers are true, nor that any tool it names ran.\n")
	}
	if compact {
		pf("(State and outcome are shown compactly to stay within %d bytes; no value is cut.)\n", contract.LimitOutputBytes)
	}
	return b.Bytes()
}

// answers names the tool call a tool message shown on its own answers.
func answers(id string) string {
	if id == "" {
		return ""
	}
	return " (result of tool call " + lit(id) + ")"
}

func sub(s string) string {
	if s == "" {
		return ""
	}
	return " (subagent " + lit(s) + ")"
}

func done(complete bool) string {
	if complete {
		return ""
	}
	return " [UNFINISHED]"
}
