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
	"github.com/contractkit/contractkit/internal/loopback"
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

Records are named run-<UTC date and time>-<run number>.ndjson; a record
never replaces a file: should its name be taken (another tap in the same
folder, a tap started again within the second), it gets the next free one
(…-001-2.ndjson) and its verdict line says which. A folder the records
cannot be written in, or reached through a symbolic link that is neither
root's nor this user's or that others may replace (its folder writable by
them, not sticky as /tmp is), is refused at the start; should a record
still fail (the folder removed, a full disk), its run is checked all the
same and a line says the record could not be kept.

Ctrl-C or SIGTERM stops the tap: it takes no new run and gives the runs
in flight, the requests the agent has not answered yet and the answers
still passing on unchecked (not event streams, compressed, or headers
without a body, as HEAD gets), 5 seconds to end, each run judged and
saved as any run; one line says how many of each. A run still going
then, or at a second Ctrl-C or SIGTERM, is cut (the frontend's stream
ends there), its record keeps what passed, and it is not judged, as when
the frontend closes it (after a finding it is REJECTED, marked as cut).
The tap then exits 0, since stopping is how a tap ends; the verdicts are
in its lines, never in its exit status, which is 2 only when it cannot
start.

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
	host, port, err := net.SplitHostPort(*listen)
	if err != nil {
		return fail("--listen %q: %v", *listen, err)
	}
	if !*allowRemote && !loopback.Host(host) {
		return fail("--listen %s is not a loopback address: the tap hands an agent's answers to whoever connects, so it listens on this machine only unless --allow-remote is given", *listen)
	}
	// No untrusted link on the way to the folder, before it is made
	// (MkdirAll would follow one) and after.
	if _, err := folderOnTheWay(*dir); err != nil {
		return fail("--dir %v", err)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return fail("--dir: %v", err)
	}
	if _, err := folderOnTheWay(*dir); err != nil {
		return fail("--dir %v", err)
	}
	if err := checkFolder(*dir); err != nil {
		return fail("--dir %s: the records could not be kept: %v", *dir, err)
	}
	// localhost is bound as its literal: a resolver could map the name to
	// any address, even to every interface.
	l, err := tapListen("tcp", net.JoinHostPort(loopback.Literal(host), port))
	if err != nil {
		return fail("%v", err)
	}
	// again tells of a signal after the first: the runs still in flight
	// are cut at once (nil, in process: never).
	var again <-chan os.Signal
	if ctx == nil {
		c, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		var stop func()
		again, stop = cancelOnSignals(cancel)
		defer stop()
		ctx = c
	}
	t := &tap{up: up, dir: *dir, profile: *profile, out: &lockedWriter{w: stdout}, errw: &lockedWriter{w: stderr}}
	// Every request's context comes from runs: stopping the tap cancels
	// it, which cuts the runs in flight.
	runs, cutRuns := context.WithCancelCause(context.Background())
	defer cutRuns(nil)
	srv := &http.Server{Handler: t.counted(t.proxy()), ErrorLog: log.New(t.errw, "agui tap: ", 0), ReadHeaderTimeout: time.Minute,
		BaseContext: func(net.Listener) context.Context { return runs }}
	fmt.Fprintf(t.out, "agui tap: listening on http://%s, passing runs on to %s; records go to %s\n", l.Addr(), up.Redacted(), *dir)
	if ready != nil {
		ready(l.Addr().String())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	select {
	case <-ctx.Done():
		// Stopping is how a tap ends: no new run is taken, the runs in
		// flight are given stopGrace to end by themselves (each judged
		// and saved as any run), then those left are cut, each saved and
		// its verdict printed as cut; a second signal cuts them at once.
		// The tap exits 0 (its verdicts are in its lines, never in its
		// exit status).
		why := "the tap was stopped"
		if i := interrupted(ctx); i != nil {
			why += " by " + i.name()
		}
		waiting, stopWaiting := context.WithCancel(context.Background())
		defer stopWaiting()
		shut := make(chan struct{})
		go func() {
			if srv.Shutdown(waiting) != nil {
				srv.Close()
			}
			close(shut)
		}()
		if what, n := waitedFor(t.waits.now()); n > 0 {
			them := "them"
			if n == 1 {
				them = "it"
			}
			fmt.Fprintf(t.out, "agui tap: %s: waiting up to %s for %s to end; stop the tap again to cut %s now\n", why, stopGrace, what, them)
		}
		grace := time.NewTimer(stopGrace)
		defer grace.Stop()
		select {
		case <-shut:
		case <-grace.C:
		case <-again:
		}
		t.stopped.Store(&why)
		cutRuns(errors.New(why))
		// The runs cut end at once; the frontends' connections are
		// waited for a little, then closed.
		select {
		case <-shut:
		case <-time.After(5 * time.Second):
		case <-again:
		}
		stopWaiting()
		<-shut
		// The verdicts of the runs cut are printed before the tap's last
		// line (a stream that will not end is not waited for long).
		select {
		case <-t.waits.noRuns():
		case <-time.After(5 * time.Second):
		}
		fmt.Fprintf(t.out, "agui tap: %s\n", why)
		return exitAccepted
	case err := <-done:
		return fail("%v", err)
	}
}

// waitedFor names what a stopped tap waits for: runs in flight, requests
// the agent has not answered yet (each may be a run), and answers passing
// on unchecked, and how many in all.
func waitedFor(n pending) (string, int) {
	var parts []string
	for _, c := range []struct {
		n         int
		one, many string
	}{
		{n.runs, "the run in flight", "the %d runs in flight"},
		{n.asking, "the request the agent has not answered yet", "the %d requests the agent has not answered yet"},
		{n.passing, "the answer passing on unchecked", "the %d answers passing on unchecked"},
	} {
		switch {
		case c.n == 1:
			parts = append(parts, c.one)
		case c.n > 1:
			parts = append(parts, fmt.Sprintf(c.many, c.n))
		}
	}
	switch len(parts) {
	case 0, 1, 2:
		return strings.Join(parts, " and "), n.runs + n.asking + n.passing
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1], n.runs + n.asking + n.passing
}

// stopGrace is how long a stopped tap waits for the runs in flight to end
// by themselves before it cuts them (a test shortens it).
var stopGrace = 5 * time.Second

// tapListen opens the tap's listener (a test sees the address bound).
var tapListen = net.Listen

// cancelOnSignals cancels with an *interruption when the process gets
// SIGINT or SIGTERM, and sends every later one on again, until stop is
// called: a second signal is the tap's to answer (it cuts its runs at
// once and saves their records), not one that ends the process on the
// spot and leaves temporary records behind.
func cancelOnSignals(cancel context.CancelCauseFunc) (again <-chan os.Signal, stop func()) {
	ch := make(chan os.Signal, 1)
	later := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		first := true
		for {
			select {
			case s := <-ch:
				if first {
					cancel(&interruption{s})
					first = false
					continue
				}
				select {
				case later <- s:
				default:
				}
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return later, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
		})
	}
}

// tap is the proxy's state.
type tap struct {
	up        *url.URL
	dir       string
	profile   string
	served    atomic.Int64 // event streams seen so far, for the runs' names
	out, errw io.Writer
	// stopped says why the tap stopped, once it did: the runs it cut
	// say it.
	stopped atomic.Pointer[string]
	// waits counts what a stop waits for: requests the agent has not
	// answered yet, runs whose verdict is not printed yet, answers
	// passing on unchecked.
	waits waits
}

// answeredKey keys, in a request's context, the func that says what the
// agent's answer is (counted).
type answeredKey struct{}

// counted counts each request as asking from its arrival until the
// agent's answer comes (watch says then what the answer is: a run, one
// passing on unchecked) or the request ends without one.
func (t *tap) counted(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var once sync.Once
		answered := func(is *int) { once.Do(func() { t.waits.answered(is) }) }
		t.waits.ask()
		defer answered(nil)
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), answeredKey{}, answered)))
	})
}

// answered says the agent's answer to req came and what it is: the count
// it goes on in (t.waits.runs or t.waits.passing), or none.
func answered(req *http.Request, is *int) {
	if f, ok := req.Context().Value(answeredKey{}).(func(*int)); ok {
		f(is)
	}
}

// pending is what a stopped tap waits for, counted at one moment.
type pending struct{ asking, runs, passing int }

// waits counts what a stopped tap waits for: requests the agent has not
// answered yet, runs whose verdict is not printed yet, and answers passed
// on unchecked (not event streams, or compressed) still passing on. One lock keeps the counts, so
// that a request whose answer came moves from one count to the next at
// once, never counted twice or not at all. Unlike a WaitGroup's, a count
// may rise while someone waits for the runs to end (a run that starts as
// the tap stops).
type waits struct {
	mu sync.Mutex
	pending
	noRun []chan struct{} // closed when runs falls to zero
}

// ask counts a request that came.
func (w *waits) ask() {
	w.mu.Lock()
	w.asking++
	w.mu.Unlock()
}

// answered moves a request from asking to is (&w.runs or &w.passing), or
// to no count when is is nil.
func (w *waits) answered(is *int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.asking--
	if is != nil {
		*is++
	}
}

// ended takes an answer out of the count is (&w.runs or &w.passing): a
// run's verdict is printed, an answer passed on.
func (w *waits) ended(is *int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if *is--; is == &w.runs && w.runs == 0 {
		for _, ch := range w.noRun {
			close(ch)
		}
		w.noRun = nil
	}
}

// now is what is counted now.
func (w *waits) now() pending {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pending
}

// noRuns is closed once no run is in flight.
func (w *waits) noRuns() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := make(chan struct{})
	if w.runs == 0 {
		close(ch)
	} else {
		w.noRun = append(w.noRun, ch)
	}
	return ch
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
			problem := fmt.Sprintf("the agent could not be reached: %v", err)
			if why := t.stopped.Load(); why != nil {
				problem = "cut before the agent answered: " + *why
			}
			fmt.Fprintf(t.errw, "agui tap: %s %s: %s\n", r.Method, sentPath(r.URL), problem)
			// The frontend is told too, in the answer's body.
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "agui tap: %s\n", problem)
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
		// In full duplex the server does not read the request's body to
		// its end before the answer; should nobody else have (the agent
		// could not be reached), the server would close it after the
		// handler, and the end of the body found then starts a read of
		// the connection beside the one that waits for the next request:
		// a panic (golang/go#68560). Closed here, in the handler, that
		// read is stopped before the next request is read. Not so a body
		// the frontend sends only once told to continue: closing it would
		// wait for it before the answer went out, and the server does not
		// keep such a connection anyway.
		if !strings.Contains(strings.ToLower(r.Header.Get("Expect")), "100-continue") {
			defer r.Body.Close()
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

// sentPath is the path a request to the agent is sent with: an agent's URL
// with no path is asked at "/", as the request line says.
func sentPath(u *url.URL) string {
	if u.Path == "" {
		return "/"
	}
	return u.Path
}

// watch checks an answer that is an event stream as it passes.
func (t *tap) watch(resp *http.Response) error {
	req := resp.Request
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode < 200 || resp.StatusCode > 299 || media != mediaSSE {
		fmt.Fprintf(t.errw, "agui tap: %s %s: %s %s, not an event stream: passed on unchecked\n", req.Method, sentPath(req.URL), resp.Status, media)
		t.passUnchecked(resp)
		return nil
	}
	if req.Method == http.MethodHead || resp.StatusCode == http.StatusNoContent {
		// Headers alone: an answer with no body is no run to judge.
		fmt.Fprintf(t.errw, "agui tap: %s %s: %s, an event stream's headers without a body: passed on unchecked\n", req.Method, sentPath(req.URL), resp.Status)
		t.passUnchecked(resp)
		return nil
	}
	n := t.served.Add(1)
	name := fmt.Sprintf("run %d", n)
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && enc != "identity" {
		fmt.Fprintf(t.errw, "agui tap: %s: passed on unchecked: the stream is compressed (Content-Encoding: %s)\n", name, enc)
		t.passUnchecked(resp)
		return nil
	}
	file := filepath.Join(t.dir, fmt.Sprintf("run-%s-%03d.ndjson", time.Now().UTC().Format("20060102-150405"), n))
	// A run whose record cannot be written is checked all the same.
	lost := func(err error) { fmt.Fprintf(t.out, "agui tap: %s: the record could not be kept: %v\n", name, err) }
	var save func([]byte) error
	rec, recErr := createRunRecord(file)
	if recErr == nil {
		rec.onLost, save = lost, rec.save
	}
	body := &tapBody{ReadCloser: resp.Body, t: t, name: name, front: req.Context()}
	report := func(f agui.Finding) {
		if !body.quiet {
			fmt.Fprintf(t.out, "agui tap: %s: %s\n", name, f)
		}
	}
	run, err := livecheck.New(agui.Options{Profile: t.profile, Source: file}, save, report)
	if err != nil {
		if rec != nil {
			rec.discard()
		}
		return err // counted moves the request out of asking
	}
	if recErr == nil {
		run.Parts = &recordParts{rec: rec}
		body.rec = rec
	}
	answered(req, &t.waits.runs)
	fmt.Fprintf(t.out, "agui tap: %s: %s %s\n", name, req.Method, sentPath(req.URL))
	if recErr != nil {
		lost(recErr)
	}
	body.run = run
	resp.Body = body
	return nil
}

// passUnchecked counts resp, an answer passed on unchecked, as passing
// until the proxy has passed its body on and closed it: a stop waits for
// it, and says so.
func (t *tap) passUnchecked(resp *http.Response) {
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// The proxy writes to an upgraded connection's body: it must
		// stay what the transport made it. The server's stop does not
		// wait for such a connection either.
		answered(resp.Request, nil)
		return
	}
	answered(resp.Request, &t.waits.passing)
	resp.Body = &passingBody{ReadCloser: resp.Body, ended: func() { t.waits.ended(&t.waits.passing) }}
}

// passingBody is the body of an answer passed on unchecked; ended is
// called once, when it is closed.
type passingBody struct {
	io.ReadCloser
	once  sync.Once
	ended func()
}

func (b *passingBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.ended)
	return err
}

// tapBody passes an event stream on and checks it on the way.
type tapBody struct {
	io.ReadCloser
	t      *tap
	name   string
	run    *livecheck.Run
	rec    *recordFile
	broken error // why checking stopped before the end, if it did
	once   sync.Once
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
		defer b.t.waits.ended(&b.t.waits.runs)
		// A stream the tap's own stop cut is no more the agent's doing
		// than one the frontend closed.
		tapStop := ""
		if why := b.t.stopped.Load(); why != nil && how != streamEnded {
			tapStop = *why
		}
		if b.broken != nil {
			b.discard()
			fmt.Fprintf(b.t.out, "agui tap: %s: not checked to its end: %v\n", b.name, b.broken)
			return
		}
		// Findings before the end were the events' own; when the frontend
		// or the tap's stop cut the stream, those of the end are the cut's.
		stopped, events := b.run.Stream.Stopped(), b.run.Stream.Events()
		b.quiet = (how == frontendLeft || tapStop != "") && !stopped
		res, err := b.run.End()
		if err != nil {
			b.discard()
			switch {
			case !errors.As(err, new(*agui.InputError)):
				fmt.Fprintf(b.t.out, "agui tap: %s: not judged: %v\n", b.name, err)
			case tapStop != "":
				fmt.Fprintf(b.t.out, "agui tap: %s: not judged: %s before the stream's first event\n", b.name, tapStop)
			case how == frontendLeft:
				fmt.Fprintf(b.t.out, "agui tap: %s: not judged: the frontend closed the stream before its first event\n", b.name)
			case how == agentCut:
				fmt.Fprintf(b.t.out, "agui tap: %s: the agent's stream broke before its first event: %v\n", b.name, cutErr)
			default:
				fmt.Fprintf(b.t.out, "agui tap: %s: the event stream held no event\n", b.name)
			}
			return
		}
		if b.run.SawCR() {
			fmt.Fprintf(b.t.out, "agui tap: %s: %s\n", b.name, crNote)
		}
		saved := "" // the record's name, once it is kept
		if b.rec != nil {
			if name, err := b.rec.commit(); err == nil {
				saved = name
				if note := b.rec.leftNote(name); note != "" {
					fmt.Fprintf(b.t.out, "agui tap: %s: %s\n", b.name, note)
				}
			} else if b.rec.lost == nil {
				fmt.Fprintf(b.t.out, "agui tap: %s: the record could not be kept: %v\n", b.name, err)
			}
		}
		if b.quiet && !res.Accepted {
			by := "the frontend closed the stream"
			if tapStop != "" {
				by = tapStop
			}
			where := "what arrived could not be kept as a record"
			if saved != "" {
				where = "the record of what arrived, a cut run, is " + saved
			}
			fmt.Fprintf(b.t.out, "agui tap: %s: not judged: %s after %d events, before the agent ended it, and nothing in them breaks a rule; %s\n", b.name, by, events, where)
			return
		}
		verdict := "ACCEPTED"
		if !res.Accepted {
			verdict = "REJECTED"
		}
		record := "no record"
		if saved != "" {
			record = "record " + saved
		}
		line := fmt.Sprintf("agui tap: %s: %s, %d events, %d warnings; %s", b.name, verdict, res.Events, len(res.Warnings), record)
		switch {
		case tapStop != "":
			line += " (cut: " + tapStop + ")"
		case how == frontendLeft:
			line += " (the frontend closed the stream before the agent ended it)"
		case how == agentCut:
			line += fmt.Sprintf(" (the agent's stream broke: %v)", cutErr)
		}
		fmt.Fprintln(b.t.out, line)
	})
}

// discard drops the run's record, if it has one.
func (b *tapBody) discard() {
	if b.rec != nil {
		b.rec.discard()
	}
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
