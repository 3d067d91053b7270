package metadata

import (
	"errors"
	"path/filepath"
	"strconv"
	"time"

	"github.com/contractkit/contractkit/designer"
	"github.com/contractkit/contractkit/designer/picture"
	manifest "github.com/contractkit/contractkit/designer/project"
	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata/diskcache"
	"github.com/contractkit/contractkit/ide/metadata/signedfile"
	"github.com/contractkit/contractkit/ide/metadata/sourceread"
)

// Backend holds the one session a process may have open.
type Backend struct {
	notify   func(method string, params []byte)
	sessions int // sessions opened so far: ids are never reused
	s        *session
	rr       int // the project whose turn it is to index
	// grants is what the client may use (its negotiated version, the
	// capabilities granted), as Open was given it.
	grants gen.Grants
	// HistoryDir, relative to a project's root, keeps the edit history
	// between processes (the eska property command); empty keeps it in
	// the session.
	HistoryDir string
	// progressEvery bounds how often counter changes are reported.
	progressEvery time.Duration
	// KeyDir is where the disk cache's signing key lives; empty means
	// signedfile.DefaultKeyDir.
	KeyDir string
	// Diag receives short machine codes for stderr; nil drops them.
	Diag func(code string)
	// Explain receives, for a terminal, the sentence behind a diagnostic
	// about eska's own state in the project (a link in .eska, a history
	// file dropped); nil drops it.
	Explain func(msg string)
}

type session struct {
	id       string
	projects []*project
	byID     map[string]*project
}

// New returns a backend that sends server notifications with notify.
func New(notify func(method string, params []byte)) *Backend {
	if notify == nil {
		notify = func(string, []byte) {}
	}
	return &Backend{notify: notify, progressEvery: gen.MinProgressIntervalMillis * time.Millisecond}
}

func (b *Backend) keyDir() string {
	if b.KeyDir != "" {
		return b.KeyDir
	}
	return signedfile.DefaultKeyDir()
}

// diag reports a short machine code to the server's stderr.
func (b *Backend) diag(code string) {
	if b.Diag != nil {
		b.Diag(code)
	}
}

// Open opens the projects the selection names, all or none, for a client
// with grants g (what initialize negotiated).
func (b *Backend) Open(p gen.OpenParams, g gen.Grants) (gen.SessionInfo, error) {
	if b.s != nil {
		return gen.SessionInfo{}, derr(gen.DomainErrorKindWorkspaceAlreadyOpen, gen.InvalidStateDetails{State: "open"}, nil, b.s)
	}
	fail := func(reason gen.OpenFailureReason, path string) error {
		d := gen.ProjectOpenFailedDetails{Reason: reason}
		if path != "" {
			pp := ToPath(path)
			d.Path = &pp
		}
		return derr(gen.DomainErrorKindProjectOpenFailed, d, nil, nil)
	}
	start, err := FromPath(p.Start)
	if err != nil || !filepath.IsAbs(start) {
		return gen.SessionInfo{}, fail(gen.OpenFailureReasonSelectionInvalid, "")
	}
	found, err := manifest.Open(filepath.Clean(start), p.Selection)
	if err != nil {
		var oe *manifest.OpenError
		if errors.As(err, &oe) {
			return gen.SessionInfo{}, fail(gen.OpenFailureReason(oe.Reason), oe.Path)
		}
		return gen.SessionInfo{}, fail(gen.OpenFailureReasonSourceInvalid, start)
	}
	b.sessions++
	s := &session{id: "s" + strconv.Itoa(b.sessions), byID: map[string]*project{}}
	cache := p.DiskCacheOrDefault()
	for i, f := range found {
		p, err := openProject("p"+strconv.Itoa(i+1), f.Scope.Member, string(f.Type), f.Root, f.Source, f.Descriptor)
		if err != nil {
			// Nothing is published: the session is dropped whole.
			var se *sourceread.Error
			if errors.As(err, &se) && se.Reason == gen.SourceErrorReasonMissing && se.Path == f.Source {
				return gen.SessionInfo{}, fail(gen.OpenFailureReasonSourceInvalid, f.Source)
			}
			return gen.SessionInfo{}, fail(gen.OpenFailureReasonRootInvalid, f.Descriptor)
		}
		s.projects = append(s.projects, p)
		s.byID[p.id] = p
	}
	if cache {
		// The root descriptor is always parsed; the cache serves the rest.
		for _, p := range s.projects {
			p.r.Cache = diskcache.New(p.rootDir, b.keyDir(), b.diag)
		}
	}
	b.s, b.grants = s, g
	if b.granted(gen.CapabilityPropertyEditing) {
		// What a write killed midway left behind goes before anything reads.
		for _, p := range s.projects {
			if err := p.recoverWrites(b); err != nil {
				b.diag("edit-recover")
			}
		}
	}
	return b.info(), nil
}

func (b *Backend) info() gen.SessionInfo {
	out := gen.SessionInfo{SessionID: gen.SessionID(b.s.id), Projects: []gen.ProjectInfo{}}
	for _, p := range b.s.projects {
		var scope gen.Scope = gen.ScopeStandalone{}
		if p.member != "" {
			scope = gen.MemberScope{Name: p.member}
		}
		out.Projects = append(out.Projects, gen.ProjectInfo{
			ProjectID: gen.ProjectID(p.id), Scope: scope, Type: p.typ,
			RootPath: ToPath(p.rootDir), SourcePath: ToPath(p.srcDir),
			Root:       gen.ObjectNodeID{ObjectID: gen.ObjectID(p.root.id)},
			Generation: gen.Generation(p.generation), EventSequence: gen.EventSequence(p.eventSequence),
			RequiresRefresh: p.requiresRefresh, RequiresReopen: p.requiresReopen,
		})
	}
	return out
}

func (b *Backend) session(id gen.SessionID) (*session, error) {
	if b.s == nil || b.s.id != string(id) {
		return nil, UnknownSession(id)
	}
	return b.s, nil
}

// Info answers project/info.
func (b *Backend) Info(p gen.SessionParams) (gen.SessionInfo, error) {
	if _, err := b.session(p.SessionID); err != nil {
		return gen.SessionInfo{}, err
	}
	return b.info(), nil
}

// Close ends the session; its notifications stop with it.
func (b *Backend) Close(p gen.SessionParams) error {
	if _, err := b.session(p.SessionID); err != nil {
		return err
	}
	b.Shutdown()
	return nil
}

// Shutdown closes whatever session is open.
func (b *Backend) Shutdown() {
	if b.s != nil {
		for _, p := range b.s.projects {
			p.stopPrefetch()
			if p.r.Cache != nil {
				p.r.Cache.Close()
			}
		}
	}
	b.s = nil
}

// check resolves a method's context: the session, the project, and the
// state that gates every metadata method.
type gate int

const (
	gateNormal  gate = iota
	gateRefresh      // a root refresh, allowed from resync_required
	gateStatus       // index status, allowed from resync_required
)

func (b *Backend) project(c gen.ProjectContext, g gate) (*project, error) {
	s, err := b.session(c.SessionID)
	if err != nil {
		return nil, err
	}
	p, ok := s.byID[string(c.ProjectID)]
	if !ok {
		return nil, derr(gen.DomainErrorKindUnknownProject, gen.UnknownProjectDetails{ProjectID: string(c.ProjectID)}, nil, s)
	}
	if p.exhausted {
		return nil, derr(gen.DomainErrorKindGenerationExhausted, gen.EmptyDetails{}, p, s)
	}
	if p.requiresReopen {
		return nil, derr(gen.DomainErrorKindReopenRequired, gen.ResyncDetails{Reason: "manifest_changed"}, p, s)
	}
	if p.requiresRefresh && g == gateNormal {
		return nil, derr(gen.DomainErrorKindResyncRequired, gen.ResyncDetails{Reason: p.resyncReason}, p, s)
	}
	if uint64(c.Generation) != p.generation && !(p.requiresRefresh && g != gateNormal) {
		return nil, derr(gen.DomainErrorKindStaleGeneration, gen.StaleGenerationDetails{
			Expected: gen.Generation(p.generation), Actual: c.Generation}, p, s)
	}
	return p, nil
}

// at resolves the context of an ordinary metadata method.
func (b *Backend) at(s gen.SessionID, p gen.ProjectID, g gen.Generation) (*project, error) {
	return b.project(gen.ProjectContext{SessionID: s, ProjectID: p, Generation: g}, gateNormal)
}

func (b *Backend) ctx(p *project) (gen.SessionID, gen.ProjectID, gen.Generation, gen.EventSequence) {
	return gen.SessionID(b.s.id), gen.ProjectID(p.id), gen.Generation(p.generation), gen.EventSequence(p.eventSequence)
}

// Root answers metadata/root.
func (b *Backend) Root(c gen.ProjectContext) (gen.RootResult, error) {
	p, err := b.project(c, gateNormal)
	if err != nil {
		return gen.RootResult{}, err
	}
	r := gen.RootResult{Node: p.objectNode(p.root)}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(p)
	return r, nil
}

// resolveNode finds the tree entry a NodeID names.
func (b *Backend) resolveNode(p *project, id gen.NodeID) (entry, error) {
	unknown := func() error { return derr(gen.DomainErrorKindUnknownNode, gen.UnknownNodeDetails{Node: id}, p, b.s) }
	switch n := id.(type) {
	case gen.ObjectNodeID:
		o, ok := p.objs[string(n.ObjectID)]
		if !ok {
			return entry{}, unknown()
		}
		return entry{obj: o}, nil
	case gen.CollectionNodeID:
		g, ok := p.groupOf(n)
		if !ok {
			return entry{}, unknown()
		}
		return entry{group: &g}, nil
	case gen.ModuleNodeID:
		o, ok := p.objs[string(n.Owner)]
		if !ok {
			return entry{}, unknown()
		}
		for _, r := range p.moduleRoles(o) {
			if string(r) == n.Role {
				return entry{module: r, owner: o}, nil
			}
		}
		return entry{}, unknown()
	}
	return entry{}, unknown()
}

// Children answers metadata/children.
func (b *Backend) Children(c gen.ChildrenParams) (gen.ChildrenResult, error) {
	p, err := b.at(c.SessionID, c.ProjectID, c.Generation)
	if err != nil {
		return gen.ChildrenResult{}, err
	}
	e, err := b.resolveNode(p, c.Node)
	if err != nil {
		return gen.ChildrenResult{}, err
	}
	hide := c.HideEmptyRootSectionsOrDefault()
	var kids []entry
	switch {
	case e.obj != nil:
		kids, err = p.childGroups(e.obj, hide)
		if err != nil {
			return gen.ChildrenResult{}, b.loadError(p, e.obj, err)
		}
	case e.group != nil:
		kids, err = p.groupChildren(*e.group)
		if err != nil {
			return gen.ChildrenResult{}, b.loadError(p, e.group.owner, err)
		}
	}
	r := gen.ChildrenResult{Nodes: make([]gen.Node, 0, len(kids))}
	for _, k := range kids {
		r.Nodes = append(r.Nodes, p.node(k))
	}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(p)
	return r, nil
}

func (b *Backend) object(c gen.ObjectParams) (*project, *object, error) {
	p, err := b.at(c.SessionID, c.ProjectID, c.Generation)
	if err != nil {
		return nil, nil, err
	}
	o, ok := p.objs[string(c.ObjectID)]
	if !ok {
		return nil, nil, derr(gen.DomainErrorKindUnknownObject, gen.UnknownObjectDetails{ObjectID: c.ObjectID}, p, b.s)
	}
	if err := p.load(o); err != nil {
		return nil, nil, b.loadError(p, o, err)
	}
	return p, o, nil
}

// Get answers metadata/get for an object the tree or the index knows.
func (b *Backend) Get(c gen.ObjectParams) (gen.GetResult, error) {
	p, o, err := b.object(c)
	if err != nil {
		return gen.GetResult{}, err
	}
	mo := gen.MetadataObject{ObjectID: gen.ObjectID(o.id), MetadataKind: gen.MetadataKind(o.tag), Name: o.name, Synonyms: texts(o.synonyms)}
	if o.info != nil {
		mo.MetadataKind = gen.MetadataKind(o.info.Kind)
	}
	if o.parent != nil {
		pid := gen.ObjectID(o.parent.id)
		mo.Parent = &pid
	}
	if o.uuid != "" {
		u := o.uuid
		mo.UUID = &u
	}
	r := gen.GetResult{Object: mo}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(p)
	return r, nil
}

// Properties answers metadata/properties; a common picture also gets its
// preview when the client was granted it.
func (b *Backend) Properties(c gen.ObjectParams) (gen.PropertiesResult, error) {
	p, o, err := b.object(c)
	if err != nil {
		return gen.PropertiesResult{}, err
	}
	if _, err := p.element(o); err != nil {
		return gen.PropertiesResult{}, b.loadError(p, o, err)
	}
	r := gen.PropertiesResult{Properties: p.properties(o, b.granted(gen.CapabilityPropertyPresentation))}
	if b.granted(gen.CapabilityPicturePreview) && o.info != nil && o.info.Kind == designer.KindCommonPicture && o.parent == p.root {
		r.Picture = picturePreview(picture.Load(p.srcDir, o.name))
	}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(p)
	return r, nil
}

// Source answers metadata/source.
func (b *Backend) Source(c gen.NodeParams) (gen.SourceResult, error) {
	p, err := b.at(c.SessionID, c.ProjectID, c.Generation)
	if err != nil {
		return gen.SourceResult{}, err
	}
	e, err := b.resolveNode(p, c.Node)
	if err != nil {
		return gen.SourceResult{}, err
	}
	var out []gen.Source
	switch {
	case e.group != nil:
		// Virtual groups have no file; none is made up.
		return gen.SourceResult{}, derr(gen.DomainErrorKindSourceMissing, gen.SourceErrorDetails{Reason: gen.SourceErrorReasonMissing}, p, b.s)
	case e.obj != nil:
		o := e.obj
		if err := p.load(o); err != nil {
			return gen.SourceResult{}, b.loadError(p, o, err)
		}
		rel, _ := p.rel(o.desc)
		src := gen.Source{Path: ToPath(rel), Role: gen.SourceRoleDescriptor{}, Inline: []gen.InlineItem{}}
		if !o.own && o.info != nil && o.info.Kind != designer.KindPredefinedItem {
			src.Inline = append(src.Inline, gen.InlineItem{MetadataKind: gen.MetadataKind(o.info.Kind), Name: o.name})
		}
		out = append(out, src)
		for _, pl := range p.payloads(o) {
			rel, _ := p.rel(pl)
			out = append(out, gen.Source{Path: ToPath(rel), Role: gen.SourceRolePayload{}, Inline: []gen.InlineItem{}})
		}
	default:
		path := p.modulePath(e.owner, e.module)
		if !p.r.Exists(path) {
			return gen.SourceResult{}, b.loadError(p, e.owner, &sourceread.Error{Path: path, Reason: gen.SourceErrorReasonMissing, Err: errors.New("no module file")})
		}
		rel, _ := p.rel(path)
		out = append(out, gen.Source{Path: ToPath(rel), Role: gen.ModuleSourceRole{Role: string(e.module)}, Inline: []gen.InlineItem{}})
	}
	r := gen.SourceResult{Sources: out}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(p)
	return r, nil
}

// payloads lists the data files of forms, templates and pictures.
func (p *project) payloads(o *object) []string {
	if o.info == nil || !o.own {
		return nil
	}
	ext := filepath.Join(o.dir, "Ext")
	var names []string
	switch o.info.Kind {
	case designer.KindForm, designer.KindCommonForm:
		names = []string{"Form.xml"}
	case designer.KindTemplate, "common-template":
		names = []string{"Template.xml", "Template.txt", "Template.bin", "Template.mxl", "Template.htm", "Template.zip"}
	case designer.KindCommonPicture:
		names = []string{"Picture.xml"}
	default:
		if hasPredefined(o) {
			names = []string{"Predefined.xml"}
		}
	}
	var out []string
	for _, n := range names {
		if path := filepath.Join(ext, n); p.r.Exists(path) {
			out = append(out, path)
		}
	}
	return out
}

// Reveal answers metadata/reveal: the path from the root to an object
// the tree or the index knows, computed here.
func (b *Backend) Reveal(c gen.ObjectParams) (gen.RevealResult, error) {
	p, err := b.at(c.SessionID, c.ProjectID, c.Generation)
	if err != nil {
		return gen.RevealResult{}, err
	}
	o, ok := p.objs[string(c.ObjectID)]
	if !ok {
		return gen.RevealResult{}, derr(gen.DomainErrorKindUnknownObject, gen.UnknownObjectDetails{ObjectID: c.ObjectID}, p, b.s)
	}
	r := gen.RevealResult{Ancestry: p.ancestry(o)}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(p)
	return r, nil
}

// Search answers metadata/search from the records ready now; it never
// starts the index.
func (b *Backend) Search(c gen.SearchParams) (gen.SearchResult, error) {
	p, err := b.at(c.SessionID, c.ProjectID, c.Generation)
	if err != nil {
		return gen.SearchResult{}, err
	}
	hits, truncated := p.search(c.Text, int(c.LimitOrDefault()), c.SynonymLanguage)
	r := gen.SearchResult{Progress: p.idx.progress(), Hits: make([]gen.Hit, 0, len(hits)), Truncated: truncated}
	for _, h := range hits {
		o := h.Record
		r.Hits = append(r.Hits, gen.Hit{
			ObjectID: gen.ObjectID(o.id), Node: gen.ObjectNodeID{ObjectID: gen.ObjectID(o.id)},
			MetadataKind: gen.MetadataKind(o.info.Kind), Name: o.name, Synonyms: texts(o.synonyms),
			Ancestry: p.ancestry(o), Rank: rankNames[h.Rank],
		})
	}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(p)
	return r, nil
}

// Index answers metadata/index: start answers once queued, the work runs
// between requests.
func (b *Backend) Index(c gen.IndexParams) (gen.IndexResult, error) {
	g := gateNormal
	if c.Action == gen.IndexActionStatus {
		g = gateStatus
	}
	p, err := b.project(gen.ProjectContext{SessionID: c.SessionID, ProjectID: c.ProjectID, Generation: c.Generation}, g)
	if err != nil {
		return gen.IndexResult{}, err
	}
	ix := p.idx
	before := ix.state
	switch c.Action {
	case gen.IndexActionStart:
		p.startIndex()
	case gen.IndexActionCancel:
		if ix.state == gen.ProgressStateBuilding {
			p.stopPrefetch()
			ix.paused = true
			ix.state = gen.ProgressStateCancelled
		}
	case gen.IndexActionResume:
		if ix.state == gen.ProgressStateCancelled {
			ix.paused = false
			ix.state = gen.ProgressStateBuilding
			p.finishIfDone()
		}
	}
	if ix.state != before {
		b.sendProgress(p, true)
	}
	r := gen.IndexResult{Progress: ix.progress()}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(p)
	return r, nil
}

// IndexErrors answers metadata/indexErrors in ObjectId order.
func (b *Backend) IndexErrors(c gen.IndexErrorsParams) (gen.IndexErrorsResult, error) {
	p, err := b.at(c.SessionID, c.ProjectID, c.Generation)
	if err != nil {
		return gen.IndexErrorsResult{}, err
	}
	offset, limit := int(c.OffsetOrDefault()), int(c.LimitOrDefault())
	ids := make([]string, 0, len(p.idx.failures))
	for id := range p.idx.failures {
		ids = append(ids, id)
	}
	sortStrings(ids)
	r := gen.IndexErrorsResult{Errors: []gen.IndexError{}}
	if offset < len(ids) {
		end := offset + limit
		if end > len(ids) {
			end = len(ids)
		}
		for _, id := range ids[offset:end] {
			f := p.idx.failures[id]
			r.Errors = append(r.Errors, gen.IndexError{ObjectID: gen.ObjectID(f.objectID), Code: f.code, Details: f.details})
		}
		if end < len(ids) {
			next := int64(end)
			r.NextOffset = &next
		}
	}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(p)
	return r, nil
}

// Background runs one descriptor of indexing for the next project that
// has work, round-robin, and reports whether it did anything.
func (b *Backend) Background() bool {
	p := b.next()
	if p == nil {
		return false
	}
	for i, q := range b.s.projects {
		if q == p {
			b.rr = (i + 1) % len(b.s.projects)
		}
	}
	p.step()
	b.sendProgress(p, false)
	return true
}

// next is the project whose turn it is to index, or nil when none has
// work.
func (b *Backend) next() *project {
	if b.s == nil {
		return nil
	}
	n := len(b.s.projects)
	for i := 0; i < n; i++ {
		p := b.s.projects[(b.rr+i)%n]
		ix := p.idx
		if ix.state != gen.ProgressStateBuilding || ix.paused || len(ix.queue) == 0 {
			continue
		}
		return p
	}
	return nil
}

// sendProgress reports the index's progress: always on a change of state,
// at most once per progressEvery for counters alone.
func (b *Backend) sendProgress(p *project, force bool) {
	ix := p.idx
	now := time.Now()
	stateChanged := ix.state != ix.sentState
	if !force && !stateChanged && (!ix.countersDirty || now.Sub(ix.lastSent) < b.progressEvery) {
		return
	}
	ix.lastSent, ix.sentState, ix.countersDirty = now, ix.state, false
	params := gen.IndexProgressParams{SessionID: gen.SessionID(b.s.id), ProjectID: gen.ProjectID(p.id),
		Generation: gen.Generation(p.generation), Progress: ix.progress()}
	raw, err := params.MarshalJSON()
	if err == nil {
		b.notify(gen.NotificationMetadataIndexProgress, raw)
	}
}

func picturePreview(pv picture.Preview) gen.PicturePreview {
	switch pv.Status {
	case picture.StatusReady:
		return gen.ReadyPicture{MIMEType: pv.MIMEType, Data: base64(pv.Data), FileName: pv.FileName}
	case picture.StatusMissing:
		return gen.PicturePreviewMissing{}
	case picture.StatusUnsupported:
		return gen.PicturePreviewUnsupported{}
	case picture.StatusTooLarge:
		return gen.PicturePreviewTooLarge{}
	case picture.StatusUnavailable:
		return gen.PicturePreviewUnavailable{}
	}
	return gen.PicturePreviewInvalid{}
}

// granted reports whether the client was granted a capability: its
// negotiated version has it and it sent the capability's opt-in.
func (b *Backend) granted(name string) bool { return b.grants.Granted(name) }
