// Command contractdiff compares the contract specs that contractkit.json
// names with a baseline — by default the merge-base of HEAD and the main branch, or a
// git revision or folder you name — and reports every change by the
// catalog rule it matches, judged by who sends and who accepts the changed
// value, with a witness message for each change of values. A breaking
// change passes only with a matching entry in the dispositions file that
// says why, who owns it and how peers migrate.
//
// Run contractdiff --help for the flags, or read
// Docs/en/how-to/contract-changes.md.
//
// Exit codes: 0 pass or bootstrap (or blocked without --enforce), 1 blocked
// with --enforce, 2 usage error or a spec, baseline, policy or dispositions
// file that cannot be read. A summary line always goes to stdout, except
// with --format json, where stdout is the JSON document alone and the
// summary goes to stderr.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/contractkit/contractkit/internal/atomicfile"
	"github.com/contractkit/contractkit/internal/buildinfo"
	"github.com/contractkit/contractkit/internal/config"
	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/contractdiff/baseline"
	"github.com/contractkit/contractkit/internal/contractdiff/changelog"
	"github.com/contractkit/contractkit/internal/contractdiff/disposition"
	"github.com/contractkit/contractkit/internal/contractdiff/report"
	"github.com/contractkit/contractkit/internal/spec"
	specfiles "github.com/contractkit/contractkit/spec"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, time.Now()))
}

const usage = `usage: contractdiff [--baseline-git-ref REF | --baseline-dir DIR] [flags]

Compares the contract specs of the working tree (those contractkit.json
names) with a baseline and reports every change by a catalog rule, judged
by who sends and who accepts the changed value. A change that breaks peers
blocks unless the dispositions file (contract-change-dispositions.json
unless contractkit.json names another) has an entry for it that says why,
who owns it and how peers migrate.

The default baseline is the merge-base of HEAD and origin/main (or main;
contractkit.json's contractdiff.defaultBranch names another branch), so
that every commit of a branch is compared; on that branch itself it is
the commit before HEAD.

Examples:
  # what this branch changes
  contractdiff
  # in CI: fail when a breaking change lacks a disposition
  contractdiff --enforce
  # what changed since the last commit
  contractdiff --baseline-git-ref HEAD~1
  # a markdown report for a pull request
  contractdiff --format markdown --output contract-diff.md
  # in GitHub Actions: annotations, the job summary and the report file
  contractdiff --format github --markdown contract-diff.md --enforce
  # the release notes of the change, in Russian, grouped by party
  contractdiff --format changelog --lang ru

When a disposition is missing, the report prints a ready-to-paste entry:
paste it into the "dispositions" list and replace every TODO.

Exit codes: 0 pass or bootstrap (also blocked without --enforce), 1 blocked
with --enforce, 2 usage error or unreadable spec, baseline, policy or
dispositions. A summary line always goes to stdout (to stderr with
--format json, whose stdout is the JSON document alone).

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
	fl.SetOutput(io.Discard) // usage is printed below, once
	gitRef := fl.String("baseline-git-ref", "", "compare with the specs at this git `REF` (a branch, tag, commit or HEAD~1); an empty or all-zero ref means there is no baseline")
	dir := fl.String("baseline-dir", "", "compare with the specs of this `DIR`, laid out like the repository (the spec paths of contractkit.json)")
	allowMissing := fl.Bool("allow-missing-baseline", false, "take a domain the baseline lacks, or an empty or all-zero ref (or a default baseline that does not exist, in a one-commit clone), as the starting point (bootstrap) instead of an error; an unknown ref is still an error")
	dispPath := fl.String("dispositions", "", "the dispositions `FILE` (default: contractkit.json's contractdiff.dispositions, else "+config.DefaultDispositions+", in the repository root)")
	policyPath := fl.String("policy", "", "the severity policy `FILE` (default: contractkit.json's contractdiff.policy, else "+config.DefaultPolicy+", in the repository root, which may be absent)")
	format := fl.String("format", "text", "report `FORMAT`: text, markdown, json, github (workflow annotations; with GITHUB_STEP_SUMMARY set, the markdown report is added to the job summary) or changelog (release notes of the change, grouped by party)")
	lang := fl.String("lang", "en", "the `LANGUAGE` of --format changelog: en or ru")
	output := fl.String("output", "", "write the report to `FILE` instead of stdout: whole or not at all, folders on the way made, a symbolic link there refused; a device or pipe (/dev/null, a FIFO, /dev/stdout while stdout is a terminal or a pipe) is written to as it is; /dev/stdout redirected to a file is a symbolic link to that file, refused")
	markdown := fl.String("markdown", "", "also write the markdown report to `FILE`, not the one of --output, from the same comparison (atomically; a symbolic link there is refused): a workflow gets its annotations and its report file from one run")
	enforce := fl.Bool("enforce", false, "exit 1 when blocked: a breaking change without a disposition, or a stale, expired, unfinished or mismatched disposition")
	root := fl.String("root", "", "repository `DIR` (default: the nearest folder above the working directory that holds contractkit.json)")
	version := fl.Bool("version", false, "print the version of this build and exit")
	// The summary goes to stdout after the report, or to stderr when
	// stdout holds a JSON document (set once the flags are parsed).
	summaryTo := stdout
	fail := func(format string, args ...any) int {
		msg := fmt.Sprintf(format, args...)
		fmt.Fprintln(stderr, "contractdiff:", msg)
		fmt.Fprintln(summaryTo, "contractdiff: error:", firstLine(msg))
		return 2
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			fl.SetOutput(stdout)
			fl.PrintDefaults()
			return 0
		}
		fmt.Fprintln(stderr, "contractdiff:", err)
		fmt.Fprintln(stdout, "contractdiff: error: bad usage; run contractdiff --help")
		return 2
	}
	if *version {
		fmt.Fprintln(stdout, buildinfo.Line("contractdiff"))
		return 0
	}
	if *format == "json" {
		summaryTo = stderr
	}
	set := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case fl.NArg() > 0:
		return fail("unexpected argument %q; run contractdiff --help", fl.Arg(0))
	case set["baseline-git-ref"] && set["baseline-dir"]:
		return fail("give at most one of --baseline-git-ref and --baseline-dir; run contractdiff --help")
	case formats[*format] == nil && *format != "changelog":
		return fail("unknown --format %q: use text, markdown, json, github or changelog", *format)
	case set["lang"] && *format != "changelog":
		return fail("--lang applies to --format changelog only")
	case *lang != changelog.EN && *lang != changelog.RU:
		return fail("unknown --lang %q: use en or ru", *lang)
	case *markdown != "" && *output != "" && samePath(*markdown, *output):
		// The markdown report would silently replace the other one.
		return fail("--output and --markdown name the same file %s: give each report a file of its own", *output)
	}
	repo := *root
	if repo == "" {
		var err error
		if repo, err = findRoot(); err != nil {
			return fail("%v", err)
		}
	}
	fsys := os.DirFS(repo)
	cfg, err := config.Load(fsys)
	if err != nil {
		return fail("%v", err)
	}
	cd := cfg.Diff()
	if !set["dispositions"] {
		*dispPath = cd.Dispositions
	}
	if !set["policy"] {
		*policyPath = cd.Policy
	}
	meta, err := config.Asset(fsys, specfiles.MetaSchema, "/metaSchema", cfg.MetaSchema)
	if err != nil {
		return fail("%v", err)
	}
	layout := baseline.Layout{Lists: cfg.SpecFolders(), IsSpec: cfg.IsSpec, MetaSchema: cfg.MetaSchema, Dispositions: cd.Dispositions}
	specFiles, err := cfg.SpecFiles(config.FileName, fsys)
	if err != nil {
		return fail("%v", err)
	}
	paths := make([]string, len(specFiles))
	for i, f := range specFiles {
		paths[i] = f.Path
	}

	// The working tree first: a baseline spec with the same bytes is the
	// same spec, and in most changes most specs are the same.
	cur, diags := spec.LoadFilesWith(fsys, paths, spec.LoadOptions{SkipDigest: true, SkipSources: true, MetaSchema: meta})
	if diags.HasErrors() {
		for _, d := range diags.Errors() {
			fmt.Fprintln(stderr, d.String())
		}
		return fail("the current specs are invalid (%s above); run go run ./cmd/gen --check", plural(len(diags.Errors()), "problem"))
	}
	base, label, err := loadBaseline(layout, cd.DefaultBranch, repo, meta, set, *gitRef, *dir, *allowMissing, cur.Domains)
	if err != nil {
		return fail("%v", err)
	}
	policySchema, err := config.Asset(fsys, specfiles.PolicySchema, "/contractdiff/policySchema", cd.PolicySchema)
	if err != nil {
		return fail("%v", err)
	}
	policy, err := readPolicy(repo, *policyPath, set["policy"], policySchema)
	if err != nil {
		return fail("%v", err)
	}
	diff, err := contractdiff.DiffSetsWith(base.Domains, cur.Domains, contractdiff.Options{AllowMissing: *allowMissing || base.Missing, Policy: policy})
	if err != nil {
		return fail("%v", err)
	}

	schemaData, err := config.Asset(fsys, specfiles.DispositionsSchema, "/contractdiff/dispositionsSchema", cd.DispositionsSchema)
	if err != nil {
		return fail("%v", err)
	}
	schema, err := disposition.CompileSchema(schemaData)
	if err != nil {
		return fail("%v", err)
	}
	file, dlabel, err := readDispositions(repo, *dispPath, set["dispositions"], schema)
	if err != nil {
		var pe *disposition.ParseError
		if errors.As(err, &pe) {
			for _, p := range pe.Problems {
				fmt.Fprintln(stderr, p.String())
			}
			return fail("%s is invalid (%s above)", dlabel, plural(len(pe.Problems), "problem"))
		}
		return fail("%v", err)
	}
	// The baseline's own dispositions only tell settled entries from
	// stale ones; one that does not parse is treated as absent.
	var baseFile *disposition.File
	if base.Dispositions != nil {
		baseFile, _ = disposition.Parse(cd.Dispositions, base.Dispositions, schema)
	}
	in := disposition.Input{Diff: diff, File: file, Baseline: baseFile, NoBaseline: base.Missing, Today: now}
	if base.Commit != "" {
		in.Landed = func(entries []*disposition.Entry) map[*disposition.Entry]disposition.Landing {
			return landed(layout, repo, base, meta, entries)
		}
	}
	result := disposition.Apply(in)
	rep := &report.Report{Baseline: label, BaselineCommit: base.Commit, Current: "working tree", Dispositions: dlabel, Result: result}

	write := formats[*format]
	if *format == "changelog" {
		write = func(w io.Writer, rep *report.Report) error {
			return changelog.Write(w, changelogDomains(base.Domains, cur.Domains, rep.Result), *lang)
		}
	}
	if *output == "" {
		if err := write(stdout, rep); err != nil {
			return fail("write the report: %v", err)
		}
	} else if err := writeReport(*output, write, rep); err != nil {
		return fail("write the report: %v", err)
	}
	if *markdown != "" {
		if err := writeReport(*markdown, report.Markdown, rep); err != nil {
			return fail("write the markdown report: %v", err)
		}
	}
	if *format == "github" {
		if err := stepSummary(rep); err != nil {
			return fail("job summary: %v", err)
		}
	}
	if len(result.Templates) > 0 {
		// A report in a file holds the entries to paste; say where.
		switch {
		case *output != "" && *markdown != "":
			fmt.Fprintf(stderr, "contractdiff: %s missing; the reports in %s and %s have an entry to paste for each\n", plural(len(result.Templates), "disposition"), *output, *markdown)
		case *output != "" || *markdown != "":
			fmt.Fprintf(stderr, "contractdiff: %s missing; the report in %s has an entry to paste for each\n", plural(len(result.Templates), "disposition"), *output+*markdown)
		}
	}
	fmt.Fprintln(summaryTo, report.Summary(rep))
	if *enforce && result.Status == disposition.Blocked {
		return 1
	}
	return 0
}

// loadBaseline reads the baseline the flags name, or the default one:
// the merge-base with the main branch (HEAD~1 on the main branch). It
// returns the baseline and the label reports show for it.
func loadBaseline(l baseline.Layout, branch, repo string, meta []byte, set map[string]bool, gitRef, dir string, allowMissing bool, cur []*spec.Domain) (*baseline.Baseline, string, error) {
	switch {
	case set["baseline-dir"]:
		b, err := baseline.FromDirIn(l, dir, meta, cur...)
		return b, dir, err
	case set["baseline-git-ref"]:
		b, err := baseline.FromGitIn(l, repo, gitRef, meta, allowMissing, cur...)
		return b, gitRef, err
	}
	commit, how, err := baseline.DefaultRefFor(repo, []string{"origin/" + branch, branch})
	if err != nil {
		return nil, "", err
	}
	if commit == "" {
		if !allowMissing {
			return nil, "", &baseline.Error{Msg: "no baseline: " + how + "; pass --allow-missing-baseline to take the current specs as the starting point"}
		}
		b, err := baseline.FromGitIn(l, repo, "", meta, true)
		return b, "", err
	}
	b, err := baseline.FromGitIn(l, repo, commit, meta, allowMissing, cur...)
	return b, how, err
}

// stepSummary adds the markdown report to the job summary of a GitHub
// Actions run, when there is one: annotations show ten of a kind, the
// summary shows every finding.
func stepSummary(rep *report.Report) error {
	path := os.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if err := report.Markdown(f, rep); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// samePath reports whether the paths a and b name one place, relative
// or absolute, however spelled ("r.md", "./r.md", the absolute path).
func samePath(a, b string) bool {
	aa, err := filepath.Abs(a)
	if err != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	bb, err := filepath.Abs(b)
	return err == nil && aa == bb
}

// writeReport writes rep to the file path as write renders it: whole or
// not at all (atomicfile.WriteFile), so a report read while a run writes
// it, or left by a run that was killed, is never half of one.
func writeReport(path string, write func(io.Writer, *report.Report) error, rep *report.Report) error {
	var b bytes.Buffer
	if err := write(&b, rep); err != nil {
		return err
	}
	if st, err := os.Stat(path); err == nil && st.Mode()&(fs.ModeDevice|fs.ModeNamedPipe) != 0 {
		// A device or a pipe (/dev/null, a FIFO a script reads,
		// /dev/stdout on a terminal or a pipe) is a stream, not a file
		// to replace: it is written to.
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.Write(b.Bytes())
		return errors.Join(err, f.Close())
	}
	return atomicfile.WriteFile(filepath.Dir(path), filepath.Base(path), b.Bytes(), 0o644, nil)
}

// readLimited reads the file path, refusing one of more than limit bytes
// before reading it: a policy or dispositions file is read whole, and a
// file that is not one (a log, a disk image) must not be.
func readLimited(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > int64(limit) {
		return nil, fmt.Errorf("%s: the file is %d bytes; the limit is %d", path, st.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err == nil && len(data) > limit {
		return nil, fmt.Errorf("%s: the file is more than %d bytes, the limit", path, limit)
	}
	return data, err
}

// readPolicy reads the severity policy. The default path is looked up in
// the repository root and may be absent; a path given on the command line
// must exist.
func readPolicy(repo, path string, explicit bool, schema []byte) (*contractdiff.SeverityPolicy, error) {
	full := path
	if !explicit {
		full = filepath.Join(repo, path)
	}
	data, err := readLimited(full, contractdiff.MaxPolicyBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !explicit:
		return nil, nil
	case err != nil:
		return nil, err
	}
	return contractdiff.ParsePolicy(path, data, schema)
}

// readDispositions reads the dispositions file. The default path is
// looked up in the repository root and may be absent (no dispositions);
// a path given on the command line must exist.
func readDispositions(repo, path string, explicit bool, schema *disposition.Schema) (*disposition.File, string, error) {
	label, full := path, path
	if !explicit {
		full = filepath.Join(repo, path)
	}
	data, err := readLimited(full, disposition.MaxFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !explicit:
		return &disposition.File{Path: label}, label, nil
	case err != nil:
		return nil, label, err
	}
	f, err := disposition.Parse(label, data, schema)
	return f, label, err
}

// findRoot walks up from the working directory to the folder holding
// contractkit.json.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, config.FileName)); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no contractkit.json above the working directory: pass --root, or run gen init")
		}
		dir = parent
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// changelogDomains pairs each compared domain with its baseline, its
// findings and the migrations of the dispositions that accept them.
func changelogDomains(base, cur []*spec.Domain, res *disposition.Result) []changelog.Domain {
	baseByID := map[string]*spec.Domain{}
	for _, d := range base {
		baseByID[d.Header.ID] = d
	}
	curByID := map[string]*spec.Domain{}
	for _, d := range cur {
		curByID[d.Header.ID] = d
	}
	var out []changelog.Domain
	for _, dd := range res.Domains {
		c := curByID[dd.Domain]
		if c == nil {
			continue // a removed domain has no new version to write notes for
		}
		d := changelog.Domain{Base: baseByID[dd.Domain], Cur: c, Migration: map[string]string{}}
		for _, j := range dd.Findings {
			d.Findings = append(d.Findings, j.Finding)
			if j.Disposition != nil {
				d.Migration[j.ChangeID] = j.Disposition.Migration
			}
		}
		out = append(out, d)
	}
	return out
}
