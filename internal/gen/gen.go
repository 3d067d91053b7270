// Package gen turns the specs of a repository into every generated file:
// the Go package, JSON Schemas, canonical model and TypeScript and Python
// bindings of each domain under generated/, and the reference pages under Docs/{en,ru}/reference/
// (those of each domain, and the contractdiff rule catalog). It
// computes the whole output in memory, so that writing and checking are
// the same computation.
package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/dave/jennifer/jen"
	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/contractkit/contractkit/internal/contractdiff/catalogdoc"
	"github.com/contractkit/contractkit/internal/emit/docemit"
	"github.com/contractkit/contractkit/internal/emit/goemit"
	"github.com/contractkit/contractkit/internal/emit/pageemit"
	"github.com/contractkit/contractkit/internal/emit/schemaemit"
	"github.com/contractkit/contractkit/internal/spec"
	"github.com/contractkit/contractkit/internal/trace"
)

// OwnedDirs are the folders gen owns entirely: any file in them that gen
// does not produce is unexpected, and --write removes it.
var OwnedDirs = []string{"generated", "Docs/en/reference", "Docs/ru/reference"}

// Output is the complete generated tree.
type Output struct {
	Files    map[string][]byte // repository-relative path → content
	Set      *spec.Set
	Warnings []string
}

// Paths returns the output paths sorted.
func (o *Output) Paths() []string {
	ps := make([]string, 0, len(o.Files))
	for p := range o.Files {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// Error is a failed generation: every problem, one per line.
type Error struct{ Problems []string }

func (e *Error) Error() string { return strings.Join(e.Problems, "\n") }

// Generate loads every spec of the repository fsys and renders all output.
//
// The work runs side by side wherever it does not depend on other work:
// the test directives and the contractdiff catalog are read while the
// specs load, and then every output of every domain (each Go file, the
// schemas and their examples, the model, each language of the pages, the
// page catalog) is a task of its own. Each part is computed once; files
// are gathered by path, so the order in which tasks end reaches no output.
func Generate(fsys fs.FS) (*Output, error) { return generate(fsys, options{}) }

// options leave out work that produces no output, for tests that compare
// outputs only.
type options struct {
	// skipExamples does not validate the examples against the schemas.
	skipExamples bool
}

func generate(fsys fs.FS, opts options) (*Output, error) {
	type scanned struct {
		tests    map[string][]trace.Test
		problems []trace.Problem
		err      error
	}
	scan := make(chan scanned, 1)
	go func() {
		tests, problems, err := trace.Scan(fsys, nil)
		scan <- scanned{tests, problems, err}
	}()
	type emitted struct {
		files []catalogdoc.File
		err   error
	}
	catalog := make(chan emitted, 1)
	go func() {
		files, err := catalogdoc.Emit(fsys)
		catalog <- emitted{files, err}
	}()

	set, diags := spec.Load(fsys)
	sc, cat := <-scan, <-catalog
	out := &Output{Files: map[string][]byte{}, Set: set}
	for _, w := range diags.Warnings() {
		out.Warnings = append(out.Warnings, w.String())
	}
	if diags.HasErrors() {
		var ps []string
		for _, d := range diags.Errors() {
			ps = append(ps, d.String())
		}
		return out, &Error{ps}
	}
	if sc.err != nil {
		return out, sc.err
	}
	known := map[string]bool{}
	for _, d := range set.Domains {
		for _, e := range d.Entries() {
			known[e.ID] = true
		}
	}
	problems := append(sc.problems, trace.Unknown(sc.tests, func(id string) bool { return known[id] })...)
	if len(problems) > 0 {
		trace.SortProblems(problems)
		var ps []string
		for _, p := range problems {
			ps = append(ps, p.String())
		}
		return out, &Error{ps}
	}

	var mu sync.Mutex
	var wg sync.WaitGroup
	failures := make([][]string, len(set.Domains))
	for i, d := range set.Domains {
		for _, task := range domainTasks(fsys, d, sc.tests, opts) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				files, err := task()
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					failures[i] = append(failures[i], err.Error())
					return
				}
				for _, f := range files {
					out.add(f.Path, f.Data)
				}
			}()
		}
	}
	wg.Wait()
	var all []string
	for _, f := range failures {
		// A domain's failures are sorted, so that what is reported does
		// not depend on which task ended first.
		sort.Strings(f)
		all = append(all, f...)
	}
	if len(all) > 0 {
		return out, &Error{all}
	}
	out.registry(set)
	if cat.err != nil {
		return out, cat.err
	}
	for _, p := range cat.files {
		out.add(p.Path, p.Data)
	}
	return out, nil
}

func (o *Output) add(p string, data []byte) { o.Files[p] = data }

// file is one output of a task.
type file struct {
	Path string
	Data []byte
}

func files[F ~struct {
	Path string
	Data []byte
}](fs []F) []file {
	out := make([]file, 0, len(fs))
	for _, f := range fs {
		out = append(out, file(f))
	}
	return out
}

// domainTasks are the independent parts of a domain's output.
func domainTasks(fsys fs.FS, d *spec.Domain, tests map[string][]trace.Test, opts options) []func() ([]file, error) {
	dir := goemit.Dir(d)
	tasks := []func() ([]file, error){
		func() ([]file, error) {
			fs, err := goemit.Emit(d)
			return files(fs), err
		},
		func() ([]file, error) {
			schemas, err := schemaemit.EmitAll(d, dir)
			if err != nil {
				return nil, err
			}
			if !opts.skipExamples {
				if err := checkExamples(d, schemas); err != nil {
					return nil, err
				}
			}
			return files(schemas.Files), nil
		},
		func() ([]file, error) {
			model, err := Model(d)
			return []file{{path.Join(dir, "model.json"), model}}, err
		},
		func() ([]file, error) {
			fs, err := pageemit.Emit(d, fsys)
			return files(fs), err
		},
	}
	tasks = append(tasks, bindingTasks(d, bindingsOf(d))...)
	for _, lang := range docemit.Languages {
		tasks = append(tasks, func() ([]file, error) {
			pages, err := docemit.EmitLang(docemit.Input{Domain: d, Tests: tests, Templates: fsys}, lang)
			return files(pages), err
		})
	}
	return tasks
}

// Model renders model.json: the canonical model of a domain and its digest.
func Model(d *spec.Domain) ([]byte, error) {
	var body bytes.Buffer
	if err := json.Indent(&body, d.Canonical(), "  ", "  "); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"comment\": %q,\n  \"spec\": %q,\n  \"digest\": %q,\n  \"model\": %s\n}\n",
		"Generated by cmd/gen. The digest is the sha256 of the model member in canonical form (sorted keys, no insignificant space).",
		d.File, d.Digest, body.String())
	return b.Bytes(), nil
}

// checkExamples validates every example of the spec against the generated
// schemas, so that a spec whose examples contradict it fails at generation
// with the example's pointer. It compiles the bundle, where each type's
// definition appears once, instead of every file, which repeats the
// definitions it reaches: the definitions are the same bytes either way.
// The conformance tests check the files themselves and the Go decoders.
func checkExamples(d *spec.Domain, schemas *schemaemit.Output) error {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(schemas.BundleID, bytes.NewReader(schemas.Bundle)); err != nil {
		return fmt.Errorf("%s: schema bundle: %w", d.File, err)
	}
	compiled := map[string]*jsonschema.Schema{}
	schemaOf := func(t *spec.Type) (*jsonschema.Schema, error) {
		if s := compiled[t.Name]; s != nil {
			return s, nil
		}
		s, err := c.Compile(schemas.BundleID + "#/$defs/" + t.Name)
		if err != nil {
			return nil, fmt.Errorf("%s: schema of %s does not compile: %w", d.File, t.Name, err)
		}
		compiled[t.Name] = s
		return s, nil
	}
	var problems []string
	check := func(t *spec.Type, ex spec.Examples, ptr string) error {
		if len(ex.Valid) == 0 && len(ex.Invalid) == 0 {
			return nil
		}
		s, err := schemaOf(t)
		if err != nil {
			return err
		}
		for i, v := range ex.Valid {
			if err := s.Validate(decodeAny(v)); err != nil {
				problems = append(problems, fmt.Sprintf("%s:%s/valid/%d: valid example of %s is rejected by its generated schema: %v", d.File, ptr, i, t.Name, oneLine(err)))
			}
		}
		for i, v := range ex.Invalid {
			if err := s.Validate(decodeAny(v.Value)); err == nil {
				problems = append(problems, fmt.Sprintf("%s:%s/invalid/%d: invalid example of %s is accepted by its generated schema", d.File, ptr, i, t.Name))
			}
		}
		return nil
	}
	for _, t := range d.Types {
		if t.Examples != nil {
			if err := check(t, *t.Examples, t.Ptr+"/examples"); err != nil {
				return err
			}
		}
	}
	for _, m := range d.Methods {
		if err := check(m.ParamsType, m.Examples.Params, m.Ptr+"/examples/params"); err != nil {
			return err
		}
		if m.ResultType != nil {
			if err := check(m.ResultType, m.Examples.Result, m.Ptr+"/examples/result"); err != nil {
				return err
			}
		}
	}
	if len(problems) > 0 {
		return &Error{problems}
	}
	return nil
}

func decodeAny(raw json.RawMessage) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	_ = dec.Decode(&v)
	return v
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

// registry renders generated/contracts.go, which lists every domain
// package so that tools and tests can iterate over all contracts.
func (o *Output) registry(set *spec.Set) {
	f := jen.NewFile("generated")
	f.HeaderComment("Code generated by cmd/gen from spec/*.json. DO NOT EDIT.")
	f.PackageComment("Package generated lists every generated contract package, so that tools and tests can iterate over all domains.")
	f.Comment("Contract is one generated domain package.")
	f.Type().Id("Contract").Struct(
		jen.Id("Domain").String().Comment("domain id"),
		jen.Id("Package").String().Comment("Go package name under generated/"),
		jen.Id("SpecFile").String(),
		jen.Id("Digest").String(),
		jen.Id("Decoders").Map(jen.String()).Func().Params(jen.Index().Byte()).Params(jen.Any(), jen.Error()).Comment("strict decoder of every named type"),
		jen.Id("SchemaFS").Qual("io/fs", "FS").Comment("schema/<Type>.json of every named type"),
	)
	var items []jen.Code
	for _, d := range set.Domains {
		pkg := goemit.Module + "/" + goemit.Dir(d)
		items = append(items, jen.Values(jen.Dict{
			jen.Id("Domain"):   jen.Qual(pkg, "Domain"),
			jen.Id("Package"):  jen.Lit(d.Header.Package),
			jen.Id("SpecFile"): jen.Qual(pkg, "SpecFile"),
			jen.Id("Digest"):   jen.Qual(pkg, "Digest"),
			jen.Id("Decoders"): jen.Qual(pkg, "Decoders"),
			jen.Id("SchemaFS"): jen.Qual(pkg, "SchemaFS"),
		}))
	}
	f.Comment("Contracts lists the domains, ordered by id.")
	f.Var().Id("Contracts").Op("=").Index().Id("Contract").Values(items...)
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		panic(err) // static code; a failure here is a bug in this function
	}
	o.add("generated/contracts.go", buf.Bytes())
}
