package agui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/genrt"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// owner is who produced an entity: the parent agent (set false) or one
// subagent invocation.
type owner struct {
	sub string
	set bool
}

func ownerOf(tag *contract.SubagentRunID) owner {
	if tag == nil {
		return owner{}
	}
	return owner{sub: string(*tag), set: true}
}

func (o owner) String() string {
	if !o.set {
		return "the parent agent"
	}
	return "subagent " + strconv.Quote(o.sub)
}

// seq is the sequence checker: the state of the runs of one record and the
// result it builds. Every check is gated by the rule that states it, so a
// profile that does not list a rule does not enforce it.
type seq struct {
	p *Profile
	m *model
	r *Result

	first, runStarted, runFinished, runError bool
	runs                                     int
	// thread and runID identify the current run, or the last one.
	thread, runID string
	threadSet     bool

	// The entities a run opens and closes by id (see entity), over the
	// tables of their ids: messages (text messages, and the index of
	// every message in the result), tool calls, and reasoning, whose
	// spans and messages share their owners.
	text, tool, span, reasoning entity
	msgs, tools, reasons        idTable
	// slots are the messages of the conversation, shown or not, linked in
	// their order from head to tail (see order.go).
	slots      []slot
	head, tail int32
	// owners of activity messages, which are not opened or closed.
	activityOwner map[string]owner
	// activityTypes holds the type of every activity message shown, for
	// the record: a messages snapshot keeps those of the types it does not
	// speak for.
	activityTypes map[string]string
	steps         openSteps
	subActive     map[string]bool
	subClosed     map[string]bool

	attrib bool      // the profile checks attribution, so owners are kept
	state  *patcher  // nil until a snapshot or delta sets it
	srcs   bool      // the trees come with the text they were parsed from
	ops    []patchOp // the operations of the delta being applied, reused
	// texts are the builders of the streamed texts that grew long.
	texts map[textKey]*strings.Builder
	// joined, when set, is where short streamed texts are joined with
	// their deltas (see join). Check and Stream lend one: their result
	// owns every text before it is returned, and the buffer is reused
	// only after that.
	joined   *[]byte
	warnings []Finding
	// chunk is the type of the chunk event the record sent, while the
	// events it was expanded into are applied; "" for any other event.
	chunk string
	// event is the type of the event the record sent, for the one being
	// checked (see begin): the chunk, when it was expanded from one, as
	// the record holds no start or arguments there. Findings name it.
	event string
}

func newSeq(p *Profile, m *model, r *Result) *seq {
	s := &seq{p: p, m: m, r: r, attrib: p.Has(contract.RuleSequenceAttribution)}
	s.text = entity{&s.msgs, 1, 0, contract.RuleSequenceTextMessage, "text message", ptrMessageID}
	s.tool = entity{&s.tools, 1, 0, contract.RuleSequenceToolCall, "tool call", ptrToolCallID}
	s.span = entity{&s.reasons, 1, 0, contract.RuleSequenceReasoning, "reasoning span", ptrMessageID}
	s.reasoning = entity{&s.reasons, 2, 0, contract.RuleSequenceReasoning, "reasoning message", ptrMessageID}
	s.resetSlots()
	s.resetRun()
	return s
}

// entity is one kind of entity a run opens, continues and closes by its
// id: the table of its ids, which says which are open now (its bit) and
// the owner of every id seen in the run (kept after the close: an id is
// unique only within its kind, and a continuation may follow its
// entity's close); how many are open; the rule that frames it, the noun
// messages call it and the pointer of its id member in the events.
type entity struct {
	t      *idTable
	bit    uint8
	opened int
	rule   string
	noun   string
	ptr    string
}

func (s *seq) resetRun() {
	s.msgs.newRun()
	s.tools.newRun()
	s.reasons.newRun()
	s.text.opened, s.tool.opened, s.span.opened, s.reasoning.opened = 0, 0, 0, 0
	s.activityOwner = map[string]owner{}
	s.steps = openSteps{}
	s.subActive, s.subClosed = map[string]bool{}, map[string]bool{}
	s.runFinished, s.runError = false, false
}

func (s *seq) warn(event int, ptr, rule, format string, args ...any) {
	s.warnings = append(s.warnings, Finding{Event: event, Pointer: ptr, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// fail reports a sequencing finding when the profile enforces rule; it
// returns nil otherwise, so that callers can write return s.fail(...).
func (s *seq) fail(event int, ptr, rule, format string, args ...any) error {
	if !s.p.Has(rule) {
		return nil
	}
	return failf(event, ptr, rule, format, args...)
}

// member returns the JSON pointer of a member of an event, named by its
// generated constant.
func member(name string) string { return strictjson.AppendPointer("", name) }

// Member names the checker looks up in event trees, from the generated
// constants, so that no member name is spelled here.
const (
	nameThreadID   = contract.RunFinishedEventMemberThreadID
	nameRunID      = contract.RunFinishedEventMemberRunID
	nameSnapshot   = contract.StateSnapshotEventMemberSnapshot
	nameDelta      = contract.StateDeltaEventMemberDelta
	namePatch      = contract.ActivityDeltaEventMemberPatch
	nameInterrupts = contract.RunFinishedInterruptMemberInterrupts
	nameID         = contract.InterruptMemberID
	nameRole       = contract.TextMessageStartEventMemberRole
)

// Pointers of the members that name an entity.
var (
	ptrMessageID     = member(contract.TextMessageStartEventMemberMessageID)
	ptrToolCallID    = member(contract.ToolCallStartEventMemberToolCallID)
	ptrSubagentRunID = member(contract.SubagentFinishedEventMemberSubagentRunID)
	ptrDelta         = member(nameDelta)
	ptrSnapshot      = member(nameSnapshot)
	// the messageId of a TOOL_CALL_RESULT, made once: results are many.
	ptrResultMessageID = member(contract.ToolCallResultEventMemberMessageID)
)

// apply checks one event against the sequence so far and records what it
// changes. i is the index of the event in the record (several expanded
// events share the index of their chunk).
func (s *seq) apply(i int, ev contract.Event, tree *strictjson.Value) error {
	name := s.chunk
	if name == "" {
		name = eventName(ev)
	}
	if err := s.begin(i, name); err != nil {
		return err
	}
	switch e := ev.(type) {
	case contract.RunStartedEvent:
		return s.runStartedEvent(i, e)
	case contract.RunFinishedEvent:
		return s.runFinishedEvent(i, e)
	case contract.RunErrorEvent:
		return s.runErrorEvent(e)
	case contract.TextMessageStartEvent:
		return s.textMessageStart(i, e, tree)
	case contract.TextMessageContentEvent:
		return s.textMessageContent(i, e)
	case contract.TextMessageEndEvent:
		return s.textMessageEnd(i, e)
	case contract.ToolCallStartEvent:
		return s.toolCallStart(i, e)
	case contract.ToolCallArgsEvent:
		return s.toolCallArgs(i, e)
	case contract.ToolCallEndEvent:
		return s.toolCallEnd(i, e)
	case contract.ToolCallResultEvent:
		return s.toolCallResult(i, e)
	case contract.StateSnapshotEvent:
		return s.stateSnapshot(i, e, tree)
	case contract.StateDeltaEvent:
		return s.stateDelta(i, e, tree)
	case contract.StepStartedEvent:
		return s.stepStarted(i, e)
	case contract.StepFinishedEvent:
		return s.stepFinished(i, e)
	case contract.MessagesSnapshotEvent:
		return s.messagesSnapshot(i, e)
	case contract.ActivitySnapshotEvent:
		return s.activitySnapshot(i, e)
	case contract.ActivityDeltaEvent:
		return s.activityDelta(i, e, tree)
	case contract.ReasoningStartEvent:
		return s.reasoningStart(i, e)
	case contract.ReasoningEndEvent:
		return s.reasoningEnd(i, e)
	case contract.ReasoningMessageStartEvent:
		return s.reasoningMessageStart(i, e)
	case contract.ReasoningMessageContentEvent:
		return s.reasoningMessageContent(i, e)
	case contract.ReasoningMessageEndEvent:
		return s.reasoningMessageEnd(i, e)
	case contract.ReasoningEncryptedValueEvent:
		return s.reasoningEncryptedValue(i, e)
	case contract.SubagentStartedEvent:
		return s.subagentStarted(i, e)
	case contract.SubagentFinishedEvent:
		return s.subagentClosed(i, contract.EventSubagentFinished, e.SubagentRunID)
	case contract.SubagentErrorEvent:
		return s.subagentClosed(i, contract.EventSubagentError, e.SubagentRunID)
	}
	// RAW and CUSTOM carry data only.
	return nil
}

// begin checks the place of an event of type name in the run's life
// before its own rules: what may follow a closed run, what may come first,
// and that runs do not nest. A new run after a closed one starts afresh,
// once runStartedEvent has admitted it (see there). name is the type the
// record sent (a chunk's, for the events expanded from it), which the
// event's findings name.
func (s *seq) begin(i int, name string) error {
	s.event = name
	isStart, isError := name == contract.EventRunStarted, name == contract.EventRunError
	switch {
	case s.runError && !isStart:
		return s.fail(i, "", contract.RuleSequenceClosedRun, "%s after RUN_ERROR: only a new RUN_STARTED may follow a failed run", name)
	case s.runFinished && !isStart && !isError:
		return s.fail(i, "", contract.RuleSequenceClosedRun, "%s after RUN_FINISHED: only RUN_STARTED or RUN_ERROR may follow a finished run", name)
	}
	if !s.first {
		s.first = true
		if !isStart && !isError {
			return s.fail(i, "", contract.RuleSequenceFirstEvent, "the record opens with %s; the first event must be RUN_STARTED or RUN_ERROR", name)
		}
	} else if isStart {
		if s.runStarted && !s.runFinished && !s.runError {
			return s.fail(i, "", contract.RuleSequenceOneActiveRun, "RUN_STARTED while a run is still active; finish it with RUN_FINISHED first")
		}
	}
	return nil
}

func (s *seq) textMessageStart(i int, e contract.TextMessageStartEvent, tree *strictjson.Value) error {
	ent, err := s.open(i, &s.text, e.MessageID, e.SubagentRunID)
	if err != nil {
		return err
	}
	// The decoder gives an absent role its default; whether the event
	// states one is read from its tree (a chunk's, when a chunk opened it).
	if tree != nil && tree.Get(nameRole) == nil {
		e.Role = nil
	}
	if err := s.reopenedMessage(i, e, ent); err != nil {
		return err
	}
	s.openMessage(ent, string(e.RoleOrDefault()), e.SubagentRunID)
	return nil
}

// msgName is the name a text message was opened with, or a messages
// snapshot stated; known is false for a message that neither named, such
// as one a reasoning start or an activity opened.
type msgName struct {
	name       string
	set, known bool
}

// reopenedMessage checks a TEXT_MESSAGE_START that names a message the
// record already holds. A closed message is closed, not sealed: the start
// continues the same message, whose established role and name stand. The
// start always states a role, as the contract gives an absent one its
// default (assistant), and it must be the message's; a name it leaves out
// restates nothing, one it states must agree. A start that disagrees is
// not a new message either (later content could not say which one it
// extends), so it is refused: shown as one message, it would put one
// speaker's text under another's role. So is one on the id of a message
// the result does not list (see unlistedMessage).
func (s *seq) reopenedMessage(i int, e contract.TextMessageStartEvent, ent *idEntry) error {
	k, known := s.msgs.indexOf(ent)
	if !known {
		if err := s.unlistedMessage(i, contract.RuleSequenceTextMessage, e.MessageID, string(e.RoleOrDefault()), e.Role != nil, ent); err != nil {
			return err
		}
		n := msgName{known: true}
		if e.Name != nil {
			n.name, n.set = *e.Name, true
		}
		s.msgs.setName(ent, n)
		return nil
	}
	if err := s.reopenedRole(i, contract.RuleSequenceTextMessage, e.MessageID, string(e.RoleOrDefault()), e.Role != nil, s.r.Messages[k].Role, ""); err != nil {
		return err
	}
	n := s.msgs.nameOf(ent)
	if e.Name == nil || !n.known || (n.set && n.name == *e.Name) {
		return nil
	}
	was := "without a name"
	if n.set {
		was = "as " + quote(n.name)
	}
	return s.fail(i, member(contract.TextMessageStartEventMemberName), contract.RuleSequenceTextMessage,
		"%s reopens the message %q with the name %s, but it was opened %s; a reopened message keeps its name", s.event, e.MessageID, quote(*e.Name), was)
}

// reopenedRole checks the role that the start event of a message states
// (stated is false when it takes the contract's default) against was, the
// role of the message of the conversation that its id names (note says
// where the result shows it, when not in its list): an id names one
// message, whatever kind of event streams it, and the reference client
// appends the content of any start to the message of that id.
func (s *seq) reopenedRole(i int, rule, id, role string, stated bool, was, note string) error {
	if role == was {
		return nil
	}
	if !stated {
		// Stating the role is the way out only for a role a start can state.
		fix := ""
		switch contract.TextMessageRole(was) {
		case contract.TextMessageRoleDeveloper, contract.TextMessageRoleSystem, contract.TextMessageRoleUser:
			fix = ": state it"
		}
		return s.fail(i, ptrMessageID, rule,
			"%s opens the message %q with no role, which means %s, but the conversation holds it as %s%s; an id names one message, which keeps its role%s", s.event, id, quote(role), quote(was), note, fix)
	}
	ptr := member(contract.TextMessageStartEventMemberRole)
	if s.event == contract.EventReasoningMessageChunk {
		ptr = ptrMessageID // the chunk sends no role: its kind states it
	}
	return s.fail(i, ptr, rule,
		"%s opens the message %q as %s, but the conversation holds it as %s%s; an id names one message, which keeps its role", s.event, id, quote(role), quote(was), note)
}

// unlistedMessage checks the start of a message on the id of a message of
// the conversation that the result does not list: a tool result shown
// beside its call, or a message of a run's input. The reference client
// holds that message under the id and appends the start's content to it,
// so a start under another role is refused, as for a message the result
// lists; one under its role is shown as a message of its own, with what
// the record sends from here on alone, and a warning says so.
func (s *seq) unlistedMessage(i int, rule, id, role string, stated bool, ent *idEntry) error {
	u, ok := s.msgs.unlistedOf(ent)
	if !ok {
		return nil
	}
	if err := s.reopenedRole(i, rule, id, role, stated, u.role, u.note()); err != nil || role != u.role || u.opened {
		// The message a tool call was opened in holds nothing the result
		// leaves out: the start begins its text.
		return err
	}
	s.warn(i, ptrMessageID, rule, "%s continues the message %q%s; only what the record sends for it from here on is shown", s.event, id, u.note())
	return nil
}

// namedMessage returns the role of the message of the conversation that
// e's id names (e an entry of s.msgs), if any, and a note that says where
// the result shows it, for the messages of findings.
func (s *seq) namedMessage(e *idEntry) (role, note string, ok bool) {
	if k, listed := s.msgs.indexOf(e); listed {
		return s.r.Messages[k].Role, " shown already", true
	}
	if u, held := s.msgs.unlistedOf(e); held {
		return u.role, u.note(), true
	}
	return "", "", false
}

func (s *seq) textMessageContent(i int, e contract.TextMessageContentEvent) error {
	ent, err := s.cont(i, &s.text, e.MessageID, e.SubagentRunID, false)
	if k, ok := s.message(i, &s.text, ent, e.MessageID); ok {
		s.extend(&s.r.Messages[k].Content, textKey{k: k}, e.Delta)
	}
	return err
}

func (s *seq) textMessageEnd(i int, e contract.TextMessageEndEvent) error {
	ent, err := s.cont(i, &s.text, e.MessageID, e.SubagentRunID, true)
	if k, ok := s.placeOf(&s.text, ent, e.MessageID); ok {
		s.r.Messages[k].Complete = true
	}
	return err
}

func (s *seq) toolCallArgs(i int, e contract.ToolCallArgsEvent) error {
	ent, err := s.cont(i, &s.tool, e.ToolCallID, e.SubagentRunID, false)
	k, ok := s.tools.indexOf(ent)
	if ok && s.r.ToolCalls[k].Result != nil {
		// A result came before the call's end (AG-UI 1.1 lets it): what
		// follows would be shown under a result that did not answer it.
		return s.fail(i, ptrToolCallID, contract.RuleSequenceToolCall,
			"%s continues the tool call %q, which a result has answered; these arguments would be shown under a result that did not answer them", s.event, e.ToolCallID)
	}
	if ok {
		s.extend(&s.r.ToolCalls[k].Arguments, textKey{tool: true, k: k}, e.Delta)
	}
	return err
}

func (s *seq) toolCallEnd(i int, e contract.ToolCallEndEvent) error {
	ent, err := s.cont(i, &s.tool, e.ToolCallID, e.SubagentRunID, true)
	if k, ok := s.tools.indexOf(ent); ok {
		s.r.ToolCalls[k].Complete = true
	}
	return err
}

func (s *seq) reasoningStart(i int, e contract.ReasoningStartEvent) error {
	_, err := s.open(i, &s.span, e.MessageID, e.SubagentRunID)
	return err
}

func (s *seq) reasoningEnd(i int, e contract.ReasoningEndEvent) error {
	_, err := s.cont(i, &s.span, e.MessageID, e.SubagentRunID, true)
	return err
}

func (s *seq) reasoningMessageStart(i int, e contract.ReasoningMessageStartEvent) error {
	if _, err := s.open(i, &s.reasoning, e.MessageID, e.SubagentRunID); err != nil {
		return err
	}
	// A reasoning message is bracketed by ids of its own kind, but it is a
	// message of the conversation, where its id names one message.
	ent := s.msgs.entry(e.MessageID)
	if k, known := s.msgs.indexOf(ent); known {
		if err := s.reopenedRole(i, contract.RuleSequenceReasoning, e.MessageID, e.Role, true, s.r.Messages[k].Role, ""); err != nil {
			return err
		}
	} else if err := s.unlistedMessage(i, contract.RuleSequenceReasoning, e.MessageID, e.Role, true, ent); err != nil {
		return err
	}
	s.openMessage(ent, e.Role, e.SubagentRunID)
	return nil
}

// message returns the place in the result of the message whose content
// event i continues, when the message is open (ent, its entry in its
// entity's table, is not nil). A messages snapshot that left the open
// message out took it from the conversation, and one that restated its id
// under another role (an activity snapshot too) put another speaker's
// message in its place: either way its content is not shown, under
// another message or at all, and a warning says so, as the reference
// client skips content for a message it no longer holds.
func (s *seq) message(i int, k *entity, ent *idEntry, id string) (int, bool) {
	if ent == nil {
		return 0, false
	}
	if at, ok := s.placeOf(k, ent, id); ok {
		return at, true
	}
	held := s.msgs.find(id) // ent itself for a text message
	if m, restated := s.msgs.indexOf(held); restated {
		s.warn(i, k.ptr, k.rule, "the %s %q is open as %s, but a snapshot since it opened restated its id as %s; this content is not shown", k.noun, id, quote(held.role), quote(s.r.Messages[m].Role))
	} else {
		s.warn(i, k.ptr, k.rule, "the %s %q is open, but a messages snapshot since it opened left it out of the conversation; this content is not shown", k.noun, id)
	}
	return 0, false
}

// placeOf returns the place in the result of the message id, which an
// event of kind k continues; ent is the id's entry in k's table, nil when
// the event found no open entity to continue. The message there must
// still have the role it was opened with.
func (s *seq) placeOf(k *entity, ent *idEntry, id string) (int, bool) {
	if ent == nil {
		return 0, false
	}
	if k.t != &s.msgs {
		ent = s.msgs.find(id) // a reasoning message's entry is in s.reasons
	}
	at, ok := s.msgs.indexOf(ent)
	if ok && s.r.Messages[at].Role != ent.role {
		return 0, false
	}
	return at, ok
}

func (s *seq) reasoningMessageContent(i int, e contract.ReasoningMessageContentEvent) error {
	ent, err := s.cont(i, &s.reasoning, e.MessageID, e.SubagentRunID, false)
	if k, ok := s.message(i, &s.reasoning, ent, e.MessageID); ok {
		s.extend(&s.r.Messages[k].Content, textKey{k: k}, e.Delta)
	}
	return err
}

// textKey names a text that deltas extend: the content of message k, or
// the arguments of tool call k.
type textKey struct {
	tool bool
	k    int
}

// longText is the length from which a streamed text grows in a builder
// rather than by concatenation: below it a copy per delta costs little,
// and most texts of a record end below it; above it a copy per delta made
// a long message streamed in small deltas cost the square of its length.
const longText = 256

// join returns text+delta. With a buffer lent (s.joined) the two are
// written there rather than into a new string of their own, and when text
// is what was written last, delta goes on after it without copying text
// again: a record's short texts then cost no allocation and the collector
// runs less often. Strings already taken from the buffer never change:
// appending writes only past their end, and growing the buffer leaves
// them in the old memory, which they keep alive.
func (s *seq) join(text, delta string) string {
	if s.joined == nil {
		return text + delta
	}
	b := *s.joined
	start := len(b) - len(text)
	if len(text) == 0 || start < 0 || unsafe.StringData(text) != &b[start] {
		start = len(b)
		b = append(b, text...)
	}
	b = append(b, delta...)
	*s.joined = b
	return unsafe.String(&b[start], len(b)-start)
}

// extend appends delta to the streamed text *text, key's.
func (s *seq) extend(text *string, key textKey, delta string) {
	switch {
	case *text == "":
		*text = delta // the delta's own memory: nothing to copy
	case len(*text) < longText:
		*text = s.join(*text, delta)
	default:
		b := s.texts[key]
		// The builder goes on from the text only if it holds the text
		// (the same memory, so the comparison is immediate): a messages
		// snapshot may have put another message at k.
		if b == nil || b.Len() != len(*text) || b.String() != *text {
			if s.texts == nil {
				s.texts = map[textKey]*strings.Builder{}
			}
			b = new(strings.Builder)
			b.Grow(2 * (len(*text) + len(delta)))
			b.WriteString(*text)
			s.texts[key] = b
		}
		b.WriteString(delta)
		*text = b.String()
	}
}

func (s *seq) reasoningMessageEnd(i int, e contract.ReasoningMessageEndEvent) error {
	ent, err := s.cont(i, &s.reasoning, e.MessageID, e.SubagentRunID, true)
	if k, ok := s.placeOf(&s.reasoning, ent, e.MessageID); ok {
		s.r.Messages[k].Complete = true
	}
	return err
}

// reasoningEncryptedValue checks that the value's attribution agrees with
// the entity it names, if that entity is known.
func (s *seq) reasoningEncryptedValue(i int, e contract.ReasoningEncryptedValueEvent) error {
	o, known := s.tools.ownerOf(s.tools.find(e.EntityID))
	if e.Subtype == contract.ReasoningEncryptedValueSubtypeMessage {
		if o, known = s.msgs.ownerOf(s.msgs.find(e.EntityID)); !known {
			o, known = s.reasons.ownerOf(s.reasons.find(e.EntityID))
		}
	}
	return s.agree(i, e.SubagentRunID, o, known, string(e.Subtype), e.EntityID)
}

// agree checks that an event attributed to tag may continue an entity whose
// recorded owner is o. An absent tag always agrees.
func (s *seq) agree(i int, tag *contract.SubagentRunID, o owner, known bool, kind, id string) error {
	if tag == nil || !known {
		return nil
	}
	if !o.set || o.sub != string(*tag) {
		return s.fail(i, s.attributionPtr(), contract.RuleSequenceAttribution,
			"subagentRunId %q does not match the %s %q, which belongs to %s", string(*tag), kind, id, o)
	}
	return nil
}

// attributionPtr is the pointer of the attribution member, read from the
// model's Attributable type.
func (s *seq) attributionPtr() string {
	if t := s.m.types[goTypeName[contract.Attributable]()]; t != nil && len(t.Fields) == 1 {
		return strictjson.AppendPointer("", t.Fields[0].Name)
	}
	return ""
}

// open handles an event that opens an entity of kind k: its id must not
// be open, and a reopened id keeps its first owner. It returns the id's
// entry in k's table when the entity is now open. Where the profile does
// not enforce k's rule, a second opener is let through as a continuation
// of the open entity: its entry comes back with no error.
func (s *seq) open(i int, k *entity, id string, tag *contract.SubagentRunID) (*idEntry, error) {
	e := k.t.entry(id)
	if k.t.isOpen(e, k.bit) {
		return e, s.fail(i, k.ptr, k.rule, "the %s %q is already open; close it before opening it again", k.noun, id)
	}
	if s.attrib {
		o, known := k.t.ownerOf(e)
		if err := s.agree(i, tag, o, known, k.noun, id); err != nil {
			return nil, err
		}
		if !known {
			k.t.setOwner(e, ownerOf(tag))
		}
	} // else no profile rule reads owners: none are kept
	k.setOpen(e, true)
	return e, nil
}

// setOpen marks e open or closed under k.
func (k *entity) setOpen(e *idEntry, open bool) {
	k.t.current(e)
	switch was := e.open&k.bit != 0; {
	case open && !was:
		e.open |= k.bit
		k.opened++
	case !open && was:
		e.open &^= k.bit
		k.opened--
	}
}

// cont handles an event that continues (or, with closes, ends) an open
// entity. It returns the id's entry in k's table, or nil when there is
// nothing to record: the event breaks a rule (err), or the entity is not
// open and the profile does not enforce it.
func (s *seq) cont(i int, k *entity, id string, tag *contract.SubagentRunID, closes bool) (*idEntry, error) {
	e := k.t.find(id)
	if !k.t.isOpen(e, k.bit) {
		if !s.p.Has(k.rule) {
			return nil, nil // not enforced: nothing to attach the event to either
		}
		return nil, failf(i, k.ptr, k.rule, "no %s %q is open", k.noun, id)
	}
	if s.attrib && tag != nil {
		o, known := k.t.ownerOf(e)
		if err := s.agree(i, tag, o, known, k.noun, id); err != nil {
			return nil, err
		}
	}
	if closes {
		k.setOpen(e, false)
	}
	return e, nil
}

// openMessage records a message opened with the id of e, an entry of
// s.msgs, or marks a reopened one unfinished again, and notes the role it
// is open as.
func (s *seq) openMessage(e *idEntry, role string, tag *contract.SubagentRunID) {
	if k, ok := s.msgs.indexOf(e); ok {
		s.r.Messages[k].Complete = false
		e.role = s.r.Messages[k].Role
		return
	}
	e.role = role
	m := Message{ID: e.id, Role: role}
	if tag != nil {
		m.Subagent = string(*tag)
	}
	n := len(s.r.Messages)
	s.msgs.setIndex(e, n)
	s.r.Messages = append(s.r.Messages, m)
	// A message the conversation held under the id (one a tool call
	// opened, one of the input) is shown where it was held.
	if !s.showAt(e, n) {
		s.appendSlot(e, e.id, role, n)
	}
}

func (s *seq) runStartedEvent(i int, e contract.RunStartedEvent) error {
	if s.threadSet && e.ThreadID != s.thread && s.p.Has(contract.RuleSequenceOneThread) {
		return failf(i, member(contract.RunStartedEventMemberThreadID), contract.RuleSequenceOneThread,
			"RUN_STARTED opens a run on thread %q, but the record's runs belong to thread %q: a record is one thread", e.ThreadID, s.thread)
	}
	if s.p.Has(contract.RuleStandRuns) && s.runs+1 > contract.LimitRuns {
		if !s.threadSet {
			return failf(i, "", contract.RuleStandRuns, "a second run starts after the run that failed before it started; a record of the stand holds at most %d", contract.LimitRuns)
		}
		return failf(i, "", contract.RuleStandRuns, "a second run starts; a record of the stand holds at most %d", contract.LimitRuns)
	}
	// Admitted: only now does the run before it (finished or failed) give
	// way. A refused start changes nothing, so the result still shows the
	// earlier run as it ended, not as unfinished.
	if s.runFinished || s.runError {
		s.resetRun()
	}
	s.runs++
	s.thread, s.runID, s.threadSet = e.ThreadID, e.RunID, true
	s.runStarted = true
	s.r.Runs = append(s.r.Runs, Run{ThreadID: e.ThreadID, RunID: e.RunID, Outcome: Outcome{Kind: OutcomeUnfinished}})
	if e.ProtocolVersion != nil && s.p.Has(contract.RuleToleranceProtocolVersion) {
		if newer, ok := newerVersion(*e.ProtocolVersion, contract.ProtocolVersion); !ok || newer {
			s.warn(i, member(contract.RunStartedEventMemberProtocolVersion), contract.RuleToleranceProtocolVersion,
				"the producer declares protocol version %q; this checker reads AG-UI %s", *e.ProtocolVersion, contract.ProtocolVersion)
		}
	}
	if e.Input != nil {
		for _, m := range e.Input.Messages {
			s.seedOwner(m, false)
			// The input is the conversation so far: the reference client
			// holds its messages under their ids, which the result lists
			// only if the record streams them.
			id, _, calls := messageInfo(m)
			if ent := s.msgs.entry(id); !s.msgs.named(ent) {
				role := s.m.variantTag(s.m.message, m)
				s.msgs.setUnlisted(ent, unlisted{role: role})
				k := s.appendSlot(ent, id, role, -1)
				for _, c := range calls {
					s.ownCall(c.ID, k)
				}
				if a, ok := m.(contract.ActivityMessage); ok {
					// A messages snapshot that does not list it may keep it.
					s.setActivityType(id, a.ActivityType)
				}
			}
		}
	}
	return nil
}

// active reports whether a run has started and not ended.
func (s *seq) active() bool { return s.runStarted && !s.runFinished && !s.runError }

// runErrorEvent ends the active run as failed; after RUN_FINISHED it is the
// late failure of the run that finished; as the first event of the record,
// or after a run that failed, it is a run that failed before it started,
// and counts as a run.
func (s *seq) runErrorEvent(e contract.RunErrorEvent) error {
	oc := Outcome{Kind: OutcomeError, Error: &RunError{Message: e.Message}}
	if e.Code != nil {
		oc.Error.Code = *e.Code
	}
	n := len(s.r.Runs)
	switch {
	case s.active() && n > 0:
		s.r.Runs[n-1].Outcome = oc
	case s.runFinished && !s.runError && n > 0:
		// What the run declared stays shown beside the failure.
		late := &s.r.Runs[n-1].Outcome
		late.Kind, late.Error, late.FailedAfterFinish = OutcomeError, oc.Error, true
	default:
		s.runs++
		s.r.Runs = append(s.r.Runs, Run{Outcome: oc})
	}
	s.runError = true
	return nil
}

// errorIdentity checks, before a RUN_ERROR is decoded, that the run it
// names, if it names one, is the run it ends: the active run, or the run
// that has just finished.
func (s *seq) errorIdentity(i int, tree *strictjson.Value) error {
	if !s.threadSet || !s.p.Has(contract.RuleSequenceRunIdentity) || s.runError || !s.runStarted {
		return nil
	}
	for _, id := range []struct{ name, want, what string }{{nameThreadID, s.thread, "thread"}, {nameRunID, s.runID, "run"}} {
		if v := tree.Get(id.name); v != nil && v.Kind == strictjson.String && v.Str != id.want {
			return failf(i, strictjson.AppendPointer("", id.name), contract.RuleSequenceRunIdentity,
				"RUN_ERROR names %s %q, but the run it ends is run %q of thread %q", id.what, v.Str, s.runID, s.thread)
		}
	}
	return nil
}

// end checks the end of the record: under AG-UI 1.1 a record that ends
// while its run is active fails the run, as a cut stream does.
func (s *seq) end() error {
	if s.active() && s.p.Has(contract.RuleSequenceRunComplete) {
		return failf(FileLevel, "", contract.RuleSequenceRunComplete,
			"the record ends while run %q is still active: a stream cut before RUN_FINISHED or RUN_ERROR fails its run", s.runID)
	}
	return nil
}

// newerVersion reports whether MAJOR.MINOR version v is newer than base;
// ok is false when v is not such a version.
func newerVersion(v, base string) (newer, ok bool) {
	vx, vy, ok := genrt.ParseVersion(v)
	bx, by, _ := genrt.ParseVersion(base)
	if !ok {
		return false, false
	}
	return vx > bx || (vx == bx && vy > by), true
}

func (s *seq) runFinishedEvent(i int, e contract.RunFinishedEvent) error {
	if s.active() && s.p.Has(contract.RuleSequenceRunIdentity) {
		if e.ThreadID != s.thread {
			return failf(i, member(contract.RunFinishedEventMemberThreadID), contract.RuleSequenceRunIdentity,
				"RUN_FINISHED names thread %q, but the active run %q started on thread %q", e.ThreadID, s.runID, s.thread)
		}
		if e.RunID != s.runID {
			return failf(i, member(contract.RunFinishedEventMemberRunID), contract.RuleSequenceRunIdentity,
				"RUN_FINISHED names run %q, but the active run is %q", e.RunID, s.runID)
		}
	}
	var open []string
	s.steps.each(func(o owner, names map[string]bool) {
		for n := range names {
			open = append(open, fmt.Sprintf("step %q of %s", n, o))
		}
	})
	for _, k := range []*entity{&s.text, &s.reasoning, &s.span, &s.tool} {
		for _, id := range k.t.openIDs(k.bit) {
			open = append(open, fmt.Sprintf("%s %q", k.noun, id))
		}
	}
	for id := range s.subActive {
		open = append(open, fmt.Sprintf("subagent %q", id))
	}
	if len(open) > 0 {
		sort.Strings(open)
		if err := s.fail(i, "", contract.RuleSequenceFinishClosesAll, "RUN_FINISHED while these are still open: %s", strings.Join(open, ", ")); err != nil {
			return err
		}
	}
	oc := Outcome{Kind: OutcomeSuccess, Result: json.RawMessage(e.Result)}
	switch o := e.Outcome.(type) {
	case contract.RunFinishedSuccess:
		oc.PendingToolCalls = o.PendingToolCallIds
	case contract.RunFinishedOutcomeCancelled:
		if s.p.Has(contract.RuleStandOutcomes) {
			return failf(i, member(contract.RunFinishedEventMemberOutcome), contract.RuleStandOutcomes, "the stand's runs end in success, an error or an interrupt; a cancelled outcome is not one of them")
		}
		oc.Kind = OutcomeCancelled
	case contract.RunFinishedInterrupt:
		if s.p.Has(contract.RuleStandInterrupts) && len(o.Interrupts) > contract.LimitInterrupts {
			return failf(i, member(contract.RunFinishedEventMemberOutcome), contract.RuleStandInterrupts, "the outcome carries %d interrupts, more than the limit of %d", len(o.Interrupts), contract.LimitInterrupts)
		}
		oc.Kind = OutcomeInterrupt
		seen := make(map[string]int, len(o.Interrupts))
		for k, in := range o.Interrupts {
			if first, dup := seen[in.ID]; dup && s.p.Has(contract.RuleSequenceInterruptIds) {
				ptr := member(contract.RunFinishedEventMemberOutcome) + strictjson.AppendIndexPointer(strictjson.AppendPointer("", nameInterrupts), k) + strictjson.AppendPointer("", nameID)
				return failf(i, ptr, contract.RuleSequenceInterruptIds, "interrupt id %q is used twice in this outcome (interrupts %d and %d); each interrupt of a run has its own id", in.ID, first, k)
			}
			seen[in.ID] = k
		}
		for _, in := range o.Interrupts {
			x := Interrupt{ID: in.ID, Reason: in.Reason, Metadata: json.RawMessage(in.Metadata)}
			if in.Message != nil {
				x.Message = *in.Message
			}
			if in.ToolCallID != nil {
				x.ToolCallID = *in.ToolCallID
			}
			oc.Interrupts = append(oc.Interrupts, x)
		}
	}
	if n := len(s.r.Runs); n > 0 {
		s.r.Runs[n-1].Outcome = oc
	}
	s.runFinished = true
	return nil
}

func (s *seq) toolCallStart(i int, e contract.ToolCallStartEvent) error {
	id := e.ToolCallID
	ent := s.tools.entry(id)
	if s.tools.isOpen(ent, s.tool.bit) {
		return s.fail(i, member(contract.ToolCallStartEventMemberToolCallID), contract.RuleSequenceToolCall, "the tool call %q is already open; close it before opening it again", id)
	}
	if err := s.reopenedToolCall(i, e, ent); err != nil {
		return err
	}
	if err := s.toolCallParent(i, e); err != nil {
		return err
	}
	if !s.attrib {
		s.tool.setOpen(ent, true)
		s.recordToolCall(e, ent)
		return nil
	}
	// A call lives in its parent message: its attribution is that message's.
	inherited, hasParent := owner{}, false
	if e.ParentMessageID != nil {
		inherited, hasParent = s.msgs.ownerOf(s.msgs.find(*e.ParentMessageID))
		if hasParent && e.SubagentRunID != nil && inherited != ownerOf(e.SubagentRunID) {
			return s.fail(i, s.attributionPtr(), contract.RuleSequenceAttribution,
				"subagentRunId %q does not match the parent message %q, which belongs to %s", string(*e.SubagentRunID), *e.ParentMessageID, inherited)
		}
	}
	existing, known := s.tools.ownerOf(ent)
	if err := s.agree(i, e.SubagentRunID, existing, known, "tool call", id); err != nil {
		return err
	}
	if known && e.SubagentRunID == nil && hasParent && inherited != existing {
		return s.fail(i, member(contract.ToolCallStartEventMemberParentMessageID), contract.RuleSequenceAttribution,
			"the tool call %q belongs to %s but its parent message belongs to %s", id, existing, inherited)
	}
	s.tool.setOpen(ent, true)
	if !known {
		switch {
		case e.SubagentRunID != nil:
			s.tools.setOwner(ent, ownerOf(e.SubagentRunID))
		case hasParent:
			s.tools.setOwner(ent, inherited)
		default:
			s.tools.setOwner(ent, owner{})
		}
	}
	s.recordToolCall(e, ent)
	return nil
}

// reopenedToolCall checks a TOOL_CALL_START that names a call the record
// already holds. A call a result has answered is not reopened: its
// arguments are what the result answered. As with messages, a reopened
// call continues the same call: it names the same tool, and a parent
// message, when it names one, is the one the call was opened in. A start
// that renames the call is refused rather than shown: shown as one
// proposal, the arguments sent for one tool would appear under another.
func (s *seq) reopenedToolCall(i int, e contract.ToolCallStartEvent, ent *idEntry) error {
	k, known := s.tools.indexOf(ent)
	if !known {
		return nil
	}
	tc := s.r.ToolCalls[k]
	if tc.Result != nil {
		return s.fail(i, ptrToolCallID, contract.RuleSequenceToolCall,
			"%s reopens the tool call %q, which a result has answered; arguments sent now would be shown under a result that did not answer them", s.event, e.ToolCallID)
	}
	if e.ToolCallName != tc.Name {
		return s.fail(i, member(contract.ToolCallStartEventMemberToolCallName), contract.RuleSequenceToolCall,
			"%s reopens the tool call %q as %s, but it was opened as %s; a reopened call keeps its tool", s.event, e.ToolCallID, quote(e.ToolCallName), quote(tc.Name))
	}
	if e.ParentMessageID != nil && *e.ParentMessageID != tc.ParentMessageID {
		was := "outside any message"
		if tc.ParentMessageID != "" {
			was = "in the message " + quote(tc.ParentMessageID)
		}
		return s.fail(i, member(contract.ToolCallStartEventMemberParentMessageID), contract.RuleSequenceToolCall,
			"%s reopens the tool call %q in the message %q, but it was opened %s; a reopened call keeps its parent message", s.event, e.ToolCallID, *e.ParentMessageID, was)
	}
	return nil
}

// toolCallParent checks the parent message a TOOL_CALL_START names: a call
// is proposed by an assistant, so a parent the conversation holds under
// another role (a user's message, a tool result's, one of the run's input)
// is refused. Shown in that message, the call would be a user's or a
// tool's proposal; the reference client does not put it there either, but
// in an assistant message of its own, and warns. A parent the conversation
// does not hold yet is the assistant message the call opens: a start that
// names it later under another role is refused as for any message; but a
// call a message holds already (one of the run's input, one a snapshot
// restated) opens none, as in the reference client. A call
// with no parent opens one under its own id, as the reference client does;
// where that id names a message already, the client's new message is found
// by it no more, and the id goes on naming the one it named.
func (s *seq) toolCallParent(i int, e contract.ToolCallStartEvent) error {
	parent := e.ToolCallID
	if e.ParentMessageID != nil {
		parent = *e.ParentMessageID
	}
	ent := s.msgs.find(parent)
	role, note, ok := s.namedMessage(ent)
	if !ok {
		if s.holderOf(s.tools.find(e.ToolCallID)) >= 0 {
			return nil // a message holds the call: the start opens none (see callSlot)
		}
		// The call opens the assistant message: the reference client makes
		// one under the id, and a start that names it later continues it.
		if ent == nil {
			ent = s.msgs.entry(parent)
		}
		s.msgs.setUnlisted(ent, unlisted{role: s.assistantRole(), call: e.ToolCallID, opened: true})
		return nil
	}
	if e.ParentMessageID == nil || role == s.assistantRole() {
		return nil
	}
	return s.fail(i, member(contract.ToolCallStartEventMemberParentMessageID), contract.RuleSequenceToolCall,
		"%s opens the tool call %q in the %s message %q%s; a tool call is proposed in an assistant message", s.event, e.ToolCallID, role, *e.ParentMessageID, note)
}

// recordToolCall adds an opened call to the result, or marks a reopened
// one unfinished again.
func (s *seq) recordToolCall(e contract.ToolCallStartEvent, ent *idEntry) {
	if k, ok := s.tools.indexOf(ent); ok {
		s.r.ToolCalls[k].Complete = false
		// A messages snapshot may have dropped the message holding it:
		// the reference client opens one for it again.
		s.callSlot(e.ToolCallID, e.ParentMessageID)
		return
	}
	tc := ToolCall{ID: e.ToolCallID, Name: e.ToolCallName}
	if e.ParentMessageID != nil {
		tc.ParentMessageID = *e.ParentMessageID
	}
	s.tools.setIndex(ent, len(s.r.ToolCalls))
	s.r.ToolCalls = append(s.r.ToolCalls, tc)
	s.callSlot(e.ToolCallID, e.ParentMessageID)
}

// toolCallResult records a result. Every result is a tool message of the
// conversation under its messageId, as the reference client adds one for
// each, whether the result shows it beside its call or as a message of
// its own: a start that later names the id reopens a tool message, and a
// messageId that names a message the conversation holds already is refused
// by the stand and said under AG-UI 1.1, where the result is shown all the
// same and the id keeps naming the message it named first.
func (s *seq) toolCallResult(i int, e contract.ToolCallResultEvent) error {
	ent := s.tools.entry(e.ToolCallID)
	k, started := s.tools.indexOf(ent)
	msg := s.msgs.entry(e.MessageID)
	was, note, named := s.namedMessage(msg)
	if s.p.Has(contract.RuleStandToolResult) {
		switch {
		case !started:
			return failf(i, member(contract.ToolCallResultEventMemberToolCallID), contract.RuleStandToolResult, "no tool call %q was started in this record", e.ToolCallID)
		case !s.r.ToolCalls[k].Complete:
			return failf(i, member(contract.ToolCallResultEventMemberToolCallID), contract.RuleStandToolResult, "the tool call %q has not ended; its result may only follow TOOL_CALL_END", e.ToolCallID)
		case s.tools.isAnswered(ent):
			return failf(i, member(contract.ToolCallResultEventMemberToolCallID), contract.RuleStandToolResult, "the tool call %q already has a result", e.ToolCallID)
		case named:
			return failf(i, ptrResultMessageID, contract.RuleStandToolResult, "the messageId %q names the %s message%s; a result is a tool message of its own, with an id of its own", e.MessageID, was, note)
		}
	}
	s.tools.setAnswered(ent)
	if s.attrib {
		// The result mints a tool message: its owner is the result's own.
		s.msgs.setOwner(msg, ownerOf(e.SubagentRunID))
	}
	if started && s.r.ToolCalls[k].Result == nil {
		if named {
			s.warn(i, ptrResultMessageID, contract.RuleSequenceToolResult, "the messageId %q names the %s message%s; the result is shown beside its call all the same", e.MessageID, was, note)
		} else {
			s.msgs.setUnlisted(msg, unlisted{role: s.toolRole(), call: e.ToolCallID})
		}
		s.spliceSlot(msg, e.MessageID, e.ToolCallID, -1)
		s.r.ToolCalls[k].Result = json.RawMessage(e.Content)
		return nil
	}
	// No call to show it beside, or the call shows its first result: the
	// result is shown as the tool message it is, as the reference client
	// adds one for every result, and never in place of another.
	ptr := member(contract.ToolCallResultEventMemberToolCallID)
	if started {
		s.warn(i, ptr, contract.RuleSequenceToolResult, "the tool call %q already has a result; this one is shown as a tool message of its own", e.ToolCallID)
	} else {
		s.warn(i, ptr, contract.RuleSequenceToolResult, "the record shows no start of the tool call %q; its result is shown as a tool message of its own", e.ToolCallID)
	}
	m := Message{ID: e.MessageID, Role: s.toolRole(), ToolCallID: e.ToolCallID, Complete: true}
	m.Content, m.Data = contentText(json.RawMessage(e.Content))
	if e.SubagentRunID != nil {
		m.Subagent = string(*e.SubagentRunID)
	}
	// The message takes its id, as any message of the conversation does:
	// a start that later names it reopens a tool message, and is refused
	// for its role. An id that names a message already is not taken from
	// it; the result is shown all the same, and said to share it.
	if named {
		s.warn(i, ptrResultMessageID, contract.RuleSequenceToolResult, "the messageId %q names the %s message%s; the result is shown all the same, as a tool message of its own under that id", e.MessageID, was, note)
	} else {
		s.msgs.setIndex(msg, len(s.r.Messages))
	}
	s.spliceSlot(msg, e.MessageID, e.ToolCallID, len(s.r.Messages))
	s.r.Messages = append(s.r.Messages, m)
	return nil
}

func (s *seq) stepStarted(i int, e contract.StepStartedEvent) error {
	o := ownerOf(e.SubagentRunID)
	names := s.steps.of(o, true)
	if names[e.StepName] {
		return s.fail(i, member(contract.StepStartedEventMemberStepName), contract.RuleSequenceStep, "the step %q of %s is already open", e.StepName, o)
	}
	names[e.StepName] = true
	st := Step{Name: e.StepName}
	if e.SubagentRunID != nil {
		st.Subagent = string(*e.SubagentRunID)
	}
	s.r.Steps = append(s.r.Steps, st)
	return nil
}

func (s *seq) stepFinished(i int, e contract.StepFinishedEvent) error {
	o := ownerOf(e.SubagentRunID)
	names := s.steps.of(o, false)
	if !names[e.StepName] {
		var err error
		s.steps.each(func(other owner, open map[string]bool) {
			if err == nil && open[e.StepName] {
				err = s.fail(i, member(contract.StepFinishedEventMemberStepName), contract.RuleSequenceStep,
					"the step %q is open under %s, not %s; a step is finished by whoever started it", e.StepName, other, o)
			}
		})
		if err != nil {
			return err
		}
		return s.fail(i, member(contract.StepFinishedEventMemberStepName), contract.RuleSequenceStep, "the step %q of %s was not started", e.StepName, o)
	}
	delete(names, e.StepName)
	for k := len(s.r.Steps) - 1; k >= 0; k-- {
		st := &s.r.Steps[k]
		if st.Name == e.StepName && !st.Complete && ownerOfName(st.Subagent) == o {
			st.Complete = true
			break
		}
	}
	return nil
}

// openSteps are the steps open in a run, by name, for each owner. The
// parent agent's have a map of their own: most steps are its, and finding
// them needs no hash of an owner.
type openSteps struct {
	parent map[string]bool
	subs   map[string]map[string]bool
}

// of returns o's open steps; with create, a map to add them to, made if
// there is none yet.
func (st *openSteps) of(o owner, create bool) map[string]bool {
	if !o.set {
		if st.parent == nil && create {
			st.parent = map[string]bool{}
		}
		return st.parent
	}
	names := st.subs[o.sub]
	if names == nil && create {
		if st.subs == nil {
			st.subs = map[string]map[string]bool{}
		}
		names = map[string]bool{}
		st.subs[o.sub] = names
	}
	return names
}

// each calls f with each owner's open steps, in no order.
func (st *openSteps) each(f func(o owner, names map[string]bool)) {
	f(owner{}, st.parent)
	for sub, names := range st.subs {
		f(owner{sub: sub, set: true}, names)
	}
}

// count is the number of steps open.
func (st *openSteps) count() int {
	n := 0
	st.each(func(_ owner, names map[string]bool) { n += len(names) })
	return n
}

func ownerOfName(sub string) owner {
	if sub == "" {
		return owner{}
	}
	return owner{sub: sub, set: true}
}

func (s *seq) subagentStarted(i int, e contract.SubagentStartedEvent) error {
	id := string(e.SubagentRunID)
	switch {
	case s.subActive[id]:
		return s.fail(i, member(contract.SubagentStartedEventMemberSubagentRunID), contract.RuleSequenceSubagent, "the subagent %q is already active", id)
	case s.subClosed[id]:
		return s.fail(i, member(contract.SubagentStartedEventMemberSubagentRunID), contract.RuleSequenceSubagent, "the subagent %q already finished in this run; an invocation id is used once", id)
	case e.ParentSubagentRunID != nil && !s.subActive[string(*e.ParentSubagentRunID)] && !s.subClosed[string(*e.ParentSubagentRunID)]:
		return s.fail(i, member(contract.SubagentStartedEventMemberParentSubagentRunID), contract.RuleSequenceSubagent, "the parent subagent %q was not started in this run", string(*e.ParentSubagentRunID))
	}
	s.subActive[id] = true
	return nil
}

func (s *seq) subagentClosed(i int, name string, idv contract.SubagentRunID) error {
	id := string(idv)
	if !s.subActive[id] {
		return s.fail(i, ptrSubagentRunID, contract.RuleSequenceSubagent, "%s for the subagent %q, which is not active", name, id)
	}
	delete(s.subActive, id)
	s.subClosed[id] = true
	return nil
}

// seedOwner records the owner of a message replayed in history (a messages
// snapshot, authoritatively, or the run input echo, only for unknown ids),
// and of its tool calls.
func (s *seq) seedOwner(msg contract.Message, authoritative bool) {
	id, tag, calls := messageInfo(msg)
	switch msg.(type) {
	case contract.ActivityMessage:
		if _, known := s.activityOwner[id]; authoritative || !known {
			s.activityOwner[id] = ownerOf(tag)
		}
	default:
		t := &s.msgs
		if _, ok := msg.(contract.ReasoningMessage); ok {
			t = &s.reasons
		}
		if e := t.entry(id); authoritative || !t.ownerKnown(e) {
			t.setOwner(e, ownerOf(tag))
		}
	}
	for _, c := range calls {
		if e := s.tools.entry(c.ID); authoritative || !s.tools.ownerKnown(e) {
			s.tools.setOwner(e, ownerOf(tag))
		}
	}
}

// messageInfo returns a message's id, attribution and tool calls.
func messageInfo(msg contract.Message) (string, *contract.SubagentRunID, []contract.ToolCall) {
	switch m := msg.(type) {
	case contract.DeveloperMessage:
		return m.ID, m.SubagentRunID, nil
	case contract.SystemMessage:
		return m.ID, m.SubagentRunID, nil
	case contract.AssistantMessage:
		return m.ID, m.SubagentRunID, m.ToolCalls
	case contract.UserMessage:
		return m.ID, m.SubagentRunID, nil
	case contract.ToolMessage:
		return m.ID, m.SubagentRunID, nil
	case contract.ActivityMessage:
		return m.ID, m.SubagentRunID, nil
	case contract.ReasoningMessage:
		return m.ID, m.SubagentRunID, nil
	}
	return "", nil, nil
}

// messagesSnapshot restates the conversation: its messages replace what
// the result holds. As the reference client merges it, a message the
// conversation holds already keeps its place, with the snapshot's version
// of it, whether the result showed it or not (see order.go), and the
// snapshot's new messages follow in its order. A message it does not list
// leaves the conversation, except an activity or a reasoning message the
// snapshot does not speak for (see snapshotKeeps): the client keeps it, so
// the result keeps showing it if it did, and its id goes on naming it.
func (s *seq) messagesSnapshot(i int, e contract.MessagesSnapshotEvent) error {
	listed := s.snapshotListings(i, e)
	old, oldSlots := s.r.Messages, s.slots
	keeps := s.snapshotKeeps(e)
	// The merge runs over every message the conversation holds, shown or
	// not (see order.go): what stays keeps its place. A message the result
	// does not list stays unlisted, and its id goes on naming it: held is
	// what the id held, read before the ids are made anew.
	type staying struct {
		k    int32
		held unlisted
	}
	var stay []staying
	for k := s.head; k >= 0; k = oldSlots[k].next {
		sl := oldSlots[k]
		m := Message{ID: sl.id, Role: sl.role}
		if sl.msg >= 0 {
			m = old[sl.msg]
		}
		if _, ok := listed[sl.id]; ok || keeps(m) {
			st := staying{k: k}
			if sl.msg < 0 && !ok {
				st.held, _ = s.msgs.unlistedOf(s.msgs.find(sl.id))
			}
			stay = append(stay, st)
		}
	}
	s.r.Messages = make([]Message, 0, len(e.Messages)) // a message kept grows it
	s.slots = make([]slot, 0, len(e.Messages)+len(stay))
	s.resetSlots()
	s.msgs.newRecord()
	s.tools.clearSlots()
	for _, msg := range e.Messages {
		s.seedOwner(msg, true)
	}
	for _, st := range stay {
		sl := oldSlots[st.k]
		if l, ok := listed[sl.id]; ok {
			l.placed = true
			listed[sl.id] = l
			s.snapshotMessage(e.Messages[l.last])
			continue
		}
		// Only an activity or a reasoning message stays, and no start
		// reads the name of either (a text start of another role is
		// refused before): its place is the record fact to keep.
		ent := s.msgs.entry(sl.id)
		if sl.msg < 0 {
			if st.held.role != "" { // else another slot has the id
				s.msgs.setUnlisted(ent, st.held)
			}
			s.appendSlot(ent, sl.id, sl.role, -1)
			continue
		}
		n := len(s.r.Messages)
		if _, named := s.msgs.indexOf(ent); !named { // the first of an id's messages, as in snapshotMessage
			s.msgs.setIndex(ent, n)
		}
		s.r.Messages = append(s.r.Messages, old[sl.msg])
		s.appendSlot(ent, sl.id, old[sl.msg].Role, n)
	}
	for _, msg := range e.Messages {
		if id, _, _ := messageInfo(msg); !listed[id].placed {
			s.snapshotMessage(msg)
		}
	}
	return nil
}

// listing is where a messages snapshot lists an id: first and last, and
// whether the merge has placed it where the result showed it already.
type listing struct {
	first, last int
	placed      bool
}

// snapshotListings maps the ids snapshot e lists to where it lists them,
// and warns of an id it lists more than once. An id names one message,
// and a client merging the snapshot keeps one message under it where the
// conversation held the id already, or both where it did not (the
// reference client does both): the result shows what such a client
// shows, and the warning says the snapshot is ambiguous.
func (s *seq) snapshotListings(i int, e contract.MessagesSnapshotEvent) map[string]listing {
	listed := make(map[string]listing, len(e.Messages))
	for k, msg := range e.Messages {
		id, _, _ := messageInfo(msg)
		if l, seen := listed[id]; seen {
			ptr := member(contract.MessagesSnapshotEventMemberMessages) + strictjson.AppendIndexPointer("", k)
			s.warn(i, ptr, contract.RuleSequenceTextMessage, "the snapshot lists the message id %q again (messages %d and %d); an id names one message, and a client keeps one or both of them as it merges", id, l.first, k)
			l.last = k
			listed[id] = l
			continue
		}
		listed[id] = listing{first: k, last: k}
	}
	return listed
}

// snapshotKeeps returns whether a message of the result that snapshot e
// does not list stays in the conversation. The reference client keeps an
// activity unless the snapshot holds activities of its own, or its
// metadata names the activity types it speaks for (see
// authoritativeActivityTypes), and a reasoning message unless the
// snapshot holds reasoning messages of its own; any other message leaves.
func (s *seq) snapshotKeeps(e contract.MessagesSnapshotEvent) func(Message) bool {
	var hasActivity, hasReasoning bool
	for _, msg := range e.Messages {
		switch msg.(type) {
		case contract.ActivityMessage:
			hasActivity = true
		case contract.ReasoningMessage:
			hasReasoning = true
		}
	}
	types, stated, all := authoritativeActivityTypes(e.Metadata)
	activity, reasoning := s.activityRole(), s.reasoningRole()
	return func(m Message) bool {
		switch m.Role {
		case activity:
			switch {
			case all:
				return false
			case stated:
				for _, t := range types {
					if t == s.activityTypes[m.ID] {
						return false
					}
				}
				return true
			}
			return !hasActivity
		case reasoning:
			return !hasReasoning
		}
		return false
	}
}

// clientMetadata is the member of an event's metadata that the reference
// client reads as its own.
const clientMetadata = "@ag-ui/client"

// authoritativeActivityTypes reads, from a messages snapshot's metadata,
// the activity types the snapshot speaks for, as the reference client
// reads them: stated is false when the metadata does not say (the
// snapshot then speaks for every activity only if it holds one); all is
// true when it says null, for every type. A value of another shape
// speaks for none.
func authoritativeActivityTypes(md contract.Metadata) (types []string, stated, all bool) {
	if len(md) == 0 {
		return nil, false, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(md, &top) != nil {
		return nil, false, false
	}
	raw, ok := top[clientMetadata]
	if !ok {
		return nil, false, false
	}
	var own map[string]json.RawMessage
	if json.Unmarshal(raw, &own) != nil || own == nil {
		return nil, true, false // not an object: a list of no types
	}
	list, ok := own["authoritativeActivityTypes"]
	if !ok {
		return nil, false, false
	}
	if string(list) == "null" {
		return nil, true, true
	}
	if json.Unmarshal(list, &types) != nil {
		return nil, true, false
	}
	return types, true, false
}

// snapshotMessage appends msg, a message of a messages snapshot, to the
// result's list and to the conversation's order, and records its place,
// its name and the tool calls it holds.
func (s *seq) snapshotMessage(msg contract.Message) {
	id, tag, _ := messageInfo(msg)
	m := Message{ID: id, Role: s.m.variantTag(s.m.message, msg), Complete: true}
	if tag != nil {
		m.Subagent = string(*tag)
	}
	// The snapshot states each message's name, or that it has none: a
	// start that reopens the message keeps it.
	var name *string
	switch x := msg.(type) {
	case contract.DeveloperMessage:
		m.Content, name = x.Content, x.Name
	case contract.SystemMessage:
		m.Content, name = x.Content, x.Name
	case contract.AssistantMessage:
		if x.Content != nil {
			m.Content = *x.Content
		}
		name = x.Name
	case contract.ReasoningMessage:
		m.Content = x.Content
	case contract.UserMessage:
		m.Content, m.Data = contentText(json.RawMessage(x.Content))
		name = x.Name
	case contract.ToolMessage:
		// A tool message answers a call: shown without it, a
		// result would not say what it is the result of.
		m.Content, m.Data = contentText(json.RawMessage(x.Content))
		m.ToolCallID = x.ToolCallID
		if x.Error != nil {
			m.Error = *x.Error
		}
	case contract.ActivityMessage:
		m.Data = json.RawMessage(x.Content)
		s.setActivityType(id, x.ActivityType)
	}
	ent := s.msgs.entry(id)
	at := len(s.r.Messages)
	// An id the snapshot lists twice names the first message it lists, as
	// the reference client finds a message by its id from the start.
	if _, named := s.msgs.indexOf(ent); !named {
		n := msgName{known: true}
		if name != nil {
			n.name, n.set = *name, true
		}
		s.msgs.setName(ent, n)
		s.msgs.setIndex(ent, at)
	}
	s.r.Messages = append(s.r.Messages, m)
	k := s.appendSlot(ent, id, m.Role, at)
	if x, ok := msg.(contract.AssistantMessage); ok {
		for _, c := range x.ToolCalls {
			s.ownCall(c.ID, k)
		}
	}
}

// setActivityType records the type of the activity message id, which the
// result does not show but a later messages snapshot reads.
func (s *seq) setActivityType(id, t string) {
	if s.activityTypes == nil {
		s.activityTypes = map[string]string{}
	}
	s.activityTypes[id] = t
}

// contentText splits a message content into its text, when it is text,
// or keeps it as data.
func contentText(raw json.RawMessage) (string, json.RawMessage) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text, nil
	}
	return "", raw
}

// toolRole is the role of a tool message, from the model.
func (s *seq) toolRole() string {
	return s.m.roles.tool
}

// activityRole is the role of an activity message, from the model.
func (s *seq) activityRole() string {
	return s.m.roles.activity
}

// reasoningRole is the role of a reasoning message, from the model.
func (s *seq) reasoningRole() string {
	return s.m.roles.reasoning
}

func (s *seq) activitySnapshot(i int, e contract.ActivitySnapshotEvent) error {
	ent := s.msgs.entry(e.MessageID)
	k, exists := s.msgs.indexOf(ent)
	// A message of the conversation the snapshot names is replaced, as
	// the reference client replaces it, but not in silence: the person
	// reading the run would no longer see it.
	if exists {
		if role := s.r.Messages[k].Role; role != s.activityRole() {
			ptr := member(contract.ActivitySnapshotEventMemberMessageID)
			if e.ReplaceOrDefault() {
				s.warn(i, ptr, contract.RuleSequenceActivitySnapshot, "the activity replaces the message %q of role %s, which is no longer shown", e.MessageID, quote(role))
			} else {
				s.warn(i, ptr, contract.RuleSequenceActivitySnapshot, "the message %q is a message of role %s, not an activity, and replace is false: the activity is not shown", e.MessageID, quote(role))
			}
		}
	}
	// So is one the result does not list (a tool result shown beside its
	// call, a message of the run's input): the reference client holds it
	// under its id all the same.
	u, held := s.msgs.unlistedOf(ent)
	if held = held && !exists; held && u.role != s.activityRole() {
		ptr := member(contract.ActivitySnapshotEventMemberMessageID)
		if e.ReplaceOrDefault() {
			s.warn(i, ptr, contract.RuleSequenceActivitySnapshot, "the activity takes the id of the message %q of role %s%s: the reference client puts the activity in its place", e.MessageID, quote(u.role), u.note())
		} else {
			s.warn(i, ptr, contract.RuleSequenceActivitySnapshot, "the message %q is a message of role %s%s, not an activity, and replace is false: the activity is not shown", e.MessageID, quote(u.role), u.note())
		}
	}
	if (exists || held) && !e.ReplaceOrDefault() {
		return nil
	}
	if !exists || e.ReplaceOrDefault() {
		s.activityOwner[e.MessageID] = ownerOf(e.SubagentRunID)
	}
	m := Message{ID: e.MessageID, Role: s.activityRole(), Data: json.RawMessage(e.Content), Complete: true}
	s.setActivityType(e.MessageID, e.ActivityType)
	if e.SubagentRunID != nil {
		m.Subagent = string(*e.SubagentRunID)
	}
	if exists {
		s.r.Messages[k] = m
		return nil
	}
	n := len(s.r.Messages)
	s.msgs.setIndex(ent, n)
	s.r.Messages = append(s.r.Messages, m)
	// One the conversation held under the id is replaced in its place.
	if !s.showAt(ent, n) {
		s.appendSlot(ent, e.MessageID, m.Role, n)
	}
	return nil
}

// activityDelta patches an activity's content. A delta for an activity
// never created, for a message that is not an activity (a user's or a
// tool's content with parts is data too, and not the agent's to patch),
// or one that does not apply, changes nothing and is a warning, as the
// draft of the protocol asks and the reference client does.
func (s *seq) activityDelta(i int, e contract.ActivityDeltaEvent, tree *strictjson.Value) error {
	k, exists := s.msgs.indexOf(s.msgs.find(e.MessageID))
	if !exists {
		s.warn(i, member(contract.ActivityDeltaEventMemberMessageID), contract.RuleSequenceActivityDelta, "no activity message %q exists; the delta was skipped", e.MessageID)
		return nil
	}
	if role := s.r.Messages[k].Role; role != s.activityRole() {
		s.warn(i, member(contract.ActivityDeltaEventMemberMessageID), contract.RuleSequenceActivityDelta, "the message %q is a message of role %s, not an activity; the delta was skipped", e.MessageID, quote(role))
		return nil
	}
	doc, err := strictjson.Parse(s.r.Messages[k].Data, strictjson.Options{})
	if err != nil {
		return nil
	}
	p := newPatcher(doc, patchOptions{copyMove: true, maxDepth: stateDepth(s.p)})
	s.ops = treeOps(s.ops[:0], tree.Get(namePatch), s.m.patchTag, namePath, nameFrom, nameValue)
	if f := p.apply(s.ops); f != nil {
		rule := contract.RuleSequenceActivityDelta
		if f.Kind == faultDepth {
			rule = contract.RuleSequenceStateDepth
		}
		s.warn(i, strictjson.AppendIndexPointer(member(contract.ActivityDeltaEventMemberPatch), f.Index), rule, "%s; the activity %q was left as it was", f.Msg, e.MessageID)
		return nil
	}
	s.r.Messages[k].Data = p.root.AppendCompact(nil)
	s.setActivityType(e.MessageID, e.ActivityType)
	return nil
}

// size is the number of bytes of v as the record writes it; for values
// handed over in process, of the compact JSON they stand for.
func (s *seq) size(v *strictjson.Value) int {
	if s.srcs {
		return v.End - v.Start
	}
	return compactSize(v)
}

// bounds checks the state or patch that the member at ptr of event i
// holds, which messages call what.
func (s *seq) bounds(i int, ptr, what string) stateBounds {
	measure := asWritten
	if !s.srcs {
		measure = asCompact
	}
	return stateBounds{p: s.p, event: i, ptr: ptr, what: what, measure: measure}
}

// stateSnapshot replaces the state with the snapshot's tree.
func (s *seq) stateSnapshot(i int, e contract.StateSnapshotEvent, tree *strictjson.Value) error {
	v := tree.Get(nameSnapshot)
	b := s.bounds(i, ptrSnapshot, "the snapshot")
	if err := b.root(v); err != nil {
		return err
	}
	if err := b.stateBytes(s.size(v)); err != nil {
		return err
	}
	s.state = newPatcher(v, statePatchOptions(s.p))
	return nil
}

// stateDelta applies a patch to the state, in place and atomically. Under
// the stand any fault rejects the record; under AG-UI 1.1 it is a warning.
// Either way the state stays as it was.
func (s *seq) stateDelta(i int, e contract.StateDeltaEvent, tree *strictjson.Value) error {
	deltaPtr := ptrDelta
	b := s.bounds(i, deltaPtr, "the delta")
	if err := b.patchOperations(len(e.Delta)); err != nil {
		return err
	}
	list := tree.Get(nameDelta)
	if err := b.patchBytes(s.size(list)); err != nil {
		return err
	}
	if s.state == nil {
		s.state = newPatcher(&strictjson.Value{Kind: strictjson.Object}, statePatchOptions(s.p))
	}
	s.ops = treeOps(s.ops[:0], list, s.m.patchTag, namePath, nameFrom, nameValue)
	f := s.state.apply(s.ops)
	if f != nil {
		ptr := faultPointer(deltaPtr, f)
		rule, reject := stateFault(s.p, f)
		if reject {
			return failf(i, ptr, rule, "%s; the whole delta is rejected and the state is left as it was", f.Msg)
		}
		s.warn(i, ptr, rule, "%s; nothing of this delta was applied", f.Msg)
		return nil
	}
	if err := b.patchedRoot(s.state.root); err != nil {
		s.state.rollback()
		return err
	}
	s.state.commit()
	return nil
}

// finish completes the result once the record ends.
func (s *seq) finish() {
	s.inOrder()
	if s.state != nil {
		// Measured first: appending to a growing slice allocated twice
		// the state's size, for a state of some kilobytes.
		root := s.state.root
		s.r.State = root.AppendCompact(make([]byte, 0, compactSize(root)))
	}
	if s.active() {
		s.r.Unfinished = append(s.r.Unfinished, Unfinished{Kind: UnfinishedRun, ID: s.runID})
	}
	for _, m := range s.r.Messages {
		if !m.Complete {
			s.r.Unfinished = append(s.r.Unfinished, Unfinished{Kind: UnfinishedMessage, ID: m.ID})
		}
	}
	for _, t := range s.r.ToolCalls {
		if !t.Complete {
			s.r.Unfinished = append(s.r.Unfinished, Unfinished{Kind: UnfinishedToolCall, ID: t.ID})
		}
	}
	for _, st := range s.r.Steps {
		if !st.Complete {
			s.r.Unfinished = append(s.r.Unfinished, Unfinished{Kind: UnfinishedStep, ID: st.Name})
		}
	}
}
