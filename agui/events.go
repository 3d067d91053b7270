package agui

import contract "github.com/contractkit/contractkit/generated/agui"

// Accessors over the generated event types. A type switch is longer than
// reflection, but the compiler checks it against the generated package.

// eventName returns the wire name of an event.
func eventName(ev contract.Event) string {
	switch ev.(type) {
	case contract.ActivityDeltaEvent:
		return contract.EventActivityDelta
	case contract.ActivitySnapshotEvent:
		return contract.EventActivitySnapshot
	case contract.CustomEvent:
		return contract.EventCustom
	case contract.MessagesSnapshotEvent:
		return contract.EventMessagesSnapshot
	case contract.RawEvent:
		return contract.EventRaw
	case contract.ReasoningEncryptedValueEvent:
		return contract.EventReasoningEncryptedValue
	case contract.ReasoningEndEvent:
		return contract.EventReasoningEnd
	case contract.ReasoningMessageChunkEvent:
		return contract.EventReasoningMessageChunk
	case contract.ReasoningMessageContentEvent:
		return contract.EventReasoningMessageContent
	case contract.ReasoningMessageEndEvent:
		return contract.EventReasoningMessageEnd
	case contract.ReasoningMessageStartEvent:
		return contract.EventReasoningMessageStart
	case contract.ReasoningStartEvent:
		return contract.EventReasoningStart
	case contract.RunErrorEvent:
		return contract.EventRunError
	case contract.RunFinishedEvent:
		return contract.EventRunFinished
	case contract.RunStartedEvent:
		return contract.EventRunStarted
	case contract.StateDeltaEvent:
		return contract.EventStateDelta
	case contract.StateSnapshotEvent:
		return contract.EventStateSnapshot
	case contract.StepFinishedEvent:
		return contract.EventStepFinished
	case contract.StepStartedEvent:
		return contract.EventStepStarted
	case contract.SubagentErrorEvent:
		return contract.EventSubagentError
	case contract.SubagentFinishedEvent:
		return contract.EventSubagentFinished
	case contract.SubagentStartedEvent:
		return contract.EventSubagentStarted
	case contract.TextMessageChunkEvent:
		return contract.EventTextMessageChunk
	case contract.TextMessageContentEvent:
		return contract.EventTextMessageContent
	case contract.TextMessageEndEvent:
		return contract.EventTextMessageEnd
	case contract.TextMessageStartEvent:
		return contract.EventTextMessageStart
	case contract.ToolCallArgsEvent:
		return contract.EventToolCallArgs
	case contract.ToolCallChunkEvent:
		return contract.EventToolCallChunk
	case contract.ToolCallEndEvent:
		return contract.EventToolCallEnd
	case contract.ToolCallResultEvent:
		return contract.EventToolCallResult
	case contract.ToolCallStartEvent:
		return contract.EventToolCallStart
	}
	return ""
}

// attribution returns the subagent invocation an event is attributed to,
// or nil: for the events that carry no attribution, and for the untagged.
func attribution(ev contract.Event) *contract.SubagentRunID {
	switch e := ev.(type) {
	case contract.ActivityDeltaEvent:
		return e.SubagentRunID
	case contract.ActivitySnapshotEvent:
		return e.SubagentRunID
	case contract.CustomEvent:
		return e.SubagentRunID
	case contract.RawEvent:
		return e.SubagentRunID
	case contract.ReasoningEncryptedValueEvent:
		return e.SubagentRunID
	case contract.ReasoningEndEvent:
		return e.SubagentRunID
	case contract.ReasoningMessageChunkEvent:
		return e.SubagentRunID
	case contract.ReasoningMessageContentEvent:
		return e.SubagentRunID
	case contract.ReasoningMessageEndEvent:
		return e.SubagentRunID
	case contract.ReasoningMessageStartEvent:
		return e.SubagentRunID
	case contract.ReasoningStartEvent:
		return e.SubagentRunID
	case contract.StateDeltaEvent:
		return e.SubagentRunID
	case contract.StateSnapshotEvent:
		return e.SubagentRunID
	case contract.StepFinishedEvent:
		return e.SubagentRunID
	case contract.StepStartedEvent:
		return e.SubagentRunID
	case contract.TextMessageChunkEvent:
		return e.SubagentRunID
	case contract.TextMessageContentEvent:
		return e.SubagentRunID
	case contract.TextMessageEndEvent:
		return e.SubagentRunID
	case contract.TextMessageStartEvent:
		return e.SubagentRunID
	case contract.ToolCallArgsEvent:
		return e.SubagentRunID
	case contract.ToolCallChunkEvent:
		return e.SubagentRunID
	case contract.ToolCallEndEvent:
		return e.SubagentRunID
	case contract.ToolCallResultEvent:
		return e.SubagentRunID
	case contract.ToolCallStartEvent:
		return e.SubagentRunID
	}
	return nil
}
