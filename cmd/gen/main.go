// Command gen regenerates everything that is derived from the specs under
// spec/: the Go packages, JSON Schemas and canonical models under
// generated/, and the reference pages under Docs/{en,ru}/reference/.
//
// Usage:
//
//	gen [--write | --check] [--root DIR]
//
// --write (the default, and what go generate runs) writes changed files and
// removes files the specs no longer produce. --check writes nothing: it
// regenerates in memory, prints a unified diff of every stale file, names
// missing and unexpected files, and exits 1 when anything differs. Invalid
// specs are reported as file:/json/pointer: message, all of them at once.
//
// Exit codes: 0 up to date (or written), 1 invalid specs or stale output,
// 2 usage or I/O error.
package main

//go:generate go run . --write

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/contractkit/contractkit/internal/gen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("gen", flag.ContinueOnError)
	fl.SetOutput(stderr)
	write := fl.Bool("write", false, "write generated files (the default)")
	check := fl.Bool("check", false, "regenerate in memory and fail with a diff if anything on disk differs")
	root := fl.String("root", "", "repository root (default: the nearest folder above the working directory that holds go.mod)")
	quiet := fl.Bool("quiet", false, "print only problems and a count of warnings")
	fl.Usage = func() {
		fmt.Fprintf(stderr, "usage: gen [--write | --check] [--root DIR] [--quiet]\n\n")
		fmt.Fprintf(stderr, "Regenerates generated/ and Docs/{en,ru}/reference/ from spec/*.json.\n\n")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "gen: unexpected argument %q\n", fl.Arg(0))
		fl.Usage()
		return 2
	}
	if *write && *check {
		fmt.Fprintln(stderr, "gen: --write and --check exclude each other")
		return 2
	}
	dir := *root
	if dir == "" {
		var err error
		if dir, err = findRoot(); err != nil {
			fmt.Fprintln(stderr, "gen:", err)
			return 2
		}
	}
	start := time.Now()
	out, err := gen.Generate(os.DirFS(dir))
	if *quiet && len(out.Warnings) > 0 {
		fmt.Fprintf(stderr, "gen: %d warning(s); run without --quiet to list them\n", len(out.Warnings))
	} else {
		for _, w := range out.Warnings {
			fmt.Fprintln(stderr, w)
		}
	}
	if err != nil {
		var ge *gen.Error
		if errors.As(err, &ge) {
			for _, p := range ge.Problems {
				fmt.Fprintln(stderr, p)
			}
			fmt.Fprintf(stderr, "gen: %d problem(s); nothing was written\n", len(ge.Problems))
			return 1
		}
		fmt.Fprintln(stderr, "gen:", err)
		return 2
	}
	if *check {
		changes, err := gen.Compare(os.DirFS(dir), out)
		if err != nil {
			fmt.Fprintln(stderr, "gen:", err)
			return 2
		}
		for _, c := range changes {
			switch c.Kind {
			case "unexpected":
				fmt.Fprintf(stdout, "unexpected file %s: the specs do not produce it\n", c.Path)
			default:
				fmt.Fprintf(stdout, "%s file %s\n%s", c.Kind, c.Path, c.Diff)
			}
		}
		if len(changes) > 0 {
			fmt.Fprintf(stderr, "gen --check: %d of %d generated files differ; run make generate\n", len(changes), len(out.Files))
			return 1
		}
		if !*quiet {
			fmt.Fprintf(stdout, "gen --check: %d specs, %d files up to date, %d warning(s) (%s)\n",
				len(out.Set.Domains), len(out.Files), len(out.Warnings), time.Since(start).Round(time.Millisecond))
		}
		return 0
	}
	written, removed, err := gen.Write(dir, out)
	if err != nil {
		fmt.Fprintln(stderr, "gen:", err)
		return 2
	}
	if !*quiet {
		for _, p := range written {
			fmt.Fprintln(stdout, "wrote", p)
		}
		for _, p := range removed {
			fmt.Fprintln(stdout, "removed", p)
		}
		fmt.Fprintf(stdout, "gen: %d specs, %d files (%d written, %d removed), %d warning(s)\n",
			len(out.Set.Domains), len(out.Files), len(written), len(removed), len(out.Warnings))
	}
	return 0
}

// findRoot walks up from the working directory to the folder holding go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory; pass --root")
		}
		dir = parent
	}
}
