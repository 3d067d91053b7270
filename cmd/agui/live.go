package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/contractkit/contractkit/agui"
	"github.com/contractkit/contractkit/agui/livecheck"
	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/genrt"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// The live check: agui check --url URL runs one run of an agent and checks
// its event stream as it arrives.

// defaultIdleTimeout is how long agui waits for the next byte of an
// answer before it gives up on the agent. Agents think before they
// answer, so it is generous.
const defaultIdleTimeout = 2 * time.Minute

// Media types of the AG-UI HTTP encodings: the SSE one agui reads, and the
// protobuf one it does not.
const (
	mediaSSE   = livecheck.MediaSSE
	mediaProto = "application/vnd.ag-ui.event+proto"
)

// standNoNetwork is the refusal of a live check under the stand, whose
// document has no network transport.
var standNoNetwork = fmt.Sprintf("the stand profile checks local records only: its document says "+
	`"сетевой_транспорт": "Не реализован; разбираются только выбранные локальные записи". `+
	"Check a live agent under --profile %s, or save its stream and check the file [%s]", contract.ProfileAgUI11, contract.RuleUnsupportedNetwork)

// wantsLive reports whether the arguments of agui check ask for a live
// check.
func wantsLive(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "url" {
			return true
		}
	}
	return false
}

// durationFlag is a flag holding a duration, which says what a value it
// cannot read lacks.
type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }
func (d *durationFlag) Set(v string) error {
	t, err := time.ParseDuration(v)
	if err != nil {
		if _, nerr := strconv.ParseFloat(v, 64); nerr == nil {
			return fmt.Errorf("%q has no unit: write it as %ss, %sm or %sh", v, v, v, v)
		}
		return fmt.Errorf("%q is not a duration: write it as 30s, 5m or 1h30m", v)
	}
	*d = durationFlag(t)
	return nil
}

// headerList collects repeated --header 'Name: value' flags.
type headerList []string

func (h *headerList) String() string { return strings.Join(*h, ", ") }
func (h *headerList) Set(v string) error {
	name, value, ok := strings.Cut(v, ":")
	if !ok || strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t") {
		return fmt.Errorf("%q is not a header: write it as 'Name: value'", v)
	}
	for _, r := range name {
		if !isTokenChar(r) {
			return fmt.Errorf("%q is not a header: its name may not hold %q (letters, digits and !#$%%&'*+-.^_`|~ only)", v, string(r))
		}
	}
	value = strings.TrimSpace(value)
	if i := strings.IndexFunc(value, func(r rune) bool { return r != '\t' && (r < ' ' || r == 0x7f) }); i >= 0 {
		return fmt.Errorf("%q is not a header: its value may not hold the control character %U", v, value[i])
	}
	switch http.CanonicalHeaderKey(name) {
	case "Content-Length", "Transfer-Encoding", "Connection", "Upgrade", "Te", "Trailer", "Keep-Alive":
		return fmt.Errorf("%q: agui sets %s itself, from the request it sends", v, name)
	}
	*h = append(*h, v)
	return nil
}

// isTokenChar reports whether r may stand in a header's name (a token of
// RFC 9110).
func isTokenChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}

// liveCheck is agui check --url.
func liveCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agui check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	target := fs.String("url", "", "")
	input := fs.String("input", "", "")
	save := fs.String("save", "", "")
	idle := new(time.Duration)
	*idle = defaultIdleTimeout
	fs.Var((*durationFlag)(idle), "idle-timeout", "")
	profile := fs.String("profile", contract.ProfileAgUI11, "")
	asJSON := fs.Bool("json", false, "")
	var headers headerList
	fs.Var(&headers, "header", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(stdout)
			return exitAccepted
		}
		fmt.Fprintf(stderr, "agui check: %v; run agui --help\n", err)
		return exitUnusable
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "agui check: "+format+"\n", a...)
		return exitUnusable
	}
	switch {
	case fs.NArg() > 0:
		return fail("--url checks one live agent; give record files in a separate agui check (got %q)", fs.Arg(0))
	case *profile == contract.ProfileStand:
		return fail("%s", standNoNetwork)
	case *idle <= 0:
		return fail("--idle-timeout must be positive, not %s", *idle)
	}
	if _, err := agui.LookupProfile(*profile); err != nil {
		return fail("%v", err)
	}
	u, err := url.Parse(*target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fail("--url %q is not an http or https URL", *target)
	}
	// Messages and the report name the agent without a password the URL
	// may carry.
	shown := u.Redacted()
	body, err := runInput(*input)
	if err != nil {
		return fail("%v", err)
	}
	// Findings are printed as they are checked, a lost record as it is
	// written: on two goroutines, each line in place of the progress line
	// (progress.say).
	progress := newProgress(stderr)
	// Ctrl-C or SIGTERM cuts the run: the temporary record is removed
	// and one line says what was cut (caught before the record exists).
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	defer cancelOnSignal(cancel)()
	var rec *recordFile
	if *save != "" {
		if rec, err = createRecord(*save); err != nil {
			return fail("--save: %v", err)
		}
		rec.onLost = func(err error) {
			progress.say("agui check: --save %s: the record could not be kept: %v; the run is checked on without it\n", *save, err)
		}
		defer func() {
			if rec != nil {
				rec.discard()
			}
		}()
	}

	watch := newIdleWatch(*idle, cancel)
	defer watch.stop()
	resp, err := livecheck.Post(ctx, u.String(), body, headers)
	if err != nil {
		if cut := interrupted(ctx); cut != nil {
			return fail("%s: %v before the agent answered; the run was not checked%s", shown, cut, notSaved(*save))
		}
		return fail("%s: %s", shown, connectionProblem(ctx, err, *idle))
	}
	defer resp.Body.Close()
	if problem := answerProblem(resp); problem != "" {
		return fail("%s: %s", shown, problem)
	}

	report := func(f agui.Finding) { progress.say("agui check: live: %s\n", f) }
	var saveLine func([]byte) error
	if rec != nil {
		saveLine = rec.save
	}
	run, err := livecheck.New(agui.Options{Profile: *profile, Source: shown}, saveLine, report)
	if err != nil {
		return fail("%v", err)
	}
	if rec != nil {
		run.Parts = &recordParts{rec: rec}
	}
	err = run.ReadBody(resp.Body, livecheck.Hooks{
		Arrived:   watch.touch,
		Checked:   func() { progress.show(run.Stream) },
		Interrupt: func() { cancel(errStopped) },
	})
	if cut := interrupted(ctx); err != nil && cut != nil {
		progress.clear()
		return fail("%s: %v after %d events (%d bytes): the run was cut%s", shown, cut, run.Stream.Events(), run.Stream.Bytes(), notSaved(*save))
	}
	progress.clear()
	// How the stream ended when the agent did not end it: a stream cut
	// by the agent is a cut record, judged as the record saved; one left
	// open after its run ended is judged once it falls silent; one that
	// falls silent during its run is not judged.
	cut := ""
	if err != nil {
		var broke *livecheck.BodyError
		if !errors.As(err, &broke) || errors.Is(context.Cause(ctx), errStopped) {
			return fail("%s: %v", shown, err)
		}
		events, bytes := run.Stream.Events(), run.Stream.Bytes()
		switch {
		case !errors.Is(context.Cause(ctx), errIdle):
			cut = fmt.Sprintf("the agent's stream broke after %d events (%d bytes): %v", events, bytes, broke.Err)
		case run.Stream.Finished() || run.Stream.Stopped():
			cut = fmt.Sprintf("after %d events (%d bytes) the agent kept the stream open with nothing more for %s (--idle-timeout)", events, bytes, *idle)
		default:
			return fail("%s: the stream stopped after %d events (%d bytes), its run unfinished: %s", shown, events, bytes, connectionProblem(ctx, broke.Err, *idle))
		}
	}
	if cut != "" {
		if run.Stream.Events() == 0 {
			return fail("%s: %s", shown, cut)
		}
		fmt.Fprintf(stderr, "agui check: %s: %s; the verdict is that of what arrived\n", shown, cut)
	}
	res, err := run.End()
	if err != nil {
		if !errors.As(err, new(*agui.InputError)) {
			return fail("%s: %v", shown, err)
		}
		return fail("%s: the agent answered with an event stream that holds no event", shown)
	}
	if run.SawCR() {
		fmt.Fprintf(stderr, "agui check: %s: %s\n", shown, crNote)
	}
	code := exitAccepted
	if rec != nil {
		// A record that could not be kept does not hide the verdict; the
		// exit status says that what --save asked for was not done.
		if name, err := rec.commit(); err != nil {
			if rec.lost == nil {
				fmt.Fprintf(stderr, "agui check: --save: the record could not be kept: %v\n", err)
			}
			code = exitUnusable
		} else if note := rec.leftNote(name); note != "" {
			fmt.Fprintf(stderr, "agui check: --save: %s\n", note)
		}
		rec = nil
	}
	return max(code, renderResult(res, *asJSON, stdout, stderr))
}

// crNote is said of a stream whose lines end with CR or CRLF. agui reads
// them, as the SSE rules say, and the record it saves no longer holds
// them, so it is a note beside the verdict, never a finding:
// TestCRLineEndsFailHttpAgent runs the client it names on such a stream.
const crNote = "note: the stream ends its lines with CR or CRLF; the SSE rules allow it and agui reads it, but @ag-ui/client 1.0.0 (its HttpAgent) fails a run sent so"

// notSaved says, for a run cut short, that --save kept nothing.
func notSaved(save string) string {
	if save == "" {
		return ""
	}
	return fmt.Sprintf("; nothing was saved, %s is as it was", save)
}

// runInput returns the body of the run request: the RunAgentInput of the
// file, checked against the contract, or a minimal one with fresh ids.
func runInput(file string) ([]byte, error) {
	if file == "" {
		id := func() string {
			b := make([]byte, 8)
			rand.Read(b)
			return hex.EncodeToString(b)
		}
		// The members the contract leaves optional, which agents built on
		// the SDKs still expect, are there as empty values.
		return fmt.Appendf(nil, `{"threadId":"agui-check-%s","runId":"agui-check-%s","messages":[],"state":{},"tools":[],"context":[],"forwardedProps":{}}`, id(), id()), nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--input: %v", err)
	}
	if _, err := contract.DecodeRunAgentInput(data); err != nil {
		var ve *genrt.ValidationError
		if errors.As(err, &ve) {
			return nil, fmt.Errorf("--input %s:%s: %s; it must be a RunAgentInput", file, strictjson.DisplayPointer(ve.Pointer), ve.Message)
		}
		return nil, fmt.Errorf("--input %s: %v; it must be a RunAgentInput", file, err)
	}
	return data, nil
}

// errIdle is the cause of a request given up for silence, errStopped of
// one given up because checking stopped (an event too large to hold, a
// record that could not be saved).
var (
	errIdle    = errors.New("idle")
	errStopped = errors.New("checking stopped")
)

// idleWatch cancels the request when no byte arrives for a while.
type idleWatch struct {
	d time.Duration
	t *time.Timer
}

func newIdleWatch(d time.Duration, cancel context.CancelCauseFunc) *idleWatch {
	return &idleWatch{d: d, t: time.AfterFunc(d, func() { cancel(errIdle) })}
}

func (w *idleWatch) touch() { w.t.Reset(w.d) }
func (w *idleWatch) stop()  { w.t.Stop() }

// connectionProblem says in one line why the agent could not be reached or
// read.
func connectionProblem(ctx context.Context, err error, idle time.Duration) string {
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
		record   tls.RecordHeaderError
	)
	switch {
	case errors.Is(context.Cause(ctx), errIdle):
		return fmt.Sprintf("nothing arrived for %s (--idle-timeout); agui gave up on the agent", idle)
	case errors.As(err, &verify), errors.As(err, &unknown), errors.As(err, &hostname), errors.As(err, &invalid):
		return fmt.Sprintf("TLS: the agent's certificate is not trusted: %v", err)
	case errors.As(err, &record), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return "TLS: the agent did not answer in TLS (is its URL http rather than https?)"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused: nothing listens there"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the agent closed the connection before it answered"
	case errors.Is(err, syscall.ECONNRESET):
		return "the agent reset the connection before it answered"
	}
	return fmt.Sprintf("cannot reach the agent: %v", err)
}

// answerProblem says in one line why an answer is not an event stream
// agui can check, or returns "".
func answerProblem(resp *http.Response) string {
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		where := "no Location"
		if loc, err := resp.Location(); err == nil {
			where = "Location: " + loc.Redacted()
		}
		return fmt.Sprintf("the agent answered %s (%s); agui follows no redirect, which would send the run elsewhere or, after a 301, 302 or 303, as a GET without its RunAgentInput: give --url the address the agent answers at", resp.Status, where)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return fmt.Sprintf("the agent answered %s: %q", resp.Status, head)
	}
	ct := resp.Header.Get("Content-Type")
	media, _, _ := mime.ParseMediaType(ct)
	switch {
	case media == mediaProto:
		return fmt.Sprintf("the agent answered in the protobuf encoding (%s); agui checks the SSE encoding (%s)", mediaProto, mediaSSE)
	case media != mediaSSE:
		return fmt.Sprintf("the agent answered with the content type %q, not %s", ct, mediaSSE)
	case resp.Header.Get("Content-Encoding") != "" && resp.Header.Get("Content-Encoding") != "identity":
		return fmt.Sprintf("the event stream is compressed (Content-Encoding: %s); agui reads it as sent", resp.Header.Get("Content-Encoding"))
	}
	return ""
}

// progress is the live line on a terminal: events, bytes and open
// entities, redrawn at most ten times a second. On anything else it
// prints nothing.
type progress struct {
	w     io.Writer
	on    bool
	mu    sync.Mutex
	last  time.Time
	shown bool
}

func newProgress(w io.Writer) *progress { return &progress{w: w, on: isTerminal(w)} }

func (p *progress) show(s *agui.Stream) {
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = time.Now()
	fmt.Fprintf(p.w, "\r\033[Kagui check: %d events, %d bytes, %d open", s.Events(), s.Bytes(), s.Open())
	p.shown = true
}

func (p *progress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
}

// say prints a line in place of the progress line. The line is cleared
// and written under one lock: a progress line drawn from another
// goroutine between the two would run into the line.
func (p *progress) say(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	fmt.Fprintf(p.w, format, a...)
}

func (p *progress) clearLocked() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// interruption is the cause of a run cut because the process was told to
// stop (Ctrl-C, SIGTERM).
type interruption struct{ sig os.Signal }

func (i *interruption) Error() string { return "interrupted by " + i.name() }

// name names the signal as people know it.
func (i *interruption) name() string {
	switch i.sig {
	case os.Interrupt:
		return "SIGINT (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return i.sig.String()
}

// interrupted returns the interruption that ended ctx, or nil.
func interrupted(ctx context.Context) *interruption {
	var i *interruption
	if errors.As(context.Cause(ctx), &i) {
		return i
	}
	return nil
}

// cancelOnSignal cancels with an *interruption when the process gets
// SIGINT or SIGTERM, until stop is called. The signal is caught once: a
// second one ends the process the usual way, should the first not be
// enough.
func cancelOnSignal(cancel context.CancelCauseFunc) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			cancel(&interruption{s})
		case <-done:
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
		})
	}
}
