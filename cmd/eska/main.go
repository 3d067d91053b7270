// Command eska serves the eska IDE API.
//
// Usage:
//
//	eska ide --stdio            serve the IDE API over stdin/stdout (JSON-RPC 2.0 in Content-Length frames)
//	eska tree <dir>             print the Configurator tree of the project at dir
//	eska search <dir> <text>    index the project at dir and search its metadata
//	eska property <command> ... show, preview, set and undo property edits
//	eska rename <command> ...   preview and apply the rename of an object
//	eska update [flags]         update eska from its signed release channel
//	eska version, --version     print the version of this build and of the IDE server
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
	"runtime/debug"
	"syscall"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide"
	"github.com/contractkit/contractkit/ide/rpc"
	"github.com/contractkit/contractkit/internal/buildinfo"
)

// memoryLimit is the Go runtime's soft memory limit for `eska ide --stdio`
// (GOMEMLIMIT overrides it). With GOGC=200 the heap may grow to three times
// what is live; on a configuration of eska's own scale (130k objects) that
// would be several hundred MiB, so past this limit the collector works
// harder instead. Output waiting for a slow client is outside the heap
// (ide/rpc's writer) and outside this limit. On SSL 3.1 × 16 (133,409
// records) about 105 MiB stay live after a full index; 140 MiB keeps the
// peak RSS under 150 MiB for some 5–10% more CPU time of the index than
// 224 MiB did (Docs/performance.md). Past it the collector takes at most
// half the CPU, so a larger configuration is slowed, never stalled.
const memoryLimit = 140 << 20

// usage is the command list and what this build speaks, the versions
// taken from the spec.
var usage = commands + fmt.Sprintf(speaks, gen.APIMajor, gen.SupportedAPIMinor, since(gen.CapabilityPropertyEditing), since(gen.CapabilityMetadataRename),
	since(gen.CapabilityLinkedPropertyEdits), since(gen.CapabilityUnsignedIntegerProperties))

const commands = `usage: eska <command>

Commands:
  ide --stdio          serve the eska IDE API on stdin and stdout: JSON-RPC 2.0
                       in Content-Length frames; stdout carries frames only,
                       stderr short machine diagnostics
  tree <dir>           print the Configurator tree of the project at dir
                       (-depth N, -lang ru|en: the configuration's language
                       by default, -all)
  search <dir> <text>  index the project at dir and search names and synonyms
                       (-limit N)
  property <command>   show, choices, preview, set, undo: edit properties
                       as the IDE API does (eska property for its usage)
  rename <command>     preview, apply: rename a top-level object and every
                       reference to it (eska rename for its usage)
  update               update this binary from the signed release channel
                       (--check, --to V, --allow-downgrade, --rollback,
                       --json; eska update --help for more)
  version, --version   print the version of this build and of the IDE server

`

const speaks = `This build speaks IDE API %[1]d.0 to %[1]d.%[2]d and serves Designer XML projects:
read-only unless a client opts in to property editing (from %[3]s), rename
(%[4]s), linked numerator edits (%[5]s) and unsigned 64-bit properties (%[6]s).
workspace/open takes the absolute path of a directory with an eska.toml
(or below one); the manifest is described in Docs/en/how-to/eska-ide.md#manifest.
`

// since is the version that introduced a capability, as the spec says.
func since(capability string) string {
	for _, c := range gen.CapabilityTable {
		if c.Name == capability {
			return c.Since
		}
	}
	return "?"
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 2 && args[0] == "ide" && args[1] == "--stdio":
		// A closed stdout must be an error on write (exit 1), not SIGPIPE.
		signal.Ignore(syscall.SIGPIPE)
		if os.Getenv("GOGC") == "" {
			// The backend keeps little (tens of MiB on a large
			// configuration) and allocates much while it parses: a
			// collection at twice the live heap instead of once cut a
			// full index of SSL 3.1 by a tenth for about 5 MiB more RSS.
			debug.SetGCPercent(200)
		}
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(memoryLimit)
		}
		var srv *rpc.Server
		h := ide.NewServer(version, func(code string) { srv.Diag(code) })
		srv = rpc.NewServer(h.Config(stderr))
		h.SetNotifier(srv.SendNotification)
		return srv.Run(stdin, stdout)
	case len(args) >= 1 && args[0] == "tree":
		return runTree(args[1:], stdout, stderr)
	case len(args) >= 1 && args[0] == "search":
		return runSearch(args[1:], stdout, stderr)
	case len(args) >= 1 && args[0] == "property":
		return runProperty(args[1:], stdout, stderr)
	case len(args) >= 1 && args[0] == "rename":
		return runRename(args[1:], stdout, stderr)
	case len(args) >= 1 && args[0] == "update":
		return runUpdate(args[1:], stdout, stderr)
	case len(args) == 1 && (args[0] == "version" || args[0] == "--version" || args[0] == "-version"):
		fmt.Fprintf(stdout, "%s; IDE server %s\n", buildinfo.Line(gen.ServerName), version)
		return 0
	case len(args) == 1 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help"):
		fmt.Fprint(stderr, usage)
		return 0
	case len(args) >= 1 && args[0] == "ide":
		fmt.Fprintln(stderr, "eska ide: only --stdio is supported")
		return 2
	case len(args) >= 1:
		fmt.Fprintf(stderr, "eska: unknown command %q\n\n", args[0])
	}
	fmt.Fprint(stderr, usage)
	return 2
}
