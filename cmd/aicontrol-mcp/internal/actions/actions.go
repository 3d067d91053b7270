// Package actions reads a game project's actions file: the catalog from
// which aicontrol-mcp derives its MCP tools. The file belongs to the
// project, not to the adapter: it names the project's actions, describes
// them in English and Russian, gives each a JSON Schema of its arguments,
// and declares the observation schemaVersion the catalog was written for.
//
//	{
//	  "schemaVersion": 1,
//	  "project": {"name": "aicontrol-sample", "revision": "r1"},
//	  "toolPrefix": "",
//	  "actions": [
//	    {"name": "move",
//	     "description": {"en": "Move the agent.", "ru": "Переместить агента."},
//	     "arguments": {"type": "object", "required": ["x", "y"],
//	                   "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}}}}
//	  ]
//	}
//
// A tool call's arguments become the act command: its members are copied
// next to "type", which is the action's name, so a schema may use the
// protocol's common command fields (x, y, targetId, ...) and the project's
// own members alike.
package actions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/jsondoc"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Limits of an actions file. They keep a catalog something a person can
// review and an MCP client can list in one page.
const (
	// MaxFileBytes bounds the size of the file.
	MaxFileBytes = 1 << 20
	// MaxActions bounds the number of actions.
	MaxActions = 256
	// MaxToolNameBytes is the longest tool name MCP clients accept.
	MaxToolNameBytes = 128
)

// ObserveToolName is the name of the adapter's observe tool, after the
// project's tool prefix.
const ObserveToolName = "observe"

// Text is a human-facing text in both languages.
type Text struct {
	En string `json:"en"`
	Ru string `json:"ru"`
}

// In returns the text in lang ("ru" or anything else for English).
func (t Text) In(lang string) string {
	if lang == "ru" {
		return t.Ru
	}
	return t.En
}

// Action is one project action and the tool that stands for it.
type Action struct {
	// Name is the act command's type, exactly as the project spells it.
	Name string
	// Tool is the MCP tool name: the file's tool prefix and Name.
	Tool string
	// Title is optional; Description is required in both languages.
	Title       Text
	Description Text
	// Arguments is the JSON Schema of the tool's arguments, compact.
	Arguments json.RawMessage
	schema    *jsonschema.Schema
}

// File is a loaded actions file.
type File struct {
	// Path is where the file was read from, for messages.
	Path string
	// SchemaVersion is the observation schemaVersion the file was written
	// for, as canonical JSON: an integer or a string.
	SchemaVersion string
	// ProjectName and ProjectRevision identify the game project in reports.
	ProjectName, ProjectRevision string
	// ToolPrefix is put before every tool name, the observe tool's too.
	ToolPrefix string
	// Actions are in file order.
	Actions []*Action
	byName  map[string]*Action
}

// Lookup returns the action with this name.
func (f *File) Lookup(name string) (*Action, bool) {
	a, ok := f.byName[name]
	return a, ok
}

// ObserveTool is the name of the observe tool.
func (f *File) ObserveTool() string { return f.ToolPrefix + ObserveToolName }

// Load reads and checks an actions file.
func Load(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	// Read one byte past the limit, so an oversized file is told apart
	// from one exactly at the limit without reading all of it.
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse checks the bytes of an actions file; path names it in messages.
func Parse(path string, data []byte) (*File, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, MaxFileBytes)
	}
	// Strict JSON, then the numbers a 64-bit float cannot hold: the schema
	// compiler would read a bound of 1e400 as infinity and drop one with a
	// huge exponent without a word. The catalog's own shape is checked
	// member by member below rather than by a schema, so that its messages
	// speak of actions and tools.
	doc, problems := jsondoc.Check(data, strictjson.Options{}, nil)
	p := parser{path: path}
	if len(problems) > 0 {
		first := problems[0]
		if first.Stage == jsondoc.Syntax {
			return nil, fmt.Errorf("%s: %v", path, first.Err)
		}
		p.failf(first.Pointer, "%s", first.Msg)
		return nil, p.err
	}
	f := p.file(doc.Tree)
	if p.err != nil {
		return nil, p.err
	}
	return f, nil
}

// parser keeps the first problem found, with its JSON Pointer.
type parser struct {
	path string
	err  error
}

func (p *parser) failf(ptr, format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("%s:%s: %s", p.path, strictjson.DisplayPointer(ptr), fmt.Sprintf(format, args...))
	}
}

// members checks that v is an object whose member names are all in allowed
// (so a misspelt member is reported, not ignored) and that every name in
// required is present.
func (p *parser) members(v *strictjson.Value, ptr string, required []string, allowed ...string) bool {
	if v.Kind != strictjson.Object {
		p.failf(ptr, "want an object, got %s", v.Kind)
		return false
	}
	for _, m := range v.Members {
		if !contains(allowed, m.Key) && !contains(required, m.Key) {
			p.failf(strictjson.AppendPointer(ptr, m.Key), "unknown member %q", m.Key)
			return false
		}
	}
	for _, r := range required {
		if v.Get(r) == nil {
			p.failf(ptr, "missing member %q", r)
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (p *parser) str(v *strictjson.Value, ptr string, nonEmpty bool) string {
	if v == nil {
		return ""
	}
	if v.Kind != strictjson.String {
		p.failf(ptr, "want a string, got %s", v.Kind)
		return ""
	}
	if nonEmpty && strings.TrimSpace(v.Str) == "" {
		p.failf(ptr, "must not be empty")
	}
	return v.Str
}

func (p *parser) text(v *strictjson.Value, ptr string) Text {
	if v == nil {
		return Text{}
	}
	if !p.members(v, ptr, []string{"en", "ru"}) {
		return Text{}
	}
	return Text{En: p.str(v.Get("en"), ptr+"/en", true), Ru: p.str(v.Get("ru"), ptr+"/ru", true)}
}

func (p *parser) file(root *strictjson.Value) *File {
	f := &File{Path: p.path, byName: map[string]*Action{}}
	if !p.members(root, "", []string{"schemaVersion", "actions"}, "$schema", "project", "toolPrefix") {
		return nil
	}
	f.SchemaVersion = p.schemaVersion(root.Get("schemaVersion"), "/schemaVersion")
	if pv := root.Get("project"); pv != nil && p.members(pv, "/project", []string{"name"}, "revision") {
		f.ProjectName = p.str(pv.Get("name"), "/project/name", true)
		f.ProjectRevision = p.str(pv.Get("revision"), "/project/revision", true)
	}
	f.ToolPrefix = p.str(root.Get("toolPrefix"), "/toolPrefix", false)
	list := root.Get("actions")
	switch {
	case list.Kind != strictjson.Array:
		p.failf("/actions", "want an array, got %s", list.Kind)
		return nil
	case len(list.Elems) == 0:
		p.failf("/actions", "no actions: a catalog needs at least one")
		return nil
	case len(list.Elems) > MaxActions:
		p.failf("/actions", "%d actions, more than the limit of %d", len(list.Elems), MaxActions)
		return nil
	}
	tools := map[string]string{f.ObserveTool(): "the adapter's observe tool"}
	for i, v := range list.Elems {
		ptr := strictjson.AppendIndexPointer("/actions", i)
		a := p.action(v, ptr, f.ToolPrefix)
		if p.err != nil {
			return nil
		}
		if other, dup := tools[a.Tool]; dup {
			p.failf(ptr+"/name", "tool name %q is already taken by %s", a.Tool, other)
			return nil
		}
		tools[a.Tool] = ptr
		f.Actions = append(f.Actions, a)
		f.byName[a.Name] = a
	}
	if p.err == nil {
		if err := CheckToolName(f.ObserveTool()); err != nil {
			p.failf("/toolPrefix", "%v", err)
		}
	}
	return f
}

// schemaVersion accepts an integer or a non-empty string and returns its
// canonical JSON, so that 1 and 1.0 compare equal and "1" does not.
func (p *parser) schemaVersion(v *strictjson.Value, ptr string) string {
	s, err := CanonicalSchemaVersion(v)
	if err != nil {
		p.failf(ptr, "%v", err)
	}
	return s
}

// CanonicalSchemaVersion is the canonical JSON of a schemaVersion value:
// an integer in decimal, or a quoted non-empty string.
func CanonicalSchemaVersion(v *strictjson.Value) (string, error) {
	switch {
	case v == nil:
		return "", errors.New("no schemaVersion")
	case v.Kind == strictjson.Number:
		n, ok := v.Int64()
		if !ok {
			return "", fmt.Errorf("schemaVersion %s is not an integer", v.Str)
		}
		return strconv.FormatInt(n, 10), nil
	case v.Kind == strictjson.String && v.Str != "":
		return string(strictjson.AppendString(nil, v.Str)), nil
	}
	return "", fmt.Errorf("schemaVersion must be an integer or a non-empty string, got %s", v.Kind)
}

func (p *parser) action(v *strictjson.Value, ptr, prefix string) *Action {
	if !p.members(v, ptr, []string{"name", "description", "arguments"}, "title") {
		return nil
	}
	a := &Action{
		Name:        p.str(v.Get("name"), ptr+"/name", true),
		Title:       p.text(v.Get("title"), ptr+"/title"),
		Description: p.text(v.Get("description"), ptr+"/description"),
	}
	if p.err != nil {
		return nil
	}
	a.Tool = prefix + a.Name
	if err := CheckToolName(a.Tool); err != nil {
		p.failf(ptr+"/name", "%v", err)
		return nil
	}
	args := v.Get("arguments")
	aptr := ptr + "/arguments"
	if args.Kind != strictjson.Object {
		p.failf(aptr, "want a JSON Schema object, got %s", args.Kind)
		return nil
	}
	if t := args.Get("type"); t == nil || t.Kind != strictjson.String || t.Str != "object" {
		p.failf(aptr+"/type", `an MCP tool's arguments are an object: the schema needs "type": "object"`)
		return nil
	}
	if props := args.Get("properties"); props != nil && props.Get("type") != nil {
		// The action's name is the command's type; an argument of that
		// name would let the caller send another action than the tool's.
		p.failf(aptr+"/properties/type", `"type" is the action's name and cannot be an argument`)
		return nil
	}
	a.Arguments = args.AppendCompact(nil)
	s, err := compileSchema(a.Tool, a.Arguments)
	if err != nil {
		p.failf(aptr, "%v", err)
		return nil
	}
	a.schema = s
	return a
}

// CheckToolName applies MCP's tool name rule: 1 to MaxToolNameBytes of
// ASCII letters, digits, '_', '-' and '.'.
func CheckToolName(name string) error {
	if name == "" {
		return errors.New("empty tool name")
	}
	if len(name) > MaxToolNameBytes {
		return fmt.Errorf("tool name %q is %d bytes, more than the limit of %d", name, len(name), MaxToolNameBytes)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return fmt.Errorf("tool name %q has %q at byte %d: only letters, digits, '_', '-' and '.' are allowed", name, c, i)
		}
	}
	return nil
}

// schemaURL names an argument schema inside the compiler; it never reaches
// a message, since messages use instance pointers.
func schemaURL(tool string) string { return "aicontrol-mcp:///actions/" + tool + ".json" }

func compileSchema(tool string, schema []byte) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	// A catalog must be self-contained: no schema is fetched from anywhere.
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("$ref to %q: only references inside the schema are allowed", u)
	}
	if err := c.AddResource(schemaURL(tool), bytes.NewReader(schema)); err != nil {
		return nil, err
	}
	s, err := c.Compile(schemaURL(tool))
	if err != nil {
		return nil, fmt.Errorf("not a valid JSON Schema: %s", schemaProblem(err))
	}
	return s, nil
}

// schemaProblem shortens a compiler error to its innermost causes.
func schemaProblem(err error) string {
	var se *jsonschema.SchemaError
	if errors.As(err, &se) {
		var ve *jsonschema.ValidationError
		if errors.As(se.Err, &ve) {
			var out []string
			for _, leaf := range jsondoc.Leaves(ve) {
				out = append(out, "at "+strictjson.DisplayPointer(leaf.InstanceLocation)+": "+leaf.Message)
			}
			sort.Strings(out)
			return strings.Join(out, "; ")
		}
		if se.Err != nil {
			return se.Err.Error()
		}
	}
	return err.Error()
}

// argumentProblems words the problems of a tool call's arguments as
// "pointer: message": numbers in document order, schema violations sorted.
// An unknown member is named at its own pointer, as the catalog's own
// problems are.
func argumentProblems(problems []jsondoc.Problem) []string {
	var out []string
	for _, p := range problems {
		if p.Stage == jsondoc.Schema && p.Leaf == nil {
			out = append(out, p.Msg)
			continue
		}
		if names, ok := jsondoc.UnknownMembers(p.Msg); ok && p.Stage == jsondoc.Schema {
			for _, n := range names {
				out = append(out, strictjson.AppendPointer(p.Pointer, n)+fmt.Sprintf(": unknown member %q", n))
			}
			continue
		}
		out = append(out, strictjson.DisplayPointer(p.Pointer)+": "+p.Msg)
	}
	if problems[0].Stage == jsondoc.Schema {
		sort.Strings(out)
	}
	return out
}

// ArgumentError is a tool call whose arguments the action does not accept.
// Nothing has been sent to the listener when it is returned.
type ArgumentError struct {
	Tool     string
	Problems []string
}

func (e *ArgumentError) Error() string {
	return fmt.Sprintf("invalid arguments for %s: %s", e.Tool, strings.Join(e.Problems, "; "))
}

// Command checks a tool call's arguments (raw JSON; empty means {})
// against the action's schema and against the act command's own field
// types, and returns the command to queue. Every failure is an
// *ArgumentError.
func (a *Action) Command(args json.RawMessage) (aicontrol.ActParams, error) {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}")
	}
	// Strict JSON, the numbers a 64-bit float cannot hold (no field of the
	// act command holds one, and the schema validator would round it), then
	// the action's schema. The shape of the call is told before either of
	// the last two, which assume an object.
	doc, problems := jsondoc.Check(args, strictjson.Options{}, a.schema)
	if len(problems) > 0 && problems[0].Stage == jsondoc.Syntax {
		return aicontrol.ActParams{}, &ArgumentError{a.Tool, []string{problems[0].Err.Error()}}
	}
	root := doc.Tree
	if root.Kind != strictjson.Object {
		return aicontrol.ActParams{}, &ArgumentError{a.Tool, []string{"arguments must be an object, got " + root.Kind.String()}}
	}
	if root.Get("type") != nil {
		return aicontrol.ActParams{}, &ArgumentError{a.Tool, []string{`/type: "type" is the action's name and cannot be an argument`}}
	}
	if len(problems) > 0 {
		return aicontrol.ActParams{}, &ArgumentError{a.Tool, argumentProblems(problems)}
	}
	// The command is the arguments with the action's name as its type; the
	// generated decoder then applies the protocol's own field types, so a
	// schema that allows, say, a string x still cannot send one.
	cmd := make([]byte, 0, len(args)+len(a.Name)+16)
	cmd = append(cmd, `{"type":`...)
	cmd = strictjson.AppendString(cmd, a.Name)
	for _, m := range root.Members {
		cmd = append(cmd, ',')
		cmd = strictjson.AppendString(cmd, m.Key)
		cmd = append(cmd, ':')
		cmd = m.Value.AppendCompact(cmd)
	}
	cmd = append(cmd, '}')
	p, err := aicontrol.DecodeActParams(cmd)
	if err != nil {
		return aicontrol.ActParams{}, &ArgumentError{a.Tool, []string{"does not fit the act command: " + err.Error()}}
	}
	return p, nil
}
