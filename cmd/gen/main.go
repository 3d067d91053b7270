// Command gen regenerates everything that is derived from the specs under
// spec/: the Go packages, JSON Schemas, canonical models and the
// TypeScript and Python bindings under generated/, and the reference pages
// under Docs/{en,ru}/reference/.
//
// Usage:
//
//	gen [--write | --check] [--root DIR]
//	gen init [--root DIR]
//	gen config-schema
//
// gen reads contractkit.json at the repository root: the specs, and where
// each one's Go package, JSON Schemas and reference pages go. gen init
// writes a starter config, spec, dispositions file and //go:generate line
// into a module (never overwriting a file); gen config-schema prints the
// JSON Schema of contractkit.json, for editors.
//
// --write (the default, and what go generate runs) writes changed files and
// removes files the specs no longer produce. --check writes nothing: it
// regenerates in memory, prints a unified diff of every stale file, names
// missing and unexpected files, and exits 1 when anything differs. Invalid
// specs are reported as file:/json/pointer: message, all of them at once.
//
// Exit codes: 0 up to date (or written), 1 invalid specs or stale output,
// 2 usage or I/O error.
//
// After a run that leaves the tree up to date, gen remembers what it read
// and the digests of what it produced (in the user's cache folder, or
// $CONTRACTKIT_GEN_CACHE; "off" disables it). The next --check of the same
// generator build replays every one of those reads and compares every
// output and owned folder; when all of it is unchanged the tree is up to
// date without generating. Any difference, and any doubt about the entry,
// means a full generation. --no-cache always generates.
package main

//go:generate go run . --write

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/contractkit/contractkit/internal/buildinfo"
	"github.com/contractkit/contractkit/internal/config"
	"github.com/contractkit/contractkit/internal/gen"
	"github.com/contractkit/contractkit/internal/gencache"
)

func main() {
	// A run lives a second and allocates a few hundred megabytes it soon
	// drops; collecting less often saves a third of its CPU time for a
	// peak of about 150 MB. GOGC, when set, decides.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "init":
			return runInit(args[1:], stdout, stderr)
		case "config-schema":
			if len(args) > 1 {
				fmt.Fprintf(stderr, "gen config-schema: unexpected argument %q\n", args[1])
				return 2
			}
			if _, err := stdout.Write(config.Schema); err != nil {
				fmt.Fprintln(stderr, "gen:", err)
				return 2
			}
			return 0
		}
	}
	fl := flag.NewFlagSet("gen", flag.ContinueOnError)
	fl.SetOutput(stderr)
	write := fl.Bool("write", false, "write generated files (the default)")
	check := fl.Bool("check", false, "regenerate in memory and fail with a diff if anything on disk differs")
	root := fl.String("root", "", "repository root (default: the nearest folder above the working directory that holds contractkit.json, else go.mod)")
	quiet := fl.Bool("quiet", false, "print only problems and a count of warnings")
	noCache := fl.Bool("no-cache", false, "generate even when the last generation's reads and outputs are unchanged")
	version := fl.Bool("version", false, "print the version of this build and exit")
	changelogSince := fl.String("changelog-since", "", "after writing, append release notes to changelog/<domain>.{en,ru}.md for every domain whose version differs from the one at git `REF`")
	fl.Usage = func() {
		fmt.Fprintf(stderr, "usage: gen [--write | --check] [--root DIR] [--quiet]\n       gen init [--root DIR]\n       gen config-schema\n\n")
		fmt.Fprintf(stderr, "Regenerates what contractkit.json names (Go packages, JSON Schemas, reference pages) from its specs.\n\n")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *version {
		fmt.Fprintln(stdout, buildinfo.Line("gen"))
		return 0
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
	if *check && *changelogSince != "" {
		fmt.Fprintln(stderr, "gen: --changelog-since writes, so it excludes --check")
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
	cache := cacheDir(*noCache)
	if *check && cache.dir != "" {
		if e, err := gencache.Load(cache.dir, cache.generator, dir); err == nil && e.Verify(os.DirFS(dir)) == nil {
			printWarnings(stderr, e.Warnings, *quiet)
			if !*quiet {
				fmt.Fprintf(stdout, "gen --check: %d specs, %d files up to date, %d warning(s) (%s; every input and output unchanged since the last generation)\n",
					e.Specs, len(e.Outputs), len(e.Warnings), time.Since(start).Round(time.Millisecond))
			}
			return 0
		}
	}
	rec := gencache.Record(os.DirFS(dir))
	out, err := gen.Generate(rec)
	printWarnings(stderr, out.Warnings, *quiet)
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
		cache.store(dir, rec, out)
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
	cache.store(dir, rec, out)
	if *changelogSince != "" {
		if err := appendChangelogs(dir, *changelogSince, stdout); err != nil {
			fmt.Fprintln(stderr, "gen: changelog:", err)
			return 2
		}
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

// findRoot walks up from the working directory to the nearest folder
// holding contractkit.json, or, when there is none, go.mod (where gen then
// says to run gen init).
func findRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for _, marker := range []string{config.FileName, "go.mod"} {
		for dir := wd; ; {
			if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", errors.New("no contractkit.json or go.mod above the working directory; pass --root")
}

func printWarnings(stderr io.Writer, warnings []string, quiet bool) {
	if quiet && len(warnings) > 0 {
		fmt.Fprintf(stderr, "gen: %d warning(s); run without --quiet to list them\n", len(warnings))
		return
	}
	for _, w := range warnings {
		fmt.Fprintln(stderr, w)
	}
}

// genCache is where generations are remembered, and by which generator.
type genCache struct{ dir, generator string }

// cacheDir finds the cache folder; an empty dir disables the cache, as
// does any failure to name the generator.
func cacheDir(disabled bool) genCache {
	dir := os.Getenv("CONTRACTKIT_GEN_CACHE")
	if disabled || dir == "off" {
		return genCache{}
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return genCache{}
		}
		dir = filepath.Join(base, "contractkit", "gen")
	}
	generator, err := gencache.Executable()
	if err != nil {
		return genCache{}
	}
	return genCache{dir, generator}
}

// store remembers a generation that the tree now holds. Failing to is not
// an error: the cache only ever saves work.
func (c genCache) store(root string, rec *gencache.Recorder, out *gen.Output) {
	if c.dir == "" {
		return
	}
	_ = gencache.Store(c.dir, gencache.NewEntry(c.generator, root, rec, out.Files, out.Owned, len(out.Set.Domains), out.Warnings))
}
