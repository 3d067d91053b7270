package agui

import (
	"encoding/json"
	"strings"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// Result is what checking one record found and what the record would show
// a user. Data from the record (message text, arguments, state, error
// reasons, metadata) is kept exactly as the record holds it; renderers
// print it as JSON literals, never as their own words.
type Result struct {
	// Profile and Revision name the profile the record was checked under.
	Profile  string `json:"profile"`
	Revision string `json:"revision,omitempty"`
	// Source names the record: a file name, "-" for standard input.
	Source string `json:"source"`
	// Example is true when the record is the built-in tutorial example
	// rather than a file the user chose.
	Example bool `json:"example"`
	// Accepted is true when the record satisfies every rule of the profile.
	Accepted bool `json:"accepted"`
	// Events is the number of events read. When the reader rejects the
	// record, it is the number read in full before the finding.
	Events int `json:"events"`
	// Findings holds what rejects the record. Checking stops at the first
	// finding, as a consumer of the live stream would, so there is at most
	// one; everything before it is in the rest of the result.
	Findings []Finding `json:"findings"`
	// Warnings lists what AG-UI 1.1 tolerance stripped or dropped, and
	// patches that did not apply.
	Warnings []Finding `json:"warnings"`

	Runs      []Run      `json:"runs"`
	Messages  []Message  `json:"messages"`
	ToolCalls []ToolCall `json:"toolCalls"`
	Steps     []Step     `json:"steps"`
	// State is the final state, exactly as the last snapshot and deltas
	// left it (null when the record set none).
	State json.RawMessage `json:"state"`
	// Unfinished lists the messages, steps and tool-call proposals that the
	// record opened and never closed.
	Unfinished []Unfinished `json:"unfinished"`
}

// Run is one run of the record with its declared outcome.
type Run struct {
	ThreadID string  `json:"threadId,omitempty"`
	RunID    string  `json:"runId,omitempty"`
	Outcome  Outcome `json:"outcome"`
}

// Outcome kinds: how a run ended, as the record declares it. The kinds
// RUN_FINISHED declares are its outcome's tags; the other two are the
// checker's own.
const (
	OutcomeSuccess    = contract.RunFinishedOutcomeTagSuccess   // RUN_FINISHED without an outcome, or with success
	OutcomeInterrupt  = contract.RunFinishedOutcomeTagInterrupt // RUN_FINISHED stopped for a human decision
	OutcomeCancelled  = contract.RunFinishedOutcomeTagCancelled // RUN_FINISHED cancelled (AG-UI 1.1 only)
	OutcomeError      = "error"                                 // RUN_ERROR
	OutcomeUnfinished = "unfinished"                            // the record ends inside the run
)

// Outcome is a run's declared outcome. It is shown, never acted on.
type Outcome struct {
	Kind string `json:"kind"`
	// Result is the run's return value as the record holds it.
	Result json.RawMessage `json:"result,omitempty"`
	// PendingToolCalls are the calls a successful run left unanswered.
	PendingToolCalls []string `json:"pendingToolCalls,omitempty"`
	// Interrupts are recognised and shown; the checker never decides,
	// answers or resumes them.
	Interrupts []Interrupt `json:"interrupts,omitempty"`
	// Error is the reason of a failed run, as literal data.
	Error *RunError `json:"error,omitempty"`
	// FailedAfterFinish is true when RUN_ERROR followed the run's
	// RUN_FINISHED: the run failed late, and what RUN_FINISHED declared
	// (result, interrupts, pending calls) is still shown beside the error.
	FailedAfterFinish bool `json:"failedAfterFinish,omitempty"`
}

// Interrupt is one interrupt of an interrupt outcome.
type Interrupt struct {
	ID         string          `json:"id"`
	Reason     string          `json:"reason"`
	Message    string          `json:"message,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
}

// RunError is what RUN_ERROR said, as literal data.
type RunError struct {
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

// Message is a conversation message the record produced.
type Message struct {
	ID   string `json:"id"`
	Role string `json:"role"`
	// Content is the text of a streamed message; for a message whose
	// content is structured (tool results with parts, activities) it is
	// empty and Data holds the content as JSON.
	Content string          `json:"content"`
	Data    json.RawMessage `json:"data,omitempty"`
	// Subagent is the subagent invocation the message belongs to, if any.
	Subagent string `json:"subagent,omitempty"`
	// ToolCallID is the call a tool message answers, for a result shown
	// as a message of its own rather than beside its call (see
	// ag-ui.sequence.tool-result).
	ToolCallID string `json:"toolCallId,omitempty"`
	// Error is why the tool failed, as a tool message a MESSAGES_SNAPSHOT
	// restates says it; empty when it does not.
	Error    string `json:"error,omitempty"`
	Complete bool   `json:"complete"`
}

// ToolCall is a tool call the agent proposed. It is never executed.
type ToolCall struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	ParentMessageID string `json:"parentMessageId,omitempty"`
	// Arguments is the argument text exactly as streamed; it is not parsed.
	Arguments string `json:"arguments"`
	Complete  bool   `json:"complete"`
	// Result is the content of the TOOL_CALL_RESULT that answered it.
	Result json.RawMessage `json:"result,omitempty"`
}

// Step is a step of the agent's work.
type Step struct {
	Name     string `json:"name"`
	Subagent string `json:"subagent,omitempty"`
	Complete bool   `json:"complete"`
}

// Unfinished names an item the record opened and never closed.
type Unfinished struct {
	Kind string `json:"kind"` // run, message, step or tool call
	ID   string `json:"id"`
}

// The Kinds of Unfinished: what the record opened and never closed.
const (
	// UnfinishedRun is the Kind of the run a record ends inside.
	UnfinishedRun = "run"
	// UnfinishedMessage is the Kind of a message without its end.
	UnfinishedMessage = "message"
	// UnfinishedToolCall is the Kind of a tool call without its end.
	UnfinishedToolCall = "tool call"
	// UnfinishedStep is the Kind of a step without its finish.
	UnfinishedStep = "step"
)

// own makes the result hold copies of every string and byte slice it
// keeps: while a record is checked its strings are the caller's bytes, and
// the result must not change when the caller reuses them. The copies share
// one string and one byte block, made in one allocation each rather than
// one per value: a large record's result holds thousands of them.
func (r *Result) own() {
	for i := range r.Runs {
		if e := r.Runs[i].Outcome.Error; e != nil {
			copied := *e
			r.Runs[i].Outcome.Error = &copied
		}
	}
	textLen, rawLen := 0, 0
	r.values(func(s *string) { textLen += len(*s) }, func(b *json.RawMessage) { rawLen += len(*b) })
	// One walk copies and points: the builder has room for all the text,
	// so it never moves what it holds, and each string is the part of it
	// just written.
	var sb strings.Builder
	sb.Grow(textLen)
	block := make([]byte, 0, rawLen)
	r.values(func(s *string) {
		start := sb.Len()
		sb.WriteString(*s)
		*s = sb.String()[start:]
	}, func(b *json.RawMessage) {
		if *b == nil {
			return
		}
		start := len(block)
		block = append(block, *b...)
		// Capped: appending to one value must not run into the next.
		*b = block[start:len(block):len(block)]
	})
}

// values calls str for every string the result holds and raw for every
// byte slice, always in the same order.
func (r *Result) values(str func(*string), raw func(*json.RawMessage)) {
	findings := func(fs []Finding) {
		for i := range fs {
			str(&fs[i].Pointer)
			str(&fs[i].Message)
		}
	}
	findings(r.Findings)
	findings(r.Warnings)
	for i := range r.Runs {
		run := &r.Runs[i]
		str(&run.ThreadID)
		str(&run.RunID)
		oc := &run.Outcome
		raw(&oc.Result)
		for k := range oc.PendingToolCalls {
			str(&oc.PendingToolCalls[k])
		}
		for k := range oc.Interrupts {
			in := &oc.Interrupts[k]
			str(&in.ID)
			str(&in.Reason)
			str(&in.Message)
			str(&in.ToolCallID)
			raw(&in.Metadata)
		}
		if oc.Error != nil {
			str(&oc.Error.Message)
			str(&oc.Error.Code)
		}
	}
	for i := range r.Messages {
		m := &r.Messages[i]
		str(&m.ID)
		str(&m.Role)
		str(&m.Content)
		str(&m.Subagent)
		str(&m.ToolCallID)
		str(&m.Error)
		raw(&m.Data)
	}
	for i := range r.ToolCalls {
		t := &r.ToolCalls[i]
		str(&t.ID)
		str(&t.Name)
		str(&t.ParentMessageID)
		str(&t.Arguments)
		raw(&t.Result)
	}
	for i := range r.Steps {
		str(&r.Steps[i].Name)
		str(&r.Steps[i].Subagent)
	}
	for i := range r.Unfinished {
		str(&r.Unfinished[i].ID)
	}
	raw(&r.State)
}
