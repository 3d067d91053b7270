package metadata

import (
	"encoding/json"
	"os"

	"github.com/contractkit/contractkit/designer"
	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/runtime/genrt"
)

func isDir(path string) bool { st, err := os.Stat(path); return err == nil && st.IsDir() }

// Collection keys of the virtual groups: the wire tags of their Collection
// variants, which also name their labels (tree-collection-<key>).
const (
	groupModules     = gen.CollectionTagModules
	groupCommon      = gen.CollectionTagCommon
	groupUnsupported = gen.CollectionTagUnsupported
)

// group is a virtual collection node: an owner and which group.
type group struct {
	owner *object
	key   string        // groupModules, groupCommon, groupUnsupported, or "" for a kind
	kind  designer.Kind // the kind of a metadata collection
}

func (g group) id() gen.CollectionNodeID {
	var c gen.Collection
	switch g.key {
	case groupModules:
		c = gen.CollectionModules{}
	case groupCommon:
		c = gen.CollectionCommon{}
	case groupUnsupported:
		c = gen.CollectionUnsupported{}
	default:
		c = gen.MetadataCollection{MetadataKind: gen.MetadataKind(g.kind)}
	}
	return gen.CollectionNodeID{Owner: gen.ObjectID(g.owner.id), Collection: c}
}

func (g group) labelKey() string {
	if g.key != "" {
		return "tree-collection-" + g.key
	}
	return "tree-collection-" + string(g.kind)
}

func (g group) caption() designer.Caption {
	switch g.key {
	case groupModules:
		return designer.ModulesLabel
	case groupCommon:
		return designer.CommonLabel
	case groupUnsupported:
		return designer.UnsupportedLabel
	}
	info, _ := designer.Lookup(g.kind)
	return info.Plural
}

func caption(c designer.Caption) gen.Caption { return gen.Caption{RuRU: c.RU, EnUS: c.EN} }

// isRootConfig reports whether o is a configuration or extension root,
// whose children are the Configurator's root sections.
func isRootConfig(o *object) bool {
	return o.parent == nil && o.info != nil && o.info.Kind == designer.KindConfiguration
}

// treeParent returns the node an object hangs under in the tree.
func (p *project) treeParent(o *object) gen.NodeID {
	if o.parent == nil {
		return nil
	}
	owner := o.parent
	switch {
	case o.unsupported():
		return group{owner: owner, key: groupUnsupported}.id()
	case o.info.Kind == designer.KindPredefinedItem:
		if owner.info.Kind == designer.KindPredefinedItem {
			return gen.ObjectNodeID{ObjectID: gen.ObjectID(owner.id)}
		}
		return group{owner: owner, kind: designer.KindPredefinedItem}.id()
	case owner.info.Direct:
		return gen.ObjectNodeID{ObjectID: gen.ObjectID(owner.id)}
	}
	return group{owner: owner, kind: o.info.Kind}.id()
}

// groupParent returns the node a group hangs under.
func groupParent(g group) gen.NodeID {
	if isRootConfig(g.owner) && g.key == "" {
		pl, _ := designer.RootPlacement(g.kind)
		if pl.InCommon {
			return group{owner: g.owner, key: groupCommon}.id()
		}
		if pl.Under != "" {
			return group{owner: g.owner, kind: pl.Under}.id()
		}
	}
	return gen.ObjectNodeID{ObjectID: gen.ObjectID(g.owner.id)}
}

// isRootSection reports a group directly under a configuration root.
func isRootSection(g group) bool {
	if !isRootConfig(g.owner) || g.key == groupModules {
		return false
	}
	if g.key != "" {
		return true
	}
	pl, _ := designer.RootPlacement(g.kind)
	return !pl.InCommon && pl.Under == ""
}

// objectNode builds the node of an object, with the state that is known
// without reading more than needed: a leaf kind is empty without its XML
// being read, unless BSL modules exist; an object whose descriptor has
// not been read is unloaded.
func (p *project) objectNode(o *object) gen.Node {
	n := gen.Node{
		ID:          gen.ObjectNodeID{ObjectID: gen.ObjectID(o.id)},
		Parent:      p.treeParent(o),
		Label:       gen.NameLabel{Text: o.name},
		Diagnostics: diagnostics(o.diags),
	}
	if o.info != nil && !o.unsupported() {
		n.MetadataKind = genrt.Some(gen.MetadataKind(o.info.Kind))
	}
	n.State = p.objectState(o)
	return n
}

func (p *project) objectState(o *object) gen.NodeState {
	switch {
	case o.info == nil || o.unsupported():
		return gen.NodeStateEmpty
	case o.err != nil:
		return gen.NodeStateError
	case o.info.Kind == designer.KindPredefinedItem:
		return nonEmpty(len(o.children) > 0)
	}
	hasCollections := len(o.collections()) > 0 || o.info.Unsupported
	if !o.loaded {
		if !hasCollections && !hasPredefined(o) {
			if len(p.moduleRoles(o)) > 0 {
				return gen.NodeStateUnloaded
			}
			return gen.NodeStateEmpty
		}
		return gen.NodeStateUnloaded
	}
	kids, err := p.childGroups(o, true)
	if err != nil {
		return gen.NodeStateError
	}
	return nonEmpty(len(kids) > 0)
}

func nonEmpty(b bool) gen.NodeState {
	if b {
		return gen.NodeStateNonEmpty
	}
	return gen.NodeStateEmpty
}

// entry is one child of a node: an object, a group or a module.
type entry struct {
	obj    *object
	group  *group
	module designer.ModuleRole
	owner  *object // of a module
}

// childGroups lists an object's children in Configurator order: the
// modules group first, then its collections (or its children directly),
// then the unsupported group.
func (p *project) childGroups(o *object, hideEmpty bool) ([]entry, error) {
	if err := p.load(o); err != nil {
		return nil, err
	}
	var out []entry
	if o.info == nil || o.unsupported() {
		// Not read as metadata: shown, never expanded.
		return out, nil
	}
	if len(p.moduleRoles(o)) > 0 {
		out = append(out, entry{group: &group{owner: o, key: groupModules}})
	}
	switch {
	case isRootConfig(o):
		for _, s := range designer.RootOrder {
			var g group
			if s.Kind == "" {
				g = group{owner: o, key: groupCommon}
			} else {
				g = group{owner: o, kind: s.Kind}
			}
			if hideEmpty && p.groupEmpty(g) {
				continue
			}
			out = append(out, entry{group: &g})
		}
	case o.info.Kind == designer.KindPredefinedItem:
		for _, c := range o.children {
			out = append(out, entry{obj: c})
		}
	case o.info.Direct:
		for _, kind := range o.collections() {
			for _, c := range o.children {
				if c.info != nil && c.info.Kind == kind && !c.unsupported() {
					out = append(out, entry{obj: c})
				}
			}
		}
	default:
		for _, kind := range o.collections() {
			g := group{owner: o, kind: kind}
			out = append(out, entry{group: &g})
		}
	}
	for _, c := range o.children {
		if c.unsupported() {
			out = append(out, entry{group: &group{owner: o, key: groupUnsupported}})
			break
		}
	}
	return out, nil
}

// groupChildren lists what a group holds, reading the owner's
// descriptor if that has not happened yet.
func (p *project) groupChildren(g group) ([]entry, error) {
	if err := p.load(g.owner); err != nil {
		return nil, err
	}
	var out []entry
	switch g.key {
	case groupModules:
		for _, role := range p.moduleRoles(g.owner) {
			out = append(out, entry{module: role, owner: g.owner})
		}
	case groupCommon:
		for _, s := range designer.RootOrder {
			if s.Kind == "" {
				for _, k := range s.Common {
					sub := group{owner: g.owner, kind: k}
					out = append(out, entry{group: &sub})
				}
			}
		}
	case groupUnsupported:
		for _, c := range g.owner.children {
			if c.unsupported() {
				out = append(out, entry{obj: c})
			}
		}
	default:
		if g.kind == designer.KindPredefinedItem {
			if err := p.loadPredefined(g.owner); err != nil {
				return nil, err
			}
			for _, c := range g.owner.rare().predef {
				out = append(out, entry{obj: c})
			}
			return out, nil
		}
		if isRootConfig(g.owner) {
			for _, s := range designer.RootOrder {
				if s.Kind == g.kind {
					for _, n := range s.Nested {
						sub := group{owner: g.owner, kind: n}
						out = append(out, entry{group: &sub})
					}
				}
			}
		}
		for _, c := range g.owner.children {
			if c.info != nil && c.info.Kind == g.kind && !c.unsupported() {
				out = append(out, entry{obj: c})
			}
		}
	}
	return out, nil
}

// groupEmpty reports a group proven to hold nothing, nested groups
// included; the predefined group is not proven until its file is read.
func (p *project) groupEmpty(g group) bool {
	if g.kind == designer.KindPredefinedItem && !g.owner.rare().predefLoaded {
		return false
	}
	if g.key == "" && g.kind != designer.KindPredefinedItem {
		// A collection of a kind: one object of it is enough, without
		// listing them all (a root of a large configuration has tens of
		// thousands of children and dozens of sections).
		if err := p.load(g.owner); err != nil {
			return false
		}
		if kindCount(g.owner)[g.kind] > 0 {
			return false
		}
		if isRootConfig(g.owner) {
			for _, s := range designer.RootOrder {
				if s.Kind == g.kind {
					for _, n := range s.Nested {
						if !p.groupEmpty(group{owner: g.owner, kind: n}) {
							return false
						}
					}
				}
			}
		}
		return true
	}
	kids, err := p.groupChildren(g)
	if err != nil {
		return false
	}
	for _, k := range kids {
		if k.group == nil || !p.groupEmpty(*k.group) {
			return false
		}
	}
	return true
}

// kindCount counts an object's children the tree shows, by kind; the
// count is kept until the children change.
func kindCount(o *object) map[designer.Kind]int {
	if o.rare().kinds == nil {
		m := o.rareForWrite()
		m.kinds = map[designer.Kind]int{}
		for _, c := range o.children {
			if c.info != nil && !c.unsupported() {
				m.kinds[c.info.Kind]++
			}
		}
	}
	return o.rare().kinds
}

func (p *project) groupState(g group) gen.NodeState {
	if g.kind == designer.KindPredefinedItem {
		if !g.owner.rare().predefLoaded {
			return gen.NodeStateUnloaded
		}
		if g.owner.rare().predefErr != nil {
			return gen.NodeStateError
		}
	}
	return nonEmpty(!p.groupEmpty(g))
}

// node builds the node of a tree entry.
func (p *project) node(e entry) gen.Node {
	switch {
	case e.obj != nil:
		return p.objectNode(e.obj)
	case e.group != nil:
		g := *e.group
		return gen.Node{
			ID: g.id(), Parent: groupParent(g),
			Label:       gen.KeyLabel{Key: g.labelKey(), Translations: caption(g.caption())},
			State:       p.groupState(g),
			RootSection: isRootSection(g),
			// Groups and modules have no metadata kind of their own: the
			// contract sends null (their node id holds what they are).
			MetadataKind: genrt.NullOf[gen.MetadataKind](),
			Diagnostics:  []gen.Diagnostic{},
		}
	default:
		return gen.Node{
			ID:           gen.ModuleNodeID{Owner: gen.ObjectID(e.owner.id), Role: string(e.module)},
			Parent:       group{owner: e.owner, key: groupModules}.id(),
			Label:        gen.KeyLabel{Key: "tree-module-" + string(e.module), Translations: caption(designer.ModuleLabels[e.module])},
			State:        gen.NodeStateEmpty,
			MetadataKind: genrt.NullOf[gen.MetadataKind](),
			Diagnostics:  []gen.Diagnostic{},
		}
	}
}

// ancestry returns the path from the root to an object's node, groups
// included, the node itself last.
func (p *project) ancestry(o *object) []gen.NodeID {
	var rev []gen.NodeID
	for cur := o; cur != nil; cur = cur.parent {
		rev = append(rev, gen.ObjectNodeID{ObjectID: gen.ObjectID(cur.id)})
		parent := p.treeParent(cur)
		for parent != nil {
			cn, ok := parent.(gen.CollectionNodeID)
			if !ok {
				break
			}
			rev = append(rev, cn)
			parent = p.collectionParent(cn)
		}
	}
	out := make([]gen.NodeID, len(rev))
	for i := range rev {
		out[i] = rev[len(rev)-1-i]
	}
	return out
}

// collectionParent returns the parent of a collection node that
// treeParent produced.
func (p *project) collectionParent(cn gen.CollectionNodeID) gen.NodeID {
	g, ok := p.groupOf(cn)
	if !ok {
		return nil
	}
	return groupParent(g)
}

// groupOf resolves a collection node id to a group of a known owner.
func (p *project) groupOf(cn gen.CollectionNodeID) (group, bool) {
	owner, ok := p.objs[string(cn.Owner)]
	if !ok {
		return group{}, false
	}
	switch c := cn.Collection.(type) {
	case gen.CollectionModules:
		return group{owner: owner, key: groupModules}, true
	case gen.CollectionCommon:
		return group{owner: owner, key: groupCommon}, isRootConfig(owner)
	case gen.CollectionUnsupported:
		return group{owner: owner, key: groupUnsupported}, true
	case gen.MetadataCollection:
		kind := designer.Kind(c.MetadataKind)
		if _, known := designer.Lookup(kind); !known {
			return group{}, false
		}
		if isRootConfig(owner) {
			_, ok := designer.RootPlacement(kind)
			return group{owner: owner, kind: kind}, ok
		}
		return group{owner: owner, kind: kind}, owner.holds(kind) && owner.info != nil && !owner.info.Direct
	}
	return group{}, false
}

// diagnostics converts reader diagnostics to DTOs.
func diagnostics(ds []designer.Diagnostic) []gen.Diagnostic {
	out := make([]gen.Diagnostic, 0, len(ds))
	for _, d := range ds {
		out = append(out, diagnostic(d))
	}
	return out
}

func diagnostic(d designer.Diagnostic) gen.Diagnostic {
	dto := gen.Diagnostic{Code: gen.DiagnosticCode(d.Code)}
	if d.Range != nil {
		dto.Range = &gen.Range{Start: d.Range.Start, End: d.Range.End}
	}
	details := map[string]string{}
	for _, kv := range d.Details {
		details[kv[0]] = kv[1]
	}
	raw, _ := json.Marshal(details)
	dto.Details = raw
	return dto
}
