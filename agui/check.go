package agui

import (
	"bytes"
	"cmp"
	"errors"
	"slices"
	"sync"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/genrt"
	"github.com/contractkit/contractkit/runtime/strictjson"
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
//
// The record is parsed once, and the parse applies the text and number
// rules to every name, string and number as it reads them. Each event is
// then walked once, by the decoder generated from the contract, which
// applies the profile's policy for undescribed members and, through its
// hook, the rules the contract attaches to types; the sequence checker
// works on what it decoded.
func Check(data []byte, opt Options) (*Result, error) {
	return checkRecord(data, opt, true)
}

// checkRecord is Check; inputLimit false reads a record of any size, for tests
// of the limits that the record-size limit would otherwise reach first.
func checkRecord(data []byte, opt Options, inputLimit bool) (*Result, error) {
	p, m, err := setup(opt)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &InputError{"the record is empty: there is no event to check"}
	}
	c := newChecker(p, m, opt)
	// The trees live in an arena only while the record is checked: the
	// result keeps no part of them. Nor does it keep the sequence
	// checker's id tables, which come from the pool streams take theirs from,
	// with the room earlier records made.
	a := arenas.Get().(*strictjson.Arena)
	tables := tablePool.Get().(*seqTables)
	tables.lend(c.seq)
	c.pooledTables = true
	c.seq.lendJoined()
	defer func() {
		a.Reset()
		arenas.Put(a)
		tables.settle(c.seq)
		c.seq.settleJoined() // r.own has copied every text out of the buffer
	}()
	rec, err := readRecord(data, p, inputLimit, a)
	c.r.Events = rec.read
	var r *Result
	if err != nil {
		r = c.stop(err)
	} else {
		r = c.run(rec.events, &rec)
	}
	r.own()
	rec.free() // the result refers to none of the record's lists
	return r, nil
}

// joinBuffers hold the buffers Check and Stream lend the sequence checker to join
// short streamed texts in (seq.join), up to maxJoined bytes each.
var joinBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxJoined = 1 << 20

// lendJoined lends q a buffer from joinBuffers.
func (q *seq) lendJoined() { q.joined = joinBuffers.Get().(*[]byte) }

// settleJoined takes q's buffer back, once the result owns copies of its
// texts, and keeps it for the next check unless it grew past maxJoined.
func (q *seq) settleJoined() {
	j := q.joined
	q.joined = nil
	if cap(*j) <= maxJoined {
		*j = (*j)[:0]
		joinBuffers.Put(j)
	}
}

// arenas hold the memory of parsed records for the next check, so that a
// process checking record after record does not allocate and collect a
// tree for each.
var arenas = sync.Pool{New: func() any { return new(strictjson.Arena) }}

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
	warns  []Finding // what tolerance removed or skipped while decoding
	dec    genrt.Decoder
	// edited is set when the content-part hook removed material from the
	// tree of the event being decoded, which is then decoded again so that
	// what the result shows is what tolerance left.
	edited bool
	// pooledTables is set when the sequence checker's id tables were lent from
	// tablePool, so that presize leaves them.
	pooledTables bool
	// kinds holds, for each event of the record run checks, its kind+1
	// as presize found it, 0 where its type is no string or no event's
	// name: event takes it from here rather than looking the type up a
	// second time. Stream, which has no presize, leaves it nil.
	kinds *[]uint16
}

// kindLists lends run the kinds of a record's events.
var kindLists = sync.Pool{New: func() any { return new([]uint16) }}

func newChecker(p *Profile, m *model, opt Options) *checker {
	r := &Result{Profile: p.Name(), Revision: p.Revision(), Source: opt.Source, Example: opt.Example,
		Findings: []Finding{}, Warnings: []Finding{}}
	c := &checker{p: p, m: m, r: r}
	c.seq = newSeq(p, m, r)
	if p.Has(contract.RuleSequenceChunks) {
		c.chunks = newChunker(c.seq)
	}
	members, variants := p.Has(contract.RuleToleranceUnknownMembers), p.Has(contract.RuleToleranceUnknownVariants)
	c.dec = genrt.Decoder{Strip: members || variants, RejectUnknownMembers: !members, RejectUnknownVariants: !variants,
		NullAbsent: p.Has(contract.RuleToleranceOptionalNull), Named: c.named, Watch: c.watch()}
	return c
}

// run checks every event and completes the result. rec, when not nil, is
// the record the events were read from; without one (values handed over in
// process) there is no text to refer to.
func (c *checker) run(events []*strictjson.Value, rec *record) *Result {
	c.r.Events = len(events)
	c.seq.srcs = rec != nil
	c.kinds = kindLists.Get().(*[]uint16)
	defer func() {
		// Bounded as every pooled list is: a record without an event
		// limit may be long.
		if kinds := emptied(*c.kinds); kinds != nil {
			*c.kinds = kinds
			kindLists.Put(c.kinds)
		}
		c.kinds = nil
	}()
	c.presize(events)
	for i, ev := range events {
		var src []byte
		if rec != nil {
			src = rec.srcOf(i)
		}
		if err := c.event(i, ev, src); err != nil {
			return c.stop(err)
		}
	}
	return c.finish(len(events), nil)
}

// finish completes the result once n events are checked: err is the
// finding that stopped the check, if one did; otherwise the record's end
// closes what chunks left open and ends the sequence.
func (c *checker) finish(n int, err error) *Result {
	if err != nil {
		return c.stop(err)
	}
	if c.chunks != nil {
		c.seq.chunk = "" // the record's end closes them, not its last chunk
		for _, ev := range c.chunks.closeAll() {
			if err := c.seq.apply(n-1, ev, nil); err != nil {
				return c.stop(err)
			}
		}
	}
	if err := c.seq.end(); err != nil {
		return c.stop(err)
	}
	return c.done()
}

// presize gives the result's lists and the conversation's slots room for
// what the events will put in them, counted from their types, so that they
// are not copied as they grow; and the id tables, unless pooled.
func (c *checker) presize(events []*strictjson.Value) {
	var messages, calls, steps, results int
	kinds := (*c.kinds)[:0]
	for _, ev := range events {
		var k uint16
		if tv := ev.Get(c.m.eventTag); tv != nil && tv.Kind == strictjson.String {
			if kind, ok := eventKinds.lookup(tv.Str); ok {
				k = uint16(kind) + 1
				switch kind {
				case kindTextMessageStart, kindReasoningMessageStart:
					messages++
				case kindToolCallStart:
					calls++
				case kindStepStarted:
					steps++
				case kindToolCallResult:
					results++
				}
			}
		}
		kinds = append(kinds, k)
	}
	*c.kinds = kinds
	c.r.Messages = make([]Message, 0, messages)
	c.r.ToolCalls = make([]ToolCall, 0, calls)
	c.r.Steps = make([]Step, 0, steps)
	q := c.seq
	// The conversation holds a message for every start, call and result.
	if n := messages + calls + results; cap(q.slots) < n {
		q.slots = make([]slot, 0, n)
	}
	if c.pooledTables {
		return // the tables come with room already
	}
	// A result mints a tool message, whose owner is kept too.
	q.msgs.size(messages + results)
	q.tools.size(calls)
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
	c.r.Warnings = append(c.r.Warnings, c.warns...)
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

// event checks one event: its type, what the profile accepts, then one
// decoding walk that checks its members against the contract and applies
// the text, number and stand rules, and last its place in the sequence.
func (c *checker) event(i int, tree *strictjson.Value, src []byte) error {
	var name string
	var kind int
	var known bool
	if c.kinds != nil && i < len(*c.kinds) && (*c.kinds)[i] != 0 {
		kind, known = int((*c.kinds)[i])-1, true
		name = contract.Events[kind].Name
	} else {
		tagPtr := c.m.eventTagPtr
		tv := tree.Get(c.m.eventTag)
		if tv == nil || tv.Kind != strictjson.String {
			return failf(i, tagPtr, contract.RuleStructureEventType, "an event names its type in the string member %q", c.m.eventTag)
		}
		name = tv.Str
		kind, known = eventKinds.lookup(name)
	}
	if !known || !c.p.accepts[kind] {
		return c.notAccepted(i, name)
	}
	if name == contract.EventRunError {
		// Checked before decoding: the stand refuses these members as
		// unknown, and AG-UI 1.1 strips them, but a failure reported for
		// another run is wrong whatever else the event says.
		if err := c.seq.errorIdentity(i, tree); err != nil {
			return err
		}
	}
	c.dec.Src = src
	c.dec.Notes = c.dec.Notes[:0]
	c.edited = false
	if h := c.handler(kind); h != nil {
		return h(c, i, name, tree)
	}
	ev, err := contract.DecodeEventTree(tree, &c.dec)
	c.notes(i)
	if err != nil {
		return c.decodeFailure(i, err)
	}
	if c.edited {
		// Tolerance removed content parts or their members from the tree;
		// decoding it again, written afresh, shows what is left.
		again := genrt.Decoder{Strip: true, NullAbsent: c.dec.NullAbsent}
		if ev, err = contract.DecodeEventTree(tree, &again); err != nil {
			return c.decodeFailure(i, err)
		}
	}
	evs := []contract.Event{ev}
	if c.chunks != nil {
		if evs, err = c.chunks.expand(i, ev); err != nil {
			return err
		}
	}
	for _, e := range evs {
		if err := c.seq.apply(i, e, tree); err != nil {
			return err
		}
	}
	return nil
}

// notAccepted handles event i of a type the profile does not accept: an
// event the contract does not know is dropped with a warning where
// tolerance allows it; any other is refused with the rule that says why.
// It returns nil for a dropped event.
func (c *checker) notAccepted(i int, name string) error {
	tagPtr := c.m.eventTagPtr
	if _, known := eventKinds.lookup(name); !known {
		if c.p.Has(contract.RuleUnsupportedCustomEvents) {
			return failf(i, tagPtr, contract.RuleUnsupportedCustomEvents, "%q is not an AG-UI event; the stand does not accept arbitrary or extended events", name)
		}
		if !c.p.Has(contract.RuleToleranceUnknownEvents) {
			return failf(i, tagPtr, contract.RuleStructureEventType, "%q is not an AG-UI event", name)
		}
		c.warns = append(c.warns, Finding{Event: i, Pointer: tagPtr, Rule: contract.RuleToleranceUnknownEvents,
			Message: "dropped an event of type " + quote(name) + ", which AG-UI 1.1 does not describe"})
		return nil
	}
	switch name {
	case contract.EventCustom, contract.EventRaw:
		return failf(i, tagPtr, contract.RuleUnsupportedCustomEvents, "the stand does not accept %s: arbitrary and extended events are not supported", name)
	case contract.EventSubagentStarted, contract.EventSubagentFinished, contract.EventSubagentError:
		return failf(i, tagPtr, contract.RuleUnsupportedNestedAgents, "the stand does not accept %s: nested agents are not supported", name)
	}
	return failf(i, tagPtr, contract.RuleStandEvents, "the profile %s does not accept %s", c.p.Name(), name)
}

// eventKinds numbers the events of the contract in its order: the kind of
// an event indexes what a profile accepts and the direct handlers, so that
// one lookup of its type name serves both.
var eventKinds = func() *nameTable {
	t := &nameTable{}
	for k, e := range contract.Events {
		t.add(e.Name, k)
	}
	return t
}()

// ruleNumbers numbers the rules of the contract in its order, for the
// profiles' sets of rules (Profile.Has).
var ruleNumbers = func() *nameTable {
	t := &nameTable{}
	for k, r := range contract.Rules {
		t.add(r.ID, k)
	}
	return t
}()

// The kinds presize counts.
var (
	kindTextMessageStart      = mustKind(contract.EventTextMessageStart)
	kindReasoningMessageStart = mustKind(contract.EventReasoningMessageStart)
	kindToolCallStart         = mustKind(contract.EventToolCallStart)
	kindStepStarted           = mustKind(contract.EventStepStarted)
	kindToolCallResult        = mustKind(contract.EventToolCallResult)
)

func mustKind(name string) int {
	k, ok := eventKinds.lookup(name)
	if !ok {
		panic("agui: no event kind " + name)
	}
	return k
}

// nameTable finds the number of a name of the contract (an event type, a
// rule id). It is an open addressing table over a hash of the name's
// length and three of its bytes: for the few dozen names of the contract
// that costs a few instructions and one comparison, where a map hashed
// every byte of the name and probed a group, for every event of every
// record and for every rule a check asks about.
type nameTable struct {
	names []string          // by number
	slots [nameSlots]uint16 // number+1 at a name's slot; 0 for none
}

// nameSlots is the size of the table: a power of two, at least twice the
// number of names, so that it always has empty slots and probes are short.
const nameSlots = 256

func nameHash(name string) int {
	if name == "" {
		return 0
	}
	n := len(name)
	return n*31 + int(name[0])*7 + int(name[n/2])*5 + int(name[n-1])
}

func (t *nameTable) add(name string, number int) {
	if len(t.names) >= nameSlots/2 {
		panic("agui: too many names for a name table")
	}
	for h := nameHash(name); ; h++ {
		if t.slots[h%nameSlots] == 0 {
			t.slots[h%nameSlots] = uint16(number + 1)
			break
		}
	}
	for len(t.names) <= number {
		t.names = append(t.names, "")
	}
	t.names[number] = name
}

// lookup returns the number of name; ok is false for a name the table
// does not hold.
func (t *nameTable) lookup(name string) (number int, ok bool) {
	for h := nameHash(name); ; h++ {
		k := t.slots[h%nameSlots]
		if k == 0 {
			return 0, false
		}
		if t.names[k-1] == name {
			return int(k - 1), true
		}
	}
}

func quote(s string) string { return string(strictjson.AppendString(nil, s)) }

// sortFindings orders findings by event, stably: the warnings of one
// event keep the order in which they were found.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int { return cmp.Compare(a.Event, b.Event) })
}
