package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/contractkit/contractkit/internal/jsondoc"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// Repository-relative locations the loader knows.
const (
	SpecDir        = "spec"
	MetaSchemaPath = "spec/contract.schema.json"
	metaSchemaURL  = "https://github.com/contractkit/contractkit/spec/contract.schema.json"
)

// maxSpecDepth bounds nesting in a spec file; real specs stay far below it.
const maxSpecDepth = 128

// Set is every domain loaded from spec/, sorted by domain id.
type Set struct {
	Domains []*Domain
}

// Domain returns the domain with the given id, or nil.
func (s *Set) Domain(id string) *Domain {
	for _, d := range s.Domains {
		if d.Header.ID == id {
			return d
		}
	}
	return nil
}

// SpecFiles lists the spec files under spec/ in name order: every *.json
// except JSON Schemas (*.schema.json).
func SpecFiles(fsys fs.FS) ([]string, error) {
	ents, err := fs.ReadDir(fsys, SpecDir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".schema.json") {
			continue
		}
		files = append(files, path.Join(SpecDir, n))
	}
	sort.Strings(files)
	return files, nil
}

// Load reads every spec under spec/ of the repository fsys. It returns the
// set (nil when any spec has errors) and every diagnostic of every file.
func Load(fsys fs.FS) (*Set, Diagnostics) {
	files, err := SpecFiles(fsys)
	if err != nil {
		return nil, Diagnostics{{File: SpecDir, Msg: err.Error()}}
	}
	if len(files) == 0 {
		return nil, Diagnostics{{File: SpecDir, Msg: "no spec files (spec/*.json)"}}
	}
	return LoadFiles(fsys, files)
}

// LoadOptions leave out work a caller does not need.
type LoadOptions struct {
	// SkipDigest leaves Domain.Digest empty (a comparison does not use it).
	SkipDigest bool
	// SkipSources does not check that source anchors exist (gen --check
	// does; a comparison of two revisions does not depend on them).
	SkipSources bool
	// MetaSchema is the meta-schema to check the specs against, in place
	// of the one read from MetaSchemaPath of the repository.
	MetaSchema []byte
}

// LoadWith is Load with options.
func LoadWith(fsys fs.FS, opts LoadOptions) (*Set, Diagnostics) {
	files, err := SpecFiles(fsys)
	if err != nil {
		return nil, Diagnostics{{File: SpecDir, Msg: err.Error()}}
	}
	if len(files) == 0 {
		return nil, Diagnostics{{File: SpecDir, Msg: "no spec files (spec/*.json)"}}
	}
	return loadFiles(fsys, files, opts)
}

// LoadFiles is Load for the given spec files; their order does not matter.
func LoadFiles(fsys fs.FS, files []string) (*Set, Diagnostics) {
	return loadFiles(fsys, files, LoadOptions{})
}

// LoadFilesWith is LoadFiles with options.
func LoadFilesWith(fsys fs.FS, files []string, opts LoadOptions) (*Set, Diagnostics) {
	return loadFiles(fsys, files, opts)
}

func loadFiles(fsys fs.FS, files []string, opts LoadOptions) (*Set, Diagnostics) {
	var meta *jsonschema.Schema
	var err error
	if opts.MetaSchema != nil {
		meta, err = compileMetaBytes(opts.MetaSchema)
	} else {
		meta, err = compileMetaSchema(fsys)
	}
	if err != nil {
		return nil, Diagnostics{{File: MetaSchemaPath, Msg: err.Error()}}
	}
	// Files parse side by side; their results are gathered in file order.
	type parsed struct {
		d  *Domain
		ds Diagnostics
	}
	results := make([]parsed, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Add(1)
		go func(i int, f string) {
			defer wg.Done()
			data, err := fs.ReadFile(fsys, f)
			if err != nil {
				results[i] = parsed{ds: Diagnostics{{File: f, Msg: err.Error()}}}
				return
			}
			d, ds := parseDomain(meta, f, data)
			results[i] = parsed{d, ds}
		}(i, f)
	}
	wg.Wait()
	var all Diagnostics
	set := &Set{}
	for _, r := range results {
		all = append(all, r.ds...)
		if r.d != nil {
			set.Domains = append(set.Domains, r.d)
		}
	}
	sort.Slice(set.Domains, func(i, j int) bool { return set.Domains[i].Header.ID < set.Domains[j].Header.ID })
	// The semantic checks run on every spec that parsed, whatever is
	// wrong with the others: one run reports every problem of every spec.
	// A spec that did not parse is not in the set; its own errors say why.
	all = append(all, checkSetWith(fsys, set, opts)...)
	sortDiagnostics(all)
	if all.HasErrors() {
		return nil, all
	}
	// The canonical model is computed once per domain, side by side, and
	// kept: the digest and model.json both read it.
	var digests sync.WaitGroup
	for _, d := range set.Domains {
		d.orderExamples()
		if !opts.SkipDigest {
			digests.Add(1)
			go func(d *Domain) {
				defer digests.Done()
				d.canonical = d.Canonical()
				d.Digest = digestOf(d)
			}(d)
		}
	}
	digests.Wait()
	return set, all
}

// ParseOne parses and checks a single spec given as bytes (for contractdiff
// baselines read from git): no source anchors are checked, since the files
// they point at belong to another revision, and no digest is computed
// (Digest stays empty; a comparison does not need it).
func ParseOne(fsys fs.FS, file string, data []byte) (*Domain, Diagnostics) {
	meta, err := compileMetaSchema(fsys)
	if err != nil {
		return nil, Diagnostics{{File: MetaSchemaPath, Msg: err.Error()}}
	}
	d, ds := parseDomain(meta, file, data)
	if d == nil || ds.HasErrors() {
		sortDiagnostics(ds)
		return nil, ds
	}
	ds = append(ds, checkDomain(nil, d)...)
	sortDiagnostics(ds)
	if ds.HasErrors() {
		return nil, ds
	}
	d.orderExamples()
	return d, ds
}

// metaSchemas holds every meta-schema compiled so far, by its text: a
// baseline and the working tree usually share one, and compiling it is
// most of the cost of loading a spec.
var metaSchemas sync.Map

// metaDocs holds each compiled meta-schema's decoded text, by the compiled
// schema: the reader of a validation error looks up what it declares.
var metaDocs sync.Map

func compileMetaSchema(fsys fs.FS) (*jsonschema.Schema, error) {
	data, err := fs.ReadFile(fsys, MetaSchemaPath)
	if err != nil {
		return nil, fmt.Errorf("meta-schema: %w", err)
	}
	return compileMetaBytes(data)
}

// compileMetaBytes compiles a meta-schema, once per distinct content.
func compileMetaBytes(data []byte) (*jsonschema.Schema, error) {
	if s, ok := metaSchemas.Load(string(data)); ok {
		return s.(*jsonschema.Schema), nil
	}
	s, err := compileMeta(data)
	if err != nil {
		return nil, err
	}
	var doc any
	if json.Unmarshal(data, &doc) == nil {
		metaDocs.Store(s, doc)
	}
	metaSchemas.Store(string(data), s)
	return s, nil
}

func compileMeta(data []byte) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(metaSchemaURL, bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("meta-schema: %w", err)
	}
	s, err := c.Compile(metaSchemaURL)
	if err != nil {
		return nil, fmt.Errorf("meta-schema: %w", err)
	}
	return s, nil
}

// parseDomain reads one spec: strict JSON, meta-schema, decode, normalise.
// It returns a nil domain when the file cannot be decoded.
func parseDomain(meta *jsonschema.Schema, file string, data []byte) (*Domain, Diagnostics) {
	r := &reporter{file: file}
	// Strict JSON, then the numbers the meta-schema validator cannot take,
	// then the meta-schema.
	parsed, problems := jsondoc.Check(data, strictjson.Options{MaxDepth: maxSpecDepth}, meta)
	if parsed == nil {
		r.errorf(problems[0].Pointer, "invalid JSON: %s", problems[0].Msg)
		return nil, r.out
	}
	d := &Domain{File: file, raw: data, src: parsed, doc: parsed.Value}
	r.d = d
	if len(problems) > 0 && problems[0].Stage == jsondoc.Number {
		for _, n := range problems {
			r.errorf(n.Pointer, "%s", n.Msg)
		}
		return nil, r.out
	}
	if len(problems) > 0 {
		if problems[0].Leaf == nil {
			r.errorf("", "meta-schema: %v", problems[0].Err)
			return nil, r.out
		}
		seen := map[string]bool{}
		leaves := make([]*jsonschema.ValidationError, 0, len(problems))
		for _, p := range problems {
			if p.Leaf != nil {
				leaves = append(leaves, p.Leaf)
			}
		}
		for _, leaf := range leaves {
			key := leaf.InstanceLocation + "\x00" + leaf.Message
			if seen[key] {
				continue
			}
			seen[key] = true
			msg := leaf.Message
			if msg == "not allowed" && falseUnknown(meta, leaves, leaf) {
				continue
			}
			if msg == "not allowed" {
				// additionalProperties/unevaluatedProperties name the member only by its location.
				name := leaf.InstanceLocation[strings.LastIndexByte(leaf.InstanceLocation, '/')+1:]
				name, _ = strictjson.UnescapePointerToken(name)
				msg = fmt.Sprintf("unknown member %q: the spec format does not define it here", name)
			}
			r.errorf(leaf.InstanceLocation, "%s", msg)
		}
		return nil, r.out
	}
	if err := json.Unmarshal(data, d); err != nil {
		r.errorf("", "decode: %v", err)
		return nil, r.out
	}
	d.normalize()
	return d, r.out
}

// falseUnknown reports whether an "unknown member" leaf names a member the
// meta-schema does define where the leaf's keyword stands. That happens
// when a subschema that declares the member fails for another reason (a
// wrong value elsewhere in the same object): unevaluatedProperties counts
// only the members of the subschemas that passed, so the member looks
// unknown. The other leaf under the same object says what is really wrong.
func falseUnknown(meta *jsonschema.Schema, leaves []*jsonschema.ValidationError, leaf *jsonschema.ValidationError) bool {
	loc := leaf.InstanceLocation
	cut := strings.LastIndexByte(loc, '/')
	if cut < 0 {
		return false
	}
	parent := loc[:cut]
	name, _ := strictjson.UnescapePointerToken(loc[cut+1:])
	other := false
	for _, l := range leaves {
		if l.Message != "not allowed" && (l.InstanceLocation == parent || strings.HasPrefix(l.InstanceLocation, parent+"/")) {
			other = true
			break
		}
	}
	if !other {
		return false
	}
	doc, ok := metaDocs.Load(meta)
	if !ok {
		return false
	}
	_, frag, _ := strings.Cut(leaf.AbsoluteKeywordLocation, "#")
	at := frag[:max(strings.LastIndexByte(frag, '/'), 0)]
	return declares(doc, resolvePointer(doc, at), name, map[string]bool{})
}

// declares reports whether the meta-schema node, or a subschema it
// combines (allOf, anyOf, oneOf, if/then/else, a local $ref), declares the
// member name under properties.
func declares(doc, node any, name string, seen map[string]bool) bool {
	m, ok := node.(map[string]any)
	if !ok {
		return false
	}
	if props, ok := m["properties"].(map[string]any); ok {
		if _, ok := props[name]; ok {
			return true
		}
	}
	if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#") && !seen[ref] {
		seen[ref] = true
		if declares(doc, resolvePointer(doc, ref[1:]), name, seen) {
			return true
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := m[k].([]any); ok {
			for _, sub := range list {
				if declares(doc, sub, name, seen) {
					return true
				}
			}
		}
	}
	for _, k := range []string{"if", "then", "else"} {
		if declares(doc, m[k], name, seen) {
			return true
		}
	}
	return false
}

// resolvePointer follows a JSON pointer into a decoded document; nil when
// it leads nowhere.
func resolvePointer(doc any, ptr string) any {
	if ptr == "" {
		return doc
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok, _ = strictjson.UnescapePointerToken(tok)
		switch v := doc.(type) {
		case map[string]any:
			doc = v[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			doc = v[i]
		default:
			return nil
		}
	}
	return doc
}

// offsetOf returns the byte offset of the value at ptr, or of its nearest
// existing ancestor.
func (d *Domain) offsetOf(ptr string) int { return d.src.Offset(ptr) }

// Line returns the 1-based line of the value at ptr in the spec file (or of
// its nearest existing ancestor).
func (d *Domain) Line(ptr string) int { return d.src.Line(ptr) }

// Raw returns the spec file's bytes as loaded.
func (d *Domain) Raw() []byte { return d.raw }

// normalize fills inherited values, records pointers, builds indexes and
// sorts the id-keyed collections.
func (d *Domain) normalize() {
	h := &d.Header
	inherit := func(since *string, st *Stability, fromSince string, fromSt Stability) {
		if *since == "" {
			*since = fromSince
		}
		if *st == "" {
			*st = fromSt
		}
	}
	d.types = map[string]*Type{}
	for i, t := range d.Types {
		t.Ptr = "/types/" + strconv.Itoa(i)
		inherit(&t.Since, &t.Stability, h.Since, h.Stability)
		d.types[t.Name] = t
		for j, f := range t.Fields {
			f.Owner = t
			f.Ptr = t.Ptr + "/fields/" + strconv.Itoa(j)
			inherit(&f.Since, &f.Stability, t.Since, t.Stability)
		}
		for j, v := range t.Values {
			v.Ptr = t.Ptr + "/values/" + strconv.Itoa(j)
			inherit(&v.Since, &v.Stability, t.Since, t.Stability)
		}
		for j, v := range t.Variants {
			v.Ptr = t.Ptr + "/variants/" + strconv.Itoa(j)
			inherit(&v.Since, &v.Stability, t.Since, t.Stability)
		}
		for j, r := range t.Reserved {
			r.Ptr = t.Ptr + "/reserved/" + strconv.Itoa(j)
		}
	}
	for i, r := range d.Reserved {
		r.Ptr = "/reserved/" + strconv.Itoa(i)
	}
	for i, c := range d.Constants {
		c.Ptr = "/constants/" + strconv.Itoa(i)
	}
	for i, m := range d.Methods {
		m.Ptr = "/methods/" + strconv.Itoa(i)
		if m.Direction == "" {
			m.Direction = ClientToServer
		}
	}
	for i, n := range d.Notifications {
		n.Ptr = "/notifications/" + strconv.Itoa(i)
	}
	for i, e := range d.Events {
		e.Ptr = "/events/" + strconv.Itoa(i)
		if e.Direction == "" {
			e.Direction = ServerToClient
		}
	}
	for i, e := range d.Errors {
		e.Ptr = "/errors/" + strconv.Itoa(i)
		for j, k := range e.Kinds {
			k.Ptr = e.Ptr + "/kinds/" + strconv.Itoa(j)
		}
	}
	for i, c := range d.Capabilities {
		c.Ptr = "/capabilities/" + strconv.Itoa(i)
	}
	for i, r := range d.Rules {
		r.Ptr = "/rules/" + strconv.Itoa(i)
	}
	for i, p := range d.Profiles {
		p.Ptr = "/profiles/" + strconv.Itoa(i)
		inherit(&p.Since, &p.Stability, h.Since, h.Stability)
	}
	for i, t := range d.Tables {
		t.Ptr = "/tables/" + strconv.Itoa(i)
	}
	sortByID(d.Constants, func(c *Constant) string { return c.ID })
	sortByID(d.Types, func(t *Type) string { return t.ID })
	sortByID(d.Methods, func(m *Method) string { return m.ID })
	sortByID(d.Notifications, func(n *Notification) string { return n.ID })
	sortByID(d.Events, func(e *Event) string { return e.ID })
	sort.SliceStable(d.Errors, func(i, j int) bool {
		if d.Errors[i].Code != d.Errors[j].Code {
			return d.Errors[i].Code < d.Errors[j].Code
		}
		return d.Errors[i].ID < d.Errors[j].ID
	})
	for _, e := range d.Errors {
		sortByID(e.Kinds, func(k *ErrorKind) string { return k.ID })
	}
	sortByID(d.Capabilities, func(c *Capability) string { return c.ID })
	sortByID(d.Rules, func(r *Rule) string { return r.ID })
	sortByID(d.Profiles, func(p *Profile) string { return p.ID })
	sortByID(d.Tables, func(t *Table) string { return t.ID })
	for _, p := range d.Profiles {
		// A profile's lists are sets: their order must not reach the output.
		// Duplicates are reported by the checks, which read the pointers of
		// the file, so they are kept here.
		for _, l := range [][]string{p.Events, p.Constants, p.Rules} {
			sort.Strings(l)
		}
	}
	// Nil and empty collections must look the same in the canonical model.
	if d.Constants == nil {
		d.Constants = []*Constant{}
	}
	if d.Methods == nil {
		d.Methods = []*Method{}
	}
	if d.Notifications == nil {
		d.Notifications = []*Notification{}
	}
	if d.Events == nil {
		d.Events = []*Event{}
	}
	if d.Errors == nil {
		d.Errors = []*Error{}
	}
	if d.Capabilities == nil {
		d.Capabilities = []*Capability{}
	}
}

// Directions of messages.
const (
	ClientToServer = "client-to-server"
	ServerToClient = "server-to-client"
)

func sortByID[T any](s []T, id func(T) string) {
	sort.SliceStable(s, func(i, j int) bool { return id(s[i]) < id(s[j]) })
}

// Canonical returns the canonical model: compact JSON of the normalised
// domain, independent of the spec's formatting and of the order of its
// id-keyed collections.
//
// A loaded domain computes it once; a domain is not changed after loading.
func (d *Domain) Canonical() []byte {
	if d.canonical != nil {
		return d.canonical
	}
	// json.Marshal writes compact JSON, raw values included.
	b, err := json.Marshal(d)
	if err != nil {
		// The model is built from decoded JSON; failing to encode it again
		// would be a bug in this package, not a property of the input.
		panic(fmt.Sprintf("spec: canonical model of %s: %v", d.File, err))
	}
	return canonicalizeRaw(b)
}

// canonicalizeRaw re-encodes JSON so that embedded raw values (examples,
// constant values) have sorted object members, like the rest of the model.
func canonicalizeRaw(b []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		panic(fmt.Sprintf("spec: canonical model: %v", err))
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("spec: canonical model: %v", err))
	}
	return bytes.TrimRight(out.Bytes(), "\n")
}

func digestOf(d *Domain) string {
	sum := sha256.Sum256(d.Canonical())
	return "sha256:" + hex.EncodeToString(sum[:])
}

// LookupType returns the named type, or nil.
func (d *Domain) LookupType(name string) *Type { return d.types[name] }

// LookupConstant returns the constant with the given id, or nil.
func (d *Domain) LookupConstant(id string) *Constant { return d.consts[id] }

// LookupError returns the error with the given id, or nil.
func (d *Domain) LookupError(id string) *Error { return d.errorByID[id] }

// LookupCapability returns the capability with the given wire name, or nil.
func (d *Domain) LookupCapability(name string) *Capability { return d.capByName[name] }
