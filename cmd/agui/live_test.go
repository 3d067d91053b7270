package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractkit/contractkit/agui"
	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/internal/syncbuf"
)

// sseAgent serves body as an event stream to every POST, written in pieces
// of the given sizes in turn (flushed one by one), and keeps the last
// request body it got.
type sseAgent struct {
	body   []byte
	pieces []int
	got    chan []byte
}

func (a *sseAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req := new(bytes.Buffer)
	req.ReadFrom(r.Body)
	select {
	case a.got <- req.Bytes():
	default:
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	for b, k := a.body, 0; len(b) > 0; k++ {
		n := min(len(b), a.pieces[k%len(a.pieces)])
		w.Write(b[:n])
		f.Flush()
		b = b[n:]
	}
}

// encodings write a record's events as an event stream in several of the
// ways the standard allows.
var encodings = []struct {
	name  string
	write func(b *bytes.Buffer, events [][]byte)
}{
	{"plain", func(b *bytes.Buffer, events [][]byte) {
		for _, e := range events {
			fmt.Fprintf(b, "data: %s\n\n", e)
		}
	}},
	{"BOM, CRLF, comments and event fields", func(b *bytes.Buffer, events [][]byte) {
		b.WriteString("\uFEFF: a comment\r\n\r\n")
		for _, e := range events {
			fmt.Fprintf(b, "event: agui\r\nid: 1\r\ndata:%s\r\n\r\n", e)
		}
	}},
	{"CR, multi-line data", func(b *bytes.Buffer, events [][]byte) {
		for _, e := range events {
			var pretty bytes.Buffer
			if json.Indent(&pretty, e, "", " ") != nil {
				pretty.Reset()
				pretty.Write(e)
			}
			for line := range strings.SplitSeq(pretty.String(), "\n") {
				fmt.Fprintf(b, "data: %s\r", line)
			}
			b.WriteString("\r")
		}
	}},
}

// recordEvents splits an NDJSON record into its events' texts.
func recordEvents(data []byte) [][]byte {
	var out [][]byte
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			out = append(out, line)
		}
	}
	return out
}

// withoutSource drops the source member of a JSON report, the one member
// in which the live report and the saved record's report differ.
func withoutSource(t *testing.T, report string) map[string]any {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(report))
	dec.UseNumber() // the report may show numbers beyond float64, as data
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, report)
	}
	delete(m, "source")
	return m
}

// Checking a live stream gives the verdict and the JSON report of checking
// the record it saves, whatever the encoding and wherever the stream is
// cut into pieces, inside multibyte characters too; for the plain
// encoding the saved record is the record the agent streamed.
func TestLiveCheckMatchesFile(t *testing.T) {
	records := map[string]string{
		"accepted": good,
		"multibyte": `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_START","messageId":"m"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"é€😀 ж"}
{"type":"TEXT_MESSAGE_END","messageId":"m"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
`,
		"rejected": `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"orphan"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
`,
		"cut": `{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"STEP_STARTED","stepName":"s"}
`,
	}
	dir := t.TempDir()
	for name, record := range records {
		for _, enc := range encodings {
			var stream bytes.Buffer
			enc.write(&stream, recordEvents([]byte(record)))
			for _, pieces := range [][]int{{1 << 20}, {1}, {2, 3}, {5, 7, 1}} {
				agent := &sseAgent{body: stream.Bytes(), pieces: pieces, got: make(chan []byte, 1)}
				srv := httptest.NewServer(agent)
				saved := filepath.Join(dir, "saved.ndjson")
				code, out, stderr := runAgui(t, "", "check", "--url", srv.URL, "--json", "--save", saved)
				srv.Close()
				what := fmt.Sprintf("%s, %s, pieces %v", name, enc.name, pieces)
				if code == exitUnusable {
					t.Fatalf("%s: exit 2: %s", what, stderr)
				}
				fcode, fout, _ := runAgui(t, "", "check", "--json", "--profile", contract.ProfileAgUI11, saved)
				if code != fcode || fmt.Sprint(withoutSource(t, out)) != fmt.Sprint(withoutSource(t, fout)) {
					t.Fatalf("%s: live exit %d, file exit %d\nlive: %s\nfile: %s", what, code, fcode, out, fout)
				}
				if enc.name == "plain" {
					savedBytes, _ := os.ReadFile(saved)
					if string(savedBytes) != record {
						t.Errorf("%s: saved record differs from the one streamed:\n%s", what, savedBytes)
					}
				}
				// What the live check found, it said as it found it.
				var rep struct{ Findings []struct{ Message string } }
				json.Unmarshal([]byte(out), &rep)
				for _, f := range rep.Findings {
					if !strings.Contains(stderr, f.Message) {
						t.Errorf("%s: finding %q not reported as found; stderr:\n%s", what, f.Message, stderr)
					}
				}
				if strings.Contains(stderr, "\r") {
					t.Errorf("%s: a progress line went to stderr that is not a terminal: %q", what, stderr)
				}
				// Lines ended with CR are read, and noted once beside the
				// verdict: the reference client fails on them.
				if cr := bytes.ContainsRune(stream.Bytes(), '\r'); strings.Count(stderr, crNote) != map[bool]int{false: 0, true: 1}[cr] {
					t.Errorf("%s: CR line ends %v, stderr:\n%s", what, cr, stderr)
				}
				req, ok := received(agent.got)
				if !ok {
					t.Errorf("%s: the agent got no run request", what)
				}
				var in map[string]any
				if err := json.Unmarshal(req, &in); err != nil || in["threadId"] == nil || in["runId"] == nil {
					t.Errorf("%s: the run request %s is not a RunAgentInput", what, req)
				}
			}
		}
	}
}

// received waits for what ch gives, or for it to be closed, for at most
// ten seconds: a command that never reached the agent fails the test
// rather than hanging it until go test's own timeout.
func received[T any](ch <-chan T) (T, bool) {
	select {
	case v := <-ch:
		return v, true
	case <-time.After(10 * time.Second):
		var zero T
		return zero, false
	}
}

// --input sends the given RunAgentInput, checked against the contract
// first; --header adds headers.
func TestLiveCheckInputAndHeaders(t *testing.T) {
	var gotAuth string
	got := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth = r.Header.Get("Authorization")
		var b bytes.Buffer
		b.ReadFrom(r.Body)
		got <- b.Bytes()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"type\":\"RUN_ERROR\",\"message\":\"no\"}\n\n")
	}))
	defer srv.Close()
	input := `{"threadId":"th","runId":"ru","messages":[{"id":"u1","role":"user","content":"hi"}]}`
	in := write(t, "run.json", input)
	code, _, stderr := runAgui(t, "", "check", "--url", srv.URL, "--input", in, "--header", "Authorization: Bearer x")
	if req, _ := received(got); code != exitAccepted || gotAuth != "Bearer x" || string(req) != input {
		t.Errorf("exit %d, auth %q, stderr %s", code, gotAuth, stderr)
	}
	bad := write(t, "bad.json", `{"threadId":"th","messages":[]}`)
	code, _, stderr = runAgui(t, "", "check", "--url", srv.URL, "--input", bad)
	if code != exitUnusable || !strings.Contains(stderr, bad+":/runId: ") {
		t.Errorf("bad input: exit %d, stderr %s", code, stderr)
	}
	// A fault of the whole document is shown at "/", not as an empty
	// pointer that leaves "file::" in the message.
	notObject := write(t, "list.json", `[]`)
	code, _, stderr = runAgui(t, "", "check", "--url", srv.URL, "--input", notObject)
	if code != exitUnusable || !strings.Contains(stderr, notObject+":/: ") {
		t.Errorf("input not an object: exit %d, stderr %s", code, stderr)
	}
	code, _, stderr = runAgui(t, "", "check", "--url", srv.URL, "--header", "no colon")
	if code != exitUnusable || !strings.Contains(stderr, "Name: value") {
		t.Errorf("bad header: exit %d, stderr %s", code, stderr)
	}
}

// Every connection problem exits 2 with one line that says what it was;
// the stand profile, which has no network transport, is refused.
//
//contract:proves ag-ui.unsupported.network
func TestLiveCheckConnectionProblems(t *testing.T) {
	answer := func(status int, ctype, body string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.WriteHeader(status)
			fmt.Fprint(w, body)
		}))
	}
	// A port nothing listens on: taken, then given back.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String()
	l.Close()

	notFound := answer(http.StatusNotFound, "text/plain", "no agent here "+strings.Repeat("x", 500))
	defer notFound.Close()
	html := answer(http.StatusOK, "text/html", "<html>")
	defer html.Close()
	proto := answer(http.StatusOK, "application/vnd.ag-ui.event+proto", "\x00")
	defer proto.Close()
	gz := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write([]byte{0x1f, 0x8b})
	}))
	defer gz.Close()
	empty := answer(http.StatusOK, "text/event-stream", ": only a comment\n\n")
	defer empty.Close()
	release := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
	}))
	defer silent.Close()
	defer close(release)
	tlsAgent := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer tlsAgent.Close()
	plain := answer(http.StatusOK, "text/event-stream", "")
	defer plain.Close()

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"refused", []string{"--url", refused}, "connection refused"},
		{"404", []string{"--url", notFound.URL}, `answered 404 Not Found: "no agent here xxx`},
		{"html", []string{"--url", html.URL}, `content type "text/html"`},
		{"protobuf", []string{"--url", proto.URL}, "protobuf encoding"},
		{"compressed", []string{"--url", gz.URL}, "compressed (Content-Encoding: gzip)"},
		{"no event", []string{"--url", empty.URL}, "holds no event"},
		{"idle", []string{"--url", silent.URL, "--idle-timeout", "300ms"}, "nothing arrived for 300ms (--idle-timeout)"},
		{"untrusted certificate", []string{"--url", tlsAgent.URL}, "TLS: the agent's certificate is not trusted"},
		{"https to a plain server", []string{"--url", strings.Replace(plain.URL, "http:", "https:", 1)}, "TLS: the agent did not answer in TLS"},
		{"not a URL", []string{"--url", "ftp://x"}, "not an http or https URL"},
		{"stand", []string{"--url", plain.URL, "--profile", contract.ProfileStand}, `"сетевой_транспорт"`},
		{"files too", []string{"--url", plain.URL, "run.ndjson"}, "separate agui check"},
	} {
		code, out, stderr := runAgui(t, "", append([]string{"check"}, tc.args...)...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if code != exitUnusable || !strings.Contains(stderr, tc.want) || len(lines) != 1 || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tc.name, code, out, stderr, tc.want)
		}
	}
	// The 404's body is shown only in its first bytes.
	if _, _, stderr := runAgui(t, "", "check", "--url", notFound.URL); len(stderr) > 400 {
		t.Errorf("the whole body of a failed answer was printed: %d bytes", len(stderr))
	}
}

// A password in the URL is never printed, in an error or in the report.
func TestLiveCheckHidesURLPassword(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"type\":\"RUN_ERROR\",\"message\":\"no\"}\n\n")
	}))
	withPassword := strings.Replace(srv.URL, "http://", "http://user:s3cret@", 1)
	code, out, stderr := runAgui(t, "", "check", "--url", withPassword, "--json")
	srv.Close()
	if code != exitAccepted || strings.Contains(out+stderr, "s3cret") || !strings.Contains(out, "user:xxxxx@") {
		t.Errorf("exit %d, stdout %s, stderr %s", code, out, stderr)
	}
	code, _, stderr = runAgui(t, "", "check", "--url", withPassword)
	if code != exitUnusable || strings.Contains(stderr, "s3cret") {
		t.Errorf("closed server: exit %d, stderr %s", code, stderr)
	}
}

// A redirect is not followed: a 301, 302 or 303 would re-send the run as a
// GET without its RunAgentInput, a 307 or 308 would check another agent
// than the one named. Each exits 2 with one line naming the status and
// the Location (its password hidden), and nothing reaches the target.
func TestLiveCheckRedirectNotFollowed(t *testing.T) {
	reached := make(chan string, 10)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- r.Method
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, good)
	}))
	defer target.Close()
	for _, status := range []int{301, 302, 303, 307, 308} {
		loc := strings.Replace(target.URL, "http://", "http://u:s3cret@", 1) + "/next"
		redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, loc, status)
		}))
		code, out, stderr := runAgui(t, "", "check", "--url", redirect.URL)
		redirect.Close()
		want := fmt.Sprintf("answered %d %s (Location: %s)", status, http.StatusText(status), strings.Replace(loc, "s3cret", "xxxxx", 1))
		if code != exitUnusable || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "s3cret") {
			t.Errorf("%d: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", status, code, out, stderr, want)
		}
	}
	select {
	case m := <-reached:
		t.Errorf("a redirect was followed: the target got a %s", m)
	default:
	}
}

// An event past the record's byte limit is checked as the record it is
// saved as: ag-ui.reader.input-bytes, exit 1, the same JSON report as the
// saved record gives; a comment line past the limit changes nothing. A
// run whose record is the limit exactly is accepted, one byte more is
// the limit's finding, live as from the file saved.
func TestLiveCheckPastTheByteLimit(t *testing.T) {
	big := `{"type":"CUSTOM","name":"n","value":"` + strings.Repeat("x", contract.LimitInputBytes) + `"}`
	start := `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`
	finish := `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
	// run is a whole run whose record is size bytes: JSON white space
	// fills its first event, so that no other limit is met.
	run := func(size int) string {
		pad := strings.Repeat(" ", size-len(start)-len(finish)-2)
		return "data: " + strings.TrimSuffix(start, "}") + pad + "}\n\ndata: " + finish + "\n\n"
	}
	for _, tc := range []struct {
		name, stream string
		code         int
		limit        bool // the report is the limit's finding
		size         int  // the saved record's size, when it is checked
	}{
		{"a large event", "data: " + start + "\n\ndata: " + big + "\n\n", exitRejected, true, 0},
		{"a large comment", ": " + big + "\n\n" + "data: " + start + "\n\n", exitRejected, false, 0},
		{"a large comment, then a whole run", ": " + big + "\n\n" + "data: " + start + "\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n", exitAccepted, false, 0},
		{"a run whose record is the limit", run(contract.LimitInputBytes), exitAccepted, false, contract.LimitInputBytes},
		{"a run whose record is one byte past the limit", run(contract.LimitInputBytes + 1), exitRejected, true, contract.LimitInputBytes + 1},
	} {
		agent := &sseAgent{body: []byte(tc.stream), pieces: []int{1000, 7}, got: make(chan []byte, 1)}
		srv := httptest.NewServer(agent)
		saved := filepath.Join(t.TempDir(), "saved.ndjson")
		code, out, stderr := runAgui(t, "", "check", "--url", srv.URL, "--json", "--save", saved)
		srv.Close()
		fcode, fout, _ := runAgui(t, "", "check", "--json", "--profile", contract.ProfileAgUI11, saved)
		if code != tc.code || code != fcode || fmt.Sprint(withoutSource(t, out)) != fmt.Sprint(withoutSource(t, fout)) {
			t.Errorf("%s: live exit %d (stderr %q), file exit %d, want %d\nlive: %.300s\nfile: %.300s", tc.name, code, stderr, fcode, tc.code, out, fout)
		}
		if tc.limit != strings.Contains(out, contract.RuleReaderInputBytes) {
			t.Errorf("%s: the limit's finding %v: %.300s", tc.name, tc.limit, out)
		}
		if st, err := os.Stat(saved); tc.size != 0 && (err != nil || st.Size() != int64(tc.size)) {
			t.Errorf("%s: the saved record: %v, want %d bytes", tc.name, err, tc.size)
		}
	}
}

// A stream the agent cuts is a cut record: REJECTED (exit 1), its record
// saved and judged the same by agui check, with one line that says the
// stream broke; a stream left open after its run ended is judged once
// --idle-timeout passes; one silent in the middle of its run is not judged
// (exit 2, nothing saved).
func TestLiveCheckStreamEnds(t *testing.T) {
	start := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"
	finish := "data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"
	release := make(chan struct{})
	defer close(release)
	serve := func(body string, how string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, body)
			w.(http.Flusher).Flush()
			if how == "cut" {
				conn, _, _ := http.NewResponseController(w).Hijack()
				conn.Close()
				return
			}
			select {
			case <-release:
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}))
	}
	for _, tc := range []struct {
		name, body, how string
		code            int
		line            string
	}{
		{"cut mid-run", start, "cut", exitRejected, "the agent's stream broke after 1 events (50 bytes): "},
		{"cut after the run", start + finish, "cut", exitAccepted, "the agent's stream broke after 2 events (101 bytes): "},
		{"open after the run", start + finish, "open", exitAccepted, "after 2 events (101 bytes) the agent kept the stream open with nothing more for 300ms (--idle-timeout)"},
		{"open after a finding", start + "data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n", "open", exitRejected, "after 2 events (94 bytes) the agent kept the stream open with nothing more for 300ms (--idle-timeout)"},
		{"silent mid-run", start, "open", exitUnusable, "the stream stopped after 1 events (50 bytes), its run unfinished: nothing arrived for 300ms (--idle-timeout)"},
		{"cut before an event", ": thinking\n\n", "cut", exitUnusable, "the agent's stream broke after 0 events (0 bytes): "},
	} {
		srv := serve(tc.body, tc.how)
		saved := filepath.Join(t.TempDir(), "saved.ndjson")
		code, out, stderr := runAgui(t, "", "check", "--url", srv.URL, "--json", "--idle-timeout", "300ms", "--save", saved)
		srv.Close()
		if code != tc.code || !strings.Contains(stderr, tc.line) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tc.name, code, stderr, tc.code, tc.line)
			continue
		}
		if tc.code == exitUnusable {
			if _, err := os.Stat(saved); err == nil || out != "" || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "verdict") {
				t.Errorf("%s: a record was saved, a report printed, or more than one line said: %s\nstderr: %s", tc.name, out, stderr)
			}
			continue
		}
		if !regexp.MustCompile(`(?m)^agui check: http://\S+: ` + regexp.QuoteMeta(tc.line) + `.*; the verdict is that of what arrived$`).MatchString(stderr) {
			t.Errorf("%s: stderr %q does not say the verdict is that of what arrived", tc.name, stderr)
		}
		fcode, fout, _ := runAgui(t, "", "check", "--json", "--profile", contract.ProfileAgUI11, saved)
		if fcode != code || fmt.Sprint(withoutSource(t, out)) != fmt.Sprint(withoutSource(t, fout)) {
			t.Errorf("%s: live exit %d, file exit %d\nlive: %s\nfile: %s", tc.name, code, fcode, out, fout)
		}
	}
}

// --header replaces agui's own header of the same name (one Content-Type,
// one Accept); repeated, a name gets each value; Host is sent as the
// request's host; a name or value HTTP does not allow, or a header agui
// sets from the request itself, is refused at the flag with one line.
func TestLiveCheckHeaders(t *testing.T) {
	got := make(chan *http.Request, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"type\":\"RUN_ERROR\",\"message\":\"no\"}\n\n")
	}))
	defer srv.Close()
	// arrived is the request the agent got; none ends the test, not hangs it.
	arrived := func() *http.Request {
		select {
		case r := <-got:
			return r
		case <-time.After(10 * time.Second):
			t.Fatal("no request reached the agent")
			return nil
		}
	}
	code, _, stderr := runAgui(t, "", "check", "--url", srv.URL,
		"--header", "Content-Type: application/json; charset=utf-8", "--header", "accept: text/event-stream, */*",
		"--header", "X-A: 1", "--header", "X-A: 2", "--header", "Host: agent.example")
	r := arrived()
	if code != exitAccepted || fmt.Sprint(r.Header["Content-Type"]) != "[application/json; charset=utf-8]" ||
		fmt.Sprint(r.Header["Accept"]) != "[text/event-stream, */*]" || fmt.Sprint(r.Header["X-A"]) != "[1 2]" || r.Host != "agent.example" {
		t.Errorf("exit %d (%s): headers %v, host %q", code, stderr, r.Header, r.Host)
	}
	for _, h := range []string{"X(A): b", "X A: b", "Ж: b", "X: a\rb", "X: a\nb", "X: a\x00b", "X: a\x1fb", "X: a\x7fb", "Content-Length: 5", "transfer-encoding: chunked", "Connection: close", "Upgrade: h2c", "TE: trailers", "Trailer: X-A", "Keep-Alive: timeout=5"} {
		code, out, stderr := runAgui(t, "", "check", "--url", srv.URL, "--header", h)
		if code != exitUnusable || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--header") && !strings.Contains(stderr, "-header") {
			t.Errorf("%q: exit %d, stderr %q", h, code, stderr)
		}
		select {
		case <-got:
			t.Errorf("%q: the request was sent", h)
		default:
		}
	}
	// The character refused is named whole, not as its first byte.
	if _, _, stderr := runAgui(t, "", "check", "--url", srv.URL, "--header", "Xé: b"); !strings.Contains(stderr, `its name may not hold "é"`) {
		t.Errorf("Xé: stderr %q", stderr)
	}
	// A tab inside a value is allowed, and so are the printable
	// characters next to the control ones refused (space and ~).
	code, _, stderr = runAgui(t, "", "check", "--url", srv.URL, "--header", "X-T: a\tb", "--header", "X-U: a b~")
	if code != exitAccepted {
		t.Fatalf("a tab, a space and ~ in a value: exit %d, %s", code, stderr)
	}
	if r := arrived(); r.Header.Get("X-T") != "a\tb" || r.Header.Get("X-U") != "a b~" {
		t.Errorf("a tab, a space and ~ in a value: exit %d, %s", code, stderr)
	}
}

// --idle-timeout without a unit, or not a duration, is refused with one
// line that says how to write it.
func TestLiveCheckIdleTimeoutFlag(t *testing.T) {
	for v, want := range map[string]string{
		"5":   `"5" has no unit: write it as 5s, 5m or 5h`,
		"1.5": `"1.5" has no unit`,
		"5x":  `"5x" is not a duration: write it as 30s, 5m or 1h30m`,
		"0":   "--idle-timeout must be positive",
		"-1s": "--idle-timeout must be positive",
	} {
		code, out, stderr := runAgui(t, "", "check", "--url", "http://127.0.0.1:1/", "--idle-timeout", v)
		if code != exitUnusable || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
			t.Errorf("--idle-timeout %s: exit %d, stderr %q; want %q", v, code, stderr, want)
		}
	}
}

// A stream with an event whose data is white space exits 2 with one line
// that says why agui cannot judge it, and saves nothing; the tap passes it
// on unchanged and says the same.
func TestLiveCheckBlankEvent(t *testing.T) {
	stream := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: \n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"
	agent := &sseAgent{body: []byte(stream), pieces: []int{5}, got: make(chan []byte, 1)}
	srv := httptest.NewServer(agent)
	defer srv.Close()
	saved := filepath.Join(t.TempDir(), "saved.ndjson")
	code, out, stderr := runAgui(t, "", "check", "--url", srv.URL, "--save", saved)
	if _, err := os.Stat(saved); code != exitUnusable || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "after 1 events, an event whose data is empty or white space") || err == nil {
		t.Errorf("exit %d, stdout %q, stderr %q, saved: %v", code, out, stderr, err)
	}
	addr, tout, stop := startTap(t, srv.URL, t.TempDir())
	defer stop()
	if got := post(t, addr, "/", "{}"); string(got) != stream {
		t.Errorf("the tap changed the stream: %q", got)
	}
	waitFor(t, tout, regexp.MustCompile(`run 1: not checked to its end: after 1 events, an event whose data is empty or white space`))
}

// An agent that closes the connection before it answers is a connection
// problem that says so, not "cannot reach the agent: EOF".
func TestLiveCheckClosedBeforeAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, _ := http.NewResponseController(w).Hijack()
		conn.Close()
	}))
	defer srv.Close()
	code, out, stderr := runAgui(t, "", "check", "--url", srv.URL)
	if code != exitUnusable || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "the agent closed the connection before it answered") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// A line check --url prints while its progress line is shown takes the
// progress line's place, even when the progress line is drawn again from
// the other goroutine at that moment (findings are printed on the
// checking goroutine, a lost record's line on the reading one): the line
// never runs on from a progress line.
func TestProgressLineGivesWay(t *testing.T) {
	stream, err := agui.NewStream(agui.Options{Profile: contract.ProfileAgUI11})
	if err != nil {
		t.Fatal(err)
	}
	w := &lineHookWriter{}
	p := &progress{w: w, on: true}
	p.show(stream)
	drawn := make(chan struct{})
	w.before = func() {
		// The progress line is due again, and drawn from another
		// goroutine as the line is being written.
		p.last = time.Time{}
		go func() { p.show(stream); close(drawn) }()
		select {
		case <-drawn:
		case <-time.After(200 * time.Millisecond):
		}
	}
	p.say("agui check: live: %s\n", "a finding")
	if _, ok := received(drawn); !ok {
		t.Fatal("the progress line drawn from another goroutine never returned")
	}
	if out := w.String(); !strings.Contains(out, "\r\033[Kagui check: live: a finding\n") {
		t.Errorf("the line ran on from a progress line: %q", out)
	}
}

// lineHookWriter records what is written; before it records the first
// write that is not the progress line's, it calls before.
type lineHookWriter struct {
	syncbuf.Buffer
	mu     sync.Mutex
	before func()
}

func (w *lineHookWriter) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(p, []byte("\r\033[K")) {
		w.mu.Lock()
		hook := w.before
		w.before = nil
		w.mu.Unlock()
		if hook != nil {
			hook()
		}
	}
	return w.Buffer.Write(p)
}
