package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/contractkit/contractkit/internal/syncbuf"
)

// The test binary runs as agui itself when AGUI_TEST_AS_COMMAND is set:
// the tests that signal or kill a process run it so.
func TestMain(m *testing.M) {
	if os.Getenv("AGUI_TEST_AS_COMMAND") == "1" {
		// A test may give a stopped tap another grace, to tell a cut
		// the grace made from one a second signal made.
		if g, err := time.ParseDuration(os.Getenv("AGUI_TEST_STOP_GRACE")); err == nil {
			stopGrace = g
		}
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// tapRun is an agui tap run in process by a test.
type tapRun struct {
	addr      string
	out, errb *syncbuf.Buffer
	stop      func(cause error) int // stops the tap with this cause, returns its exit code
}

// runTap starts agui tap with args (--listen and --upstream added).
func runTap(t *testing.T, upstream string, args ...string) *tapRun {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	addr := make(chan string, 1)
	tr := &tapRun{out: &syncbuf.Buffer{}, errb: &syncbuf.Buffer{}}
	code := make(chan int, 1)
	go func() {
		code <- tapCommand(append([]string{"--listen", "127.0.0.1:0", "--upstream", upstream}, args...), tr.out, tr.errb, ctx, func(a string) { addr <- a })
	}()
	stopped := false
	tr.stop = func(cause error) int {
		if stopped {
			return -1
		}
		stopped = true
		cancel(cause)
		select {
		case c := <-code:
			return c
		case <-time.After(20 * time.Second):
			t.Fatal("agui tap did not stop")
		}
		return -1
	}
	t.Cleanup(func() { tr.stop(nil) })
	select {
	case tr.addr = <-addr:
	case c := <-code:
		stopped = true
		t.Fatalf("agui tap exited %d: %s", c, tr.errb.String())
	case <-time.After(10 * time.Second):
		t.Fatal("agui tap did not start")
	}
	return tr
}

// temporaries lists the temporary records left in dir.
func temporaries(t *testing.T, dir string) []string {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(dir, recordTempPrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	return left
}

// freePort returns a loopback URL nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// With the agent down, a frontend's request, with a body or without, gets
// a 502 that says why, the tap prints one line for it, and nothing panics:
// the connection stays open for the next request (golang/go#68560: full
// duplex and a round trip that never read the body). A stop then waits
// for none of those requests.
func TestTapAgentDown(t *testing.T) {
	tr := runTap(t, freePort(t), "--dir", t.TempDir())
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	bodies := []string{"", `{"threadId":"t","runId":"r","messages":[]}`, strings.Repeat("x", 100<<10), "{}"}
	for i, body := range bodies {
		reused := false
		trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused }}
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodPost, "http://"+tr.addr+"/run", strings.NewReader(body))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("request %d (%d bytes): %v\ntap: %s", i, len(body), err, tr.errb.String())
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(got), "the agent could not be reached") || !strings.Contains(string(got), "connection refused") {
			t.Errorf("request %d: %s %q; want 502 saying the agent could not be reached", i, resp.Status, got)
		}
		if i > 0 && !reused {
			t.Errorf("request %d (%d bytes) came on a new connection: the tap dropped the one before", i, len(body))
		}
	}
	stderr := tr.errb.String()
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if strings.Contains(stderr, "panic") || len(lines) != len(bodies) {
		t.Errorf("want one line per request, no panic; stderr:\n%s", stderr)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "agui tap: POST /run: the agent could not be reached: ") {
			t.Errorf("line %q", l)
		}
	}
	if !strings.Contains(tr.out.String(), "listening on") || strings.Contains(tr.out.String(), "run 1") {
		t.Errorf("stdout:\n%s", tr.out.String())
	}

	// A frontend that sends its body only once told to continue gets
	// the 502 at once, and its body is never asked for.
	expecting := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: 10 * time.Second}}
	defer expecting.CloseIdleConnections()
	body := &watchedReader{r: strings.NewReader(`{"threadId":"t","runId":"r","messages":[]}`)}
	req, _ := http.NewRequest(http.MethodPost, "http://"+tr.addr+"/run", body)
	req.ContentLength = body.r.Size()
	req.Header.Set("Expect", "100-continue")
	resp, err := expecting.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || body.read.Load() {
		t.Errorf("Expect: 100-continue: %s; the body was sent: %v (the answer waited for it)", resp.Status, body.read.Load())
	}
	if strings.Contains(tr.errb.String(), "panic") {
		t.Errorf("stderr:\n%s", tr.errb.String())
	}
	// Each request was answered (the 502): a stop has none left to wait
	// for, and says nothing of one.
	if code := tr.stop(nil); code != exitAccepted || strings.Contains(tr.out.String(), "waiting up to") {
		t.Errorf("stopped: exit %d; stdout:\n%s", code, tr.out.String())
	}
}

// watchedReader tells whether anything read it.
type watchedReader struct {
	r    *strings.Reader
	read atomic.Bool
}

func (w *watchedReader) Read(p []byte) (int, error) {
	w.read.Store(true)
	return w.r.Read(p)
}

// echoAgent streams a record whose run id is the request's body, so that
// each record can be told from the others.
func echoAgent(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":%q}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":%q}\n\n", id, id)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// recordOf is the record echoAgent streams for id.
func recordOf(id string) string {
	return fmt.Sprintf("{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":%q}\n{\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":%q}\n", id, id)
}

// postRun sends body to path at addr, as a frontend starts a run, and
// returns the answer, whose body the caller reads and closes; an error
// ends the test, so only the test's own goroutine calls it.
func postRun(t *testing.T, addr, path, body string) *http.Response {
	t.Helper()
	resp, err := http.Post("http://"+addr+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// post sends body to path at addr and returns the whole answer. It
// reports a failure with Error, not Fatal, so that any goroutine of a test
// may call it.
func post(t *testing.T, addr, path, body string) []byte {
	t.Helper()
	resp, err := http.Post("http://"+addr+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Error(err)
	}
	return b
}

var verdictLine = regexp.MustCompile(`run \d+: ACCEPTED, 2 events, 0 warnings; record (\S+)`)

// Two taps that share a folder, at the same moment, and a tap started
// again within the same second, never write one record over another:
// each run's record is there, under the name its verdict line gives.
func TestTapRecordsNeverReplaceOneAnother(t *testing.T) {
	agent := echoAgent(t)
	dir := t.TempDir()
	// A file already there under each name a run of the next seconds
	// would first take: the tap's records go beside it.
	now := time.Now().UTC()
	var before []string
	for s := range 5 {
		name := filepath.Join(dir, fmt.Sprintf("run-%s-001.ndjson", now.Add(time.Duration(s)*time.Second).Format("20060102-150405")))
		if err := os.WriteFile(name, []byte("someone else's\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		before = append(before, name)
	}
	a := runTap(t, agent.URL, "--dir", dir)
	b := runTap(t, agent.URL, "--dir", dir)
	done := make(chan bool, 2)
	go func() { post(t, a.addr, "/", "a"); done <- true }()
	go func() { post(t, b.addr, "/", "b"); done <- true }()
	for range 2 {
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("a run through the taps never ended")
		}
	}
	ra := waitFor(t, a.out, verdictLine)[1]
	rb := waitFor(t, b.out, verdictLine)[1]
	a.stop(nil)
	// The same tap again, within the same second as like as not.
	c := runTap(t, agent.URL, "--dir", dir)
	post(t, c.addr, "/", "c")
	rc := waitFor(t, c.out, verdictLine)[1]
	c.stop(nil)
	for id, name := range map[string]string{"a": ra, "b": rb, "c": rc} {
		if got, err := os.ReadFile(name); err != nil || string(got) != recordOf(id) {
			t.Errorf("run %s: record %s holds %q (%v)", id, name, got, err)
		}
	}
	for _, name := range before {
		if got, _ := os.ReadFile(name); string(got) != "someone else's\n" {
			t.Errorf("%s was replaced: %q", name, got)
		}
	}
	all, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(all) != len(before)+3 || len(temporaries(t, dir)) != 0 {
		t.Errorf("the folder holds %v", all)
	}
}

// The name a record takes when the one it was meant for is taken: the
// next free one, with -2, -3, … before the extension; under --save, the
// name is the user's, and a record never takes another.
func TestRecordTakesTheNextFreeName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ndjson")
	var names []string
	for i := range 3 {
		r, err := createRunRecord(path)
		if err != nil {
			t.Fatal(err)
		}
		r.save([]byte(fmt.Sprint(i)))
		name, err := r.commit()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, filepath.Base(name))
		if got, _ := os.ReadFile(name); string(got) != fmt.Sprintf("%d\n", i) {
			t.Errorf("%s holds %q", name, got)
		}
	}
	if strings.Join(names, " ") != "run.ndjson run-2.ndjson run-3.ndjson" {
		t.Errorf("names %v", names)
	}
	// --save onto a name that was free when the run began and is taken
	// when it ends: the other file stays, the record is not saved.
	other := filepath.Join(dir, "other.ndjson")
	r, err := createRecord(other)
	if err != nil {
		t.Fatal(err)
	}
	r.save([]byte("mine"))
	os.WriteFile(other, []byte("theirs"), 0o644)
	if _, err := r.commit(); err == nil || !strings.Contains(err.Error(), "agui does not replace it") {
		t.Errorf("commit over a file made meanwhile: %v", err)
	}
	if got, _ := os.ReadFile(other); string(got) != "theirs" || len(temporaries(t, dir)) != 0 {
		t.Errorf("%s holds %q; temporaries %v", other, got, temporaries(t, dir))
	}
}

// A run's record looks for a free name up to run-999: with every name
// before it taken it is saved there, with that one taken too it is not
// saved, and no file is replaced nor temporary file left.
func TestRecordNextFreeNameLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ndjson")
	taken := func(n int) string {
		if n == 1 {
			return path
		}
		return filepath.Join(dir, fmt.Sprintf("run-%d.ndjson", n))
	}
	for n := 1; n <= 998; n++ {
		if err := os.WriteFile(taken(n), []byte("theirs\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	save := func() (string, error) {
		r, err := createRunRecord(path)
		if err != nil {
			t.Fatal(err)
		}
		r.save([]byte("mine"))
		return r.commit()
	}
	if name, err := save(); err != nil || name != taken(999) {
		t.Fatalf("with run … run-998 taken: saved as %q, %v; want %s", name, err, taken(999))
	}
	if got, _ := os.ReadFile(taken(999)); string(got) != "mine\n" {
		t.Errorf("%s holds %q", taken(999), got)
	}
	if name, err := save(); err == nil || !strings.Contains(err.Error(), taken(999)+" was made by another program") {
		t.Errorf("with run … run-999 taken: saved as %q, %v; want it not saved", name, err)
	}
	all, _ := filepath.Glob(filepath.Join(dir, "*"))
	if _, err := os.Stat(taken(1000)); err == nil || len(all) != 999 || len(temporaries(t, dir)) != 0 {
		t.Errorf("the folder holds %d files, temporaries %v", len(all), temporaries(t, dir))
	}
	for n := 1; n <= 998; n++ {
		if got, _ := os.ReadFile(taken(n)); string(got) != "theirs\n" {
			t.Fatalf("%s was replaced: %q", taken(n), got)
		}
	}
}

// A record that cannot be written any more is dropped, said once, and the
// run goes on: save never stops it.
func TestRecordLostMidRun(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ndjson")
	r, err := createRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	var said []error
	r.onLost = func(err error) { said = append(said, err) }
	r.tmp.Close() // the next write to the file fails
	line := bytes.Repeat([]byte("x"), 100<<10)
	for range 3 {
		if err := r.save(line); err != nil {
			t.Fatalf("save returned %v: the run would stop", err)
		}
	}
	if len(said) != 1 {
		t.Errorf("the loss was said %d times", len(said))
	}
	if _, err := r.commit(); err == nil {
		t.Error("a lost record was committed")
	}
	if _, err := os.Stat(path); err == nil || len(temporaries(t, dir)) != 0 {
		t.Errorf("a lost record left %s or %v", path, temporaries(t, dir))
	}
}

// Stopping the tap (Ctrl-C, SIGTERM) while a run is in flight cuts the
// run once the grace is over (shortened here): its record holds what
// passed, it is not judged (the cut is the tap's, not the agent's), no
// temporary file stays, and the tap exits 0. A run that ended before is
// untouched.
func TestTapStopCutsRunsInFlight(t *testing.T) {
	defer func(was time.Duration) { stopGrace = was }(stopGrace)
	stopGrace = 100 * time.Millisecond
	first := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"
	hold := make(chan struct{})
	defer close(hold)
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if r.URL.Path == "/whole" {
			fmt.Fprint(w, first+"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
			return
		}
		fmt.Fprint(w, first)
		w.(http.Flusher).Flush()
		select {
		case <-hold:
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	}))
	defer agent.Close()
	dir := t.TempDir()
	tr := runTap(t, agent.URL, "--dir", dir)
	post(t, tr.addr, "/whole", "{}")
	waitFor(t, tr.out, regexp.MustCompile(`run 1: ACCEPTED`))

	resp := postRun(t, tr.addr, "/held", "{}")
	defer resp.Body.Close()
	got := make([]byte, len(first))
	if _, err := io.ReadFull(resp.Body, got); err != nil || string(got) != first {
		t.Fatalf("the frontend got %q, %v", got, err)
	}
	if code := tr.stop(&interruption{syscall.SIGTERM}); code != exitAccepted {
		t.Errorf("the tap exited %d", code)
	}
	out := tr.out.String()
	m := regexp.MustCompile(`run 2: not judged: the tap was stopped by SIGTERM after 1 events, before the agent ended it, and nothing in them breaks a rule; the record of what arrived, a cut run, is (\S+)\n`).FindStringSubmatch(out)
	if m == nil || !strings.HasSuffix(out, "agui tap: the tap was stopped by SIGTERM\n") || strings.Count(out, "run 1:") != 2 {
		t.Fatalf("output:\n%s", out)
	}
	if rec, _ := os.ReadFile(m[1]); string(rec) != "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n" {
		t.Errorf("the cut run's record holds %q", rec)
	}
	if left := temporaries(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("the frontend's stream ended cleanly; it was cut")
	}
}

// Stopping the tap cuts, once the grace is over (shortened here), a run
// that a finding has already decided, and one that has sent no event yet:
// the first is REJECTED, marked as cut by the tap, with its record kept;
// the second is not judged and leaves no record.
func TestTapStopAfterAFindingAndBeforeAnEvent(t *testing.T) {
	defer func(was time.Duration) { stopGrace = was }(stopGrace)
	stopGrace = 100 * time.Millisecond
	decided := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n"
	thinking := ": thinking\n\n"
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if r.URL.Path == "/decided" {
			fmt.Fprint(w, decided)
		} else {
			fmt.Fprint(w, thinking)
		}
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	}))
	defer agent.Close()
	dir := t.TempDir()
	tr := runTap(t, agent.URL, "--dir", dir)
	for _, run := range []struct{ path, first string }{{"/decided", decided}, {"/thinking", thinking}} {
		resp := postRun(t, tr.addr, run.path, "{}")
		defer resp.Body.Close()
		// Once the frontend has the bytes, the tap has checked them.
		got := make([]byte, len(run.first))
		if _, err := io.ReadFull(resp.Body, got); err != nil || string(got) != run.first {
			t.Fatalf("%s: the frontend got %q, %v", run.path, got, err)
		}
	}
	if code := tr.stop(&interruption{syscall.SIGTERM}); code != exitAccepted {
		t.Errorf("the tap exited %d", code)
	}
	out := tr.out.String()
	m := regexp.MustCompile(`\nagui tap: run 1: REJECTED, 2 events, 0 warnings; record (\S+) \(cut: the tap was stopped by SIGTERM\)\n`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "\nagui tap: run 2: not judged: the tap was stopped by SIGTERM before the stream's first event\n") {
		t.Fatalf("output:\n%s", out)
	}
	if !regexp.MustCompile(`\nagui tap: run 1: event 1 at /messageId`).MatchString(out) || strings.Contains(out, "run-complete") {
		t.Errorf("run 1's finding, and only it, should be reported:\n%s", out)
	}
	if rec, _ := os.ReadFile(m[1]); string(rec) != "{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n{\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n" {
		t.Errorf("run 1's record holds %q", rec)
	}
	if records, _ := filepath.Glob(filepath.Join(dir, "run-*.ndjson")); len(records) != 1 || len(temporaries(t, dir)) != 0 {
		t.Errorf("records %v, temporaries %v", records, temporaries(t, dir))
	}
}

// The line of an event too large to hold goes into the record part by
// part (recordParts): kept, it is a line of the record; dropped (the
// stream ended inside the event), it is cut off again and the next line
// takes its place. A part that cannot be written loses the record as a
// line's write does: said once, the run goes on, nothing is committed.
func TestRecordParts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ndjson")
	r, err := createRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	p := &recordParts{rec: r}
	r.save([]byte("first"))
	for _, part := range []string{"kept ", "part"} {
		if err := p.Part([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	p.EndPart(true)
	p.Part(bytes.Repeat([]byte("d"), 100<<10))
	p.EndPart(false)
	r.save([]byte("last"))
	if name, err := r.commit(); err != nil || name != path {
		t.Fatalf("commit: %q, %v", name, err)
	}
	if got, _ := os.ReadFile(path); string(got) != "first\nkept part\nlast\n" {
		t.Errorf("the record holds %.200q", got)
	}

	r, err = createRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	var said []error
	r.onLost = func(err error) { said = append(said, err) }
	p = &recordParts{rec: r}
	r.save([]byte("first"))
	r.tmp.Close() // the next write to the file fails
	for range 3 {
		if err := p.Part(bytes.Repeat([]byte("x"), 100<<10)); err != nil {
			t.Fatalf("Part returned %v: the run would stop", err)
		}
	}
	if err := p.EndPart(true); err != nil {
		t.Fatalf("EndPart returned %v: the run would stop", err)
	}
	if err := r.save([]byte("last")); err != nil {
		t.Fatalf("save returned %v: the run would stop", err)
	}
	if len(said) != 1 || !strings.Contains(fmt.Sprint(said[0]), "writing "+path+": ") {
		t.Errorf("the loss was said %d times: %v", len(said), said)
	}
	if _, err := r.commit(); err == nil {
		t.Error("a lost record was committed")
	}
	if got, _ := os.ReadFile(path); string(got) != "first\nkept part\nlast\n" || len(temporaries(t, dir)) != 0 {
		t.Errorf("%s holds %.200q, temporaries %v", path, got, temporaries(t, dir))
	}
}
