package agui

import (
	"bytes"
	"cmp"
	"errors"
	"slices"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/internal/strictjson"
)

// Options says how to check a record.
type Options struct {
	// Profile is the name of the profile to check under; "" means
	// DefaultProfile.
	Profile string
	// Source names the record in the result: a file name, "-" for
	// standard input.
	Source string
	// Example marks the record as the built-in tutorial example, which the
	// result and its renderings keep apart from a chosen file.
	Example bool
}

// InputError reports input that cannot be checked at all: an unknown
// profile or an empty record. A record that can be read but breaks a rule
// is not an InputError; it is a Result that is not accepted.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// Check reads a record and checks it under the profile opt names. It
// returns an *InputError when there is nothing to check; otherwise the
// Result says whether the record is accepted and what it shows.
func Check(data []byte, opt Options) (*Result, error) {
	p, m, err := setup(opt)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &InputError{"the record is empty: there is no event to check"}
	}
	c := newChecker(p, m, opt)
	events, texts, err := readRecord(data, p)
	if err != nil {
		return c.stop(err), nil
	}
	return c.run(events, texts), nil
}

func setup(opt Options) (*Profile, *model, error) {
	name := opt.Profile
	if name == "" {
		name = DefaultProfile
	}
	p, err := LookupProfile(name)
	if err != nil {
		return nil, nil, &InputError{err.Error()}
	}
	m, err := loadModel()
	if err != nil {
		return nil, nil, err
	}
	return p, m, nil
}

// checker checks the events of one record in order.
type checker struct {
	p      *Profile
	m      *model
	r      *Result
	seq    *seq
	chunks *chunker
	walkW  []Finding
}

func newChecker(p *Profile, m *model, opt Options) *checker {
	r := &Result{Profile: p.Name(), Revision: p.Revision(), Source: opt.Source, Example: opt.Example,
		Findings: []Finding{}, Warnings: []Finding{}}
	c := &checker{p: p, m: m, r: r}
	c.seq = newSeq(p, m, r)
	if p.Has(contract.RuleSequenceChunks) {
		c.chunks = newChunker(c.seq)
	}
	return c
}

// run checks every event and completes the result. texts, when not nil,
// holds each event's text as the record has it.
func (c *checker) run(events []*strictjson.Value, texts [][]byte) *Result {
	c.r.Events = len(events)
	for i, ev := range events {
		var text []byte
		if texts != nil {
			text = texts[i]
		}
		if err := c.event(i, ev, text); err != nil {
			return c.stop(err)
		}
	}
	if c.chunks != nil {
		for _, ev := range c.chunks.closeAll() {
			if err := c.seq.apply(len(events)-1, ev); err != nil {
				return c.stop(err)
			}
		}
	}
	return c.done()
}

// stop ends the check at a finding.
func (c *checker) stop(err error) *Result {
	var f *fail
	if errors.As(err, &f) {
		c.r.Findings = append(c.r.Findings, f.Finding)
	} else {
		c.r.Findings = append(c.r.Findings, Finding{Event: FileLevel, Rule: contract.RuleReaderJSON, Message: err.Error()})
	}
	return c.done()
}

func (c *checker) done() *Result {
	c.seq.finish()
	c.r.Warnings = append(c.r.Warnings, c.walkW...)
	c.r.Warnings = append(c.r.Warnings, c.seq.warnings...)
	sortFindings(c.r.Warnings)
	c.r.Accepted = len(c.r.Findings) == 0
	// Empty lists, not null: the JSON form keeps one shape.
	if c.r.Runs == nil {
		c.r.Runs = []Run{}
	}
	if c.r.Messages == nil {
		c.r.Messages = []Message{}
	}
	if c.r.ToolCalls == nil {
		c.r.ToolCalls = []ToolCall{}
	}
	if c.r.Steps == nil {
		c.r.Steps = []Step{}
	}
	if c.r.Unfinished == nil {
		c.r.Unfinished = []Unfinished{}
	}
	return c.r
}

// event checks one event: its type, its members against the contract, its
// decoding, what the profile excludes, and its place in the sequence.
func (c *checker) event(i int, tree *strictjson.Value, text []byte) error {
	tag := c.m.types[c.m.event].Tag
	tagPtr := strictjson.AppendPointer("", tag)
	tv := tree.Get(tag)
	if tv == nil || tv.Kind != strictjson.String {
		return failf(i, tagPtr, contract.RuleStructureEventType, "an event names its type in the string member %q", tag)
	}
	name := tv.Str
	if !knownEvent(name) {
		if c.p.Has(contract.RuleUnsupportedCustomEvents) {
			return failf(i, tagPtr, contract.RuleUnsupportedCustomEvents, "%q is not an AG-UI event; the stand does not accept arbitrary or extended events", name)
		}
		if !c.p.Has(contract.RuleToleranceUnknownEvents) {
			return failf(i, tagPtr, contract.RuleStructureEventType, "%q is not an AG-UI event", name)
		}
		c.walkW = append(c.walkW, Finding{Event: i, Pointer: tagPtr, Rule: contract.RuleToleranceUnknownEvents,
			Message: "dropped an event of type " + quote(name) + ", which AG-UI 1.1 does not describe"})
		return nil
	}
	if !c.p.Accepts(name) {
		switch name {
		case contract.EventCustom, contract.EventRaw:
			return failf(i, tagPtr, contract.RuleUnsupportedCustomEvents, "the stand does not accept %s: arbitrary and extended events are not supported", name)
		case contract.EventSubagentStarted, contract.EventSubagentFinished, contract.EventSubagentError:
			return failf(i, tagPtr, contract.RuleUnsupportedNestedAgents, "the stand does not accept %s: nested agents are not supported", name)
		}
		return failf(i, tagPtr, contract.RuleStandEvents, "the profile %s does not accept %s", c.p.Name(), name)
	}
	w := shapeWalk{m: c.m, strict: c.p.strict(), event: i}
	_, err := w.value(tree, &modelRef{Name: c.m.event})
	c.walkW = append(c.walkW, w.warnings...)
	if err != nil {
		return err
	}
	// The record's own text is decoded unless tolerance changed the tree.
	if text == nil || w.changed {
		text = tree.AppendCompact(nil)
	}
	ev, err := contract.DecodeEvent(text)
	if err != nil {
		rule := contract.RuleStructureEventSchema
		var ve *contract.ValidationError
		if errors.As(err, &ve) && c.p.Has(contract.RuleStandMetadata) &&
			c.m.typeAt(&modelRef{Name: c.m.event}, ve.Pointer) == c.m.metadata {
			rule = contract.RuleStandMetadata
		}
		return decodeFailure(i, "", rule, err)
	}
	if c.p.strict() {
		if err := checkExclusions(i, ev); err != nil {
			return err
		}
	}
	evs := []contract.Event{ev}
	if c.chunks != nil {
		if evs, err = c.chunks.expand(i, ev); err != nil {
			return err
		}
	}
	for _, e := range evs {
		if err := c.seq.apply(i, e); err != nil {
			return err
		}
	}
	return nil
}

func knownEvent(name string) bool {
	for _, e := range contract.Events {
		if e.Name == name {
			return true
		}
	}
	return false
}

func quote(s string) string { return string(strictjson.AppendString(nil, s)) }

// sortFindings orders findings by event, stably: the warnings of one
// event keep the order in which they were found.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int { return cmp.Compare(a.Event, b.Event) })
}
