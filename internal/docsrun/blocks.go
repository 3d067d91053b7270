// Package docsrun runs the shell blocks of README.md and of the how-to
// pages as a reader would paste them, and compares the output a page shows
// with the output the commands really print.
//
// # Marking a block
//
// Every fenced block whose language is sh, bash, shell or console carries a
// mark after the language in its info string (GitHub shows only the
// language, so the mark is invisible to a reader; the EN/RU structure check
// keeps both languages' marks equal):
//
//	```sh run                     run it; every command must succeed
//	```console run                a transcript: each "$ " line is run, the
//	                              lines under it are its expected output
//	```sh skip="why not here"     not run (needs Designer, a GitHub runner,
//	                              rewrites the checkout, ...); counted with
//	                              its reason in the test's summary
//	```text output                right after a "sh run" block: the output
//	                              that block prints (stdout and stderr)
//
// A run block may add corpus="NAME" (e.g. corpus="designer"): it needs
// ../shared/corpus/NAME and, when that is absent, is skipped with the
// reason (a failure under CONTRACTKIT_REQUIRE_PARTS=1, as CI sets). A block
// of any other language (json, go, toml, text without "output") is not run.
//
// Expected output is compared line by line after trimming trailing spaces.
// A line holding only "..." stands for any number of lines (none included);
// "..." inside a line stands for any text on that line. <port>, <n>,
// <sha256>, <hex> and <version> stand for a port, a decimal number, 64 hex
// digits, any hex digits and a version or commit string.
//
// # How a page runs
//
// The blocks of one page run in page order in one bash process (so
// exported variables, background servers and files carry from block to
// block), in a scratch copy of the checkout with ../shared beside it. A
// server a block starts in the background must be waited for in the block
// itself, the way the page tells the reader (its ready line); the test
// adds no wait of its own. Every background process is stopped when the
// page ends. The commands come from the checkout, each built once: a "go"
// first on PATH stands in for go run ./cmd/X, go build -o OUT ./cmd/X and
// go install github.com/contractkit/contractkit/cmd/X@latest (and cmd/...),
// and refuses any other use. Russian pages are not run: their blocks equal
// the English ones (internal/docscheck checks it).
package docsrun

import (
	"fmt"
	"strings"

	"github.com/contractkit/contractkit/internal/docscheck"
)

// Mode says what the docs test does with a block.
type Mode int

const (
	// NotShell is a block of another language; it is not run.
	NotShell Mode = iota
	// Run is run, its output compared where the page shows one.
	Run
	// Skip is not run; Reason says why.
	Skip
	// Output is the expected output of the run block before it.
	Output
)

// Block is one fenced block of a page with its mark read.
type Block struct {
	Page   string
	Line   int
	Lang   string
	Text   string
	Mode   Mode
	Reason string // Skip: why it cannot run here
	Corpus string // Run: the ../shared corpus it needs, if any
	// Expect is the output the page shows for a sh run block (the text
	// output block after it), or "" with HasExpect false.
	Expect    string
	HasExpect bool
}

var shellLangs = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true}

// howToMark is the advice every marking error ends with.
const howToMark = `mark it in its info string: "run" (show its output in a ` + "```text output" + ` block right after it, or write it as a console transcript), or skip="why it cannot run here"; see internal/docsrun/blocks.go`

// Blocks reads the marks of a page's fenced blocks. It returns the blocks
// the docs test cares about (shell blocks, with their expected output
// attached) and one error per block it cannot accept, each naming the page
// and line and what to do.
func Blocks(page *docscheck.Page) ([]Block, []error) {
	var out []Block
	var errs []error
	for i, c := range page.Code {
		b, err := readMark(page.Path, c)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		switch b.Mode {
		case NotShell:
			continue
		case Output:
			prev := -1
			if len(out) > 0 && i > 0 && out[len(out)-1].Line == page.Code[i-1].Line {
				prev = len(out) - 1
			}
			if prev < 0 || out[prev].Mode != Run || out[prev].Lang == "console" || out[prev].HasExpect {
				errs = append(errs, fmt.Errorf("%s:%d: a text output block must come right after a sh run block (a console transcript carries its own output)", page.Path, c.Line))
				continue
			}
			out[prev].Expect, out[prev].HasExpect = b.Text, true
			continue
		}
		out = append(out, b)
	}
	return out, errs
}

// readMark parses one block's info string: the language, then words and
// key="quoted value" pairs.
func readMark(path string, c docscheck.CodeBlock) (Block, error) {
	b := Block{Page: path, Line: c.Line, Text: c.Text}
	lang, rest, _ := strings.Cut(strings.TrimSpace(c.Info), " ")
	b.Lang = lang
	fields, err := infoFields(rest)
	if err != nil {
		return b, fmt.Errorf("%s:%d: info string %q: %v; %s", path, c.Line, c.Info, err, howToMark)
	}
	if !shellLangs[lang] {
		if lang == "text" {
			if _, ok := fields["output"]; ok {
				b.Mode = Output
			}
		}
		return b, nil
	}
	_, run := fields["run"]
	reason, skip := fields["skip"]
	corpus, hasCorpus := fields["corpus"]
	for k := range fields {
		if k != "run" && k != "skip" && k != "corpus" {
			return b, fmt.Errorf("%s:%d: a %s block has the unknown mark %q; %s", path, c.Line, lang, k, howToMark)
		}
	}
	switch {
	case run && skip:
		return b, fmt.Errorf("%s:%d: a %s block is marked both run and skip; keep one", path, c.Line, lang)
	case run:
		b.Mode, b.Corpus = Run, corpus
		if hasCorpus && corpus == "" {
			return b, fmt.Errorf(`%s:%d: corpus= needs the corpus's name, e.g. corpus="ssl"`, path, c.Line)
		}
	case skip:
		if strings.TrimSpace(reason) == "" {
			return b, fmt.Errorf(`%s:%d: a %s block is skipped without a reason: write skip="why it cannot run here"`, path, c.Line, lang)
		}
		if hasCorpus {
			return b, fmt.Errorf("%s:%d: corpus= belongs to a run block", path, c.Line)
		}
		b.Mode, b.Reason = Skip, reason
	default:
		return b, fmt.Errorf("%s:%d: this %s block is not marked for the docs test: %s", path, c.Line, lang, howToMark)
	}
	return b, nil
}

// infoFields splits `run corpus="ssl"` or `skip="needs Designer"` into
// words and key/value pairs; a word alone maps to "".
func infoFields(s string) (map[string]string, error) {
	m := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		end := strings.IndexAny(s, " =")
		if end < 0 {
			end = len(s)
		}
		key := s[:end]
		if key == "" {
			return nil, fmt.Errorf("a mark starts with %q", s[:1])
		}
		s = s[end:]
		val := ""
		if strings.HasPrefix(s, "=") {
			s = s[1:]
			if !strings.HasPrefix(s, `"`) {
				return nil, fmt.Errorf("the value of %s must be in double quotes", key)
			}
			close := strings.IndexByte(s[1:], '"')
			if close < 0 {
				return nil, fmt.Errorf("the value of %s has no closing quote", key)
			}
			val, s = s[1:1+close], s[2+close:]
		}
		if _, dup := m[key]; dup {
			return nil, fmt.Errorf("%s is given twice", key)
		}
		m[key] = val
	}
	return m, nil
}
