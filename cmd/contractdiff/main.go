// Command contractdiff compares the contract specs (spec/*.json) with a
// baseline — a git revision or a folder — and reports every change by the
// catalog rule it matches, judged by who sends the changed value. A
// breaking change passes only with a matching entry in the dispositions
// file that says why, who owns it and how peers migrate.
//
// Run contractdiff --help for the flags, or read
// Docs/en/how-to/contract-changes.md.
//
// Exit codes: 0 pass or bootstrap (or blocked without --enforce), 1 blocked
// with --enforce, 2 usage error or a spec, baseline or dispositions file
// that cannot be read. A summary line always goes to stdout.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/contractdiff/baseline"
	"github.com/contractkit/contractkit/internal/contractdiff/disposition"
	"github.com/contractkit/contractkit/internal/contractdiff/report"
	"github.com/contractkit/contractkit/internal/spec"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, time.Now()))
}

const usage = `usage: contractdiff (--baseline-git-ref REF | --baseline-dir DIR) [flags]

Compares the contract specs (spec/*.json) of the working tree with a
baseline and reports every change by a catalog rule. A change that breaks
peers blocks unless contract-change-dispositions.json has an entry for it
that says why, who owns it and how peers migrate.

Examples:
  # what changed since the last commit
  contractdiff --baseline-git-ref HEAD~1
  # in CI: fail when a breaking change lacks a disposition
  contractdiff --baseline-git-ref origin/main --enforce
  # a markdown report for a pull request
  contractdiff --baseline-git-ref origin/main --format markdown --output contract-diff.md

When a disposition is missing, the report prints a ready-to-paste entry:
paste it into the "dispositions" list and replace every TODO.

Exit codes: 0 pass or bootstrap (also blocked without --enforce), 1 blocked
with --enforce, 2 usage error or unreadable spec, baseline or dispositions.
A summary line always goes to stdout.

Rules: Docs/en/reference/contract-diff/rules.md
Guide: Docs/en/how-to/contract-changes.md

Flags:
`

// Formats are the report formats, by flag value.
var formats = map[string]func(io.Writer, *report.Report) error{
	"text": report.Text, "markdown": report.Markdown, "json": report.JSON, "github": report.GitHub,
}

func run(args []string, stdout, stderr io.Writer, now time.Time) int {
	fl := flag.NewFlagSet("contractdiff", flag.ContinueOnError)
	fl.SetOutput(stderr)
	gitRef := fl.String("baseline-git-ref", "", "compare with the specs at this git `REF` (a branch, tag, commit or HEAD~1); an empty or all-zero ref means there is no baseline")
	dir := fl.String("baseline-dir", "", "compare with the specs of this `DIR`, laid out like the repository (DIR/spec/*.json)")
	allowMissing := fl.Bool("allow-missing-baseline", false, "take a domain the baseline lacks, or an empty or all-zero ref, as the starting point (bootstrap) instead of an error; an unknown ref is still an error")
	dispPath := fl.String("dispositions", disposition.FileName, "the dispositions `FILE` (the default is looked up in the repository root)")
	format := fl.String("format", "text", "report `FORMAT`: text, markdown, json or github (workflow annotations)")
	output := fl.String("output", "", "write the report to `FILE` instead of stdout (the summary line still goes to stdout)")
	enforce := fl.Bool("enforce", false, "exit 1 when blocked: a breaking change without a disposition, or a stale, expired or mismatched disposition")
	root := fl.String("root", "", "repository `DIR` (default: the nearest folder above the working directory that holds spec/contract.schema.json)")
	fl.Usage = func() {
		fmt.Fprint(fl.Output(), usage)
		fl.PrintDefaults()
	}
	fail := func(format string, args ...any) int {
		msg := fmt.Sprintf(format, args...)
		fmt.Fprintln(stderr, "contractdiff:", msg)
		fmt.Fprintln(stdout, "contractdiff: error:", firstLine(msg))
		return 2
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fl.SetOutput(stdout)
			fl.Usage()
			return 0
		}
		fmt.Fprintln(stdout, "contractdiff: error: bad usage; run contractdiff --help")
		return 2
	}
	set := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case fl.NArg() > 0:
		return fail("unexpected argument %q; run contractdiff --help", fl.Arg(0))
	case set["baseline-git-ref"] == set["baseline-dir"]:
		return fail("give exactly one of --baseline-git-ref and --baseline-dir; run contractdiff --help")
	case formats[*format] == nil:
		return fail("unknown --format %q: use text, markdown, json or github", *format)
	}
	repo := *root
	if repo == "" {
		var err error
		if repo, err = findRoot(); err != nil {
			return fail("%v", err)
		}
	}
	fsys := os.DirFS(repo)
	meta, err := fs.ReadFile(fsys, spec.MetaSchemaPath)
	if err != nil {
		return fail("%s: %v", filepath.Join(repo, spec.MetaSchemaPath), err)
	}
	cur, diags := spec.Load(fsys)
	if diags.HasErrors() {
		for _, d := range diags.Errors() {
			fmt.Fprintln(stderr, d.String())
		}
		return fail("the current specs are invalid (%d problems above); run go run ./cmd/gen --check", len(diags.Errors()))
	}

	var base *baseline.Baseline
	if set["baseline-git-ref"] {
		base, err = baseline.FromGit(repo, *gitRef, meta, *allowMissing)
	} else {
		base, err = baseline.FromDir(*dir, meta)
	}
	if err != nil {
		return fail("%v", err)
	}
	diff, err := contractdiff.DiffSets(base.Domains, cur.Domains, *allowMissing || base.Missing)
	if err != nil {
		return fail("%v", err)
	}

	schemaData, err := fs.ReadFile(fsys, disposition.SchemaPath)
	if err != nil {
		return fail("%s: %v", filepath.Join(repo, disposition.SchemaPath), err)
	}
	schema, err := disposition.CompileSchema(schemaData)
	if err != nil {
		return fail("%v", err)
	}
	file, label, err := readDispositions(repo, *dispPath, set["dispositions"], schema)
	if err != nil {
		var pe *disposition.ParseError
		if errors.As(err, &pe) {
			for _, p := range pe.Problems {
				fmt.Fprintln(stderr, p.String())
			}
			return fail("%s is invalid (%d problems above)", label, len(pe.Problems))
		}
		return fail("%v", err)
	}
	// The baseline's own dispositions only tell settled entries from
	// stale ones; one that does not parse is treated as absent.
	var baseFile *disposition.File
	if base.Dispositions != nil {
		baseFile, _ = disposition.Parse(disposition.FileName, base.Dispositions, schema)
	}
	result := disposition.Apply(disposition.Input{Diff: diff, File: file, Baseline: baseFile, NoBaseline: base.Missing, Today: now})
	rep := &report.Report{Baseline: base.Label, BaselineCommit: base.Commit, Current: "working tree", Dispositions: label, Result: result}

	out := stdout
	if *output != "" {
		f, err := os.Create(*output)
		if err != nil {
			return fail("%v", err)
		}
		defer f.Close()
		out = f
	}
	if err := formats[*format](out, rep); err != nil {
		return fail("write the report: %v", err)
	}
	if *output != "" && len(result.Templates) > 0 {
		fmt.Fprintf(stderr, "contractdiff: %d disposition(s) missing; the report in %s has an entry to paste for each\n", len(result.Templates), *output)
	}
	fmt.Fprintln(stdout, report.Summary(rep))
	if *enforce && result.Status == disposition.Blocked {
		return 1
	}
	return 0
}

// readDispositions reads the dispositions file. The default path is
// looked up in the repository root and may be absent (no dispositions);
// a path given on the command line must exist.
func readDispositions(repo, path string, explicit bool, schema *disposition.Schema) (*disposition.File, string, error) {
	label, full := path, path
	if !explicit {
		full = filepath.Join(repo, path)
	}
	data, err := os.ReadFile(full)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !explicit:
		return &disposition.File{Path: label}, label, nil
	case err != nil:
		return nil, label, err
	}
	f, err := disposition.Parse(label, data, schema)
	return f, label, err
}

// findRoot walks up from the working directory to the folder holding the
// meta-schema of the specs.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(spec.MetaSchemaPath))); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no spec/contract.schema.json above the working directory; pass --root")
		}
		dir = parent
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
