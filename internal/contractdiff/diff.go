package contractdiff

import (
	"fmt"
	"sort"
	"sync"

	"github.com/contractkit/contractkit/internal/spec"
)

// DomainStatus says how a domain was compared.
type DomainStatus string

const (
	// Compared domains exist at the baseline and now.
	Compared DomainStatus = "compared"
	// Bootstrap domains have no baseline: they are taken as the starting
	// point, with no findings.
	Bootstrap DomainStatus = "bootstrap"
	// Removed domains exist only at the baseline.
	Removed DomainStatus = "removed"
)

// DomainDiff is the comparison of one domain.
type DomainDiff struct {
	Domain   string
	File     string // the current spec file, or the baseline's for a removed domain
	Status   DomainStatus
	Findings []Finding
}

// Diff is the comparison of every domain, sorted by domain id.
type Diff struct {
	Domains []DomainDiff
}

// Findings returns every finding of every domain, in report order.
func (d *Diff) Findings() []Finding {
	var out []Finding
	for _, dd := range d.Domains {
		out = append(out, dd.Findings...)
	}
	return out
}

// NoBaselineError is the error of DiffSets for a current domain that the
// baseline lacks when that is not allowed.
type NoBaselineError struct {
	Domain, File string
}

func (e *NoBaselineError) Error() string {
	return fmt.Sprintf("%s: domain %s has no baseline; pass --allow-missing-baseline to take it as new", e.File, e.Domain)
}

// DiffSets compares baseline domains with current ones, matched by domain
// id. A domain that only the baseline has is removed (a breaking finding);
// one that only the current tree has is bootstrapped when allowMissing is
// set and an error otherwise.
func DiffSets(base, cur []*spec.Domain, allowMissing bool) (*Diff, error) {
	return DiffSetsWith(base, cur, Options{AllowMissing: allowMissing})
}

// Options tune DiffSetsWith.
type Options struct {
	// AllowMissing takes a domain the baseline lacks as new.
	AllowMissing bool
	// Policy is the repository's severity policy, nil for the catalog's.
	Policy *SeverityPolicy
}

// DiffSetsWith is DiffSets with options. Domains are compared in parallel.
func DiffSetsWith(base, cur []*spec.Domain, opts Options) (*Diff, error) {
	byID := map[string]*spec.Domain{}
	for _, d := range base {
		byID[d.Header.ID] = d
	}
	out := &Diff{}
	seen := map[string]bool{}
	var wg sync.WaitGroup
	var pairs [][2]*spec.Domain
	for _, d := range cur {
		seen[d.Header.ID] = true
		b := byID[d.Header.ID]
		if b == nil {
			if !opts.AllowMissing {
				return nil, &NoBaselineError{Domain: d.Header.ID, File: d.File}
			}
			out.Domains = append(out.Domains, DomainDiff{Domain: d.Header.ID, File: d.File, Status: Bootstrap})
			continue
		}
		out.Domains = append(out.Domains, DomainDiff{Domain: d.Header.ID, File: d.File, Status: Compared})
		if b == d {
			continue // the baseline is this very spec: nothing changed
		}
		pairs = append(pairs, [2]*spec.Domain{b, d})
	}
	// The slice is complete before any comparison writes into it.
	j := 0
	for i := range out.Domains {
		if out.Domains[i].Status != Compared || j >= len(pairs) || pairs[j][1].Header.ID != out.Domains[i].Domain {
			continue
		}
		wg.Add(1)
		go func(i int, p [2]*spec.Domain) {
			defer wg.Done()
			out.Domains[i].Findings = CompareWith(p[0], p[1], opts.Policy)
		}(i, pairs[j])
		j++
	}
	wg.Wait()
	for _, b := range base {
		if seen[b.Header.ID] {
			continue
		}
		f := Finding{
			Domain: b.Header.ID, Rule: RuleDomainRemoved, Severity: severityOf(RuleDomainRemoved),
			Target: b.Header.ID, Before: "domain " + b.Header.ID + " " + b.Header.Version,
			Message:           fmt.Sprintf("domain %s (%s) was removed", b.Header.ID, b.File),
			BaselineStability: b.Header.Stability, File: b.File, Pointer: "/domain", Line: b.Line("/domain"),
		}
		out.Domains = append(out.Domains, DomainDiff{Domain: b.Header.ID, File: b.File, Status: Removed, Findings: []Finding{f}})
	}
	sort.Slice(out.Domains, func(i, j int) bool { return out.Domains[i].Domain < out.Domains[j].Domain })
	return out, nil
}
