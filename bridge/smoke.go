package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/contractkit/contractkit/generated/aicontrol"
)

// SmokeChecks names the protocol smoke's checks, in the order they run.
var SmokeChecks = []string{
	"wrong-token-rejected", "unauthorized-method-rejected", "authorized", "ping", "status", "observe",
	"invalid-command-rejected", "unknown-method-rejected", "command-accepted", "completion-event",
	"observation-updated", "event-cursor",
}

// SmokeReport is the smoke's JSON report.
type SmokeReport struct {
	SchemaVersion int          `json:"schema_version"`
	Status        string       `json:"status"` // "passed" or "failed"
	Checks        []SmokeCheck `json:"checks"`
	CheckCount    int          `json:"check_count"`
}

// SmokeCheck is one check's outcome; Detail says what was seen, never the token.
type SmokeCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// smokeUnknownMethod is a method no listener implements.
const smokeUnknownMethod = "aictl.smoke.no-such-method"

// Smoke runs the project-neutral protocol smoke against a live, token
// protected endpoint, never holding more than one connection open: token rejection and per-connection authorization,
// liveness, status fields, the initial observation, invalid params, an
// unknown method, command acceptance, its asynchronous completion, the
// updated observation and the exclusive event cursor. command is the
// project command to queue; the endpoint must publish a new observation
// after completing it.
func Smoke(ctx context.Context, cfg ClientConfig, command aicontrol.ActParams) SmokeReport {
	r := &smokeRun{ctx: ctx, cfg: cfg, command: command}
	r.run()
	rep := SmokeReport{SchemaVersion: 1, Status: "passed", Checks: r.checks, CheckCount: len(r.checks)}
	for _, c := range r.checks {
		if c.Status != "passed" {
			rep.Status = "failed"
		}
	}
	if len(r.checks) != len(SmokeChecks) {
		rep.Status = "failed"
	}
	return rep
}

type smokeRun struct {
	ctx     context.Context
	cfg     ClientConfig
	command aicontrol.ActParams
	checks  []SmokeCheck

	main       *Client
	obsSeq     int64
	cursor     Cursor
	commandSeq int64
	completion aicontrol.EventRecord
}

func (r *smokeRun) check(name string, f func() (string, error)) {
	c := SmokeCheck{Name: name, Status: "passed"}
	detail, err := f()
	if err != nil {
		c.Status, c.Detail = "failed", err.Error()
	} else {
		c.Detail = detail
	}
	r.checks = append(r.checks, c)
}

var errNotRun = errors.New("not run: an earlier check it depends on failed")

func wantRemote(err error, code int64) error {
	var re *RemoteError
	if !errors.As(err, &re) {
		if err == nil {
			return fmt.Errorf("accepted; want error %d", code)
		}
		return fmt.Errorf("want error %d, got %v", code, err)
	}
	if re.Code != code {
		return fmt.Errorf("want error %d, got %d %q", code, re.Code, re.Message)
	}
	return nil
}

func (r *smokeRun) run() {
	ctx := r.ctx
	defer func() {
		if r.main != nil {
			r.main.Close()
		}
	}()
	r.check("wrong-token-rejected", func() (string, error) {
		if r.cfg.Token == "" {
			return "", errors.New("no token configured: the smoke needs a token-protected endpoint")
		}
		c, err := Dial(ctx, r.cfg)
		if err != nil {
			return "", err
		}
		r.main = c
		ok, err := c.AuthWith(ctx, r.cfg.Token+"-not-the-token")
		if err != nil {
			return "", err
		}
		if ok {
			return "", errors.New("a wrong token was accepted")
		}
		return "auth answered authorized=false", nil
	})
	r.check("unauthorized-method-rejected", func() (string, error) {
		if r.main == nil {
			return "", errNotRun
		}
		_, err := r.main.Ping(ctx)
		if err := wantRemote(err, aicontrol.CodeUnauthorized); err != nil {
			return "", err
		}
		return fmt.Sprintf("ping before auth answered %d", aicontrol.CodeUnauthorized), nil
	})
	r.check("authorized", func() (string, error) {
		if r.main == nil {
			return "", errNotRun
		}
		ok, err := r.main.Auth(ctx)
		if err != nil || !ok {
			return "", fmt.Errorf("the configured token was refused (%v)", err)
		}
		// The next connection opens only after this one is closed: a
		// listener may serve one connection at a time, and no check may
		// need two open at once.
		r.main.Close()
		r.main = nil
		next, err := Dial(ctx, r.cfg)
		if err != nil {
			return "", err
		}
		_, err = next.Ping(ctx)
		if err := wantRemote(err, aicontrol.CodeUnauthorized); err != nil {
			next.Close()
			return "", fmt.Errorf("a new connection was not unauthorized: %v", err)
		}
		if ok, err := next.Auth(ctx); err != nil || !ok {
			next.Close()
			return "", fmt.Errorf("the configured token was refused on the new connection (%v)", err)
		}
		r.main = next
		return "authorized; after it closed, a new connection started unauthorized", nil
	})
	authorized := func() error {
		if r.main == nil || r.checks[2].Status != "passed" {
			return errNotRun
		}
		return nil
	}
	r.check("ping", func() (string, error) {
		if err := authorized(); err != nil {
			return "", err
		}
		p, err := r.main.Ping(ctx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("ok %v", p.Ok), nil
	})
	r.check("status", func() (string, error) {
		if err := authorized(); err != nil {
			return "", err
		}
		s, err := r.main.Status(ctx)
		if err != nil {
			return "", err
		}
		switch {
		case !s.Running:
			return "", errors.New("running is false")
		case s.QueuedCommands > s.MaxQueuedCommands || s.Events > s.MaxEvents:
			return "", fmt.Errorf("occupancy over capacity: queue %d/%d, events %d/%d", s.QueuedCommands, s.MaxQueuedCommands, s.Events, s.MaxEvents)
		}
		return fmt.Sprintf("queue %d/%d, events %d/%d, observationSeq %d", s.QueuedCommands, s.MaxQueuedCommands, s.Events, s.MaxEvents, s.ObservationSeq), nil
	})
	r.check("observe", func() (string, error) {
		if err := authorized(); err != nil {
			return "", err
		}
		o, err := r.main.Observe(ctx)
		if err != nil {
			return "", err
		}
		r.obsSeq = o.ObservationSeq
		var v struct {
			SchemaVersion *json.RawMessage `json:"schemaVersion"`
		}
		_ = json.Unmarshal(o.Observation, &v)
		if v.SchemaVersion == nil {
			return fmt.Sprintf("observationSeq %d (the observation has no schemaVersion)", o.ObservationSeq), nil
		}
		return fmt.Sprintf("observationSeq %d, schemaVersion %s", o.ObservationSeq, *v.SchemaVersion), nil
	})
	r.check("invalid-command-rejected", func() (string, error) {
		if err := authorized(); err != nil {
			return "", err
		}
		_, err := r.main.Call(ctx, aicontrol.MethodAct, map[string]any{})
		if err := wantRemote(err, aicontrol.CodeInvalidParams); err != nil {
			return "", err
		}
		return "act without a type answered " + fmt.Sprint(aicontrol.CodeInvalidParams), nil
	})
	r.check("unknown-method-rejected", func() (string, error) {
		if err := authorized(); err != nil {
			return "", err
		}
		_, err := r.main.Call(ctx, smokeUnknownMethod, nil)
		if err := wantRemote(err, aicontrol.CodeMethodNotFound); err != nil {
			return "", err
		}
		return "answered " + fmt.Sprint(aicontrol.CodeMethodNotFound), nil
	})
	r.check("command-accepted", func() (string, error) {
		if err := authorized(); err != nil {
			return "", err
		}
		before, err := r.main.Events(ctx, 0, 1)
		if err != nil {
			return "", err
		}
		r.cursor = Cursor{AfterSeq: before.LatestSeq}
		res, err := r.main.Act(ctx, r.command)
		if err != nil {
			return "", err
		}
		r.commandSeq = res.CommandSeq
		return fmt.Sprintf("%q accepted as commandSeq %d", r.command.Type, res.CommandSeq), nil
	})
	r.check("completion-event", func() (string, error) {
		if r.commandSeq == 0 {
			return "", errNotRun
		}
		cc, rec, err := r.main.WaitCompleted(ctx, &r.cursor, r.commandSeq, 0)
		if err != nil {
			return "", err
		}
		r.completion = rec
		return fmt.Sprintf("event %d: success=%v message=%q", rec.Seq, cc.Success, cc.Message), nil
	})
	r.check("observation-updated", func() (string, error) {
		if r.completion.Seq == 0 {
			return "", errNotRun
		}
		o, err := r.main.Observe(ctx)
		if err != nil {
			return "", err
		}
		if o.ObservationSeq <= r.obsSeq {
			return "", fmt.Errorf("observationSeq still %d after the command completed", o.ObservationSeq)
		}
		return fmt.Sprintf("observationSeq %d → %d", r.obsSeq, o.ObservationSeq), nil
	})
	r.check("event-cursor", func() (string, error) {
		if r.completion.Seq == 0 {
			return "", errNotRun
		}
		seq := r.completion.Seq
		at, err := r.main.Events(ctx, seq-1, 1)
		if err != nil {
			return "", err
		}
		if len(at.Events) != 1 || at.Events[0].Seq != seq {
			return "", fmt.Errorf("afterSeq %d did not return event %d first", seq-1, seq)
		}
		after, err := r.main.Events(ctx, seq, aicontrol.MaxEventsPerRequest)
		if err != nil {
			return "", err
		}
		for _, e := range after.Events {
			if e.Seq <= seq {
				return "", fmt.Errorf("afterSeq %d returned event %d: the cursor is not exclusive", seq, e.Seq)
			}
		}
		end, err := r.main.Events(ctx, after.LatestSeq, aicontrol.MaxEventsPerRequest)
		if err != nil {
			return "", err
		}
		if len(end.Events) != 0 || end.LatestSeq < after.LatestSeq {
			return "", fmt.Errorf("afterSeq latestSeq %d returned %d events, latestSeq %d", after.LatestSeq, len(end.Events), end.LatestSeq)
		}
		return fmt.Sprintf("exclusive at %d; latestSeq %d", seq, end.LatestSeq), nil
	})
}
