// Package docemit renders the reference pages of a domain in English and
// Russian from the text/template sources under templates/<lang>/. The Go
// side supplies the data and the helpers that escape, link and format; the
// templates decide layout and wording, and both languages share the same
// data, so their pages differ only in words.
package docemit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"text/template"

	"github.com/contractkit/contractkit/internal/config"
	"github.com/contractkit/contractkit/internal/spec"
	"github.com/contractkit/contractkit/internal/trace"
)

// Languages of the generated reference, in output order.
var Languages = []string{"en", "ru"}

// TemplateDir is where a repository keeps the page templates, one folder
// per language, when it overrides the ones gen carries.
const TemplateDir = "templates"

// File is one generated page.
type File struct {
	Path string
	Data []byte
}

// Dir returns the reference folder of a domain in a language.
func Dir(lang string, d *spec.Domain) string {
	return path.Join("Docs", lang, "reference", d.Header.ID)
}

// Input is what the pages are made of.
type Input struct {
	Domain *spec.Domain
	// Tests maps entry ids to the tests that name them (trace.Scan).
	Tests map[string][]trace.Test
	// Templates holds <lang>/reference/*.tmpl (the embedded templates, or
	// a repository's override).
	Templates fs.FS
	// Repo is the repository, where the hand-written guide of the domain
	// is looked for (Docs/<lang>/how-to/<domain>.md); nil looks nowhere.
	Repo fs.FS
	// Dirs is the folder of the pages in each language (Dir by default);
	// links between pages and to repository files are relative to it.
	Dirs map[string]string
	// GoDir and ModelPath are the domain's Go package folder and
	// model.json, shown on the index; empty when not generated.
	GoDir, ModelPath string
	// Regenerate is the command the pages tell readers to run instead of
	// editing them (config.DefaultRegenerate when empty).
	Regenerate string
}

// dir returns the folder of the pages in a language.
func (in Input) dir(lang string) string {
	if d, ok := in.Dirs[lang]; ok {
		return d
	}
	return Dir(lang, in.Domain)
}

// Emit renders every page of the domain in every language.
func Emit(in Input) ([]File, error) {
	var files []File
	for _, lang := range Languages {
		fs, err := EmitLang(in, lang)
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
	}
	return files, nil
}

// EmitLang renders every page of the domain in one language.
func EmitLang(in Input, lang string) ([]File, error) {
	var files []File
	r := newRenderer(in, lang)
	tmpl, err := LoadTemplates(in.Templates, path.Join(lang, "reference"), r.funcs())
	if err != nil {
		return nil, err
	}
	pages := append([]*spec.Page{nil}, in.Domain.Docs.Pages...)
	for _, p := range pages {
		data := r.pageData(p)
		name := "page.md.tmpl"
		if p == nil {
			name = "index.md.tmpl"
		}
		var buf bytes.Buffer
		if err := tmpl.ExecuteTemplate(&buf, name, data); err != nil {
			return nil, fmt.Errorf("%s/reference/%s: %w", lang, name, err)
		}
		files = append(files, File{Path: path.Join(in.dir(lang), data.File), Data: Tidy(buf.Bytes())})
	}
	return files, nil
}

// LoadTemplates parses every dir/*.tmpl of fsys into one set, each
// template named by its file name, with funcs available to all of them.
func LoadTemplates(fsys fs.FS, dir string, funcs template.FuncMap) (*template.Template, error) {
	pattern := path.Join(dir, "*.tmpl")
	matches, err := fs.Glob(fsys, pattern)
	if err != nil || len(matches) == 0 {
		return nil, fmt.Errorf("%s: no templates", pattern)
	}
	t := template.New(path.Base(dir)).Funcs(funcs)
	for _, m := range matches {
		src, err := fs.ReadFile(fsys, m)
		if err != nil {
			return nil, err
		}
		if _, err := t.New(path.Base(m)).Parse(string(src)); err != nil {
			return nil, fmt.Errorf("%s: %w", m, err)
		}
	}
	return t, nil
}

// Tidy drops the blank lines template actions leave behind (at most one in
// a row, none at the start), trims trailing blanks and ends the page with
// exactly one newline. Lines inside fenced code blocks are kept as they are.
func Tidy(b []byte) []byte {
	var out []string
	blank, fence := false, false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		if !fence {
			l = strings.TrimRight(l, " \t")
		}
		if l == "" && !fence {
			if blank || len(out) == 0 {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

// PageData is what a page template receives.
type PageData struct {
	Lang    string
	Domain  *spec.Domain
	Page    *spec.Page // nil on the index
	File    string     // file name of this page
	Sibling string     // relative link to the same page in the other language
	// GoDir and ModelPath are the Go package folder and model.json, ""
	// when the domain has none.
	GoDir, ModelPath string
	// Regenerate is the command that regenerates the page.
	Regenerate string
	Nav        []NavItem
	Sections   []Section
	// Index only:
	Counts []CountRow
}

// NavItem is one entry of the page list.
type NavItem struct {
	File    string
	Title   spec.Text
	Current bool
}

// Section is one section of a page: Kind is "rules", "methods", ...
type Section struct {
	Domain   *spec.Domain
	Kind     string
	RuleKind *spec.RuleKind
	Entries  []*spec.EntryRef
}

// CountRow counts the entries of one kind by stability.
type CountRow struct {
	Kind     string
	ByStab   []int // in spec.Stabilities order
	Total    int
	Sections string
}

type renderer struct {
	in      Input
	lang    string
	d       *spec.Domain
	pageOf  map[string]string // section kind → page file
	entries map[string]*spec.EntryRef
}

func newRenderer(in Input, lang string) *renderer {
	r := &renderer{in: in, lang: lang, d: in.Domain, pageOf: map[string]string{}, entries: map[string]*spec.EntryRef{}}
	for _, p := range in.Domain.Docs.Pages {
		for _, s := range p.Sections {
			r.pageOf[s] = p.Slug + ".md"
		}
	}
	for _, e := range in.Domain.Entries() {
		r.entries[e.ID] = e
	}
	return r
}

func (r *renderer) pageData(p *spec.Page) *PageData {
	d := r.d
	data := &PageData{Lang: r.lang, Domain: d, Page: p, File: "index.md"}
	if p != nil {
		data.File = p.Slug + ".md"
	}
	other := "ru"
	if r.lang == "ru" {
		other = "en"
	}
	// A page rendered in one language only has no sibling to link.
	if _, ok := r.in.Dirs[other]; ok || r.in.Dirs == nil {
		data.Sibling = path.Join(Rel(r.in.dir(r.lang), r.in.dir(other)), data.File)
	}
	data.GoDir, data.ModelPath, data.Regenerate = r.in.GoDir, r.in.ModelPath, r.in.Regenerate
	if data.Regenerate == "" {
		data.Regenerate = config.DefaultRegenerate
	}
	data.Nav = append(data.Nav, NavItem{File: "index.md", Title: d.Header.Title, Current: p == nil})
	for _, q := range d.Docs.Pages {
		data.Nav = append(data.Nav, NavItem{File: q.Slug + ".md", Title: q.Title, Current: q == p})
	}
	if p == nil {
		data.Counts = r.counts()
		return data
	}
	for _, s := range p.Sections {
		sec := Section{Domain: d, Kind: s}
		if k, ok := strings.CutPrefix(s, spec.SectionRulesPrefix); ok {
			sec.Kind = "rules"
			for i := range d.Header.RuleKinds {
				if d.Header.RuleKinds[i].Kind == k {
					sec.RuleKind = &d.Header.RuleKinds[i]
				}
			}
			sec.Entries = d.EntriesOfKind(k)
		}
		data.Sections = append(data.Sections, sec)
	}
	return data
}

// counts tallies entries by kind and stability for the index.
func (r *renderer) counts() []CountRow {
	byKind := map[string]*CountRow{}
	var order []string
	for _, e := range r.d.Entries() {
		row := byKind[e.Kind]
		if row == nil {
			row = &CountRow{Kind: e.Kind, ByStab: make([]int, len(spec.Stabilities))}
			byKind[e.Kind] = row
			order = append(order, e.Kind)
		}
		for i, s := range spec.Stabilities {
			if e.Stability == s {
				row.ByStab[i]++
			}
		}
		row.Total++
	}
	// Rule tables first, in declared order, then the sections of the spec.
	var rows []CountRow
	done := map[string]bool{}
	for _, k := range r.d.Header.RuleKinds {
		if row := byKind[k.Kind]; row != nil {
			rows = append(rows, *row)
			done[k.Kind] = true
		}
	}
	for _, k := range []string{spec.KindMethod, spec.KindNotification, spec.KindEvent, spec.KindError, spec.KindErrorKind,
		spec.KindCapability, spec.KindProfile, spec.KindTable, spec.KindType, string(spec.LimitConstant), string(spec.DefaultConstant), string(spec.ProtocolConstant)} {
		if row := byKind[k]; row != nil && !done[k] {
			rows = append(rows, *row)
			done[k] = true
		}
	}
	for _, k := range order {
		if !done[k] {
			rows = append(rows, *byKind[k])
		}
	}
	total := CountRow{Kind: "", ByStab: make([]int, len(spec.Stabilities))}
	for _, row := range rows {
		for i, n := range row.ByStab {
			total.ByStab[i] += n
		}
		total.Total += row.Total
	}
	return append(rows, total)
}

// ---- helpers available to templates ----

func (r *renderer) funcs() template.FuncMap {
	return template.FuncMap{
		"tr":          r.tr,
		"trp":         r.trPlain,
		"code":        Code,
		"anchor":      Anchor,
		"entryLink":   r.entryLink,
		"typeRef":     r.typeRef,
		"typeName":    r.typeName,
		"sources":     r.sources,
		"tests":       r.tests,
		"json":        prettyJSON,
		"constraints": r.constraints,
		"value":       r.value,
		"stabilities": func() []spec.Stability { return spec.Stabilities },
		"type":        func(name string) *spec.Type { return r.d.LookupType(name) },
		"repoLink":    r.repoLink,
		"errorOf":     func(id string) *spec.Error { return r.d.LookupError(id) },
		"constant":    r.constant,
		"eventOf":     r.eventOf,
		"deref":       func(s *string) string { return *s },
		"guide":       r.guide,
		"cells":       r.cells,
		"sends":       r.sends,
		"limitBounds": r.limitBounds,
		"dict":        dict,
		"indent": func(s string) string {
			return "  " + strings.ReplaceAll(s, "\n", "\n  ")
		},
		"ptr": func(p string) string {
			if p == "" {
				return Code(`""`)
			}
			return Code(p)
		},
	}
}

// tr returns the text in the page's language, escaped for markdown.
func (r *renderer) tr(t any) string { return Escape(r.trPlain(t)) }

// trPlain returns the text in the page's language, its placeholders
// replaced by the values of the constants they name.
func (r *renderer) trPlain(t any) string {
	switch x := t.(type) {
	case spec.Text:
		return r.d.Text(x, r.lang)
	case *spec.Text:
		if x == nil {
			return ""
		}
		return r.d.Text(*x, r.lang)
	}
	return fmt.Sprint(t)
}

// Escape makes text safe for a table cell or a paragraph: pipes and braces
// are escaped (braces also outside tables, so that pages survive MDX-style
// renderers), angle brackets become entities, line breaks become spaces.
// Code spans keep their braces and angle brackets, which render literally there.
func Escape(s string) string {
	var b strings.Builder
	inCode := false
	for _, r := range strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", " "), "\n", " ") {
		switch {
		case r == '`':
			inCode = !inCode
			b.WriteRune(r)
		case r == '|':
			b.WriteString(`\|`)
		case inCode:
			b.WriteRune(r)
		case r == '{' || r == '}' || r == '*' || r == '[' || r == ']':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Code renders s as an inline code span, fenced so that backticks inside
// it survive, with pipes escaped for tables.
func Code(s any) string {
	str := fmt.Sprint(s)
	fence := "`"
	for strings.Contains(str, fence) {
		fence += "`"
	}
	pad := ""
	if strings.HasPrefix(str, "`") || strings.HasSuffix(str, "`") {
		pad = " "
	}
	return fence + pad + strings.ReplaceAll(str, "|", `\|`) + pad + fence
}

// Anchor renders an explicit anchor: the same in both languages, unlike
// heading slugs.
func Anchor(id string) string { return `<a id="` + id + `"></a>` }

// entryLink links an entry id to its anchor on the page that shows it.
func (r *renderer) entryLink(id string) string {
	return "[" + Code(id) + "](" + r.entryHref(id) + ")"
}

func (r *renderer) entryHref(id string) string {
	e := r.entries[id]
	if e == nil {
		return "#" + id
	}
	var section string
	switch {
	case e.Method != nil:
		section = spec.SectionMethods
	case e.Notification != nil:
		section = spec.SectionNotifications
	case e.Event != nil:
		section = spec.SectionEvents
	case e.Error != nil || e.ErrorKind != nil:
		section = spec.SectionErrors
	case e.Capability != nil:
		section = spec.SectionCapabilities
	case e.Profile != nil:
		section = spec.SectionProfiles
	case e.Table != nil:
		section = spec.SectionTables
	case e.Type != nil:
		section = spec.SectionTypes
	case e.Constant != nil:
		return "index.md#" + id
	default:
		section = spec.SectionRulesPrefix + e.Kind
	}
	return r.pageOf[section] + "#" + id
}

// typeName links a named type.
func (r *renderer) typeName(name string) string {
	t := r.d.LookupType(name)
	if t == nil {
		return Code(name)
	}
	return "[" + Code(name) + "](" + r.entryHref(t.ID) + ")"
}

// typeRef renders a type expression with links to named types.
func (r *renderer) typeRef(t spec.TypeRef) string {
	switch {
	case t.Array != nil:
		return r.typeRef(*t.Array) + Code("[]")
	case t.Map != nil:
		return Code("map<string,") + " " + r.typeRef(*t.Map) + Code(">")
	case t.Named != nil:
		return r.typeName(t.Named.Name)
	}
	return Code(t.Name)
}

// repoLink links a repository file from a page.
func (r *renderer) repoLink(p string) string {
	return "[" + Code(p) + "](" + r.fromPage(p) + ")"
}

// fromPage is the relative link from a page to the repository path p.
func (r *renderer) fromPage(p string) string { return Rel(r.in.dir(r.lang), p) }

// Rel returns the relative link from the folder from to the path to, both
// slash-separated and relative to the repository root.
func Rel(from, to string) string {
	f, t := split(from), split(to)
	i := 0
	for i < len(f) && i < len(t) && f[i] == t[i] {
		i++
	}
	parts := make([]string, 0, len(f)-i+len(t)-i)
	for range f[i:] {
		parts = append(parts, "..")
	}
	parts = append(parts, t[i:]...)
	if len(parts) == 0 {
		return "."
	}
	return path.Join(parts...)
}

func split(p string) []string {
	p = path.Clean(p)
	if p == "." {
		return nil
	}
	return strings.Split(p, "/")
}

// sources lists where an entry is implemented: each file and line, linked
// to that line, and the anchor text found there.
func (r *renderer) sources(src []spec.SourceRef) string {
	if len(src) == 0 {
		return "—"
	}
	parts := make([]string, 0, len(src))
	for _, s := range src {
		parts = append(parts, r.lineLink(s.Path, s.Line)+" "+Code(s.Anchor))
	}
	return strings.Join(parts, "<br>")
}

// lineLink links a repository file at a line from a page (the line is
// left out when it is not known).
func (r *renderer) lineLink(p string, line int) string {
	if line <= 0 {
		return r.repoLink(p)
	}
	return "[" + Code(fmt.Sprintf("%s:%d", p, line)) + "](" + r.fromPage(p) + fmt.Sprintf("#L%d", line) + ")"
}

// tests lists the tests that name an entry, each linked to its function.
func (r *renderer) tests(id string) string {
	ts := r.in.Tests[id]
	if len(ts) == 0 {
		return "—"
	}
	var parts []string
	for _, t := range ts {
		parts = append(parts, "["+Code(t.Func)+"]("+r.fromPage(t.Path)+fmt.Sprintf("#L%d", t.FuncLine)+")")
	}
	return strings.Join(parts, "<br>")
}

// prettyJSON indents an example for a code block.
func prettyJSON(raw json.RawMessage) string {
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return string(raw)
	}
	return out.String()
}

// value renders a default or const: a literal, or a constant by name and value.
func (r *renderer) value(raw json.RawMessage) string {
	if id := spec.ConstantRef(raw); id != "" {
		return r.constant(id)
	}
	return Code(string(bytes.TrimSpace(raw)))
}

// eventOf links an event id by the event's wire name.
func (r *renderer) eventOf(id string) string {
	e := r.entries[id]
	if e == nil || e.Event == nil {
		return Code(id)
	}
	return "[" + Code(e.Event.Name) + "](" + r.entryHref(id) + ")"
}

// constant renders a constant reference: its symbol linked to the index, and its value.
func (r *renderer) constant(id string) string {
	c := r.d.LookupConstant(id)
	if c == nil {
		return Code(id)
	}
	return "[" + Code(c.Symbol) + "](index.md#" + id + ") = " + Code(string(c.Value))
}

// constraints renders a field's constraints in a language-neutral notation.
func (r *renderer) constraints(k *spec.Constraints) string {
	if k == nil {
		return "—"
	}
	var parts []string
	count := func(name string, n *int64, constant string) {
		switch {
		case n == nil:
		case constant != "":
			parts = append(parts, Code(name+"=")+" "+r.constant(constant))
		default:
			parts = append(parts, Code(fmt.Sprintf("%s=%d", name, *n)))
		}
	}
	count("minLength", k.MinLength, k.MinLengthConstant)
	count("maxLength", k.MaxLength, k.MaxLengthConstant)
	if k.Pattern != "" {
		parts = append(parts, Code("pattern="+k.Pattern))
	}
	bound := func(name string, b *spec.Bound) {
		if b.Constant != "" {
			parts = append(parts, Code(name+"=")+" "+r.constant(b.Constant))
		} else {
			parts = append(parts, Code(name+"="+b.Literal.String()))
		}
	}
	if k.Minimum != nil {
		bound("minimum", k.Minimum)
	}
	if k.Maximum != nil {
		bound("maximum", k.Maximum)
	}
	if k.Clamp {
		parts = append(parts, Code("clamp"))
	}
	count("minItems", k.MinItems, k.MinItemsConstant)
	count("maxItems", k.MaxItems, k.MaxItemsConstant)
	if k.Const != nil {
		parts = append(parts, Code("const=")+" "+r.value(k.Const))
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, ", ")
}

// cells renders the cells of one table row, in column order: values as
// code, lists of strings joined, rule ids linked, "—" where a row has no
// value.
func (r *renderer) cells(t *spec.Table, row map[string]json.RawMessage) []string {
	out := make([]string, 0, len(t.Columns))
	for _, col := range t.Columns {
		raw, ok := row[col.Name]
		if !ok {
			out = append(out, "—")
			continue
		}
		switch col.Type {
		case spec.ColumnStrings:
			var ss []string
			_ = json.Unmarshal(raw, &ss)
			parts := make([]string, 0, len(ss))
			for _, s := range ss {
				parts = append(parts, Code(s))
			}
			out = append(out, strings.Join(parts, ", "))
		case spec.ColumnRule:
			var s string
			_ = json.Unmarshal(raw, &s)
			out = append(out, r.entryLink(s))
		case spec.ColumnString:
			var s string
			_ = json.Unmarshal(raw, &s)
			out = append(out, Code(s))
		default:
			out = append(out, Code(string(raw)))
		}
	}
	return out
}

// dict builds a map from alternating keys and values, so a template can
// pass several values to another.
func dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, fmt.Errorf("dict: odd number of arguments")
	}
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict: key %v is not a string", kv[i])
		}
		m[k] = kv[i+1]
	}
	return m, nil
}

// guide links the hand-written guide of the domain, Docs/<lang>/how-to/<domain>.md,
// when the repository has one.
func (r *renderer) guide() string {
	p := path.Join("Docs", r.lang, "how-to", r.d.Header.ID+".md")
	if r.in.Repo == nil {
		return ""
	}
	if _, err := fs.Stat(r.in.Repo, p); err != nil {
		return ""
	}
	return r.fromPage(p)
}
