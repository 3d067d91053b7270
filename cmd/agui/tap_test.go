package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/internal/syncbuf"
)

// startTap runs agui tap in process in front of upstream, its records in
// dir, and returns its address, its output, and a function that stops it
// and returns its exit code (runTap, for the tests that need no more).
func startTap(t *testing.T, upstream, dir string) (string, *syncbuf.Buffer, func() int) {
	t.Helper()
	tr := runTap(t, upstream, "--dir", dir)
	return tr.addr, tr.out, func() int { return tr.stop(nil) }
}

// waitFor waits until the output holds a line that matches re, for 20
// seconds at most (a tap run as a process, under -race, may be slow).
func waitFor(t *testing.T, out *syncbuf.Buffer, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no line matching %s in:\n%s", re, out.String())
	return nil
}

// A run through the tap: the frontend gets the agent's bytes unchanged,
// the agent gets the frontend's request unchanged, and the tap prints the
// verdict agui check gives for the record it saved.
func TestTapPassesAndChecks(t *testing.T) {
	var stream bytes.Buffer
	encodings[1].write(&stream, recordEvents([]byte(good))) // BOM, CRLF, comments
	rejected := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"é\"}\n\n"
	var gotPath, gotQuery string
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotQuery = r.URL.Path, r.URL.RawQuery
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		out := stream.Bytes()
		if bytes.Contains(body, []byte("reject")) {
			out = []byte(rejected)
		}
		for len(out) > 0 { // three bytes at a time: multibyte characters split
			n := min(3, len(out))
			w.Write(out[:n])
			f.Flush()
			out = out[n:]
		}
	}))
	defer agent.Close()
	dir := t.TempDir()
	addr, out, stop := startTap(t, agent.URL+"/agent?k=v", dir)

	if got := post(t, addr, "/", `{"threadId":"t","runId":"r","messages":[]}`); !bytes.Equal(got, stream.Bytes()) {
		t.Errorf("the frontend got other bytes than the agent sent:\n%q\n%q", got, stream.Bytes())
	}
	if gotPath != "/agent" || gotQuery != "k=v" {
		t.Errorf("the agent was asked for %q?%q", gotPath, gotQuery)
	}
	m := waitFor(t, out, regexp.MustCompile(`run 1: (ACCEPTED|REJECTED), (\d+) events, \d+ warnings; record (\S+)`))
	code, _, _ := runAgui(t, "", "check", "--profile", "ag-ui-1.1", m[3])
	if m[1] != "ACCEPTED" || m[2] != "5" || code != exitAccepted {
		t.Errorf("run 1: %v; agui check of the record exits %d", m, code)
	}
	if got := post(t, addr, "/sub", `"reject"`); string(got) != rejected {
		t.Errorf("second run: got %q", got)
	}
	if gotPath != "/agent/sub" {
		t.Errorf("the agent was asked for %q", gotPath)
	}
	m = waitFor(t, out, regexp.MustCompile(`run 2: (ACCEPTED|REJECTED), (\d+) events, \d+ warnings; record (\S+)`))
	// Run 1 came with CRLF line ends, run 2 with LF: only run 1 is noted.
	if !strings.Contains(out.String(), "run 1: "+crNote+"\n") || strings.Contains(out.String(), "run 2: "+crNote) {
		t.Errorf("the note on CR line ends is not on run 1 alone:\n%s", out.String())
	}
	code, _, _ = runAgui(t, "", "check", "--profile", "ag-ui-1.1", m[3])
	if m[1] != "REJECTED" || code != exitRejected || !strings.Contains(out.String(), `run 2: event 1 at /messageId`) {
		t.Errorf("run 2: %v; agui check of the record exits %d\n%s", m, code, out.String())
	}
	saved, _ := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	if len(saved) != 2 {
		t.Errorf("records saved: %v", saved)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".agui-record-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	if code := stop(); code != exitAccepted {
		t.Errorf("agui tap exited %d", code)
	}
}

// An agent may start its answer before the frontend's request has all
// passed: the stream still arrives whole, and so does the request. (Before
// it sends an answer's headers, an HTTP/1 server reads and throws away
// what is left of the request's body, then closes it. Here, where the
// frontend sends the rest of its request only once the answer has begun,
// no answer would come; with @ag-ui/client's HttpAgent, whose request had
// all been sent, the closed body broke the request to the agent whenever
// the agent answered before the tap's transport had read the body's end,
// and the frontend saw "other side closed".)
func TestTapAnswerBeforeRequestEnds(t *testing.T) {
	var stream bytes.Buffer
	encodings[0].write(&stream, recordEvents([]byte(good)))
	received := make(chan string, 1)
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := http.NewResponseController(w).EnableFullDuplex(); err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		half := stream.Len() / 2
		w.Write(stream.Bytes()[:half])
		w.(http.Flusher).Flush() // the answer starts; the request goes on
		body, err := io.ReadAll(r.Body)
		if err != nil {
			body = append(body, "; "+err.Error()...)
		}
		received <- string(body)
		w.Write(stream.Bytes()[half:])
	}))
	defer agent.Close()
	addr, out, stop := startTap(t, agent.URL, t.TempDir())
	defer stop()

	pr, pw := io.Pipe()
	defer pw.Close()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", pr)
	req.Header.Set("Content-Type", "application/json")
	go io.WriteString(pw, `{"threadId":"t",`)
	answered := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req) // returns once the answer's headers arrive
		if err != nil {
			t.Error(err)
		}
		answered <- resp
	}()
	var resp *http.Response
	select {
	case resp = <-answered:
	case <-time.After(10 * time.Second):
		pw.CloseWithError(errors.New("no answer"))
		<-answered
		t.Fatal("no answer arrived while the request was still being sent")
	}
	if resp == nil {
		t.FailNow()
	}
	defer resp.Body.Close()
	io.WriteString(pw, `"runId":"r","messages":[]}`) // the rest of the request, after the answer began
	pw.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil || !bytes.Equal(got, stream.Bytes()) {
		t.Errorf("the frontend got %d bytes (%v); the agent sent %d", len(got), err, stream.Len())
	}
	select {
	case body := <-received:
		if want := `{"threadId":"t","runId":"r","messages":[]}`; body != want {
			t.Errorf("the agent got the request %q, want %q", body, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the agent never had the request's end")
	}
	m := waitFor(t, out, regexp.MustCompile(`run 1: (ACCEPTED|REJECTED), (\d+) events`))
	if m[1] != "ACCEPTED" || m[2] != "5" {
		t.Errorf("the tap's verdict: %s\n%s", m[0], out.String())
	}
}

// The tap listens on loopback only unless told otherwise, and checks
// under AG-UI 1.1 only.
//
//contract:proves ag-ui.unsupported.network
func TestTapRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--upstream", "http://127.0.0.1:1", "--listen", "0.0.0.0:0"}, "not a loopback address"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--listen", "192.0.2.1:80"}, "--allow-remote"},
		{[]string{"--upstream", "http://127.0.0.1:1", "--profile", "stand"}, `"сетевой_транспорт"`},
		{[]string{"--listen", "127.0.0.1:0"}, "--upstream URL is required"},
		{[]string{"--upstream", "file:///x"}, "not an http or https URL"},
	} {
		code, _, stderr := runAgui(t, "", append([]string{"tap", "--dir", t.TempDir()}, tc.args...)...)
		if code != exitUnusable || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat("agui-runs"); err == nil {
		t.Error("a refused tap made its default folder")
	}
}

// localhost is a loopback address in any case, and the tap binds it as
// 127.0.0.1 rather than asking a resolver, which could map the name to
// any address.
// (Where the hosts file maps localhost to 127.0.0.1 the address bound
// alone could not tell, hence the address asked for.)
func TestTapListensOnLocalhostAsItsLiteral(t *testing.T) {
	asked := make(chan string, 1)
	defer func(l func(string, string) (net.Listener, error)) { tapListen = l }(tapListen)
	tapListen = func(network, addr string) (net.Listener, error) {
		asked <- addr
		return net.Listen(network, addr)
	}
	for _, host := range []string{"localhost", "LOCALHOST"} {
		tr := runTap(t, "http://127.0.0.1:1", "--dir", t.TempDir(), "--listen", host+":0")
		if a := <-asked; a != "127.0.0.1:0" || !strings.HasPrefix(tr.addr, "127.0.0.1:") {
			t.Errorf("--listen %s:0 binds %s and listens on %s", host, a, tr.addr)
		}
		tr.stop(nil)
	}
}

// The three ways a stream through the tap ends early are told apart. A
// frontend that leaves mid-run does not make the agent's run REJECTED:
// the end's findings (a cut run) are not reported, and the run is "not
// judged", its record kept. A frontend that leaves after a finding still
// sees the finding's REJECTED. An agent whose stream breaks is REJECTED, as
// agui check judges the record it leaves. Before the first event there is
// nothing to judge, and each says which side ended it.
func TestTapStreamCutEarly(t *testing.T) {
	start := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"
	bad := "data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n"
	release := make(chan struct{})
	defer close(release)
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		switch string(body) {
		case "wait", "cut-first":
			io.WriteString(w, ": thinking\n\n")
		default:
			io.WriteString(w, start)
		}
		if string(body) == "bad" {
			io.WriteString(w, bad)
		}
		w.(http.Flusher).Flush()
		if string(body) == "cut" || string(body) == "cut-first" {
			// The agent's side breaks: the connection closes mid-stream.
			conn, _, _ := http.NewResponseController(w).Hijack()
			conn.Close()
			return
		}
		select { // the agent thinks, and the frontend gives up
		case <-release:
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer agent.Close()
	dir := t.TempDir()
	addr, out, stop := startTap(t, agent.URL, dir)
	defer stop()
	leave := func(body string) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/", strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 1)
		resp.Body.Read(buf) // the stream has begun
		cancel()
		resp.Body.Close()
	}

	leave("")
	m := waitFor(t, out, regexp.MustCompile(`run 1: not judged: the frontend closed the stream after (\d+) events.*, is (\S+)\n`))
	if m[1] != "1" || strings.Contains(out.String(), "run 1: REJECTED") || strings.Contains(out.String(), "run-complete") {
		t.Errorf("run 1, the frontend left:\n%s", out.String())
	}
	if _, err := os.Stat(m[2]); err != nil {
		t.Errorf("run 1's record: %v", err)
	}

	leave("bad")
	waitFor(t, out, regexp.MustCompile(`run 2: REJECTED, 2 events, 0 warnings; record \S+ \(the frontend closed the stream before the agent ended it\)\n`))
	if !strings.Contains(out.String(), "run 2: event 1 at /messageId") {
		t.Errorf("run 2's finding not reported:\n%s", out.String())
	}

	// Before the first event, neither is judged.
	leave("wait")
	waitFor(t, out, regexp.MustCompile(`run 3: not judged: the frontend closed the stream before its first event\n`))
	resp, err := http.Post("http://"+addr+"/", "application/json", strings.NewReader("cut-first"))
	if err == nil {
		io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	waitFor(t, out, regexp.MustCompile(`run 4: the agent's stream broke before its first event: .+\n`))

	resp, err = http.Post("http://"+addr+"/", "application/json", strings.NewReader("cut"))
	if err == nil {
		io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	m = waitFor(t, out, regexp.MustCompile(`run 5: REJECTED, 1 events, 0 warnings; record (\S+) \(the agent's stream broke: [^)]+\)\n`))
	if code, _, _ := runAgui(t, "", "check", "--profile", "ag-ui-1.1", m[1]); code != exitRejected || !strings.Contains(out.String(), "run 5: the record: the record ends while run") {
		t.Errorf("run 5: agui check of the record exits %d\n%s", code, out.String())
	}
}

// The tap keeps a request's path escaped as the frontend sent it (a %2F
// is not a slash), below the agent's path escaped as given; a user and
// password in --upstream go to the agent as Basic authorization, as
// check --url sends them, unless the frontend sends its own, and are
// never printed.
func TestTapPathAndCredentials(t *testing.T) {
	type seen struct{ path, auth string }
	got := make(chan seen, 1)
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.URL.EscapedPath(), r.Header.Get("Authorization")}
		w.Header().Set("Content-Type", "text/plain")
	}))
	defer agent.Close()
	upstream := strings.Replace(agent.URL, "http://", "http://u:s3cret@", 1) + "/api%2Fv1"
	addr, out, stop := startTap(t, upstream, t.TempDir())
	basic := "Basic dTpzM2NyZXQ=" // u:s3cret
	for _, tc := range []struct{ path, auth, wantPath, wantAuth string }{
		{"/threads/a%2Fb/runs", "", "/api%2Fv1/threads/a%2Fb/runs", basic},
		{"/x%20y/%C3%A9", "", "/api%2Fv1/x%20y/%C3%A9", basic},
		{"/", "", "/api%2Fv1", basic},
		{"/own", "Bearer f", "/api%2Fv1/own", "Bearer f"},
	} {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+tc.path, strings.NewReader("{}"))
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if s, ok := received(got); !ok || s.path != tc.wantPath || s.auth != tc.wantAuth {
			t.Errorf("%s: the agent got %q with %q; want %q with %q", tc.path, s.path, s.auth, tc.wantPath, tc.wantAuth)
		}
	}
	stop()
	if strings.Contains(out.String(), "s3cret") {
		t.Errorf("the password was printed:\n%s", out.String())
	}
}

// Every answer the tap passes on unchecked is a notice on stderr, the
// compressed event stream as the answer that is not one; stdout carries
// the runs it checks.
func TestTapUncheckedNotices(t *testing.T) {
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/gz" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Encoding", "gzip")
		} else {
			w.Header().Set("Content-Type", "text/html")
		}
		w.Write([]byte{0x1f, 0x8b})
	}))
	defer agent.Close()
	tr := runTap(t, agent.URL, "--dir", t.TempDir())
	for _, p := range []string{"/gz", "/page"} {
		// The answers may end short (a stream passed on unchecked); only
		// the notices are under test.
		resp := postRun(t, tr.addr, p, "{}")
		io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	waitFor(t, tr.errb, regexp.MustCompile(`passed on unchecked: the stream is compressed \(Content-Encoding: gzip\)`))
	waitFor(t, tr.errb, regexp.MustCompile(`POST /page: 200 OK text/html, not an event stream: passed on unchecked`))
	tr.stop(nil)
	if strings.Contains(tr.out.String(), "unchecked") {
		t.Errorf("a notice on stdout:\n%s", tr.out.String())
	}
}

// The help of agui tap and of agui check --url names the profile a saved
// record must be checked under to get the verdict they printed: agui
// check reads a file under the stand profile unless told otherwise, and a
// record that passes AG-UI 1.1 may break the stand's rules.
func TestHelpNamesTheRecordsProfile(t *testing.T) {
	want := "agui check --profile " + contract.ProfileAgUI11
	_, tapHelp, _ := runAgui(t, "", "tap", "--help")
	_, help, _ := runAgui(t, "", "--help")
	if !strings.Contains(tapHelp, want+" agui-runs/") || !strings.Contains(strings.Join(strings.Fields(help), " "), "the report at the end is the one "+want+" gives for the saved record") {
		t.Errorf("the help does not say %q:\n%s\n%s", want, tapHelp, help)
	}
}

// An event past the record's byte limit passes the tap unchanged and is
// saved as it came; the tap's verdict is the one agui check gives for the
// record, ag-ui.reader.input-bytes.
func TestTapEventPastTheByteLimit(t *testing.T) {
	big := `{"type":"CUSTOM","name":"n","value":"` + strings.Repeat("x", contract.LimitInputBytes) + `"}`
	start := `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`
	stream := "data: " + start + "\n\ndata: " + big + "\n\n"
	agent := httptest.NewServer(&sseAgent{body: []byte(stream), pieces: []int{4096, 3}})
	defer agent.Close()
	addr, out, stop := startTap(t, agent.URL, t.TempDir())
	defer stop()
	if got := post(t, addr, "/", "{}"); string(got) != stream {
		t.Errorf("the frontend got %d bytes, not the %d the agent sent", len(got), len(stream))
	}
	m := waitFor(t, out, regexp.MustCompile(`run 1: (ACCEPTED|REJECTED), \d+ events, \d+ warnings; record (\S+)\n`))
	saved, _ := os.ReadFile(m[2])
	code, report, _ := runAgui(t, "", "check", "--profile", contract.ProfileAgUI11, m[2])
	if m[1] != "REJECTED" || code != exitRejected || !strings.Contains(report, contract.RuleReaderInputBytes) || string(saved) != start+"\n"+big+"\n" {
		t.Errorf("run 1: %s, agui check exits %d: %s; saved %d bytes", m[1], code, report, len(saved))
	}

	// A whole run whose record is the limit exactly is ACCEPTED, one byte
	// more is the limit's finding (JSON white space fills its first event,
	// so that no other limit is met).
	finish := `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
	for _, tc := range []struct {
		size    int
		verdict string
		code    int
	}{{contract.LimitInputBytes, "ACCEPTED", exitAccepted}, {contract.LimitInputBytes + 1, "REJECTED", exitRejected}} {
		first := strings.TrimSuffix(start, "}") + strings.Repeat(" ", tc.size-len(start)-len(finish)-2) + "}"
		agent := httptest.NewServer(&sseAgent{body: []byte("data: " + first + "\n\ndata: " + finish + "\n\n"), pieces: []int{4096, 3}})
		defer agent.Close()
		tr := runTap(t, agent.URL, "--dir", t.TempDir())
		post(t, tr.addr, "/", "{}")
		m := waitFor(t, tr.out, regexp.MustCompile(`run 1: (ACCEPTED|REJECTED), \d+ events, \d+ warnings; record (\S+)\n`))
		tr.stop(nil)
		saved, _ := os.ReadFile(m[2])
		code, report, _ := runAgui(t, "", "check", "--profile", contract.ProfileAgUI11, m[2])
		if m[1] != tc.verdict || code != tc.code || strings.Contains(report, contract.RuleReaderInputBytes) != (tc.code == exitRejected) || len(saved) != tc.size {
			t.Errorf("a record of %d bytes: %s, agui check exits %d: %s; saved %d bytes", tc.size, m[1], code, report, len(saved))
		}
	}
}

// A stopped tap's line names the runs in flight, the requests the agent
// has not answered yet and the answers passing on unchecked, each alone or
// with its count, joined by "and" (and commas for three), and counts them
// all; nothing when there is none.
func TestWaitedFor(t *testing.T) {
	for _, tc := range []struct {
		n    pending
		want string
	}{
		{pending{}, ""},
		{pending{runs: 1}, "the run in flight"},
		{pending{runs: 2}, "the 2 runs in flight"},
		{pending{asking: 1}, "the request the agent has not answered yet"},
		{pending{asking: 2}, "the 2 requests the agent has not answered yet"},
		{pending{passing: 1}, "the answer passing on unchecked"},
		{pending{passing: 2}, "the 2 answers passing on unchecked"},
		{pending{runs: 1, asking: 1}, "the run in flight and the request the agent has not answered yet"},
		{pending{runs: 2, asking: 3}, "the 2 runs in flight and the 3 requests the agent has not answered yet"},
		{pending{asking: 1, passing: 1}, "the request the agent has not answered yet and the answer passing on unchecked"},
		{pending{runs: 1, asking: 2, passing: 3}, "the run in flight, the 2 requests the agent has not answered yet and the 3 answers passing on unchecked"},
	} {
		if got, n := waitedFor(tc.n); got != tc.want || n != tc.n.runs+tc.n.asking+tc.n.passing {
			t.Errorf("waitedFor(%+v) = %q, %d; want %q, %d", tc.n, got, n, tc.want, tc.n.runs+tc.n.asking+tc.n.passing)
		}
	}
}

// An upgrade passes through the tap both ways, unchecked: the proxy needs
// the upgraded connection's body as the transport made it (a tap that
// wrapped it, as it wraps other answers passed on unchecked, broke the
// upgrade), and the tap's stop does not wait for it.
func TestTapPassesAnUpgrade(t *testing.T) {
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "echo" {
			http.Error(w, "upgrade expected", http.StatusBadRequest)
			return
		}
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
		rw.Flush()
		line, _ := rw.ReadString('\n')
		rw.WriteString("echo: " + line)
		rw.Flush()
	}))
	defer agent.Close()
	tr := runTap(t, agent.URL, "--dir", t.TempDir())
	conn, err := net.DialTimeout("tcp", tr.addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n", tr.addr)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("answer %v, %v; stderr %s", resp, err, tr.errb)
	}
	io.WriteString(conn, "hello\n")
	if line, err := br.ReadString('\n'); err != nil || line != "echo: hello\n" {
		t.Errorf("through the upgraded connection: %q, %v", line, err)
	}
	if code := tr.stop(nil); code != exitAccepted {
		t.Errorf("the tap exited %d", code)
	}
}

// An event stream's headers without a body (a HEAD request, a 204 answer)
// pass on unchecked: there is no run to judge, where before the tap made
// each a run whose stream "held no event". Its neighbour, a POST answered
// with events, is a run.
func TestTapPassesHeadersWithoutABody(t *testing.T) {
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if r.URL.Path == "/none" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		for _, e := range recordEvents([]byte(good)) {
			fmt.Fprintf(w, "data: %s\n\n", e)
		}
	}))
	defer agent.Close()
	tr := runTap(t, agent.URL, "--dir", t.TempDir())
	req, _ := http.NewRequest(http.MethodHead, "http://"+tr.addr+"/", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("HEAD: %s %q", resp.Status, resp.Header.Get("Content-Type"))
	}
	waitFor(t, tr.errb, regexp.MustCompile(`agui tap: HEAD /: 200 OK, an event stream's headers without a body: passed on unchecked\n`))
	if b := post(t, tr.addr, "/none", "{}"); len(b) != 0 {
		t.Errorf("204: body %q", b)
	}
	waitFor(t, tr.errb, regexp.MustCompile(`agui tap: POST /none: 204 No Content, an event stream's headers without a body: passed on unchecked\n`))
	post(t, tr.addr, "/", "{}")
	waitFor(t, tr.out, regexp.MustCompile(`agui tap: run 1: ACCEPTED, 5 events`))
	if code := tr.stop(nil); code != exitAccepted || strings.Contains(tr.out.String(), "HEAD") || strings.Contains(tr.out.String(), "held no event") {
		t.Errorf("exit %d; stdout:\n%s", code, tr.out)
	}
}
