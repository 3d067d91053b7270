// Command eska serves the eska IDE API.
//
// Usage:
//
//	eska ide --stdio    serve the IDE API over stdin/stdout (JSON-RPC 2.0 in Content-Length frames)
//	eska version        print the version
//
// In --stdio mode stdout carries protocol frames only; short machine
// diagnostics go to stderr. Exit codes follow the contract: 0 after exit
// following shutdown or at end of input between frames, 1 after exit
// without shutdown or when stdout is closed, 2 on a framing error.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/contractkit/contractkit/ide"
	"github.com/contractkit/contractkit/ide/rpc"
)

// version is this build of eska, reported by initialize.
const version = "0.1.0"

const usage = `usage: eska <command>

Commands:
  ide --stdio   serve the eska IDE API on stdin and stdout: JSON-RPC 2.0 in
                Content-Length frames; stdout carries frames only, stderr
                short machine diagnostics
  version       print the version

This build speaks IDE API 1.0 to 1.11. Its Designer XML backend is not
built yet: workspace/open reports a missing eska.toml, or that the sources
cannot be read, and methods that need a session answer unknown_session.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 2 && args[0] == "ide" && args[1] == "--stdio":
		// A closed stdout must be an error on write (exit 1), not SIGPIPE.
		signal.Ignore(syscall.SIGPIPE)
		var srv *rpc.Server
		h := ide.NewServer(version, func(code string) { srv.Diag(code) })
		srv = rpc.NewServer(h.Config(stderr))
		return srv.Run(stdin, stdout)
	case len(args) == 1 && args[0] == "version":
		fmt.Fprintln(stdout, "eska", version)
		return 0
	case len(args) == 1 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help"):
		fmt.Fprint(stderr, usage)
		return 0
	case len(args) >= 1 && args[0] == "ide":
		fmt.Fprintln(stderr, "eska ide: only --stdio is supported")
		return 2
	}
	fmt.Fprint(stderr, usage)
	return 2
}
