// Command agui checks AG-UI event streams: recorded ones, and those of a
// live agent under AG-UI 1.1.
//
//	agui check [--profile stand|ag-ui-1.1] [--json] [FILE...]
//	agui check --url URL [--input RUN.json] [--header 'K: V']... [--save FILE] [--idle-timeout D] [--json]
//	agui tap --upstream URL [--listen 127.0.0.1:PORT] [--dir FOLDER]
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
	"golang.org/x/term"
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

const usage = `agui checks AG-UI event streams: recorded ones, and a live agent's.

Usage:
  agui check [--profile NAME] [--json] [FILE...]
  agui check --url URL [--input RUN.json] [--header 'K: V']... [--save FILE]
             [--idle-timeout D] [--json]
  agui tap --upstream URL [--listen 127.0.0.1:PORT] [--dir FOLDER]
  agui serve [--port N] [--host ADDRESS]
  agui help
  agui --version

A record is a local file of AG-UI events, either one JSON array of events
or one event object per line. agui reads it strictly and within hard
limits, checks every event and the order of events, applies state deltas,
and shows what the record would show a user: messages, tool-call proposals,
steps, the final state and the outcome the run declares. Checking a record,
it never runs a tool, fetches a URL, connects to anything or decides an
interrupt; only --url and agui tap talk to an agent, and only as asked.

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
  2  an input could not be checked at all (missing, unreadable, empty, a URL
     given as a file, an agent that could not be reached or read, a live
     run cut by Ctrl-C), a record --save could not keep, or the command
     line is wrong

Checking a live agent (profile ag-ui-1.1; the stand checks local records only):
  --url URL          POST a run to the agent and check its event stream
                     (text/event-stream) event by event as it arrives,
                     whatever type an event's event: field names (the
                     reference client, @ag-ui/client's HttpAgent, reads them
                     all); each finding is printed on stderr when found, the
                     report at the end is the one agui check --profile
                     ag-ui-1.1 gives for the saved record
  --input RUN.json   the RunAgentInput to send (default: no messages, fresh ids)
  --header 'K: V'    a request header, in place of agui's own of that name
                     (Content-Type, Accept; Host names the host); repeat
                     for more
  --save FILE        save the events as received, one per line, as a record
                     when the run ends; FILE is a new file, or a regular file
                     that is replaced and keeps its permissions (a file
                     this user may not write, a link, a folder, a device or
                     a pipe is refused before the run is asked for, and so
                     is a folder agui cannot write in, a link on the way
                     that is neither root's nor this user's or that others
                     may replace (its folder writable by them, not sticky
                     as /tmp is), and a file over %d MiB, whose bytes
                     agui could not compare cheaply). A run the agent cuts
                     is saved as the cut record it leaves; a run interrupted
                     (Ctrl-C) leaves FILE as it was, and so does a FILE
                     changed during the run (its bytes, mode, size or time).
                     The record is a new file under FILE's name: other hard
                     links to FILE keep the old bytes
  --idle-timeout D   give up when nothing arrives for D, a duration with its
                     unit such as 30s or 5m (default %s); a stream
                     left open after its run ended is then judged
  A connection problem (refused, TLS, a redirect, an answer that is not 2xx
  or not an event stream, silence during the run) exits 2 with one line
  saying which. A stream the agent cuts is judged as the cut record it
  leaves. Ctrl-C or SIGTERM cuts the run: nothing is saved, one line says
  what was cut, exit 2. A record --save could not keep is said in one line
  when it is lost, the report printed all the same, and the exit status is 2.

agui tap sits between a frontend and its agent, passes every byte on
unchanged, and checks and saves each run's stream; run agui tap --help.

agui serve shows the same checker as a page in your browser, served on
this machine only; run agui serve --help for the details.

Examples:
  agui check                          # the tutorial example
  agui check run.ndjson               # a record, under the stand profile
  agui check --profile ag-ui-1.1 run.json
  recorder | agui check --json -      # a record on standard input, as JSON
  agui check --url http://127.0.0.1:8000/agent --save run.ndjson
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
	fmt.Fprintf(w, usage, agui.DefaultProfile, strings.TrimRight(names.String(), "\n"), maxCompared>>20, defaultIdleTimeout)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return exitUnusable
	}
	switch args[0] {
	case "check":
		if wantsLive(args[1:]) {
			return liveCheck(args[1:], stdout, stderr)
		}
	case "tap":
		return tapCommand(args[1:], stdout, stderr, nil, nil)
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
			return nil, fmt.Errorf("a URL is not a record: to check a live agent, give its URL with --url (under %s) [%s]", contract.ProfileAgUI11, contract.RuleUnsupportedNetwork)
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

// isTerminal reports whether r is a terminal. A character device is not
// enough: /dev/null is one, and a recorder that redirects from it must not
// be told to press Ctrl-D.
func isTerminal(r any) bool {
	f, ok := r.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

func checkOne(data []byte, opt agui.Options, asJSON bool, stdout, stderr io.Writer) int {
	res, err := agui.Check(data, opt)
	if err != nil {
		fmt.Fprintf(stderr, "agui check: %s: %v\n", opt.Source, err)
		return exitUnusable
	}
	return renderResult(res, asJSON, stdout, stderr)
}

// renderResult prints a result for people or as JSON and returns the exit
// code it calls for.
func renderResult(res *agui.Result, asJSON bool, stdout, stderr io.Writer) int {
	opt := agui.Options{Source: res.Source}
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
