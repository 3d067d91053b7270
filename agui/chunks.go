package agui

import (
	"sort"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// The chunk expander turns TEXT_MESSAGE_CHUNK, TOOL_CALL_CHUNK and
// REASONING_MESSAGE_CHUNK into the bracketed events they stand for. Each
// producer (the parent agent, or one subagent invocation) has a lane that
// holds at most one open chunk stream; the lane's next event that does not
// continue that stream closes it.

type chunkKind int

const (
	chunkText chunkKind = iota + 1
	chunkTool
	chunkReasoning
)

// lane is an open chunk stream.
type lane struct {
	kind     chunkKind
	id       string
	role     string // text
	name     *string
	toolName string  // tool
	parent   *string // tool
	tag      *contract.SubagentRunID
}

type chunker struct {
	s     *seq
	lanes map[owner]*lane
	one   [1]contract.Event
}

func newChunker(s *seq) *chunker { return &chunker{s: s, lanes: map[owner]*lane{}} }

// closeLane ends the stream open in lane o, if any.
func (c *chunker) closeLane(o owner) []contract.Event {
	l := c.lanes[o]
	if l == nil {
		return nil
	}
	delete(c.lanes, o)
	switch l.kind {
	case chunkText:
		return []contract.Event{contract.TextMessageEndEvent{MessageID: l.id, SubagentRunID: l.tag}}
	case chunkTool:
		return []contract.Event{contract.ToolCallEndEvent{ToolCallID: l.id, SubagentRunID: l.tag}}
	}
	return []contract.Event{contract.ReasoningMessageEndEvent{MessageID: l.id, SubagentRunID: l.tag}}
}

// closeAll ends every open stream, the parent agent's first, then the
// subagents' in id order, so that the output does not depend on map order.
func (c *chunker) closeAll() []contract.Event {
	var os []owner
	for o := range c.lanes {
		os = append(os, o)
	}
	sort.Slice(os, func(i, j int) bool {
		if os[i].set != os[j].set {
			return !os[i].set
		}
		return os[i].sub < os[j].sub
	})
	var out []contract.Event
	for _, o := range os {
		out = append(out, c.closeLane(o)...)
	}
	return out
}

// expand returns the events ev stands for, with the closing events of the
// streams it ends in front.
func (c *chunker) expand(i int, ev contract.Event) ([]contract.Event, error) {
	c.s.chunk = ""
	switch e := ev.(type) {
	case contract.TextMessageChunkEvent:
		c.s.chunk = contract.EventTextMessageChunk
		return c.text(i, e)
	case contract.ToolCallChunkEvent:
		c.s.chunk = contract.EventToolCallChunk
		return c.tool(i, e)
	case contract.ReasoningMessageChunkEvent:
		c.s.chunk = contract.EventReasoningMessageChunk
		return c.reasoning(i, e)
	}
	if len(c.lanes) == 0 {
		// Nothing to close: the event stands for itself. The slice is the
		// chunker's own, valid until the next call.
		c.one[0] = ev
		return c.one[:], nil
	}
	switch eventName(ev) {
	case contract.EventRunStarted, contract.EventRunFinished, contract.EventRunError, contract.EventMessagesSnapshot:
		return append(c.closeAll(), ev), nil
	case contract.EventRaw, contract.EventActivitySnapshot, contract.EventActivityDelta,
		contract.EventReasoningEncryptedValue, contract.EventSubagentStarted:
		return []contract.Event{ev}, nil
	case contract.EventSubagentFinished:
		id := ev.(contract.SubagentFinishedEvent).SubagentRunID
		return append(c.closeLane(ownerOf(&id)), ev), nil
	case contract.EventSubagentError:
		id := ev.(contract.SubagentErrorEvent).SubagentRunID
		return append(c.closeLane(ownerOf(&id)), ev), nil
	}
	return append(c.closeLane(ownerOf(attribution(ev))), ev), nil
}

// resolve picks the lane a chunk belongs to: the lane whose open stream it
// names, the lane of its attribution, or the only lane with an open stream
// of its kind.
func (c *chunker) resolve(i int, kind chunkKind, id *string, tag *contract.SubagentRunID, what string) (owner, error) {
	if id != nil {
		for o, l := range c.lanes {
			if l.kind == kind && l.id == *id {
				if tag != nil && ownerOf(tag) != o {
					return o, c.s.fail(i, c.s.attributionPtr(), contract.RuleSequenceChunks,
						"%s %q is open under %s, not subagent %q", what, *id, o, string(*tag))
				}
				return o, nil
			}
		}
		return ownerOf(tag), nil
	}
	if tag != nil {
		return ownerOf(tag), nil
	}
	if l := c.lanes[owner{}]; l != nil && l.kind == kind {
		return owner{}, nil
	}
	var found []owner
	for o, l := range c.lanes {
		if l.kind == kind {
			found = append(found, o)
		}
	}
	switch len(found) {
	case 0:
		return owner{}, nil
	case 1:
		return found[0], nil
	}
	return owner{}, c.s.fail(i, "", contract.RuleSequenceChunks,
		"the chunk names neither a %s nor a subagent, and %d producers have one open", what, len(found))
}

func (c *chunker) text(i int, e contract.TextMessageChunkEvent) ([]contract.Event, error) {
	o, err := c.resolve(i, chunkText, e.MessageID, e.SubagentRunID, "text message")
	if err != nil {
		return nil, err
	}
	var out []contract.Event
	l := c.lanes[o]
	if l != nil && l.kind == chunkText && (e.MessageID == nil || *e.MessageID == l.id) {
		if e.Role != nil && string(*e.Role) != l.role {
			return nil, c.s.fail(i, member(contract.TextMessageChunkEventMemberRole), contract.RuleSequenceChunks, "role %q does not match the role %q the message %q opened with", string(*e.Role), l.role, l.id)
		}
		if e.Name != nil && (l.name == nil || *e.Name != *l.name) {
			return nil, c.s.fail(i, member(contract.TextMessageChunkEventMemberName), contract.RuleSequenceChunks, "name %q does not match the name the message %q opened with", *e.Name, l.id)
		}
	} else {
		out = append(out, c.closeLane(o)...)
		if e.MessageID == nil {
			return nil, c.s.fail(i, "", contract.RuleSequenceChunks, "the first TEXT_MESSAGE_CHUNK of a message must carry its messageId")
		}
		role := contract.TextMessageRoleAssistant
		if e.Role != nil {
			role = *e.Role
		}
		l = &lane{kind: chunkText, id: *e.MessageID, role: string(role), name: e.Name, tag: e.SubagentRunID}
		c.lanes[o] = l
		out = append(out, contract.TextMessageStartEvent{MessageID: l.id, Role: &role, Name: e.Name, SubagentRunID: e.SubagentRunID, Metadata: e.Metadata})
	}
	if e.Delta != nil || e.RawEvent != nil {
		tag := e.SubagentRunID
		if tag == nil {
			tag = l.tag
		}
		out = append(out, contract.TextMessageContentEvent{MessageID: l.id, Delta: deref(e.Delta), SubagentRunID: tag, RawEvent: e.RawEvent})
	}
	return out, nil
}

func (c *chunker) tool(i int, e contract.ToolCallChunkEvent) ([]contract.Event, error) {
	o, err := c.resolve(i, chunkTool, e.ToolCallID, e.SubagentRunID, "tool call")
	if err != nil {
		return nil, err
	}
	var out []contract.Event
	l := c.lanes[o]
	if l != nil && l.kind == chunkTool && (e.ToolCallID == nil || *e.ToolCallID == l.id) {
		if e.ToolCallName != nil && *e.ToolCallName != l.toolName {
			return nil, c.s.fail(i, member(contract.ToolCallChunkEventMemberToolCallName), contract.RuleSequenceChunks, "toolCallName %q does not match %q, which the call %q opened with", *e.ToolCallName, l.toolName, l.id)
		}
		if e.ParentMessageID != nil && (l.parent == nil || *e.ParentMessageID != *l.parent) {
			return nil, c.s.fail(i, member(contract.ToolCallChunkEventMemberParentMessageID), contract.RuleSequenceChunks, "parentMessageId %q does not match what the call %q opened with", *e.ParentMessageID, l.id)
		}
	} else {
		out = append(out, c.closeLane(o)...)
		if e.ToolCallID == nil {
			return nil, c.s.fail(i, "", contract.RuleSequenceChunks, "the first TOOL_CALL_CHUNK of a call must carry its toolCallId")
		}
		if e.ToolCallName == nil {
			return nil, c.s.fail(i, "", contract.RuleSequenceChunks, "the first TOOL_CALL_CHUNK of a call must carry its toolCallName")
		}
		l = &lane{kind: chunkTool, id: *e.ToolCallID, toolName: *e.ToolCallName, parent: e.ParentMessageID, tag: e.SubagentRunID}
		c.lanes[o] = l
		out = append(out, contract.ToolCallStartEvent{ToolCallID: l.id, ToolCallName: l.toolName, ParentMessageID: e.ParentMessageID, SubagentRunID: e.SubagentRunID, Metadata: e.Metadata})
	}
	if e.Delta != nil || e.RawEvent != nil {
		tag := e.SubagentRunID
		if tag == nil {
			tag = l.tag
		}
		out = append(out, contract.ToolCallArgsEvent{ToolCallID: l.id, Delta: deref(e.Delta), SubagentRunID: tag, RawEvent: e.RawEvent})
	}
	return out, nil
}

func (c *chunker) reasoning(i int, e contract.ReasoningMessageChunkEvent) ([]contract.Event, error) {
	o, err := c.resolve(i, chunkReasoning, e.MessageID, e.SubagentRunID, "reasoning message")
	if err != nil {
		return nil, err
	}
	var out []contract.Event
	l := c.lanes[o]
	if l == nil || l.kind != chunkReasoning || (e.MessageID != nil && *e.MessageID != l.id) {
		out = append(out, c.closeLane(o)...)
		if e.MessageID == nil {
			return nil, c.s.fail(i, "", contract.RuleSequenceChunks, "the first REASONING_MESSAGE_CHUNK of a message must carry its messageId")
		}
		l = &lane{kind: chunkReasoning, id: *e.MessageID, tag: e.SubagentRunID}
		c.lanes[o] = l
		// The role of a reasoning message is the tag of the reasoning
		// variant of Message, which the model looked up once.
		out = append(out, contract.ReasoningMessageStartEvent{MessageID: l.id, Role: c.s.reasoningRole(), SubagentRunID: e.SubagentRunID, Metadata: e.Metadata})
	}
	if e.Delta != nil || e.RawEvent != nil {
		tag := e.SubagentRunID
		if tag == nil {
			tag = l.tag
		}
		out = append(out, contract.ReasoningMessageContentEvent{MessageID: l.id, Delta: deref(e.Delta), SubagentRunID: tag, RawEvent: e.RawEvent})
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
