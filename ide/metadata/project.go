package metadata

import (
	"encoding/xml"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/contractkit/contractkit/designer"
	"github.com/contractkit/contractkit/ide/metadata/sourceread"
	"github.com/contractkit/contractkit/ide/metadata/treecache"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// project is one opened project of a session.
type project struct {
	id       string
	member   string // the workspace member name; "" when standalone
	typ      gen.ProjectType
	rootDir  string
	srcDir   string
	rootDesc string

	r    sourceread.Reader
	root *object
	objs map[string]*object // every object known so far, by ObjectId

	generation      uint64
	eventSequence   uint64
	nextFileSeq     uint64 // the sequence the next file event must carry
	requiresRefresh bool
	requiresReopen  bool
	exhausted       bool // a counter reached the end of its range
	resyncReason    string

	idx    *index
	sup    *supportState             // vendor support data, read on demand
	edits  *editState                // edit history and writer, made on the first edit
	trees  *treecache.Cache[treeKey] // element trees kept for properties
	scopes map[uint64][]scopeEntry   // the namespace scopes of descriptor roots, one per distinct set
}

// openProject reads the root descriptor and checks it against the type
// the manifest declares. Nothing else is read: objects are loaded when
// the tree or the index asks for them.
func openProject(id, member, typ, rootDir, srcDir, rootDesc string) (*project, error) {
	real, err := filepath.EvalSymlinks(srcDir)
	if err != nil {
		return nil, &sourceread.Error{Path: srcDir, Reason: gen.SourceErrorReasonMissing, Err: err}
	}
	p := &project{id: id, member: member, typ: gen.ProjectType(typ), rootDir: rootDir, srcDir: srcDir, rootDesc: rootDesc,
		r: sourceread.Reader{Src: real, SrcDir: srcDir, Limit: designer.DefaultLimits}, nextFileSeq: 1, trees: newTrees()}
	if err := p.loadRoot(); err != nil {
		return nil, err
	}
	p.idx = newIndex()
	return p, nil
}

// loadRoot (re)reads the root descriptor and forgets every other object.
func (p *project) loadRoot() error {
	p.r.ForgetDirs()
	// The root is always parsed: its element tree decides the type.
	d, err := p.r.Parse(p.rootDesc)
	if err != nil {
		return err
	}
	if d.Object == nil {
		return &sourceread.Error{Path: p.rootDesc, Reason: gen.SourceErrorReasonInvalidMetadata, XML: true, Err: fmt.Errorf("root: %v", diagList(d.Diagnostics))}
	}
	got := d.Object.Info.Kind
	want := map[gen.ProjectType]designer.Kind{gen.ProjectTypeConfiguration: designer.KindConfiguration, gen.ProjectTypeExtension: designer.KindConfiguration,
		gen.ProjectTypeProcessing: designer.KindDataProcessor, gen.ProjectTypeReport: designer.KindReport}[p.typ]
	if got != want {
		return &sourceread.Error{Path: p.rootDesc, Reason: gen.SourceErrorReasonInvalidMetadata, XML: true, Err: fmt.Errorf("the manifest says %s, the root element is %s", p.typ, d.Object.El.Local)}
	}
	if (p.typ == gen.ProjectTypeExtension) != d.IsExtension() {
		return &sourceread.Error{Path: p.rootDesc, Reason: gen.SourceErrorReasonInvalidMetadata, XML: true, Err: fmt.Errorf("the manifest says %s; ConfigurationExtensionPurpose is %s", p.typ, map[bool]string{true: "present", false: "absent"}[d.IsExtension()])}
	}
	external := p.typ == gen.ProjectTypeProcessing || p.typ == gen.ProjectTypeReport
	if external && !strings.HasPrefix(d.Object.El.Local, "External") {
		return &sourceread.Error{Path: p.rootDesc, Reason: gen.SourceErrorReasonInvalidMetadata, XML: true, Err: fmt.Errorf("the manifest says %s, the root element is %s", p.typ, d.Object.El.Local)}
	}
	root := &object{info: d.Object.Info, tag: d.Object.El.Local, name: d.Object.Name, desc: p.rootDesc, own: true}
	if external {
		root.rareForWrite().external = true
	}
	root.id = designer.ObjectID("", root.info.Kind, root.name)
	root.dir = p.srcDir
	if external {
		// An external object's folder is named after its descriptor file
		// when there is one; some exports put Ext and Forms right beside it.
		stem := strings.TrimSuffix(filepath.Base(p.rootDesc), filepath.Ext(p.rootDesc))
		if dir := filepath.Join(p.srcDir, stem); isDir(dir) {
			root.dir = dir
		}
	}
	p.root = root
	// Sized for the root's children, created next.
	p.objs = make(map[string]*object, 1+len(d.Object.Children))
	p.objs[root.id] = root
	p.trees = newTrees()
	p.fill(root, d)
	return nil
}

// scopeOf returns the namespace scope a descriptor's root declares. Every
// descriptor of an export declares the same few namespaces, so the scopes
// are shared rather than one map per object; they are found by a hash of
// the declarations and compared in full.
func (p *project) scopeOf(root *designer.Element) scope {
	h := uint64(14695981039346656037)
	mix := func(s string) {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * 1099511628211
		}
		h = (h ^ 0xff) * 1099511628211
	}
	for _, a := range root.Attrs {
		if isXMLNS(a) {
			mix(a.Name.Local)
			mix(a.Value)
		}
	}
	for _, e := range p.scopes[h] {
		if sameDecls(e.decls, root.Attrs) {
			return e.sc
		}
	}
	e := scopeEntry{sc: scope{}.with(root)}
	for _, a := range root.Attrs {
		if isXMLNS(a) {
			e.decls = append(e.decls, [2]string{a.Name.Local, a.Value})
		}
	}
	if p.scopes == nil {
		p.scopes = map[uint64][]scopeEntry{}
	}
	p.scopes[h] = append(p.scopes[h], e)
	return e.sc
}

type scopeEntry struct {
	decls [][2]string // the declarations, in order
	sc    scope
}

func isXMLNS(a xml.Attr) bool {
	return a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns")
}

// sameDecls reports whether attrs declare exactly decls, in order.
func sameDecls(decls [][2]string, attrs []xml.Attr) bool {
	i := 0
	for _, a := range attrs {
		if !isXMLNS(a) {
			continue
		}
		if i >= len(decls) || decls[i][0] != a.Name.Local || decls[i][1] != a.Value {
			return false
		}
		i++
	}
	return i == len(decls)
}

// load reads an object's own descriptor, once.
func (p *project) load(o *object) error {
	if o.loaded || !o.own {
		return o.err
	}
	d, err := p.r.Descriptor(o.desc)
	return p.accept(o, d, err)
}

// accept records the outcome of reading o's own descriptor.
func (p *project) accept(o *object, d *designer.Descriptor, err error) error {
	o.loaded = true
	if err != nil {
		o.err = err
		return err
	}
	if d.Object == nil {
		o.diags = d.Diagnostics
		o.err = &sourceread.Error{Path: o.desc, Reason: gen.SourceErrorReasonUnsupported, XML: true, Err: fmt.Errorf("%v", diagList(d.Diagnostics))}
		return o.err
	}
	if d.Object.Info != o.info {
		o.err = &sourceread.Error{Path: o.desc, Reason: gen.SourceErrorReasonInvalidMetadata, XML: true, Err: fmt.Errorf("declared as %s, the descriptor holds %s", o.tag, d.Object.El.Local)}
		return o.err
	}
	if d.Object.Name != o.name {
		o.err = &sourceread.Error{Path: o.desc, Reason: gen.SourceErrorReasonInvalidIdentity, Err: fmt.Errorf("declared as %q, the descriptor names %q", o.name, d.Object.Name)}
		return o.err
	}
	p.fill(o, d)
	return nil
}

// fill records what a descriptor says of o and creates its children.
func (p *project) fill(o *object, d *designer.Descriptor) {
	o.loaded = true
	o.el = nil // partial after a summary parse: element() reads the whole file
	// The namespaces matter to the presentation of properties, which reads
	// the whole descriptor again (element sets them then); only predefined
	// items, whose properties come from another file, take their owner's
	// from here.
	if d.Root != nil && hasPredefined(o) {
		o.ns = p.scopeOf(d.Root)
	}
	o.uuid = d.Object.UUID
	o.synonyms = d.Object.Synonyms
	o.diags = d.Diagnostics
	p.children(o, d.Object)
}

// children creates the objects o's ChildObjects declare. Inline ones are
// complete at once; the others wait for their own descriptors.
func (p *project) children(o *object, def *designer.Object) {
	o.children = o.children[:0]
	if o.more != nil {
		o.more.kinds = nil
	}
	parentID := o.id
	if o.parent == nil && o.info.Kind == designer.KindConfiguration {
		// Top-level objects of a configuration are not prefixed by it.
		parentID = ""
	}
	// The children of a descriptor are allocated together.
	slab := make([]object, len(def.Children))
	for i, c := range def.Children {
		ch := &slab[i]
		*ch = object{info: c.Info, tag: c.Tag, name: c.Name, parent: o}
		if c.Info == nil {
			// Named by its raw tag, which cannot collide with a machine
			// kind: those are lower case.
			ch.id = designer.ObjectID(parentID, designer.Kind(c.Tag), c.Name)
			ch.desc, ch.loaded = o.desc, true
			ch.diags = []designer.Diagnostic{{Code: designer.DiagUnknownKind, Range: &designer.Range{Start: c.Range.Start, End: c.Range.End}, Details: [][2]string{{"name", c.Tag}}}}
		} else {
			ch.id = designer.ObjectID(parentID, c.Info.Kind, c.Name)
			if c.Inline != nil {
				ch.desc, ch.loaded = o.desc, true
				ch.uuid = c.Inline.UUID
				ch.synonyms = c.Inline.Synonyms
				// Inline commands keep their module in a folder of their
				// own; an inline object without modules or children needs
				// none.
				if len(c.Info.Modules) > 0 || len(c.Inline.Children) > 0 {
					ch.dir = joinPath(o.dir, c.Info.Dir, c.Name)
				}
				p.children(ch, c.Inline)
			} else {
				ch.own = true
				folder := c.Info.Dir
				if folder == "" {
					folder = c.Tag + "s"
				}
				// The folder is the descriptor's path without ".xml": one
				// string serves both.
				ch.desc = joinPath(o.dir, folder, c.Name+".xml")
				ch.dir = ch.desc[:len(ch.desc)-len(".xml")]
			}
		}
		if strings.HasSuffix(ch.id, ch.name) {
			// The name ends the id unless it was escaped: sharing the
			// id's bytes lets the parser's copy go.
			ch.name = ch.id[len(ch.id)-len(ch.name):]
		}
		if prev, ok := p.objs[ch.id]; ok && prev != ch {
			p.forget(prev)
		}
		p.objs[ch.id] = ch
		o.children = append(o.children, ch)
	}
}

// joinPath is filepath.Join for a clean directory, a folder name and a
// file name, in one allocation when the names are plain; any other name
// goes through filepath.Join.
func joinPath(dir, folder, name string) string {
	if dir == "" || strings.HasSuffix(dir, string(filepath.Separator)) || !plainName(folder) || !plainName(name) {
		return filepath.Join(dir, folder, name)
	}
	return dir + string(filepath.Separator) + folder + string(filepath.Separator) + name
}

// plainName reports a name that is one path element as it is.
func plainName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsRune(s, filepath.Separator) && !strings.ContainsRune(s, '/')
}

// forget drops an object and everything below it from the id map.
func (p *project) forget(o *object) {
	delete(p.objs, o.id)
	dropTrees(p.trees, o)
	for _, c := range o.children {
		p.forget(c)
	}
	for _, c := range o.rare().predef {
		p.forget(c)
	}
}

// invalidate makes o read its descriptor again on next use.
func (p *project) invalidate(o *object) {
	for _, c := range o.children {
		p.forget(c)
	}
	for _, c := range o.rare().predef {
		p.forget(c)
	}
	o.children = nil
	if m := o.more; m != nil {
		// external is the root's for good; the rest is read again.
		*m = objectMore{external: m.external}
	}
	dropTrees(p.trees, o)
	if o.own {
		o.loaded, o.err, o.el, o.diags = false, nil, nil, nil
	}
}

// element returns the XML element of o. The tree of a descriptor is
// parsed once for the owner of the file and shared by every object it
// defines inline; it stays in the project's tree cache until the budget
// makes room for others, and is parsed again when asked for after that.
func (p *project) element(o *object) (*designer.Element, error) {
	if o.info == nil {
		return o.el, nil
	}
	if o.info.Kind == designer.KindPredefinedItem {
		return p.predefinedElement(o)
	}
	var chain []*object
	cur := o
	for !cur.own && cur.parent != nil {
		chain = append(chain, cur)
		cur = cur.parent
	}
	key := treeKey{owner: cur}
	if o.el != nil {
		p.trees.Touch(key)
		return o.el, nil
	}
	if cur.el == nil {
		d, err := p.r.ParseFull(cur.desc)
		if err != nil {
			return nil, err
		}
		if d.Object == nil || d.Object.Name != cur.name {
			return nil, &sourceread.Error{Path: cur.desc, Reason: reasonChanged, Err: fmt.Errorf("the descriptor no longer defines %s", cur.id)}
		}
		cur.el = d.Object.El
		cur.ns = p.scopeOf(d.Root)
		p.trees.Add(key, treecache.Bytes(d.Root))
	} else {
		p.trees.Touch(key)
	}
	el := cur.el
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		if c.el != nil {
			el = c.el
			continue
		}
		var next *designer.Element
		for _, e := range el.Child("ChildObjects").Children {
			if e.Local == c.tag && e.Child("Properties").Child("Name") != nil && strings.TrimSpace(e.Child("Properties").Child("Name").Text) == c.name {
				next = e
				break
			}
		}
		if next == nil {
			return nil, &sourceread.Error{Path: cur.desc, Reason: reasonChanged, Err: fmt.Errorf("the descriptor no longer defines %s", c.id)}
		}
		c.el = next
		el = next
	}
	return o.el, nil
}

// predefinedElement returns the element of a predefined item, reading the
// owner's Predefined.xml again when its tree was dropped from the cache;
// the file must still hold the items the tree shows.
func (p *project) predefinedElement(o *object) (*designer.Element, error) {
	owner := o.parent
	for owner != nil && owner.info != nil && owner.info.Kind == designer.KindPredefinedItem {
		owner = owner.parent
	}
	if owner == nil {
		return o.el, nil
	}
	key := treeKey{owner: owner, predef: true}
	if o.el != nil {
		p.trees.Touch(key)
		return o.el, nil
	}
	path := p.predefinedPath(owner)
	data, err := p.r.Read(path)
	if err != nil {
		return nil, err
	}
	items, _, err := designer.ParsePredefined(path, data, p.r.Limit)
	if err != nil {
		var pe *designer.ParseError
		if errors.As(err, &pe) {
			return nil, &sourceread.Error{Path: path, Reason: gen.SourceErrorReason(pe.Reason), XML: true, Err: err}
		}
		return nil, err
	}
	changed := &sourceread.Error{Path: path, Reason: reasonChanged, Err: errors.New("the predefined items changed")}
	var attach func(objs []*object, items []*designer.PredefinedItem) bool
	attach = func(objs []*object, items []*designer.PredefinedItem) bool {
		if len(objs) != len(items) {
			return false
		}
		for i, it := range items {
			if objs[i].name != it.Name {
				return false
			}
			objs[i].el = it.El
			if !attach(objs[i].children, it.Children) {
				return false
			}
		}
		return true
	}
	if !attach(owner.rare().predef, items) {
		p.trees.Evict(key)
		return nil, changed
	}
	p.trees.Add(key, predefBytes(items))
	return o.el, nil
}

// loadPredefined reads an owner's Ext/Predefined.xml, once. A missing
// file is an empty list.
func (p *project) loadPredefined(o *object) error {
	if o.rare().predefLoaded {
		return o.rare().predefErr
	}
	m := o.rareForWrite()
	m.predefLoaded = true
	path := p.predefinedPath(o)
	data, err := p.r.Read(path)
	if err != nil {
		var se *sourceread.Error
		if errors.As(err, &se) && se.Reason == gen.SourceErrorReasonMissing {
			return nil
		}
		m.predefErr = err
		return err
	}
	items, diags, err := designer.ParsePredefined(path, data, p.r.Limit)
	if err != nil {
		var pe *designer.ParseError
		if errors.As(err, &pe) {
			err = &sourceread.Error{Path: path, Reason: gen.SourceErrorReason(pe.Reason), XML: true, Err: err}
		}
		m.predefErr = err
		return err
	}
	if len(diags) > 0 && items == nil {
		m.predefErr = &sourceread.Error{Path: path, Reason: gen.SourceErrorReasonUnsupported, XML: true, Err: fmt.Errorf("%v", diagList(diags))}
		o.diags = append(o.diags, diags...)
		return m.predefErr
	}
	info, _ := designer.Lookup(designer.KindPredefinedItem)
	var add func(parent *object, parentID string, items []*designer.PredefinedItem) []*object
	add = func(parent *object, parentID string, items []*designer.PredefinedItem) []*object {
		var out []*object
		for _, it := range items {
			ch := &object{info: info, tag: "Item", name: it.Name, parent: parent, desc: path, loaded: true, el: it.El}
			if it.Description != "" {
				ch.rareForWrite().description = it.Description
			}
			ch.id = designer.ObjectID(parentID, designer.KindPredefinedItem, it.Name)
			if id, ok := it.El.Attr("id"); ok {
				ch.uuid = id
			}
			if it.Description != "" {
				ch.synonyms = []designer.Text{{Lang: "und", Content: it.Description}}
			}
			p.objs[ch.id] = ch
			ch.children = add(ch, ch.id, it.Children)
			out = append(out, ch)
		}
		return out
	}
	m.predef = add(o, o.id, items)
	o.diags = append(o.diags, diags...)
	p.trees.Add(treeKey{owner: o, predef: true}, predefBytes(items))
	return nil
}

func (p *project) predefinedPath(o *object) string {
	return filepath.Join(o.dir, "Ext", "Predefined.xml")
}

// hasPredefined reports whether o's kind shows predefined data.
func hasPredefined(o *object) bool {
	for _, c := range o.collections() {
		if c == designer.KindPredefinedItem {
			return true
		}
	}
	return false
}

// moduleRoles returns the roles whose BSL file exists, in schema order;
// binary-only modules are not shown. The answer is kept until o changes.
func (p *project) moduleRoles(o *object) []designer.ModuleRole {
	if o.info == nil || o.dir == "" || len(o.info.Modules) == 0 && !o.rare().external {
		// No modules, and nothing to keep: most objects are leaves.
		return nil
	}
	if o.rare().modsDone {
		return o.rare().modules
	}
	m := o.rareForWrite()
	m.modsDone = true
	m.modules = nil
	roles := o.info.Modules
	if m.external {
		// The manager module belongs to configuration objects only.
		roles = []designer.ModuleRole{designer.RoleObject}
	}
	for _, role := range roles {
		if p.r.Exists(p.modulePath(o, role)) {
			m.modules = append(m.modules, role)
		}
	}
	return m.modules
}

func (p *project) modulePath(o *object, role designer.ModuleRole) string {
	if o.info != nil && (o.info.Kind == designer.KindForm || o.info.Kind == designer.KindCommonForm) {
		return filepath.Join(o.dir, "Ext", "Form", designer.ModuleFile(role))
	}
	return filepath.Join(o.dir, "Ext", designer.ModuleFile(role))
}

func diagList(ds []designer.Diagnostic) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, d.String())
	}
	return strings.Join(parts, "; ")
}

// TreeBudget is the most memory, in bytes as treecache.Bytes estimates
// it, that a project keeps in parsed element trees: the whole descriptors
// read for properties and the predefined data of their owners.
const TreeBudget = 32 << 20

// treeKey is a tree of the project's cache: an owner of a descriptor
// file, whose own element and those of its inline descendants point into
// one tree, or (predef) its predefined items, which point into the tree
// of its Predefined.xml.
type treeKey struct {
	owner  *object
	predef bool
}

func newTrees() *treecache.Cache[treeKey] { return treecache.New(TreeBudget, evictTree) }

// predefBytes is what the tree of a Predefined.xml weighs in the budget:
// the trees of its top-level items (each holds its children).
func predefBytes(items []*designer.PredefinedItem) int {
	n := 0
	for _, it := range items {
		n += treecache.Bytes(it.El)
	}
	return n
}

// dropTrees forgets both trees of an owner.
func dropTrees(t *treecache.Cache[treeKey], o *object) {
	t.Drop(treeKey{owner: o})
	t.Drop(treeKey{owner: o, predef: true})
}

// evictTree drops every pointer into an evicted tree.
func evictTree(k treeKey) {
	if k.predef {
		var clear func(items []*object)
		clear = func(items []*object) {
			for _, it := range items {
				it.el = nil
				clear(it.children)
			}
		}
		clear(k.owner.rare().predef)
		return
	}
	var clear func(o *object)
	clear = func(o *object) {
		o.el = nil
		for _, c := range o.children {
			if !c.own {
				clear(c)
			}
		}
	}
	clear(k.owner)
}
