package config

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
)

// Placeholders an out may name.
const (
	PlaceholderPackage = "{package}"
	PlaceholderID      = "{id}"
	PlaceholderLang    = "{lang}"
)

// check finds what the schema cannot: paths that leave the repository,
// unknown placeholders, outputs that would own the repository root, and a
// schema folder the Go package cannot embed.
func (c *Config) check(file string) []Problem {
	var ps []Problem
	bad := func(ptr, format string, args ...any) {
		ps = append(ps, Problem{File: file, Pointer: ptr, Msg: fmt.Sprintf(format, args...)})
	}
	inside := func(ptr, p string) bool {
		if msg := outsideMsg(p); msg != "" {
			bad(ptr, "%s", msg)
			return false
		}
		return true
	}
	out := func(ptr, p string, allowed ...string) {
		if !inside(ptr, p) {
			return
		}
		rest := p
		for _, ph := range allowed {
			rest = strings.ReplaceAll(rest, ph, "")
		}
		if i := strings.IndexAny(rest, "{}"); i >= 0 {
			bad(ptr, "%q: unknown placeholder (use %s)", p, strings.Join(allowed, ", "))
			return
		}
		if Owned(p) == "." {
			bad(ptr, "%q: an output must start with a folder of its own, before any placeholder: gen removes files there that it does not produce", p)
		}
	}
	for _, p := range []struct{ ptr, v string }{{"/templates", c.Templates}, {"/metaSchema", c.MetaSchema}} {
		if p.v != "" {
			inside(p.ptr, p.v)
		}
	}
	if c.Registry != nil {
		inside("/registry/out", c.Registry.Out)
	}
	if c.RuleCatalog != nil {
		out("/ruleCatalog/out", c.RuleCatalog.Out, PlaceholderLang)
		if len(c.RuleCatalog.Langs()) > 1 && !strings.Contains(c.RuleCatalog.Out, PlaceholderLang) {
			bad("/ruleCatalog/out", "%q: several languages need %s in the folder", c.RuleCatalog.Out, PlaceholderLang)
		}
	}
	if d := c.ContractDiff; d != nil {
		for _, p := range []struct{ ptr, v string }{
			{"/contractdiff/dispositions", d.Dispositions}, {"/contractdiff/policy", d.Policy},
			{"/contractdiff/dispositionsSchema", d.DispositionsSchema}, {"/contractdiff/policySchema", d.PolicySchema},
		} {
			if p.v != "" {
				inside(p.ptr, p.v)
			}
		}
	}
	for i, s := range c.Specs {
		ptr := fmt.Sprintf("/specs/%d", i)
		inside(ptr+"/path", s.Path)
		if s.Templates != "" {
			inside(ptr+"/templates", s.Templates)
		}
		if _, err := path.Match(s.Path, ""); err != nil {
			bad(ptr+"/path", "%q: bad glob: %v", s.Path, err)
		}
		if s.Go == nil && s.Schema == nil && s.Docs == nil && s.TypeScript == nil && s.Python == nil {
			bad(ptr, "no outputs: name at least one of go, schema, docs, typescript, python")
		}
		if s.Go != nil {
			out(ptr+"/go/out", s.Go.Out, PlaceholderPackage, PlaceholderID)
		}
		if s.Schema != nil {
			out(ptr+"/schema/out", s.Schema.Out, PlaceholderPackage, PlaceholderID)
			if s.Go != nil && path.Clean(s.Schema.Out) != path.Join(s.Go.Out, "schema") {
				bad(ptr+"/schema/out", "%q: the Go package embeds its schemas, so with go.out %q this must be %q (or left out)", s.Schema.Out, s.Go.Out, path.Join(s.Go.Out, "schema"))
			}
		}
		if s.Docs != nil {
			out(ptr+"/docs/out", s.Docs.Out, PlaceholderPackage, PlaceholderID, PlaceholderLang)
			if len(s.Docs.Langs()) > 1 && !strings.Contains(s.Docs.Out, PlaceholderLang) {
				bad(ptr+"/docs/out", "%q: several languages need %s in the folder", s.Docs.Out, PlaceholderLang)
			}
		}
		if s.TypeScript != nil {
			out(ptr+"/typescript/out", s.TypeScript.Out, PlaceholderPackage, PlaceholderID)
		}
		if s.Python != nil {
			out(ptr+"/python/out", s.Python.Out, PlaceholderPackage, PlaceholderID)
		}
	}
	return ps
}

// outsideMsg says why p is not a path inside the repository, or "".
func outsideMsg(p string) string {
	switch {
	case strings.Contains(p, `\`):
		return fmt.Sprintf("%q: use / to separate folders", p)
	case path.IsAbs(p):
		return fmt.Sprintf("%q is outside the repository: paths are relative to the folder of contractkit.json", p)
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return fmt.Sprintf("%q is outside the repository: paths are relative to the folder of contractkit.json", p)
	}
	return ""
}

// Owned returns the folder of an out that gen owns: the part before the
// first placeholder, or the whole folder when it has none ("." when the
// out starts with a placeholder).
func Owned(out string) string {
	out = path.Clean(out)
	var fixed []string
	for _, seg := range strings.Split(out, "/") {
		if strings.Contains(seg, "{") {
			break
		}
		fixed = append(fixed, seg)
	}
	if len(fixed) == 0 {
		return "."
	}
	return path.Join(fixed...)
}

// SpecFile is one spec the config names, and the entry that names it.
type SpecFile struct {
	Path  string
	Entry int
}

// SpecFiles expands the specs of the config in the repository fsys, in
// path order. A glob never matches *.schema.json. A file named by two
// entries, a glob that matches nothing and a missing file are refused.
func (c *Config) SpecFiles(file string, fsys fs.FS) ([]SpecFile, error) {
	var ps []Problem
	by := map[string]int{}
	var out []SpecFile
	for i, s := range c.Specs {
		ptr := fmt.Sprintf("/specs/%d/path", i)
		p := path.Clean(s.Path)
		var matches []string
		if strings.ContainsAny(p, "*?[") {
			all, err := fs.Glob(fsys, p)
			if err != nil {
				ps = append(ps, Problem{File: file, Pointer: ptr, Msg: err.Error()})
				continue
			}
			for _, m := range all {
				if st, err := fs.Stat(fsys, m); err == nil && !st.IsDir() && !strings.HasSuffix(m, ".schema.json") {
					matches = append(matches, m)
				}
			}
			if len(matches) == 0 {
				ps = append(ps, Problem{File: file, Pointer: ptr, Msg: fmt.Sprintf("%q matches no spec file", s.Path)})
				continue
			}
		} else {
			if st, err := fs.Stat(fsys, p); err != nil || st.IsDir() {
				ps = append(ps, Problem{File: file, Pointer: ptr, Msg: fmt.Sprintf("%s: no such spec file", p)})
				continue
			}
			matches = []string{p}
		}
		for _, m := range matches {
			if j, dup := by[m]; dup {
				ps = append(ps, Problem{File: file, Pointer: ptr, Msg: fmt.Sprintf("spec %s is listed twice: /specs/%d/path names it too", m, j)})
				continue
			}
			by[m] = i
			out = append(out, SpecFile{m, i})
		}
	}
	if len(ps) > 0 {
		return nil, fail(ps...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Names are what placeholders of a spec's outputs are replaced by.
type Names struct {
	File    string // the spec's path
	ID      string // domain.id
	Package string // domain.package
}

// Target is where one spec's outputs go, with every placeholder replaced.
// A field is empty when the config names no such output.
type Target struct {
	Spec  string
	Entry int
	// GoDir is the Go package's folder, GoImportPath its import path.
	GoDir, GoImportPath string
	// SchemaDir holds schema/<Type>.json files' folder.
	SchemaDir string
	// Docs maps each language to the folder of the reference pages, in
	// DocLangs order.
	Docs     map[string]string
	DocLangs []string
	// TypeScript and Python are the bindings' folders ("" for none);
	// JSONRPC asks for the vscode-jsonrpc descriptors beside TypeScript.
	TypeScript, Python string
	JSONRPC            bool
}

// Resolve computes every spec's target. module is go.mod's module path
// ("" without a go.mod); an import path is module + "/" + the Go folder
// unless the config overrides it. Two specs writing one folder are
// refused, with the pointer of the entry of the later spec.
func (c *Config) Resolve(file string, specs []SpecFile, names map[string]Names, module string) ([]Target, error) {
	var ps []Problem
	owner := map[string]string{} // folder → spec that writes it
	claim := func(ptr, dir, spec string) {
		if o, ok := owner[dir]; ok && o != spec {
			ps = append(ps, Problem{File: file, Pointer: ptr, Msg: fmt.Sprintf("%s would write folder %s, which %s writes too", spec, dir, o)})
			return
		}
		owner[dir] = spec
	}
	var out []Target
	for _, sf := range specs {
		s := c.Specs[sf.Entry]
		n := names[sf.Path]
		ptr := fmt.Sprintf("/specs/%d", sf.Entry)
		expand := func(p string) string {
			p = strings.ReplaceAll(p, PlaceholderPackage, n.Package)
			return path.Clean(strings.ReplaceAll(p, PlaceholderID, n.ID))
		}
		t := Target{Spec: sf.Path, Entry: sf.Entry}
		if s.Go != nil {
			t.GoDir = expand(s.Go.Out)
			claim(ptr+"/go/out", t.GoDir, sf.Path)
			switch {
			case s.Go.ImportPath != "":
				t.GoImportPath = strings.ReplaceAll(strings.ReplaceAll(s.Go.ImportPath, PlaceholderPackage, n.Package), PlaceholderID, n.ID)
			case module != "":
				t.GoImportPath = module + "/" + t.GoDir
			default:
				ps = append(ps, Problem{File: file, Pointer: ptr + "/go", Msg: "no go.mod with a module line at the repository root: set importPath"})
			}
			t.SchemaDir = path.Join(t.GoDir, "schema")
		}
		if s.Schema != nil && s.Go == nil {
			t.SchemaDir = expand(s.Schema.Out)
			claim(ptr+"/schema/out", t.SchemaDir, sf.Path)
		}
		if s.Docs != nil {
			t.Docs = map[string]string{}
			t.DocLangs = s.Docs.Langs()
			for _, lang := range t.DocLangs {
				t.Docs[lang] = expand(strings.ReplaceAll(s.Docs.Out, PlaceholderLang, lang))
				claim(ptr+"/docs/out", t.Docs[lang], sf.Path)
			}
		}
		if s.TypeScript != nil {
			t.TypeScript = expand(s.TypeScript.Out)
			t.JSONRPC = s.TypeScript.JSONRPC
			claim(ptr+"/typescript/out", t.TypeScript, sf.Path)
		}
		if s.Python != nil {
			t.Python = expand(s.Python.Out)
			claim(ptr+"/python/out", t.Python, sf.Path)
		}
		out = append(out, t)
	}
	if len(ps) > 0 {
		return nil, fail(ps...)
	}
	return out, nil
}

// OwnedDirs are the folders gen owns entirely: of every out, the part
// before its first placeholder (with {lang} replaced by each language).
// A folder inside another owned one is left out.
func (c *Config) OwnedDirs() []string {
	var dirs []string
	add := func(out string, langs []string) {
		if len(langs) == 0 {
			dirs = append(dirs, Owned(out))
			return
		}
		for _, l := range langs {
			dirs = append(dirs, Owned(strings.ReplaceAll(out, PlaceholderLang, l)))
		}
	}
	for _, s := range c.Specs {
		if s.Go != nil {
			add(s.Go.Out, nil)
		}
		if s.Schema != nil {
			add(s.Schema.Out, nil)
		}
		if s.Docs != nil {
			add(s.Docs.Out, s.Docs.Langs())
		}
		if s.TypeScript != nil {
			add(s.TypeScript.Out, nil)
		}
		if s.Python != nil {
			add(s.Python.Out, nil)
		}
	}
	if c.RuleCatalog != nil {
		add(c.RuleCatalog.Out, c.RuleCatalog.Langs())
	}
	sort.Strings(dirs)
	var out []string
	for _, d := range dirs {
		if len(out) > 0 && (d == out[len(out)-1] || strings.HasPrefix(d, out[len(out)-1]+"/")) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// ModulePath returns the module path declared by the go.mod at the root
// of fsys, or "" when there is none.
func ModulePath(fsys fs.FS) string {
	data, err := fs.ReadFile(fsys, "go.mod")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		rest, ok := strings.CutPrefix(line, "module")
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '"') {
			continue
		}
		rest = strings.TrimSpace(rest)
		return strings.Trim(rest, "\"`")
	}
	return ""
}

// IsSpec reports whether the repository path p is a spec the config
// names: a listed file, or a match of a glob that is not *.schema.json.
// contractdiff uses it on the files of a baseline revision.
func (c *Config) IsSpec(p string) bool {
	for _, s := range c.Specs {
		pat := path.Clean(s.Path)
		if !strings.ContainsAny(pat, "*?[") {
			if p == pat {
				return true
			}
			continue
		}
		if ok, _ := path.Match(pat, p); ok && !strings.HasSuffix(p, ".schema.json") {
			return true
		}
	}
	return false
}

// SpecFolders are the folders that hold every spec the config can name:
// of each path, the folders before its first glob.
func (c *Config) SpecFolders() []string {
	var out []string
	for _, s := range c.Specs {
		var fixed []string
		segs := strings.Split(path.Clean(s.Path), "/")
		for _, seg := range segs[:len(segs)-1] {
			if strings.ContainsAny(seg, "*?[") {
				break
			}
			fixed = append(fixed, seg)
		}
		dir := "."
		if len(fixed) > 0 {
			dir = path.Join(fixed...)
		}
		if !slices.Contains(out, dir) {
			out = append(out, dir)
		}
	}
	sort.Strings(out)
	return out
}
