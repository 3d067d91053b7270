package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/contractkit/contractkit/agui"
	"github.com/contractkit/contractkit/agui/livecheck"
	contract "github.com/contractkit/contractkit/generated/agui"
)

// agui tap: a reverse proxy between a frontend and its agent that checks
// every run's event stream as it passes and saves it as a record.

const tapUsage = `agui tap passes a frontend's runs to an agent and checks each as it passes.

Usage:
  agui tap --upstream URL [--listen 127.0.0.1:PORT] [--dir FOLDER]
           [--profile ag-ui-1.1] [--allow-remote]

Point the frontend at the address agui tap listens on instead of the agent.
Every request and every answer passes through unchanged, byte for byte; an
answer that is an event stream (text/event-stream) is also checked as it
arrives, saved as a record in FOLDER (default agui-runs), and its verdict
printed when the stream ends. To see its full report, check the record
under the profile it was checked under:
  agui check --profile ag-ui-1.1 agui-runs/RECORD.ndjson
(agui check reads a file under the stand profile unless told otherwise).

Options:
  --upstream URL   the agent's URL
  --listen ADDR    where to listen (default 127.0.0.1:4748); a loopback
                   address unless --allow-remote
  --dir FOLDER     where the records go (default agui-runs)
  --profile NAME   ag-ui-1.1 (the stand profile checks local records only)
  --allow-remote   listen on an address other machines can reach
`

// tapCommand runs the tap until ctx ends (nil: until the process is
// interrupted). ready, when not nil, is told the address it listens on.
func tapCommand(args []string, stdout, stderr io.Writer, ctx context.Context, ready func(addr string)) int {
	fs := flag.NewFlagSet("agui tap", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	listen := fs.String("listen", "127.0.0.1:4748", "")
	upstream := fs.String("upstream", "", "")
	dir := fs.String("dir", "agui-runs", "")
	profile := fs.String("profile", contract.ProfileAgUI11, "")
	allowRemote := fs.Bool("allow-remote", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, tapUsage)
			return exitAccepted
		}
		fmt.Fprintf(stderr, "agui tap: %v; run agui tap --help\n", err)
		return exitUnusable
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "agui tap: "+format+"\n", a...)
		return exitUnusable
	}
	up, err := url.Parse(*upstream)
	switch {
	case fs.NArg() > 0:
		return fail("unexpected argument %q; run agui tap --help", fs.Arg(0))
	case *upstream == "":
		return fail("--upstream URL is required: the agent's URL")
	case err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "":
		return fail("--upstream %q is not an http or https URL", *upstream)
	case *profile == contract.ProfileStand:
		return fail("%s", standNoNetwork)
	}
	if _, err := agui.LookupProfile(*profile); err != nil {
		return fail("%v", err)
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return fail("--listen %q: %v", *listen, err)
	}
	if ip := net.ParseIP(host); !*allowRemote && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fail("--listen %s is not a loopback address: the tap hands an agent's answers to whoever connects, so it listens on this machine only unless --allow-remote is given", *listen)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return fail("--dir: %v", err)
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return fail("%v", err)
	}
	if ctx == nil {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	t := &tap{up: up, dir: *dir, profile: *profile, out: &lockedWriter{w: stdout}, errw: &lockedWriter{w: stderr}}
	srv := &http.Server{Handler: t.proxy(), ErrorLog: log.New(t.errw, "agui tap: ", 0), ReadHeaderTimeout: time.Minute}
	fmt.Fprintf(t.out, "agui tap: listening on http://%s, passing runs on to %s; records go to %s\n", l.Addr(), up.Redacted(), *dir)
	if ready != nil {
		ready(l.Addr().String())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
		return exitAccepted
	case err := <-done:
		return fail("%v", err)
	}
}

// tap is the proxy's state.
type tap struct {
	up        *url.URL
	dir       string
	profile   string
	served    atomic.Int64 // event streams seen so far, for the runs' names
	out, errw io.Writer
}

func (t *tap) proxy() http.Handler {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	// The answer passes on as the agent sent it: nothing asks for or
	// undoes a compression the frontend did not ask for.
	transport.DisableCompression = true
	proxy := &httputil.ReverseProxy{
		Rewrite:        t.rewrite,
		Transport:      transport,
		FlushInterval:  -1, // every piece of a stream goes on at once
		ModifyResponse: t.watch,
		// A stream cut by the agent is reported with the run's verdict;
		// the proxy's own line about it would only say it twice.
		ErrorLog: log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			fmt.Fprintf(t.errw, "agui tap: %s %s: the agent could not be reached: %v\n", r.Method, r.URL.Path, err)
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Before an HTTP/1 server sends an answer's headers it reads what
		// is left of the request's body (up to 256 KiB) to throw it away,
		// and then closes the body; here the answer starts when the
		// agent's headers arrive. The agent may answer before the body
		// has passed on, or before the transport has read its end, and
		// the request to the agent then breaks, and with it the stream.
		// A proxy passes both directions at once.
		if err := http.NewResponseController(w).EnableFullDuplex(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			fmt.Fprintf(t.errw, "agui tap: %s %s: %v\n", r.Method, r.URL.Path, err)
		}
		proxy.ServeHTTP(w, r)
	})
}

// rewrite sends a request to the agent: the frontend's path below the
// agent's (the agent's own for the root), escaped as the frontend sent it
// (a %2F stays one, not a slash), its query added to the agent's. A user
// and password in the agent's URL are sent as check --url sends them:
// as Basic authorization, unless the frontend sends its own.
func (t *tap) rewrite(pr *httputil.ProxyRequest) {
	out := pr.Out.URL
	out.Scheme, out.Host = t.up.Scheme, t.up.Host
	if p := pr.In.URL.Path; p == "" || p == "/" {
		out.Path, out.RawPath = t.up.Path, t.up.RawPath
	} else {
		out.Path = strings.TrimSuffix(t.up.Path, "/") + p
		out.RawPath = strings.TrimSuffix(t.up.EscapedPath(), "/") + pr.In.URL.EscapedPath()
	}
	if u := t.up.User; u != nil && pr.Out.Header.Get("Authorization") == "" {
		password, _ := u.Password()
		pr.Out.SetBasicAuth(u.Username(), password)
	}
	switch {
	case t.up.RawQuery == "":
	case out.RawQuery == "":
		out.RawQuery = t.up.RawQuery
	default:
		out.RawQuery = t.up.RawQuery + "&" + out.RawQuery
	}
	pr.Out.Host = ""
}

// watch checks an answer that is an event stream as it passes.
func (t *tap) watch(resp *http.Response) error {
	req := resp.Request
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode < 200 || resp.StatusCode > 299 || media != mediaSSE {
		fmt.Fprintf(t.errw, "agui tap: %s %s: %s %s, not an event stream: passed on unchecked\n", req.Method, req.URL.Path, resp.Status, media)
		return nil
	}
	n := t.served.Add(1)
	name := fmt.Sprintf("run %d", n)
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && enc != "identity" {
		fmt.Fprintf(t.errw, "agui tap: %s: passed on unchecked: the stream is compressed (Content-Encoding: %s)\n", name, enc)
		return nil
	}
	file := filepath.Join(t.dir, fmt.Sprintf("run-%s-%03d.ndjson", time.Now().UTC().Format("20060102-150405"), n))
	rec, err := createRecord(file)
	if err != nil {
		fmt.Fprintf(t.errw, "agui tap: %s: passed on unchecked: %v\n", name, err)
		return nil
	}
	body := &tapBody{ReadCloser: resp.Body, t: t, name: name, file: file, rec: rec, front: req.Context()}
	report := func(f agui.Finding) {
		if !body.quiet {
			fmt.Fprintf(t.out, "agui tap: %s: %s\n", name, f)
		}
	}
	run, err := livecheck.New(agui.Options{Profile: t.profile, Source: file}, rec.event, report)
	if err != nil {
		rec.discard()
		return err
	}
	run.Parts = &recordParts{rec: rec}
	fmt.Fprintf(t.out, "agui tap: %s: %s %s\n", name, req.Method, req.URL.Path)
	body.run = run
	resp.Body = body
	return nil
}

// tapBody passes an event stream on and checks it on the way.
type tapBody struct {
	io.ReadCloser
	t          *tap
	name, file string
	run        *livecheck.Run
	rec        *recordFile
	broken     error // why checking stopped before the end, if it did
	once       sync.Once
	// front is the frontend's request's context: done once the frontend
	// has gone.
	front context.Context
	// quiet stops the findings of the stream's end being reported when
	// the frontend cut it: they would blame the agent for its cut.
	quiet bool
}

// How a stream passing the tap ended.
const (
	streamEnded  = iota // the agent ended it
	agentCut            // the agent's side broke
	frontendLeft        // the frontend closed it
)

func (b *tapBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && b.broken == nil {
		if _, werr := b.run.Write(p[:n]); werr != nil {
			b.broken = werr
		}
	}
	switch {
	case err == io.EOF:
		b.finish(streamEnded, nil)
	case err != nil && b.front.Err() != nil:
		// The frontend's going cancels the request to the agent.
		b.finish(frontendLeft, nil)
	case err != nil:
		b.finish(agentCut, err)
	}
	return n, err
}

func (b *tapBody) Close() error {
	b.finish(frontendLeft, nil)
	return b.ReadCloser.Close()
}

// finish prints the run's verdict once: how says how the stream ended,
// err why the agent's side broke.
func (b *tapBody) finish(how int, cutErr error) {
	b.once.Do(func() {
		if b.broken != nil {
			b.rec.discard()
			fmt.Fprintf(b.t.out, "agui tap: %s: not checked to its end: %v\n", b.name, b.broken)
			return
		}
		// Findings before the end were the events' own; when the frontend
		// cut the stream, those of the end are the cut's.
		stopped, events := b.run.Stream.Stopped(), b.run.Stream.Events()
		b.quiet = how == frontendLeft && !stopped
		res, err := b.run.End()
		if err != nil {
			b.rec.discard()
			switch how {
			case frontendLeft:
				fmt.Fprintf(b.t.out, "agui tap: %s: not judged: the frontend closed the stream before its first event\n", b.name)
			case agentCut:
				fmt.Fprintf(b.t.out, "agui tap: %s: the agent's stream broke before its first event: %v\n", b.name, cutErr)
			default:
				fmt.Fprintf(b.t.out, "agui tap: %s: the event stream held no event\n", b.name)
			}
			return
		}
		if err := b.rec.commit(); err != nil {
			fmt.Fprintf(b.t.out, "agui tap: %s: %v\n", b.name, err)
		}
		verdict := "ACCEPTED"
		if !res.Accepted {
			verdict = "REJECTED"
		}
		if b.quiet && !res.Accepted {
			fmt.Fprintf(b.t.out, "agui tap: %s: not judged: the frontend closed the stream after %d events, before the agent ended it, and nothing in them breaks a rule; the record of what arrived, a cut run, is %s\n", b.name, events, b.file)
			return
		}
		line := fmt.Sprintf("agui tap: %s: %s, %d events, %d warnings; record %s", b.name, verdict, res.Events, len(res.Warnings), b.file)
		switch how {
		case frontendLeft:
			line += " (the frontend closed the stream before the agent ended it)"
		case agentCut:
			line += fmt.Sprintf(" (the agent's stream broke: %v)", cutErr)
		}
		fmt.Fprintln(b.t.out, line)
	})
}

// lockedWriter serialises the lines of concurrent runs.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
