package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/contractdiff/disposition"
	"github.com/contractkit/contractkit/internal/emit/docemit"
	"github.com/contractkit/contractkit/internal/spec"
	"github.com/contractkit/contractkit/internal/udiff"
)

// Markdown writes the report for a pull request: the status, the compared
// revisions, a table of findings per domain, unified diffs of changed
// texts, and what to do about dispositions.
func Markdown(w io.Writer, r *Report) error {
	ew := &errWriter{w: w}
	ew.printf("# Contract diff\n\n**Status: %s**\n\n", r.Status)
	ew.printf("| | |\n| --- | --- |\n")
	ew.printf("| Baseline | %s |\n", docemit.Code(baselineLabel(r)))
	ew.printf("| Current | %s |\n", docemit.Escape(r.Current))
	ew.printf("| Summary | %s |\n", docemit.Escape(strings.TrimPrefix(Summary(r), "contractdiff: ")))
	ew.printf("| Rules | %s |\n", docemit.Code(CatalogPage))
	for _, d := range r.Domains {
		ew.printf("\n## %s\n\n%s · %s · %s\n", docemit.Escape(d.Domain), docemit.Code(d.File), d.Status, plural(len(d.Findings), "finding"))
		if len(d.Findings) == 0 {
			continue
		}
		ew.printf("\n| Severity | Rule | Target | Change | Disposition |\n| --- | --- | --- | --- | --- |\n")
		for _, f := range d.Findings {
			state := docemit.Escape(stateText(f))
			if f.State == disposition.Missing {
				state = "**missing**"
			}
			ew.printf("| %s | %s | %s | %s | %s |\n", f.Severity, docemit.Code(f.Rule), docemit.Code(f.Target),
				docemit.Escape(f.Message), state)
		}
		var witnesses []disposition.Judged
		for _, f := range d.Findings {
			if f.Witness.Found() && (f.Severity == contractdiff.Breaking || f.Severity == contractdiff.Additive) {
				witnesses = append(witnesses, f)
			}
		}
		if len(witnesses) > 0 {
			ew.printf("\n### Witnesses\n\nA message that shows each change, checked against the JSON Schemas of both revisions.\n")
			for _, f := range witnesses {
				ew.printf("\n%s (%s) — %s; %s. In %s.\n\n```json\n%s\n```\n", docemit.Code(f.Target), docemit.Code(f.Rule),
					docemit.Escape(f.Witness.Message), docemit.Escape(f.Witness.Verdict()), docemit.Escape(messagesText(f.Messages)), f.Witness.JSON)
			}
		}
		var diffs []disposition.Judged
		for _, f := range d.Findings {
			if isText(f.Rule) {
				diffs = append(diffs, f)
			}
		}
		if len(diffs) > 0 {
			ew.printf("\n### Changed texts\n")
			for _, f := range diffs {
				ew.printf("\n%s (%s)\n\n```diff\n%s```\n", docemit.Code(f.Target), docemit.Code(f.Rule), textDiff(f.Finding))
			}
		}
	}
	if len(r.Problems) > 0 || len(r.Settled) > 0 {
		ew.printf("\n## Dispositions\n")
		writeDispositionSections(ew, r, func(s string) { ew.printf("\n%s\n\n", s) }, func(s string) { ew.printf("- %s\n", docemit.Code(s)) })
	}
	if len(r.Renewals) > 0 {
		ew.printf("\n## Renewals\n\nReplace the expired entries of %s by these (same change, later date):\n\n```json\n%s```\n",
			docemit.Code(r.Dispositions), disposition.JSON(r.Renewals))
	}
	if len(r.Templates) > 0 {
		ew.printf("\n## Missing dispositions\n\nPaste into the `dispositions` list of %s, then replace every `%s`:\n\n```json\n%s```\n",
			docemit.Code(r.Dispositions), disposition.Placeholder, disposition.JSON(r.Templates))
	}
	return ew.err
}

// isText reports whether a rule's before and after are bilingual texts.
func isText(rule string) bool {
	switch rule {
	case contractdiff.RuleRequirementChanged, contractdiff.RuleTranslationStale, contractdiff.RuleTextChanged:
		return true
	}
	return false
}

// textDiff is the unified diff of a changed text, a sentence per line, for
// each language that changed.
func textDiff(f contractdiff.Finding) string {
	var b, a spec.Text
	_ = json.Unmarshal([]byte(f.Before), &b)
	_ = json.Unmarshal([]byte(f.After), &a)
	var out strings.Builder
	for _, lang := range []string{"en", "ru"} {
		d := udiff.Unified("baseline/"+lang, "current/"+lang, []byte(sentences(b.Get(lang))), []byte(sentences(a.Get(lang))))
		if d == "" {
			fmt.Fprintf(&out, "  (%s unchanged)\n", lang)
			continue
		}
		out.WriteString(d)
	}
	return out.String()
}

// sentences puts each sentence of a text on its own line, so that a diff
// shows which sentence changed.
func sentences(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(line, ". ", ".\n"), "; ", ";\n"))
		b.WriteString("\n")
	}
	return b.String()
}
