// Command testsummary reads the event stream of go test -json on stdin and
// prints what go test prints without -v — the output of failing tests, one
// line per package — and then every skipped test with its reason, so that
// a run says what it did not check. It exits 1 when a test or package
// failed (or the stream ends without a package's result), else 0; make
// test runs it behind a pipefail, so go test's own status counts too.
//
// With -skips FILE the list of skips is written to FILE instead of stdout,
// for a caller that prints it after later passes.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	skipsFile := flag.String("skips", "", "write the summary of skipped tests to this file instead of stdout")
	flag.Parse()
	skipOut := io.Writer(os.Stdout)
	if *skipsFile != "" {
		f, err := os.Create(*skipsFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testsummary:", err)
			os.Exit(2)
		}
		defer f.Close()
		skipOut = f
	}
	failed, err := summarize(os.Stdin, os.Stdout, skipOut)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}
