package agui

// idTable is what the sequence checker knows of the ids of one kind of
// entity (messages, tool calls, reasoning), one entry per id, found with
// one lookup. Kept in a map per fact (open, owner, place in the result,
// name), the facts cost up to four lookups an event, the larger part of
// the checker's work on a record of short messages.
//
// The facts have two lifetimes. Whether an id is open, and who owns it,
// hold for one run: newRun starts both afresh for every entry at once, as
// an entry whose run is not the table's has neither. Its place in the
// result, its name and whether a result answered it hold for the record,
// until a messages snapshot restates the messages (newRecord): an entry
// whose gen is not the table's has none of them.
type idTable struct {
	at      map[string]int32 // the entry of each id
	entries []idEntry
	run     uint32
	gen     uint32
	// last is the entry found or made last, plus one (0 for none): the
	// events of an entity mostly follow one another (a start, its
	// content, its end), and comparing a short id costs less than
	// hashing it.
	last int32
}

// idEntry is one id's facts; see idTable for when each holds.
type idEntry struct {
	id  string
	run uint32 // the run open and owner belong to
	gen uint32 // the record generation index, name and answered belong to
	// open has a bit for each kind of entity that shares the table (a
	// reasoning span and a reasoning message share their ids' owners).
	open       uint8
	ownerKnown bool
	owner      owner
	index      int // the id's place in the result's list, or -1
	name       msgName
	answered   bool
	// role is the role of the message as it was opened last, read while
	// it is open: a messages snapshot may restate its id under another.
	role string
	// unlisted is the message of the conversation the id names that the
	// result's list of messages does not hold (see unlisted).
	unlisted unlisted
	// slot is, plus one, the slot of the conversation's order (see
	// order.go) of the message the id names; of a tool call's id, of the
	// assistant message holding the call. 0 for none.
	slot int32
}

// unlisted is a message of the conversation that the result does not list
// among its messages, though the reference client holds it under its id:
// a tool result shown beside the call it answers (call is that call's id),
// a message of a run's input (call is empty), or the assistant message a
// tool call was opened in before any start named it (opened; call is that
// call's id). role is "" for none.
type unlisted struct {
	role, call string
	opened     bool
}

// note says, for the messages of findings, where the result shows the
// message, if anywhere.
func (u unlisted) note() string {
	if u.opened {
		return " (the message the tool call " + quote(u.call) + " was opened in)"
	}
	if u.call != "" {
		return " (the result of the tool call " + quote(u.call) + ", shown beside the call)"
	}
	return " (a message of the run's input, which the result does not show)"
}

// find returns the entry of id, nil when the table has none.
func (t *idTable) find(id string) *idEntry {
	if t.last > 0 && t.entries[t.last-1].id == id {
		return &t.entries[t.last-1]
	}
	if k, ok := t.at[id]; ok {
		t.last = k + 1
		return &t.entries[k]
	}
	return nil
}

// entry returns the entry of id, made when the table has none. The entry
// moves when the next one is made: it is not kept past that.
func (t *idTable) entry(id string) *idEntry {
	if e := t.find(id); e != nil {
		return e
	}
	if t.at == nil {
		t.at = map[string]int32{}
	}
	t.at[id] = int32(len(t.entries))
	t.entries = append(t.entries, idEntry{id: id, run: t.run, gen: t.gen, index: -1})
	t.last = int32(len(t.entries))
	return &t.entries[len(t.entries)-1]
}

// newRun forgets, for every id, whether it is open and who owns it.
func (t *idTable) newRun() { t.run++ }

// newRecord forgets, for every id, its place in the result, its name and
// whether it was answered.
func (t *idTable) newRecord() { t.gen++ }

// current brings e's run facts to the table's run, forgetting older ones.
func (t *idTable) current(e *idEntry) {
	if e.run != t.run {
		e.run, e.open, e.ownerKnown, e.owner = t.run, 0, false, owner{}
	}
}

// recordFacts brings e's record facts to the table's generation,
// forgetting older ones, every one of them: the readers' generation check
// hides the facts of an entry untouched since newRecord, but once one fact
// is set anew the entry's generation is current, and any fact not cleared
// here would come back (TestRecordFactsShareTheirGeneration).
func (t *idTable) recordFacts(e *idEntry) {
	if e.gen != t.gen {
		e.gen, e.index, e.name, e.answered, e.unlisted, e.slot = t.gen, -1, msgName{}, false, unlisted{}, 0
	}
}

func (t *idTable) isOpen(e *idEntry, bit uint8) bool {
	return e != nil && e.run == t.run && e.open&bit != 0
}

// ownerOf returns the owner recorded for e in this run.
func (t *idTable) ownerOf(e *idEntry) (owner, bool) {
	if e == nil || e.run != t.run || !e.ownerKnown {
		return owner{}, false
	}
	return e.owner, true
}

// ownerKnown reports whether e has an owner in this run.
func (t *idTable) ownerKnown(e *idEntry) bool {
	_, known := t.ownerOf(e)
	return known
}

// setOwner records o as the owner of e in this run.
func (t *idTable) setOwner(e *idEntry, o owner) {
	t.current(e)
	e.owner, e.ownerKnown = o, true
}

// indexOf returns e's place in the result's list.
func (t *idTable) indexOf(e *idEntry) (int, bool) {
	if e == nil || e.gen != t.gen || e.index < 0 {
		return 0, false
	}
	return e.index, true
}

// setIndex records k as e's place in the result's list.
func (t *idTable) setIndex(e *idEntry, k int) {
	t.recordFacts(e)
	e.index = k
}

// setName records n as the name e's message was opened with.
func (t *idTable) setName(e *idEntry, n msgName) {
	t.recordFacts(e)
	e.name = n
}

// setAnswered records that a result answered e's tool call.
func (t *idTable) setAnswered(e *idEntry) {
	t.recordFacts(e)
	e.answered = true
}

// nameOf returns the name e's message was opened with (see msgName).
func (t *idTable) nameOf(e *idEntry) msgName {
	if e == nil || e.gen != t.gen {
		return msgName{}
	}
	return e.name
}

// unlistedOf returns the message e's id names that the result does not
// list, if there is one.
func (t *idTable) unlistedOf(e *idEntry) (unlisted, bool) {
	if e == nil || e.gen != t.gen || e.unlisted.role == "" {
		return unlisted{}, false
	}
	return e.unlisted, true
}

// named reports whether e's id names a message, listed in the result or
// not.
func (t *idTable) named(e *idEntry) bool {
	_, listed := t.indexOf(e)
	_, held := t.unlistedOf(e)
	return listed || held
}

// setUnlisted records u as the message e's id names that the result does
// not list.
func (t *idTable) setUnlisted(e *idEntry, u unlisted) {
	t.recordFacts(e)
	e.unlisted = u
}

// slotOf returns the slot of the conversation's order e's id is bound to,
// or -1.
func (t *idTable) slotOf(e *idEntry) int32 {
	if e == nil || e.gen != t.gen {
		return -1
	}
	return e.slot - 1
}

// setSlot binds e's id to slot k of the conversation's order.
func (t *idTable) setSlot(e *idEntry, k int32) {
	t.recordFacts(e)
	e.slot = k + 1
}

// clearSlots unbinds every id of the table from the conversation's order,
// which a messages snapshot makes anew.
func (t *idTable) clearSlots() {
	for i := range t.entries {
		t.entries[i].slot = 0
	}
}

func (t *idTable) isAnswered(e *idEntry) bool {
	return e != nil && e.gen == t.gen && e.answered
}

// openIDs returns the ids open in this run under bit, in no order.
func (t *idTable) openIDs(bit uint8) []string {
	var ids []string
	for i := range t.entries {
		if e := &t.entries[i]; t.isOpen(e, bit) {
			ids = append(ids, e.id)
		}
	}
	return ids
}

// reset empties the table for another record, keeping its room. The
// entries' ids are dropped, so that a pooled table keeps no record alive.
func (t *idTable) reset() {
	clear(t.at)
	clear(t.entries)
	t.entries = t.entries[:0]
	t.run, t.gen, t.last = 0, 0, 0
}

// size gives an empty table room for n ids.
func (t *idTable) size(n int) {
	t.at = make(map[string]int32, n)
	t.entries = make([]idEntry, 0, n)
	t.last = 0
}
