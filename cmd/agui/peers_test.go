package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/contractkit/contractkit/internal/repotest"
)

// The real peers of the live check: an agent served by Node's http module
// that encodes with the official SDK's EventEncoder (@ag-ui/encoder), and
// the SDK's HttpAgent (@ag-ui/client) as the frontend. Both are pinned in
// agui/testdata/node and installed by make agui-node.

// nodeDir returns the folder of the pinned Node packages, or skips.
func nodeDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(repotest.Root(t), "agui", "testdata", "node")
	if _, err := exec.LookPath("node"); err != nil {
		repotest.MissingPart(t, "node is not on PATH: the Node peers of the live check cannot run")
	}
	for _, pkg := range []string{"encoder", "client"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@ag-ui", pkg, "package.json")); err != nil {
			repotest.MissingPart(t, "@ag-ui/%s is not installed in %s: run make agui-node", pkg, dir)
		}
	}
	return dir
}

// conformanceDir returns the AG-UI conformance streams, or skips.
func conformanceDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(repotest.Root(t), "..", "shared", "corpus", "ag-ui", "spec", "1.1", "conformance", "streams")
	if _, err := os.Stat(dir); err != nil {
		repotest.MissingPart(t, "the AG-UI conformance streams are not at %s (../shared is absent)", dir)
	}
	return dir
}

// startNodeAgent starts agent.mjs serving the records in dir and returns
// its base URL. It stops when the test ends.
func startNodeAgent(t *testing.T, node, dir string) string {
	t.Helper()
	cmd := exec.Command("node", "agent.mjs", dir)
	cmd.Dir = node
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close() // the agent ends when its input closes
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	var hello struct{ Port int }
	if err != nil || json.Unmarshal([]byte(line), &hello) != nil || hello.Port == 0 {
		t.Fatalf("the Node agent did not start: %q %v", line, err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", hello.Port)
}

// liveAndFile checks the agent's stream at url live (saving it), the saved
// record, and the given record file, and returns the three exit codes and
// whether the live and saved-record JSON reports agree.
func liveAndFile(t *testing.T, url, record string) (live, saved, file int, same bool, liveOut, savedOut string) {
	t.Helper()
	savedFile := filepath.Join(t.TempDir(), "saved.ndjson")
	live, liveOut, stderr := runAgui(t, "", "check", "--url", url, "--json", "--save", savedFile)
	if live == exitUnusable {
		t.Fatalf("%s: exit 2: %s", url, stderr)
	}
	saved, savedOut, _ = runAgui(t, "", "check", "--json", "--profile", "ag-ui-1.1", savedFile)
	file, _, _ = runAgui(t, "", "check", "--json", "--profile", "ag-ui-1.1", record)
	same = fmt.Sprint(withoutSource(t, liveOut)) == fmt.Sprint(withoutSource(t, savedOut))
	return
}

// The conformance streams, encoded by EventEncoder and served by Node in
// pieces that split multibyte characters, get the verdict live that their
// files get; and the hostile records, sent as written, too.
func TestNodeAgentLiveVerdicts(t *testing.T) {
	node := nodeDir(t)
	streams := conformanceDir(t)
	dir := t.TempDir()
	fixtures, _ := filepath.Glob(filepath.Join(streams, "*.json"))
	if len(fixtures) == 0 {
		t.Fatalf("no conformance streams in %s", streams)
	}
	records := map[string]string{} // name served -> record file with the same events
	for _, f := range fixtures {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fx struct{ Stream []json.RawMessage }
		if err := json.Unmarshal(data, &fx); err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
		stream, _ := json.Marshal(fx.Stream)
		rec := filepath.Join(dir, "record-"+name)
		os.WriteFile(rec, stream, 0o644)
		records["encoder/"+name] = rec
	}
	hostile, _ := filepath.Glob(filepath.Join(repotest.Root(t), "agui", "testdata", "diff", "*.ndjson"))
	for _, f := range hostile {
		data, _ := os.ReadFile(f)
		name := filepath.Base(f)
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
		records["raw/"+name] = f
	}
	base := startNodeAgent(t, node, dir)
	agree := 0
	for path, rec := range records {
		live, saved, file, same, liveOut, savedOut := liveAndFile(t, base+"/"+path, rec)
		if !same || live != saved {
			t.Errorf("%s: live exit %d, saved record exit %d; reports differ: %v\nlive:  %s\nsaved: %s", path, live, saved, !same, liveOut, savedOut)
		}
		if live != file {
			t.Errorf("%s: live exit %d, file exit %d\nlive: %s", path, live, file, liveOut)
			continue
		}
		agree++
	}
	t.Logf("%d streams from the Node agent (%d conformance streams encoded by EventEncoder, %d hostile records as written): %d live verdicts equal the file verdicts",
		len(records), len(fixtures), len(hostile), agree)
}

// @ag-ui/client's HttpAgent runs a run through agui tap against the Node
// agent: it completes, and the bytes it receives are the agent's bytes.
func TestHttpAgentThroughTap(t *testing.T) {
	node := nodeDir(t)
	streams := conformanceDir(t)
	dir := t.TempDir()
	for _, name := range []string{"conformant-run-is-quiet.json", "chunk-expansion-assembles.json", "reasoning-span-and-message.json"} {
		data, err := os.ReadFile(filepath.Join(streams, name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	base := startNodeAgent(t, node, dir)
	tapAddr, out, stop := startTap(t, base, t.TempDir())
	defer stop()
	for k, name := range []string{"conformant-run-is-quiet.json", "chunk-expansion-assembles.json", "reasoning-span-and-message.json"} {
		// The agent's bytes, asked for directly.
		resp, err := http.Post(base+"/encoder/"+name, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		direct, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		sum := sha256.Sum256(direct)

		cmd := exec.Command("node", "client.mjs", "http://"+tapAddr+"/encoder/"+name)
		cmd.Dir = node
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := runBounded(cmd, 60*time.Second); err != nil {
			t.Fatalf("%s: node client.mjs: %v\n%s", name, err, stderr.String())
		}
		var got struct {
			Outcome, Error, ReadError, Sha256 string
			Length                            int
		}
		if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
			t.Fatalf("%s: client output %q: %v", name, stdout.String(), err)
		}
		if got.Outcome != "completed" || got.Length != len(direct) || got.Sha256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: HttpAgent %+v; the agent sends %d bytes, sha256 %x", name, got, len(direct), sum)
		}
		m := waitFor(t, out, regexp.MustCompile(fmt.Sprintf(`run %d: (ACCEPTED|REJECTED), \d+ events, \d+ warnings; record (\S+)`, k+1)))
		if m[1] != "ACCEPTED" {
			t.Errorf("%s: the tap's verdict: %s\n%s", name, m[0], out.String())
		}
	}
}

// runBounded runs cmd, killing it after d.
func runBounded(cmd *exec.Cmd, d time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return fmt.Errorf("still running after %s", d)
	}
}

// The note agui gives a stream whose lines end with CR or CRLF (crNote)
// holds for the pinned client: @ag-ui/client's HttpAgent completes the run
// sent with LF line ends, and fails the same run sent with CRLF or CR,
// which agui reads. Should a new version read them, this test says the
// note is out of date.
func TestCRLineEndsFailHttpAgent(t *testing.T) {
	node := nodeDir(t)
	// The note names the client it was tried with: the one installed.
	var client struct{ Version string }
	if data, err := os.ReadFile(filepath.Join(node, "node_modules", "@ag-ui", "client", "package.json")); err != nil || json.Unmarshal(data, &client) != nil || client.Version == "" {
		t.Fatalf("the installed @ag-ui/client has no version: %v", err)
	}
	if !strings.Contains(crNote, "@ag-ui/client "+client.Version+" ") {
		t.Errorf("the note names another client than the installed @ag-ui/client %s: %q", client.Version, crNote)
	}
	events := recordEvents([]byte(good))
	for _, tc := range []struct {
		end  string
		want string
	}{{"\n", "completed"}, {"\r\n", "failed"}, {"\r", "failed"}} {
		var stream bytes.Buffer
		for _, e := range events {
			stream.WriteString("data: " + string(e) + tc.end + tc.end)
		}
		agent := httptest.NewServer(&sseAgent{body: stream.Bytes(), pieces: []int{1 << 20}})
		cmd := exec.Command("node", "client.mjs", agent.URL)
		cmd.Dir = node
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := runBounded(cmd, 60*time.Second)
		agent.Close()
		if err != nil {
			t.Fatalf("line end %q: node client.mjs: %v\n%s", tc.end, err, stderr.String())
		}
		var got struct{ Outcome, Error string }
		if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || got.Outcome != tc.want {
			t.Errorf("line end %q: HttpAgent %+v (%v); want the run %s", tc.end, got, err, tc.want)
		}
	}
}

// An event whose event field names a type other than message is an event
// to @ag-ui/client's HttpAgent, as to agui: the client reads the data of
// every event and ignores the field (an EventSource would give such an
// event to its listeners of that type, not to onmessage, but HttpAgent is
// no EventSource). So agui checks it; the help and the how-to say so.
// The client and agui agree on each stream: a run whose events all carry
// other types completes, its message applied, and agui accepts all its
// events; one such event that breaks the sequence, or is not JSON, fails
// the run in the client and is a finding of agui.
func TestEventTypesReachHttpAgent(t *testing.T) {
	node := nodeDir(t)
	events := recordEvents([]byte(good))
	types := []string{"ping", "update", "error", "message", "RUN_FINISHED"}
	for _, tc := range []struct {
		name    string
		replace [2]string // in the stream: old, new
		outcome string    // HttpAgent's
		rule    string    // agui's one finding; "" accepted
	}{
		{"every event typed", [2]string{}, "completed", ""},
		{"content for no message", [2]string{`"messageId":"m","delta"`, `"messageId":"nobody","delta"`}, "failed", "ag-ui.sequence.text-message"},
		{"data that is not JSON", [2]string{`{"type":"TEXT_MESSAGE_END","messageId":"m"}`, `{"type":"TEXT_MESSAGE_END",}`}, "failed", "ag-ui.reader.json"},
	} {
		var stream bytes.Buffer
		for i, e := range events {
			fmt.Fprintf(&stream, "event: %s\ndata: %s\n\n", types[i%len(types)], e)
		}
		body := stream.Bytes()
		if tc.replace[0] != "" {
			if !bytes.Contains(body, []byte(tc.replace[0])) {
				t.Fatalf("%s: %q is not in the stream", tc.name, tc.replace[0])
			}
			body = bytes.Replace(body, []byte(tc.replace[0]), []byte(tc.replace[1]), 1)
		}
		agent := httptest.NewServer(&sseAgent{body: body, pieces: []int{1 << 20}})
		cmd := exec.Command("node", "client.mjs", agent.URL)
		cmd.Dir = node
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := runBounded(cmd, 60*time.Second)
		code, out, errs := runAgui(t, "", "check", "--url", agent.URL, "--json")
		agent.Close()
		if err != nil {
			t.Fatalf("%s: node client.mjs: %v\n%s", tc.name, err, stderr.String())
		}
		var got struct {
			Outcome, Error string
			Messages       int
		}
		if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || got.Outcome != tc.outcome || (tc.outcome == "completed" && got.Messages != 1) {
			t.Errorf("%s: HttpAgent %+v (%v); want the run %s", tc.name, got, err, tc.outcome)
		}
		var rep struct {
			Accepted bool
			Events   int
			Findings []struct{ Rule string }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s: agui check exit %d: %v\n%s%s", tc.name, code, err, out, errs)
		}
		if tc.rule == "" {
			if code != exitAccepted || !rep.Accepted || rep.Events != len(events) {
				t.Errorf("%s: agui exit %d, %+v; want all %d events accepted", tc.name, code, rep, len(events))
			}
		} else if code != exitRejected || rep.Accepted || len(rep.Findings) != 1 || rep.Findings[0].Rule != tc.rule {
			t.Errorf("%s: agui exit %d, %+v; want %s", tc.name, code, rep, tc.rule)
		}
	}
}
