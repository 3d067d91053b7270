// Package pyemit writes the Python binding of one contract domain, for the
// standard library alone: a TypedDict per object type (optional members as
// NotRequired, nullable ones as | None), Literal unions for enums and
// union tags, a TypedDict per union variant with its tag, Final constants
// for names, codes, limits and defaults, the method table and a typed
// request Protocol, with docstrings from the spec. It also writes the
// examples module, in which Pyright in strict mode must accept every valid
// example and reject every invalid one the types can see.
//
// The modules postpone annotations and import NotRequired only for the
// type checker, so they import on Python 3.10, where typing has no
// NotRequired yet; Pyright checks them as Python 3.11.
package pyemit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/contractkit/contractkit/internal/emit/bindview"
	"github.com/contractkit/contractkit/internal/spec"
)

// File is one generated file: a repository-relative path and its bytes.
type File struct {
	Path string
	Data []byte
}

// Options select where the binding of one domain goes.
type Options struct {
	// Dir is the repository-relative folder the modules are written to.
	Dir string
}

// Module is the file name of a domain's module: its package name.
func Module(d *spec.Domain) string { return d.Header.Package + ".py" }

// ExamplesModule is the file name of a domain's examples module.
func ExamplesModule(d *spec.Domain) string { return d.Header.Package + "_examples.py" }

// Emit returns the Python modules of d.
func Emit(d *spec.Domain, opts Options) ([]File, error) {
	g := &generator{d: d, top: bindview.NewNames(d.File + ": Python module " + Module(d))}
	mod := g.module()
	if err := g.err(); err != nil {
		return nil, err
	}
	ex, err := g.examplesModule()
	if err != nil {
		return nil, err
	}
	return []File{
		{path.Join(opts.Dir, Module(d)), mod},
		{path.Join(opts.Dir, ExamplesModule(d)), ex},
	}, nil
}

type generator struct {
	d   *spec.Domain
	b   bytes.Buffer
	top *bindview.Names
	bad []string
}

func (g *generator) err() error {
	msgs := append([]string{}, g.bad...)
	if err := g.top.Err(); err != nil {
		msgs = append(msgs, err.Error())
	}
	if len(msgs) == 0 {
		return nil
	}
	sort.Strings(msgs)
	return fmt.Errorf("%s", strings.Join(msgs, "\n"))
}

func (g *generator) p(format string, args ...any) { fmt.Fprintf(&g.b, format+"\n", args...) }

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// keywords may not name a class member in the class form of a TypedDict.
var keywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`False None True and as assert async await break class continue def del elif
		else except finally for from global if import in is lambda nonlocal not or pass raise return try while
		with yield`) {
		keywords[w] = true
	}
}

func (g *generator) declare(name, what string) string {
	if !identRE.MatchString(name) || keywords[name] {
		g.bad = append(g.bad, fmt.Sprintf("%s: %s is not a Python identifier (%s)", g.d.File, name, what))
	}
	g.top.Add(name, what)
	return name
}

func (g *generator) en(t spec.Text) string { return g.d.Text(t, "en") }

func (g *generator) enp(t *spec.Text) string {
	if t == nil {
		return ""
	}
	return g.en(*t)
}

// lit writes a string as a Python string literal (JSON's form is one).
func lit(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// docstring writes a docstring at indent from paragraphs.
func (g *generator) docstring(indent string, paragraphs []string, since string, stability spec.Stability) {
	lines := bindview.Paragraphs(paragraphs, 88-len(indent))
	if since != "" {
		lines = append(lines, "", "Since "+since+".")
	}
	if stability == spec.Deprecated {
		lines = append(lines, "", "Deprecated.")
	}
	if len(lines) == 0 {
		return
	}
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(strings.ReplaceAll(l, `\`, `\\`), `"""`, `\"\"\"`)
	}
	if len(lines) == 1 {
		g.p(`%s"""%s"""`, indent, lines[0])
		return
	}
	g.p(`%s"""%s`, indent, lines[0])
	for _, l := range lines[1:] {
		if l == "" {
			g.p("")
			continue
		}
		g.p("%s%s", indent, l)
	}
	g.p(`%s"""`, indent)
}

// typeOf is the Python type of a type expression.
func typeOf(r *spec.TypeRef) string {
	switch {
	case r.Array != nil:
		return "list[" + typeOf(r.Array) + "]"
	case r.Map != nil:
		return "dict[str, " + typeOf(r.Map) + "]"
	case r.Named != nil:
		return r.Named.Name
	}
	return builtin(r.Name)
}

func builtin(name string) string {
	switch name {
	case spec.TString, spec.TDecimalU64:
		return "str"
	case spec.TInteger:
		return "int"
	case spec.TNumber:
		return "float"
	case spec.TBoolean:
		return "bool"
	case spec.TObject:
		return "dict[str, object]"
	}
	return "object"
}

// ConstantName is a constant's name in Python: its symbol in capitals.
func ConstantName(c *spec.Constant) string { return bindview.UpperSnake(c.Symbol) }

func (g *generator) header() {
	g.p("# Code generated by cmd/gen from %s. DO NOT EDIT.", g.d.File)
	g.p("# Spec digest: %s", g.d.Digest)
}

func (g *generator) module() []byte {
	d := g.d
	h := d.Header
	g.header()
	g.docstring("", []string{
		fmt.Sprintf("The %s (%s, version %s, %s) as Python types. %s", g.en(h.Title), h.ID, h.Version, h.Stability, g.en(h.Description)),
		fmt.Sprintf("Every name, code, limit and default here comes from %s; change the spec and run make generate instead of editing this module. Standard library only; imports on Python 3.10 and later.", d.File),
	}, "", "")
	g.p("")
	g.p("from __future__ import annotations")
	g.p("")
	imports := []string{"TYPE_CHECKING", "Final", "Literal", "TypeAlias", "TypedDict"}
	if len(d.Methods) > 0 {
		imports = append(imports, "NamedTuple", "Protocol", "overload")
	}
	sort.Strings(imports)
	g.p("from typing import %s", strings.Join(imports, ", "))
	g.p("")
	g.p("if TYPE_CHECKING:")
	g.p("    from typing import NotRequired")
	g.p("")
	g.p("%s: Final = %s", g.declare("DOMAIN", "the domain id"), lit(h.ID))
	g.p(`"""The contract's stable id."""`)
	g.p("%s: Final = %s", g.declare("VERSION", "the contract version"), lit(h.Version))
	g.p(`"""The contract's version."""`)
	g.p("%s: Final = %s", g.declare("SPEC_FILE", "the spec file"), lit(d.File))
	g.p(`"""The spec this module was generated from."""`)
	g.p("%s: Final = %s", g.declare("DIGEST", "the spec digest"), lit(d.Digest))
	g.p(`"""The sha256 digest of the canonical model the module was generated from."""`)
	for _, c := range d.Constants {
		g.p("")
		unit := ""
		if c.Unit != "" {
			unit = " Unit: " + c.Unit + "."
		}
		g.p("%s: Final = %s", g.declare(ConstantName(c), "constant "+c.ID), pyLiteral(c.Value))
		g.docstring("", []string{g.en(c.Title) + ". " + g.enp(c.Description) + unit, fmt.Sprintf("%s (%s).", c.ID, c.Kind)}, c.Since, c.Stability)
	}
	// A class is created when its module runs, so the object types come
	// before the union variants that subclass them; every other reference
	// between types is an annotation or a string, which only Pyright reads.
	for _, kind := range []spec.TypeKind{spec.ObjectKind, spec.EnumKind, spec.AliasKind, spec.AlternativesKind, spec.UnionKind} {
		for _, t := range d.Types {
			if t.Kind == kind {
				g.p("")
				g.p("")
				g.typeDecl(t)
			}
		}
	}
	g.methods()
	g.names("NOTIFICATION", len(d.Notifications), func(i int) (string, string, string) {
		n := d.Notifications[i]
		return n.Method, n.ID, g.en(n.Title) + " (" + n.Direction + ")."
	})
	g.names("EVENT", len(d.Events), func(i int) (string, string, string) {
		e := d.Events[i]
		return e.Name, e.ID, g.en(e.Title) + "."
	})
	g.errors()
	return append([]byte{}, g.b.Bytes()...)
}

// pyLiteral writes a JSON value as a Python literal.
func pyLiteral(raw json.RawMessage) string {
	v, err := bindview.Decode(raw)
	if err != nil {
		return "None"
	}
	var b strings.Builder
	writeValue(&b, v)
	return b.String()
}

func writeValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case json.Number:
		b.WriteString(string(x))
	case string:
		b.WriteString(lit(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(lit(k))
			b.WriteString(": ")
			writeValue(b, x[k])
		}
		b.WriteByte('}')
	}
}

func (g *generator) typeDoc(t *spec.Type) []string {
	return []string{g.en(t.Title) + ". " + g.en(t.Description), t.ID + "."}
}

func (g *generator) typeDecl(t *spec.Type) {
	switch t.Kind {
	case spec.ObjectKind:
		g.typedDict(t.Name, t, "", "", "", g.typeDoc(t), t.Since, t.Stability)
	case spec.EnumKind:
		var values []string
		for _, v := range t.Values {
			values = append(values, bindview.Compact(v.Value))
		}
		alias := "Literal[" + strings.Join(values, ", ") + "]"
		if t.Open {
			base := "str"
			if t.Base == "integer" {
				base = "int"
			}
			alias += " | " + base
		}
		g.p("%s: TypeAlias = %s", g.declare(t.Name, "type "+t.Name), alias)
		paras := g.typeDoc(t)
		for _, v := range t.Values {
			paras = append(paras, bindview.Compact(v.Value)+": "+g.en(v.Description))
		}
		if t.Open {
			paras = append(paras, "The enum is open: a later version may add a value, so any other value is accepted too.")
		}
		g.docstring("", paras, t.Since, t.Stability)
		const suffix = "_VALUES"
		g.p("%s: Final[tuple[%s, ...]] = (%s,)", g.declare(bindview.UpperSnake(t.Name)+suffix, "values of "+t.Name), t.Name, strings.Join(values, ", "))
		g.p(`"""Every value of %s the contract lists, in its order."""`, t.Name)
	case spec.UnionKind:
		g.union(t)
	case spec.AliasKind:
		g.p("%s: TypeAlias = %s", g.declare(t.Name, "type "+t.Name), lit(typeOf(t.Type)))
		g.docstring("", g.typeDoc(t), t.Since, t.Stability)
	case spec.AlternativesKind:
		var alts []string
		seen := map[string]bool{}
		for _, a := range t.Alternatives {
			if b := builtin(a.Type); !seen[b] {
				seen[b] = true
				alts = append(alts, b)
			}
		}
		g.p("%s: TypeAlias = %s", g.declare(t.Name, "type "+t.Name), strings.Join(alts, " | "))
		g.docstring("", g.typeDoc(t), t.Since, t.Stability)
	}
}

// memberType is the annotation of an object member.
func (g *generator) memberType(f *spec.Field) string {
	typ := typeOf(&f.Type)
	if c, ok := bindview.ConstLiteral(g.d, f.Constraints); ok {
		typ = "Literal[" + pyLiteral(c) + "]"
	}
	if f.Nullable {
		typ += " | None"
	}
	if !f.Required {
		typ = "NotRequired[" + typ + "]"
	}
	return typ
}

// classForm reports whether every member name can be a class attribute;
// otherwise the TypedDict is written in its functional form.
func classForm(names []string) bool {
	for _, n := range names {
		if !identRE.MatchString(n) || keywords[n] {
			return false
		}
	}
	return true
}

// typedDict writes the TypedDict name: the members of t, or, for a union
// variant (tag set), a subclass of base (its object type, "" for none)
// that adds the tag member with its one value.
func (g *generator) typedDict(name string, t *spec.Type, base, tag, tagValue string, doc []string, since string, stability spec.Stability) {
	g.declare(name, "type "+name)
	var fields []*spec.Field
	var memberNames []string
	if tag != "" {
		memberNames = append(memberNames, tag)
	} else if t != nil {
		fields = t.Fields
	}
	for _, f := range fields {
		memberNames = append(memberNames, f.Name)
	}
	if t != nil && t.AdditionalFields == "keep" {
		doc = append(doc, "Members the contract does not name are carried unchanged on the wire; a TypedDict cannot list them, so a sender adds them to a copy typed dict[str, object].")
	}
	parent := "TypedDict"
	if base != "" {
		parent = base
	}
	if !classForm(memberNames) {
		// The functional form, for member names that are keywords or not
		// identifiers; its annotations are strings only Pyright reads.
		var members []string
		if tag != "" {
			members = append(members, lit(tag)+": "+lit("Literal["+lit(tagValue)+"]"))
		}
		for _, f := range fields {
			members = append(members, lit(f.Name)+": "+lit(g.memberType(f)))
		}
		for _, l := range bindview.Wrap(strings.Join(doc, " "), 86) {
			g.p("# %s", l)
		}
		if base != "" {
			g.bad = append(g.bad, fmt.Sprintf("%s: %s: a union tag that is not a Python identifier is not supported", g.d.File, name))
		}
		g.p("%s = TypedDict(%s, {%s})", name, lit(name), strings.Join(members, ", "))
		return
	}
	g.p("class %s(%s):", name, parent)
	g.docstring("    ", doc, since, stability)
	if tag != "" {
		g.p("")
		g.p("    %s: Literal[%s]", tag, lit(tagValue))
	}
	for _, f := range fields {
		g.p("")
		g.p("    %s: %s", f.Name, g.memberType(f))
		paras := []string{g.en(f.Description)}
		if f.ID != "" {
			paras = append(paras, f.ID+".")
		}
		fsince := ""
		if f.Since != t.Since {
			fsince = f.Since
		}
		g.docstring("    ", paras, fsince, f.Stability)
	}
}

func (g *generator) union(t *spec.Type) {
	var names []string
	for _, v := range t.Variants {
		vn := bindview.VariantName(t, v)
		names = append(names, vn)
		since := ""
		if v.Since != t.Since {
			since = v.Since
		}
		doc := []string{fmt.Sprintf("The %q variant of %s: %s", v.Tag, t.Name, g.en(v.Description))}
		base := ""
		if v.Object != nil {
			base = v.Object.Name
			doc = append(doc, fmt.Sprintf("Its members are those of %s.", v.Object.Name))
		}
		g.typedDict(vn, v.Object, base, t.Tag, v.Tag, doc, since, v.Stability)
		g.p("")
		g.p("")
	}
	if t.Open {
		un := g.declare(bindview.UnknownName(t), "unknown variant of open union "+t.Name)
		g.p("%s: TypeAlias = \"dict[str, object]\"", un)
		g.docstring("", []string{fmt.Sprintf("A %s whose %q the contract does not list: the union is open, so a later version may add a variant, and a receiver keeps it as it came.", t.Name, t.Tag)}, "", "")
		g.p("")
		names = append(names, un)
	}
	g.p("%s: TypeAlias = %s", g.declare(t.Name, "type "+t.Name), lit(strings.Join(names, " | ")))
	g.docstring("", append(g.typeDoc(t), fmt.Sprintf("A union tagged by %q.", t.Tag)), t.Since, t.Stability)
	var tags []string
	for _, v := range t.Variants {
		tags = append(tags, lit(v.Tag))
	}
	tagType := t.Name + bindview.Pascal(t.Tag)
	g.p("%s: TypeAlias = Literal[%s]", g.declare(tagType, "tags of union "+t.Name), strings.Join(tags, ", "))
	g.p(`"""The %q values of %s."""`, t.Tag, t.Name)
	for _, v := range t.Variants {
		g.p("%s: Final = %s", g.declare(bindview.UpperSnake(t.Name)+"_"+bindview.UpperSnake(t.Tag)+"_"+bindview.UpperSnake(v.Tag), fmt.Sprintf("tag %s of %s", v.Tag, t.Name)), lit(v.Tag))
	}
}

// MethodConstant is a method's name constant: METHOD_ and its words.
func MethodConstant(m *spec.Method) string { return "METHOD_" + bindview.UpperSnake(m.Method) }

func (g *generator) methods() {
	d := g.d
	if len(d.Methods) == 0 {
		return
	}
	g.p("")
	for _, m := range d.Methods {
		g.p("%s: Final = %s", g.declare(MethodConstant(m), "method "+m.Method), lit(m.Method))
		g.docstring("", []string{g.en(m.Title) + ". " + g.enp(m.Requirement), m.ID + "."}, m.Since, m.Stability)
	}
	var names []string
	for _, m := range d.Methods {
		names = append(names, lit(m.Method))
	}
	g.p("")
	g.p("%s: TypeAlias = Literal[%s]", g.declare("MethodName", "method name type"), strings.Join(names, ", "))
	g.p(`"""A method name."""`)
	g.p("")
	g.p("")
	g.p("class %s(NamedTuple):", g.declare("MethodInfo", "method table row"))
	g.p(`    """One method of the contract: its name, direction, the names of its params and result types (None for a null result) and the codes of its errors."""`)
	g.p("")
	g.p("    name: str")
	g.p("    direction: str")
	g.p("    params: str")
	g.p("    result: str | None")
	g.p("    errors: tuple[int, ...]")
	g.p("")
	g.p("")
	g.p("%s: Final[dict[str, MethodInfo]] = {", g.declare("METHODS", "method table"))
	for _, m := range d.Methods {
		result := "None"
		if m.ResultType != nil {
			result = lit(m.ResultType.Name)
		}
		var codes []string
		for _, id := range m.Errors {
			if e := d.LookupError(id); e != nil {
				codes = append(codes, strconv.FormatInt(e.Code, 10))
			}
		}
		g.p("    %s: MethodInfo(%s, %s, %s, %s, (%s)),", lit(m.Method), lit(m.Method), lit(m.Direction), lit(m.ParamsType.Name), result, tuple(codes))
	}
	g.p("}")
	g.p(`"""Every method, by name."""`)
	g.p("")
	g.p("")
	g.p("class %s(Protocol):", g.declare("Requester", "typed request protocol"))
	g.docstring("    ", []string{"Sends a request and returns its result, typed by the method's name: a client implements __call__ (one signature over every method is enough) and annotates its sender with Requester, so that a call's params and result are checked per method."}, "", "")
	for _, m := range d.Methods {
		result := "None"
		if m.ResultType != nil {
			result = m.ResultType.Name
		}
		g.p("")
		g.p("    @overload")
		g.p("    def __call__(self, method: Literal[%s], params: %s, /) -> %s: ...", lit(m.Method), m.ParamsType.Name, result)
	}
	g.p("")
	g.p("    def __call__(self, method: MethodName, params: object, /) -> object: ...")
}

func tuple(items []string) string {
	if len(items) == 1 {
		return items[0] + ","
	}
	return strings.Join(items, ", ")
}

// names writes the name constants of notifications or events.
func (g *generator) names(prefix string, n int, at func(int) (name, id, title string)) {
	if n == 0 {
		return
	}
	g.p("")
	var all []string
	for i := 0; i < n; i++ {
		name, id, title := at(i)
		g.p("%s: Final = %s", g.declare(prefix+"_"+bindview.UpperSnake(name), strings.ToLower(prefix)+" "+name), lit(name))
		// A backslash first, so the one written before each quote stays
		// an escape of that quote.
		g.p(`"""%s %s"""`, strings.ReplaceAll(strings.ReplaceAll(title, `\`, `\\`), `"`, `\"`), id+".")
		all = append(all, lit(name))
	}
	tn := bindview.Pascal(strings.ToLower(prefix)) + "Name"
	g.p("")
	g.p("%s: TypeAlias = Literal[%s]", g.declare(tn, strings.ToLower(prefix)+" name type"), strings.Join(all, ", "))
}

func (g *generator) errors() {
	d := g.d
	if len(d.Errors) == 0 {
		return
	}
	g.p("")
	var kinds []*spec.ErrorKind
	for _, e := range d.Errors {
		g.p("%s: Final = %d", g.declare("CODE_"+bindview.UpperSnake(e.Symbol), "error "+e.ID), e.Code)
		g.docstring("", []string{g.en(e.Title) + ": " + lit(g.en(e.Message)) + ". " + g.enp(e.Requirement), e.ID + "."}, e.Since, e.Stability)
		kinds = append(kinds, e.Kinds...)
	}
	for _, k := range kinds {
		name := k.Symbol
		if name == "" {
			name = k.Kind
		}
		g.p("%s: Final = %s", g.declare("KIND_"+bindview.UpperSnake(name), "error kind "+k.Kind), lit(k.Kind))
		g.docstring("", []string{g.en(k.Title) + ". " + g.enp(k.Requirement), k.ID + "."}, k.Since, k.Stability)
	}
}

// examplesModule writes every example as an annotated assignment Pyright
// checks: a valid one plainly, an invalid one the types can see with a
// pyright: ignore comment that Pyright reports as unnecessary when the
// example stops failing.
func (g *generator) examplesModule() ([]byte, error) {
	d := g.d
	g.b.Reset()
	g.header()
	exs := bindview.Examples(d)
	g.docstring("", []string{
		fmt.Sprintf("The examples of %s as Python values: Pyright in strict mode over this module proves that every valid example is a value of its type and that every invalid one the types can tell from a valid one is rejected (reportUnnecessaryTypeIgnoreComment is on).", d.File),
	}, "", "")
	g.p("")
	g.p("from __future__ import annotations")
	if len(exs) > 0 {
		g.p("")
		g.p("import %s as contract", d.Header.Package)
	}
	names := bindview.NewNames(d.File + ": Python module " + ExamplesModule(d))
	var problems []string
	for _, ex := range exs {
		j, err := bindview.Python.Judge(d, ex)
		if err != nil {
			return nil, err
		}
		name := bindview.UpperSnake("example " + strings.Join(ex.Words, " "))
		names.Add(name, ex.Label)
		dropped, mismatch := j.Dropped, j.Mismatch
		var b strings.Builder
		writeValue(&b, j.Value)
		g.p("")
		switch {
		case ex.Valid && mismatch != "":
			problems = append(problems, fmt.Sprintf("%s:%s: valid example of %s is not a value of its Python type (at %s)", d.File, ex.Ptr, ex.Type.Name, mismatch))
			continue
		case ex.Valid:
			g.p("# %s", ex.Label)
			if len(dropped) > 0 {
				g.p("# Without the members a receiver ignores or keeps, which a TypedDict cannot name: %s", strings.Join(dropped, ", "))
			}
			g.p("%s: contract.%s = %s", name, ex.Type.Name, b.String())
		case mismatch != "":
			g.p("# %s: %s", ex.Label, oneLine(ex.Why))
			g.p("# The types reject it at %s.", bindview.MismatchPointer(mismatch))
			g.p("%s: contract.%s = %s  # pyright: ignore[reportAssignmentType]", name, ex.Type.Name, b.String())
		default:
			g.p("# %s: %s", ex.Label, oneLine(ex.Why))
			g.p("# The types accept it: its fault is a constraint beyond them, which the validators enforce.")
			g.p("%s: contract.%s = %s", name, ex.Type.Name, b.String())
		}
	}
	if err := names.Err(); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return append([]byte{}, g.b.Bytes()...), nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
