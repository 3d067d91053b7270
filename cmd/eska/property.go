package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata"
	"github.com/contractkit/contractkit/runtime/genrt"
)

// The property command edits properties from a terminal or a script with
// the backend of `eska ide --stdio`: the same paths, changes, checks,
// support rules and JSON shapes as metadata/propertyEditing and the
// methods after it. Its undo history lives under the project's
// .eska/history, so that a later run undoes exactly.

const propertyUsage = `usage: eska property <command> [flags] <project directory> <objectId> ...

Commands:
  show     <dir> <objectId>                  the editing state: fields, schemas, values, snapshot
  choices  <dir> <objectId> <path> [-type K] the types, references or values a field accepts
  preview  <dir> <objectId> <path> <change>  the exact byte replacements a change would make
  set      <dir> <objectId> <path> <change>  write the change (atomically, reversibly)
  undo     <dir> <objectId> [-redo]          undo (or redo) the last write of the object's descriptor

A change is the JSON of the API, e.g. '{"kind":"text","value":"Товары"}' or
'{"kind":"value","type":"xs:decimal","value":"1.5"}'. -snapshot S makes
preview, set and undo refuse unless the descriptor's SHA-256 is S. -json
prints the API's JSON; errors then print as {"error":{...}} with exit
code 1.
`

// historyDir is where the command keeps its undo history.
const historyDir = ".eska/history"

func runProperty(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, propertyUsage)
		return 2
	}
	cmd := args[0]
	fs := flag.NewFlagSet("property "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the API's JSON")
	snapshot := fs.String("snapshot", "", "the descriptor's SHA-256 the change is made against (default: its present one)")
	typeKey := fs.String("type", "", "choices of a value field: the type whose values to list")
	redo := fs.Bool("redo", false, "undo: redo the last undone write instead")
	fs.Usage = func() { fmt.Fprint(stderr, propertyUsage) }
	if err := fs.Parse(flagsFirst(args[1:], "snapshot", "type")); err != nil {
		return 2
	}
	want := map[string]int{"show": 2, "choices": 3, "preview": 4, "set": 4, "undo": 2}[cmd]
	if want == 0 || fs.NArg() != want {
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
	out := editOutput{command: "property", json: *asJSON, stdout: stdout, stderr: stderr}
	fail, print := out.fail, out.print
	obj := gen.ObjectParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, ObjectID: id}
	editing, err := b.PropertyEditing(obj)
	if err != nil {
		return fail(err)
	}
	snap := editing.Snapshot
	if *snapshot != "" {
		snap = *snapshot
	}
	switch cmd {
	case "show":
		return print(editing, func() { showEditing(stdout, editing) })
	case "choices":
		path := rest[2]
		schema := ""
		for _, f := range editing.Fields {
			if f.Path == path {
				raw, _ := gen.MarshalEditSchema(f.Schema)
				var k struct{ Kind string }
				json.Unmarshal(raw, &k)
				schema = k.Kind
			}
		}
		pp := gen.PropertyPathParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, ObjectID: id, Path: path}
		switch {
		case schema == gen.EditSchemaTagReference:
			r, err := b.PropertyReferenceChoices(pp)
			if err != nil {
				return fail(err)
			}
			return print(r, func() {
				for _, c := range r.Choices {
					fmt.Fprintf(stdout, "%s\t%s\n", c.Value, c.Caption.RuRU)
				}
			})
		case schema == gen.EditSchemaTagValue && *typeKey != "":
			r, err := b.PropertyValueChoices(gen.ValueChoicesParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, ObjectID: id, Path: path, Key: *typeKey})
			if err != nil {
				return fail(err)
			}
			return print(r, func() {
				for _, c := range r.Choices {
					fmt.Fprintf(stdout, "%s\t%s\n", c.Value, c.Caption.RuRU)
				}
			})
		}
		r, err := b.PropertyTypeChoices(pp)
		if err != nil {
			return fail(err)
		}
		return print(r, func() {
			for _, c := range r.Choices {
				fmt.Fprintf(stdout, "%s\t%s\n", c.Key, c.Caption.RuRU)
			}
		})
	case "preview", "set":
		change, err := gen.DecodePropertyChange([]byte(rest[3]))
		if err != nil {
			if *asJSON {
				// As the API answers a change it cannot decode: the
				// pointer is the change's inside the request's params.
				at := err.Error()
				if strings.HasPrefix(at, "/:") {
					at = at[1:] // the change itself
				}
				return fail(&gen.RPCError{Code: gen.CodeInvalidParams, Message: "Invalid params: /change" + at})
			}
			fmt.Fprintf(stderr, "eska property %s: the change %s: %v\n", cmd, rest[3], err)
			return 2
		}
		p := gen.PropertyEditParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, ObjectID: id, Snapshot: snap, Path: rest[2], Change: change}
		if cmd == "preview" {
			r, err := b.PreviewProperty(p)
			if err != nil {
				return fail(err)
			}
			return print(r, func() {
				fmt.Fprintf(stdout, "valid %v, changed %v, %d replacement(s) in %s\n", r.Valid, r.Changed, len(r.Changes), editing.Source.Value)
				for _, c := range r.Changes {
					fmt.Fprintf(stdout, "  bytes %d-%d -> %q\n", c.Range.Start, c.Range.End, c.Text)
				}
			})
		}
		r, err := b.UpdateProperty(p)
		if err != nil {
			return fail(err)
		}
		return print(r, func() { fmt.Fprintf(stdout, "written; snapshot %s\n", r.Editing.Snapshot) })
	case "undo":
		dir := gen.UndoDirectionUndo
		if *redo {
			dir = gen.UndoDirectionRedo
		}
		r, err := b.UndoProperty(gen.UndoPropertyParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, ObjectID: id, Snapshot: snap, Direction: dir})
		if err != nil {
			return fail(err)
		}
		return print(r, func() { fmt.Fprintf(stdout, "%s done; snapshot %s\n", dir, r.Editing.Snapshot) })
	}
	return 2
}

// flagsFirst moves the flags of args before the other arguments, so that
// a flag may follow the directory and object: valued names the flags that
// take a value. A "--" ends the flags.
func flagsFirst(args []string, valued ...string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		for _, v := range valued {
			if name == v && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		}
	}
	return append(append(flags, "--"), rest...)
}

// openForEdit opens the project at dir as a client of the newest minor
// that opted in to editing, with its history under the project.
func openForEdit(dir string, stderr io.Writer) (*metadata.Backend, gen.ProjectContext, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		fmt.Fprintln(stderr, "eska:", err)
		return nil, gen.ProjectContext{}, false
	}
	b := metadata.New(nil)
	b.HistoryDir = historyDir
	// A link in .eska, or a history file that fails its checks, is said
	// in words: the domain error alone does not say where.
	b.Explain = func(msg string) { fmt.Fprintln(stderr, "eska:", msg) }
	noCache := false
	// The newest minor with the editing opt-in; a terminal shows neither
	// picture previews nor presentations, so those are withheld.
	grants := gen.GrantsFor(genrt.FormatVersion(gen.APIMajor, gen.SupportedAPIMinor), gen.OptInAllowPropertyEdits).
		Without(gen.CapabilityPicturePreview, gen.CapabilityPropertyPresentation)
	info, err := b.Open(gen.OpenParams{Start: metadata.ToPath(abs), Selection: gen.SelectionCurrent{}, DiskCache: &noCache}, grants)
	if err != nil {
		openFailed(abs, err, stderr)
		return nil, gen.ProjectContext{}, false
	}
	p := info.Projects[0]
	return b, gen.ProjectContext{SessionID: info.SessionID, ProjectID: p.ProjectID}, true
}

// reveal expands the owners of an object, as a client does before it
// opens the object's properties: each prefix of the id, and the
// predefined data of an owner of a predefined item.
func reveal(b *metadata.Backend, ctx gen.ProjectContext, id string) {
	parts := strings.Split(id, "/")
	for i := 1; i < len(parts); i++ {
		owner := strings.Join(parts[:i], "/")
		var node gen.NodeID = gen.ObjectNodeID{ObjectID: gen.ObjectID(owner)}
		if strings.HasPrefix(parts[i], "predefined-item:") && !strings.HasPrefix(parts[i-1], "predefined-item:") {
			node = gen.CollectionNodeID{Owner: gen.ObjectID(owner), Collection: gen.MetadataCollection{MetadataKind: "predefined-item"}}
		}
		b.Children(gen.ChildrenParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, Node: node})
	}
}

// errorJSON spells an error as the API would answer it: an RPCError as
// the contract's error object (which the generated type writes), any
// other error by its message alone.
func errorJSON(err error) string {
	re, ok := err.(*gen.RPCError)
	if !ok {
		raw, _ := json.Marshal(map[string]any{"error": map[string]any{"message": err.Error()}})
		return string(raw)
	}
	raw, merr := json.Marshal(map[string]any{"error": re})
	if merr != nil {
		// Data that cannot be written is left out; the error is still told.
		raw, _ = json.Marshal(map[string]any{"error": &gen.RPCError{Code: re.Code, Message: re.Message}})
	}
	return string(raw)
}

// showEditing prints an editing state for a person.
func showEditing(w io.Writer, r gen.EditingResult) {
	fmt.Fprintf(w, "%s (profile %s), snapshot %s, writable %v, undo %v, redo %v\n", r.Source.Value, r.Profile, r.Snapshot, r.Writable, r.Undo, r.Redo)
	for _, f := range r.Fields {
		raw, _ := gen.MarshalEditSchema(f.Schema)
		var k struct{ Kind string }
		json.Unmarshal(raw, &k)
		fmt.Fprintf(w, "  %-45s %-10s %s\n", f.Path, k.Kind, f.Value)
	}
	var ro []string
	for _, p := range r.ReadOnlyProperties {
		ro = append(ro, p.Path)
	}
	fmt.Fprintf(w, "read-only: %s\n", strings.Join(ro, ", "))
}

// editOutput prints what a command that changes files (eska property,
// eska rename, eska update) answers: the API's JSON with -json, otherwise
// for a person; an error as {"error":{...}} on stdout with -json,
// otherwise on stderr.
type editOutput struct {
	command        string
	json           bool
	stdout, stderr io.Writer
	// errJSON and explain render an error for -json and for a person;
	// nil means errorJSON and describe, the editing commands' own.
	errJSON func(error) string
	explain func(error) string
}

// fail prints err and returns the exit code of a refused command.
func (o editOutput) fail(err error) int {
	if o.json {
		render := errorJSON
		if o.errJSON != nil {
			render = o.errJSON
		}
		fmt.Fprintln(o.stdout, render(err))
	} else {
		explain := describe
		if o.explain != nil {
			explain = o.explain
		}
		fmt.Fprintln(o.stderr, "eska "+o.command+":", explain(err))
	}
	return 1
}

// print prints v as JSON with -json, else calls human, and returns the
// exit code.
func (o editOutput) print(v json.Marshaler, human func()) int {
	if !o.json {
		human()
		return 0
	}
	raw, err := v.MarshalJSON()
	if err != nil {
		return o.fail(err)
	}
	fmt.Fprintln(o.stdout, string(raw))
	return 0
}
