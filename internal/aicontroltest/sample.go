// Package aicontroltest runs the AiControl sample game (cmd/aicontrol-sample)
// as a process for the tests of the commands that talk to it.
package aicontroltest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/contractkit/contractkit/internal/syncbuf"
)

// Sample is a running aicontrol-sample.
type Sample struct {
	Cmd  *exec.Cmd
	Port int // the loopback port its ready line names

	stderr syncbuf.Buffer
}

// Stderr is what the sample has written to stderr so far.
func (s *Sample) Stderr() string { return s.stderr.String() }

// StartSample runs bin (a built aicontrol-sample) on a free loopback port
// with env added to the environment and args after --port 0, and waits for
// its ready line; it is stopped with SIGTERM when the test ends.
func StartSample(t testing.TB, bin string, env []string, args ...string) *Sample {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--port", "0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &Sample{Cmd: cmd}
	cmd.Stderr = &s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("the sample did not stop on SIGTERM")
		}
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case line, ok := <-lines:
		if !ok {
			t.Fatalf("the sample exited without a ready line: %s", s.Stderr())
		}
		var ready struct {
			Ready bool   `json:"ready"`
			Host  string `json:"host"`
			Port  int    `json:"port"`
		}
		if err := json.Unmarshal([]byte(line), &ready); err != nil || !ready.Ready || ready.Host != "127.0.0.1" || ready.Port == 0 {
			t.Fatalf("the sample's ready line %q: %v", line, err)
		}
		s.Port = ready.Port
	case <-time.After(20 * time.Second):
		t.Fatal("no ready line from the sample")
	}
	return s
}
