package agui

// The conversation's order. The reference client holds every message of
// the conversation in one list: the messages of a run's input, each
// streamed message, the assistant message a tool call opens before any
// text names it, and a tool message for every result, which it puts right
// after the assistant message holding the call. The result shows only
// some of them (a result beside its call is not a message, the input is
// not shown), but those it shows are in the client's order: a message a
// tool call opened takes its place at the call when its text comes, and a
// messages snapshot keeps every message the conversation holds in its
// place, shown or not.
//
// So the sequence checker keeps, beside the result's list, the order of
// every message of the conversation: a slot for each, linked in order,
// holding the place of the message in the result's list when the result
// lists it. The result's list grows by appending, so the places held in
// idTable entries stay true while the record is checked; finish puts it in
// the conversation's order once.
//
// Cost: a slot (40 bytes) per message of the conversation, one list that
// grows as the result's list does, within the profile's limits, and is
// pooled with the id tables. Appending a slot is constant, and so is
// placing a tool message after the message holding its call, but for the
// tool messages already there, which it steps over: r results cost at most
// r²/2 such steps (one message holding every call, all answered after a
// later message; TestResultsOfOneMessageInOrder), under n²/2 for a record
// of n events, and the usual record (each result right after its call) a
// step or none. A messages snapshot walks the slots once, as it walked the
// result's list.

// slot is one message of the conversation: its id, its role while the
// result does not list it, its place in the result's list (-1 for a
// message the result does not list), and the slot of the next message
// (-1 after the last).
type slot struct {
	id        string
	role      string
	msg, next int32
}

// slotRole is the role the conversation holds the message of slot k under.
func (s *seq) slotRole(k int32) string {
	sl := &s.slots[k]
	if sl.msg >= 0 {
		return s.r.Messages[sl.msg].Role
	}
	return sl.role
}

// resetSlots empties the conversation.
func (s *seq) resetSlots() {
	s.slots, s.head, s.tail = s.slots[:0], -1, -1
}

// newSlot adds a slot for the message id of role, which the result lists at
// msg (-1 for not at all), after slot at (-1: at the end), and binds e (an
// entry of s.msgs, nil for none) to it: an id names the first message the
// conversation holds under it, so only an entry bound to no slot yet is
// bound.
func (s *seq) newSlot(e *idEntry, at int32, id, role string, msg int) int32 {
	k := int32(len(s.slots))
	if at < 0 {
		at = s.tail
	}
	next := int32(-1)
	switch {
	case at >= 0:
		next, s.slots[at].next = s.slots[at].next, k
	default:
		s.head = k
	}
	if at == s.tail {
		s.tail = k
	}
	s.slots = append(s.slots, slot{id: id, role: role, msg: int32(msg), next: next})
	s.bindSlot(e, k)
	return k
}

// appendSlot adds the message id of role at the end of the conversation
// (see newSlot).
func (s *seq) appendSlot(e *idEntry, id, role string, msg int) int32 {
	return s.newSlot(e, -1, id, role, msg)
}

// bindSlot binds e, an entry of s.msgs, to slot k, unless it is bound.
func (s *seq) bindSlot(e *idEntry, k int32) {
	if e != nil && s.msgs.slotOf(e) < 0 {
		s.msgs.setSlot(e, k)
	}
}

// showAt records that the result lists the message of e's slot at msg:
// a message the conversation held before the result listed it (one a tool
// call opened, one of the run's input) is shown in its place. It reports
// whether e had a slot.
func (s *seq) showAt(e *idEntry, msg int) bool {
	k := s.msgs.slotOf(e)
	if k < 0 || s.slots[k].msg >= 0 {
		return false
	}
	s.slots[k].msg = int32(msg)
	return true
}

// spliceSlot adds a tool message answering call, as the reference client
// adds one for every result: right after the assistant message holding the
// call and the tool messages that follow it, or at the end when no
// assistant message holds it.
func (s *seq) spliceSlot(e *idEntry, id, call string, msg int) {
	at := int32(-1)
	if owner := s.holderOf(s.tools.find(call)); owner >= 0 {
		tool := s.toolRole()
		for at = owner; s.slots[at].next >= 0 && s.slotRole(s.slots[at].next) == tool; {
			at = s.slots[at].next
		}
	}
	s.newSlot(e, at, id, s.toolRole(), msg)
}

// holderOf returns the slot of the assistant message holding the tool call
// of e, an entry of s.tools, or -1: a message an activity has replaced since
// holds no call, as in the reference client.
func (s *seq) holderOf(e *idEntry) int32 {
	if k := s.tools.slotOf(e); k >= 0 && s.slotRole(k) == s.assistantRole() {
		return k
	}
	return -1
}

// ownCall records slot k as the assistant message holding tool call id,
// unless an assistant message holds it already (see holderOf).
func (s *seq) ownCall(id string, k int32) {
	if e := s.tools.entry(id); s.holderOf(e) < 0 {
		s.tools.setSlot(e, k)
	}
}

// callSlot places, for a tool call started with no message holding it, the
// assistant message the reference client puts it in: the message its
// parent names when that is an assistant's, else one it opens, under the
// parent's id when no message has it, else under the call's own id.
func (s *seq) callSlot(call string, parent *string) {
	if s.holderOf(s.tools.find(call)) >= 0 {
		return // a start of a call a message holds changes no message
	}
	if parent != nil {
		e := s.msgs.find(*parent)
		if k := s.msgs.slotOf(e); k >= 0 {
			if s.slotRole(k) == s.assistantRole() {
				s.ownCall(call, k)
				return
			}
		} else {
			s.ownCall(call, s.appendSlot(s.msgs.entry(*parent), *parent, s.assistantRole(), -1))
			return
		}
	}
	// Under the call's id: a message that id names already keeps it.
	s.ownCall(call, s.appendSlot(s.msgs.entry(call), call, s.assistantRole(), -1))
}

// assistantRole is the role of an assistant message, from the model.
func (s *seq) assistantRole() string {
	return s.m.roles.assistant
}

// inOrder puts the result's list in the conversation's order. A message
// the list holds that no slot places (none should) keeps its place after
// the others rather than being lost.
func (s *seq) inOrder() {
	msgs := s.r.Messages
	next, sorted := int32(0), true
	for k := s.head; k >= 0; k = s.slots[k].next {
		if m := s.slots[k].msg; m >= 0 {
			if m != next {
				sorted = false
				break
			}
			next++
		}
	}
	if sorted && int(next) == len(msgs) {
		return
	}
	out := make([]Message, 0, len(msgs))
	placed := make([]bool, len(msgs))
	for k := s.head; k >= 0; k = s.slots[k].next {
		if m := s.slots[k].msg; m >= 0 && int(m) < len(msgs) && !placed[m] {
			placed[m] = true
			out = append(out, msgs[m])
		}
	}
	for m, done := range placed {
		if !done {
			out = append(out, msgs[m])
		}
	}
	copy(msgs, out)
}
