package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/big"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/contractkit/contractkit/runtime/strictjson"
)

// checkSetWith runs the semantic checks of every domain and those across
// domains.
func checkSetWith(fsys fs.FS, set *Set, opts LoadOptions) Diagnostics {
	var out Diagnostics
	ids := map[string]*Domain{}
	pkgs := map[string]*Domain{}
	for _, d := range set.Domains {
		r := &reporter{file: d.File, d: d}
		if o := ids[d.Header.ID]; o != nil {
			r.errorf("/domain/id", "domain id %q is also declared by %s", d.Header.ID, o.File)
		}
		ids[d.Header.ID] = d
		if o := pkgs[d.Header.Package]; o != nil {
			r.errorf("/domain/package", "package %q is also used by %s", d.Header.Package, o.File)
		}
		pkgs[d.Header.Package] = d
		out = append(out, r.out...)
	}
	// Each domain's checks read only that domain (and, for sources, the
	// repository), so they run side by side.
	src := fsys
	if opts.SkipSources {
		src = nil
	}
	per := make([]Diagnostics, len(set.Domains))
	var wg sync.WaitGroup
	for i, d := range set.Domains {
		wg.Add(1)
		go func(i int, d *Domain) {
			defer wg.Done()
			per[i] = checkDomain(src, d)
		}(i, d)
	}
	wg.Wait()
	for _, ds := range per {
		out = append(out, ds...)
	}
	return out
}

// checkDomain runs the checks the meta-schema cannot express. fsys is the
// repository, for source anchors; nil skips them.
func checkDomain(fsys fs.FS, d *Domain) Diagnostics {
	c := &checker{reporter: reporter{file: d.File, d: d}, d: d, fsys: fsys}
	c.indexes()
	c.header()
	c.ids()
	c.constants()
	c.typesCheck()
	c.methods()
	c.notifications()
	c.events()
	c.errorsCheck()
	c.capabilities()
	c.profiles()
	c.tables()
	c.reservations()
	c.versions()
	c.texts()
	c.sources()
	c.docs()
	c.goNames()
	return c.out
}

type checker struct {
	reporter
	d    *Domain
	fsys fs.FS
}

func (c *checker) indexes() {
	d := c.d
	d.consts = map[string]*Constant{}
	for _, k := range d.Constants {
		d.consts[k.ID] = k
	}
	d.errorByID = map[string]*Error{}
	for _, e := range d.Errors {
		d.errorByID[e.ID] = e
	}
	d.capByName = map[string]*Capability{}
	for _, k := range d.Capabilities {
		if o := d.capByName[k.Name]; o != nil {
			c.errorf(k.Ptr+"/name", "capability name %q is also used by %s", k.Name, o.ID)
			continue
		}
		d.capByName[k.Name] = k
	}
	// Type names: the loader's map keeps the last; report every repeat.
	seen := map[string]*Type{}
	for _, t := range sortedByPtr(d.Types) {
		if o := seen[t.Name]; o != nil {
			c.errorf(t.Ptr+"/name", "type name %q is also declared at %s", t.Name, o.Ptr)
			continue
		}
		seen[t.Name] = t
	}
	d.types = seen
}

func sortedByPtr(ts []*Type) []*Type {
	out := append([]*Type(nil), ts...)
	sort.Slice(out, func(i, j int) bool { return ptrLess(out[i].Ptr, out[j].Ptr) })
	return out
}

// ptrLess orders pointers like /types/2 before /types/10.
func ptrLess(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if as[i] == bs[i] {
			continue
		}
		x, errx := strconv.Atoi(as[i])
		y, erry := strconv.Atoi(bs[i])
		if errx == nil && erry == nil {
			return x < y
		}
		return as[i] < bs[i]
	}
	return len(as) < len(bs)
}

func (c *checker) header() {
	h := &c.d.Header
	kinds := map[string]bool{}
	for i, k := range h.RuleKinds {
		p := "/domain/ruleKinds/" + strconv.Itoa(i) + "/kind"
		if reservedKinds[k.Kind] {
			c.errorf(p, "rule kind %q is reserved for the %s section", k.Kind, k.Kind)
		}
		if sectionKinds[k.Kind] {
			c.errorf(p, "rule kind %q is reserved: it is the name of the %s docs section, whose anchor section-%s its rule table would share", k.Kind, k.Kind, k.Kind)
		}
		if kinds[k.Kind] {
			c.errorf(p, "rule kind %q is declared twice", k.Kind)
		}
		kinds[k.Kind] = true
	}
	if h.InvalidParams != "" {
		if c.d.LookupError(h.InvalidParams) == nil {
			c.errorf("/domain/invalidParams", "unknown error %q", h.InvalidParams)
		}
	} else if len(c.d.Methods) > 0 {
		c.errorf("/domain", "invalidParams is required when the domain has methods: validators must know which error code to report")
	}
	if CompareVersions(h.Since, h.Version) > 0 {
		c.errorf("/domain/since", "since %s is later than the domain version %s", h.Since, h.Version)
	}
	if len(h.Parties) == 2 {
		a, b := h.Parties[0], h.Parties[1]
		if a.End == b.End {
			c.errorf("/domain/parties/1/end", "both parties sit at the %s end; one must be the client end and the other the server end", a.End)
		}
		if a.Name == b.Name {
			c.errorf("/domain/parties/1/name", "both parties are called %q", a.Name)
		}
		if !a.Implemented && !b.Implemented {
			c.errorf("/domain/parties", "neither party is implemented here: contractdiff judges changes by the side this repository implements")
		}
	}
}

func (c *checker) ruleKinds() map[string]bool {
	m := map[string]bool{}
	for _, k := range c.d.Header.RuleKinds {
		m[k.Kind] = true
	}
	return m
}

// ids: unique, prefixed with the domain, and of the kind their section says.
func (c *checker) ids() {
	d := c.d
	prefix := d.Header.ID + "."
	ruleKinds := c.ruleKinds()
	seen := map[string]string{}
	for _, e := range d.Entries() {
		if o, ok := seen[e.ID]; ok {
			c.entryErrorf(e.Ptr+"/id", e.ID, "id %q is also used at %s", e.ID, o)
			continue
		}
		seen[e.ID] = e.Ptr
		if !strings.HasPrefix(e.ID, prefix) {
			c.entryErrorf(e.Ptr+"/id", e.ID, "id %q must start with the domain id %q", e.ID, prefix)
			continue
		}
		var want string
		switch {
		case e.Constant != nil:
			want = string(e.Constant.Kind)
		case e.Type != nil:
			want = KindType
		case e.Method != nil:
			want = KindMethod
		case e.Notification != nil:
			want = KindNotification
		case e.Event != nil:
			want = KindEvent
		case e.Error != nil:
			want = KindError
		case e.ErrorKind != nil:
			want = KindErrorKind
		case e.Capability != nil:
			want = KindCapability
		case e.Profile != nil:
			want = KindProfile
		case e.Table != nil:
			want = KindTable
		}
		if want != "" {
			if e.Kind != want {
				c.entryErrorf(e.Ptr+"/id", e.ID, "id %q must be %s%s.<name>", e.ID, prefix, want)
			}
			continue
		}
		// Rules and id'd fields belong to a declared rule table.
		if !ruleKinds[e.Kind] {
			c.entryErrorf(e.Ptr+"/id", e.ID, "id %q has kind %q, which is not among the domain's ruleKinds", e.ID, e.Kind)
		}
	}
}

func (c *checker) constants() {
	for _, k := range c.d.Constants {
		if err := checkScalarJSON(k.Value, k.Type); err != nil {
			c.entryErrorf(k.Ptr+"/value", k.ID, "value: %v", err)
		}
		if k.Direction != nil && !k.Direction.Exact() && c.d.LookupParty(k.Direction.Party) == nil {
			c.entryErrorf(k.Ptr+"/direction/party", k.ID, "unknown party %q: the domain's parties are %s", k.Direction.Party, c.partyNames())
		}
	}
}

func (c *checker) partyNames() string {
	var names []string
	for _, p := range c.d.Parties() {
		names = append(names, p.Name)
	}
	return strings.Join(names, " and ")
}

// resolveRef resolves a type expression, reporting unknown names at ptr.
func (c *checker) resolveRef(r *TypeRef, ptr string) bool {
	e := r.Elem()
	if IsBuiltin(e.Name) {
		return true
	}
	t := c.d.types[e.Name]
	if t == nil {
		c.errorf(ptr, "unknown type %q (not a builtin: %s; not a type of this spec)", e.Name, strings.Join(Builtins, ", "))
		return false
	}
	e.Named = t
	return true
}

// namedType resolves a type name used by a method, event or error.
func (c *checker) namedType(name, ptr string, kinds ...TypeKind) *Type {
	t := c.d.types[name]
	if t == nil {
		c.errorf(ptr, "unknown type %q", name)
		return nil
	}
	if len(kinds) > 0 {
		for _, k := range kinds {
			if t.Kind == k {
				return t
			}
		}
		var ks []string
		for _, k := range kinds {
			ks = append(ks, string(k))
		}
		c.errorf(ptr, "type %q is a %s; it must be a %s type", name, t.Kind, strings.Join(ks, " or "))
		return nil
	}
	return t
}

// includes expands included object types into the fields of the types
// that include them, in include order, before any other check reads fields.
func (c *checker) includes() {
	state := map[*Type]int{} // 0 new, 1 expanding, 2 done
	var expand func(t *Type) bool
	expand = func(t *Type) bool {
		switch state[t] {
		case 1:
			c.errorf(t.Ptr+"/include", "type %s includes itself", t.Name)
			return false
		case 2:
			return true
		}
		state[t] = 1
		defer func() { state[t] = 2 }()
		var fields []*Field
		for i, name := range t.Include {
			inc := c.namedType(name, t.Ptr+"/include/"+strconv.Itoa(i), ObjectKind)
			if inc == nil || !expand(inc) {
				return false
			}
			fields = append(fields, inc.Fields...)
		}
		if len(fields) > 0 {
			t.Fields = append(fields, t.Fields...)
		}
		return true
	}
	for _, t := range c.d.Types {
		if len(t.Include) > 0 {
			expand(t)
		}
	}
}

func (c *checker) typesCheck() {
	c.includes()
	for _, t := range c.d.Types {
		switch t.Kind {
		case ObjectKind:
			c.object(t)
		case EnumKind:
			c.enum(t)
		case UnionKind:
			c.union(t)
		case AliasKind:
			if c.resolveRef(t.Type, t.Ptr+"/type") {
				c.constraints(t.Constraints, t.Type, t.Ptr+"/constraints")
			}
		case AlternativesKind:
			seen := map[string]bool{}
			for i, a := range t.Alternatives {
				p := t.Ptr + "/alternatives/" + strconv.Itoa(i)
				k := a.Type
				if k == TNumber {
					k = TInteger // an integer is also a number: they cannot be told apart
				}
				if seen[k] {
					c.errorf(p+"/type", "alternative %s overlaps an earlier one: alternatives must be distinct JSON kinds", a.Type)
				}
				seen[k] = true
				c.constraints(a.Constraints, &TypeRef{Name: a.Type}, p+"/constraints")
			}
		}
	}
	// Cycles through required object fields can never be satisfied by a finite value.
	c.requiredCycles()
}

func (c *checker) object(t *Type) {
	names := map[string]*Field{}
	for _, f := range t.Fields {
		if o := names[f.Name]; o != nil {
			ptr := f.Ptr + "/name"
			if f.Owner != t {
				ptr = t.Ptr + "/include"
			}
			c.errorf(ptr, "field %q is declared twice in %s", f.Name, t.Name)
		}
		names[f.Name] = f
		if f.Owner != t {
			continue // an included field was checked in its own type
		}
		if !c.resolveRef(&f.Type, f.Ptr+"/type") {
			continue
		}
		if t.AdditionalFields == "keep" && f.GoName() == "Extra" {
			c.errorf(f.Ptr+"/name", "field %q would be called Extra in Go, the name of the member that carries unknown fields; set a symbol", f.Name)
		}
		c.constraints(f.Constraints, &f.Type, f.Ptr+"/constraints")
		if f.Nullable && !f.Required && (f.Default != nil || (f.Constraints != nil && f.Constraints.Const != nil)) {
			c.errorf(f.Ptr, "field %q is optional and nullable, so absent, null and a value are three different things; a default or const would blur absent with a value", f.Name)
		}
		if f.Default != nil {
			if f.Required {
				c.errorf(f.Ptr+"/default", "field %q is required; a default applies only to optional fields", f.Name)
			}
			c.valueFor(f.Default, &f.Type, f.Constraints, f.Ptr+"/default")
		}
		if f.Capability != "" && c.d.capByName[f.Capability] == nil {
			c.errorf(f.Ptr+"/capability", "unknown capability %q", f.Capability)
		}
	}
	for i, n := range t.ExactlyOneOf {
		f := names[n]
		p := t.Ptr + "/exactlyOneOf/" + strconv.Itoa(i)
		switch {
		case f == nil:
			c.errorf(p, "exactlyOneOf names %q, which is not a field of %s", n, t.Name)
		case f.Required:
			c.errorf(p, "exactlyOneOf names required field %q; its members must be optional", n)
		}
	}
}

func (c *checker) enum(t *Type) {
	seen := map[string]bool{}
	for _, v := range t.Values {
		var err error
		if t.Base == "integer" {
			err = checkScalarJSON(v.Value, TInteger)
		} else {
			err = checkScalarJSON(v.Value, TString)
		}
		if err != nil {
			c.errorf(v.Ptr+"/value", "value of a %s enum: %v", t.Base, err)
			continue
		}
		key := string(v.Value)
		if seen[key] {
			c.errorf(v.Ptr+"/value", "enum value %s is listed twice in %s", key, t.Name)
		}
		seen[key] = true
		if v.Capability != "" && c.d.capByName[v.Capability] == nil {
			c.errorf(v.Ptr+"/capability", "unknown capability %q", v.Capability)
		}
	}
}

func (c *checker) union(t *Type) {
	tags := map[string]bool{}
	for _, v := range t.Variants {
		if tags[v.Tag] {
			c.errorf(v.Ptr+"/tag", "union tag %q is used twice in %s", v.Tag, t.Name)
		}
		tags[v.Tag] = true
		if v.Capability != "" && c.d.capByName[v.Capability] == nil {
			c.errorf(v.Ptr+"/capability", "unknown capability %q", v.Capability)
		}
		if v.Type == "" {
			continue
		}
		o := c.namedType(v.Type, v.Ptr+"/type", ObjectKind)
		if o == nil {
			continue
		}
		v.Object = o
		for _, f := range o.Fields {
			if f.Name == t.Tag {
				c.errorf(v.Ptr+"/type", "variant type %s declares the tag member %q; the union %s writes it", o.Name, t.Tag, t.Name)
			}
		}
		if o.AdditionalFields == "keep" {
			c.errorf(v.Ptr+"/type", "variant type %s keeps unknown members; a union variant may reject or ignore them, not carry them", o.Name)
		}
	}
}

// constraints checks that each constraint fits the type and that bounds are ordered.
func (c *checker) constraints(k *Constraints, r *TypeRef, ptr string) {
	if k == nil {
		return
	}
	c.counts(k, ptr)
	kind := r.JSONKind()
	if r.Name == TDecimalU64 {
		kind = TDecimalU64
	}
	not := func(name, want string) {
		c.errorf(ptr+"/"+name, "%s applies to %s values; this one is %s", name, want, describeKind(kind))
	}
	if (k.MinLength != nil || k.MaxLength != nil || k.Pattern != "") && kind != TString {
		for _, n := range []struct {
			set  bool
			name string
		}{{k.MinLength != nil, "minLength"}, {k.MaxLength != nil, "maxLength"}, {k.Pattern != "", "pattern"}} {
			if n.set {
				not(n.name, "string")
			}
		}
	}
	if k.MinLength != nil && k.MaxLength != nil && *k.MinLength > *k.MaxLength {
		c.errorf(ptr+"/maxLength", "maxLength %d is below minLength %d", *k.MaxLength, *k.MinLength)
	}
	if k.Pattern != "" {
		if _, err := regexp.Compile(k.Pattern); err != nil {
			c.errorf(ptr+"/pattern", "pattern does not compile: %v", err)
		}
	}
	numeric := kind == TInteger || kind == TNumber
	var lo, hi *big.Rat
	if k.Minimum != nil {
		if !numeric {
			not("minimum", "integer or number")
		}
		lo = c.bound(k.Minimum, ptr+"/minimum")
	}
	if k.Maximum != nil {
		if !numeric {
			not("maximum", "integer or number")
		}
		hi = c.bound(k.Maximum, ptr+"/maximum")
	}
	if lo != nil && hi != nil && lo.Cmp(hi) > 0 {
		c.errorf(ptr+"/maximum", "maximum %s is below minimum %s", hi.RatString(), lo.RatString())
	}
	if kind == TInteger {
		for _, b := range []struct {
			v    *big.Rat
			name string
		}{{lo, "minimum"}, {hi, "maximum"}} {
			if b.v != nil && (!b.v.IsInt() || b.v.Cmp(big.NewRat(MaxSafeInteger, 1)) > 0 || b.v.Cmp(big.NewRat(MinSafeInteger, 1)) < 0) {
				c.errorf(ptr+"/"+b.name, "%s of an integer must be an integer within ±(2^53−1)", b.name)
			}
		}
	}
	if (k.MinItems != nil || k.MaxItems != nil) && kind != "array" {
		if k.MinItems != nil {
			not("minItems", "array")
		}
		if k.MaxItems != nil {
			not("maxItems", "array")
		}
	}
	if k.MinItems != nil && k.MaxItems != nil && *k.MinItems > *k.MaxItems {
		c.errorf(ptr+"/maxItems", "maxItems %d is below minItems %d", *k.MaxItems, *k.MinItems)
	}
	if k.Clamp {
		switch {
		case kind != TInteger:
			c.errorf(ptr+"/clamp", "clamp applies to integers; this value is %s", describeKind(kind))
		case k.Minimum == nil && k.Maximum == nil:
			c.errorf(ptr+"/clamp", "clamp needs a minimum or a maximum to clamp to")
		}
	}
	if k.Const != nil {
		noConst := *k
		noConst.Const = nil
		c.valueFor(k.Const, r, &noConst, ptr+"/const")
	}
}

func describeKind(kind string) string {
	switch kind {
	case "":
		return "of any kind"
	case TDecimalU64:
		return "a decimal-u64 string"
	case "integer", "array", "object":
		return "an " + kind
	}
	return "a " + kind
}

// counts resolves the count bounds that name a constant: an integer
// constant of the domain, not negative.
func (c *checker) counts(k *Constraints, ptr string) {
	for _, f := range k.countFields() {
		if *f.ref == "" {
			continue
		}
		at := ptr + "/" + f.name + "/constant"
		kc := c.d.consts[*f.ref]
		if kc == nil {
			c.errorf(at, "unknown constant %q", *f.ref)
			*f.ref = ""
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(kc.Value)), 10, 64)
		if kc.Type != TInteger || err != nil || n < 0 {
			c.errorf(at, "constant %s is %s; %s needs an integer that is not negative", kc.ID, kc.Value, f.name)
			*f.ref = ""
			continue
		}
		*f.value = &n
	}
}

// bound resolves a numeric bound, through its constant if it names one.
func (c *checker) bound(b *Bound, ptr string) *big.Rat {
	lit := b.Literal
	if b.Constant != "" {
		k := c.d.consts[b.Constant]
		if k == nil {
			c.errorf(ptr+"/constant", "unknown constant %q", b.Constant)
			return nil
		}
		if k.Type != TInteger && k.Type != TNumber {
			c.errorf(ptr+"/constant", "constant %s is a %s; a bound needs a number", k.ID, k.Type)
			return nil
		}
		lit = json.Number(bytes.TrimSpace(k.Value))
	}
	r, ok := new(big.Rat).SetString(string(lit))
	if !ok {
		c.errorf(ptr, "bound %q is not a number", lit)
		return nil
	}
	b.Value = lit
	return r
}

// valueFor checks a default or const: a scalar literal or a constant
// reference, of the type's kind and within the constraints.
func (c *checker) valueFor(raw json.RawMessage, r *TypeRef, k *Constraints, ptr string) {
	val := raw
	if id := ConstantRef(raw); id != "" {
		kc := c.d.consts[id]
		if kc == nil {
			c.errorf(ptr+"/constant", "unknown constant %q", id)
			return
		}
		val = kc.Value
	}
	kind := r.JSONKind()
	if r.Name == TDecimalU64 {
		kind = TDecimalU64
	}
	var want string
	switch kind {
	case TString, TDecimalU64, TInteger, TNumber, TBoolean:
		want = kind
	default:
		c.errorf(ptr, "a default or const needs a scalar type; this one is %s", describeKind(kind))
		return
	}
	if want == TDecimalU64 {
		want = TString
	}
	if err := checkScalarJSON(val, want); err != nil {
		c.errorf(ptr, "%v", err)
		return
	}
	if r.Named != nil && r.Named.Kind == EnumKind {
		found := false
		for _, v := range r.Named.Values {
			if bytes.Equal(bytes.TrimSpace(v.Value), bytes.TrimSpace(val)) {
				found = true
			}
		}
		if !found {
			c.errorf(ptr, "%s is not a value of enum %s", val, r.Named.Name)
		}
	}
	if k == nil {
		return
	}
	if want == TInteger || want == TNumber {
		x, _ := new(big.Rat).SetString(string(bytes.TrimSpace(val)))
		if k.Minimum != nil && k.Minimum.Value != "" {
			lo, _ := new(big.Rat).SetString(string(k.Minimum.Value))
			if lo != nil && x.Cmp(lo) < 0 && !k.Clamp {
				c.errorf(ptr, "%s is below the minimum %s", val, k.Minimum.Value)
			}
		}
		if k.Maximum != nil && k.Maximum.Value != "" {
			hi, _ := new(big.Rat).SetString(string(k.Maximum.Value))
			if hi != nil && x.Cmp(hi) > 0 && !k.Clamp {
				c.errorf(ptr, "%s is above the maximum %s", val, k.Maximum.Value)
			}
		}
	}
	if want == TString {
		var s string
		_ = json.Unmarshal(val, &s)
		n := int64(len([]rune(s)))
		if k.MinLength != nil && n < *k.MinLength {
			c.errorf(ptr, "%s is shorter than minLength %d", val, *k.MinLength)
		}
		if k.MaxLength != nil && n > *k.MaxLength {
			c.errorf(ptr, "%s is longer than maxLength %d", val, *k.MaxLength)
		}
		if k.Pattern != "" {
			if re, err := regexp.Compile(k.Pattern); err == nil && !re.MatchString(s) {
				c.errorf(ptr, "%s does not match the pattern", val)
			}
		}
	}
}

// checkScalarJSON checks that raw is a JSON literal of the builtin kind.
func checkScalarJSON(raw json.RawMessage, kind string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return fmt.Errorf("missing value")
	}
	switch kind {
	case TString:
		if raw[0] != '"' {
			return fmt.Errorf("%s is not a string", raw)
		}
	case TBoolean:
		if string(raw) != "true" && string(raw) != "false" {
			return fmt.Errorf("%s is not a boolean", raw)
		}
	case TInteger, TNumber:
		x, ok := new(big.Rat).SetString(string(raw))
		if !ok || raw[0] == '"' {
			return fmt.Errorf("%s is not a number", raw)
		}
		if kind == TInteger {
			if !x.IsInt() {
				return fmt.Errorf("%s is not an integer", raw)
			}
			if x.Cmp(big.NewRat(MaxSafeInteger, 1)) > 0 || x.Cmp(big.NewRat(MinSafeInteger, 1)) < 0 {
				return fmt.Errorf("%s is outside the safe integer range ±(2^53−1)", raw)
			}
		}
	}
	return nil
}

// requiredCycles reports object types that require themselves through
// required, non-nullable, non-array fields: no finite value satisfies them.
func (c *checker) requiredCycles() {
	state := map[*Type]int{} // 0 new, 1 visiting, 2 done
	var visit func(t *Type, path []string) bool
	visit = func(t *Type, path []string) bool {
		switch state[t] {
		case 1:
			c.errorf(t.Ptr, "type %s requires itself through required fields (%s): no finite value can satisfy it", t.Name, strings.Join(append(path, t.Name), " → "))
			return true
		case 2:
			return false
		}
		state[t] = 1
		defer func() { state[t] = 2 }()
		if t.Kind != ObjectKind {
			return false
		}
		for _, f := range t.Fields {
			if !f.Required || f.Nullable || f.Type.Array != nil || f.Type.Map != nil || f.Type.Named == nil {
				continue
			}
			if visit(f.Type.Named, append(path, t.Name+"."+f.Name)) {
				return true
			}
		}
		return false
	}
	for _, t := range c.d.Types {
		visit(t, nil)
	}
}

func (c *checker) methods() {
	names := map[string]string{}
	for _, m := range c.d.Methods {
		if o, ok := names[m.Method]; ok {
			c.entryErrorf(m.Ptr+"/method", m.ID, "method %q is also declared by %s", m.Method, o)
		}
		names[m.Method] = m.ID
		m.ParamsType = c.namedType(m.Params, m.Ptr+"/params", ObjectKind)
		if m.Result != nil {
			m.ResultType = c.namedType(*m.Result, m.Ptr+"/result")
		}
		for i, id := range m.Errors {
			if c.d.LookupError(id) == nil {
				c.entryErrorf(m.Ptr+"/errors/"+strconv.Itoa(i), m.ID, "unknown error %q", id)
			}
		}
		if m.Capability != "" && c.d.capByName[m.Capability] == nil {
			c.entryErrorf(m.Ptr+"/capability", m.ID, "unknown capability %q", m.Capability)
		}
		c.needExamples(m.Examples.Params, m.Ptr+"/examples/params", m.ID, "params")
		if m.Result != nil {
			c.needExamples(m.Examples.Result, m.Ptr+"/examples/result", m.ID, "result")
		} else if len(m.Examples.Result.Valid)+len(m.Examples.Result.Invalid) > 0 {
			c.entryErrorf(m.Ptr+"/examples/result", m.ID, "method %s has a null result; it takes no result examples", m.Method)
		}
	}
}

func (c *checker) needExamples(ex Examples, ptr, id, what string) {
	if len(ex.Valid) == 0 {
		c.entryErrorf(ptr+"/valid", id, "%s needs at least one valid example", what)
	}
	if len(ex.Invalid) == 0 {
		c.entryErrorf(ptr+"/invalid", id, "%s needs at least one invalid example", what)
	}
}

func (c *checker) notifications() {
	names := map[string]string{}
	for _, m := range c.d.Methods {
		names[m.Method] = m.ID
	}
	for _, n := range c.d.Notifications {
		key := n.Direction + " " + n.Method
		if o, ok := names[key]; ok {
			c.entryErrorf(n.Ptr+"/method", n.ID, "notification %q (%s) is also declared by %s", n.Method, n.Direction, o)
		}
		names[key] = n.ID
		if n.Params != nil {
			n.ParamsType = c.namedType(*n.Params, n.Ptr+"/params", ObjectKind)
		}
		if n.Capability != "" && c.d.capByName[n.Capability] == nil {
			c.entryErrorf(n.Ptr+"/capability", n.ID, "unknown capability %q", n.Capability)
		}
	}
}

func (c *checker) events() {
	names := map[string]string{}
	for _, e := range c.d.Events {
		if o, ok := names[e.Name]; ok {
			c.entryErrorf(e.Ptr+"/name", e.ID, "event %q is also declared by %s", e.Name, o)
		}
		names[e.Name] = e.ID
		e.PayloadType = c.namedType(e.Payload, e.Ptr+"/payload", ObjectKind)
		if t := e.PayloadType; t != nil {
			if t.Examples == nil {
				c.entryErrorf(t.Ptr, e.ID, "event payload type %s needs examples (valid and invalid)", t.Name)
			} else {
				c.needExamples(*t.Examples, t.Ptr+"/examples", e.ID, "event payload "+t.Name)
			}
		}
		if e.Capability != "" && c.d.capByName[e.Capability] == nil {
			c.entryErrorf(e.Ptr+"/capability", e.ID, "unknown capability %q", e.Capability)
		}
	}
}

func (c *checker) errorsCheck() {
	codes := map[int64]string{}
	kinds := map[string]string{}
	for _, e := range c.d.Errors {
		if o, ok := codes[e.Code]; ok {
			c.entryErrorf(e.Ptr+"/code", e.ID, "error code %d is also used by %s", e.Code, o)
		}
		codes[e.Code] = e.ID
		if e.Data != "" {
			e.DataType = c.namedType(e.Data, e.Ptr+"/data")
		}
		if len(e.Kinds) > 0 && e.Data == "" {
			c.entryErrorf(e.Ptr+"/kinds", e.ID, "error %s has kinds but no data type to carry them", e.ID)
		}
		for _, k := range e.Kinds {
			if o, ok := kinds[k.Kind]; ok {
				c.entryErrorf(k.Ptr+"/kind", k.ID, "error kind %q is also declared by %s", k.Kind, o)
			}
			kinds[k.Kind] = k.ID
			if k.Details != "" {
				k.DetailsType = c.namedType(k.Details, k.Ptr+"/details", ObjectKind)
			}
		}
	}
}

func (c *checker) capabilities() {
	for _, k := range c.d.Capabilities {
		c.resolveRef(&k.Type, k.Ptr+"/type")
	}
}

// profiles: names unique; every listed id resolves to an entry of the
// section the list names (limit constants for constants; rules or id'd
// fields for rules), and no list names an id twice.
func (c *checker) profiles() {
	d := c.d
	entries := map[string]*EntryRef{}
	for _, e := range d.Entries() {
		entries[e.ID] = e
	}
	names := map[string]string{}
	for _, p := range d.Profiles {
		if o, ok := names[p.Name]; ok {
			c.entryErrorf(p.Ptr+"/name", p.ID, "profile name %q is also used by %s", p.Name, o)
		}
		names[p.Name] = p.ID
		lists := []struct {
			member string
			ids    []string
			fits   func(e *EntryRef) string // "" when e may be listed
		}{
			{"events", p.Events, func(e *EntryRef) string {
				if e.Event == nil {
					return "is not an event"
				}
				return ""
			}},
			{"constants", p.Constants, func(e *EntryRef) string {
				switch {
				case e.Constant == nil:
					return "is not a constant"
				case e.Constant.Kind != LimitConstant:
					return "is a " + string(e.Constant.Kind) + " constant; a profile lists limits"
				}
				return ""
			}},
			{"rules", p.Rules, func(e *EntryRef) string {
				if e.Rule == nil && e.Field == nil {
					return "is not a rule"
				}
				return ""
			}},
		}
		for _, l := range lists {
			ptr := p.Ptr + "/" + l.member
			seen := map[string]bool{}
			for _, id := range l.ids {
				if seen[id] {
					c.entryErrorf(ptr, p.ID, "profile %s lists %s twice in %s", p.Name, id, l.member)
					continue
				}
				seen[id] = true
				e := entries[id]
				if e == nil {
					c.entryErrorf(ptr, p.ID, "profile %s lists %s in %s, which no entry of the spec declares", p.Name, id, l.member)
					continue
				}
				if why := l.fits(e); why != "" {
					c.entryErrorf(ptr, p.ID, "profile %s lists %s in %s, which %s", p.Name, id, l.member, why)
				}
			}
		}
	}
}

// tables: column names unique, a closed set only on string columns;
// every row member names a column and has its type, every required
// column is in every row, and a rule column names a rule of the spec.
func (c *checker) tables() {
	d := c.d
	rules := map[string]bool{}
	for _, e := range d.Entries() {
		if e.Rule != nil || e.Field != nil {
			rules[e.ID] = true
		}
	}
	for _, t := range d.Tables {
		cols := map[string]*TableColumn{}
		for i, col := range t.Columns {
			ptr := t.Ptr + "/columns/" + strconv.Itoa(i)
			if cols[col.Name] != nil {
				c.entryErrorf(ptr+"/name", t.ID, "column %q is declared twice", col.Name)
			}
			cols[col.Name] = col
			if len(col.Values) > 0 && col.Type != ColumnString && col.Type != ColumnStrings {
				c.entryErrorf(ptr+"/values", t.ID, "column %q of type %s cannot have a closed set of values", col.Name, col.Type)
			}
		}
		for i, row := range t.Rows {
			ptr := t.Ptr + "/rows/" + strconv.Itoa(i)
			for _, col := range t.Columns {
				if _, ok := row[col.Name]; !ok && col.Required {
					c.entryErrorf(ptr, t.ID, "row %d has no %s", i, col.Name)
				}
			}
			names := make([]string, 0, len(row))
			for name := range row {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				col := cols[name]
				mp := ptr + "/" + name
				if col == nil {
					c.entryErrorf(mp, t.ID, "row %d has %s, which is not a column", i, name)
					continue
				}
				if why := col.check(row[name], rules); why != "" {
					c.entryErrorf(mp, t.ID, "row %d, column %s: %s", i, name, why)
				}
			}
		}
	}
}

// check returns why raw is not a value of the column, or "".
func (col *TableColumn) check(raw json.RawMessage, rules map[string]bool) string {
	inSet := func(s string) string {
		if len(col.Values) == 0 {
			return ""
		}
		for _, v := range col.Values {
			if v == s {
				return ""
			}
		}
		return fmt.Sprintf("%q is not one of %v", s, col.Values)
	}
	switch col.Type {
	case ColumnString, ColumnRule:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "not a string"
		}
		if col.Type == ColumnRule && !rules[s] {
			return fmt.Sprintf("%s is not a rule of the spec", s)
		}
		return inSet(s)
	case ColumnInteger:
		var n int64
		if json.Unmarshal(raw, &n) != nil {
			return "not an integer"
		}
	case ColumnBoolean:
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return "not a boolean"
		}
	case ColumnStrings:
		var ss []string
		if json.Unmarshal(raw, &ss) != nil {
			return "not a list of strings"
		}
		for _, s := range ss {
			if why := inSet(s); why != "" {
				return why
			}
		}
	}
	return ""
}

// versions: every since is a version of the domain, not later than its
// current one and not earlier than the element that holds it.
func (c *checker) versions() {
	h := c.d.Header
	check := func(since, floor, ptr, what string) {
		if CompareVersions(since, h.Version) > 0 {
			c.errorf(ptr, "since %s is later than the domain version %s", since, h.Version)
		}
		if CompareVersions(since, floor) < 0 {
			c.errorf(ptr, "since %s is earlier than %s (%s)", since, what, floor)
		}
	}
	for _, e := range c.d.Entries() {
		if e.Field != nil {
			continue
		}
		check(e.Since, h.Since, e.Ptr+"/since", "the domain's since")
	}
	for _, t := range c.d.Types {
		for _, f := range t.Fields {
			if f.Owner == t {
				check(f.Since, t.Since, f.Ptr+"/since", "its type "+t.Name)
			}
		}
		for _, v := range t.Values {
			check(v.Since, t.Since, v.Ptr+"/since", "its type "+t.Name)
		}
		for _, v := range t.Variants {
			check(v.Since, t.Since, v.Ptr+"/since", "its type "+t.Name)
		}
	}
}

// texts: a Russian text identical to the English one is an untranslated copy.
func (c *checker) texts() {
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		switch x := v.(type) {
		case map[string]any:
			en, okEN := x["en"].(string)
			ru, okRU := x["ru"].(string)
			if okEN && okRU && len(x) == 2 {
				if en == ru && wordsOutsideCode(en) >= 2 {
					c.errorf(ptr+"/ru", "the Russian text is a copy of the English one: translate it")
				}
				c.checkPlaceholders(en, ru, ptr)
				return
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if k == "examples" {
					// Examples are data, not human-facing text, except
					// the reasons given for the invalid ones.
					c.exampleReasons(x[k], ptr+"/examples")
					continue
				}
				walk(x[k], ptr+"/"+strictjson.EscapePointerToken(k))
			}
		case []any:
			for i, e := range x {
				walk(e, ptr+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(c.d.doc, "")
}

// exampleReasons checks the placeholders of the why texts of invalid
// examples, wherever the examples hold them (a type's or a method's).
func (c *checker) exampleReasons(v any, ptr string) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "params", "result":
			c.exampleReasons(m[k], ptr+"/"+k)
		case "invalid":
			list, _ := m[k].([]any)
			for i, e := range list {
				em, _ := e.(map[string]any)
				why, _ := em["why"].(map[string]any)
				en, _ := why["en"].(string)
				ru, _ := why["ru"].(string)
				c.checkPlaceholders(en, ru, ptr+"/invalid/"+strconv.Itoa(i)+"/why")
			}
		}
	}
}

// wordsOutsideCode counts the words of s outside `code spans`: names and
// literals in code spans are the same in both languages.
func wordsOutsideCode(s string) int {
	return len(strings.Fields(codeSpan.ReplaceAllString(s, " ")))
}

var codeSpan = regexp.MustCompile("`[^`]*`")

// sources: repository-relative paths of existing files that contain their
// anchor text. A normative entry without any source is listed as a warning.
func (c *checker) sources() {
	cache := map[string][]byte{}
	for _, e := range c.d.Entries() {
		if len(e.Source) == 0 {
			if e.Normative() {
				c.warnf(e.Ptr, e.ID, "%s has no source: it is not yet traceable to an implementation", e.ID)
			}
			continue
		}
		for i, s := range e.Source {
			p := e.Ptr + "/source/" + strconv.Itoa(i)
			if msg := checkRepoPath(s.Path); msg != "" {
				c.entryErrorf(p+"/path", e.ID, "%s: source path %q %s", e.ID, s.Path, msg)
				continue
			}
			if c.fsys == nil {
				continue
			}
			data, ok := cache[s.Path]
			if !ok {
				var err error
				data, err = fs.ReadFile(c.fsys, s.Path)
				if err != nil {
					c.entryErrorf(p+"/path", e.ID, "%s: source %s does not exist or is not a readable file", e.ID, s.Path)
					continue
				}
				cache[s.Path] = data
			}
			at := bytes.Index(data, []byte(s.Anchor))
			if at < 0 {
				c.entryErrorf(p+"/anchor", e.ID, "%s: anchor %q not found in %s", e.ID, s.Anchor, s.Path)
				continue
			}
			e.Source[i].Line = 1 + bytes.Count(data[:at], []byte("\n"))
		}
	}
}

// checkRepoPath returns why p is not a clean repository-relative path, or "".
func checkRepoPath(p string) string {
	switch {
	case strings.HasPrefix(p, "/"):
		return "is absolute; write it relative to the repository root"
	case strings.Contains(p, "\\"):
		return "uses backslashes; use forward slashes"
	case path.Clean(p) != p:
		return "is not clean (remove ./, ../ and doubled slashes)"
	case p == ".." || strings.HasPrefix(p, "../"):
		return "leaves the repository"
	case strings.HasPrefix(p, "generated/"):
		return "points into generated code; name the hand-written code that implements the rule"
	}
	return ""
}

// Section kinds of docs pages.
const (
	SectionConstants     = "constants"
	SectionTypes         = "types"
	SectionMethods       = "methods"
	SectionNotifications = "notifications"
	SectionEvents        = "events"
	SectionErrors        = "errors"
	SectionCapabilities  = "capabilities"
	SectionProfiles      = "profiles"
	SectionTables        = "tables"
	SectionRulesPrefix   = "rules:"
)

// sectionKinds are the docs sections that are not rule tables. The pages
// anchor a section as section-<name> and a rule table as section-<kind>,
// so a rule kind may not take one of these names.
var sectionKinds = map[string]bool{
	SectionConstants: true, SectionTypes: true, SectionMethods: true, SectionNotifications: true,
	SectionEvents: true, SectionErrors: true, SectionCapabilities: true, SectionProfiles: true,
	SectionTables: true,
}

// docs: page slugs unique; every section on exactly one page; every
// non-empty collection and rule table shown somewhere.
func (c *checker) docs() {
	d := c.d
	slugs := map[string]bool{"index": true}
	placed := map[string]string{}
	kinds := c.ruleKinds()
	for i, p := range d.Docs.Pages {
		pp := "/docs/pages/" + strconv.Itoa(i)
		if slugs[p.Slug] {
			c.errorf(pp+"/slug", "page slug %q is used twice (index is reserved)", p.Slug)
		}
		slugs[p.Slug] = true
		for j, s := range p.Sections {
			sp := pp + "/sections/" + strconv.Itoa(j)
			if o, ok := placed[s]; ok {
				c.errorf(sp, "section %q is already on page %s", s, o)
			}
			placed[s] = p.Slug
			if k, ok := strings.CutPrefix(s, SectionRulesPrefix); ok && !kinds[k] {
				c.errorf(sp, "section %q names an undeclared rule kind", s)
			}
		}
	}
	need := func(section string, n int) {
		if n > 0 {
			if _, ok := placed[section]; !ok {
				c.errorf("/docs/pages", "no page shows section %q (%d entries)", section, n)
			}
		}
	}
	// Constants (limits and defaults) are always shown on the index page.
	need(SectionTypes, len(d.Types))
	need(SectionMethods, len(d.Methods))
	need(SectionNotifications, len(d.Notifications))
	need(SectionEvents, len(d.Events))
	need(SectionErrors, len(d.Errors))
	need(SectionCapabilities, len(d.Capabilities))
	need(SectionProfiles, len(d.Profiles))
	need(SectionTables, len(d.Tables))
	for _, k := range d.Header.RuleKinds {
		need(SectionRulesPrefix+k.Kind, len(d.EntriesOfKind(k.Kind)))
	}
}

// goNames: the generated package must not declare a name twice.
func (c *checker) goNames() {
	ids := c.d.GoIdentifiers()
	for i := 1; i < len(ids); i++ {
		if ids[i].Name == ids[i-1].Name {
			a, b := ids[i-1], ids[i]
			ptr := b.Ptr
			if ptr == "" {
				ptr = a.Ptr
			}
			c.errorf(ptr, "Go name %s of %s collides with %s; set a symbol", b.Name, b.What, a.What)
		}
	}
}
