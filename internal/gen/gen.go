// Package gen turns the specs of a repository into every generated file,
// where its contractkit.json says: the Go package, JSON Schemas and
// canonical model of each domain, its reference pages, and optionally a
// registry of the Go packages and the contractdiff rule catalog. It
// computes the whole output in memory, so that writing and checking are
// the same computation.
package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/dave/jennifer/jen"
	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/contractkit/contractkit/internal/config"
	"github.com/contractkit/contractkit/internal/contractdiff/catalogdoc"
	"github.com/contractkit/contractkit/internal/emit/docemit"
	"github.com/contractkit/contractkit/internal/emit/goemit"
	"github.com/contractkit/contractkit/internal/emit/pageemit"
	"github.com/contractkit/contractkit/internal/emit/schemaemit"
	"github.com/contractkit/contractkit/internal/spec"
	"github.com/contractkit/contractkit/internal/trace"
	specfiles "github.com/contractkit/contractkit/spec"
	"github.com/contractkit/contractkit/templates"
)

// Output is the complete generated tree.
type Output struct {
	Files    map[string][]byte // repository-relative path → content
	Set      *spec.Set
	Warnings []string
	// Owned are the folders gen owns entirely (config.OwnedDirs): any
	// file in them that gen does not produce is unexpected, and --write
	// removes it.
	Owned []string
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

// Generate reads the config of the repository fsys, loads every spec it
// names and renders all output.
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

// plan is the config resolved in a repository, before the specs load.
type plan struct {
	cfg       *config.Config
	module    string
	idBase    string
	templates fs.FS
	// entryTemplates are the templates of entries that override them.
	entryTemplates map[int]fs.FS
	meta           []byte
	files          []config.SpecFile
}

// newPlan reads the config and what it names besides the specs: the
// overrides of the embedded templates and meta-schema.
func newPlan(fsys fs.FS) (*plan, error) {
	cfg, err := config.Load(fsys)
	if err != nil {
		return nil, configError(err)
	}
	p := &plan{cfg: cfg, module: config.ModulePath(fsys), templates: templates.FS, meta: specfiles.MetaSchema}
	p.idBase = "https://contractkit.invalid/"
	if p.module != "" {
		p.idBase = "https://" + p.module + "/"
	}
	templateDir := func(ptr, dir string) (fs.FS, error) {
		if st, err := fs.Stat(fsys, path.Clean(dir)); err != nil || !st.IsDir() {
			return nil, &Error{[]string{fmt.Sprintf("%s:%s: %s is not a folder of the repository", config.FileName, ptr, dir)}}
		}
		return fs.Sub(fsys, path.Clean(dir))
	}
	if cfg.Templates != "" {
		if p.templates, err = templateDir("/templates", cfg.Templates); err != nil {
			return nil, err
		}
	}
	p.entryTemplates = map[int]fs.FS{}
	for i, s := range cfg.Specs {
		if s.Templates != "" {
			if p.entryTemplates[i], err = templateDir(fmt.Sprintf("/specs/%d/templates", i), s.Templates); err != nil {
				return nil, err
			}
		}
	}
	if cfg.MetaSchema != "" {
		if p.meta, err = fs.ReadFile(fsys, path.Clean(cfg.MetaSchema)); err != nil {
			return nil, &Error{[]string{fmt.Sprintf("%s:/metaSchema: %v", config.FileName, err)}}
		}
	}
	if p.files, err = cfg.SpecFiles(config.FileName, fsys); err != nil {
		return nil, configError(err)
	}
	return p, nil
}

// configError turns a config's problems into a generation's.
func configError(err error) error {
	var ce *config.Error
	if !errors.As(err, &ce) {
		return err
	}
	ps := make([]string, len(ce.Problems))
	for i, p := range ce.Problems {
		ps[i] = p.String()
	}
	return &Error{ps}
}

func generate(fsys fs.FS, opts options) (*Output, error) {
	p, err := newPlan(fsys)
	if err != nil {
		return &Output{Files: map[string][]byte{}}, err
	}
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
		rc := p.cfg.RuleCatalog
		if rc == nil {
			catalog <- emitted{}
			return
		}
		dirs := map[string]string{}
		for _, lang := range rc.Langs() {
			dirs[lang] = path.Clean(strings.ReplaceAll(rc.Out, config.PlaceholderLang, lang))
		}
		files, err := catalogdoc.EmitTo(p.templates, dirs, rc.Langs())
		catalog <- emitted{files, err}
	}()

	paths := make([]string, len(p.files))
	for i, f := range p.files {
		paths[i] = f.Path
	}
	set, diags := spec.LoadFilesWith(fsys, paths, spec.LoadOptions{MetaSchema: p.meta})
	sc, cat := <-scan, <-catalog
	out := &Output{Files: map[string][]byte{}, Set: set, Owned: p.cfg.OwnedDirs()}
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

	names := map[string]config.Names{}
	for _, d := range set.Domains {
		names[d.File] = config.Names{File: d.File, ID: d.Header.ID, Package: d.Header.Package}
	}
	targets, err := p.cfg.Resolve(config.FileName, p.files, names, p.module)
	if err != nil {
		return out, configError(err)
	}
	bySpec := map[string]config.Target{}
	for _, t := range targets {
		bySpec[t.Spec] = t
	}

	var mu sync.Mutex
	var wg sync.WaitGroup
	failures := make([][]string, len(set.Domains))
	for i, d := range set.Domains {
		for _, task := range domainTasks(fsys, p, bySpec[d.File], d, sc.tests, opts) {
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
	if r := p.cfg.Registry; r != nil {
		out.registry(p.cfg, set, path.Clean(r.Out), bySpec)
	}
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

// domainTasks are the independent parts of a domain's output, where its
// target says.
func domainTasks(fsys fs.FS, p *plan, t config.Target, d *spec.Domain, tests map[string][]trace.Test, opts options) []func() ([]file, error) {
	modelDir := t.GoDir
	if modelDir == "" {
		modelDir = t.SchemaDir
	}
	var tasks []func() ([]file, error)
	if t.GoDir != "" {
		tasks = append(tasks, func() ([]file, error) {
			fs, err := goemit.EmitTo(d, t.GoDir, p.cfg.RegenerateCommand())
			return files(fs), err
		})
	}
	if t.SchemaDir != "" {
		tasks = append(tasks, func() ([]file, error) {
			schemas, err := schemaemit.EmitTo(d, p.idBase, t.SchemaDir)
			if err != nil {
				return nil, err
			}
			if !opts.skipExamples {
				if err := checkExamples(d, schemas); err != nil {
					return nil, err
				}
			}
			return files(schemas.Files), nil
		})
	}
	if modelDir != "" {
		tasks = append(tasks, func() ([]file, error) {
			model, err := Model(d)
			return []file{{path.Join(modelDir, "model.json"), model}}, err
		})
	}
	tasks = append(tasks, func() ([]file, error) {
		fs, err := pageemit.Emit(d, fsys)
		return files(fs), err
	})
	tasks = append(tasks, bindingTasks(d, t)...)
	tmpl := p.templates
	if own, ok := p.entryTemplates[t.Entry]; ok {
		tmpl = own
	}
	in := docemit.Input{Domain: d, Tests: tests, Templates: tmpl, Repo: fsys, Dirs: t.Docs, GoDir: t.GoDir, Regenerate: p.cfg.RegenerateCommand()}
	if modelDir != "" {
		in.ModelPath = path.Join(modelDir, "model.json")
	}
	for _, lang := range t.DocLangs {
		tasks = append(tasks, func() ([]file, error) {
			pages, err := docemit.EmitLang(in, lang)
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

// registry renders dir/contracts.go, which lists every domain's Go package
// so that tools and tests can iterate over all contracts.
func (o *Output) registry(cfg *config.Config, set *spec.Set, dir string, targets map[string]config.Target) {
	pkgName := path.Base(dir)
	specs := make([]string, len(cfg.Specs))
	for i, s := range cfg.Specs {
		specs[i] = s.Path
	}
	f := jen.NewFile(pkgName)
	f.HeaderComment("Code generated by cmd/gen from " + strings.Join(specs, ", ") + ". DO NOT EDIT.")
	f.PackageComment("Package " + pkgName + " lists every generated contract package, so that tools and tests can iterate over all domains.")
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
		pkg := targets[d.File].GoImportPath
		if pkg == "" {
			continue
		}
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
	o.add(path.Join(dir, "contracts.go"), buf.Bytes())
}
