//go:build !aicontrol_disabled

package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// envelopeReserve is the room kept in a response line for the envelope
// around a result (jsonrpc, id, braces). Observations and events larger
// than the line limit minus this reserve are refused when published, so
// that observe and events always fit in one line.
const envelopeReserve = 1 << 10

// Errors of the embedding-loop API.
var (
	ErrClosed         = errors.New("bridge: closed")
	ErrUnknownCommand = errors.New("bridge: no accepted, unfinished command with this sequence number")
	ErrTooLarge       = errors.New("bridge: value too large for one protocol line")
	ErrNotObject      = errors.New("bridge: value is not a JSON object")
	ErrReservedEvent  = errors.New("bridge: command_completed events are appended by Complete")
)

type storedEvent struct {
	record aicontrol.EventRecord
	size   int // bytes of the encoded record
}

// state is what listener goroutines and the client loop share. Every
// container is bounded and behind one mutex; only copied values cross it.
type state struct {
	mu sync.Mutex

	maxQueue int
	queue    []Command      // accepted, not drained, in order
	pending  map[int64]bool // accepted, not completed (queued or drained)
	lastCmd  int64          // sequence number of the last accepted command

	maxEvents int
	events    []storedEvent // ring buffer of the newest events
	head      int           // index of the oldest event in events
	count     int
	latestSeq int64

	obsSeq int64
	obs    json.RawMessage // the current snapshot, compact and immutable

	lastError string
	closed    bool
	wake      chan struct{}
}

func newState(maxQueue, maxEvents int) *state {
	return &state{
		maxQueue:  maxQueue,
		pending:   map[int64]bool{},
		maxEvents: maxEvents,
		events:    make([]storedEvent, maxEvents),
		obs:       json.RawMessage("{}"),
		wake:      make(chan struct{}, 1),
	}
}

// enqueue accepts a command: a full queue is refused and uses no number.
func (s *state) enqueue(p aicontrol.ActParams) (int64, *rpcError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, newError(aicontrol.CodeQueueFull, "listener is closing", nil)
	}
	if len(s.queue) >= s.maxQueue {
		return 0, newError(aicontrol.CodeQueueFull, "", nil)
	}
	s.lastCmd++
	s.queue = append(s.queue, Command{Seq: s.lastCmd, Params: p})
	s.pending[s.lastCmd] = true
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return s.lastCmd, nil
}

func (s *state) drain(max int) []Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.queue)
	if max > 0 && max < n {
		n = max
	}
	if n == 0 {
		return nil
	}
	out := make([]Command, n)
	copy(out, s.queue[:n])
	// Shift rather than reslice, so the backing array does not grow past the bound.
	s.queue = append(s.queue[:0], s.queue[n:]...)
	return out
}

// appendLocked adds an event record; the caller holds mu.
func (s *state) appendLocked(ev aicontrol.Event) (int64, error) {
	rec := aicontrol.EventRecord{Seq: s.latestSeq + 1, Event: ev}
	data, err := rec.MarshalJSON()
	if err != nil {
		return 0, err
	}
	if len(data) > maxLine-envelopeReserve {
		return 0, fmt.Errorf("%w: event of %d bytes", ErrTooLarge, len(data))
	}
	s.latestSeq++
	i := (s.head + s.count) % s.maxEvents
	if s.count == s.maxEvents {
		// The oldest event rolls out; its number is never reused.
		s.head = (s.head + 1) % s.maxEvents
	} else {
		s.count++
	}
	s.events[i] = storedEvent{record: rec, size: len(data)}
	return s.latestSeq, nil
}

// complete appends command_completed for an accepted, unfinished command.
func (s *state) complete(seq int64, success bool, message string, extra map[string]json.RawMessage) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.completeLocked(seq, success, message, extra)
}

func (s *state) completeLocked(seq int64, success bool, message string, extra map[string]json.RawMessage) (int64, error) {
	if !s.pending[seq] {
		return 0, fmt.Errorf("%w: %d", ErrUnknownCommand, seq)
	}
	payload := aicontrol.CommandCompletedEvent{CommandSeq: seq, Success: success, Message: message, Extra: extra}
	raw, err := payload.MarshalJSON()
	if err != nil {
		return 0, err
	}
	ev, err := aicontrol.DecodeEvent(raw)
	if err != nil {
		return 0, err
	}
	evSeq, err := s.appendLocked(ev)
	if err != nil {
		return 0, err
	}
	delete(s.pending, seq)
	// A command completed before the loop drained it leaves the queue.
	for i, c := range s.queue {
		if c.Seq == seq {
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			break
		}
	}
	return evSeq, nil
}

// appendEvent adds a project event: an object with a non-empty type.
func (s *state) appendEvent(raw []byte) (int64, error) {
	ev, err := aicontrol.DecodeEvent(raw)
	if err != nil {
		return 0, fmt.Errorf("bridge: event: %w", err)
	}
	if ev.Type == aicontrol.EventCommandCompleted {
		return 0, ErrReservedEvent
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, ErrClosed
	}
	return s.appendLocked(ev)
}

// eventsAfter returns retained records with seq > after, oldest first, at
// most limit of them and no more than fit in one response line.
func (s *state) eventsAfter(after, limit int64) aicontrol.EventsResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := aicontrol.EventsResult{LatestSeq: s.latestSeq, Events: []aicontrol.EventRecord{}}
	budget := maxLine - envelopeReserve
	oldest := s.latestSeq - int64(s.count) + 1
	start := after + 1
	if start < oldest {
		start = oldest
	}
	for seq := start; seq <= s.latestSeq && int64(len(res.Events)) < limit; seq++ {
		ev := s.events[(s.head+int(seq-oldest))%s.maxEvents]
		if budget-ev.size-1 < 0 && len(res.Events) > 0 {
			break
		}
		budget -= ev.size + 1
		res.Events = append(res.Events, ev.record)
	}
	return res
}

// publish replaces the observation snapshot.
func (s *state) publish(obs json.RawMessage) (int64, error) {
	v, err := strictjson.Parse(obs, strictjson.Options{})
	if err != nil {
		return 0, fmt.Errorf("bridge: observation: %w", err)
	}
	if v.Kind != strictjson.Object {
		return 0, fmt.Errorf("%w: observation", ErrNotObject)
	}
	compact := v.AppendCompact(make([]byte, 0, len(obs)))
	if len(compact) > maxLine-envelopeReserve {
		return 0, fmt.Errorf("%w: observation of %d bytes", ErrTooLarge, len(compact))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, ErrClosed
	}
	s.obsSeq++
	s.obs = compact
	return s.obsSeq, nil
}

func (s *state) observation() aicontrol.ObserveResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The snapshot is replaced, never modified, so sharing it is a copy.
	return aicontrol.ObserveResult{ObservationSeq: s.obsSeq, Observation: s.obs}
}

func (s *state) setError(msg string) {
	s.mu.Lock()
	s.lastError = msg
	s.mu.Unlock()
}

// shutdown stops accepting commands and completes every unfinished one
// with success=false, in command order.
func (s *state) shutdown(message string) []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	seqs := make([]int64, 0, len(s.pending))
	for seq := range s.pending {
		seqs = append(seqs, seq)
	}
	slices.Sort(seqs)
	for _, seq := range seqs {
		if _, err := s.completeLocked(seq, false, message, nil); err != nil {
			// Completion events are small; failing here means an encoder bug.
			s.lastError = "completing command on close: " + err.Error()
		}
	}
	s.queue = nil
	return seqs
}

// latest returns the seq of the newest event.
func (s *state) latest() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latestSeq
}
