package agui

import (
	"errors"
	"fmt"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/genrt"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// What the checker adds to the generated decoders' walk: the rules that
// attach to a type (the Named hook), and the mapping of what the decoders
// report to the rules of the contract.

// watch returns the Watch list of the decoder: the types the checker's
// Named hook handles under profile p.
func (c *checker) watch() []bool {
	names := []string{c.m.nonNull, c.m.content}
	for name, x := range standExclusions {
		if c.p.Has(x.rule) {
			names = append(names, name)
		}
	}
	w := make([]bool, len(contract.TypeIDs))
	for _, n := range names {
		if id, ok := contract.TypeIDs[n]; ok {
			w[id] = true
		}
	}
	return w
}

// checkTrees applies the number rules of a profile to values handed over
// in process, which no reader has seen: the trees of events (their index
// is the index of the finding) or a state or a patch (with event
// FileLevel). The text-unit budget is goCopy's, which made the trees.
func checkTrees(p *Profile, event int, trees ...*strictjson.Value) error {
	w := treeRules{numbers: p.Has(contract.RuleReaderIntegerRange)}
	for i, v := range trees {
		w.event = event
		if event != FileLevel {
			w.event = event + i
		}
		if err := w.walk(v, ""); err != nil {
			return err
		}
	}
	return nil
}

// treeRules walks values for checkTrees.
type treeRules struct {
	numbers bool
	event   int
}

func (w *treeRules) walk(v *strictjson.Value, ptr string) error {
	switch v.Kind {
	case strictjson.Number:
		if w.numbers {
			if rule, why := checkNumber(v.Str); rule != "" {
				return failf(w.event, ptr, rule, "%s", why)
			}
		}
	case strictjson.Array:
		for i, e := range v.Elems {
			if err := w.walk(e, strictjson.AppendIndexPointer(ptr, i)); err != nil {
				return err
			}
		}
	case strictjson.Object:
		for _, m := range v.Members {
			if err := w.walk(m.Value, strictjson.AppendPointer(ptr, m.Key)); err != nil {
				return err
			}
		}
	}
	return nil
}

// exclusion is an AG-UI 1.1 type the stand does not support: any value of
// it in an event rejects the record with the exclusion's rule. The types
// are the generated ones, so the stand's refusals follow the contract.
type exclusion struct {
	rule string
	why  string
}

var standExclusions = map[string]exclusion{
	goTypeName[contract.ResumeEntry]():             {contract.RuleUnsupportedResume, "resuming a stopped run is not supported by the stand"},
	goTypeName[contract.SubagentRunID]():           {contract.RuleUnsupportedNestedAgents, "the stand does not support nested agents: subagent attribution is not accepted"},
	goTypeName[contract.InterruptResponseSchema](): {contract.RuleUnsupportedResponseSchemaExpiry, "the stand does not support response schemas of interrupts"},
	goTypeName[contract.InterruptExpiry]():         {contract.RuleUnsupportedResponseSchemaExpiry, "the stand does not support expiry of interrupts"},
	goTypeName[contract.TokenUsage]():              {contract.RuleUnsupportedUsageRunInput, "the stand does not support token usage"},
	goTypeName[contract.RunAgentInput]():           {contract.RuleUnsupportedUsageRunInput, "the stand does not support run input"},
}

// ruleError is what a hook reports: the value it was given breaks rule.
func ruleError(rule, format string, args ...any) error {
	return &genrt.ValidationError{Rule: rule, Message: fmt.Sprintf(format, args...)}
}

// named is the decoders' Named hook: the rules the contract attaches to a
// type rather than to a member. Values are visited children first, so a
// resume entry inside a run input is named as what it is.
func (c *checker) named(name string, v *strictjson.Value) error {
	switch name {
	case c.m.nonNull:
		if v.Kind == strictjson.Null {
			return ruleError(contract.RuleStructureNonNull, "null is not a value here: leave the member out instead")
		}
	case c.m.content:
		return c.content(v)
	}
	if x, ok := standExclusions[name]; ok && c.p.Has(x.rule) {
		return ruleError(x.rule, "%s", x.why)
	}
	return nil
}

// content checks a message content: text, or an array of content parts.
// Any other kind breaks the content rule in every profile. Parts whose type
// names no variant are dropped under AG-UI 1.1 tolerance; when anything is
// removed the content in the tree is written afresh, so the result does
// not show it.
func (c *checker) content(v *strictjson.Value) error {
	switch v.Kind {
	case strictjson.String:
		return nil
	case strictjson.Array:
	default:
		return ruleError(contract.RuleStructureMessageContent, "content is text or an array of content parts; this is %s", describeKind(v.Kind))
	}
	start := c.dec.Mark()
	kept := make([]contract.ContentPart, 0, len(v.Elems))
	for i, e := range v.Elems {
		mark := c.dec.Mark()
		part, err := contract.DecodeContentPartTree(e, &c.dec)
		if err != nil {
			if c.dec.DropElem(err, mark, i, c.m.contentPart) {
				continue
			}
			var ve *genrt.ValidationError
			if errors.As(err, &ve) && ve.Rule == "" {
				ve.Rule = contract.RuleStructureMessageContent
			}
			return genrt.AtIndex(err, i)
		}
		c.dec.UnderIndex(mark, i)
		kept = append(kept, part)
	}
	if c.dec.Mark() == start {
		return nil
	}
	b := []byte{'['}
	for i, part := range kept {
		if i > 0 {
			b = append(b, ',')
		}
		raw, err := contract.MarshalContentPart(part)
		if err != nil {
			return err
		}
		b = append(b, raw...)
	}
	clean, err := strictjson.Parse(append(b, ']'), strictjson.Options{})
	if err != nil {
		return err
	}
	*v = *clean
	c.edited = true
	return nil
}

// notes turns what tolerance did while decoding event i into warnings.
func (c *checker) notes(i int) {
	for _, n := range c.dec.Notes {
		f := Finding{Event: i, Pointer: n.Pointer}
		switch n.Kind {
		case genrt.NoteUnknownMember:
			f.Rule, f.Message = contract.RuleToleranceUnknownMembers, fmt.Sprintf("removed member %q, which %s does not describe", n.Name, n.Type)
		case genrt.NoteUnknownVariant:
			f.Rule, f.Message = contract.RuleToleranceUnknownVariants, "removed a value whose type names no variant the contract knows"
		case genrt.NoteNullAbsent:
			f.Rule, f.Message = contract.RuleToleranceOptionalNull, fmt.Sprintf("read null in the optional member %q as an absent member", n.Name)
		default:
			continue
		}
		c.warns = append(c.warns, f)
	}
}

// decodeFailure turns what a decoder reported about event i into the
// finding of the rule it breaks.
func (c *checker) decodeFailure(i int, err error) error {
	rule := contract.RuleStructureEventSchema
	var ve *genrt.ValidationError
	if errors.As(err, &ve) {
		switch {
		case ve.Rule != "":
			rule = ve.Rule
		case ve.Kind == genrt.ErrUnknownMember && c.p.Has(contract.RuleUnsupportedUnknownFields):
			return failf(i, ve.Pointer, contract.RuleUnsupportedUnknownFields, "%s; the stand does not accept unknown members", ve.Message)
		case ve.Type == c.m.metadata && c.p.Has(contract.RuleStandMetadata):
			rule = contract.RuleStandMetadata
		}
	}
	return decodeFailure(i, "", rule, err)
}

// decodeFailure turns an error of a generated decoder into a finding at
// base plus the decoder's pointer, for rule unless the error names its own.
func decodeFailure(event int, base, rule string, err error) error {
	var ve *genrt.ValidationError
	if errors.As(err, &ve) {
		if ve.Rule != "" {
			rule = ve.Rule
		}
		return failf(event, base+ve.Pointer, rule, "%s", ve.Message)
	}
	return failf(event, base, rule, "%v", err)
}
