// Command aicontrol-mcp is an MCP server that turns a game's AiControl
// listener into typed tools. It reads the game project's actions file,
// connects to the listener, checks that the game's observation is written
// in the schemaVersion the file declares, and then publishes one tool per
// action the game offers right now, an observe tool and an endpoint
// resource. Each tool call is one act and its command_completed event.
//
// Usage:
//
//	aicontrol-mcp --actions FILE [--host 127.0.0.1] [--port 43011] [--token-env AICONTROL_TOKEN]
//	              [--lang en|ru] [--http 127.0.0.1:PORT] [--call-timeout 30s] [--refresh 250ms]
//	aicontrol-mcp --version
//
// MCP runs over stdin and stdout, as MCP clients start local servers;
// with --http it runs as streamable HTTP on a loopback address instead,
// and prints {"ready":true,"url":...} on stdout once it listens. The log
// goes to stderr. The token is read only from the environment variable
// that --token-env names and appears in no message, result or log.
//
// Exit codes: 0 when the client disconnects or on SIGINT/SIGTERM; 1 when
// the listener cannot be reached or its observation does not match the
// actions file; 2 for invalid flags.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/cmd/aicontrol-mcp/internal/actions"
	"github.com/contractkit/contractkit/cmd/aicontrol-mcp/internal/adapter"
	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/buildinfo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], &mcp.StdioTransport{}, os.Stdout, os.Stderr, os.Getenv))
}

// options are the parsed flags.
type options struct {
	cfg      adapter.Config
	actions  string
	httpAddr string
	version  bool
}

func parse(args []string, stderr io.Writer, getenv func(string) string) (*options, error) {
	o := &options{}
	fl := flag.NewFlagSet("aicontrol-mcp", flag.ContinueOnError)
	fl.SetOutput(stderr)
	c := &o.cfg
	fl.StringVar(&o.actions, "actions", "", "the game project's actions file (required)")
	fl.StringVar(&c.Client.Host, "host", aicontrol.DefaultHost, "listener host (loopback unless --allow-remote)")
	fl.IntVar(&c.Client.Port, "port", aicontrol.DefaultPort, "listener port")
	fl.StringVar(&c.TokenEnv, "token-env", "AICONTROL_TOKEN", "environment variable holding the listener's token (unset or empty: no auth)")
	fl.BoolVar(&c.Client.AllowRemote, "allow-remote", false, "permit a non-loopback listener; token and payloads travel in plain text")
	fl.DurationVar(&c.Client.Timeout, "timeout", bridge.DefaultCallTimeout, "timeout of each request to the listener")
	fl.DurationVar(&c.CallTimeout, "call-timeout", adapter.DefaultCallTimeout, "how long a tool call waits for its command's completion")
	fl.DurationVar(&c.Refresh, "refresh", adapter.DefaultRefresh, "how often to check whether the observation (and availableActions) changed")
	fl.IntVar(&c.MaxInFlight, "max-in-flight", adapter.DefaultMaxInFlight, "commands whose completion may be awaited at once")
	fl.StringVar(&c.Lang, "lang", "en", "language of tool descriptions: en or ru")
	fl.StringVar(&c.ProjectRevision, "project-revision", "", "project revision for the endpoint resource (default: the actions file's)")
	fl.StringVar(&o.httpAddr, "http", "", "serve streamable HTTP on this loopback host:port instead of stdio")
	fl.BoolVar(&o.version, "version", false, "print the version of this build and exit")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: aicontrol-mcp --actions FILE [flags]")
		fmt.Fprintln(stderr, "An MCP server over stdio (or --http) whose tools are a game's AiControl actions.")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return nil, err
	}
	if fl.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fl.Arg(0))
	}
	if o.version {
		return o, nil
	}
	if o.actions == "" {
		return nil, errors.New("--actions is required: the game project's actions file")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"--timeout", c.Client.Timeout}, {"--call-timeout", c.CallTimeout}, {"--refresh", c.Refresh}} {
		if d.v <= 0 {
			return nil, fmt.Errorf("%s must be positive, got %s", d.name, d.v)
		}
	}
	if c.MaxInFlight <= 0 {
		return nil, fmt.Errorf("--max-in-flight must be positive, got %d", c.MaxInFlight)
	}
	if c.TokenEnv == "" {
		return nil, errors.New("--token-env must name an environment variable")
	}
	if c.Lang != "en" && c.Lang != "ru" {
		return nil, fmt.Errorf("--lang %q: want en or ru", c.Lang)
	}
	if o.httpAddr != "" {
		if err := checkHTTPAddr(o.httpAddr); err != nil {
			return nil, err
		}
	}
	if _, _, err := bridge.CheckClientConfig(c.Client); err != nil {
		return nil, err
	}
	c.Client.Token = getenv(c.TokenEnv)
	return o, nil
}

// checkHTTPAddr allows loopback only: the MCP endpoint drives a game and
// has no authentication of its own.
func checkHTTPAddr(addr string) error {
	host, _, err := bridge.SplitAddr(addr)
	if err != nil {
		return fmt.Errorf("--http: %v", err)
	}
	if !bridge.IsLoopback(host) {
		return fmt.Errorf("--http %q: only a loopback address is allowed (127.0.0.1, ::1 or localhost)", addr)
	}
	return nil
}

func run(ctx context.Context, args []string, stdio mcp.Transport, stdout, stderr io.Writer, getenv func(string) string) int {
	o, err := parse(args, stderr, getenv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "aicontrol-mcp:", err)
		return 2
	}
	if o.version {
		fmt.Fprintln(stdout, buildinfo.Line("aicontrol-mcp"))
		return 0
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cat, err := actions.Load(o.actions)
	if err != nil {
		fmt.Fprintln(stderr, "aicontrol-mcp:", err)
		return 1
	}
	o.cfg.Actions = cat
	o.cfg.Logger = log
	if o.cfg.Client.AllowRemote {
		log.Warn("--allow-remote: the token and every payload cross the network unencrypted")
	}
	a, err := adapter.New(ctx, o.cfg)
	if err != nil {
		fmt.Fprintln(stderr, "aicontrol-mcp:", err)
		return 1
	}
	defer a.Close()
	if o.httpAddr != "" {
		err = serveHTTP(ctx, a.Server(), o.httpAddr, stdout, log)
	} else {
		err = a.Server().Run(ctx, stdio)
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "aicontrol-mcp:", err)
		return 1
	}
	return 0
}

// listen binds the HTTP endpoint; tests replace it to play a resolver
// that maps names off the machine.
var listen = net.Listen

// serveHTTP serves streamable HTTP until ctx ends. localhost is bound as
// the loopback literal, never resolved, and the bound address must be
// loopback before anything is served. Requests whose Host is not local
// are refused (the SDK's DNS-rebinding check), and so are cross-origin
// requests from browsers (http.CrossOriginProtection: a page on another
// origin must not drive the game through the user's browser).
func serveHTTP(ctx context.Context, srv *mcp.Server, addr string, stdout io.Writer, log *slog.Logger) error {
	host, port, err := bridge.SplitAddr(addr)
	if err != nil {
		return fmt.Errorf("--http: %v", err)
	}
	ln, err := listen("tcp", net.JoinHostPort(bridge.LiteralHost(host), strconv.Itoa(port)))
	if err != nil {
		return err
	}
	if err := bridge.CheckLoopbackAddr(ln.Addr()); err != nil {
		ln.Close()
		return fmt.Errorf("--http %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	// Cross-origin protection wraps the SDK's handler (its option for it is
	// deprecated); its refusal is the same 403.
	mux.Handle("/mcp", http.NewCrossOriginProtection().Handler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Logger: log,
	})))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	url := "http://" + ln.Addr().String() + "/mcp"
	ready, _ := json.Marshal(struct {
		Ready bool   `json:"ready"`
		URL   string `json:"url"`
	}{true, url})
	fmt.Fprintln(stdout, string(ready))
	log.Info("serving streamable HTTP", "url", url)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return hs.Shutdown(sctx)
	}
}
