package disposition

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/contractkit/contractkit/internal/contractdiff"
)

// State is what a disposition does for one finding.
type State string

const (
	// Accepted: a disposition matches the finding.
	Accepted State = "accepted"
	// Missing: the finding blocks and no valid disposition matches it.
	Missing State = "missing"
	// NotNeeded: the finding is not breaking.
	NotNeeded State = "not-needed"
	// InternalOnly: the finding is breaking but concerns an element that
	// was internal at the baseline, which never blocks.
	InternalOnly State = "internal"
)

// Status is the verdict of a whole run.
type Status string

const (
	// Pass: nothing blocks.
	Pass Status = "pass"
	// Blocked: a breaking finding lacks a disposition, or an entry of the
	// file is stale, expired or does not fit its change.
	Blocked Status = "blocked"
	// Bootstrap: there was no baseline to compare with.
	Bootstrap Status = "bootstrap"
)

// Judged is a finding with its disposition state.
type Judged struct {
	contractdiff.Finding
	ChangeID    string
	State       State
	Disposition *Entry // the matching entry, for Accepted
}

// Domain is the judged comparison of one domain.
type Domain struct {
	Domain   string
	File     string
	Status   contractdiff.DomainStatus
	Findings []Judged
}

// Result is the verdict: every finding judged, the problems of the
// dispositions file, and a template for each missing disposition.
type Result struct {
	Status   Status
	Domains  []Domain
	Problems []Problem
	// Settled entries match no change, and their change is already part
	// of the baseline, so they can be deleted: the baseline's dispositions
	// file lists them, or a commit of the baseline's history made their
	// change (that commit is in SettledBy).
	Settled   []*Entry
	SettledBy map[*Entry]Landing
	// Templates are ready-to-paste entries, one per Missing finding that
	// has no entry yet. A template for a change whose entry went stale
	// keeps that entry's reason, migration, owner and issue.
	Templates []Entry
	// Renewals are expired entries with a new expiry date, ready to
	// replace the old ones when the change still needs them.
	Renewals []Entry
}

// Findings returns every judged finding in report order.
func (r *Result) Findings() []Judged {
	var out []Judged
	for _, d := range r.Domains {
		out = append(out, d.Findings...)
	}
	return out
}

// Count returns how many findings have the given severity, and how many of
// those are Missing.
func (r *Result) Count(sev contractdiff.Severity) (n, missing int) {
	for _, f := range r.Findings() {
		if f.Severity == sev {
			n++
			if f.State == Missing {
				missing++
			}
		}
	}
	return n, missing
}

// Input is what Apply judges.
type Input struct {
	Diff *contractdiff.Diff
	// File is the dispositions file of the working tree (nil for none).
	File *File
	// Baseline is the dispositions file at the baseline (nil when there is
	// none or it could not be read).
	Baseline *File
	// NoBaseline is set when there was no baseline at all.
	NoBaseline bool
	// Today decides which entries have expired.
	Today time.Time
	// Landed, when set, searches the baseline's history for the changes
	// of entries that match no change of the comparison and that the
	// baseline's dispositions file does not list (a disposition added
	// after its change reached the baseline). Nil when there is no
	// history (a folder baseline).
	Landed func(entries []*Entry) map[*Entry]Landing
}

// Landing is what the baseline's history says of one entry.
type Landing struct {
	// Commit is the commit of the baseline's history that made the
	// entry's change, "" when none of the searched commits did.
	Commit string
	// Rule is the rule the change was judged under at Commit, which may
	// differ from the entry's when that revision had other parties.
	Rule string
	// Searched says what was searched, for the message when nothing was
	// found ("the 6 commits of abc123 that changed spec/x.json").
	Searched string
}

// Apply judges the findings of a comparison against the dispositions.
func Apply(in Input) *Result {
	r := &Result{}
	var entries []*Entry
	path := FileName
	if in.File != nil {
		entries, path = in.File.Entries, in.File.Path
		r.Problems = append(r.Problems, in.File.Problems...)
	}
	today := in.Today.UTC().Format(DateLayout)
	byID := map[string]*Entry{}
	for _, e := range entries {
		byID[e.ChangeID] = e
	}
	problem := func(e *Entry, member, format string, args ...any) {
		ptr := e.Pointer
		if member != "" {
			ptr += "/" + member
		}
		r.Problems = append(r.Problems, Problem{File: path, Pointer: ptr, Line: e.Line, Msg: fmt.Sprintf(format, args...)})
	}
	expired := map[*Entry]bool{}
	for _, e := range entries {
		// Dates in the layout compare as strings.
		if e.Expires < today {
			expired[e] = true
		}
	}
	used := map[*Entry]bool{}
	bootstrapped := map[string]bool{}
	allBootstrap := len(in.Diff.Domains) > 0
	for _, dd := range in.Diff.Domains {
		if dd.Status == contractdiff.Bootstrap {
			bootstrapped[dd.Domain] = true
		} else {
			allBootstrap = false
		}
		jd := Domain{Domain: dd.Domain, File: dd.File, Status: dd.Status}
		for _, f := range dd.Findings {
			j := Judged{Finding: f, ChangeID: f.ChangeID(), State: NotNeeded}
			if f.Severity == contractdiff.Breaking {
				j.State = Missing
				if !f.Blocking() {
					j.State = InternalOnly
				}
			}
			pasted := false
			if e := byID[j.ChangeID]; e != nil {
				used[e] = true
				switch {
				case e.Domain != f.Domain || e.Rule != f.Rule || e.Target != f.Target:
					problem(e, "", "change id %s is rule %s at %s in domain %s, but the entry says rule %s at %s in domain %s: paste the template again",
						j.ChangeID, f.Rule, f.Target, f.Domain, e.Rule, e.Target, e.Domain)
				case expired[e]:
					// The change still needs it: print a renewal, not a
					// second entry for the same change.
					renewal := *e
					renewal.Expires = in.Today.UTC().Add(TemplateValidity).Format(DateLayout)
					r.Renewals = append(r.Renewals, renewal)
					pasted = true
					problem(e, "expires", "expired on %s, and the change still needs it: renew the entry with a later date (a renewal is printed), or undo the change", e.Expires)
				case e.Unfinished:
					pasted = true // its placeholders are reported; no second template
				default:
					j.State, j.Disposition = Accepted, e
				}
			}
			if j.State == Missing && !pasted && f.Blocking() {
				r.Templates = append(r.Templates, Template(f, in.Today))
			}
			jd.Findings = append(jd.Findings, j)
		}
		r.Domains = append(r.Domains, jd)
	}
	noBaseline := in.NoBaseline || allBootstrap
	baseIDs := map[string]bool{}
	if in.Baseline != nil {
		for _, e := range in.Baseline.Entries {
			baseIDs[e.ChangeID] = true
		}
	}
	// An entry no finding uses either names a change that was changed
	// again (a finding at the same place still needs a disposition: its
	// template keeps the entry's texts), one the baseline already has
	// (settled), or one that exists on neither side (delete the entry).
	templateAt := map[string]int{}
	for i, tm := range r.Templates {
		templateAt[tm.Domain+"\x00"+tm.Target] = i
	}
	// Entries that match nothing here and that the baseline's file does
	// not list may still name a change the baseline already has: ask its
	// history, once for all of them.
	var unknown []*Entry
	for _, e := range entries {
		_, retyped := templateAt[e.Domain+"\x00"+e.Target]
		if !used[e] && !expired[e] && !noBaseline && !bootstrapped[e.Domain] && !baseIDs[e.ChangeID] && !retyped {
			unknown = append(unknown, e)
		}
	}
	var landed map[*Entry]Landing
	if in.Landed != nil && len(unknown) > 0 {
		landed = in.Landed(unknown)
	}
	settle := func(e *Entry, l Landing) {
		r.Settled = append(r.Settled, e)
		if l.Commit != "" {
			if r.SettledBy == nil {
				r.SettledBy = map[*Entry]Landing{}
			}
			r.SettledBy[e] = l
		}
	}
	for _, e := range entries {
		switch {
		case used[e]:
		case expired[e]:
			problem(e, "expires", "expired on %s, and no change of this comparison needs it: delete the entry", e.Expires)
		case noBaseline || bootstrapped[e.Domain]:
			// Without a baseline nothing can be said to be stale.
		case baseIDs[e.ChangeID]:
			settle(e, Landing{})
		default:
			if i, ok := templateAt[e.Domain+"\x00"+e.Target]; ok {
				tm := &r.Templates[i]
				if !e.Unfinished {
					tm.Reason, tm.Migration, tm.Owner, tm.Issue = e.Reason, e.Migration, e.Owner, e.Issue
				}
				problem(e, "changeId", "stale: the change at %s is now change %s (rule %s), not %s: replace this entry by the template printed for it, which keeps its reason, migration, owner and issue",
					e.Target, tm.ChangeID, tm.Rule, e.ChangeID)
				continue
			}
			l, searched := landed[e]
			switch {
			case l.Commit != "":
				settle(e, l)
			case searched:
				problem(e, "changeId", "stale: change %s (rule %s at %s) is not a change of this comparison, and %s made it either: it exists on neither side, so nothing needs this entry; delete it",
					e.ChangeID, e.Rule, e.Target, l.Searched)
			default:
				// A folder baseline has no history to tell an undone
				// change from one made before the baseline.
				problem(e, "changeId", "stale: no change of this comparison is change %s (rule %s at %s), and the baseline's dispositions file does not list it: the change was either undone or made before the baseline (a folder baseline has no history to tell which); either way nothing here needs the entry, so delete it",
					e.ChangeID, e.Rule, e.Target)
			}
		}
	}
	sortProblems(r.Problems)
	missing := false
	for _, j := range r.Findings() {
		missing = missing || j.State == Missing
	}
	switch {
	case len(r.Problems) > 0 || missing:
		r.Status = Blocked
	case noBaseline:
		r.Status = Bootstrap
	default:
		r.Status = Pass
	}
	return r
}

// TemplateValidity is how long a printed template's expiry date lies ahead.
const TemplateValidity = 90 * 24 * time.Hour

// Template returns a ready-to-paste entry for a finding. The texts a person
// must write hold the Placeholder, so that a template pasted unread is
// rejected, and the expiry date is TemplateValidity after today.
// The texts to write follow the way the change goes: a widening asks
// about receivers, a narrowing about senders, a removal about its users.
func Template(f contractdiff.Finding, today time.Time) Entry {
	reason, migration := templateTexts(f.Way())
	return Entry{
		Domain: f.Domain, ChangeID: f.ChangeID(), Rule: f.Rule, Target: f.Target,
		Reason:    Placeholder + ": " + reason,
		Migration: Placeholder + ": " + migration,
		Owner:     Placeholder + ": the person or team answering for it",
		Issue:     Placeholder + ": the issue that tracks it",
		Expires:   today.UTC().Add(TemplateValidity).Format(DateLayout),
	}
}

// templateTexts are the questions a template asks for a change that goes
// the given way.
func templateTexts(way contractdiff.Way) (reason, migration string) {
	switch way {
	case contractdiff.WayNarrowing:
		return "why this narrowing is acceptable to the senders it now rejects", "what senders do to keep working"
	case contractdiff.WayWidening:
		return "why this widening is acceptable to receivers built from the baseline", "what receivers do to accept the new values"
	case contractdiff.WayRemoval:
		return "why removing it is acceptable to those who still use it", "what they use instead"
	}
	return "why this change is acceptable", "what peers do to keep working"
}

// JSON renders entries as an indented JSON array, ready to paste into the
// dispositions list.
func JSON(entries []Entry) string {
	if entries == nil {
		entries = []Entry{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(entries)
	return b.String()
}
