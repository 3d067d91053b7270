package bridge

import (
	"context"
	"fmt"
	"time"

	"github.com/contractkit/contractkit/generated/aicontrol"
)

// Cursor is an exclusive event cursor for one endpoint: AfterSeq is the
// seq of the last event read. An adapter keeps one per endpoint; the
// history is bounded, so a slow reader can miss events and must then
// resynchronise from observe.
type Cursor struct {
	AfterSeq int64
}

// Next reads the events after the cursor and advances it. missed counts
// events that rolled out of the history before they could be read.
func (c *Client) Next(ctx context.Context, cur *Cursor, limit int64) (recs []aicontrol.EventRecord, missed int64, err error) {
	res, err := c.Events(ctx, cur.AfterSeq, limit)
	if err != nil {
		return nil, 0, err
	}
	switch {
	case len(res.Events) > 0:
		if first := res.Events[0].Seq; first > cur.AfterSeq+1 {
			missed = first - cur.AfterSeq - 1
		}
		cur.AfterSeq = res.Events[len(res.Events)-1].Seq
	case res.LatestSeq > cur.AfterSeq:
		// Everything after the cursor has rolled out.
		missed = res.LatestSeq - cur.AfterSeq
		cur.AfterSeq = res.LatestSeq
	}
	return res.Events, missed, nil
}

// CompletionOf returns the command_completed payload an event carries, if it is one.
func CompletionOf(ev aicontrol.Event) (aicontrol.CommandCompletedEvent, bool) {
	if ev.Type != aicontrol.EventCommandCompleted {
		return aicontrol.CommandCompletedEvent{}, false
	}
	raw, err := ev.MarshalJSON()
	if err != nil {
		return aicontrol.CommandCompletedEvent{}, false
	}
	cc, err := aicontrol.DecodeCommandCompletedEvent(raw)
	return cc, err == nil
}

// ErrCompletionMissed means the completion of a command rolled out of the
// history before it was read; observe tells the current state.
var ErrCompletionMissed = fmt.Errorf("command_completed rolled out of the event history before it was read")

// WaitCompleted follows events from cur until the command_completed of
// commandSeq arrives, polling every poll (default 50ms), until ctx ends.
func (c *Client) WaitCompleted(ctx context.Context, cur *Cursor, commandSeq int64, poll time.Duration) (aicontrol.CommandCompletedEvent, aicontrol.EventRecord, error) {
	if poll <= 0 {
		poll = 50 * time.Millisecond
	}
	for {
		recs, missed, err := c.Next(ctx, cur, aicontrol.MaxEventsPerRequest)
		if err != nil {
			return aicontrol.CommandCompletedEvent{}, aicontrol.EventRecord{}, err
		}
		for _, r := range recs {
			if cc, ok := CompletionOf(r.Event); ok && cc.CommandSeq == commandSeq {
				return cc, r, nil
			}
		}
		if missed > 0 && len(recs) == 0 {
			return aicontrol.CommandCompletedEvent{}, aicontrol.EventRecord{}, fmt.Errorf("%w (command %d, %d events missed)", ErrCompletionMissed, commandSeq, missed)
		}
		if len(recs) > 0 {
			continue // there may be more right away
		}
		select {
		case <-ctx.Done():
			return aicontrol.CommandCompletedEvent{}, aicontrol.EventRecord{}, fmt.Errorf("waiting for command %d: %w", commandSeq, ctx.Err())
		case <-time.After(poll):
		}
	}
}
