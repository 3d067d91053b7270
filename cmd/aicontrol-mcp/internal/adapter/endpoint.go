package adapter

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/generated/aicontrol"
)

// This file is the adapter's side of the wire: one connection to one
// listener, authorized once, one event cursor, and the tool calls waiting
// for their commands' completions. Everything here runs under a.mu, which
// also serializes the connection's requests as the protocol requires.

// Polling of the event history while a call waits: it starts fast, since
// a game usually completes a command within a frame or two, and backs off
// to bound the load on a listener whose commands take long.
const (
	minEventPoll = time.Millisecond
	maxEventPoll = 50 * time.Millisecond
	// maxBatchesPerPoll bounds the events requests of one poll.
	maxBatchesPerPoll = 8
)

// Errors of the connection, each a tool error for the caller.
var (
	// ErrConnectionLost means the listener went away; the next call dials again.
	ErrConnectionLost = errors.New("lost the connection to the listener")
	// ErrTooManyInFlight means MaxInFlight commands are still waiting.
	ErrTooManyInFlight = errors.New("too many commands in flight")
)

// completion is how a waiting call learns its outcome.
type completion struct {
	event    aicontrol.CommandCompletedEvent
	eventSeq int64
	err      error
}

// waiter is a call waiting for one command's completion. A call that is
// cancelled or times out removes its waiter at once (abandon), so that it
// stops counting against MaxInFlight; the completion, when it comes, is
// then read like any other client's and reaches nobody.
type waiter struct {
	done chan completion
}

func (a *Adapter) addr() string {
	return net.JoinHostPort(a.host, strconv.Itoa(a.port))
}

// connectLocked dials, authorizes, reads status and the observation, and
// checks the observation before anything is published or sent. On any
// failure the connection is closed again.
func (a *Adapter) connectLocked(ctx context.Context) error {
	c, err := bridge.Dial(ctx, a.cfg.Client)
	if err != nil {
		return a.noteLocked(fmt.Errorf("cannot reach the listener at %s (is the game running?): %w", a.addr(), err))
	}
	fail := func(err error) error {
		c.Close()
		return a.noteLocked(err)
	}
	if a.cfg.Client.Token != "" {
		ok, err := c.Auth(ctx)
		if err != nil {
			return fail(fmt.Errorf("auth at %s: %w", a.addr(), err))
		}
		if !ok {
			return fail(fmt.Errorf("the listener at %s refused the token from $%s", a.addr(), a.cfg.TokenEnv))
		}
	}
	st, err := c.Status(ctx)
	if err != nil {
		var re *bridge.RemoteError
		if errors.As(err, &re) && re.Code == aicontrol.CodeUnauthorized {
			return fail(fmt.Errorf("the listener at %s needs a token: put it in $%s", a.addr(), a.cfg.TokenEnv))
		}
		return fail(fmt.Errorf("status at %s: %w", a.addr(), err))
	}
	obs, err := c.Observe(ctx)
	if err != nil {
		return fail(fmt.Errorf("observe at %s: %w", a.addr(), err))
	}
	// The cursor starts at the head of the history: the adapter waits only
	// for commands it queues from now on.
	head, err := c.Events(ctx, 0, 1)
	if err != nil {
		return fail(fmt.Errorf("events at %s: %w", a.addr(), err))
	}
	if err := a.acceptLocked(obs); err != nil {
		return fail(err)
	}
	a.client = c
	a.cursor = bridge.Cursor{AfterSeq: head.LatestSeq}
	a.status = st
	a.lastError = ""
	a.connects++
	a.log.Info("connected", "endpoint", a.addr(), "schemaVersion", a.cfg.Actions.SchemaVersion, "observationSeq", obs.ObservationSeq, "connection", a.connects)
	return nil
}

// noteLocked remembers a connection problem for the endpoint resource.
func (a *Adapter) noteLocked(err error) error {
	a.lastError = err.Error()
	return err
}

// ensureLocked connects if there is no connection.
func (a *Adapter) ensureLocked(ctx context.Context) error {
	if a.client != nil {
		return nil
	}
	return a.connectLocked(ctx)
}

// dropLocked closes a connection that failed and ends every wait on it:
// their completions can no longer be read on this listener's history.
func (a *Adapter) dropLocked(cause error) error {
	err := fmt.Errorf("%w at %s: %w; the next call reconnects", ErrConnectionLost, a.addr(), cause)
	if a.client == nil {
		return err
	}
	a.client.Close()
	a.client = nil
	for seq, w := range a.waiters {
		w.done <- completion{err: fmt.Errorf("command %d: %w; whether the game ran it is unknown, call %s to see its state", seq, err, a.cfg.Actions.ObserveTool())}
	}
	clear(a.waiters)
	a.log.Warn("connection lost", "endpoint", a.addr(), "reason", cause.Error())
	return a.noteLocked(err)
}

// callLocked runs one request on the connection, dropping it on a
// transport failure. An error response leaves the connection usable, and
// so does a request the client refused to send (too large for one line).
func callLocked[T any](a *Adapter, f func() (T, error)) (T, error) {
	v, err := f()
	var re *bridge.RemoteError
	if err == nil || errors.As(err, &re) || errors.Is(err, bridge.ErrRequestTooLarge) || errors.Is(err, bridge.ErrInvalidArgument) {
		return v, err
	}
	return v, a.dropLocked(err)
}

// requestLocked runs one request of a tool call, connecting first when
// there is no connection. A listener that has closed the connection since
// the last request (a graceful shutdown closes it once the completions
// are read) is noticed before anything is sent: the request then goes on
// a new connection, once, after ready (when given) approves it again on
// what the new connection observed.
func requestLocked[T any](ctx context.Context, a *Adapter, ready func() error, f func(*bridge.Client) (T, error)) (T, error) {
	var zero T
	for attempt := 0; ; attempt++ {
		if err := a.ensureLocked(ctx); err != nil {
			return zero, err
		}
		if ready != nil {
			if err := ready(); err != nil {
				return zero, err
			}
		}
		c := a.client
		v, err := callLocked(a, func() (T, error) { return f(c) })
		if attempt == 0 && errors.Is(err, bridge.ErrPeerClosed) {
			continue
		}
		return v, err
	}
}

// act queues one command and registers its waiter. available says, under
// the lock and after any reconnection, whether the action may be sent now.
func (a *Adapter) act(ctx context.Context, cmd aicontrol.ActParams, available func() error) (int64, *waiter, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.waiters) >= a.cfg.MaxInFlight {
		return 0, nil, fmt.Errorf("%w: %d commands are waiting for their completion (the limit); retry when one completes", ErrTooManyInFlight, len(a.waiters))
	}
	// A cancelled call must not break the connection the other calls
	// share: the request itself is short and bounded by the client's own
	// timeout, so only the wait that follows listens to cancellation.
	ctx = context.WithoutCancel(ctx)
	r, err := requestLocked(ctx, a, available, func(c *bridge.Client) (aicontrol.ActResult, error) { return c.Act(ctx, cmd) })
	if errors.Is(err, ErrConnectionLost) {
		// The request may have reached the listener before its answer
		// was lost: the game may have queued the command.
		return 0, nil, fmt.Errorf("%w; the command was sent but its sequence number never came back, so whether the game queued and ran it is unknown, call %s to see its state", err, a.cfg.Actions.ObserveTool())
	}
	if err != nil {
		return 0, nil, err
	}
	w := &waiter{done: make(chan completion, 1)}
	a.waiters[r.CommandSeq] = w
	select {
	case a.wake <- struct{}{}:
	default:
	}
	return r.CommandSeq, w, nil
}

// abandon gives up waiting for a command and frees its in-flight slot at
// once: the follower will read its completion, find no waiter, and drop
// it, so no other call can receive it.
func (a *Adapter) abandon(seq int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.waiters, seq)
}

// follow is the endpoint's follower: it reads events with the endpoint's
// own cursor while calls wait, and polls status to notice a new
// observation, until stop is closed. A request it has sent always runs to
// its response (each is bounded by the client's timeout): abandoning one
// would leave the response unread, and closing a socket with unread data
// resets the connection, which the game records as an error.
func (a *Adapter) follow(stop <-chan struct{}) {
	ctx := context.Background()
	defer close(a.followDone)
	poll := minEventPoll
	nextStatus := time.Now().Add(a.cfg.Refresh)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		a.mu.Lock()
		busy := len(a.waiters) > 0
		a.mu.Unlock()
		wait := time.Until(nextStatus)
		if busy && poll < wait {
			wait = poll
		}
		timer.Reset(max(wait, 0))
		select {
		case <-stop:
			return
		case <-a.wake:
			// A command was just queued: look at once, since a game
			// often completes it before the next poll would come.
			poll = minEventPoll
		case <-timer.C:
		}
		a.mu.Lock()
		if a.client != nil {
			if a.pollEventsLocked(ctx) {
				poll = minEventPoll
			} else {
				poll = min(poll*2, maxEventPoll)
			}
			if a.client != nil && !time.Now().Before(nextStatus) {
				a.pollStatusLocked(ctx)
			}
		}
		a.mu.Unlock()
		if !time.Now().Before(nextStatus) {
			nextStatus = time.Now().Add(a.cfg.Refresh)
		}
	}
}

// pollEventsLocked reads every event after the cursor and hands each
// completion to its waiter. It reports whether any event arrived. The
// cursor also moves while no call waits, so that it stays near the head of
// the bounded history.
func (a *Adapter) pollEventsLocked(ctx context.Context) bool {
	progressed := false
	// A game that appends events as fast as they are read must not keep
	// the lock from the calls: after a few batches the next poll comes
	// at once anyway.
	for range maxBatchesPerPoll {
		if a.client == nil {
			return progressed
		}
		recs, missed, err := a.client.Next(ctx, &a.cursor, aicontrol.MaxEventsPerRequest)
		if err != nil {
			var re *bridge.RemoteError
			if !errors.As(err, &re) {
				a.dropLocked(err)
			}
			return progressed
		}
		for _, r := range recs {
			cc, ok := bridge.CompletionOf(r.Event)
			if !ok {
				continue
			}
			w, ok := a.waiters[cc.CommandSeq]
			if !ok {
				continue // another client's command, or one from before this connection
			}
			delete(a.waiters, cc.CommandSeq)
			w.done <- completion{event: cc, eventSeq: r.Seq}
		}
		if missed > 0 {
			a.missedLocked(missed)
		}
		if len(recs) == 0 {
			return progressed
		}
		progressed = true
	}
	return progressed
}

// missedLocked ends every wait after events rolled out of the history
// unread: any of them may have been a completion the adapter waits for.
func (a *Adapter) missedLocked(missed int64) {
	for seq, w := range a.waiters {
		w.done <- completion{err: fmt.Errorf("command %d: %w (%d events missed); call %s to see the game's state", seq, bridge.ErrCompletionMissed, missed, a.cfg.Actions.ObserveTool())}
	}
	clear(a.waiters)
	a.log.Warn("event history rolled over before it was read", "endpoint", a.addr(), "missed", missed)
}

// pollStatusLocked reads status and, when the observation has been
// replaced, reads it and updates the tools.
func (a *Adapter) pollStatusLocked(ctx context.Context) {
	st, err := callLocked(a, func() (aicontrol.StatusResult, error) { return a.client.Status(ctx) })
	if err != nil {
		return
	}
	a.status = st
	if st.ObservationSeq == a.obsSeq {
		return
	}
	obs, err := callLocked(a, func() (aicontrol.ObserveResult, error) { return a.client.Observe(ctx) })
	if err != nil {
		return
	}
	if err := a.acceptLocked(obs); err != nil {
		a.log.Warn("observation not accepted", "endpoint", a.addr(), "reason", err.Error())
	}
}
