package agui

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/contractkit/contractkit/agui/internal/recordtext"
	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Stream checks the events of a live stream as they arrive, with the same
// reader and checker as Check. Its result is the result Check gives for
// the record the stream is saved as (one event per line, see Line):
// the same verdict, findings, warnings and everything shown. So, as in
// Check, a reading finding anywhere (a line that is not strict JSON, the
// record's size, its event or value count) makes the whole result that
// finding alone; and after a sequence finding the stream is still read,
// because a reading finding later in it would take its place.
//
// What a Stream keeps is what the checker keeps for a record, so its
// memory is bounded by the profile's limits, not by the stream's length:
// once a limit is passed, later events are only counted.
type Stream struct {
	// Set by NewStream, then only read.
	p   *Profile
	opt Options
	// lists lend the result's lists their memory while the stream is
	// checked; End gives the result copies of the lengths they reached.
	lists *resultLists
	// tables lend the sequence checker the id tables it grows most, for the
	// same reason.
	tables *seqTables
	// inputLimit is set when the profile limits the record's size.
	inputLimit bool

	// Parse's and Line's below, Check's after them: where the two halves
	// run on two goroutines (Parse), a field one writes for every event
	// must not share a cache line with one the other reads for every
	// event, or each event moves the line from core to core. So the
	// halves' fields are kept apart, each half's on lines of its own
	// (halfApart).
	_ halfApart

	lr lineReader
	// live holds the trees the checker may keep (the state refers to
	// them), taken from the pool Check uses; scratch holds one event's
	// tree once checking has stopped.
	live    *strictjson.Arena
	scratch strictjson.Arena
	// text holds the lines the trees borrow their strings from, in blocks;
	// once checking has stopped, spare is reused for each line.
	text, spare []byte
	// blocks are the blocks of text taken from lineBlocks, given back at
	// End.
	blocks   []*[lineBlock]byte
	bytes    int  // the size of the record so far, newlines included
	nonSpace bool // some event's text is not all white space
	readErr  *fail
	readAt   int // the event count the reading finding leaves
	// seqStopped is seqErr != nil, for Parse and Line: Check sets it once,
	// Parse reads it for every event.
	seqStopped atomic.Bool

	_ halfApart

	c      *checker
	seqErr error
	// checkedEvents and checkedBytes are Events and Bytes as of the last
	// event checked.
	checkedEvents, checkedBytes int

	_ halfApart
}

// halfApart keeps the fields before it and after it on different cache
// lines, and off the pair of lines a core fetches together (128 bytes on
// the x86 processors that fetch the adjacent line): with the reading
// half's counters beside the checking half's, live checking through
// livecheck.ReadBody ran 10–15% slower in memory.
type halfApart [128]byte

// NewStream starts checking a stream under the profile opt names.
func NewStream(opt Options) (*Stream, error) {
	p, m, err := setup(opt)
	if err != nil {
		return nil, err
	}
	s := &Stream{p: p, opt: opt, c: newChecker(p, m, opt), lr: lineReader{lim: readLimits(p)}, live: arenas.Get().(*strictjson.Arena)}
	s.c.seq.srcs = true
	s.lists = listPool.Get().(*resultLists)
	s.lists.lend(s.c.r)
	s.tables = tablePool.Get().(*seqTables)
	s.tables.lend(s.c.seq)
	// The sequence checker joins short streamed texts in a lent buffer,
	// as under Check: End gives it back once the result owns its texts.
	s.c.seq.lendJoined()
	s.inputLimit = p.Has(contract.RuleReaderInputBytes)
	return s, nil
}

// resultLists are the memory of a result's lists of messages, tool calls
// and steps while a stream is checked. Check counts what a record will put
// in them before it checks it (presize); a stream cannot, and growing
// fresh lists for each stream, copied at every doubling, made the
// collector work for most of what live checking cost beyond a file.
// Streams take them from listPool and give them back at End.
type resultLists struct {
	messages  []Message
	toolCalls []ToolCall
	steps     []Step
}

// maxPooledList bounds the entries of a list kept for the next stream:
// a stream that made more gives its lists to the collector.
const maxPooledList = 4096

var listPool = sync.Pool{New: func() any { return new(resultLists) }}

// lend gives r's lists the pooled memory.
func (l *resultLists) lend(r *Result) {
	r.Messages, r.ToolCalls, r.Steps = l.messages[:0], l.toolCalls[:0], l.steps[:0]
}

// settle gives r exact copies of its lists, which may use l's memory (or
// memory they grew into), clears that memory of what r refers to, and
// keeps it for the next stream.
func (l *resultLists) settle(r *Result) {
	l.messages, r.Messages = reclaim(r.Messages)
	l.toolCalls, r.ToolCalls = reclaim(r.ToolCalls)
	l.steps, r.Steps = reclaim(r.Steps)
	listPool.Put(l)
}

// reclaim returns a copy of list, exactly as long, and list's memory
// cleared for reuse (nil when it is too large to keep).
func reclaim[T any](list []T) (spare, copied []T) {
	copied = make([]T, len(list))
	copy(copied, list)
	return emptied(list), copied
}

// emptied clears list of what it refers to and returns it empty, for the
// next check to append to, or nil when it grew past maxPooledList
// entries: the one rule for every list a check lends from a pool.
func emptied[T any](list []T) []T {
	clear(list)
	if cap(list) > maxPooledList {
		return nil
	}
	return list[:0]
}

// seqTables are the tables of a sequence checker that grow with the
// entities of a record or stream: its message and tool call ids. Check and
// a Stream take them from tablePool, empty, with the room the checks before
// made, and give them back at the end: the result keeps none of them.
type seqTables struct {
	msgs, tools idTable
	slots       []slot
}

var tablePool = sync.Pool{New: func() any { return new(seqTables) }}

// lend gives q the pooled tables, which are empty.
func (t *seqTables) lend(q *seq) {
	q.msgs, q.tools = t.msgs, t.tools
	q.slots = t.slots
	q.resetSlots()
	q.msgs.run, q.tools.run = 1, 1 // q's first run has begun
}

// settle takes back the tables q holds now, empties them and keeps them
// for the next stream, unless one grew past what is worth keeping: by its
// room, as emptied bounds a list, since the room is what a pooled table
// keeps.
func (t *seqTables) settle(q *seq) {
	if cap(q.msgs.entries) > maxPooledList || cap(q.tools.entries) > maxPooledList || cap(q.slots) > maxPooledList {
		return
	}
	t.msgs, t.tools = q.msgs, q.tools
	q.msgs, q.tools = idTable{}, idTable{}
	// The slots' ids are dropped, so that a pooled list keeps no record alive.
	clear(q.slots)
	t.slots, q.slots = q.slots[:0], nil
	t.msgs.reset()
	t.tools.reset()
	tablePool.Put(t)
}

// lineBlock is the size of the blocks Line copies lines into.
const lineBlock = 64 << 10

// lineBlocks hold the blocks of streams that ended for the next stream, as
// arenas hold the trees' memory: a process that checks stream after stream
// (agui tap, a test suite, a server) then copies their lines without
// allocating, and the collector has that much less to do.
var lineBlocks = sync.Pool{New: func() any { return new([lineBlock]byte) }}

// Line returns the line a record holds for an event whose text is data: a
// copy of data in which every line feed (data lines of a server-sent event
// join with one) is a carriage return. JSON reads both as the same white
// space, and a raw one inside a string is refused alike, so the event
// means what it meant while the record keeps one event per line; the
// length is unchanged, so every size limit measures the same.
//
// A finding at one of those line feeds names the character the event was
// sent with there: a line feed, or a carriage return for those LineWithCRs
// is told of. (The saved record holds a carriage return, and checking it
// names that.)
//
// The copy is in memory the Stream keeps for as long as its trees may
// refer to the line: lines share blocks rather than taking an allocation
// each. Once checking has stopped nothing refers to a line after Event
// returns, and Line reuses one buffer. A line is valid until the next
// call of Line or End.
func (s *Stream) Line(data []byte) []byte { return s.LineWithCRs(data, nil) }

// LineWithCRs is Line for data some of whose line feeds stand for a
// carriage return the stream sent: crs are their offsets, in order (the
// data lines of a server-sent event that ended with CR or CRLF, joined
// with a line feed all the same; sse.Event.CRs).
func (s *Stream) LineWithCRs(data []byte, crs []int) []byte {
	var line []byte
	if s.readErr != nil || s.seqStopped.Load() {
		s.spare = append(s.spare[:0], data...)
		line = s.spare
	} else {
		if cap(s.text)-len(s.text) < len(data) {
			if len(data) <= lineBlock {
				b := lineBlocks.Get().(*[lineBlock]byte)
				s.blocks = append(s.blocks, b)
				s.text = b[:0]
			} else {
				s.text = make([]byte, 0, len(data))
			}
		}
		start := len(s.text)
		s.text = append(s.text, data...)
		line = s.text[start:len(s.text):len(s.text)]
	}
	// The reader is told where the line holds a carriage return for a line
	// feed that was sent: all the line feeds but those crs names.
	lfs := s.lr.sentLF[:0]
	recordtext.CRForLF(line, &lfs)
	if len(crs) > 0 {
		lfs = slices.DeleteFunc(lfs, func(off int) bool {
			_, cr := slices.BinarySearch(crs, off)
			return cr
		})
	}
	s.lr.sentLF = lfs
	return line
}

// Event checks the next event, given as the line Line returned for it. It
// returns the findings and warnings this event caused, in order: a finding
// stops the checking of the sequence, and a reading finding ends all
// checking. It is Check(Parse(line)).
func (s *Stream) Event(line []byte) []Finding { return s.Check(s.Parse(line)) }

// Parse is the first half of Event: it reads the event's line (as Line
// returned it) into a tree, which Check then checks. The two halves may
// run on two goroutines, so that a stream is read and parsed while the
// events before are checked: Line and Parse on one, in the stream's order,
// Check on the other, given what Parse returned in the same order, with
// the hand-over between them ordering memory (a channel does). While both
// run, Events, Bytes and Open may be called on Check's goroutine; nothing
// else of the Stream is used (Stopped and End read both halves' state).
func (s *Stream) Parse(line []byte) (r Parsed) {
	s.bytes += len(line) + 1
	r = Parsed{line: line, index: s.lr.index}
	defer func() { r.events, r.bytes = s.lr.index, s.bytes }()
	if !s.nonSpace && len(bytes.TrimSpace(line)) > 0 {
		s.nonSpace = true
	}
	if s.readErr != nil && s.readErr.Rule == contract.RuleReaderInputBytes {
		return r
	}
	if s.inputLimit && s.bytes > contract.LimitInputBytes {
		// Check measures the record before reading any of it: this
		// finding stands in place of any other.
		s.readErr = inputBytesFail()
		s.readAt = 0
		r.found = owned([]Finding{s.readErr.Finding})
		return r
	}
	if s.readErr != nil {
		return r
	}
	arena := s.live
	if s.seqStopped.Load() {
		// Checking has stopped: the tree is read for its reading
		// findings alone, and nothing keeps it.
		s.scratch.Reset()
		arena = &s.scratch
	}
	v, err := s.lr.read(line, arena)
	if err != nil {
		s.readErr = asFail(err)
		s.readAt = r.index
		r.found = owned([]Finding{s.readErr.Finding})
		return r
	}
	r.tree = v
	return r
}

// Oversized takes the place of Line and Parse for an event of n bytes
// whose text was not kept: one too large for the record to stay within the
// profile's input limit, so that the record's verdict is that limit
// whatever the event says (Check measures a record before it reads any of
// it). nonSpace says whether the text holds anything but white space. It
// is false, and nothing is counted, when the profile sets no input limit
// or the record could stay within it: such an event must be read.
func (s *Stream) Oversized(n int, nonSpace bool) (Parsed, bool) {
	if !s.inputLimit || n < contract.LimitInputBytes {
		return Parsed{}, false
	}
	s.bytes += n + 1
	s.nonSpace = s.nonSpace || nonSpace
	r := Parsed{index: s.lr.index}
	if s.readErr == nil || s.readErr.Rule != contract.RuleReaderInputBytes {
		s.readErr = inputBytesFail()
		s.readAt = 0
		r.found = owned([]Finding{s.readErr.Finding})
	}
	r.events, r.bytes = s.lr.index, s.bytes
	return r, true
}

// Parsed is an event Stream.Parse has read and Stream.Check has yet to
// check.
type Parsed struct {
	line  []byte
	tree  *strictjson.Value // nil when there is nothing to check
	index int
	found []Finding // the reading finding the event caused
	// events and bytes are Stream.Events and Stream.Bytes once the event
	// is read.
	events, bytes int
}

// Events is the number of events read, this one included: what
// Stream.Events will say once it is checked.
func (r Parsed) Events() int { return r.events }

// Check is the second half of Event: it checks an event Parse has read and
// returns the findings and warnings it caused.
func (s *Stream) Check(r Parsed) []Finding {
	s.checkedEvents, s.checkedBytes = r.events, r.bytes
	if r.found != nil {
		return r.found
	}
	if r.tree == nil || s.seqErr != nil {
		return nil
	}
	warns, seqWarns := len(s.c.warns), len(s.c.seq.warnings)
	err := s.c.event(r.index, r.tree, r.line)
	newWarns, newSeqWarns := s.c.warns[warns:], s.c.seq.warnings[seqWarns:]
	if err == nil && len(newWarns) == 0 && len(newSeqWarns) == 0 {
		return nil // the usual event: nothing to copy
	}
	found := append(append([]Finding{}, newWarns...), newSeqWarns...)
	if err != nil {
		s.seqErr = err
		s.seqStopped.Store(true)
		found = append(found, asFail(err).Finding)
	}
	return owned(found)
}

// owned gives the findings Event returns their own strings: a finding may
// borrow its pointer or message from the line, whose block the next
// stream reuses after End.
func owned(found []Finding) []Finding {
	for i := range found {
		found[i].Pointer = strings.Clone(found[i].Pointer)
		found[i].Message = strings.Clone(found[i].Message)
	}
	return found
}

// asFail returns the finding an error of the checker carries.
func asFail(err error) *fail {
	var f *fail
	if errors.As(err, &f) {
		return f
	}
	return &fail{Finding{Event: FileLevel, Rule: contract.RuleReaderJSON, Message: err.Error()}}
}

// Events is the number of events checked so far (where Parse and
// Check run apart, Parse may be ahead).
func (s *Stream) Events() int { return s.checkedEvents }

// Bytes is the size of the record so far, as Line writes it with a
// newline after each event, up to the last event checked.
func (s *Stream) Bytes() int { return s.checkedBytes }

// Stopped reports whether checking has stopped at a finding.
func (s *Stream) Stopped() bool { return s.readErr != nil || s.seqErr != nil }

// Finished reports whether the last run has ended (RUN_FINISHED, or
// RUN_ERROR, which may also be a run that failed before it started) and
// none is active now: as far as the checked events tell, the stream may
// end here.
func (s *Stream) Finished() bool { return s.c.seq.runFinished || s.c.seq.runError }

// Open is the number of entities open now: messages, tool calls,
// reasoning, steps and subagents.
func (s *Stream) Open() int {
	q := s.c.seq
	n := q.text.opened + q.tool.opened + q.span.opened + q.reasoning.opened + len(q.subActive)
	n += q.steps.count()
	return n
}

// End ends the stream and returns its result, as Check returns it for the
// saved record: an *InputError when there was nothing to check. The
// Stream is not used after End.
func (s *Stream) End() (*Result, error) {
	defer func() {
		// The result owns copies of what it shows: the trees and the
		// lines go.
		s.live.Reset()
		arenas.Put(s.live)
		for _, b := range s.blocks {
			lineBlocks.Put(b)
		}
		s.live, s.text, s.spare, s.blocks = nil, nil, nil, nil
		s.c.seq.settleJoined() // r.own has copied every text out of the buffer
	}()
	if !s.nonSpace {
		return nil, &InputError{"the record is empty: there is no event to check"}
	}
	var r *Result
	switch {
	case s.readErr != nil:
		fresh := newChecker(s.c.p, s.c.m, s.opt)
		fresh.r.Events = s.readAt
		r = fresh.stop(s.readErr)
	case s.lr.index == 0:
		fresh := newChecker(s.c.p, s.c.m, s.opt)
		r = fresh.stop(failf(FileLevel, "", contract.RuleReaderRecordShape, "the record holds no event"))
	default:
		s.c.r.Events = s.lr.index
		r = s.c.finish(s.lr.index, s.seqErr)
	}
	s.lists.settle(s.c.r)
	s.tables.settle(s.c.seq)
	s.lists, s.tables = nil, nil
	r.own()
	return r, nil
}

// asSent returns err, the JSON reader's error on line, naming the byte
// that was sent where the line holds another: where the reader stopped at
// a carriage return that stands for a line feed (lr.sentLF), the reader
// is asked again of the line up to that byte with the line feed in its
// place. JSON reads the two alike wherever it reads either (as white
// space, or as a control character a string refuses, or as a byte no
// literal holds), so it stops there again for the same reason, and its
// message names the line feed. Only the syntax is read again: the bytes
// before passed every limit the first time.
func (lr *lineReader) asSent(line []byte, err error) error {
	var se *strictjson.Error
	if len(lr.sentLF) == 0 || !errors.As(err, &se) || se.Kind != strictjson.ErrSyntax {
		return err
	}
	if _, lf := slices.BinarySearch(lr.sentLF, se.Offset); !lf || se.Offset >= len(line) {
		return err
	}
	text := append([]byte(nil), line[:se.Offset+1]...)
	text[se.Offset] = '\n'
	_, again := strictjson.Parse(text, strictjson.Options{MaxDepth: lr.lim.depth})
	var sent *strictjson.Error
	if !errors.As(again, &sent) || sent.Kind != se.Kind || sent.Offset != se.Offset {
		return err
	}
	named := *se
	named.Msg = sent.Msg
	return &named
}
