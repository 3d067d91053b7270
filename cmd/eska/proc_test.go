package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/rpc"
	"github.com/contractkit/contractkit/internal/repotest"
)

// The end of input drops the work eska has not answered yet, so a test
// closes stdin only once the answers it needs are out, however slowly a
// loaded machine runs the process. These bounds are for a process that
// never answers: a healthy one ends far sooner.
const (
	answerBound = 60 * time.Second // for the answers a test waits for
	exitBound   = 20 * time.Second // for the exit once stdin is closed
)

// The disk cache's signing key goes to a temporary user cache directory,
// for the processes the tests start too.
func TestMain(m *testing.M) {
	cacheHome, err := os.MkdirTemp("", "eska-cache-home")
	if err != nil {
		panic(err)
	}
	// go build keeps its cache under XDG_CACHE_HOME unless GOCACHE says
	// otherwise: pinned first, the binary the tests build comes from the
	// real cache instead of compiling the whole module anew (a minute).
	if os.Getenv("GOCACHE") == "" {
		if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil && len(bytes.TrimSpace(out)) > 0 {
			os.Setenv("GOCACHE", string(bytes.TrimSpace(out)))
		}
	}
	os.Setenv("XDG_CACHE_HOME", cacheHome)
	code := m.Run()
	removeReleases() // update_test.go
	repotest.RemoveBuilds()
	os.RemoveAll(cacheHome)
	os.Exit(code)
}

// build returns eska built once for the whole test run.
func build(t *testing.T) string {
	t.Helper()
	return repotest.Build(t, "cmd/eska")
}

// proc is one `eska ide --stdio` with its output read as it comes.
type proc struct {
	t     *testing.T
	cmd   *exec.Cmd
	input chan []byte // written in order; closed: close stdin
	wrote chan struct{}
	errb  bytes.Buffer
	start time.Time

	mu      sync.Mutex
	frames  []string
	readErr error
	more    chan struct{} // a frame arrived or stdout ended
	ended   chan struct{} // stdout ended: the process has exited
}

func startProc(t *testing.T, bin string) *proc {
	t.Helper()
	p := &proc{t: t, cmd: exec.Command(bin, "ide", "--stdio"), input: make(chan []byte, 16), wrote: make(chan struct{}),
		more: make(chan struct{}, 1), ended: make(chan struct{}), start: time.Now()}
	p.cmd.Stderr = &p.errb
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.wrote)
		for b := range p.input {
			if _, err := stdin.Write(b); err != nil {
				break // the process is gone; its exit says why
			}
		}
		stdin.Close()
	}()
	go p.read(stdout)
	return p
}

// read collects frames until stdout ends. Anything that is not a frame
// is an error of the test's process.
func (p *proc) read(stdout io.Reader) {
	defer close(p.ended)
	fr := rpc.NewFrameReader(stdout, gen.MaxHeaderBytes, gen.MaxResponseBytes)
	for {
		b, err := fr.ReadFrame()
		p.mu.Lock()
		if err == nil {
			p.frames = append(p.frames, string(b))
		} else if !errors.Is(err, io.EOF) {
			p.readErr = err
		}
		p.mu.Unlock()
		select {
		case p.more <- struct{}{}:
		default:
		}
		if err != nil {
			io.Copy(io.Discard, stdout) // let the process finish writing
			return
		}
	}
}

// send writes bytes to stdin (in order, without blocking the test).
func (p *proc) send(b []byte) { p.input <- b }

// waitFor waits until cond holds for the frames so far, or the process
// has exited (cond is checked once more then), or answerBound has passed
// since the start, which is a test error. It reports whether cond holds.
func (p *proc) waitFor(what string, cond func(frames []string) bool) bool {
	p.t.Helper()
	bound := time.NewTimer(time.Until(p.start.Add(answerBound)))
	defer bound.Stop()
	for {
		p.mu.Lock()
		ok := cond(p.frames)
		n := len(p.frames)
		p.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-p.ended:
			p.mu.Lock()
			defer p.mu.Unlock()
			return cond(p.frames)
		default:
		}
		select {
		case <-p.more:
		case <-p.ended:
		case <-bound.C:
			p.t.Errorf("eska: no %s within %s (%d frames so far)", what, answerBound, n)
			return false
		}
	}
}

// finish closes stdin and waits for the exit; it returns the frames, the
// standard error and the exit code.
func (p *proc) finish() (frames []string, stderr string, code int) {
	p.t.Helper()
	close(p.input)
	select {
	case <-p.ended:
	case <-time.After(exitBound):
		p.cmd.Process.Kill()
		<-p.ended
		p.t.Errorf("eska did not exit within %s after the end of its input", exitBound)
	}
	<-p.wrote
	err := p.cmd.Wait()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		p.t.Fatal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.readErr != nil {
		p.t.Fatalf("stdout is not only frames: %v (after %d frames)", p.readErr, len(p.frames))
	}
	return p.frames, p.errb.String(), code
}

// runProcess feeds input to `eska ide --stdio`, waits until the answers
// the caller needs are out (until; nil waits for the process to exit by
// itself), then closes stdin and returns the response bodies, stderr and
// the exit code.
func runProcess(t *testing.T, bin string, input []byte, what string, until func(frames []string) bool) (bodies []string, stderr string, code int) {
	t.Helper()
	p := startProc(t, bin)
	p.send(input)
	if until == nil {
		what, until = "exit", func([]string) bool { return false }
	}
	p.waitFor(what, until)
	return p.finish()
}

// atOnce closes stdin as soon as the input is sent.
func atOnce([]string) bool { return true }

// responses holds once n frames are out.
func responses(n int) func([]string) bool {
	return func(frames []string) bool { return len(frames) >= n }
}

// answered holds once a response with this id (a JSON string) is out.
func answered(id string) func([]string) bool {
	return func(frames []string) bool { return indexOfID(frames, id) >= 0 }
}

// indexOfID is the index of the response with this id, or -1.
func indexOfID(frames []string, id string) int {
	want, _ := json.Marshal(id)
	for i, f := range frames {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(f), &m) == nil && string(m.ID) == string(want) {
			return i
		}
	}
	return -1
}

// sentinelID names the request a test appends after a case's messages:
// the single worker answers in order, so once its answer is out, so is
// everything the case's messages caused. The method does not exist, so
// it changes nothing.
const sentinelID = "sentinel"

const sentinel = `{"jsonrpc":"2.0","id":"` + sentinelID + `","method":"test/sentinel"}`

// withoutSentinel drops the sentinel's answer, which must come last.
func withoutSentinel(t *testing.T, what string, frames []string) []string {
	t.Helper()
	i := indexOfID(frames, sentinelID)
	switch {
	case i < 0:
		t.Errorf("%s: the sentinel request was not answered", what)
		return frames
	case i != len(frames)-1:
		t.Errorf("%s: frames after the sentinel's answer: %v", what, frames[i+1:])
	}
	return append(frames[:i:i], frames[i+1:]...)
}
