package docsrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Env is where a page runs.
type Env struct {
	Work  string   // the scratch copy of the checkout: the blocks' working directory
	State string   // where the script leaves each block's output
	Vars  []string // the process environment, PATH with the go stand-in first
	// Corpora is the ../shared/corpus folder the scratch copy sees; a
	// block marked corpus=NAME runs only when NAME is in it.
	Corpora string
}

// Result is what became of one block.
type Result struct {
	Block   Block
	Ran     bool
	Skipped string // why it did not run, when it did not
	Problem string // empty when it ran as the page says
	// MissingCorpus is set when it did not run for want of its corpus.
	MissingCorpus bool
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// command is one "$ " line of a console transcript and its shown output.
type command struct {
	cmd, expect string
}

// transcript splits a console block into its commands.
func transcript(text string) ([]command, error) {
	var cmds []command
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if c, ok := strings.CutPrefix(l, "$ "); ok {
			cmds = append(cmds, command{cmd: c})
			continue
		}
		if len(cmds) == 0 {
			return nil, fmt.Errorf("a console transcript must start with a \"$ \" command line, not %q", l)
		}
		cmds[len(cmds)-1].expect += l + "\n"
	}
	return cmds, nil
}

// RunPage runs the blocks of one page in order in one bash process and
// compares their output with the page. It stops at the first block that
// fails: what follows builds on it.
func RunPage(ctx context.Context, env Env, blocks []Block, timeout time.Duration) []Result {
	results := make([]Result, len(blocks))
	var script strings.Builder
	script.WriteString("cd \"$DOCSRUN_WORK\" || exit 97\n")
	cmds := map[int][]command{}
	for i, b := range blocks {
		results[i].Block = b
		switch {
		case b.Mode == Skip:
			results[i].Skipped = b.Reason
			continue
		case b.Corpus != "" && !isDir(filepath.Join(env.Corpora, b.Corpus)):
			results[i].Skipped, results[i].MissingCorpus = "needs ../shared/corpus/"+b.Corpus+", which is not here", true
			continue
		}
		fmt.Fprintf(&script, "printf '%d' > \"$DOCSRUN_STATE/at\"\n", i)
		if b.Lang == "console" {
			cs, err := transcript(b.Text)
			if err != nil {
				results[i].Problem = err.Error()
				continue
			}
			cmds[i] = cs
			for k, c := range cs {
				fmt.Fprintf(&script, "{\n%s\n} > \"$DOCSRUN_STATE/out.%d.%d\" 2>&1 < /dev/null; echo $? > \"$DOCSRUN_STATE/rc.%d.%d\"\n", c.cmd, i, k, i, k)
			}
		} else {
			fmt.Fprintf(&script, "set -e\n{\n%s\n} > \"$DOCSRUN_STATE/out.%d\" 2>&1 < /dev/null\nset +e\n", strings.TrimRight(b.Text, "\n"), i)
		}
		results[i].Ran = true
	}
	script.WriteString("printf done > \"$DOCSRUN_STATE/at\"\n")
	scriptPath := filepath.Join(env.State, "page.sh")
	if err := os.WriteFile(scriptPath, []byte(script.String()), 0o644); err != nil {
		for i := range results {
			if results[i].Ran {
				results[i].Problem = err.Error()
			}
		}
		return results
	}

	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", scriptPath)
	cmd.Dir = env.Work
	cmd.Env = append(append([]string{}, env.Vars...), "DOCSRUN_WORK="+env.Work, "DOCSRUN_STATE="+env.State)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The whole process group goes: the page's background servers with it.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, runErr := cmd.CombinedOutput()
	if cmd.Process != nil {
		stopGroup(cmd.Process.Pid)
	}
	at := readState(env.State, "at")
	timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)

	failedAt := -1
	if at != "done" {
		failedAt, _ = strconv.Atoi(at)
		if at == "" {
			failedAt = firstRan(results)
		}
	}
	for i := range results {
		r := &results[i]
		if !r.Ran || r.Problem != "" {
			continue
		}
		switch {
		case failedAt >= 0 && i > failedAt:
			r.Ran, r.Skipped = false, "not reached: an earlier block of the page failed"
			continue
		case failedAt == i:
			why := fmt.Sprintf("the block failed (%v)", runErr)
			if timedOut {
				why = fmt.Sprintf("the page did not finish within %v (a server not waited for, or a wait that never ends?)", timeout)
			}
			got := readState(env.State, "out."+strconv.Itoa(i))
			r.Problem = fmt.Sprintf("%s; its output:\n%s%s", why, indent(got), indent(string(out)))
			if r.Block.Lang == "console" {
				r.Problem = fmt.Sprintf("%s:\n%s", why, indent(string(out)))
			}
			continue
		}
		if r.Block.Lang == "console" {
			for k, c := range cmds[i] {
				got := readState(env.State, fmt.Sprintf("out.%d.%d", i, k))
				if ok, why := Match(c.expect, got); !ok {
					r.Problem = fmt.Sprintf("$ %s\n  %s\n  the command printed:\n%s", c.cmd, why, indent(got))
					break
				}
			}
			continue
		}
		if r.Block.HasExpect {
			got := readState(env.State, "out."+strconv.Itoa(i))
			if ok, why := Match(r.Block.Expect, got); !ok {
				r.Problem = fmt.Sprintf("the output differs from the text output block: %s\n  the block printed:\n%s", why, indent(got))
			}
		}
	}
	return results
}

// stopGroup kills what is left of a page's process group (a server a block
// left running) and waits, a few seconds at most, until none of it is
// left: the next page may listen on the same port.
func stopGroup(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
	}
}

func firstRan(rs []Result) int {
	for i, r := range rs {
		if r.Ran {
			return i
		}
	}
	return -1
}

func readState(dir, name string) string {
	b, _ := os.ReadFile(filepath.Join(dir, name))
	return string(b)
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    | ")
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String()
}
