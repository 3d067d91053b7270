package metadata

// Vendor support data (API 1.2 metadata/support, 1.3
// metadata/supportFiles, metadata/changed.supportUnchanged): which
// objects and files the vendor's rules in Ext/ParentConfigurations.bin
// lock. Everything here is derived from bytes on disk, kept in memory
// per project keyed by the SHA-256 of those bytes, checked again on every
// answer and never written to disk.

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/contractkit/contractkit/designer"
	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata/sourceread"
	"github.com/contractkit/contractkit/ide/metadata/supportverdict"
	"github.com/contractkit/contractkit/internal/errdetail"
)

// supportState is one project's support data in memory.
type supportState struct {
	// The support file as last read: its bytes' SHA-256 ("" when the file
	// is absent) and what they gave.
	read    bool
	sum     string
	raw     []byte // the bytes, compared whole on the next read
	absent  bool
	parsed  *designer.Support
	readErr error

	// facts of descriptors by path, valid for the bytes whose SHA-256
	// they carry.
	facts map[string]*supportverdict.Facts
	// inv is the project's objects for metadata/support; nil until asked
	// for, and again after a change that may have moved them.
	inv *inventory
	// seen holds source-relative files seen to exist, so that a later
	// event about them can be proved to leave ownership alone.
	seen map[string]bool
}

func (p *project) supportState() *supportState {
	if p.sup == nil {
		p.sup = &supportState{facts: map[string]*supportverdict.Facts{}, seen: map[string]bool{}}
	}
	return p.sup
}

// supportPath is the support file of a project.
func (p *project) supportPath() string {
	return filepath.Join(p.srcDir, filepath.FromSlash(designer.SupportFile))
}

// rules reads the support file's current bytes and returns what they
// say: nil with no error when there is no file, an error when it cannot
// be read. A parse is reused while the bytes stay the same.
func (st *supportState) rules(p *project) (*designer.Support, error) {
	path := p.supportPath()
	data, err := p.r.Read(path)
	if err != nil {
		var se *sourceread.Error
		if errors.As(err, &se) && se.Reason == gen.SourceErrorReasonMissing {
			st.read, st.sum, st.raw, st.absent, st.parsed, st.readErr = true, "", nil, true, nil, nil
			return nil, nil
		}
		st.read, st.sum, st.raw, st.absent, st.parsed, st.readErr = true, "", nil, false, nil, err
		return nil, err
	}
	// The bytes themselves decide whether the last parse still holds: a
	// comparison is cheaper than a hash, and as exact.
	if st.read && !st.absent && bytes.Equal(st.raw, data) {
		return st.parsed, st.readErr
	}
	lim := designer.DefaultSupportLimits
	lim.MaxBytes = gen.MaxSupportFileBytes
	parsed, perr := designer.ParseSupport(path, data, lim)
	st.read, st.sum, st.raw, st.absent, st.parsed, st.readErr = true, sha(data), data, false, parsed, perr
	if perr != nil {
		return nil, perr
	}
	return parsed, nil
}

// rulesDiagnostics reports a support file that could not be read.
func (p *project) rulesDiagnostics(err error) []gen.Diagnostic {
	if err == nil {
		return []gen.Diagnostic{}
	}
	rel, _ := p.rel(p.supportPath())
	dg := designer.Diagnostic{Code: designer.DiagUnsupportedValue, Details: [][2]string{{"path", filepath.ToSlash(rel)}}}
	var pe *designer.ParseError
	var se *sourceread.Error
	switch {
	case errors.As(err, &pe):
		dg.Details = append(dg.Details, [2]string{"reason", pe.Reason})
		if pe.Offset >= 0 {
			dg.Range = &designer.Range{Start: pe.Offset, End: pe.Offset}
		}
	case errors.As(err, &se):
		dg.Details = append(dg.Details, [2]string{"reason", string(se.Reason)})
	}
	return []gen.Diagnostic{diagnostic(dg)}
}

// symlinked reports whether a path below the sources, or a directory on
// the way to it, is a symbolic link. dirs keeps the answers for
// directories during one request.
func (p *project) symlinked(path string, dirs map[string]bool) bool {
	linked, _ := p.pathState(path, dirs)
	return linked
}

// pathState is symlinked, and whether the path is an existing regular
// file, from one Lstat per path and per new directory.
func (p *project) pathState(path string, dirs map[string]bool) (linked, regular bool) {
	rel, ok := p.rel(path)
	if !ok {
		return true, false
	}
	dir := p.srcDir
	parts := strings.Split(rel, string(filepath.Separator))
	for _, part := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, part)
		linked, seen := dirs[dir]
		if !seen {
			st, err := os.Lstat(dir)
			linked = err == nil && st.Mode()&os.ModeSymlink != 0
			dirs[dir] = linked
		}
		if linked {
			return true, false
		}
	}
	st, err := os.Lstat(path)
	if err != nil {
		return false, false
	}
	return st.Mode()&os.ModeSymlink != 0, st.Mode().IsRegular()
}

// ---- metadata/support: the inventory of the project's objects ----

// inventory lists every object of the tree with what support needs,
// built once by a walk and kept until a change may have moved objects.
type inventory struct {
	entries []invEntry        // in ObjectId order
	byID    map[string]int    // ObjectId → index
	uuids   map[string]int    // uuid → how many objects carry it
	descOf  map[string]string // descriptor path → its SHA-256 when the walk read it
}

type invEntry struct {
	id, uuid string
	parent   string // the metadata owner's id; "" for the root
	top      bool   // the root or one of its direct children
	predef   bool
	desc     string // the descriptor that declares it (its own or its owner's)
	failure  gen.SupportReason
	files    []string // absolute paths of its existing files
}

// inventory returns the project's objects, walking the tree when needed.
func (st *supportState) inventory(p *project) *inventory {
	if st.inv != nil {
		return st.inv
	}
	inv := &inventory{byID: map[string]int{}, uuids: map[string]int{}, descOf: map[string]string{}}
	var visit func(o *object, top bool)
	visit = func(o *object, top bool) {
		e := invEntry{id: o.id, top: top, desc: o.desc, uuid: strings.ToLower(o.uuid)}
		if o.parent != nil {
			e.parent = o.parent.id
		}
		if o.info != nil && o.info.Kind == designer.KindPredefinedItem {
			e.predef = true
			owner := o.parent
			for owner.parent != nil && owner.info != nil && owner.info.Kind == designer.KindPredefinedItem {
				owner = owner.parent
			}
			e.desc = p.predefinedPath(owner)
		}
		if o.own {
			if f := st.ownFacts(p, o, inv); f == nil {
				e.failure = gen.SupportReasonDescriptorUnreadable
			} else if f.Invalid || f.Kind != o.kind() || f.Name != o.name {
				e.failure = gen.SupportReasonSourceChanged
			} else {
				e.uuid = f.UUID
			}
		} else if !e.predef && o.info != nil && o.parent != nil {
			// An inline object: its uuid as its owner's descriptor says now.
			owner := o.parent
			for !owner.own && owner.parent != nil {
				owner = owner.parent
			}
			if f := st.facts[owner.desc]; f != nil && inv.descOf[owner.desc] == f.Sum {
				u, ok := f.Inline[strings.TrimPrefix(o.id, owner.id+"/")]
				if !ok {
					e.failure = gen.SupportReasonSourceChanged
				}
				e.uuid = u
			}
		}
		if e.failure == "" && o.err != nil {
			e.failure = gen.SupportReasonDescriptorUnreadable
		}
		if o.own || o.info == nil || o.info.Kind != designer.KindPredefinedItem {
			e.files = p.objectFiles(o)
		}
		inv.byID[e.id] = len(inv.entries)
		inv.entries = append(inv.entries, e)
		if e.uuid != "" && !e.predef {
			inv.uuids[e.uuid]++
		}
		if e.failure != "" || o.info == nil || o.unsupported() {
			return
		}
		for _, c := range o.children {
			visit(c, o == p.root)
		}
		if hasPredefined(o) && p.loadPredefined(o) == nil {
			// Nested items are the children of their parent item.
			for _, it := range o.rare().predef {
				visit(it, false)
			}
		}
	}
	visit(p.root, true)
	sort.Slice(inv.entries, func(i, j int) bool { return inv.entries[i].id < inv.entries[j].id })
	for i, e := range inv.entries {
		inv.byID[e.id] = i
	}
	st.inv = inv
	return inv
}

// ownFacts reads an object's own descriptor once for the inventory,
// filling the tree from the same bytes when it was not read yet.
func (st *supportState) ownFacts(p *project, o *object, inv *inventory) *supportverdict.Facts {
	data, err := p.r.Read(o.desc)
	if err != nil {
		if !o.loaded {
			p.accept(o, nil, err)
		}
		return nil
	}
	sum := sha(data)
	inv.descOf[o.desc] = sum
	if f := st.facts[o.desc]; f != nil && f.Sum == sum && o.loaded {
		return f
	}
	d, err := p.r.ParseBytes(o.desc, data)
	if !o.loaded && o != p.root {
		if aerr := p.accept(o, d, err); aerr != nil {
			return nil
		}
	}
	if err != nil {
		return nil
	}
	f := supportverdict.FactsOf(sum, d)
	st.facts[o.desc] = f
	return f
}

// objectFiles lists the existing files of an object: its own descriptor,
// its modules and its data files (form, template, picture, predefined).
func (p *project) objectFiles(o *object) []string {
	var out []string
	if o.own {
		out = append(out, o.desc)
	}
	for _, role := range p.moduleRoles(o) {
		out = append(out, p.modulePath(o, role))
	}
	return append(out, p.payloads(o)...)
}

// chain builds the owner chain of an inventory entry.
func (inv *inventory) chain(i int) []supportverdict.Link {
	var out []supportverdict.Link
	for i >= 0 {
		e := inv.entries[i]
		out = append(out, supportverdict.Link{ID: e.id, UUID: e.uuid, Predef: e.predef, Top: e.top, Failure: e.failure,
			Ambiguous: e.uuid != "" && inv.uuids[e.uuid] > 1})
		if e.parent == "" {
			break
		}
		j, ok := inv.byID[e.parent]
		if !ok {
			break
		}
		i = j
	}
	return out
}

// Support answers metadata/support: a page of the project's objects in
// ObjectId order, with the files of the read-only ones.
func (b *Backend) Support(c gen.SupportParams) (gen.SupportResult, error) {
	p, err := b.at(c.SessionID, c.ProjectID, c.Generation)
	if err != nil {
		return gen.SupportResult{}, err
	}
	st := p.supportState()
	s, rerr := st.rules(p)
	inv := st.inventory(p)
	offset, limit := int(c.OffsetOrDefault()), int(c.LimitOrDefault())
	r := gen.SupportResult{Objects: []gen.SupportObject{}, Files: []gen.SupportFile{}, Diagnostics: p.rulesDiagnostics(rerr),
		Suppliers: []gen.SupportSupplier{}, Freshness: gen.FreshnessCurrent}
	if s != nil {
		for _, v := range s.Vendors {
			r.Suppliers = append(r.Suppliers, gen.SupportSupplier{ID: v.ID, Name: v.Name, Vendor: v.Vendor, Version: v.Version})
		}
	}
	for u, n := range inv.uuids {
		if n > 1 && s != nil && len(s.Vendors) > 0 {
			r.Diagnostics = append(r.Diagnostics, diagnostic(designer.Diagnostic{Code: designer.DiagDuplicateIdentity, Details: [][2]string{{"uuid", u}}}))
		}
	}
	sort.Slice(r.Diagnostics, func(i, j int) bool { return diagKey(r.Diagnostics[i]) < diagKey(r.Diagnostics[j]) })
	if offset < len(inv.entries) {
		end := offset + limit
		if end > len(inv.entries) {
			end = len(inv.entries)
		}
		// The page's descriptors are checked against their bytes now.
		changed := map[string]bool{}
		for _, e := range inv.entries[offset:end] {
			if _, done := changed[e.desc]; done || e.desc == "" {
				continue
			}
			want, ok := inv.descOf[e.desc]
			if !ok {
				continue
			}
			data, err := p.r.Read(e.desc)
			changed[e.desc] = err != nil || sha(data) != want
		}
		dirs := map[string]bool{}
		for i := offset; i < end; i++ {
			e := inv.entries[i]
			chain := inv.chain(i)
			for k, l := range chain {
				if ce := inv.entries[inv.byID[l.ID]]; changed[ce.desc] && !ce.predef {
					chain[k].Failure = gen.SupportReasonSourceChanged
				}
			}
			v := supportverdict.Decide(s, rerr, chain)
			if !v.Unknown && e.desc != "" && p.symlinked(e.desc, dirs) {
				v.ReadOnly, v.Reason = true, gen.SupportReasonSymlink
			}
			r.Objects = append(r.Objects, supportObject(e.id, v))
			for _, f := range e.files {
				linked := p.symlinked(f, dirs)
				if rel, ok := p.rel(f); ok {
					st.seen[rel] = true
				}
				if !v.ReadOnly && !linked {
					continue
				}
				fv := v
				if linked && !fv.Unknown {
					fv.ReadOnly, fv.Reason = true, gen.SupportReasonSymlink
				}
				r.Files = append(r.Files, p.supportFile(f, e.id, fv))
			}
		}
		if end < len(inv.entries) {
			next := int64(end)
			r.NextOffset = &next
		}
	}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(p)
	return r, nil
}

func diagKey(d gen.Diagnostic) string {
	b, _ := d.MarshalJSON()
	return string(b)
}

func supportObject(id string, v supportverdict.Verdict) gen.SupportObject {
	o := gen.SupportObject{ObjectID: gen.ObjectID(id), ReadOnly: v.ReadOnly, Unknown: v.Unknown}
	if !v.Unknown {
		m := v.Mode
		o.Mode = &m
	}
	if v.Supplier != "" {
		s := v.Supplier
		o.Supplier = &s
	}
	if v.Inherited != "" {
		in := gen.ObjectID(v.Inherited)
		o.InheritedFrom = &in
	}
	if v.Reason != "" {
		r := v.Reason
		o.Reason = &r
	}
	return o
}

func (p *project) supportFile(path, owner string, v supportverdict.Verdict) gen.SupportFile {
	rel, _ := p.rel(path)
	f := gen.SupportFile{Path: ToPath(rel), ReadOnly: v.ReadOnly, Unknown: v.Unknown}
	if owner != "" {
		id := gen.ObjectID(owner)
		f.ObjectID = &id
	}
	if v.Reason != "" {
		r := v.Reason
		f.Reason = &r
	}
	return f
}

// ---- metadata/supportFiles: owners found from paths ----

// SupportFiles answers metadata/supportFiles: for each path, in order,
// the owner found from the path and checked against the current bytes
// of the rules and of the owner chain's descriptors, without a walk.
func (b *Backend) SupportFiles(c gen.SupportFilesParams) (gen.SupportFilesResult, error) {
	p, err := b.at(c.SessionID, c.ProjectID, c.Generation)
	if err != nil {
		return gen.SupportFilesResult{}, err
	}
	rels := make([]string, len(c.Paths))
	for i, pp := range c.Paths {
		rel, err := FromPath(pp)
		if err == nil {
			err = checkRelative(rel)
		}
		if err != nil {
			return gen.SupportFilesResult{}, invalidParams("/paths/"+strconv.Itoa(i), err.Error())
		}
		rels[i] = filepath.Clean(filepath.FromSlash(rel))
	}
	st := p.supportState()
	s, rerr := st.rules(p)
	r := gen.SupportFilesResult{Objects: []gen.SupportObject{}, Files: make([]gen.SupportFile, 0, len(rels)),
		Diagnostics: p.rulesDiagnostics(rerr), Freshness: gen.FreshnessCurrent}
	q := &fileQuery{p: p, st: st, sums: map[string]*supportverdict.Facts{}, dirs: map[string]bool{}}
	owners := map[string]bool{}
	for _, rel := range rels {
		path := filepath.Join(p.srcDir, rel)
		chain, desc := q.chainOf(rel)
		v := supportverdict.Decide(s, rerr, chain)
		owner := chain[0].ID
		linked, regular := p.pathState(path, q.dirs)
		if !v.Unknown && linked {
			v.ReadOnly, v.Reason = true, gen.SupportReasonSymlink
		}
		if regular {
			st.seen[rel] = true
		}
		r.Files = append(r.Files, p.supportFile(path, owner, v))
		if owner != "" && !owners[owner] {
			owners[owner] = true
			ov := supportverdict.Decide(s, rerr, chain)
			if !ov.Unknown {
				if p.symlinked(desc, q.dirs) {
					ov.ReadOnly, ov.Reason = true, gen.SupportReasonSymlink
				}
			}
			r.Objects = append(r.Objects, supportObject(owner, ov))
		}
	}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(p)
	return r, nil
}

// checkRelative refuses what supportFiles may not name.
func checkRelative(rel string) error {
	switch {
	case rel == "":
		return errors.New("an empty path")
	case filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`):
		return errors.New("an absolute path")
	}
	for _, seg := range strings.FieldsFunc(rel, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return errors.New("a path with a .. segment")
		}
	}
	if filepath.Clean(filepath.FromSlash(rel)) == "." {
		return errors.New("a path that names the source directory")
	}
	return nil
}

// fileQuery is one supportFiles request: descriptors read for it are
// read once.
type fileQuery struct {
	p    *project
	st   *supportState
	sums map[string]*supportverdict.Facts // by path, for this request
	dirs map[string]bool
}

// facts returns a descriptor's facts for its current bytes; nil when it
// cannot be read.
func (q *fileQuery) facts(path string) *supportverdict.Facts {
	if f, ok := q.sums[path]; ok {
		return f
	}
	var out *supportverdict.Facts
	if data, err := q.p.r.Read(path); err == nil {
		sum := sha(data)
		if f := q.st.facts[path]; f != nil && f.Sum == sum {
			out = f
		} else if d, err := q.p.r.ParseBytes(path, data); err == nil {
			out = supportverdict.FactsOf(sum, d)
			q.st.facts[path] = out
		}
	}
	q.sums[path] = out
	return out
}

// chainOf finds the owner chain of a source-relative path from the path
// alone and the descriptors on the way, and the descriptor that holds the
// owner: the root for the root's files, a top-level object for its
// descriptor and folder, a form or template for its own, a command for
// its module, an owner for its Predefined.xml.
func (q *fileQuery) chainOf(rel string) ([]supportverdict.Link, string) {
	p := q.p
	parts := strings.Split(rel, string(filepath.Separator))
	rootFacts := q.facts(p.rootDesc)
	if rootFacts == nil {
		return []supportverdict.Link{{ID: p.root.id, Top: true, Failure: gen.SupportReasonDescriptorUnreadable}}, p.rootDesc
	}
	rootLink := supportverdict.Link{ID: p.root.id, UUID: rootFacts.UUID, Top: true}
	if rootFacts.Invalid {
		rootLink.Failure = gen.SupportReasonSourceChanged
	}
	unknownAt := func() ([]supportverdict.Link, string) {
		return []supportverdict.Link{{Failure: gen.SupportReasonUnknownLocation}}, ""
	}
	if p.root.rare().external {
		// An external object's files all belong to it.
		return []supportverdict.Link{rootLink}, p.rootDesc
	}
	if len(parts) == 1 {
		if rel == filepath.Base(p.rootDesc) {
			return []supportverdict.Link{rootLink}, p.rootDesc
		}
		return unknownAt()
	}
	if parts[0] == "Ext" {
		return []supportverdict.Link{rootLink}, p.rootDesc
	}
	info, ok := designer.KindOfRootDir(parts[0])
	if !ok {
		return unknownAt()
	}
	name := parts[1]
	if len(parts) == 2 {
		if !strings.HasSuffix(name, ".xml") {
			return unknownAt()
		}
		name = strings.TrimSuffix(name, ".xml")
	}
	topID := designer.ObjectID("", info.Kind, name)
	topDesc := filepath.Join(p.srcDir, parts[0], name+".xml")
	top := supportverdict.Link{ID: topID, Top: true}
	seg := designer.ObjectID("", info.Kind, name)
	switch {
	case rootFacts.Dups[seg]:
		top.Ambiguous = true
	case !rootFacts.Declared[seg]:
		top.Failure = gen.SupportReasonNotDeclared
	}
	if top.Failure == "" {
		if f := q.facts(topDesc); f == nil {
			top.Failure = gen.SupportReasonDescriptorUnreadable
		} else if f.Invalid || f.Kind != info.Kind || f.Name != name {
			top.Failure = gen.SupportReasonNotDeclared
		} else {
			top.UUID = f.UUID
		}
	}
	chain := []supportverdict.Link{top, rootLink}
	if len(parts) <= 2 || parts[2] == "Ext" {
		// The descriptor, or a module, Predefined.xml or another data
		// file of the top-level object.
		return chain, topDesc
	}
	if len(parts) < 4 {
		return unknownAt()
	}
	// A nested object with a folder of its own: Forms/F, Templates/T,
	// Commands/C, Recalculations/R.
	var child *designer.KindInfo
	for _, k := range info.Collections {
		if ci, ok := designer.Lookup(k); ok && ci.Dir == parts[2] {
			child = ci
			break
		}
	}
	if child == nil {
		return unknownAt()
	}
	cname := parts[3]
	if len(parts) == 4 {
		if !strings.HasSuffix(cname, ".xml") {
			return unknownAt()
		}
		cname = strings.TrimSuffix(cname, ".xml")
	} else if parts[4] != "Ext" {
		return unknownAt()
	}
	cseg := designer.ObjectID("", child.Kind, cname)
	nested := supportverdict.Link{ID: designer.ObjectID(topID, child.Kind, cname)}
	tf := q.facts(topDesc)
	switch {
	case top.Failure != "":
		nested.Failure = top.Failure
	case tf.Dups[cseg]:
		nested.Ambiguous = true
	case tf.InlineHas(cseg):
		// An inline object (a command): its uuid is in the owner's
		// descriptor; its folder holds only its module.
		nested.UUID = tf.Inline[cseg]
		return append([]supportverdict.Link{nested}, chain...), topDesc
	case !tf.Declared[cseg]:
		nested.Failure = gen.SupportReasonNotDeclared
	}
	nestedDesc := filepath.Join(p.srcDir, parts[0], parts[1], parts[2], cname+".xml")
	if nested.Failure == "" && !nested.Ambiguous {
		if f := q.facts(nestedDesc); f == nil {
			nested.Failure = gen.SupportReasonDescriptorUnreadable
		} else if f.Invalid || f.Kind != child.Kind || f.Name != cname {
			nested.Failure = gen.SupportReasonNotDeclared
		} else {
			nested.UUID = f.UUID
		}
	}
	return append([]supportverdict.Link{nested}, chain...), nestedDesc
}

// ---- metadata/changed.supportUnchanged ----

// unchanged reports whether a batch of file events provably left support
// data and file ownership alone: every path is a module or data file that
// was seen to exist and still does. quiet is set when the batch names
// only the support file and its bytes are those last read: then nothing
// changed at all.
func (st *supportState) unchanged(p *project, rels []string) (unchanged, quiet bool) {
	if len(rels) == 0 {
		return false, false
	}
	binRel, _ := p.rel(p.supportPath())
	quiet = true
	unchanged = true
	for _, rel := range rels {
		if rel == binRel {
			prev, known := st.sum, st.read && !st.absent && st.readErr == nil
			if _, err := st.rules(p); err != nil || !known || st.absent || st.sum != prev {
				unchanged, quiet = false, false
			}
			continue
		}
		quiet = false
		path := filepath.Join(p.srcDir, rel)
		if !st.seen[rel] || !p.r.Exists(path) || !contentOnly(rel) {
			unchanged = false
		}
	}
	return unchanged, quiet
}

// contentOnly reports files whose content decides nothing about objects
// or their ownership: modules and the data files of forms, templates and
// pictures. Descriptors and Predefined.xml declare objects.
func contentOnly(rel string) bool {
	base := filepath.Base(rel)
	if strings.HasSuffix(base, ".bsl") {
		return true
	}
	switch base {
	case "Form.xml", "Picture.xml", "Template.xml", "Template.txt", "Template.bin", "Template.mxl", "Template.htm", "Template.zip":
		return filepath.Base(filepath.Dir(rel)) == "Ext"
	}
	return false
}

// supportEvent runs before a batch of file events is announced: it
// decides supportUnchanged and whether the batch changed anything at
// all, and drops the inventory when objects may have moved.
func (b *Backend) supportEvent(p *project, c gen.DidChangeFilesParams) (unchanged, quiet bool) {
	st := p.supportState()
	var rels []string
	for _, pp := range c.Paths {
		rel, err := FromPath(pp)
		if err != nil {
			return false, false
		}
		rels = append(rels, filepath.Clean(filepath.FromSlash(rel)))
	}
	unchanged, quiet = st.unchanged(p, rels)
	if !unchanged && !quiet {
		st.inv = nil
	}
	return unchanged, quiet
}

// supportDropped forgets the inventory after a refresh.
func (p *project) supportDropped() {
	if p.sup != nil {
		p.sup.inv = nil
	}
}

// invalidParams is the contract's Invalid params: the table's message,
// and the failing pointer within params and the reason in its data.
func invalidParams(pointer, msg string) *gen.RPCError {
	return gen.NewError(gen.CodeInvalidParams, gen.ErrorDetail(errdetail.At(pointer, msg)))
}
