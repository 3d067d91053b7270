package contractdiff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/contractkit/contractkit/internal/jsondoc"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Repository-relative locations of the severity policy and its schema.
const (
	PolicyFile       = "contract-diff-policy.json"
	PolicySchemaPath = "spec/contract-diff-policy.schema.json"
	policySchemaURL  = "https://github.com/contractkit/contractkit/spec/contract-diff-policy.schema.json"
)

// Override sets the severity of one rule, in some domains or in all.
type Override struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Domains  []string `json:"domains,omitempty"`
	Reason   string   `json:"reason"`
}

// MaxPolicyBytes bounds the size of a policy file: 200 overrides (the
// most) with reasons of 2,000 characters (the longest) take 413 KB in
// ASCII, 813 KB in Cyrillic; only in three-byte characters (CJK) would
// they not fit.
const MaxPolicyBytes = 1 << 20

// maxPolicyDepth bounds nesting; the format needs four levels.
const maxPolicyDepth = 16

// SeverityPolicy is a repository's severity overrides.
type SeverityPolicy struct {
	Overrides []Override `json:"severities"`
}

// ParsePolicy reads a policy file: strict JSON, its schema (the bytes of
// PolicySchemaPath), then known rules and no rule set twice for a domain.
// Problems are errors of the form file:/pointer: message.
func ParsePolicy(path string, data, schema []byte) (*SeverityPolicy, error) {
	if len(data) > MaxPolicyBytes {
		return nil, fmt.Errorf("%s: the file is %d bytes; the limit is %d", path, len(data), MaxPolicyBytes)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(policySchemaURL, bytes.NewReader(schema)); err != nil {
		return nil, fmt.Errorf("%s: %w", PolicySchemaPath, err)
	}
	s, err := c.Compile(policySchemaURL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", PolicySchemaPath, err)
	}
	if _, problems := jsondoc.Check(data, strictjson.Options{MaxDepth: maxPolicyDepth}, s); len(problems) > 0 {
		switch p := problems[0]; {
		case p.Stage == jsondoc.Syntax:
			return nil, fmt.Errorf("%s: invalid JSON: %w", path, p.Err)
		case p.Stage == jsondoc.Schema && p.Leaf == nil:
			return nil, fmt.Errorf("%s: %w", path, p.Err)
		}
		var msgs []string
		for _, p := range problems {
			msgs = append(msgs, path+":"+strictjson.DisplayPointer(p.Pointer)+": "+p.Msg)
		}
		return nil, errors.New(strings.Join(msgs, "\n"))
	}
	var p SeverityPolicy
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var msgs []string
	seen := map[string]int{}
	for i, o := range p.Overrides {
		if LookupRule(o.Rule) == nil {
			msgs = append(msgs, fmt.Sprintf("%s:/severities/%d/rule: unknown rule %q: see Docs/en/reference/contract-diff/rules.md", path, i, o.Rule))
		}
		doms := o.Domains
		if len(doms) == 0 {
			doms = []string{"*"}
		}
		for _, d := range doms {
			key := o.Rule + " " + d
			if j, dup := seen[key]; dup {
				msgs = append(msgs, fmt.Sprintf("%s:/severities/%d: rule %s is already set for %s by /severities/%d", path, i, o.Rule, d, j))
			}
			seen[key] = i
		}
	}
	if len(msgs) > 0 {
		return nil, errors.New(strings.Join(msgs, "\n"))
	}
	return &p, nil
}

// severity returns the override of a rule in a domain: one that names the
// domain before one for all domains.
func (p *SeverityPolicy) severity(rule, domain string) (Override, bool) {
	if p == nil {
		return Override{}, false
	}
	var all *Override
	for i, o := range p.Overrides {
		if o.Rule != rule {
			continue
		}
		if len(o.Domains) == 0 {
			all = &p.Overrides[i]
			continue
		}
		for _, d := range o.Domains {
			if d == domain {
				return o, true
			}
		}
	}
	if all != nil {
		return *all, true
	}
	return Override{}, false
}

// apply sets the severity of every finding the policy overrides.
func (p *SeverityPolicy) apply(fs []Finding) {
	for i := range fs {
		if o, ok := p.severity(fs[i].Rule, fs[i].Domain); ok && o.Severity != fs[i].Severity {
			fs[i].Severity, fs[i].Overridden = o.Severity, o.Reason
		}
	}
}
