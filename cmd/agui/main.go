// Command agui checks recorded AG-UI event streams without a live agent.
//
//	agui check [--profile stand|ag-ui-1.1] [--json] [FILE...]
//	agui serve [--port N] [--host ADDRESS]
//	agui --version
//
// Run agui --help for the details.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/contractkit/contractkit/agui"
	"github.com/contractkit/contractkit/agui/page"
	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/internal/buildinfo"
)

// Exit codes.
const (
	exitAccepted = 0 // every record is accepted
	exitRejected = 1 // a record breaks a rule of the profile
	exitUnusable = 2 // an input could not be checked at all, or the command line is wrong
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `agui checks recorded AG-UI event streams, without a live agent.

Usage:
  agui check [--profile NAME] [--json] [FILE...]
  agui serve [--port N] [--host ADDRESS]
  agui help
  agui --version

A record is a local file of AG-UI events, either one JSON array of events
or one event object per line. agui reads it strictly and within hard
limits, checks every event and the order of events, applies state deltas,
and shows what the record would show a user: messages, tool-call proposals,
steps, the final state and the outcome the run declares. It never runs a
tool, fetches a URL, connects to anything or decides an interrupt.

  FILE        a record to check; "-" reads standard input. Several files
              are checked one after another.
              With no FILE, agui checks its built-in tutorial example and
              says so clearly: try it first to see what a report looks like.

Options:
  --profile NAME   the profile to check under (default %s):
%s
  --json           print the result as JSON instead of the report for people;
                   with several files, one JSON document per record, in order
  -h, --help       show this help

Every finding names the event (counted from 0 in file order), the JSON
pointer of the value inside that event and the id of the rule it breaks;
the rules are described in Docs/en/reference/ag-ui/ of the repository.

Exit status:
  0  every record was accepted
  1  a record was rejected (it breaks a rule of the profile)
  2  an input could not be checked at all (missing, unreadable, empty, a URL)
     or the command line is wrong

agui serve shows the same checker as a page in your browser, served on
this machine only; run agui serve --help for the details.

Examples:
  agui check                          # the tutorial example
  agui check run.ndjson               # a record, under the stand profile
  agui check --profile ag-ui-1.1 run.json
  recorder | agui check --json -      # a record on standard input, as JSON
`

func printUsage(w io.Writer) {
	var names strings.Builder
	for _, n := range agui.ProfileNames() {
		p, _ := agui.LookupProfile(n)
		line := "                     " + n
		if p.Revision() != "" {
			line += " (revision " + p.Revision() + ")"
		}
		names.WriteString(line + "\n")
	}
	fmt.Fprintf(w, usage, agui.DefaultProfile, strings.TrimRight(names.String(), "\n"))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return exitUnusable
	}
	switch args[0] {
	case "check":
	case "serve":
		return serveCommand(args[1:], stdout, stderr, page.Embedded, nil, nil)
	case "help", "-h", "--help", "-help":
		printUsage(stdout)
		return exitAccepted
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, buildinfo.Line("agui"))
		return exitAccepted
	default:
		fmt.Fprintf(stderr, "agui: unknown command %q; run agui --help\n", args[0])
		return exitUnusable
	}
	fs := flag.NewFlagSet("agui check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	profile := fs.String("profile", agui.DefaultProfile, "")
	asJSON := fs.Bool("json", false, "")
	// Flags may come before or after the files; "--" ends the flags.
	var files []string
	for rest := args[1:]; len(rest) > 0; {
		ended := len(rest) > 0 && rest[0] == "--"
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printUsage(stdout)
				return exitAccepted
			}
			fmt.Fprintf(stderr, "agui check: %v; run agui --help\n", err)
			return exitUnusable
		}
		consumed := len(rest) - fs.NArg()
		if ended || (consumed > 0 && rest[consumed-1] == "--") {
			files = append(files, fs.Args()...)
			break
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if _, err := agui.LookupProfile(*profile); err != nil {
		fmt.Fprintf(stderr, "agui check: %v\n", err)
		return exitUnusable
	}
	if len(files) == 0 {
		return checkOne(agui.TutorialExample(), agui.Options{Profile: *profile, Source: agui.TutorialSource, Example: true}, *asJSON, stdout, stderr)
	}
	worst := exitAccepted
	for i, name := range files {
		if i > 0 && !*asJSON {
			fmt.Fprintln(stdout)
		}
		data, err := readInput(name, stdin, stderr)
		code := exitUnusable
		if err != nil {
			fmt.Fprintf(stderr, "agui check: %s: %v\n", name, err)
		} else {
			code = checkOne(data, agui.Options{Profile: *profile, Source: name}, *asJSON, stdout, stderr)
		}
		worst = max(worst, code)
	}
	return worst
}

// readInput reads a record from a file or, for "-", standard input. It
// reads one byte more than the size limit, so that an oversized record is
// recognised without reading all of it. When standard input is a
// terminal, a hint on stderr says what agui is waiting for.
func readInput(name string, stdin io.Reader, stderr io.Writer) ([]byte, error) {
	for _, scheme := range []string{"http://", "https://", "ws://", "wss://", "ftp://"} {
		if strings.HasPrefix(strings.ToLower(name), scheme) {
			return nil, fmt.Errorf("a URL is not a record: agui reads local files only and opens no network connection [%s]", contract.RuleUnsupportedNetwork)
		}
	}
	var r io.Reader = stdin
	if name == "-" && isTerminal(stdin) {
		fmt.Fprintln(stderr, "agui check: reading a record from the terminal; paste or type the events, then end the input with Ctrl-D (Ctrl-Z and Enter on Windows). To check a file, give its name instead of -.")
	}
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return nil, fmt.Errorf("is a directory, not a record")
		}
		r = f
	}
	return io.ReadAll(io.LimitReader(r, contract.LimitInputBytes+1))
}

// isTerminal reports whether r is a character device, as a terminal is.
// Pipes and files are not, so recorders piping into agui see no hint.
func isTerminal(r io.Reader) bool {
	st, ok := r.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		return false
	}
	info, err := st.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

func checkOne(data []byte, opt agui.Options, asJSON bool, stdout, stderr io.Writer) int {
	res, err := agui.Check(data, opt)
	if err != nil {
		fmt.Fprintf(stderr, "agui check: %s: %v\n", opt.Source, err)
		return exitUnusable
	}
	render := res.RenderText
	if asJSON {
		render = res.RenderJSON
	}
	out, err := render()
	stdout.Write(out)
	var refused *agui.RefusedError
	if err != nil && !errors.As(err, &refused) {
		fmt.Fprintf(stderr, "agui check: %s: %v\n", opt.Source, err)
		return exitUnusable
	}
	if !res.Accepted {
		return exitRejected
	}
	return exitAccepted
}
