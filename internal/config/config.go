// Package config reads contractkit.json, the one file a repository
// describes its specs and outputs in: which specs it has, where gen writes
// each spec's Go package, JSON Schemas and reference pages, which asset
// the repository overrides, and what contractdiff reads. The format's
// JSON Schema is embedded (Schema) so that editors can be given it by
// `gen config-schema`; a file is checked against it and decoded strictly,
// and every problem is reported as contractkit.json:/pointer: message
// before anything is written.
package config

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/contractkit/contractkit/internal/jsondoc"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// FileName is the config's name at the repository root.
const FileName = "contractkit.json"

// SchemaFileName is the name `gen config-schema` and `gen init` give the
// schema they write beside the config.
const SchemaFileName = "contractkit.schema.json"

// Schema is the JSON Schema of contractkit.json.
//
//go:embed contractkit.schema.json
var Schema []byte

const schemaURL = "https://github.com/contractkit/contractkit/contractkit.schema.json"

// maxFileBytes bounds the config; a real one is a few hundred bytes.
const maxFileBytes = 1 << 20

// maxDepth bounds nesting; the format is four levels deep.
const maxDepth = 16

// Config is a parsed contractkit.json.
type Config struct {
	Schema       string        `json:"$schema,omitempty"`
	Version      int           `json:"version"`
	Specs        []Spec        `json:"specs"`
	Templates    string        `json:"templates,omitempty"`
	Regenerate   string        `json:"regenerate,omitempty"`
	MetaSchema   string        `json:"metaSchema,omitempty"`
	Registry     *Out          `json:"registry,omitempty"`
	RuleCatalog  *Docs         `json:"ruleCatalog,omitempty"`
	ContractDiff *ContractDiff `json:"contractdiff,omitempty"`
}

// Spec is one entry of specs: a file or a glob, and the outputs of every
// spec it names. Each output is optional.
type Spec struct {
	Path   string `json:"path"`
	Go     *Go    `json:"go,omitempty"`
	Schema *Out   `json:"schema,omitempty"`
	Docs   *Docs  `json:"docs,omitempty"`
	// Templates overrides, for this entry's specs, the page templates
	// (the top-level templates, else the embedded ones).
	Templates string `json:"templates,omitempty"`
	// TypeScript and Python are the bindings in the peers' languages.
	TypeScript *TypeScript `json:"typescript,omitempty"`
	Python     *Out        `json:"python,omitempty"`
}

// TypeScript is where a spec's TypeScript modules go.
type TypeScript struct {
	Out string `json:"out"`
	// JSONRPC adds vscode-jsonrpc request and notification descriptors,
	// for a protocol carried as JSON-RPC 2.0 in Content-Length frames.
	JSONRPC bool `json:"jsonrpc,omitempty"`
}

// Go is where a spec's Go package goes.
type Go struct {
	Out        string `json:"out"`
	ImportPath string `json:"importPath,omitempty"`
}

// Out is an output folder.
type Out struct {
	Out string `json:"out"`
}

// Docs is where reference pages go, and in which languages.
type Docs struct {
	Out       string   `json:"out"`
	Languages []string `json:"languages,omitempty"`
}

// Langs returns the languages, en and ru by default.
func (d *Docs) Langs() []string {
	if len(d.Languages) == 0 {
		return []string{"en", "ru"}
	}
	return d.Languages
}

// ContractDiff is what contractdiff reads besides the specs.
type ContractDiff struct {
	Dispositions       string `json:"dispositions,omitempty"`
	Policy             string `json:"policy,omitempty"`
	DefaultBranch      string `json:"defaultBranch,omitempty"`
	DispositionsSchema string `json:"dispositionsSchema,omitempty"`
	PolicySchema       string `json:"policySchema,omitempty"`
}

// Defaults of contractdiff's files.
const (
	DefaultDispositions  = "contract-change-dispositions.json"
	DefaultPolicy        = "contract-diff-policy.json"
	DefaultDefaultBranch = "main"
)

// DefaultRegenerate is the command generated files name as the way to
// regenerate them, unless the config names another.
const DefaultRegenerate = "go generate ./..."

// RegenerateCommand returns the command generated files tell readers to run.
func (c *Config) RegenerateCommand() string {
	if c.Regenerate != "" {
		return c.Regenerate
	}
	return DefaultRegenerate
}

// Diff returns the contractdiff section with every default filled in.
func (c *Config) Diff() ContractDiff {
	var d ContractDiff
	if c.ContractDiff != nil {
		d = *c.ContractDiff
	}
	if d.Dispositions == "" {
		d.Dispositions = DefaultDispositions
	}
	if d.Policy == "" {
		d.Policy = DefaultPolicy
	}
	if d.DefaultBranch == "" {
		d.DefaultBranch = DefaultDefaultBranch
	}
	return d
}

// Problem is one thing wrong with the config, at a JSON pointer (Line is
// not set: the config's problems name the pointer alone).
type Problem = jsondoc.FileProblem

// Error is a config that cannot be used: every problem found.
type Error struct{ Problems []Problem }

func (e *Error) Error() string { return jsondoc.JoinProblems(e.Problems) }

func fail(ps ...Problem) error {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Pointer < ps[j].Pointer })
	return &Error{ps}
}

// compiled is the schema, compiled on first use: commands that never read
// a config (gen config-schema, gen init) do not pay for it.
var compiled = sync.OnceValue(func() *jsonschema.Schema {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(schemaURL, bytes.NewReader(Schema)); err != nil {
		panic(err) // the embedded schema is tested; a failure is a bug
	}
	return c.MustCompile(schemaURL)
})

// ErrNotFound is returned by Load when the repository has no config.
var ErrNotFound = errors.New(FileName + " not found")

// Load reads and checks the config at the root of the repository fsys.
func Load(fsys fs.FS) (*Config, error) {
	data, err := fs.ReadFile(fsys, FileName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at the repository root: run gen init to write one", ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	return Parse(FileName, data)
}

// Parse checks data against the schema, decodes it strictly and checks
// what the schema cannot say (paths that leave the repository, outputs
// whose owned folder would be the repository itself). file names the
// config in problems.
func Parse(file string, data []byte) (*Config, error) {
	if len(data) > maxFileBytes {
		return nil, fail(Problem{File: file, Msg: fmt.Sprintf("the file is %d bytes; the limit is %d", len(data), maxFileBytes)})
	}
	if _, problems := jsondoc.Check(data, strictjson.Options{MaxDepth: maxDepth}, compiled()); len(problems) > 0 {
		var ps []Problem
		seen := map[string]bool{}
		for _, dp := range problems {
			for _, p := range worded(file, dp) {
				if k := p.Pointer + "\x00" + p.Msg; !seen[k] {
					seen[k] = true
					ps = append(ps, p)
				}
			}
		}
		return nil, fail(ps...)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return nil, fail(Problem{File: file, Msg: "decode: " + err.Error()})
	}
	if ps := c.check(file); len(ps) > 0 {
		return nil, fail(ps...)
	}
	return &c, nil
}

// worded turns a problem of the document into problems a person editing
// the file can act on; an unknown key is reported at its own pointer.
func worded(file string, p jsondoc.Problem) []Problem {
	loc, msg := p.Pointer, p.Msg
	switch {
	case p.Stage == jsondoc.Syntax:
		return []Problem{{File: file, Pointer: loc, Msg: "invalid JSON: " + msg}}
	case p.Leaf == nil:
		return []Problem{{File: file, Pointer: loc, Msg: msg}}
	}
	if names, ok := jsondoc.UnknownMembers(msg); ok {
		var out []Problem
		for _, n := range names {
			out = append(out, Problem{File: file, Pointer: strictjson.AppendPointer(loc, n), Msg: fmt.Sprintf("unknown key %q", n)})
		}
		return out
	}
	if strings.HasPrefix(msg, "expected ") && strings.Contains(msg, ", but got ") {
		msg = "wrong type: " + msg
	}
	return []Problem{{File: file, Pointer: loc, Msg: msg}}
}

// Asset returns a file the tools carry (a schema, the meta-schema):
// embedded when the config names no override, else the repository's own
// copy at override, whose read error names the config's pointer ptr.
// override is cleaned first: check lets any path inside the repository
// through ("./own.json" too), and fs.FS opens clean paths alone.
func Asset(fsys fs.FS, embedded []byte, ptr, override string) ([]byte, error) {
	if override == "" {
		return embedded, nil
	}
	data, err := fs.ReadFile(fsys, path.Clean(override))
	if err != nil {
		return nil, fmt.Errorf("%s:%s: %v", FileName, ptr, err)
	}
	return data, nil
}
