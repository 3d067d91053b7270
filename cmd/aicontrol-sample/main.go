// Command aicontrol-sample is a sample development client that embeds the
// AiControl listener: a tiny game loop with one agent on a grid. It shows
// the integration an embedding project does — publish observations, drain
// accepted commands at a safe point of its own loop, complete every one —
// and it is the endpoint the protocol smoke (aictl smoke) runs against.
//
// Usage:
//
//	aicontrol-sample [--host 127.0.0.1] [--port 43011] [--token-env AICONTROL_TOKEN] [--allow-remote]
//	                 [--max-connections 16] [--max-unauthenticated 128] [--wait-when-full]
//	                 [--auth-deadline 5s] [--write-timeout 30s] [--stall]
//	aicontrol-sample --print-actions > actions.json
//	aicontrol-sample --version
//
// Actions: echo (completes with stringArg as its message), move (needs x
// and y; moves the agent and publishes a new observation), fail (completes
// with success=false, as a refused gameplay action would), wait (the agent
// rests for intArg milliseconds, 1 to maxWaitMillis, and completes then;
// while it rests, move is not in availableActions). Unknown actions
// complete with success=false. actions.json beside this file describes
// them for aicontrol-mcp; the binary carries it, and --print-actions
// prints it, so that a sample installed with go install can be tried
// with aicontrol-mcp without the repository.
//
// When listening it prints one JSON line on stdout:
// {"ready":true,"host":"127.0.0.1","port":43011}, and on stderr a warning
// when the token is empty or short enough to guess. It exits 2 on unsafe
// or invalid settings, before binding, and 0 on SIGINT or SIGTERM after
// completing every unfinished command with success=false and letting the
// clients that follow events read those completions.
package main

import (
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/buildinfo"
)

// actionsFile is the sample's actions file, for --print-actions.
//
//go:embed actions.json
var actionsFile []byte

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, signalChannel()))
}

func signalChannel() <-chan os.Signal {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return ch
}

// Agent is the sample's whole game state.
type Agent struct {
	X int64 `json:"x"`
	Y int64 `json:"y"`
}

// observation is the sample project's own observation schema.
type observation struct {
	SchemaVersion    int      `json:"schemaVersion"`
	Ready            bool     `json:"ready"`
	Agent            Agent    `json:"agent"`
	AvailableActions []string `json:"availableActions"`
}

// schemaVersion versions the sample's observation, separately from the protocol.
const schemaVersion = 1

// actions are the sample's actions; move is offered only while the agent
// is not resting.
var (
	actions     = []string{"echo", "move", "fail", "wait"}
	restActions = []string{"echo", "fail", "wait"}
)

// maxWaitMillis bounds one wait, so a command never outlives a test by much.
const maxWaitMillis = 10000

func run(args []string, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	fl := flag.NewFlagSet("aicontrol-sample", flag.ContinueOnError)
	fl.SetOutput(stderr)
	host := fl.String("host", aicontrol.DefaultHost, "address to listen on (loopback unless --allow-remote)")
	port := fl.Int("port", aicontrol.DefaultPort, "TCP port (0 picks a free one)")
	tokenEnv := fl.String("token-env", "AICONTROL_TOKEN", "environment variable holding the shared token (empty variable: no token, loopback only)")
	allowRemote := fl.Bool("allow-remote", false, "permit a non-loopback address (needs a token)")
	maxQueued := fl.Int("max-queued", aicontrol.DefaultMaxQueuedCommands, "command queue capacity")
	maxEvents := fl.Int("max-events", aicontrol.DefaultMaxEvents, "event history capacity")
	tick := fl.Duration("tick", 10*time.Millisecond, "game loop period")
	maxConns := fl.Int("max-connections", bridge.DefaultMaxConnections, "simultaneous connections; one more is answered too-many-connections and closed")
	waitWhenFull := fl.Bool("wait-when-full", false, "when every connection slot is taken, leave new connections waiting in the backlog instead of refusing them")
	authDeadline := fl.Duration("auth-deadline", time.Duration(aicontrol.DefaultAuthDeadlineMs)*time.Millisecond, "how long a connection may stay unauthorized")
	maxStrangers := fl.Int("max-unauthenticated", aicontrol.DefaultMaxUnauthenticatedConnections, "connections waiting to authorize, apart from --max-connections; one more drops the oldest of them")
	writeTimeout := fl.Duration("write-timeout", bridge.DefaultWriteTimeout, "how long one answer may wait for a peer that does not read; then the connection is reset")
	stall := fl.Bool("stall", false, "accept commands but never run them, as a stalled game loop would (to try queue-full and shutdown)")
	printActions := fl.Bool("print-actions", false, "print the sample's actions file (what aicontrol-mcp --actions reads) and exit")
	version := fl.Bool("version", false, "print the version of this build and exit")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: aicontrol-sample [flags]")
		fmt.Fprintln(stderr, "A sample game client with an AiControl listener: actions echo, move (x, y), fail and wait (intArg ms).")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "aicontrol-sample: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	switch {
	case *version:
		fmt.Fprintln(stdout, buildinfo.Line("aicontrol-sample"))
		return 0
	case *printActions:
		stdout.Write(actionsFile)
		return 0
	}
	if *port < 0 || *port > 65535 {
		fmt.Fprintf(stderr, "aicontrol-sample: port %d is not in 0..65535\n", *port)
		return 2
	}
	cfg := bridge.Config{
		Enabled:           true, // the sample exists to listen
		Addr:              net.JoinHostPort(*host, strconv.Itoa(*port)),
		Token:             os.Getenv(*tokenEnv),
		AllowRemote:       *allowRemote,
		MaxQueuedCommands: *maxQueued,
		MaxEvents:         *maxEvents,
		MaxConnections:    *maxConns,
		WaitWhenFull:      *waitWhenFull,
		AuthDeadline:      *authDeadline,

		MaxUnauthenticatedConnections: *maxStrangers,
		WriteTimeout:                  *writeTimeout,
	}
	if *maxConns <= 0 || *authDeadline <= 0 || *maxStrangers <= 0 || *writeTimeout <= 0 {
		fmt.Fprintln(stderr, "aicontrol-sample: --max-connections, --max-unauthenticated, --auth-deadline and --write-timeout must be positive")
		return 2
	}
	srv, err := bridge.Listen(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "aicontrol-sample:", err)
		return 2
	}
	for _, w := range cfg.Warnings() {
		fmt.Fprintln(stderr, "aicontrol-sample: warning:", w)
	}
	g := &game{srv: srv, agent: Agent{}}
	if err := g.publish(); err != nil {
		fmt.Fprintln(stderr, "aicontrol-sample:", err)
		srv.Close()
		return 1
	}
	addr := srv.Addr().(*net.TCPAddr)
	ready, _ := json.Marshal(struct {
		Ready bool   `json:"ready"`
		Host  string `json:"host"`
		Port  int    `json:"port"`
	}{true, addr.IP.String(), addr.Port})
	fmt.Fprintln(stdout, string(ready))

	ticker := time.NewTicker(*tick)
	defer ticker.Stop()
	for {
		select {
		case <-stop:
			failed, err := srv.Close()
			if len(failed) > 0 {
				fmt.Fprintf(stderr, "aicontrol-sample: %d unfinished command(s) completed with success=false\n", len(failed))
			}
			if err != nil {
				fmt.Fprintln(stderr, "aicontrol-sample:", err)
			}
			return 0
		case <-srv.Wake():
		case <-ticker.C:
		}
		if *stall {
			continue
		}
		// The safe point of the loop: game state is only touched here.
		for _, cmd := range srv.Drain(0) {
			g.execute(cmd)
		}
		g.finishWaits(time.Now())
	}
}

type game struct {
	srv   *bridge.Server
	agent Agent
	waits []wait // resting commands, completed by finishWaits
}

// wait is a wait command the agent is resting for.
type wait struct {
	seq    int64
	millis int64
	until  time.Time
}

func (g *game) publish() error {
	available := actions
	if len(g.waits) > 0 {
		available = restActions
	}
	_, err := g.srv.PublishObservation(observation{
		SchemaVersion:    schemaVersion,
		Ready:            true,
		Agent:            g.agent,
		AvailableActions: available,
	})
	return err
}

// finishWaits completes the waits that are due; when the agent stops
// resting, move is offered again.
func (g *game) finishWaits(now time.Time) {
	if len(g.waits) == 0 {
		return
	}
	left := g.waits[:0]
	for _, w := range g.waits {
		if now.Before(w.until) {
			left = append(left, w)
			continue
		}
		if _, err := g.srv.Complete(w.seq, true, fmt.Sprintf("waited %d ms", w.millis), nil); err != nil {
			fmt.Fprintln(os.Stderr, "aicontrol-sample: complete:", err)
		}
	}
	g.waits = left
	if len(left) == 0 {
		if err := g.publish(); err != nil {
			fmt.Fprintln(os.Stderr, "aicontrol-sample:", err)
		}
	}
}

// execute runs one command as an ordinary player action would run, and
// completes it: every accepted command gets exactly one completion.
func (g *game) execute(cmd bridge.Command) {
	p := cmd.Params
	success, message := true, ""
	switch p.Type {
	case "echo":
		message = "echo"
		if p.StringArg != nil {
			message = *p.StringArg
		}
	case "move":
		if len(g.waits) > 0 {
			success, message = false, "the agent is resting"
			break
		}
		if p.X == nil || p.Y == nil {
			success, message = false, "move needs x and y"
			break
		}
		g.agent = Agent{X: *p.X, Y: *p.Y}
		message = "moved"
		if err := g.publish(); err != nil {
			success, message = false, "observation not published"
		}
	case "fail":
		// A refusal by the game reaches the caller as a failed completion.
		success, message = false, "refused by the game"
	case "wait":
		if p.IntArg == nil || *p.IntArg < 1 || *p.IntArg > maxWaitMillis {
			success, message = false, fmt.Sprintf("wait needs intArg from 1 to %d milliseconds", maxWaitMillis)
			break
		}
		g.waits = append(g.waits, wait{seq: cmd.Seq, millis: *p.IntArg, until: time.Now().Add(time.Duration(*p.IntArg) * time.Millisecond)})
		if len(g.waits) == 1 {
			if err := g.publish(); err != nil {
				fmt.Fprintln(os.Stderr, "aicontrol-sample:", err)
			}
		}
		return // completed by finishWaits
	default:
		success, message = false, "unknown action type"
	}
	if _, err := g.srv.Complete(cmd.Seq, success, message, nil); err != nil {
		fmt.Fprintln(os.Stderr, "aicontrol-sample: complete:", err)
	}
}
