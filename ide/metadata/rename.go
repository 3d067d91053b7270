package metadata

// Rename (API 1.9): metadata/renamePreview builds a plan of every place
// in the sources that names a top-level object (designer/refs finds
// them), metadata/renameApply builds it again, compares its snapshot and
// writes it through the journal of internal/atomicfile, all or none. The
// plan's format is eska rename's.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/contractkit/contractkit/designer"
	"github.com/contractkit/contractkit/designer/bsl"
	"github.com/contractkit/contractkit/designer/refs"
	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata/edithistory"
	"github.com/contractkit/contractkit/ide/metadata/sourceread"
	"github.com/contractkit/contractkit/ide/metadata/supportverdict"
	"github.com/contractkit/contractkit/internal/atomicfile"
	"github.com/contractkit/contractkit/internal/byteedit"
)

// renamePlan is a rename checked against the project as it is now.
type renamePlan struct {
	o         *object
	newName   string
	step      edithistory.SetStep // the files with their bytes and replacements, the moves, renamed
	wire      gen.RenamePlan
	oldDesc   string // the descriptor's path before and after
	newDesc   string
	oldDir    string // the object's folder before and after
	newDir    string
	blockedBy error // the error renameApply answers for the first issue
}

// renameKindIssue says why an object cannot be renamed at all, or "".
func (p *project) renameKindIssue(o *object) gen.RenameIssueCode {
	if p.typ != gen.ProjectTypeConfiguration || o.parent != p.root || o.info == nil || !refs.Renamable(o.info.Kind) {
		return gen.RenameIssueCodeUnsupportedKind
	}
	return ""
}

// RenamePreview answers metadata/renamePreview: the plan, written
// nowhere.
func (b *Backend) RenamePreview(c gen.RenamePreviewParams) (gen.RenamePreviewResult, error) {
	p, o, err := b.renameObject(gen.ProjectContext{SessionID: c.SessionID, ProjectID: c.ProjectID, Generation: c.Generation}, c.ObjectID)
	if err != nil {
		return gen.RenamePreviewResult{}, err
	}
	pl, err := b.buildPlan(p, o, c.NewName)
	if err != nil {
		return gen.RenamePreviewResult{}, err
	}
	r := gen.RenamePreviewResult{ApplyAvailable: len(pl.wire.Issues) == 0, Plan: pl.wire}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(p)
	return r, nil
}

// renameObject resolves the object of a rename request.
func (b *Backend) renameObject(c gen.ProjectContext, id gen.ObjectID) (*project, *object, error) {
	p, err := b.project(c, gateNormal)
	if err != nil {
		return nil, nil, err
	}
	o, ok := p.objs[string(id)]
	if !ok {
		return nil, nil, derr(gen.DomainErrorKindUnknownObject, gen.UnknownObjectDetails{ObjectID: id}, p, b.s)
	}
	return p, o, nil
}

// RenameApply answers metadata/renameApply: the plan built again and,
// when its snapshot is the one reviewed, it has no issue and its
// uncertain places were reviewed, written all or none.
func (b *Backend) RenameApply(c gen.RenameApplyParams) (gen.RenameApplyResult, error) {
	if !b.granted(gen.CapabilityPropertyEditing) {
		return gen.RenameApplyResult{}, DomainError(gen.DomainErrorKindPropertyReadOnly, gen.PropertyReadOnlyDetails{Reason: ptrTo(gen.PropertyReadOnlyReasonOptIn)})
	}
	p, o, err := b.renameObject(gen.ProjectContext{SessionID: c.SessionID, ProjectID: c.ProjectID, Generation: c.Generation}, c.ObjectID)
	if err != nil {
		return gen.RenameApplyResult{}, err
	}
	if p.pendingRecovery(b) {
		return gen.RenameApplyResult{}, derr(gen.DomainErrorKindPropertyRecoveryRequired, gen.EmptyDetails{}, p, b.s)
	}
	pl, err := b.buildPlan(p, o, c.NewName)
	if err != nil {
		return gen.RenameApplyResult{}, err
	}
	if pl.blockedBy != nil {
		return gen.RenameApplyResult{}, pl.blockedBy
	}
	if pl.wire.Snapshot != c.Snapshot {
		rel, _ := p.rel(pl.oldDesc)
		return gen.RenameApplyResult{}, derr(gen.DomainErrorKindSourceChanged, gen.SourceChangedDetails{Path: ToPath(rel)}, p, b.s)
	}
	if len(pl.wire.Uncertain) > 0 && !c.ReviewedUncertain {
		return gen.RenameApplyResult{}, derr(gen.DomainErrorKindRenameReviewRequired, gen.EmptyDetails{}, p, b.s)
	}
	if err := b.writeSet(p, &pl.step); err != nil {
		return gen.RenameApplyResult{}, b.renameWriteError(p, err)
	}
	if afterWrite != nil {
		afterWrite()
	}
	hist := p.editing(b).hist
	if err := hist.Rekey(pl.keyMoves()); err != nil {
		b.diag("edit-history")
	}
	if err := hist.Push(pl.newDesc, edithistory.Step{Object: string(pl.step.Renamed.To), Set: &pl.step}); err != nil {
		b.diag("edit-history")
	}
	b.renameCommitted(p, *pl.step.Renamed)
	wr, err := b.writeResult(p, string(pl.step.Renamed.To))
	if err != nil {
		return gen.RenameApplyResult{}, derr(gen.DomainErrorKindRenameCommittedRefreshRequired, gen.EmptyDetails{}, p, b.s)
	}
	r := gen.RenameApplyResult{Properties: wr.Properties, Picture: wr.Picture, Editing: wr.Editing, Renamed: *pl.step.Renamed}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(p)
	return r, nil
}

// keyMoves pairs the old and new paths of the descriptor and the folder.
func (pl *renamePlan) keyMoves() [][2]string {
	return [][2]string{{pl.oldDesc, pl.newDesc}, {pl.oldDir, pl.newDir}}
}

// renameWriteError maps a failed write of a rename (or of its undo).
func (b *Backend) renameWriteError(p *project, err error) error {
	blocked := func() error { return derr(gen.DomainErrorKindRenameBlocked, gen.EmptyDetails{}, p, b.s) }
	collision := func() error { return derr(gen.DomainErrorKindRenameCollision, gen.EmptyDetails{}, p, b.s) }
	return b.setWriteError(p, err, blocked, collision)
}

// renameCommitted takes a written rename (or its undo) in: the tree is
// read again from the root, since Configuration.xml changed, and
// metadata/changed with renamed goes out before the answer.
func (b *Backend) renameCommitted(p *project, r gen.Renamed) {
	p.stopPrefetch()
	if !p.advance(true) {
		return
	}
	p.supportDropped()
	if err := p.loadRoot(); err != nil {
		p.requiresRefresh, p.resyncReason = true, string(gen.OpenFailureReasonRootInvalid)
	} else if p.idx.state != gen.ProgressStateNotStarted {
		p.startIndex()
	}
	params := b.changedParams(p, nil, true, false)
	params.Renamed = &r
	b.sendChanged(params)
}

// ---- the plan ----

// scanned is what the rename found in one file.
type scanned struct {
	rel    string // with /
	data   []byte
	places []refs.Place
	err    error
}

// buildPlan finds every place of the object in the sources and checks
// the rename: the new name, collisions, the paths the object's files move
// to, symbolic links, unreadable files and the support rules of every
// file it changes.
func (b *Backend) buildPlan(p *project, o *object, newName string) (*renamePlan, error) {
	pl := &renamePlan{o: o, newName: newName}
	issue := func(code gen.RenameIssueCode, rel string) {
		is := gen.RenameIssue{Code: code}
		if rel != "" {
			is.Path = &rel
		}
		pl.wire.Issues = append(pl.wire.Issues, is)
	}
	pl.wire.Files, pl.wire.Moves, pl.wire.Issues, pl.wire.Uncertain = []gen.RenameFile{}, []gen.RenameMove{}, []gen.RenameIssue{}, []gen.RenamePlace{}
	if code := p.renameKindIssue(o); code != "" {
		issue(code, "")
		pl.finish(p, b)
		return pl, nil
	}
	switch {
	case !bsl.IsName(newName) || bsl.KeywordKey([]byte(newName)) != "":
		issue(gen.RenameIssueCodeInvalidName, "")
	case len(newName)+len(".xml") > gen.MaxFileNameBytes:
		// The descriptor could not be created; found here, not by the
		// apply's rename failing halfway.
		issue(gen.RenameIssueCodeInvalidName, "")
	case newName == o.name:
		issue(gen.RenameIssueCodeSameName, "")
	}
	for _, c := range p.root.children {
		if c != o && c.info == o.info && bsl.EqualFold([]byte(c.name), []byte(newName)) {
			issue(gen.RenameIssueCodeCollision, "")
			break
		}
	}
	tg, _ := refs.NewTarget(o.info.Kind, o.name)
	newID := designer.ObjectID("", o.info.Kind, newName)
	pl.step.Renamed = &gen.Renamed{From: gen.ObjectID(o.id), To: gen.ObjectID(newID), DescendantFrom: o.id + "/", DescendantTo: newID + "/"}
	pl.oldDesc, pl.oldDir = o.desc, o.dir
	pl.newDesc = filepath.Join(filepath.Dir(o.desc), newName+".xml")
	pl.newDir = filepath.Join(filepath.Dir(o.dir), newName)
	oldDescRel, _ := p.rel(pl.oldDesc)
	oldDirRel, _ := p.rel(pl.oldDir)
	newDescRel, _ := p.rel(pl.newDesc)
	newDirRel, _ := p.rel(pl.newDir)
	rootRel, _ := p.rel(p.rootDesc)
	if len(pl.wire.Issues) == 0 {
		pl.step.Moves = append(pl.step.Moves, edithistory.SetMove{From: filepath.ToSlash(oldDescRel), To: filepath.ToSlash(newDescRel)})
		if p.exists(oldDirRel) {
			pl.step.Moves = append(pl.step.Moves, edithistory.SetMove{From: filepath.ToSlash(oldDirRel), To: filepath.ToSlash(newDirRel)})
		}
		for _, m := range pl.step.Moves {
			// A case-only rename moves onto itself on a file system that
			// ignores case; elsewhere the target must not exist.
			if p.exists(filepath.FromSlash(m.To)) && !strings.EqualFold(m.From, m.To) {
				issue(gen.RenameIssueCodePathExists, m.To)
			}
		}
	}
	files, links, err := sourceFiles(p.r.Src)
	if err != nil {
		return nil, b.loadError(p, o, &sourceread.Error{Path: p.srcDir, Reason: gen.SourceErrorReasonIo, Err: err})
	}
	for _, l := range links {
		issue(gen.RenameIssueCodeSymlink, l)
	}
	results := scanAll(p.r.Src, files, func(rel string) refs.XMLRole {
		switch rel {
		case filepath.ToSlash(rootRel):
			return refs.XMLRoot
		case filepath.ToSlash(oldDescRel):
			return refs.XMLOwn
		}
		return refs.XMLOther
	}, tg)
	// The support rules of every file the rename writes or moves.
	st := p.supportState()
	rules, rerr := st.rules(p)
	q := &fileQuery{p: p, st: st, sums: map[string]*supportverdict.Facts{}, dirs: map[string]bool{}}
	locked := func(rel string) bool {
		chain, _ := q.chainOf(filepath.FromSlash(rel))
		return supportverdict.Decide(rules, rerr, chain).ReadOnly
	}
	if locked(filepath.ToSlash(oldDescRel)) {
		issue(gen.RenameIssueCodeSupportLocked, filepath.ToSlash(oldDescRel))
	}
	for _, r := range results {
		if r.err != nil {
			issue(gen.RenameIssueCodeUnreadable, r.rel)
			continue
		}
		var edits []byteedit.Edit
		for _, pc := range r.places {
			rg := gen.Range{Start: int64(pc.Start), End: int64(pc.End)}
			if pc.Certain {
				edits = append(edits, byteedit.Edit{Start: int64(pc.Start), End: int64(pc.End), Text: newName})
			} else {
				pl.wire.Uncertain = append(pl.wire.Uncertain, gen.RenamePlace{Path: r.rel, Range: rg, Reason: gen.RenameUncertainReason(pc.Why)})
			}
		}
		if len(edits) == 0 {
			continue
		}
		if locked(r.rel) && r.rel != filepath.ToSlash(oldDescRel) {
			issue(gen.RenameIssueCodeSupportLocked, r.rel)
		}
		f, err := edithistory.NewSetFile(r.rel, r.data, edits)
		if err != nil {
			issue(gen.RenameIssueCodeUnreadable, r.rel)
			continue
		}
		pl.step.Files = append(pl.step.Files, f)
		wf := gen.RenameFile{Path: r.rel, Sha256: f.Before, Edits: make([]gen.ByteEdit, 0, len(edits))}
		for _, e := range edits {
			wf.Edits = append(wf.Edits, gen.ByteEdit{Range: gen.Range{Start: e.Start, End: e.End}, Text: e.Text})
		}
		pl.wire.Files = append(pl.wire.Files, wf)
	}
	pl.finish(p, b)
	return pl, nil
}

// finish fills the plan's renames, snapshot and the error its first
// issue answers.
func (pl *renamePlan) finish(p *project, b *Backend) {
	for _, m := range pl.step.Moves {
		pl.wire.Moves = append(pl.wire.Moves, gen.RenameMove{From: m.From, To: m.To})
	}
	pl.wire.Snapshot = ""
	raw, _ := pl.wire.MarshalJSON()
	h := sha256.New()
	h.Write([]byte(pl.o.id + "\x00" + pl.newName + "\x00"))
	h.Write(raw)
	pl.wire.Snapshot = hex.EncodeToString(h.Sum(nil))
	if len(pl.wire.Issues) == 0 {
		return
	}
	kind := gen.DomainErrorKindRenameBlocked
	switch pl.wire.Issues[0].Code {
	case gen.RenameIssueCodeInvalidName, gen.RenameIssueCodeSameName:
		kind = gen.DomainErrorKindRenameInvalidName
	case gen.RenameIssueCodeCollision, gen.RenameIssueCodePathExists:
		kind = gen.DomainErrorKindRenameCollision
	}
	pl.blockedBy = derr(kind, gen.EmptyDetails{}, p, b.s)
}

// sourceFiles lists the XML and BSL files below src (paths with /), and
// the symbolic links it meets: a rename never writes through one, so a
// link blocks it.
func sourceFiles(src string) (files, links []string, err error) {
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.Type()&fs.ModeSymlink != 0 {
			links = append(links, filepath.ToSlash(rel))
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".eska" || d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if atomicfile.IsTemp(d.Name()) {
			return nil
		}
		if strings.HasSuffix(d.Name(), ".xml") || strings.HasSuffix(d.Name(), ".bsl") {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files, links, err
}

// scanAll reads and scans the files on a few goroutines; results come in
// the order of files, only those with a place (or an error).
func scanAll(src string, files []string, role func(rel string) refs.XMLRole, tg *refs.Target) []scanned {
	out := make([]scanned, len(files))
	var wg sync.WaitGroup
	next := make(chan int, len(files))
	for i := range files {
		next <- i
	}
	close(next)
	workers := runtime.GOMAXPROCS(0)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte // reused: most files do not name the object
			for i := range next {
				out[i], buf = scanFile(src, files[i], role(files[i]), tg, buf)
			}
		}()
	}
	wg.Wait()
	kept := out[:0]
	for _, r := range out {
		if r.err != nil || len(r.places) > 0 {
			kept = append(kept, r)
		}
	}
	return kept
}

// scanFile reads one file into buf (grown as needed and returned) and
// scans it when it names the object; only then are its bytes kept.
func scanFile(src, rel string, role refs.XMLRole, tg *refs.Target, buf []byte) (scanned, []byte) {
	path := filepath.Join(src, filepath.FromSlash(rel))
	buf, err := readInto(path, buf)
	if err != nil {
		return scanned{rel: rel, err: err}, buf
	}
	hits := tg.Hits(buf)
	if len(hits) == 0 {
		return scanned{rel: rel}, buf
	}
	// The bytes are kept: the buffer goes with them, and the next file
	// gets a new one.
	data := buf
	buf = nil
	s := scanned{rel: rel, data: data}
	if strings.HasSuffix(rel, ".bsl") {
		s.places = tg.Module(data, hits, formAttributes(path, rel, tg))
	} else {
		s.places, s.err = tg.XML(data, hits, role)
	}
	return s, buf
}

// readInto reads a whole file into buf's storage.
func readInto(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return buf[:0], err
	}
	n := int(st.Size())
	if cap(buf) < n {
		buf = make([]byte, n, n+n/4)
	}
	buf = buf[:n]
	got, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF {
		err = nil // shortened meanwhile: what is there is read
	}
	return buf[:got], err
}

// formAttributeRE finds the names of a form's attributes.
var formAttributeRE = regexp.MustCompile(`<Attribute name="([^"]+)"`)

// formAttributes lists (folded) the attributes of the form whose module
// is at path, when one is named like a common module being renamed: they
// hide it in the module. Other modules hide nothing.
func formAttributes(path, rel string, tg *refs.Target) map[string]bool {
	if tg.Kind != "common-module" || !strings.HasSuffix(rel, "/Ext/Form/Module.bsl") {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(path)), "Form.xml"))
	if err != nil || !bytes.Contains(bytes.ToLower(data), bytes.ToLower([]byte(tg.Name))) {
		return nil
	}
	out := map[string]bool{}
	for _, m := range formAttributeRE.FindAllSubmatch(data, -1) {
		name := append([]byte(nil), m[1]...)
		bsl.FoldInPlace(name)
		out[string(name)] = true
	}
	return out
}
