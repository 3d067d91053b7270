package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// skip is one skipped test and the reason it printed.
type skip struct {
	pkg, test, reason string
}

// summarize copies the run's result from r to out as go test would print it
// without -v, and the skips to skipOut. failed is true when a test or a
// package failed, or a package started and never finished.
func summarize(r io.Reader, out, skipOut io.Writer) (failed bool, err error) {
	type key struct{ pkg, test string }
	outputs := map[key][]string{}
	open := map[string]bool{}
	var skips []skip
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// Not an event (go test -json can interleave build
			// output): pass it on unchanged.
			fmt.Fprintf(out, "%s\n", line)
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "start":
			open[e.Package] = true
		case "output":
			outputs[k] = append(outputs[k], e.Output)
		case "skip":
			if e.Test != "" {
				skips = append(skips, skip{e.Package, e.Test, reason(outputs[k])})
			} else {
				// A package without tests: go test's "?" line.
				delete(open, e.Package)
				printLines(out, outputs[k], "?")
			}
			delete(outputs, k)
		case "pass":
			if e.Test == "" {
				delete(open, e.Package)
				printLines(out, outputs[k], "ok")
			}
			delete(outputs, k)
		case "fail":
			failed = true
			if e.Test == "" {
				delete(open, e.Package)
			}
			// A failed test's output, or a package's own (its FAIL line,
			// a panic, a build error): all of it, as go test prints it.
			printLines(out, outputs[k], "")
			delete(outputs, k)
		}
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	var unfinished []string
	for p := range open {
		unfinished = append(unfinished, p)
	}
	sort.Strings(unfinished)
	for _, p := range unfinished {
		failed = true
		fmt.Fprintf(out, "FAIL\t%s\t(the stream ended before its result: killed or timed out)\n", p)
	}
	writeSkips(skipOut, skips)
	return failed, nil
}

// printLines prints the lines that start with prefix ("" for all), leaving
// out the === RUN, PAUSE and CONT lines go test -json adds.
func printLines(w io.Writer, lines []string, prefix string) {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) && !strings.HasPrefix(l, "=== ") {
			fmt.Fprint(w, l)
		}
	}
}

// reason is what a skipped test printed, without go test's own lines: the
// message of its t.Skip.
func reason(lines []string) string {
	var b []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		b = append(b, t)
	}
	if len(b) == 0 {
		return "(no reason given)"
	}
	return strings.Join(b, " ")
}

func writeSkips(w io.Writer, skips []skip) {
	if len(skips) == 0 {
		fmt.Fprintln(w, "Skipped tests: none.")
		return
	}
	sort.SliceStable(skips, func(i, j int) bool {
		if skips[i].pkg != skips[j].pkg {
			return skips[i].pkg < skips[j].pkg
		}
		return skips[i].test < skips[j].test
	})
	fmt.Fprintf(w, "Skipped tests (%d), with the reason each gave:\n", len(skips))
	for _, s := range skips {
		fmt.Fprintf(w, "  %s %s: %s\n", s.pkg, s.test, s.reason)
	}
}
