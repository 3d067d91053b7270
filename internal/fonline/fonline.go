// Package fonline reaches FOnline's AiControl reference peers in the shared
// corpus (../shared/corpus/fonline): its canonical contract, its Python
// client and its Python sample listener. Tests and the bench tool run them
// in place with python3; nothing of them is copied into the project.
package fonline

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/contractkit/contractkit/internal/repotest"
	"github.com/contractkit/contractkit/internal/syncbuf"
)

// Files of the reference, relative to its folder.
const (
	ContractFile = "BuildTools/AiControlProtocol.json"
	ClientFile   = "BuildTools/ai_control_client.py"
	SampleFile   = "Examples/AiControlSample/ai_control_sample.py"
)

// readyPrefix starts the line the reference sample prints once it listens.
const readyPrefix = "AI_CONTROL_SAMPLE_READY "

// ErrAbsent means the shared corpus is not beside the repository.
var ErrAbsent = errors.New("the FOnline reference is not in ../shared/corpus/fonline")

// ErrNoPython means python3 is not on PATH.
var ErrNoPython = errors.New("python3 is not on PATH (make test installs it: apt-get install -y python3)")

// Dir returns the reference's folder for a repository root, or ErrAbsent.
func Dir(root string) (string, error) {
	dir := filepath.Join(root, "..", "shared", "corpus", "fonline")
	if _, err := os.Stat(filepath.Join(dir, ContractFile)); err != nil {
		return "", fmt.Errorf("%w (%s)", ErrAbsent, dir)
	}
	return filepath.Clean(dir), nil
}

// Python returns the path of the python3 interpreter, or ErrNoPython.
// A python3 on PATH may be a wrapper script (pyenv's shims are): the
// interpreter it runs is asked for once, so that each run of a reference
// tool does not pay for the wrapper.
func Python() (string, error) {
	pythonOnce.Do(func() {
		p, err := exec.LookPath("python3")
		if err != nil {
			pythonErr = ErrNoPython
			return
		}
		pythonPath = p
		out, err := exec.Command(p, "-c", "import sys; print(sys.executable)").Output()
		if exe := strings.TrimSpace(string(out)); err == nil && exe != "" {
			pythonPath = exe
		}
	})
	return pythonPath, pythonErr
}

var (
	pythonOnce sync.Once
	pythonPath string
	pythonErr  error
)

// Sample is a running reference sample listener.
type Sample struct {
	Host string
	Port int

	cmd    *exec.Cmd
	stderr *syncbuf.Buffer
	done   chan struct{}
	err    error
}

// StartSample runs the reference sample on a free loopback port with env
// added to the environment, and waits (up to timeout) for its ready line.
// args are extra flags of the sample. Stop it with Stop.
func StartSample(dir string, env []string, timeout time.Duration, args ...string) (*Sample, error) {
	py, err := Python()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(py, append([]string{"-u", filepath.Join(dir, SampleFile), "--port", "0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &Sample{cmd: cmd, stderr: &syncbuf.Buffer{}, done: make(chan struct{})}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	ready := make(chan string, 1)
	go func() {
		br := bufio.NewReader(stdout)
		line, _ := br.ReadString('\n')
		ready <- line
		_, _ = io.Copy(io.Discard, br)
	}()
	select {
	case line := <-ready:
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), readyPrefix)
		var addr struct {
			Host string `json:"host"`
			Port int    `json:"port"`
		}
		if !ok || json.Unmarshal([]byte(rest), &addr) != nil || addr.Port == 0 {
			s.Stop()
			return nil, fmt.Errorf("reference sample: unexpected first line %q (stderr: %s)", line, s.stderr)
		}
		s.Host, s.Port = addr.Host, addr.Port
		return s, nil
	case <-time.After(timeout):
		s.Stop()
		return nil, fmt.Errorf("reference sample: no ready line within %v (stderr: %s)", timeout, s.stderr)
	}
}

// Stop interrupts the sample (it stops on SIGINT) and waits for it; after
// five seconds it is killed.
func (s *Sample) Stop() {
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// Pid is the sample's process id.
func (s *Sample) Pid() int { return s.cmd.Process.Pid }

// Stderr returns what the sample wrote on stderr so far.
func (s *Sample) Stderr() string { return s.stderr.String() }

// RunClient runs the reference client CLI with args (its --port and
// command flags) and env added to the environment, and returns its exit
// code, stdout and stderr.
func RunClient(ctx context.Context, dir string, env []string, args ...string) (int, string, string, error) {
	py, err := Python()
	if err != nil {
		return 0, "", "", err
	}
	cmd := exec.CommandContext(ctx, py, append([]string{filepath.Join(dir, ClientFile)}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String(), nil
	case err != nil:
		return 0, out.String(), errb.String(), err
	}
	return 0, out.String(), errb.String(), nil
}

// Require returns the reference's folder for a test, which is skipped with
// a clear message when the shared corpus is absent. When python is true,
// a missing python3 fails the test: make test installs it, so a silent
// skip would hide that the interop tests did not run.
func Require(t testing.TB, root string, python bool) string {
	t.Helper()
	dir, err := Dir(root)
	if err != nil {
		repotest.MissingPart(t, "skipping: %v", err)
	}
	if python {
		if _, err := Python(); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
