// Command aictl talks to an AiControl listener: a diagnostic CLI on the
// bridge client library, and the protocol smoke.
//
// The token is read only from the environment variable named by
// --token-env (default AICONTROL_TOKEN), never from a flag, and is never
// printed. Output is JSON on stdout; on failure aictl prints a one-line
// reason on stderr and exits 1 (2 for usage errors).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/buildinfo"
)

// usage names the contract's defaults by their constants, so that the help
// says what the flags default to when the spec changes them.
var usage = fmt.Sprintf(`usage: aictl <command> [flags]

Commands:
  ping                         check that the listener answers
  status                       listener state, queue and history occupancy, last error
  observe                      the latest observation the game published
  events  [--after-seq N] [--limit N]
                               events after an exclusive cursor
  act     --type T [command flags]
                               queue a project command; prints its commandSeq
  wait    --type T [command flags] | --command-seq N
                               queue a command (or take an accepted one) and follow
                               events until its command_completed arrives
  watch   [--after-seq N] [--count N]
                               print events as they arrive, one JSON line each
  smoke   [--command JSON]     run the 12-check protocol smoke; prints its report
  version, --version           print the version of this build

Connection flags (every command):
  --host H         listener host (default %s; non-loopback needs --allow-remote)
  --port N         listener port (default %d)
  --timeout D      timeout of each call, e.g. 5s (default 10s)
  --token-env NAME environment variable holding the token (default AICONTROL_TOKEN)
  --allow-remote   permit a non-loopback host; token and payloads travel in plain text

Command flags (act, wait):
  --target-id V --item-id V --aux-id V   identifiers: an integer, or else a string
  --x N --y N --screen-x N --screen-y N --int-arg N --string-arg S --append
  --field k=v      a project member; v is JSON if it parses, else a string (repeatable)
  --json OBJ       project members as one JSON object

Examples:
  AICONTROL_TOKEN=... aictl smoke
  aictl act --type move --x 3 --y 4
  aictl wait --command-seq 1
  aictl events --after-seq 0 --limit 10
`, aicontrol.DefaultHost, aicontrol.DefaultPort)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

// exitError carries an exit code and a one-line reason.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &exitError{2, fmt.Sprintf(format, args...)}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if len(args) == 1 && (args[0] == "version" || args[0] == "--version" || args[0] == "-version") {
		fmt.Fprintln(stdout, buildinfo.Line("aictl"))
		return 0
	}
	err := dispatch(ctx, args[0], args[1:], stdout, stderr, getenv)
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, "aictl:", oneLine(ee.msg))
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "aictl:", oneLine(err.Error()))
	return 1
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// options are the parsed flags of one invocation.
type options struct {
	host        string
	port        int
	timeout     time.Duration
	tokenEnv    string
	allowRemote bool

	afterSeq   int64
	limit      int64
	count      int
	commandSeq int64
	smokeCmd   string

	cmd    aicontrol.ActParams
	fields []string
	json   string
	set    map[string]bool
}

func parse(name string, args []string, stderr io.Writer) (*options, error) {
	o := &options{set: map[string]bool{}}
	fl := flag.NewFlagSet("aictl "+name, flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.StringVar(&o.host, "host", aicontrol.DefaultHost, "")
	fl.IntVar(&o.port, "port", aicontrol.DefaultPort, "")
	fl.DurationVar(&o.timeout, "timeout", bridge.DefaultCallTimeout, "")
	fl.StringVar(&o.tokenEnv, "token-env", "AICONTROL_TOKEN", "")
	fl.BoolVar(&o.allowRemote, "allow-remote", false, "")
	switch name {
	case "events", "watch":
		fl.Int64Var(&o.afterSeq, "after-seq", -1, "")
		fl.Int64Var(&o.limit, "limit", aicontrol.DefaultEventsPerRequest, "")
		fl.IntVar(&o.count, "count", 0, "")
	case "act", "wait":
		// Each flag has its own storage; buildCommand reads them by name.
		fl.StringVar(&o.cmd.Type, "type", "", "")
		for _, n := range []string{"target-id", "item-id", "aux-id", "string-arg"} {
			fl.String(n, "", "")
		}
		for _, f := range []string{"x", "y", "screen-x", "screen-y", "int-arg"} {
			fl.Int64(f, 0, "")
		}
		fl.Bool("append", false, "")
		fl.Func("field", "", func(v string) error { o.fields = append(o.fields, v); return nil })
		fl.StringVar(&o.json, "json", "", "")
		if name == "wait" {
			fl.Int64Var(&o.commandSeq, "command-seq", 0, "")
		}
	case "smoke":
		fl.StringVar(&o.smokeCmd, "command", `{"type":"move","x":1,"y":2}`, "")
	}
	if err := fl.Parse(args); err != nil {
		return nil, usageErr("%s: %v (see aictl --help)", name, err)
	}
	if fl.NArg() > 0 {
		return nil, usageErr("%s: unexpected argument %q", name, fl.Arg(0))
	}
	fl.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	if name == "act" || name == "wait" {
		if err := o.buildCommand(fl); err != nil {
			return nil, err
		}
	}
	if o.allowRemote {
		fmt.Fprintln(stderr, "aictl: warning: --allow-remote: the token and every payload cross the network unencrypted")
	}
	return o, nil
}

// buildCommand assembles the act params from the command flags.
func (o *options) buildCommand(fl *flag.FlagSet) error {
	get := func(n string) string { return fl.Lookup(n).Value.String() }
	ident := func(n string) *aicontrol.ProjectIdentifier {
		if !o.set[n] {
			return nil
		}
		v := get(n)
		if i, err := strconv.ParseInt(v, 10, 64); err == nil {
			id := aicontrol.ProjectIdentifierFromInteger(i)
			return &id
		}
		id := aicontrol.ProjectIdentifierFromString(v)
		return &id
	}
	integer := func(n string) *int64 {
		if !o.set[n] {
			return nil
		}
		i, _ := strconv.ParseInt(get(n), 10, 64)
		return &i
	}
	c := &o.cmd
	c.TargetID, c.ItemID, c.AuxID = ident("target-id"), ident("item-id"), ident("aux-id")
	c.X, c.Y, c.ScreenX, c.ScreenY, c.IntArg = integer("x"), integer("y"), integer("screen-x"), integer("screen-y"), integer("int-arg")
	if o.set["string-arg"] {
		s := get("string-arg")
		c.StringArg = &s
	}
	if o.set["append"] {
		b := get("append") == "true"
		c.Append = &b
	}
	extra := map[string]json.RawMessage{}
	if o.json != "" {
		if err := json.Unmarshal([]byte(o.json), &extra); err != nil {
			return usageErr("--json: not a JSON object: %v", err)
		}
	}
	for _, f := range o.fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return usageErr("--field %q: want key=value", f)
		}
		if json.Valid([]byte(v)) {
			extra[k] = json.RawMessage(v)
		} else {
			b, _ := json.Marshal(v)
			extra[k] = b
		}
	}
	if len(extra) > 0 {
		c.Extra = extra
	}
	return nil
}

// connect dials and, when the token variable is set, authorizes.
func (o *options) connect(ctx context.Context, getenv func(string) string) (*bridge.Client, error) {
	cfg := o.clientConfig(getenv)
	c, err := bridge.Dial(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Token != "" {
		ok, err := c.Auth(ctx)
		if err != nil {
			c.Close()
			return nil, err
		}
		if !ok {
			c.Close()
			return nil, fmt.Errorf("the token in $%s was refused", o.tokenEnv)
		}
	}
	return c, nil
}

func (o *options) clientConfig(getenv func(string) string) bridge.ClientConfig {
	return bridge.ClientConfig{Host: o.host, Port: o.port, Token: getenv(o.tokenEnv), AllowRemote: o.allowRemote, Timeout: o.timeout}
}

func printJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

func dispatch(ctx context.Context, name string, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	switch name {
	case "ping", "status", "observe", "events", "act", "wait", "watch", "smoke":
	default:
		return usageErr("unknown command %q (see aictl --help)", name)
	}
	o, err := parse(name, args, stderr)
	if err != nil {
		return err
	}
	if _, _, err := bridge.CheckClientConfig(o.clientConfig(getenv)); err != nil {
		return usageErr("%v", err)
	}
	if name == "smoke" {
		var cmd aicontrol.ActParams
		if err := json.Unmarshal([]byte(o.smokeCmd), &cmd); err != nil {
			return usageErr("--command: %v", err)
		}
		rep := bridge.Smoke(ctx, o.clientConfig(getenv), cmd)
		if err := printJSON(stdout, rep); err != nil {
			return err
		}
		if rep.Status != "passed" {
			failed := 0
			for _, c := range rep.Checks {
				if c.Status != "passed" {
					failed++
				}
			}
			return &exitError{1, fmt.Sprintf("smoke failed: %d of %d checks failed", failed, rep.CheckCount)}
		}
		return nil
	}
	if (name == "act" || (name == "wait" && !o.set["command-seq"])) && o.cmd.Type == "" {
		return usageErr("%s: --type is required", name)
	}
	c, err := o.connect(ctx, getenv)
	if err != nil {
		return err
	}
	defer c.Close()
	switch name {
	case "ping":
		r, err := c.Ping(ctx)
		if err != nil {
			return err
		}
		return printJSON(stdout, r)
	case "status":
		r, err := c.Status(ctx)
		if err != nil {
			return err
		}
		return printJSON(stdout, r)
	case "observe":
		r, err := c.Observe(ctx)
		if err != nil {
			return err
		}
		return printJSON(stdout, r)
	case "events":
		after := o.afterSeq
		if after < 0 {
			after = 0
		}
		r, err := c.Events(ctx, after, o.limit)
		if err != nil {
			return err
		}
		return printJSON(stdout, r)
	case "act":
		r, err := c.Act(ctx, o.cmd)
		if err != nil {
			return err
		}
		return printJSON(stdout, r)
	case "wait":
		return wait(ctx, c, o, stdout)
	case "watch":
		return watch(ctx, c, o, stdout)
	}
	return nil
}

// waitResult is what wait prints.
type waitResult struct {
	CommandSeq int64                           `json:"commandSeq"`
	Completed  aicontrol.CommandCompletedEvent `json:"completed"`
	EventSeq   int64                           `json:"eventSeq"`
}

func wait(ctx context.Context, c *bridge.Client, o *options, stdout io.Writer) error {
	cur := bridge.Cursor{}
	seq := o.commandSeq
	if !o.set["command-seq"] {
		before, err := c.Events(ctx, 0, 1)
		if err != nil {
			return err
		}
		cur.AfterSeq = before.LatestSeq
		r, err := c.Act(ctx, o.cmd)
		if err != nil {
			return err
		}
		seq = r.CommandSeq
	} else if seq < 1 {
		return usageErr("wait: --command-seq must be 1 or more")
	}
	wctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	cc, rec, err := c.WaitCompleted(wctx, &cur, seq, 0)
	if err != nil {
		return err
	}
	return printJSON(stdout, waitResult{CommandSeq: seq, Completed: cc, EventSeq: rec.Seq})
}

func watch(ctx context.Context, c *bridge.Client, o *options, stdout io.Writer) error {
	cur := bridge.Cursor{AfterSeq: o.afterSeq}
	if o.afterSeq < 0 {
		now, err := c.Events(ctx, 0, 1)
		if err != nil {
			return err
		}
		cur.AfterSeq = now.LatestSeq
	}
	printed := 0
	for {
		recs, missed, err := c.Next(ctx, &cur, o.limit)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if missed > 0 {
			if err := printJSON(stdout, map[string]int64{"missed": missed}); err != nil {
				return err
			}
		}
		for _, r := range recs {
			if err := printJSON(stdout, r); err != nil {
				return err
			}
			printed++
			if o.count > 0 && printed >= o.count {
				return nil
			}
		}
		if len(recs) == 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}
