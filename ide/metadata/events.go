package metadata

import (
	enc "encoding/base64"
	"errors"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contractkit/contractkit/designer"
	gen "github.com/contractkit/contractkit/generated/ide"
)

func base64(b []byte) string { return enc.StdEncoding.EncodeToString(b) }
func sortStrings(s []string) { sort.Strings(s) }

// changed sends metadata/changed for p. It runs on the worker before the
// response of the request being served, as the contract wants.
func (b *Backend) changed(p *project, affected []string, all bool) {
	b.announce(p, affected, all, false)
}

// announce is changed with supportUnchanged, which a client granted
// supportPolicy receives.
func (b *Backend) announce(p *project, affected []string, all bool, supportUnchanged bool) {
	b.sendChanged(b.changedParams(p, affected, all, supportUnchanged))
}

// changedParams is the metadata/changed of p as it is now.
func (b *Backend) changedParams(p *project, affected []string, all bool, supportUnchanged bool) gen.ChangedParams {
	params := gen.ChangedParams{SessionID: gen.SessionID(b.s.id), ProjectID: gen.ProjectID(p.id),
		Generation: gen.Generation(p.generation), EventSequence: gen.EventSequence(p.eventSequence),
		RequiresRefresh: p.requiresRefresh, RequiresReopen: p.requiresReopen}
	if b.granted(gen.CapabilitySupportPolicy) {
		params.SupportUnchanged = &supportUnchanged
	}
	if !all {
		params.Affected = make([]gen.ObjectID, 0, len(affected))
		for _, id := range affected {
			params.Affected = append(params.Affected, gen.ObjectID(id))
		}
	}
	return params
}

func (b *Backend) sendChanged(params gen.ChangedParams) {
	raw, err := params.MarshalJSON()
	if err == nil {
		b.notify(gen.NotificationMetadataChanged, raw)
	}
}

// Refresh answers metadata/refresh. A root refresh rereads the root
// descriptor and forgets everything else; it is also the way out of
// resync_required. Any other node refreshes the object that owns it.
func (b *Backend) Refresh(c gen.RefreshParams) (gen.RefreshResult, error) {
	g := gateNormal
	if on, ok := c.Node.(gen.ObjectNodeID); ok && b.s != nil {
		if p, ok := b.s.byID[string(c.ProjectID)]; ok && p.root != nil && string(on.ObjectID) == p.root.id {
			g = gateRefresh
		}
	}
	p, err := b.project(gen.ProjectContext{SessionID: c.SessionID, ProjectID: c.ProjectID, Generation: c.Generation}, g)
	if err != nil {
		return gen.RefreshResult{}, err
	}
	var affected []string
	p.stopPrefetch()
	p.supportDropped()
	if g == gateRefresh {
		if !p.advance(true) {
			return gen.RefreshResult{}, derr(gen.DomainErrorKindGenerationExhausted, gen.EmptyDetails{}, p, b.s)
		}
		if err := p.loadRoot(); err != nil {
			// The generation stays raised and the flag stays set until a
			// refresh of the corrected XML succeeds.
			p.requiresRefresh = true
			p.resyncReason = string(gen.OpenFailureReasonRootInvalid)
			b.changed(p, nil, true)
			return gen.RefreshResult{}, b.loadError(p, nil, err)
		}
		p.requiresRefresh, p.resyncReason = false, ""
		if c.ResetFileSequenceOrDefault() {
			p.nextFileSeq = 1
		}
		if p.idx.state != gen.ProgressStateNotStarted {
			p.startIndex()
		}
		affected = []string{p.root.id}
		b.changed(p, nil, true)
	} else {
		e, err := b.resolveNode(p, c.Node)
		if err != nil {
			return gen.RefreshResult{}, err
		}
		o := e.obj
		if o == nil && e.group != nil {
			o = e.group.owner
		}
		if o == nil {
			o = e.owner
		}
		// An inline object lives in its owner's descriptor.
		for !o.own && o.parent != nil {
			o = o.parent
		}
		if !p.advance(true) {
			return gen.RefreshResult{}, derr(gen.DomainErrorKindGenerationExhausted, gen.EmptyDetails{}, p, b.s)
		}
		p.invalidate(o)
		p.forgetRecords(o)
		affected = []string{o.id}
		b.changed(p, affected, false)
	}
	r := gen.RefreshResult{Affected: make([]gen.ObjectID, 0, len(affected))}
	for _, id := range affected {
		r.Affected = append(r.Affected, gen.ObjectID(id))
	}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(p)
	return r, nil
}

// errNotification is what a notification that cannot be applied returns:
// the transport writes a short code to stderr; nothing answers it.
var errNotification = errors.New("file event not applied")

// DidChangeFiles applies a batch of file events in order with the
// requests around it. Anything wrong with the batch sets requiresRefresh
// and is announced; nothing is ignored silently.
func (b *Backend) DidChangeFiles(c gen.DidChangeFilesParams) error {
	if b.s == nil || b.s.id != string(c.SessionID) {
		return errNotification
	}
	p, ok := b.s.byID[string(c.ProjectID)]
	if !ok {
		return errNotification
	}
	manifest := c.ManifestChangedOrDefault()
	resync := func(reason string) error {
		p.requiresRefresh, p.resyncReason = true, reason
		if p.advance(false) {
			b.changed(p, nil, true)
		}
		return nil
	}
	if len(c.Paths) == 0 && !manifest {
		return resync("invalid_file_event")
	}
	if uint64(c.Sequence) != p.nextFileSeq {
		return resync("file_sequence_gap")
	}
	p.nextFileSeq++
	if manifest {
		p.requiresReopen = true
		if p.advance(false) {
			b.changed(p, nil, true)
		}
		return nil
	}
	p.r.ForgetDirs() // the batch may have renamed or relinked folders
	p.stopPrefetch()
	supportUnchanged, quiet := b.supportEvent(p, c)
	if quiet {
		return nil // only ParentConfigurations.bin, with the same bytes
	}
	var affected []string
	seen := map[string]bool{}
	rootChanged := false
	for _, pp := range c.Paths {
		rel, err := FromPath(pp)
		if err != nil || rel == "" || filepath.IsAbs(rel) {
			return resync("invalid_file_event")
		}
		clean := filepath.Clean(rel)
		if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return resync("invalid_file_event")
		}
		o := p.owner(clean)
		if o == nil {
			continue
		}
		if o == p.root {
			rootChanged = true
			continue
		}
		if !seen[o.id] {
			seen[o.id] = true
			affected = append(affected, o.id)
			p.invalidate(o)
			p.forgetRecords(o)
		}
	}
	if rootChanged {
		if !p.advance(true) {
			return nil
		}
		if err := p.loadRoot(); err != nil {
			p.requiresRefresh, p.resyncReason = true, string(gen.OpenFailureReasonRootInvalid)
		} else if p.idx.state != gen.ProgressStateNotStarted {
			p.startIndex()
		}
		b.changed(p, nil, true)
		return nil
	}
	if p.advance(len(affected) > 0) {
		b.announce(p, affected, false, supportUnchanged)
	}
	return nil
}

// advance raises the event sequence, and the generation with it when the
// sources changed. Counters never wrap: at the end of their range the
// project is exhausted, and every method answers generation_exhausted
// until the session is opened again.
func (p *project) advance(generation bool) bool {
	if p.eventSequence == math.MaxUint64 || (generation && p.generation == math.MaxUint64) {
		p.exhausted = true
		return false
	}
	p.eventSequence++
	if generation {
		p.generation++
	}
	return true
}

// owner maps a source-relative path to the loaded object whose state it
// can change: the top-level object the file belongs to, or the root for
// the root descriptor, its modules and anything of an external project.
// Files no loaded object depends on map to nothing.
func (p *project) owner(rel string) *object {
	parts := strings.Split(rel, string(filepath.Separator))
	if p.root.rare().external {
		return p.root
	}
	if len(parts) == 1 || parts[0] == "Ext" {
		if parts[0] == "Configuration.xml" || parts[0] == "Ext" {
			if parts[0] == "Ext" {
				p.root.rareForWrite().modsDone = false
				return nil
			}
			return p.root
		}
		return nil
	}
	info, ok := designer.KindOfRootDir(parts[0])
	if !ok {
		return nil
	}
	name := strings.TrimSuffix(parts[1], ".xml")
	if o, ok := p.objs[designer.ObjectID("", info.Kind, name)]; ok {
		return o
	}
	return nil
}
