package docsrun

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractkit/contractkit/internal/docscheck"
)

func parsePage(t *testing.T, src string) ([]Block, []error) {
	t.Helper()
	page, problems := docscheck.Parse("Docs/en/how-to/new.md", []byte(src))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	return Blocks(page)
}

// An unmarked shell block of a new page fails with its page, line and
// what to write; a skip needs its reason; an output block belongs right
// after a sh run block.
func TestBlocksMarks(t *testing.T) {
	_, errs := parsePage(t, "# New\n\n```sh\nagui serve\n```\n")
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "Docs/en/how-to/new.md:3: this sh block is not marked") ||
		!strings.Contains(errs[0].Error(), `skip="why it cannot run here"`) {
		t.Errorf("unmarked: %v", errs)
	}
	for src, want := range map[string]string{
		"```console skip\n$ x\n```\n":                                               "skipped without a reason",
		"```sh run skip=\"a\"\nx\n```\n":                                            "both run and skip",
		"```sh run when=\"later\"\nx\n```\n":                                        `unknown mark "when"`,
		"```sh skip=unquoted\nx\n```\n":                                             "double quotes",
		"```sh skip=\"a\"\nx\n```\n\n```text output\ny\n```\n":                      "right after a sh run block",
		"```sh run\nx\n```\n\ntext\n\n```json\n{}\n```\n\n```text output\ny\n```\n": "right after a sh run block",
	} {
		_, errs := parsePage(t, src)
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), want) {
			t.Errorf("%q: %v, want %q", src, errs, want)
		}
	}
	blocks, errs := parsePage(t, "```sh run corpus=\"designer\"\necho hi\n```\n\n```text output\nhi\n```\n\n```go\nx\n```\n\n```sh skip=\"needs Designer\"\ndesigner\n```\n")
	if len(errs) != 0 || len(blocks) != 2 {
		t.Fatalf("%v %v", blocks, errs)
	}
	if b := blocks[0]; b.Mode != Run || b.Corpus != "designer" || !b.HasExpect || b.Expect != "hi\n" {
		t.Errorf("run block: %+v", b)
	}
	if b := blocks[1]; b.Mode != Skip || b.Reason != "needs Designer" {
		t.Errorf("skip block: %+v", b)
	}
}

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		want, got string
		ok        bool
	}{
		{"a\nb\n", "a\nb\n", true},
		{"a\nb\n", "a\nc\n", false},
		{"a\n...\nz\n", "a\nz\n", true},
		{"a\n...\nz\n", "a\nb\nc\nz\n", true},
		{"a\n...\nz\n", "a\nb\n", false},
		{"a\n", "a\nb\n", false},
		{"port <port>, seq <n>\n", "port 43011, seq 12\n", true},
		{"port <port>\n", "port x\n", false},
		{"{\"a\":1,...}\n", "{\"a\":1,\"b\":2}\n", true},
		{"sum <sha256>\n", "sum " + strings.Repeat("ab", 32) + "\n", true},
		{"sum <sha256>\n", "sum " + strings.Repeat("ab", 31) + "\n", false},
		{"x (y) [z]?\n", "x (y) [z]?  \n", true},
	} {
		if ok, why := Match(c.want, c.got); ok != c.ok {
			t.Errorf("Match(%q, %q) = %v (%s), want %v", c.want, c.got, ok, why, c.ok)
		}
	}
	if _, why := Match("a\nb\n", "a\nc\n"); why != `expected line 2 "b", got output line 2 "c"` {
		t.Errorf("message: %s", why)
	}
}

// A page runs in one shell: a variable set by one block is seen by the
// next; a block that fails stops the page; a transcript's output is
// compared command by command; a page that never ends is stopped.
func TestRunPage(t *testing.T) {
	env := func(t *testing.T) Env {
		dir := t.TempDir()
		state := filepath.Join(dir, "state")
		os.Mkdir(state, 0o755)
		return Env{Work: dir, State: state, Vars: []string{"PATH=" + os.Getenv("PATH")}}
	}
	blocks := []Block{
		{Page: "p.md", Line: 1, Lang: "sh", Mode: Run, Text: "export X=7\n"},
		{Page: "p.md", Line: 5, Lang: "sh", Mode: Run, Text: "echo x=$X\n", Expect: "x=7\n", HasExpect: true},
		{Page: "p.md", Line: 9, Lang: "console", Mode: Run, Text: "$ echo one\none\n$ echo two\nthree\n"},
		{Page: "p.md", Line: 13, Lang: "sh", Mode: Run, Text: "false\necho not here\n"},
		{Page: "p.md", Line: 17, Lang: "sh", Mode: Run, Text: "true\n"},
		{Page: "p.md", Line: 21, Lang: "sh", Mode: Skip, Reason: "needs Designer"},
	}
	rs := RunPage(context.Background(), env(t), blocks, time.Minute)
	if rs[0].Problem != "" || rs[1].Problem != "" {
		t.Errorf("blocks 1-2: %q %q", rs[0].Problem, rs[1].Problem)
	}
	if !strings.Contains(rs[2].Problem, "$ echo two") || !strings.Contains(rs[2].Problem, `expected line 1 "three", got output line 1 "two"`) {
		t.Errorf("transcript: %q", rs[2].Problem)
	}
	if !strings.Contains(rs[3].Problem, "the block failed") {
		t.Errorf("failing block: %q", rs[3].Problem)
	}
	if rs[4].Ran || !strings.Contains(rs[4].Skipped, "not reached") {
		t.Errorf("after the failure: %+v", rs[4])
	}
	if rs[5].Ran || rs[5].Skipped != "needs Designer" {
		t.Errorf("skipped: %+v", rs[5])
	}

	rs = RunPage(context.Background(), env(t), []Block{{Page: "p.md", Line: 1, Lang: "sh", Mode: Run, Text: "sleep 60 &\nwait\n"}}, 2*time.Second)
	if !strings.Contains(rs[0].Problem, "did not finish within 2s") {
		t.Errorf("never-ending page: %q", rs[0].Problem)
	}
}

// The go stand-in gives the commands built from the checkout for the uses
// the pages make of go, and refuses any other use with a message.
func TestGoShim(t *testing.T) {
	dir := t.TempDir()
	bin, shim, gopath := filepath.Join(dir, "bin"), filepath.Join(dir, "shim"), filepath.Join(dir, "gopath")
	for _, d := range []string{bin, shim} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bin, "agui"), []byte("#!/bin/sh\necho agui \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := writeShim(shim); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		cmd := exec.Command(filepath.Join(shim, "go"), args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "DOCSRUN_BIN=" + bin, "GOPATH=" + gopath}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("run", "./cmd/agui", "check", "x"); err != nil || out != "agui check x\n" {
		t.Errorf("go run: %q %v", out, err)
	}
	if out, err := run("build", "-o", "out/agui", "./cmd/agui"); err != nil {
		t.Errorf("go build: %q %v", out, err)
	} else if _, err := os.Stat(filepath.Join(dir, "out", "agui")); err != nil {
		t.Errorf("go build wrote nothing: %v", err)
	}
	if out, err := run("install", "github.com/contractkit/contractkit/cmd/agui@latest"); err != nil {
		t.Errorf("go install: %q %v", out, err)
	} else if _, err := os.Stat(filepath.Join(gopath, "bin", "agui")); err != nil {
		t.Errorf("go install put nothing in GOPATH/bin: %v", err)
	}
	if out, err := run("env", "GOPATH"); err != nil || out != gopath+"\n" {
		t.Errorf("go env GOPATH: %q %v", out, err)
	}
	for _, args := range [][]string{{"version"}, {"run", "main.go"}, {"install", "example.com/x@latest"}, {"install", "github.com/contractkit/contractkit/cmd/nope@latest"}} {
		out, err := run(args...)
		if err == nil || !strings.Contains(out, "is not something the test stands in for") {
			t.Errorf("go %v: %q %v, want a refusal", args, out, err)
		}
	}
}
