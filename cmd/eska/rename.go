package main

import (
	"flag"
	"fmt"
	"io"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// The rename command renames a top-level object from a terminal or a
// script with the backend of `eska ide --stdio`: the same plan, checks
// and JSON as metadata/renamePreview and metadata/renameApply. The rename
// is kept in the history under .eska/history, so that
// `eska property undo <dir> <new objectId>` undoes it byte for byte.

const renameUsage = `usage: eska rename <command> [flags] <project directory> <objectId> <new name>

Commands:
  preview  the plan: for every file its replacements, the renames of the
           object's descriptor and folder, the issues that block the rename
           and the uncertain places left to review
  apply    write the plan, all files or none (-snapshot S: only if the plan
           is still the one previewed; -reviewed: the uncertain places were
           reviewed and stay as they are)

-json prints the API's JSON (metadata/renamePreview, metadata/renameApply);
errors then print as {"error":{...}} with exit code 1. Undo a rename with
eska property undo <dir> <new objectId>.
`

func runRename(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, renameUsage)
		return 2
	}
	cmd := args[0]
	fs := flag.NewFlagSet("rename "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the API's JSON")
	snapshot := fs.String("snapshot", "", "apply: the plan's snapshot from preview (default: the plan as it is now)")
	reviewed := fs.Bool("reviewed", false, "apply: the uncertain places were reviewed")
	fs.Usage = func() { fmt.Fprint(stderr, renameUsage) }
	if err := fs.Parse(flagsFirst(args[1:], "snapshot")); err != nil {
		return 2
	}
	if (cmd != "preview" && cmd != "apply") || fs.NArg() != 3 {
		fs.Usage()
		return 2
	}
	rest := fs.Args()
	b, ctx, ok := openForEdit(rest[0], stderr)
	if !ok {
		return 1
	}
	id := gen.ObjectID(rest[1])
	reveal(b, ctx, string(id))
	out := editOutput{command: "rename", json: *asJSON, stdout: stdout, stderr: stderr}
	fail := out.fail
	preview, err := b.RenamePreview(gen.RenamePreviewParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, ObjectID: id, NewName: rest[2]})
	if err != nil {
		return fail(err)
	}
	if cmd == "preview" {
		return out.print(preview, func() { showPlan(stdout, preview) })
	}
	snap := preview.Plan.Snapshot
	if *snapshot != "" {
		snap = *snapshot
	}
	r, err := b.RenameApply(gen.RenameApplyParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, ObjectID: id, NewName: rest[2],
		Snapshot: snap, ReviewedUncertain: *reviewed})
	if err != nil {
		return fail(err)
	}
	return out.print(r, func() {
		fmt.Fprintf(stdout, "renamed %s to %s: %d replacement(s) in %d file(s); undo with eska property undo %s %s\n",
			r.Renamed.From, r.Renamed.To, planEdits(preview.Plan), len(preview.Plan.Files), rest[0], r.Renamed.To)
	})
}

// showPlan prints a plan for a person.
func showPlan(w io.Writer, r gen.RenamePreviewResult) {
	fmt.Fprintf(w, "snapshot %s\n%d replacement(s) in %d file(s), %d uncertain place(s), %d issue(s); apply available: %v\n",
		r.Plan.Snapshot, planEdits(r.Plan), len(r.Plan.Files), len(r.Plan.Uncertain), len(r.Plan.Issues), r.ApplyAvailable)
	for _, f := range r.Plan.Files {
		fmt.Fprintf(w, "  %s: %d\n", f.Path, len(f.Edits))
	}
	for _, m := range r.Plan.Moves {
		fmt.Fprintf(w, "  rename %s -> %s\n", m.From, m.To)
	}
	for _, u := range r.Plan.Uncertain {
		fmt.Fprintf(w, "  uncertain (%s) %s bytes %d-%d\n", u.Reason, u.Path, u.Range.Start, u.Range.End)
	}
	for _, is := range r.Plan.Issues {
		path := ""
		if is.Path != nil {
			path = " " + *is.Path
		}
		fmt.Fprintf(w, "  issue %s%s\n", is.Code, path)
	}
}

// planEdits counts the replacements of a plan.
func planEdits(p gen.RenamePlan) int {
	n := 0
	for _, f := range p.Files {
		n += len(f.Edits)
	}
	return n
}
