package agui

import (
	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/genrt"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Most events are checked without holding them in the contract.Event
// interface: the checker has read the type already, so it decodes the
// variant itself and hands the value to the sequence checker's method for
// it. Putting each event into an interface cost an allocation and a copy
// of the whole event, for nothing. Chunks, and events that may close an
// open chunk stream, go through the union and the chunk expander.

// direct checks event i, of type name, from its tree.
type direct func(c *checker, i int, name string, tree *strictjson.Value) error

// typed makes the direct handler of an event type from its body decoder
// (the tree decoder that does not read the type again: the checker has
// read it to choose the handler) and the sequence checker's method for it.
func typed[T any](decode func(*strictjson.Value, *genrt.Decoder) (T, error), apply func(s *seq, i int, e T, tree *strictjson.Value) error) direct {
	return func(c *checker, i int, name string, tree *strictjson.Value) error {
		e, err := decode(tree, &c.dec)
		c.notes(i)
		if err != nil {
			return c.decodeFailure(i, err)
		}
		if c.edited {
			// Tolerance removed content parts or their members from the
			// tree; decoding it again, written afresh, shows what is left.
			again := genrt.Decoder{Strip: true, NullAbsent: c.dec.NullAbsent}
			if e, err = decode(tree, &again); err != nil {
				return c.decodeFailure(i, err)
			}
		}
		if err := c.seq.begin(i, name); err != nil {
			return err
		}
		return apply(c.seq, i, e, tree)
	}
}

// noTree adapts a method that needs no tree.
func noTree[T any](m func(s *seq, i int, e T) error) func(*seq, int, T, *strictjson.Value) error {
	return func(s *seq, i int, e T, _ *strictjson.Value) error { return m(s, i, e) }
}

// directs are the direct handlers by event type. Events missing here (the
// chunks, and RAW and CUSTOM, which carry data only) go through the union.
var directs = map[string]direct{
	contract.EventRunStarted:              typed(contract.DecodeRunStartedEventBody, noTree((*seq).runStartedEvent)),
	contract.EventRunFinished:             typed(contract.DecodeRunFinishedEventBody, noTree((*seq).runFinishedEvent)),
	contract.EventRunError:                typed(contract.DecodeRunErrorEventBody, noTree(func(s *seq, _ int, e contract.RunErrorEvent) error { return s.runErrorEvent(e) })),
	contract.EventTextMessageStart:        typed(contract.DecodeTextMessageStartEventBody, (*seq).textMessageStart),
	contract.EventTextMessageContent:      typed(contract.DecodeTextMessageContentEventBody, noTree((*seq).textMessageContent)),
	contract.EventTextMessageEnd:          typed(contract.DecodeTextMessageEndEventBody, noTree((*seq).textMessageEnd)),
	contract.EventToolCallStart:           typed(contract.DecodeToolCallStartEventBody, noTree((*seq).toolCallStart)),
	contract.EventToolCallArgs:            typed(contract.DecodeToolCallArgsEventBody, noTree((*seq).toolCallArgs)),
	contract.EventToolCallEnd:             typed(contract.DecodeToolCallEndEventBody, noTree((*seq).toolCallEnd)),
	contract.EventToolCallResult:          typed(contract.DecodeToolCallResultEventBody, noTree((*seq).toolCallResult)),
	contract.EventStateSnapshot:           typed(contract.DecodeStateSnapshotEventBody, (*seq).stateSnapshot),
	contract.EventStateDelta:              typed(contract.DecodeStateDeltaEventBody, (*seq).stateDelta),
	contract.EventStepStarted:             typed(contract.DecodeStepStartedEventBody, noTree((*seq).stepStarted)),
	contract.EventStepFinished:            typed(contract.DecodeStepFinishedEventBody, noTree((*seq).stepFinished)),
	contract.EventReasoningStart:          typed(contract.DecodeReasoningStartEventBody, noTree((*seq).reasoningStart)),
	contract.EventReasoningEnd:            typed(contract.DecodeReasoningEndEventBody, noTree((*seq).reasoningEnd)),
	contract.EventReasoningMessageStart:   typed(contract.DecodeReasoningMessageStartEventBody, noTree((*seq).reasoningMessageStart)),
	contract.EventReasoningMessageContent: typed(contract.DecodeReasoningMessageContentEventBody, noTree((*seq).reasoningMessageContent)),
	contract.EventReasoningMessageEnd:     typed(contract.DecodeReasoningMessageEndEventBody, noTree((*seq).reasoningMessageEnd)),
	contract.EventReasoningEncryptedValue: typed(contract.DecodeReasoningEncryptedValueEventBody, noTree((*seq).reasoningEncryptedValue)),
}

// kindDirects are the direct handlers by event kind (see eventKinds).
var kindDirects = func() []direct {
	out := make([]direct, len(contract.Events))
	for name, h := range directs {
		k, ok := eventKinds.lookup(name)
		if !ok {
			panic("agui: a direct handler for " + name + ", which is not an event of the contract")
		}
		out[k] = h
	}
	return out
}()

// handler returns the direct handler for an event of the given kind, or
// nil when it must go through the union: no direct handler, or a chunk
// stream open that the event may close.
func (c *checker) handler(kind int) direct {
	if c.chunks != nil && len(c.chunks.lanes) > 0 {
		return nil
	}
	return kindDirects[kind]
}
