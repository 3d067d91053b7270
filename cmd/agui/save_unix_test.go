//go:build unix

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/contractkit/contractkit/internal/atomicfile"
	"github.com/contractkit/contractkit/internal/repotest"
	"github.com/contractkit/contractkit/internal/syncbuf"
)

// countingAgent streams good to every POST and counts the requests.
func countingAgent(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range recordEvents([]byte(good)) {
			fmt.Fprintf(w, "data: %s\n\n", e)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// --save takes a regular file or a free name, nothing else: a device, a
// named pipe, a socket, a folder or a link is refused with one line and
// exit 2 before the run is asked for, and is left as it was; so is a
// read-only file, which someone means to keep.
func TestSaveRefusesWhatIsNotARegularFile(t *testing.T) {
	agent, asked := countingAgent(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	folder := filepath.Join(dir, "folder")
	os.Mkdir(folder, 0o755)
	link := filepath.Join(dir, "link")
	os.WriteFile(filepath.Join(dir, "target"), []byte("t"), 0o644)
	os.Symlink("target", link)
	readOnly := filepath.Join(dir, "kept.ndjson")
	os.WriteFile(readOnly, []byte("kept\n"), 0o444)
	cases := []struct{ path, want string }{
		{readOnly, "is read-only; agui does not replace it"},
		{fifo, "is a named pipe (FIFO), not a regular file"},
		{sock, "is a socket, not a regular file"},
		{folder, "is a directory"},
		{link, "is a symbolic link"},
	}
	if os.Geteuid() == 0 {
		// Root may make a device: one as /dev/null is, here.
		null := filepath.Join(dir, "null")
		if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ path, want string }{null, "is a character device, not a regular file"})
	} else {
		t.Log("not root: no character device made (the pipe and the socket are the other kinds)")
	}
	for _, tc := range cases {
		before, _ := os.Lstat(tc.path)
		code, out, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", tc.path)
		if code != exitUnusable || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "agui check: --save: "+tc.path+" "+tc.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line saying it %s", tc.path, code, out, stderr, tc.want)
		}
		if after, err := os.Lstat(tc.path); err != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) || after.Size() != before.Size() {
			t.Errorf("%s was changed: %v, %v", tc.path, after.Mode(), err)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the agent was asked %d times", n)
	}
	if left := temporaries(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// The neighbours: a free name and a regular file take the record.
	for _, path := range []string{filepath.Join(dir, "new.ndjson"), filepath.Join(dir, "target")} {
		if code, _, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", path); code != exitAccepted {
			t.Errorf("%s: exit %d: %s", path, code, stderr)
		}
		if got, _ := os.ReadFile(path); string(got) != good {
			t.Errorf("%s holds %q", path, got)
		}
	}
}

// umask returns the process's umask.
func umask() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
}

// --save replaces a regular file, keeping its permissions; a new record
// is made as any new file is (0666 less the umask). A file changed while
// the run was recorded is left as it was, and so is one made meanwhile
// under a name that was free: the run's verdict is printed all the same,
// one line says the record was not kept, and the exit status is 2.
func TestSaveReplacesOnlyTheFileItFound(t *testing.T) {
	dir := t.TempDir()
	var during func()
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i, e := range recordEvents([]byte(good)) {
			if i == 2 && during != nil {
				during()
			}
			fmt.Fprintf(w, "data: %s\n\n", e)
			w.(http.Flusher).Flush()
		}
	}))
	defer agent.Close()
	save := func(path string) (int, string, string) {
		return runAgui(t, "", "check", "--url", agent.URL, "--save", path)
	}
	for _, mode := range []fs.FileMode{0o600, 0o640, 0o604, 0o777} {
		path := filepath.Join(dir, fmt.Sprintf("kept-%o.ndjson", mode))
		os.WriteFile(path, []byte("old\n"), 0)
		os.Chmod(path, mode)
		if code, _, stderr := save(path); code != exitAccepted {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		st, _ := os.Stat(path)
		if got, _ := os.ReadFile(path); string(got) != good || st.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v; holds %q", path, st.Mode().Perm(), mode, got)
		}
	}
	fresh := filepath.Join(dir, "fresh.ndjson")
	if code, _, stderr := save(fresh); code != exitAccepted {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o666&^umask() {
		t.Errorf("a new record has mode %v, want %v", st.Mode().Perm(), 0o666&^umask())
	}

	changed := filepath.Join(dir, "changed.ndjson")
	os.WriteFile(changed, []byte("old\n"), 0o644)
	during = func() { os.WriteFile(changed, []byte("another program's\n"), 0o644) }
	code, out, stderr := save(changed)
	if code != exitUnusable || !strings.Contains(out, "Verdict: ACCEPTED") || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, changed+" changed while the run was recorded; it is left as it is") {
		t.Errorf("changed meanwhile: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if got, _ := os.ReadFile(changed); string(got) != "another program's\n" {
		t.Errorf("%s holds %q", changed, got)
	}
	made := filepath.Join(dir, "made.ndjson")
	during = func() { os.WriteFile(made, []byte("another program's\n"), 0o644) }
	code, out, stderr = save(made)
	if code != exitUnusable || !strings.Contains(out, "Verdict: ACCEPTED") || !strings.Contains(stderr, "agui does not replace it") {
		t.Errorf("made meanwhile: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if got, _ := os.ReadFile(made); string(got) != "another program's\n" {
		t.Errorf("%s holds %q", made, got)
	}
	if left := temporaries(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// unwritableFolder returns a folder no file can be made in, even by root
// (immutable, where chattr can make it so).
func unwritableFolder(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "locked")
	os.Mkdir(dir, 0o755)
	if os.Geteuid() != 0 {
		os.Chmod(dir, 0o555)
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return dir
	}
	if b, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		repotest.MissingPart(t, "as root, a folder is made unwritable with chattr +i (e2fsprogs), which failed here: %v %s", err, b)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
	return dir
}

// A folder the records cannot be written in is found at the start, named
// in one line, exit 2, before anything is sent: --dir of the tap, the
// folder of --save (unwritable, or missing).
func TestRecordFolderCheckedAtStart(t *testing.T) {
	agent, asked := countingAgent(t)
	locked := unwritableFolder(t)
	// A tap that starts is stopped at once: the test fails, and ends.
	ctx, started := context.WithCancel(context.Background())
	var outb, errb bytes.Buffer
	code := tapCommand([]string{"--upstream", agent.URL, "--listen", "127.0.0.1:0", "--dir", locked}, &outb, &errb, ctx, func(string) { started() })
	started()
	out, stderr := outb.String(), errb.String()
	if code != exitUnusable || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "agui tap: --dir "+locked+": the records could not be kept: cannot write a file in the folder "+locked+": ") || strings.Contains(stderr, recordTempPrefix) || out != "" {
		t.Errorf("tap: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	missing := filepath.Join(t.TempDir(), "nodir")
	for _, folder := range []string{locked, missing} {
		code, out, stderr = runAgui(t, "", "check", "--url", agent.URL, "--save", filepath.Join(folder, "run.ndjson"))
		if code != exitUnusable || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "agui check: --save: cannot write a file in the folder "+folder+": ") || strings.Contains(stderr, recordTempPrefix) || out != "" {
			t.Errorf("--save in %s: exit %d, stdout %q, stderr %q", folder, code, out, stderr)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the agent was asked %d times", n)
	}
}

// A run whose record cannot be written (the folder went away after the
// tap started) is checked all the same: its findings and verdict are
// printed, with one line that the record could not be kept.
func TestTapRunCheckedWithoutItsRecord(t *testing.T) {
	agent := echoAgent(t)
	dir := filepath.Join(t.TempDir(), "runs")
	tr := runTap(t, agent.URL, "--dir", dir)
	post(t, tr.addr, "/", "a")
	waitFor(t, tr.out, regexp.MustCompile(`run 1: ACCEPTED, 2 events, 0 warnings; record `))
	os.RemoveAll(dir)
	post(t, tr.addr, "/", "b")
	waitFor(t, tr.out, regexp.MustCompile(`run 2: ACCEPTED, 2 events, 0 warnings; no record\n`))
	lines := regexp.MustCompile(`(?m)^agui tap: run 2: .*$`).FindAllString(tr.out.String(), -1)
	want := []string{
		"agui tap: run 2: POST /",
		"agui tap: run 2: the record could not be kept: cannot write a file in the folder " + dir + ": no such file or directory",
		"agui tap: run 2: ACCEPTED, 2 events, 0 warnings; no record",
	}
	if len(lines) != len(want) {
		t.Fatalf("run 2's lines:\n%s", strings.Join(lines, "\n"))
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, want[i]) {
			t.Errorf("run 2's line %d: %q, want %q", i, l, want[i])
		}
	}
}

// slowAgent sends the first event of good at once and the rest only
// when released; started tells when the first event went.
func slowAgent(t *testing.T) (srv *httptest.Server, started <-chan struct{}) {
	return slowAgentFirst(t, "")
}

// slowAgentFirst is slowAgent sending first, when not empty, in place of
// good's first event.
func slowAgentFirst(t *testing.T, first string) (srv *httptest.Server, started <-chan struct{}) {
	srv, started, _ = holdingAgent(t, func(*http.Request) [][]byte {
		events := recordEvents([]byte(good))
		if first != "" {
			events[0] = []byte(first)
		}
		return events
	})
	return srv, started
}

// holdingAgent streams the events eventsFor gives for a request: the
// first at once, the rest once release is called (or the frontend goes,
// or 20 seconds pass). sent tells when a first event went.
func holdingAgent(t *testing.T, eventsFor func(*http.Request) [][]byte) (srv *httptest.Server, sent <-chan struct{}, release func()) {
	first := make(chan struct{}, 4)
	held := make(chan struct{})
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		events := eventsFor(r)
		fmt.Fprintf(w, "data: %s\n\n", events[0])
		w.(http.Flusher).Flush()
		first <- struct{}{}
		select {
		case <-held:
		case <-r.Context().Done():
			return
		case <-time.After(20 * time.Second):
		}
		for _, e := range events[1:] {
			fmt.Fprintf(w, "data: %s\n\n", e)
		}
	}))
	var once sync.Once
	release = func() { once.Do(func() { close(held) }) }
	t.Cleanup(func() { release(); srv.Close() })
	return srv, first, release
}

// aguiProcess starts the test binary as agui with args.
func aguiProcess(t *testing.T, args ...string) (*exec.Cmd, *syncbuf.Buffer, *syncbuf.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "AGUI_TEST_AS_COMMAND=1")
	var out, errb syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, &out, &errb
}

// tapProcess starts the test binary as agui tap in front of upstream,
// its records in dir, and returns it once it listens, with its address
// and its output.
func tapProcess(t *testing.T, upstream, dir string) (*exec.Cmd, string, *syncbuf.Buffer, *syncbuf.Buffer) {
	t.Helper()
	cmd, out, errb := aguiProcess(t, "tap", "--upstream", upstream, "--listen", "127.0.0.1:0", "--dir", dir)
	listening := regexp.MustCompile(`listening on http://(\S+),`)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := listening.FindStringSubmatch(out.String()); m != nil {
			return cmd, m[1], out, errb
		}
	}
	t.Fatalf("the tap did not start: %s", errb)
	return nil, "", nil, nil
}

// waitExit waits for a process to end and returns its exit code (-1 when
// a signal ended it).
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("agui did not end")
	}
	return 0
}

// Ctrl-C or SIGTERM during agui check --url cuts the run: the temporary
// record is removed, the file --save named is left exactly as it was, one
// line says what was cut, and the exit status is 2. SIGKILL, which no
// program can answer, leaves the file as it was too (the temporary file
// beside it is all that stays).
//
// The signal goes once the first event has been read and checked: its
// first event carries a member AG-UI does not describe, whose warning
// agui prints as it checks the event.
func TestCheckInterrupted(t *testing.T) {
	const first = `{"type":"RUN_STARTED","threadId":"t","runId":"r","probe":1}`
	warned := regexp.MustCompile(`^agui check: live: event 0 .*removed member "probe".*\n`)
	for _, tc := range []struct {
		sig  syscall.Signal
		save bool
		want string
	}{
		{syscall.SIGTERM, true, "interrupted by SIGTERM"},
		{syscall.SIGINT, true, "interrupted by SIGINT (Ctrl-C)"},
		{syscall.SIGTERM, false, "interrupted by SIGTERM"},
		{syscall.SIGKILL, true, ""},
	} {
		agent, started := slowAgentFirst(t, first)
		dir := t.TempDir()
		path := filepath.Join(dir, "run.ndjson")
		old := []byte("the record before\n")
		os.WriteFile(path, old, 0o600)
		os.Chmod(path, 0o600)
		args := []string{"check", "--url", agent.URL}
		if tc.save {
			args = append(args, "--save", path)
		}
		cmd, out, errb := aguiProcess(t, args...)
		select {
		case <-started:
		case <-time.After(20 * time.Second):
			t.Fatalf("%v: the run was never asked for: %s", tc.sig, errb)
		}
		what := fmt.Sprintf("%v, --save %v", tc.sig, tc.save)
		for deadline := time.Now().Add(20 * time.Second); !warned.MatchString(errb.String()); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the first event was never checked: %q", what, errb)
			}
		}
		cmd.Process.Signal(tc.sig)
		code := waitExit(t, cmd)
		if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
			t.Errorf("%s: %s holds %q", what, path, got)
		}
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %s has mode %v", what, path, st.Mode().Perm())
		}
		left := temporaries(t, dir)
		if tc.sig == syscall.SIGKILL {
			if code != -1 || len(left) > 1 {
				t.Errorf("%s: exit %d, left %v", what, code, left)
			}
			continue
		}
		wantLine := regexp.MustCompile(`^agui check: http://127\.0\.0\.1:\d+: ` + regexp.QuoteMeta(tc.want) + ` after 1 events \(\d+ bytes\): the run was cut`)
		cut := warned.ReplaceAllString(errb.String(), "")
		if code != exitUnusable || len(left) != 0 || out.String() != "" || strings.Count(cut, "\n") != 1 || !wantLine.MatchString(cut) {
			t.Errorf("%s: exit %d, left %v, stdout %q, stderr %q", what, code, left, out, errb)
		}
		if tc.save && !strings.HasSuffix(errb.String(), "; nothing was saved, "+path+" is as it was\n") {
			t.Errorf("%s: stderr %q", what, errb)
		}
	}
}

// SIGTERM to agui tap with a run in flight that does not end within the
// grace (the tap's own, 5 s): the tap says it waits, then the run is cut
// and not judged (the cut is the tap's), its record kept, no temporary
// file stays, and the tap exits 0.
func TestTapTerminated(t *testing.T) {
	agent, started := slowAgent(t)
	dir := t.TempDir()
	cmd, addr, out, errb := tapProcess(t, agent.URL, dir)
	resp := postRun(t, addr, "/", "{}")
	defer resp.Body.Close()
	waitSent(t, started)
	readFirstEvent(t, resp)
	cmd.Process.Signal(syscall.SIGTERM)
	if code := waitExit(t, cmd); code != exitAccepted {
		t.Errorf("exit %d; stderr %s", code, errb)
	}
	if !regexp.MustCompile(`\nagui tap: the tap was stopped by SIGTERM: waiting up to 5s for the run in flight to end; stop the tap again to cut it now\nagui tap: run 1: not judged: the tap was stopped by SIGTERM after 1 events, before the agent ended it, and nothing in them breaks a rule; the record of what arrived, a cut run, is \S+\nagui tap: the tap was stopped by SIGTERM\n$`).MatchString(out.String()) {
		t.Errorf("stdout:\n%s", out)
	}
	if left := temporaries(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A record that can no longer be written in the middle of a run (here the
// process may write no file larger than a few KiB: the write fails, as on
// a full disk) does not stop the run: one line says the record could not
// be kept, the run is checked to its end and its report printed, the file
// --save named is left as it was, no temporary file stays, and the exit
// status is 2.
func TestCheckRecordLostMidRun(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		repotest.MissingPart(t, "no sh to limit the file size with ulimit")
	}
	long := strings.Repeat("é", 100<<10)
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range recordEvents([]byte(strings.Replace(good, `"delta":"hi"`, `"delta":"`+long+`"`, 1))) {
			fmt.Fprintf(w, "data: %s\n\n", e)
		}
	}))
	defer agent.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ndjson")
	os.WriteFile(path, []byte("before\n"), 0o644)
	cmd := exec.Command("sh", "-c", `ulimit -f 16 && exec "$0" "$@"`, os.Args[0], "check", "--url", agent.URL, "--save", path)
	cmd.Env = append(os.Environ(), "AGUI_TEST_AS_COMMAND=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Run()
	code := cmd.ProcessState.ExitCode()
	want := regexp.MustCompile(`^agui check: --save ` + regexp.QuoteMeta(path) + `: the record could not be kept: writing ` + regexp.QuoteMeta(path) + `: file too large; the run is checked on without it\n$`)
	if code != exitUnusable || !want.MatchString(errb.String()) || !strings.Contains(out.String(), "Verdict: ACCEPTED") || !strings.Contains(out.String(), "Events:  5") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if got, _ := os.ReadFile(path); string(got) != "before\n" {
		t.Errorf("%s holds %d bytes", path, len(got))
	}
	if left := temporaries(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// SIGKILL to agui tap, which no program can answer, with one run saved
// and another in flight: the saved record is whole, the run in flight has
// no record under a final name, torn or not (its temporary file is all
// that stays).
func TestTapKilled(t *testing.T) {
	agent, started := slowAgent(t)
	whole := echoAgent(t)
	dir := t.TempDir()
	// One run saved by a first tap, then a tap killed mid-run in the same
	// folder.
	cmd, addr, _, _ := tapProcess(t, whole.URL, dir)
	post(t, addr, "/", "a")
	cmd.Process.Signal(syscall.SIGTERM)
	waitExit(t, cmd)
	saved, _ := filepath.Glob(filepath.Join(dir, "run-*.ndjson"))
	if len(saved) != 1 {
		t.Fatalf("records: %v", saved)
	}
	cmd, addr, _, _ = tapProcess(t, agent.URL, dir)
	resp := postRun(t, addr, "/", "{}")
	defer resp.Body.Close()
	waitSent(t, started)
	readFirstEvent(t, resp)
	cmd.Process.Kill()
	if code := waitExit(t, cmd); code != -1 {
		t.Errorf("exit %d", code)
	}
	after, _ := filepath.Glob(filepath.Join(dir, "run-*.ndjson"))
	if len(after) != 1 || after[0] != saved[0] {
		t.Errorf("records after the kill: %v", after)
	}
	if got, _ := os.ReadFile(saved[0]); string(got) != recordOf("a") {
		t.Errorf("the saved record holds %q", got)
	}
	if left := temporaries(t, dir); len(left) > 1 {
		t.Errorf("temporary files: %v", left)
	}
}

// readFirstEvent reads the first event of good from a frontend's stream:
// once the frontend has it, the tap has read and checked it.
func readFirstEvent(t *testing.T, resp *http.Response) {
	t.Helper()
	if _, err := io.ReadFull(resp.Body, make([]byte, len("data: \n\n")+len(recordEvents([]byte(good))[0]))); err != nil {
		t.Fatal(err)
	}
}

// Ctrl-C while agui check --url waits for the agent's answer: one line
// says the run was cut before it, the exit status is 2, the file --save
// named is as it was and no temporary file stays.
func TestCheckInterruptedBeforeTheAnswer(t *testing.T) {
	asked := make(chan struct{}, 1)
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body) // read to its end, the request's context ends when agui goes
		asked <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	}))
	defer agent.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ndjson")
	os.WriteFile(path, []byte("the record before\n"), 0o644)
	cmd, out, errb := aguiProcess(t, "check", "--url", agent.URL, "--save", path)
	select {
	case <-asked:
	case <-time.After(20 * time.Second):
		t.Fatalf("the run was never asked for: %s", errb)
	}
	cmd.Process.Signal(os.Interrupt)
	code := waitExit(t, cmd)
	want := regexp.MustCompile(`^agui check: http://127\.0\.0\.1:\d+: interrupted by SIGINT \(Ctrl-C\) before the agent answered; the run was not checked; nothing was saved, \S+/run\.ndjson is as it was\n$`)
	if code != exitUnusable || out.String() != "" || !want.MatchString(errb.String()) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errb)
	}
	if got, _ := os.ReadFile(path); string(got) != "the record before\n" || len(temporaries(t, dir)) != 0 {
		t.Errorf("%s holds %q, temporaries %v", path, got, temporaries(t, dir))
	}
}

// duringAgent streams good, calling during (when set) before its third
// event: what another program does to a file while the run is recorded.
func duringAgent(t *testing.T, during *func()) *httptest.Server {
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i, e := range recordEvents([]byte(good)) {
			if i == 2 && *during != nil {
				(*during)()
			}
			fmt.Fprintf(w, "data: %s\n\n", e)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(agent.Close)
	return agent
}

// The snapshot --save replaces against is the target's bytes, not only
// its metadata: a file rewritten during the run with other bytes of the
// same size, its time set back (os.Chtimes), is left as it is, as is one
// whose mode changed; one rewritten with its own bytes and time, or
// touched and set back, is still the snapshot and is replaced.
func TestSaveComparesTheTargetsBytes(t *testing.T) {
	dir := t.TempDir()
	var during func()
	agent := duringAgent(t, &during)
	old := []byte("the old record\n")
	for _, tc := range []struct {
		name    string
		change  func(path string)
		replace bool
	}{
		{"same size, time set back", func(path string) { os.WriteFile(path, []byte("THE OLD RECORD\n"), 0) }, false},
		{"mode changed", func(path string) { os.Chmod(path, 0o600) }, false},
		{"the same bytes again, time set back", func(path string) { os.WriteFile(path, old, 0) }, true},
		{"untouched", func(string) {}, true},
	} {
		path := filepath.Join(dir, "run.ndjson")
		os.Remove(path)
		os.WriteFile(path, old, 0o644)
		os.Chmod(path, 0o644)
		mtime := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		os.Chtimes(path, mtime, mtime)
		var after []byte
		during = func() {
			tc.change(path)
			os.Chtimes(path, mtime, mtime)
			after, _ = os.ReadFile(path)
		}
		code, out, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", path)
		got, _ := os.ReadFile(path)
		if tc.replace {
			if code != exitAccepted || stderr != "" || string(got) != good {
				t.Errorf("%s: exit %d, stderr %q; the file holds %q", tc.name, code, stderr, got)
			}
			continue
		}
		if code != exitUnusable || !strings.Contains(out, "Verdict: ACCEPTED") || stderr != "agui check: --save: the record could not be kept: "+path+" changed while the run was recorded; it is left as it is\n" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", tc.name, code, out, stderr)
		}
		if !bytes.Equal(got, after) {
			t.Errorf("%s: the file holds %q, want %q", tc.name, got, after)
		}
	}
	if left := temporaries(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// The bytes compared are bounded: a target of maxCompared bytes is
// replaced, one a byte larger is refused before the run is asked for,
// with one line that says why and what to do, and is left as it was.
func TestSaveComparedBytesLimit(t *testing.T) {
	agent, asked := countingAgent(t)
	defer func(was int64) { maxCompared = was }(maxCompared)
	maxCompared = 1000
	dir := t.TempDir()
	for _, size := range []int64{maxCompared, maxCompared + 1} {
		path := filepath.Join(dir, fmt.Sprintf("run-%d.ndjson", size))
		was := bytes.Repeat([]byte("x"), int(size))
		os.WriteFile(path, was, 0o644)
		n := asked.Load()
		code, _, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", path)
		got, _ := os.ReadFile(path)
		if size <= maxCompared {
			if code != exitAccepted || string(got) != good {
				t.Errorf("%d bytes: exit %d, stderr %q", size, code, stderr)
			}
			continue
		}
		want := fmt.Sprintf("agui check: --save: %s holds 1001 bytes, more than the 1000 agui compares before it replaces a file; save under another name, or move it away\n", path)
		if code != exitUnusable || stderr != want || !bytes.Equal(got, was) || asked.Load() != n {
			t.Errorf("%d bytes: exit %d, stderr %q, the agent asked %d times", size, code, stderr, asked.Load()-n)
		}
	}
}

// The read of a target's bytes is bounded too, as the file may grow
// after the look at its size: digest reads a file of maxCompared bytes
// (its SHA-256), and one grown a byte past it is no longer the snapshot,
// read no further than that byte.
func TestDigestBoundsTheBytesRead(t *testing.T) {
	defer func(was int64) { maxCompared = was }(maxCompared)
	maxCompared = 1000
	dir := t.TempDir()
	for _, size := range []int64{maxCompared, maxCompared + 1} {
		path := filepath.Join(dir, fmt.Sprintf("run-%d.ndjson", size))
		was := bytes.Repeat([]byte("x"), int(size))
		if err := os.WriteFile(path, was, 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := digest(path, st)
		if size <= maxCompared {
			if err != nil || sum != sha256.Sum256(was) {
				t.Errorf("%d bytes: %x, %v; want %x", size, sum, err, sha256.Sum256(was))
			}
			continue
		}
		if !errors.Is(err, errTargetChanged) {
			t.Errorf("%d bytes: %x, %v; want %v", size, sum, err, errTargetChanged)
		}
	}
}

// untrustedLink is the line's end for link, not followed because of why.
func untrustedLink(link, why string) string {
	return link + " is a symbolic link agui does not follow: " + why + " (a link on the way is followed only when it belongs to root or this user and no one else may change its folder; give the folder's own path)"
}

// linkedRecordFolders makes the folders the link tests put links beside:
// base, and in it real, holding sub/old.ndjson ("old").
func linkedRecordFolders(t *testing.T) (base, real string) {
	t.Helper()
	base = t.TempDir()
	real = filepath.Join(base, "real")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "sub", "old.ndjson"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return base, real
}

// A trusted symbolic link on the way to --save's file or to the tap's
// --dir (this user's, in this user's own folder; a chain of them; one in
// a sticky folder) is followed: the record lands where the links lead,
// and the tap's --dir may itself be such a link. The target itself as a
// link stays refused.
func TestRecordFollowsTrustedLinksOnTheWay(t *testing.T) {
	agent, _ := countingAgent(t)
	base, real := linkedRecordFolders(t)
	link := filepath.Join(base, "link")
	os.Symlink("real", link)
	os.Symlink(link, filepath.Join(base, "chain"))
	sticky := filepath.Join(base, "sticky")
	os.Mkdir(sticky, 0o700)
	os.Chmod(sticky, 0o777|fs.ModeSticky)
	os.Symlink(real, filepath.Join(sticky, "mine"))
	for _, tc := range []struct{ path, lands string }{
		{filepath.Join(link, "sub", "old.ndjson"), filepath.Join(real, "sub", "old.ndjson")},
		{filepath.Join(link, "sub", "new.ndjson"), filepath.Join(real, "sub", "new.ndjson")},
		{filepath.Join(base, "chain", "new2.ndjson"), filepath.Join(real, "new2.ndjson")},
		{filepath.Join(sticky, "mine", "new3.ndjson"), filepath.Join(real, "new3.ndjson")},
	} {
		if code, _, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", tc.path); code != exitAccepted || stderr != "" {
			t.Errorf("--save %s: exit %d, %s", tc.path, code, stderr)
		}
		if got, _ := os.ReadFile(tc.lands); string(got) != good {
			t.Errorf("--save %s: %s holds %q", tc.path, tc.lands, got)
		}
	}
	// A tap's --dir below a trusted link, and one that is a trusted link.
	for i, dir := range []string{filepath.Join(link, "runs"), filepath.Join(base, "chain")} {
		tr := runTap(t, agent.URL, "--dir", dir)
		post(t, tr.addr, "/", "{}")
		line := waitFor(t, tr.out, regexp.MustCompile(`run 1: ACCEPTED, 5 events, 0 warnings; record (.*)\n`))
		lands := filepath.Join([]string{filepath.Join(real, "runs"), real}[i], filepath.Base(line[1]))
		if got, _ := os.ReadFile(lands); string(got) != good {
			t.Errorf("--dir %s: %s holds %q\n%s", dir, lands, got, tr.out)
		}
	}
	// The target itself a link, trusted or not, is not written.
	os.Symlink(filepath.Join("sub", "old.ndjson"), filepath.Join(real, "to-old.ndjson"))
	target := filepath.Join(link, "to-old.ndjson")
	code, out, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", target)
	if want := "agui check: --save: " + target + " is a symbolic link; agui does not write a record in place of a link (give the file's own path)\n"; code != exitUnusable || out != "" || stderr != want {
		t.Errorf("the target a link: exit %d, stdout %q, stderr %q, want %q", code, out, stderr, want)
	}
	if got, _ := os.ReadFile(filepath.Join(real, "sub", "old.ndjson")); string(got) != good {
		t.Errorf("old.ndjson holds %q", got)
	}
}

// A symbolic link on the way that someone else may have planted or may
// change is refused before the run is asked for, with one line naming
// the link and why (its folder writable by others without the sticky
// bit; another user's link, root only), and nothing is written where it
// points; so is a loop of links, past the 40 followed, and a file where
// a folder belongs is said plainly, not as the system's "not a
// directory". The neighbours: the same paths through the real folder,
// and a relative path from a working folder that is itself reached
// through such a link, take the record.
func TestRecordRefusesUntrustedLinksOnTheWay(t *testing.T) {
	agent, asked := countingAgent(t)
	base, real := linkedRecordFolders(t)
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o777)
	link := filepath.Join(open, "link")
	os.Symlink(real, link)
	os.Symlink("loop-b", filepath.Join(base, "loop-a"))
	os.Symlink("loop-a", filepath.Join(base, "loop-b"))
	loop := filepath.Join(base, "loop-a")
	os.WriteFile(filepath.Join(base, "file"), []byte("a file\n"), 0o644)
	openLink := untrustedLink(link, "its folder "+open+" may be written by every user (mode 0777, not sticky), who may replace it")
	loopLine := "more than 40 symbolic links on the way, the last " + loop + " (a loop of links?)"
	type refused struct{ path, want string }
	saves := []refused{
		{filepath.Join(link, "sub", "old.ndjson"), openLink},
		{filepath.Join(link, "sub", "new.ndjson"), openLink},
		{filepath.Join(link, "new.ndjson"), openLink},
		{filepath.Join(loop, "new.ndjson"), loopLine},
		{filepath.Join(base, "file", "new.ndjson"), filepath.Join(base, "file") + " is not a folder, so nothing can be made in it"},
		{filepath.Join(base, "file", "a", "new.ndjson"), filepath.Join(base, "file") + " is not a folder, so nothing can be made in it"},
	}
	dirs := []refused{
		{filepath.Join(link, "runs"), openLink},
		{filepath.Join(link, "sub"), openLink},
		{link, openLink},
		{loop, loopLine},
		{filepath.Join(base, "file", "runs"), filepath.Join(base, "file") + " is not a folder, so nothing can be made in it"},
	}
	for _, tc := range saves {
		code, out, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", tc.path)
		if want := "agui check: --save: " + tc.path + ": " + tc.want + "\n"; code != exitUnusable || out != "" || stderr != want {
			t.Errorf("--save %s: exit %d, stdout %q, stderr %q, want %q", tc.path, code, out, stderr, want)
		}
	}
	for _, tc := range dirs {
		var outb, errb bytes.Buffer
		ctx, cancel := context.WithCancel(context.Background())
		code := tapCommand([]string{"--upstream", agent.URL, "--listen", "127.0.0.1:0", "--dir", tc.path}, &outb, &errb, ctx, func(string) { cancel() })
		cancel()
		if want := "agui tap: --dir " + tc.path + ": " + tc.want + "\n"; code != exitUnusable || outb.String() != "" || errb.String() != want {
			t.Errorf("--dir %s: exit %d, stdout %q, stderr %q, want %q", tc.path, code, outb.String(), errb.String(), want)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the agent was asked %d times", n)
	}
	entries, _ := os.ReadDir(filepath.Join(real, "sub"))
	if got, _ := os.ReadFile(filepath.Join(real, "sub", "old.ndjson")); string(got) != "old\n" || len(entries) != 1 {
		t.Errorf("written through the link: %v, old.ndjson holds %q", entries, got)
	}
	if entries, _ := os.ReadDir(real); len(entries) != 1 {
		t.Errorf("written through the link: %v", entries)
	}
	// The neighbours: the real folder, and a relative path from a working
	// folder reached through the untrusted link.
	if code, _, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", filepath.Join(real, "sub", "old.ndjson")); code != exitAccepted {
		t.Errorf("the real folder: exit %d, %s", code, stderr)
	}
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(link)
	if code, _, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", filepath.Join("sub", "rel.ndjson")); code != exitAccepted {
		t.Errorf("a relative path below a working folder reached through a link: exit %d, %s", code, stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(real, "sub", "rel.ndjson")); string(got) != good {
		t.Errorf("rel.ndjson holds %q", got)
	}

	t.Run("another user's link", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("only root may give a link to another user (lchown)")
		}
		// Another user's link, in this user's own folder.
		theirs := filepath.Join(base, "theirs")
		os.Symlink(real, theirs)
		if err := os.Lchown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		name := "user 65534"
		if u, err := user.LookupId("65534"); err == nil {
			name = "user " + u.Username + " (65534)"
		}
		want := untrustedLink(theirs, "it belongs to "+name+", neither root nor this user")
		path := filepath.Join(theirs, "sub", "new.ndjson")
		code, out, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", path)
		if want := "agui check: --save: " + path + ": " + want + "\n"; code != exitUnusable || out != "" || stderr != want {
			t.Errorf("--save %s: exit %d, stdout %q, stderr %q, want %q", path, code, out, stderr, want)
		}
		// In a sticky folder (as /tmp), where this user's link is
		// followed, another user's is not.
		sticky := filepath.Join(base, "sticky")
		os.Mkdir(sticky, 0o700)
		os.Chmod(sticky, 0o777|fs.ModeSticky)
		stickyTheirs := filepath.Join(sticky, "theirs")
		os.Symlink(real, stickyTheirs)
		if err := os.Lchown(stickyTheirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(stickyTheirs, "sub", "new.ndjson")
		code, out, stderr = runAgui(t, "", "check", "--url", agent.URL, "--save", path)
		if want := "agui check: --save: " + path + ": " + untrustedLink(stickyTheirs, "it belongs to "+name+", neither root nor this user") + "\n"; code != exitUnusable || out != "" || stderr != want {
			t.Errorf("--save %s: exit %d, stdout %q, stderr %q, want %q", path, code, out, stderr, want)
		}
		dir := filepath.Join(theirs, "runs")
		var outb, errb bytes.Buffer
		ctx, cancel := context.WithCancel(context.Background())
		code = tapCommand([]string{"--upstream", agent.URL, "--listen", "127.0.0.1:0", "--dir", dir}, &outb, &errb, ctx, func(string) { cancel() })
		cancel()
		if want := "agui tap: --dir " + dir + ": " + want + "\n"; code != exitUnusable || outb.String() != "" || errb.String() != want {
			t.Errorf("--dir %s: exit %d, stdout %q, stderr %q, want %q", dir, code, outb.String(), errb.String(), want)
		}
		if _, err := os.Stat(filepath.Join(real, "sub", "new.ndjson")); err == nil {
			t.Error("written through another user's link")
		}
		if _, err := os.Stat(filepath.Join(real, "runs")); err == nil {
			t.Error("--dir made a folder through another user's link")
		}
	})
}

// A link put on the way while the run is recorded (the target's folder
// swapped for a link to another) is found at the last look before the
// rename: the record is not kept, and nothing is written where the link
// points; an untrusted link is named as such, a trusted one leads to
// another folder than the one the record began in. So for a tap whose
// --dir is swapped for a link.
func TestRecordLinkPutOnTheWayDuringTheRun(t *testing.T) {
	base := t.TempDir()
	runs, elsewhere := filepath.Join(base, "runs"), filepath.Join(base, "elsewhere")
	os.Mkdir(runs, 0o755)
	os.Mkdir(elsewhere, 0o755)
	// base is this user's and only theirs (0700): a link put in it is
	// trusted; made writable by every user, it is not.
	swap := func(open bool) func() {
		return func() {
			os.Rename(runs, filepath.Join(base, "runs-was"))
			os.Symlink("elsewhere", runs)
			if open {
				os.Chmod(base, 0o777)
			}
		}
	}
	var during func()
	agent := duringAgent(t, &during)
	path := filepath.Join(runs, "run.ndjson")
	for _, tc := range []struct {
		swap func()
		want string
	}{
		{swap(true), untrustedLink(runs, "its folder "+base+" may be written by every user (mode 0777, not sticky), who may replace it")},
		{swap(false), "the folder " + runs + " was moved or replaced while the run was recorded; the record is not put in its place"},
	} {
		os.RemoveAll(filepath.Join(base, "runs-was"))
		os.Remove(runs)
		os.Mkdir(runs, 0o755)
		during = tc.swap
		code, out, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", path)
		os.Chmod(base, 0o700)
		want := "agui check: --save: the record could not be kept: " + path + ": " + tc.want + "\n"
		if code != exitUnusable || !strings.Contains(out, "Verdict: ACCEPTED") || stderr != want {
			t.Errorf("exit %d, stdout %q, stderr %q, want %q", code, out, stderr, want)
		}
		if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
			t.Errorf("written through the link: %v", entries)
		}
		if left := temporaries(t, filepath.Join(base, "runs-was")); len(left) != 0 {
			t.Errorf("temporary files left: %v", left)
		}
	}
	// The folder moved and another made in its place: the record would
	// land in the moved one, which is not where the user named.
	os.Remove(runs)
	os.Mkdir(runs, 0o755)
	during = func() {
		os.Rename(runs, filepath.Join(base, "runs-moved"))
		os.Mkdir(runs, 0o755)
	}
	code, out, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", path)
	want := "agui check: --save: the record could not be kept: " + path + ": the folder " + runs + " was moved or replaced while the run was recorded; the record is not put in its place\n"
	if code != exitUnusable || !strings.Contains(out, "Verdict: ACCEPTED") || stderr != want {
		t.Errorf("moved: exit %d, stdout %q, stderr %q, want %q", code, out, stderr, want)
	}
	for _, d := range []string{runs, filepath.Join(base, "runs-moved")} {
		if entries, _ := os.ReadDir(d); len(entries) != 0 {
			t.Errorf("moved: %s holds %v", d, entries)
		}
	}
	// The neighbour: the folder left alone takes the record.
	during = nil
	if code, _, stderr = runAgui(t, "", "check", "--url", agent.URL, "--save", path); code != exitAccepted {
		t.Errorf("untouched: exit %d, %s", code, stderr)
	}
	if got, _ := os.ReadFile(path); string(got) != good {
		t.Errorf("untouched: %s holds %q", path, got)
	}

	// A tap's --dir swapped for a link during a run: the run is checked,
	// its record not kept, nothing written where the link points.
	tapDir := filepath.Join(base, "tap")
	os.Mkdir(tapDir, 0o755)
	os.RemoveAll(elsewhere)
	os.Mkdir(elsewhere, 0o755)
	tr := runTap(t, agent.URL, "--dir", tapDir)
	during = func() {
		// Once the run's record is begun (the tap says the run came).
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !strings.Contains(tr.out.String(), "run 1: POST"); {
			time.Sleep(5 * time.Millisecond)
		}
		os.Rename(tapDir, filepath.Join(base, "tap-was"))
		os.Symlink("elsewhere", tapDir)
	}
	post(t, tr.addr, "/", "{}")
	line := waitFor(t, tr.out, regexp.MustCompile(`run 1: the record could not be kept: (.*)\n`))
	waitFor(t, tr.out, regexp.MustCompile(`run 1: ACCEPTED, 5 events, 0 warnings; no record\n`))
	if !strings.HasSuffix(line[1], ": the folder "+tapDir+" was moved or replaced while the run was recorded; the record is not put in its place") {
		t.Errorf("tap: %q\n%s", line[1], tr.out)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("tap: written through the link: %v", entries)
	}
	if left := temporaries(t, filepath.Join(base, "tap-was")); len(left) != 0 {
		t.Errorf("tap: temporary files left: %v", left)
	}
}

// The file the rename replaces is the snapshot, in the folder opened at
// the start: should the folder be swapped, after place has looked at it,
// for a link to another that holds the snapshot (a hard link to it), and
// the snapshot in the opened folder be replaced by another file, the path
// still leads to the snapshot, but the rename would replace the other
// file. The record is not kept, and the other file stays as it is.
func TestSaveReplacesOnlyTheSnapshotInItsFolder(t *testing.T) {
	agent, _ := countingAgent(t)
	base := t.TempDir()
	runs := filepath.Join(base, "runs")
	os.Mkdir(runs, 0o755)
	path := filepath.Join(runs, "run.ndjson")
	os.WriteFile(path, []byte("old\n"), 0o644)
	moved, other := filepath.Join(base, "runs-was"), filepath.Join(base, "other")
	defer func() { folderLooked = nil }()
	folderLooked = func() {
		os.Mkdir(other, 0o755)
		os.Link(path, filepath.Join(other, "run.ndjson"))
		os.Rename(path, filepath.Join(runs, "run.ndjson.was"))
		os.WriteFile(path, []byte("another\n"), 0o644)
		os.Rename(runs, moved)
		os.Symlink("other", runs)
	}
	code, out, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", path)
	want := "agui check: --save: the record could not be kept: " + path + " changed while the run was recorded; it is left as it is\n"
	if code != exitUnusable || !strings.Contains(out, "Verdict: ACCEPTED") || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q, want %q", code, out, stderr, want)
	}
	if got, _ := os.ReadFile(filepath.Join(moved, "run.ndjson")); string(got) != "another\n" {
		t.Errorf("the other file holds %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(other, "run.ndjson")); string(got) != "old\n" {
		t.Errorf("the snapshot holds %q", got)
	}
	if left := temporaries(t, moved); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// asNobody runs the test binary as agui with args under the user nobody
// (uid and gid 65534), from a copy every user may run; root only.
func asNobody(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	bin := filepath.Join(nobodyDir(t), "agui")
	if _, err := os.Stat(bin); err != nil {
		data, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "AGUI_TEST_AS_COMMAND=1")
	cmd.Dir = filepath.Dir(bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, NoSetGroups: true}}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// nobodyDir is a folder of the test's that every user may enter and write
// in (t.TempDir's are its owner's only).
func nobodyDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "agui-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o777)
	return dir
}

// Whether --save may replace a file is judged as the system judges a
// write by this process, not by the owner's write bit: run as another
// user (nobody), agui refuses root's 0644 file in a folder it may write
// in (which a rename would replace all the same), root's 0666 file in a
// sticky folder (where the rename would fail at the end), and a 0622 one
// it may write but not read (its bytes are the snapshot), and replaces
// root's 0666 and 0646 files, and a 0466 one whose owner alone may not
// write it. Run as root, which may write any file, it replaces nobody's
// 0644 file, and still refuses a file nobody may write (0444). Only root
// can make files of another user, so the test needs root.
func TestSaveJudgesWritabilityAsTheSystemDoes(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the cases are files of another user, which only root can make (run as root, the test runs agui as nobody); the owner's own read-only file is TestSaveRefusesWhatIsNotARegularFile's")
	}
	agent, _ := countingAgent(t)
	dir := nobodyDir(t)
	sticky := filepath.Join(dir, "sticky")
	os.Mkdir(sticky, 0o777)
	os.Chmod(sticky, 0o777|fs.ModeSticky)
	for _, tc := range []struct {
		path    string
		mode    fs.FileMode
		replace bool
		want    string
	}{
		{filepath.Join(dir, "root-0644.ndjson"), 0o644, false, "is read-only to this user (permission denied); agui does not replace it"},
		{filepath.Join(dir, "root-0600.ndjson"), 0o600, false, "is read-only to this user (permission denied); agui does not replace it"},
		{filepath.Join(sticky, "root-0666.ndjson"), 0o666, false, "belongs to another user in a sticky folder, where only its owner may replace it; agui does not replace it"},
		{filepath.Join(dir, "root-0622.ndjson"), 0o622, false, "cannot be read (permission denied), and agui replaces a file only once it has read it; it is left as it is"},
		{filepath.Join(dir, "root-0666.ndjson"), 0o666, true, ""},
		{filepath.Join(dir, "root-0646.ndjson"), 0o646, true, ""},
		{filepath.Join(dir, "root-0466.ndjson"), 0o466, true, ""},
	} {
		os.WriteFile(tc.path, []byte("root's\n"), 0)
		os.Chmod(tc.path, tc.mode)
		code, out, stderr := asNobody(t, "check", "--url", agent.URL, "--save", tc.path)
		got, _ := os.ReadFile(tc.path)
		if tc.replace {
			if code != exitAccepted || string(got) != good {
				t.Errorf("%s: exit %d, stderr %q; holds %q", tc.path, code, stderr, got)
			}
			continue
		}
		if want := "agui check: --save: " + tc.path + " " + tc.want + "\n"; code != exitUnusable || out != "" || stderr != want || string(got) != "root's\n" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q, want %q; holds %q", tc.path, code, out, stderr, want, got)
		}
	}
	// As root: another user's 0644 file is replaced, a file nobody may
	// write is not.
	theirs := filepath.Join(dir, "nobody-0644.ndjson")
	os.WriteFile(theirs, []byte("nobody's\n"), 0o644)
	os.Chown(theirs, 65534, 65534)
	if code, _, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", theirs); code != exitAccepted {
		t.Errorf("as root, %s: exit %d, %s", theirs, code, stderr)
	}
	kept := filepath.Join(dir, "nobody-0444.ndjson")
	os.WriteFile(kept, []byte("nobody's\n"), 0o444)
	os.Chown(kept, 65534, 65534)
	if code, _, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", kept); code != exitUnusable || stderr != "agui check: --save: "+kept+" is read-only; agui does not replace it\n" {
		t.Errorf("as root, %s: exit %d, %s", kept, code, stderr)
	}
	if left := append(temporaries(t, dir), temporaries(t, sticky)...); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// The record is a new file that takes the target's name, as the help
// and the how-to say: a target with another hard link is separated from
// it, and the other name keeps the old bytes, whole.
func TestSaveSeparatesHardLinks(t *testing.T) {
	agent, _ := countingAgent(t)
	dir := t.TempDir()
	path, other := filepath.Join(dir, "run.ndjson"), filepath.Join(dir, "other.ndjson")
	os.WriteFile(path, []byte("old\n"), 0o644)
	if err := os.Link(path, other); err != nil {
		repotest.MissingPart(t, "no hard links in the temporary folder: %v", err)
	}
	if code, _, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", path); code != exitAccepted {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, _ := os.ReadFile(path)
	kept, _ := os.ReadFile(other)
	a, _ := os.Stat(path)
	b, _ := os.Stat(other)
	if string(got) != good || string(kept) != "old\n" || os.SameFile(a, b) {
		t.Errorf("%s holds %q, %s holds %q, same file %v", path, got, other, kept, os.SameFile(a, b))
	}
}

// heldAgent streams good on / and a record that breaks a rule (a text
// message ended that never started) on /bad: the first event at once,
// the rest once release is closed (or the frontend goes). sent tells when
// a first event went.
func heldAgent(t *testing.T) (srv *httptest.Server, sent <-chan struct{}, release func()) {
	return holdingAgent(t, func(r *http.Request) [][]byte {
		events := recordEvents([]byte(good))
		if r.URL.Path == "/bad" {
			events = [][]byte{events[0], []byte(`{"type":"TEXT_MESSAGE_END","messageId":"x"}`), events[len(events)-1]}
		}
		return events
	})
}

// tapWithGrace starts agui tap as a process, as tapProcess does, with the
// grace a stop gives the runs in flight. A tap still running after a
// minute is killed, so that a frontend's read from a tap that hangs ends
// (the test then fails) instead of waiting for go test's own timeout.
func tapWithGrace(t *testing.T, upstream, dir string, grace time.Duration) (*exec.Cmd, string, *syncbuf.Buffer, *syncbuf.Buffer) {
	t.Helper()
	t.Setenv("AGUI_TEST_STOP_GRACE", grace.String())
	cmd, addr, out, errb := tapProcess(t, upstream, dir)
	watchdog := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	t.Cleanup(func() { watchdog.Stop() })
	return cmd, addr, out, errb
}

// waitSent waits (bounded) until a test's agent (heldAgent, slowAgent) has
// got a run or sent its first event.
func waitSent(t *testing.T, sent <-chan struct{}) {
	t.Helper()
	select {
	case <-sent:
	case <-time.After(20 * time.Second):
		t.Fatal("the agent never got the run")
	}
}

// Ctrl-C to agui tap with runs in flight: the tap takes no new run and
// waits for those in flight (here with a grace far longer than the test
// may last, so the tap ending at all shows it did not wait the grace
// out); they end by themselves, each judged as any run (ACCEPTED, and a
// REJECTED one, neither marked as cut) and saved, the frontends get every
// byte, the tap's last line comes after their verdicts, no temporary file
// stays, and the exit status is 0.
func TestTapStopWaitsForRunsInFlight(t *testing.T) {
	agent, sent, release := heldAgent(t)
	dir := t.TempDir()
	cmd, addr, out, errb := tapWithGrace(t, agent.URL, dir, 10*time.Minute)
	var fronts []*http.Response
	for _, path := range []string{"/", "/bad"} {
		resp := postRun(t, addr, path, "{}")
		defer resp.Body.Close()
		waitSent(t, sent)
		readFirstEvent(t, resp)
		fronts = append(fronts, resp)
	}
	cmd.Process.Signal(os.Interrupt)
	waitFor(t, out, regexp.MustCompile(`agui tap: the tap was stopped by SIGINT \(Ctrl-C\): waiting up to 10m0s for the 2 runs in flight to end; stop the tap again to cut them now\n`))
	// No new run is taken once the tap is stopping.
	refused := false
	for deadline := time.Now().Add(10 * time.Second); !refused && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if refused = err != nil; c != nil {
			c.Close()
		}
	}
	if !refused {
		t.Error("the stopping tap still takes connections")
	}
	release()
	for i, resp := range fronts {
		rest, err := io.ReadAll(resp.Body)
		want := recordEvents([]byte(good))[1:]
		if i == 1 {
			want = [][]byte{[]byte(`{"type":"TEXT_MESSAGE_END","messageId":"x"}`), want[len(want)-1]}
		}
		var wantBytes []byte
		for _, e := range want {
			wantBytes = append(wantBytes, fmt.Sprintf("data: %s\n\n", e)...)
		}
		if err != nil || !bytes.Equal(rest, wantBytes) {
			t.Errorf("frontend %d got %q, %v; want %q", i, rest, err, wantBytes)
		}
	}
	if code := waitExit(t, cmd); code != exitAccepted {
		t.Errorf("exit %d; stderr %s", code, errb)
	}
	o := out.String()
	good1 := regexp.MustCompile(`\nagui tap: run 1: ACCEPTED, 5 events, 0 warnings; record (\S+)\n`).FindStringSubmatch(o)
	bad2 := regexp.MustCompile(`\nagui tap: run 2: REJECTED, 3 events, 0 warnings; record (\S+)\n`).FindStringSubmatch(o)
	if good1 == nil || bad2 == nil || !strings.HasSuffix(o, "\nagui tap: the tap was stopped by SIGINT (Ctrl-C)\n") || strings.Contains(o, "(cut:") || strings.Contains(o, "not judged") {
		t.Fatalf("stdout:\n%s", o)
	}
	if got, _ := os.ReadFile(good1[1]); string(got) != good {
		t.Errorf("run 1's record holds %q", got)
	}
	if got, _ := os.ReadFile(bad2[1]); !strings.HasPrefix(string(got), `{"type":"RUN_STARTED"`) || !strings.Contains(string(got), `{"type":"TEXT_MESSAGE_END","messageId":"x"}`+"\n") {
		t.Errorf("run 2's record holds %q", got)
	}
	if left := temporaries(t, dir); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A second Ctrl-C (or SIGTERM) while the tap waits for its runs in flight
// cuts them at once (the grace is far longer than the test may last): each
// run is saved as the cut record it is and said not judged, the tap ends
// with exit 0 and its last line, and no temporary file stays. The
// neighbour: with no run in flight the first signal ends the tap, and
// says nothing of waiting.
func TestTapSecondSignalCutsAtOnce(t *testing.T) {
	for _, second := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		agent, sent, _ := heldAgent(t)
		dir := t.TempDir()
		cmd, addr, out, errb := tapWithGrace(t, agent.URL, dir, 10*time.Minute)
		resp := postRun(t, addr, "/", "{}")
		defer resp.Body.Close()
		waitSent(t, sent)
		readFirstEvent(t, resp)
		cmd.Process.Signal(syscall.SIGINT)
		waitFor(t, out, regexp.MustCompile(`waiting up to 10m0s for the run in flight to end; stop the tap again to cut it now\n`))
		cmd.Process.Signal(second)
		if code := waitExit(t, cmd); code != exitAccepted {
			t.Errorf("second %v: exit %d; stderr %s", second, code, errb)
		}
		o := out.String()
		m := regexp.MustCompile(`\nagui tap: run 1: not judged: the tap was stopped by SIGINT \(Ctrl-C\) after 1 events, before the agent ended it, and nothing in them breaks a rule; the record of what arrived, a cut run, is (\S+)\nagui tap: the tap was stopped by SIGINT \(Ctrl-C\)\n$`).FindStringSubmatch(o)
		if m == nil {
			t.Fatalf("second %v: stdout:\n%s", second, o)
		}
		if got, _ := os.ReadFile(m[1]); string(got) != string(recordEvents([]byte(good))[0])+"\n" {
			t.Errorf("second %v: the cut record holds %q", second, got)
		}
		if left := temporaries(t, dir); len(left) != 0 {
			t.Errorf("second %v: temporary files left: %v", second, left)
		}
	}
	// No run in flight: one signal ends it.
	agent, _, _ := heldAgent(t)
	cmd, _, out, _ := tapWithGrace(t, agent.URL, t.TempDir(), 10*time.Minute)
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd); code != exitAccepted || strings.Contains(out.String(), "waiting") {
		t.Errorf("exit %d, stdout:\n%s", code, out)
	}
}

// A folder on the way swapped for a link, in a folder others may write
// (where agui follows no link), between the look at the way and the
// opening of the record's folder, and back while the run is recorded,
// and again for the look before the rename, once past the look at the
// way by name: the record is not made where the link pointed. The
// folder is opened by a walk that follows no untrusted link, so the
// swap at the opening is refused before the run is asked for, with one
// line naming the link. The neighbours: the swap only at the last look
// is refused then, the record not kept; with no swap, the record is
// made in the folder.
func TestRecordFolderSwappedBetweenLookAndOpen(t *testing.T) {
	var during func()
	agent := duringAgent(t, &during)
	base := t.TempDir()
	shared := filepath.Join(base, "shared")
	proj, evil := filepath.Join(shared, "proj"), filepath.Join(base, "evil")
	os.MkdirAll(proj, 0o755)
	os.Mkdir(evil, 0o755)
	os.Chmod(shared, 0o777)
	path := filepath.Join(proj, "run.ndjson")
	toLink := func() {
		os.Rename(proj, proj+"-was")
		os.Symlink(evil, proj)
	}
	back := func() {
		if st, err := os.Lstat(proj); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			os.Remove(proj)
			os.Rename(proj+"-was", proj)
		}
	}
	defer func() { folderOpening, wayLooked, folderLooked = nil, nil, nil }()
	link := untrustedLink(proj, "its folder "+shared+" may be written by every user (mode 0777, not sticky), who may replace it")
	for _, tc := range []struct {
		name           string
		atOpen, atLook func()
		code           int
		want           string
	}{
		{"swapped at the opening", toLink, toLink, exitUnusable, "agui check: --save: " + proj + ": " + link + "\n"},
		{"swapped at the last look", nil, toLink, exitUnusable, "agui check: --save: the record could not be kept: " + path + ": " + link + "\n"},
		{"not swapped", nil, nil, exitAccepted, ""},
	} {
		os.Remove(path)
		folderOpening, during, wayLooked, folderLooked = tc.atOpen, back, tc.atLook, back
		code, _, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", path)
		back()
		if code != tc.code || stderr != tc.want {
			t.Errorf("%s: exit %d, stderr %q, want %d, %q", tc.name, code, stderr, tc.code, tc.want)
		}
		if entries, _ := os.ReadDir(evil); len(entries) != 0 {
			t.Errorf("%s: written where the link pointed: %v", tc.name, entries)
		}
		if left := temporaries(t, proj); len(left) != 0 {
			t.Errorf("%s: temporary files left: %v", tc.name, left)
		}
		if got, _ := os.ReadFile(path); (tc.code == exitAccepted) != (string(got) == good) {
			t.Errorf("%s: %s holds %q", tc.name, path, got)
		}
	}
}

// A stop while a request waits for the agent's answer (its headers not
// come yet) counts it: the tap says it waits for the request the agent
// has not answered yet (the grace far longer than the test may last);
// the agent then answers, the run is judged and saved as any run, and
// the tap ends with exit 0 without waiting the grace out. The
// neighbour: a second signal while it waits cuts the request at once.
func TestTapStopCountsRequestsNotAnsweredYet(t *testing.T) {
	for _, second := range []bool{false, true} {
		asked := make(chan struct{}, 1)
		answer := make(chan struct{})
		agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked <- struct{}{}
			select {
			case <-answer:
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Second):
			}
			w.Header().Set("Content-Type", "text/event-stream")
			for _, e := range recordEvents([]byte(good)) {
				fmt.Fprintf(w, "data: %s\n\n", e)
			}
		}))
		var once sync.Once
		release := func() { once.Do(func() { close(answer) }) }
		defer agent.Close()
		defer release()
		dir := t.TempDir()
		cmd, addr, out, errb := tapWithGrace(t, agent.URL, dir, 10*time.Minute)
		got := make(chan []byte, 1)
		go func() { got <- post(t, addr, "/", "{}") }()
		waitSent(t, asked)
		stopTap(t, cmd, out, errb, "the request the agent has not answered yet to end; stop the tap again to cut it now", second, release)
		select {
		case <-got:
		case <-time.After(20 * time.Second):
			t.Fatalf("second %v: the frontend's request never ended", second)
		}
		o := out.String()
		judged := regexp.MustCompile(`\nagui tap: run 1: ACCEPTED, 5 events, 0 warnings; record \S+\n`).MatchString(o)
		if judged == second || !strings.HasSuffix(o, "\nagui tap: the tap was stopped by SIGINT (Ctrl-C)\n") {
			t.Errorf("second %v: stdout:\n%s", second, o)
		}
		if left := temporaries(t, dir); len(left) != 0 {
			t.Errorf("second %v: temporary files left: %v", second, left)
		}
	}
}

// stopTap stops a tap process with Ctrl-C and waits for its line saying
// what it waits for (waiting up to 10m0s for what), then ends what it
// waits for: with a second Ctrl-C, or by calling release; the tap must
// then exit 0.
func stopTap(t *testing.T, cmd *exec.Cmd, out, errb *syncbuf.Buffer, what string, second bool, release func()) {
	t.Helper()
	cmd.Process.Signal(os.Interrupt)
	waitFor(t, out, regexp.MustCompile(regexp.QuoteMeta("agui tap: the tap was stopped by SIGINT (Ctrl-C): waiting up to 10m0s for "+what+"\n")))
	if second {
		cmd.Process.Signal(os.Interrupt)
	} else {
		release()
	}
	if code := waitExit(t, cmd); code != exitAccepted {
		t.Errorf("second %v: exit %d; stderr %s", second, code, errb)
	}
}

// Ctrl-C to agui tap while an answer that is not an event stream is still
// passing on to the frontend: the stop's line counts it as such (before,
// it counted the answer as neither a run nor a request, and the tap
// waited for it without a word); it passes on whole when the agent ends
// it, or is cut at a second Ctrl-C. Beside it, a request not answered
// yet is named in the same line.
func TestTapStopCountsAnswersPassingOn(t *testing.T) {
	for _, second := range []bool{false, true} {
		sent := make(chan struct{}, 2)
		release := make(chan struct{})
		agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/wait" {
				// Never answered before the stop: asking.
				sent <- struct{}{}
				select {
				case <-release:
				case <-r.Context().Done():
				}
				return
			}
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "first half, ")
			w.(http.Flusher).Flush()
			sent <- struct{}{}
			select {
			case <-release:
				io.WriteString(w, "second half")
			case <-r.Context().Done():
			}
		}))
		var once sync.Once
		end := func() { once.Do(func() { close(release) }) }
		defer agent.Close()
		defer end()
		cmd, addr, out, errb := tapWithGrace(t, agent.URL, t.TempDir(), 10*time.Minute)
		// What the frontend got, whole or cut (a cut body is no error
		// here). Its first half come through the tap says the tap has
		// the answer, counted as passing on, not as asking any more.
		got := make(chan []byte, 1)
		through := make(chan struct{}, 1)
		go func() {
			var b []byte
			if resp, err := http.Post("http://"+addr+"/", "application/json", strings.NewReader("{}")); err == nil {
				b = make([]byte, len("first half, "))
				n, _ := io.ReadFull(resp.Body, b)
				through <- struct{}{}
				rest, _ := io.ReadAll(resp.Body)
				b = append(b[:n], rest...)
				resp.Body.Close()
			} else {
				through <- struct{}{}
			}
			got <- b
		}()
		waitSent(t, sent)
		waitSent(t, through)
		go func() {
			if resp, err := http.Post("http://"+addr+"/wait", "application/json", strings.NewReader("{}")); err == nil {
				resp.Body.Close()
			}
		}()
		waitSent(t, sent)
		stopTap(t, cmd, out, errb, "the request the agent has not answered yet and the answer passing on unchecked to end; stop the tap again to cut them now", second, end)
		body, ok := received(got)
		if whole := string(body) == "first half, second half"; !ok || whole == second {
			t.Errorf("second %v: the frontend got %q", second, body)
		}
	}
}

// A record linked under its own name whose temporary name then cannot be
// removed (the system fails the removal) is in place all the same: the
// run's exit status and verdict are as without it, the record holds the
// run, and one line says it is kept and names the temporary name that
// stayed, to be removed by hand; so for a tap's record. The neighbour: a
// record that replaces a file (a rename, no temporary name left) says
// nothing of it.
func TestRecordKeptWhenItsTemporaryNameStays(t *testing.T) {
	agent, _ := countingAgent(t)
	defer func() { removeLinked = (*os.Root).Remove }()
	removeLinked = func(*os.Root, string) error {
		return &fs.PathError{Op: "remove", Path: "x", Err: syscall.EIO}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ndjson")
	code, out, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", path)
	left := temporaries(t, dir)
	if len(left) != 1 {
		t.Fatalf("temporary names: %v; stderr %q", left, stderr)
	}
	want := "agui check: --save: " + path + " is kept, but its temporary name " + left[0] + " could not be removed (input/output error); remove it by hand\n"
	if code != exitAccepted || !strings.Contains(out, "Verdict: ACCEPTED") || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q, want %q", code, out, stderr, want)
	}
	if got, _ := os.ReadFile(path); string(got) != good {
		t.Errorf("%s holds %q", path, got)
	}
	os.Remove(left[0])
	// The neighbour: replacing the record just made renames over it.
	code, _, stderr = runAgui(t, "", "check", "--url", agent.URL, "--save", path)
	if code != exitAccepted || stderr != "" || len(temporaries(t, dir)) != 0 {
		t.Errorf("replaced: exit %d, stderr %q, left %v", code, stderr, temporaries(t, dir))
	}

	tapDir := t.TempDir()
	tr := runTap(t, agent.URL, "--dir", tapDir)
	post(t, tr.addr, "/", "{}")
	m := waitFor(t, tr.out, regexp.MustCompile(`agui tap: run 1: (\S+) is kept, but its temporary name (\S+) could not be removed \(input/output error\); remove it by hand\n`))
	waitFor(t, tr.out, regexp.MustCompile(`agui tap: run 1: ACCEPTED, 5 events, 0 warnings; record `+regexp.QuoteMeta(m[1])+`\n`))
	if left := temporaries(t, tapDir); len(left) != 1 || left[0] != m[2] {
		t.Errorf("tap: temporary names %v, said %s", left, m[2])
	}
	if got, _ := os.ReadFile(m[1]); string(got) != good {
		t.Errorf("tap: %s holds %q", m[1], got)
	}
}

// Whether --save may replace its target is asked of the path as every
// other look takes it, cleaned: "missing/../run.ndjson" is run.ndjson
// beside a folder that does not exist, and is replaced; a read-only file
// so named is refused as read-only, named as it is.
func TestSaveAsksWritabilityOfTheCleanedPath(t *testing.T) {
	agent, _ := countingAgent(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "run.ndjson"), []byte("old\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ro.ndjson"), []byte("old\n"), 0o444)
	path := filepath.Join(dir, "missing") + "/../run.ndjson"
	if code, _, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", path); code != exitAccepted || stderr != "" {
		t.Errorf("%s: exit %d, stderr %q", path, code, stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "run.ndjson")); string(got) != good {
		t.Errorf("run.ndjson holds %q", got)
	}
	ro := filepath.Join(dir, "missing") + "/../ro.ndjson"
	code, _, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", ro)
	if want := "agui check: --save: " + filepath.Join(dir, "ro.ndjson") + " is read-only; agui does not replace it\n"; code != exitUnusable || stderr != want {
		t.Errorf("%s: exit %d, stderr %q, want %q", ro, code, stderr, want)
	}
}

// The folder synced after the rename is the one the record was made and
// renamed in, held open from the start: should its path be swapped for
// a link to another folder (this user's own, so trusted) once the last
// look is past, the record lands in the opened folder and that one is
// synced, not the one the path now leads to.
func TestRecordSyncsTheFolderItWasRenamedIn(t *testing.T) {
	agent, _ := countingAgent(t)
	base := t.TempDir()
	runs, moved, other := filepath.Join(base, "runs"), filepath.Join(base, "runs-was"), filepath.Join(base, "other")
	os.Mkdir(runs, 0o755)
	os.Mkdir(other, 0o755)
	var synced []fs.FileInfo
	defer func() { folderLooked, syncFolder = nil, atomicfile.SyncRoot }()
	syncFolder = func(root *os.Root) error {
		st, err := root.Stat(".")
		if err != nil {
			t.Error(err)
		}
		synced = append(synced, st)
		return atomicfile.SyncRoot(root)
	}
	folderLooked = func() {
		os.Rename(runs, moved)
		os.Symlink("other", runs)
	}
	path := filepath.Join(runs, "run.ndjson")
	if code, _, stderr := runAgui(t, "", "check", "--url", agent.URL, "--save", path); code != exitAccepted || stderr != "" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(moved, "run.ndjson")); string(got) != good {
		t.Errorf("the record in the opened folder holds %q", got)
	}
	want, _ := os.Stat(moved)
	if len(synced) != 1 || !os.SameFile(synced[0], want) {
		t.Errorf("synced %v, want the opened folder %s", synced, moved)
	}
}

// The walk to a record's folder needs only the right to pass through
// each folder on the way, as a lookup by name does: run as another user
// (nobody), agui saves below root's 0711 folder, which it may pass but
// not read. Only root can make a folder of another user, so the test
// needs root.
func TestRecordFolderBelowAFolderOnlyPassable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the folder on the way is another user's, which only root can make (run as root, the test runs agui as nobody)")
	}
	agent, _ := countingAgent(t)
	pass := filepath.Join(nobodyDir(t), "pass")
	os.Mkdir(pass, 0o711)
	os.Chmod(pass, 0o711)
	runs := filepath.Join(pass, "runs")
	os.Mkdir(runs, 0o755)
	if err := os.Chown(runs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(runs, "run.ndjson")
	if code, _, stderr := asNobody(t, "check", "--url", agent.URL, "--save", path); code != exitAccepted || stderr != "" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if got, _ := os.ReadFile(path); string(got) != good {
		t.Errorf("%s holds %q", path, got)
	}
}
