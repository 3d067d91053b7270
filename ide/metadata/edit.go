package metadata

// Property editing (API 1.6-1.8): metadata/propertyEditing, the choice
// methods, previewProperty, updateProperty and undoProperty. A request
// reads the object's descriptor once; a write changes exactly the bytes
// of one field, is checked before and after, goes through
// internal/atomicfile and is announced like an external change.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/contractkit/contractkit/designer"
	"github.com/contractkit/contractkit/designer/xmledit"
	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata/edithistory"
	"github.com/contractkit/contractkit/ide/metadata/signedfile"
	"github.com/contractkit/contractkit/ide/metadata/sourceread"
	"github.com/contractkit/contractkit/ide/metadata/supportverdict"
	"github.com/contractkit/contractkit/internal/atomicfile"
)

// editStateDir holds the write lock and journal, under the project root.
const editStateDir = ".eska/edit"

// editor is one request's view of an object and its descriptor, read
// once: the bytes, their snapshot and the parsed elements.
type editor struct {
	b     *Backend
	p     *project
	o     *object
	own   *object // the object whose descriptor holds o
	desc  string  // that descriptor
	data  []byte
	snap  string
	root  *designer.Element // the descriptor's root, parsed from data
	ownEl *designer.Element // own's element
	el    *designer.Element // o's element; nil for a predefined item
	props *designer.Element // o's Properties; nil for a predefined item
	scope map[string]string // namespace prefixes at o's element
	lctx  *linkCtx          // the linked context, read on first use (1.10)
}

// snapshotOf is the snapshot of a descriptor: the SHA-256 of its bytes.
func snapshotOf(data []byte) string { return sha(data) }

// sha is the hex SHA-256 of bytes, as snapshots and history steps name
// them.
func sha(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// editState is a project's edit history and writer.
type editState struct {
	hist *edithistory.History
	w    *atomicfile.Writer
}

func (p *project) editing(b *Backend) *editState {
	if p.edits == nil {
		p.edits = &editState{hist: edithistory.New(), w: &atomicfile.Writer{Root: p.r.Src, State: filepath.Join(p.rootDir, filepath.FromSlash(editStateDir)), Base: p.rootDir}}
		if b.HistoryDir != "" {
			key, _ := signedfile.LoadKey(b.keyDir())
			p.edits.hist = edithistory.OnDisk(p.rootDir, filepath.FromSlash(b.HistoryDir), p.srcDir, key, b.stateDiag)
		}
	}
	return p.edits
}

// diagStateLink: a folder or file of eska's state in the project (.eska,
// .eska/edit, the lock, a journal, the history) is a symbolic link or not
// what it should be; the write is refused.
const diagStateLink = "edit-state-off:link"

// stateDiag reports a problem with eska's own state: a machine code on
// stderr, and for a terminal (Explain) the sentence that says where.
func (b *Backend) stateDiag(code string, err error) {
	b.diag(code)
	if err != nil && b.Explain != nil {
		b.Explain(err.Error())
	}
}

// stateError answers a write refused because eska's own state could not
// be reached without following a link (or a file stands where a folder
// belongs); ok is false for any other error.
func (b *Backend) stateError(p *project, o *object, err error) (_ error, ok bool) {
	var le *atomicfile.LinkError
	var nd *atomicfile.NotDirError
	path := ""
	switch {
	case errors.As(err, &le):
		path = le.Path
	case errors.As(err, &nd):
		path = nd.Path
	default:
		return nil, false
	}
	b.stateDiag(diagStateLink, err)
	return b.loadError(p, o, &sourceread.Error{Path: path, Reason: gen.SourceErrorReasonIo, Err: err}), true
}

// recoverWrites removes what an interrupted write left behind and rolls
// an interrupted write of several files back or forward; it runs when a
// session that may edit opens the project. A set that cannot be
// recovered stays pending, and every write answers
// property_recovery_required.
func (p *project) recoverWrites(b *Backend) error {
	w := p.editing(b).w
	if _, err := w.Recover(); err != nil {
		b.stateError(p, nil, err)
		return err
	}
	rec, err := w.RecoverSet()
	if err != nil {
		b.stateError(p, nil, err)
		return err
	}
	if rec.Forward {
		// The project was read before the recovery finished the set:
		// read it again from the root.
		return p.loadRoot()
	}
	return nil
}

// editor reads the object's descriptor for one request.
func (b *Backend) editor(c gen.ProjectContext, id gen.ObjectID) (*editor, error) {
	p, err := b.project(c, gateNormal)
	if err != nil {
		return nil, err
	}
	o, ok := p.objs[string(id)]
	if !ok {
		return nil, derr(gen.DomainErrorKindUnknownObject, gen.UnknownObjectDetails{ObjectID: id}, p, b.s)
	}
	if err := p.load(o); err != nil {
		return nil, b.loadError(p, o, err)
	}
	own := o
	for !own.own && own.parent != nil && own.kind() != designer.KindPredefinedItem {
		own = own.parent
	}
	e := &editor{b: b, p: p, o: o, own: own, desc: own.desc, scope: map[string]string{}}
	if o.kind() == designer.KindPredefinedItem {
		e.desc = o.desc
	}
	if e.data, err = p.r.Read(e.desc); err != nil {
		return nil, b.loadError(p, o, err)
	}
	e.snap = snapshotOf(e.data)
	if o.kind() == designer.KindPredefinedItem {
		return e, nil
	}
	d, err := designer.ParseDescriptor(e.desc, e.data, p.r.Limit)
	if _, err = p.r.Interpret(e.desc, d, err); err != nil {
		return nil, b.loadError(p, o, err)
	}
	changed := func() error {
		return b.loadError(p, o, &sourceread.Error{Path: e.desc, Reason: reasonChanged, Err: fmt.Errorf("the descriptor no longer defines %s", o.id)})
	}
	if d.Object == nil || d.Object.Name != own.name || d.Object.Info != own.info {
		return nil, changed()
	}
	e.root, e.ownEl = d.Root, d.Object.El
	declare(e.scope, d.Root)
	el := nestedElement(e.ownEl, own, o, e.scope)
	if el == nil {
		return nil, changed()
	}
	e.el, e.props = el, el.Child("Properties")
	return e, nil
}

// nestedElement finds o's element below the element of own, the object
// whose descriptor holds it, adding the namespace declarations on the way
// to scope (when not nil).
func nestedElement(ownEl *designer.Element, own, o *object, scope map[string]string) *designer.Element {
	var chain []*object
	for cur := o; cur != own; cur = cur.parent {
		chain = append([]*object{cur}, chain...)
	}
	el := ownEl
	if scope != nil {
		declare(scope, el)
	}
	for _, c := range chain {
		var next *designer.Element
		for _, ch := range el.Child("ChildObjects").Children {
			if n := ch.Child("Properties").Child("Name"); ch.Local == c.tag && n != nil && strings.TrimSpace(n.Text) == c.name {
				next = ch
				break
			}
		}
		if next == nil {
			return nil
		}
		el = next
		if scope != nil {
			declare(scope, el)
		}
	}
	return el
}

// declare adds an element's namespace declarations to a scope.
func declare(scope map[string]string, el *designer.Element) {
	for _, a := range el.Attrs {
		switch {
		case a.Name.Space == "xmlns":
			scope[a.Name.Local] = a.Value
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			scope[""] = a.Value
		}
	}
}

// readOnlyError is property_read_only with its details.
func (e *editor) readOnlyError(d gen.PropertyReadOnlyDetails) error {
	return derr(gen.DomainErrorKindPropertyReadOnly, d, e.p, e.b.s)
}

// writable says whether the object may be written: the vendor support
// rules must allow it and its descriptor must not be reached through a
// symbolic link.
func (e *editor) writable() (bool, gen.PropertyReadOnlyDetails) {
	st := e.p.supportState()
	s, rerr := st.rules(e.p)
	var chain []supportverdict.Link
	for cur := e.o; cur != nil; cur = cur.parent {
		l := supportverdict.Link{ID: cur.id, UUID: strings.ToLower(cur.uuid), Predef: cur.kind() == designer.KindPredefinedItem,
			Top: cur == e.p.root || cur.parent == e.p.root}
		switch {
		case cur == e.o && e.el != nil:
			u, _ := e.el.Attr("uuid")
			l.UUID = strings.ToLower(u)
		case cur == e.own && e.ownEl != nil:
			u, _ := e.ownEl.Attr("uuid")
			l.UUID = strings.ToLower(u)
		}
		chain = append(chain, l)
	}
	v := supportverdict.Decide(s, rerr, chain)
	oid := gen.ObjectID(e.o.id)
	if v.ReadOnly {
		d := gen.PropertyReadOnlyDetails{Reason: ptrTo(gen.PropertyReadOnlyReasonSupport), ObjectID: &oid}
		if !v.Unknown {
			d.Mode = ptrTo(v.Mode)
		}
		if v.Reason != "" {
			d.SupportReason = ptrTo(v.Reason)
		}
		return false, d
	}
	if e.p.symlinked(e.desc, map[string]bool{}) {
		return false, gen.PropertyReadOnlyDetails{Reason: ptrTo(gen.PropertyReadOnlyReasonSymlink), ObjectID: &oid}
	}
	return true, gen.PropertyReadOnlyDetails{}
}

func ptrTo[T any](v T) *T { return &v }

// state is the object's editing state.
func (e *editor) state() gen.EditingState {
	shown, hidden := e.fields()
	fields := make([]gen.EditableField, 0, len(shown))
	for _, f := range shown {
		ef := gen.EditableField{Path: f.path, Schema: e.schema(f), Value: e.current(f)}
		if e.linkedField(f) {
			ef.Linked = ptrTo(true)
		}
		fields = append(fields, ef)
	}
	ok, _ := e.writable()
	h := e.p.editing(e.b).hist
	_, undo := h.Peek(e.desc, false)
	_, redo := h.Peek(e.desc, true)
	rel, _ := e.p.rel(e.desc)
	profile := "none"
	if e.o.info != nil && len(rowsFor(e.o.info.Kind)) > 0 {
		profile = string(e.o.info.Kind)
	}
	st := gen.EditingState{Snapshot: e.snap, Source: ToPath(rel), Profile: profile, Writable: ok, Fields: fields,
		ReadOnlyProperties: e.readOnly(shown, hidden), Undo: undo, Redo: redo, AddRemove: false}
	e.extend(&st, ok)
	return st
}

// PropertyEditing answers metadata/propertyEditing.
func (b *Backend) PropertyEditing(c gen.ObjectParams) (gen.EditingResult, error) {
	e, err := b.editor(gen.ProjectContext{SessionID: c.SessionID, ProjectID: c.ProjectID, Generation: c.Generation}, c.ObjectID)
	if err != nil {
		return gen.EditingResult{}, err
	}
	s := e.state()
	r := gen.EditingResult{Snapshot: s.Snapshot, Source: s.Source, Profile: s.Profile, Writable: s.Writable, Fields: s.Fields,
		ReadOnlyProperties: s.ReadOnlyProperties, Undo: s.Undo, Redo: s.Redo, AddRemove: s.AddRemove,
		RenameAvailable: s.RenameAvailable, UndoRename: s.UndoRename, RedoRename: s.RedoRename,
		ContextSnapshot: s.ContextSnapshot, LinkedObjects: s.LinkedObjects, UndoLinked: s.UndoLinked, RedoLinked: s.RedoLinked}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(e.p)
	return r, nil
}

// pathField finds a field of the object whose schema is one of kinds.
func (b *Backend) pathField(c gen.ProjectContext, id gen.ObjectID, path string, kinds ...string) (*editor, *field, error) {
	e, err := b.editor(c, id)
	if err != nil {
		return nil, nil, err
	}
	f := e.field(path)
	ok := f != nil
	if ok && len(kinds) > 0 {
		ok = false
		for _, k := range kinds {
			ok = ok || f.row.Schema == k
		}
	}
	if !ok {
		return nil, nil, e.readOnlyError(gen.PropertyReadOnlyDetails{Reason: ptrTo(gen.PropertyReadOnlyReasonNotEditable), ObjectID: &id, Path: &path})
	}
	return e, f, nil
}

// PropertyTypeChoices answers metadata/propertyTypeChoices for a type or
// value field.
func (b *Backend) PropertyTypeChoices(c gen.PropertyPathParams) (gen.TypeChoicesResult, error) {
	e, _, err := b.pathField(gen.ProjectContext{SessionID: c.SessionID, ProjectID: c.ProjectID, Generation: c.Generation}, c.ObjectID, c.Path, "type", "value")
	if err != nil {
		return gen.TypeChoicesResult{}, err
	}
	r := gen.TypeChoicesResult{Choices: e.typeChoices()}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(e.p)
	return r, nil
}

// PropertyReferenceChoices answers metadata/propertyReferenceChoices (1.7).
func (b *Backend) PropertyReferenceChoices(c gen.PropertyPathParams) (gen.ReferenceChoicesResult, error) {
	e, f, err := b.pathField(gen.ProjectContext{SessionID: c.SessionID, ProjectID: c.ProjectID, Generation: c.Generation}, c.ObjectID, c.Path, "reference")
	if err != nil {
		return gen.ReferenceChoicesResult{}, err
	}
	choices := e.referenceChoices(f)
	if f.row.Domain == numeratorClass {
		choices = e.numeratorChoices()
	}
	r := gen.ReferenceChoicesResult{Choices: choices}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(e.p)
	return r, nil
}

// PropertyValueChoices answers metadata/propertyValueChoices (1.8).
func (b *Backend) PropertyValueChoices(c gen.ValueChoicesParams) (gen.ValueChoicesResult, error) {
	e, f, err := b.pathField(gen.ProjectContext{SessionID: c.SessionID, ProjectID: c.ProjectID, Generation: c.Generation}, c.ObjectID, c.Path, "value")
	if err != nil {
		return gen.ValueChoicesResult{}, err
	}
	known := false
	for _, k := range e.valueTypes(f) {
		known = known || k == c.Key
	}
	for _, tc := range e.typeChoices() {
		known = known || (f.row.Domain == "choiceParameter" && tc.Key == c.Key)
	}
	if !known {
		return gen.ValueChoicesResult{}, invalidParams("/key", fmt.Sprintf("%q is not a type of the field %s", c.Key, c.Path))
	}
	r := gen.ValueChoicesResult{Choices: e.valueChoices(c.Key)}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(e.p)
	return r, nil
}

// invalidChange is the answer to a change its field refuses: invalid
// params naming the field path and why.
func invalidChange(err error) error {
	var ie *errInvalid
	if errors.As(err, &ie) {
		return invalidParams("/change", ie.Error())
	}
	return err
}

// planned is a change checked and applied in memory; a linked change
// (1.10) is a step of several files.
type planned struct {
	e       *editor
	f       *field
	edits   []xmledit.Edit
	newData []byte
	linked  *edithistory.SetStep
}

// plan checks a change against the snapshot and the field and makes the
// new bytes, verified, without writing.
func (b *Backend) plan(c gen.PropertyEditParams) (*planned, error) {
	e, err := b.editor(gen.ProjectContext{SessionID: c.SessionID, ProjectID: c.ProjectID, Generation: c.Generation}, c.ObjectID)
	if err != nil {
		return nil, err
	}
	if c.Snapshot != e.snap {
		return nil, e.sourceChanged()
	}
	f := e.field(c.Path)
	if f == nil {
		id, path := c.ObjectID, c.Path
		return nil, e.readOnlyError(gen.PropertyReadOnlyDetails{Reason: ptrTo(gen.PropertyReadOnlyReasonNotEditable), ObjectID: &id, Path: &path})
	}
	if e.linkedField(f) {
		if err := e.checkContext(c.ContextSnapshot); err != nil {
			return nil, err
		}
		step, own, err := e.linkedPlan(f, c.Change)
		if err != nil {
			return nil, invalidChange(err)
		}
		return &planned{e: e, f: f, edits: own, linked: step}, nil
	}
	edits, err := e.edits(f, c.Change)
	if err != nil {
		return nil, invalidChange(err)
	}
	newData, err := xmledit.Apply(e.data, edits)
	if err != nil {
		return nil, err
	}
	if err := e.verify(newData, f, c.Change); err != nil {
		b.diag("edit-verify")
		return nil, gen.NewError(gen.CodeInternalError, nil)
	}
	return &planned{e: e, f: f, edits: edits, newData: newData}, nil
}

func (e *editor) sourceChanged() error {
	rel, _ := e.p.rel(e.desc)
	return derr(gen.DomainErrorKindSourceChanged, gen.SourceChangedDetails{Path: ToPath(rel)}, e.p, e.b.s)
}

// verify parses the new bytes: they must give the same element tree as
// the old ones except inside the edited element, and the field must read
// back as the change.
func (e *editor) verify(newData []byte, f *field, c gen.PropertyChange) error {
	if bytes.Equal(newData, e.data) {
		return nil
	}
	d, err := designer.ParseDescriptor(e.desc, newData, e.p.r.Limit)
	if err != nil {
		return err
	}
	if d.Object == nil || d.Object.Name != e.own.name {
		return errors.New("the object is gone")
	}
	if !sameExcept(e.root, d.Root, f.el, f.attr) {
		return errors.New("more than the field changed")
	}
	again := *e
	again.data = newData
	again.ownEl = d.Object.El
	el := nestedElement(again.ownEl, e.own, e.o, nil)
	if el == nil {
		return errors.New("the object is gone")
	}
	again.el, again.props = el, el.Child("Properties")
	g := again.field(f.path)
	if g == nil {
		return errors.New("the field is gone")
	}
	if want, _ := gen.MarshalPropertyChange(c); !sameValue(again.current(g), want, f.row.Schema) {
		return fmt.Errorf("the field reads back as %s", again.current(g))
	}
	return nil
}

// sameValue compares a field's value with the value of a change.
func sameValue(current, change []byte, schema string) bool {
	var v struct {
		Value any    `json:"value"`
		Type  string `json:"type"`
	}
	if err := json.Unmarshal(change, &v); err != nil {
		return false
	}
	if schema == "value" {
		var cur struct{ Type, Value string }
		if json.Unmarshal(current, &cur) != nil {
			return false
		}
		s, _ := v.Value.(string)
		return cur.Type == v.Type && cur.Value == s
	}
	var cur any
	if json.Unmarshal(current, &cur) != nil {
		return false
	}
	return fmt.Sprint(cur) == fmt.Sprint(v.Value)
}

// sameExcept compares two element trees, allowing differences only
// inside the element edited (or, for an attribute, in that attribute).
func sameExcept(a, b, edited *designer.Element, attr string) bool {
	if a == edited {
		if attr == "" {
			return a.Local == b.Local && a.Space == b.Space
		}
		if a.Text != b.Text || len(a.Children) != len(b.Children) || len(a.Attrs) != len(b.Attrs) {
			return false
		}
		for i := range a.Attrs {
			if a.Attrs[i].Name != b.Attrs[i].Name || (a.Attrs[i].Value != b.Attrs[i].Value && "@"+a.Attrs[i].Name.Local != attr) {
				return false
			}
		}
		for i := range a.Children {
			if !sameExcept(a.Children[i], b.Children[i], nil, "") {
				return false
			}
		}
		return true
	}
	if a.Local != b.Local || a.Space != b.Space || a.Text != b.Text || a.Mixed != b.Mixed || len(a.Children) != len(b.Children) || len(a.Attrs) != len(b.Attrs) {
		return false
	}
	for i := range a.Attrs {
		if a.Attrs[i] != b.Attrs[i] {
			return false
		}
	}
	for i := range a.Children {
		if !sameExcept(a.Children[i], b.Children[i], edited, attr) {
			return false
		}
	}
	return true
}

// PreviewProperty answers metadata/previewProperty: what the change
// would replace, and whether it may be written. Nothing is written.
func (b *Backend) PreviewProperty(c gen.PropertyEditParams) (gen.PreviewResult, error) {
	pl, err := b.plan(c)
	if err != nil {
		return gen.PreviewResult{}, err
	}
	ok, _ := pl.e.writable()
	r := gen.PreviewResult{Valid: ok, Changes: []gen.ByteEdit{}}
	if pl.linked != nil {
		pl.e.previewLinked(pl, &r)
	} else if !bytes.Equal(pl.newData, pl.e.data) {
		r.Changed = true
		for _, ed := range pl.edits {
			r.Changes = append(r.Changes, gen.ByteEdit{Range: gen.Range{Start: ed.Start, End: ed.End}, Text: ed.Text})
		}
	}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(pl.e.p)
	return r, nil
}

// UpdateProperty answers metadata/updateProperty: the change written
// exactly, atomically and reversibly, and announced.
func (b *Backend) UpdateProperty(c gen.PropertyEditParams) (gen.PropertyWriteResult, error) {
	if !b.granted(gen.CapabilityPropertyEditing) {
		return gen.PropertyWriteResult{}, DomainError(gen.DomainErrorKindPropertyReadOnly, gen.PropertyReadOnlyDetails{Reason: ptrTo(gen.PropertyReadOnlyReasonOptIn)})
	}
	pl, err := b.plan(c)
	if err != nil {
		return gen.PropertyWriteResult{}, err
	}
	e := pl.e
	if ok, d := e.writable(); !ok {
		return gen.PropertyWriteResult{}, e.readOnlyError(d)
	}
	if pl.linked != nil {
		return b.writeLinked(e, pl.linked)
	}
	if bytes.Equal(pl.newData, e.data) {
		// Nothing to write: nothing is announced.
		return b.writeResult(e.p, e.o.id)
	}
	if err := b.write(e, pl.newData); err != nil {
		return gen.PropertyWriteResult{}, err
	}
	if afterWrite != nil {
		afterWrite()
	}
	if err := e.p.editing(b).hist.Push(e.desc, edithistory.Step{Object: e.o.id, Before: e.data, After: pl.newData}); err != nil {
		b.diag("edit-history")
	}
	b.committed(e.p, e.own)
	return b.writeResult(e.p, e.o.id)
}

// UndoProperty answers metadata/undoProperty: the last write of the
// object's descriptor undone (or the last undone one redone), if the file
// still holds the bytes the step expects.
func (b *Backend) UndoProperty(c gen.UndoPropertyParams) (gen.PropertyWriteResult, error) {
	if !b.granted(gen.CapabilityPropertyEditing) {
		return gen.PropertyWriteResult{}, DomainError(gen.DomainErrorKindPropertyReadOnly, gen.PropertyReadOnlyDetails{Reason: ptrTo(gen.PropertyReadOnlyReasonOptIn)})
	}
	e, err := b.editor(gen.ProjectContext{SessionID: c.SessionID, ProjectID: c.ProjectID, Generation: c.Generation}, c.ObjectID)
	if err != nil {
		return gen.PropertyWriteResult{}, err
	}
	if c.Snapshot != e.snap {
		return gen.PropertyWriteResult{}, e.sourceChanged()
	}
	if ok, d := e.writable(); !ok {
		return gen.PropertyWriteResult{}, e.readOnlyError(d)
	}
	redo := c.Direction == gen.UndoDirectionRedo
	hist := e.p.editing(b).hist
	step, ok := hist.Peek(e.desc, redo)
	if !ok {
		return gen.PropertyWriteResult{}, invalidParams("/direction", fmt.Sprintf("nothing to %s for %s", c.Direction, c.ObjectID))
	}
	if step.Set != nil {
		if step.Set.Linked {
			if err := e.checkContext(c.ContextSnapshot); err != nil {
				return gen.PropertyWriteResult{}, err
			}
		}
		return b.replaySet(e, step, redo)
	}
	expect, target := step.After, step.Before
	if redo {
		expect, target = step.Before, step.After
	}
	if !bytes.Equal(e.data, expect) {
		// Changed outside this history: replay would undo someone else's
		// work. The history stays for the user to decide.
		return gen.PropertyWriteResult{}, e.sourceChanged()
	}
	if err := b.write(e, target); err != nil {
		return gen.PropertyWriteResult{}, err
	}
	if err := hist.Moved(e.desc, redo); err != nil {
		b.diag("edit-history")
	}
	b.committed(e.p, e.own)
	return b.writeResult(e.p, e.o.id)
}

// write replaces the descriptor's bytes under the project's write lock.
func (b *Backend) write(e *editor, data []byte) error {
	w := e.p.editing(b).w
	unlock, err := w.Lock()
	if err == nil {
		// The step must be kept: its folder is checked before the write.
		if err = e.p.editing(b).hist.Ready(e.desc); err != nil {
			unlock()
		}
	}
	if err != nil {
		if errors.Is(err, atomicfile.ErrBusy) {
			return derr(gen.DomainErrorKindPropertyEditBusy, gen.EmptyDetails{}, e.p, b.s)
		}
		if serr, ok := b.stateError(e.p, e.o, err); ok {
			return serr
		}
		return b.loadError(e.p, e.o, &sourceread.Error{Path: e.desc, Reason: gen.SourceErrorReasonIo, Err: err})
	}
	defer unlock()
	rel, _ := e.p.rel(e.desc)
	err = w.Replace(atomicfile.Change{Rel: rel, Old: e.data, New: data})
	var ve *atomicfile.VerifyError
	if serr, ok := b.stateError(e.p, e.o, err); ok {
		return serr
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, atomicfile.ErrChanged):
		return e.sourceChanged()
	case errors.Is(err, atomicfile.ErrSymlink):
		id := gen.ObjectID(e.o.id)
		return e.readOnlyError(gen.PropertyReadOnlyDetails{Reason: ptrTo(gen.PropertyReadOnlyReasonSymlink), ObjectID: &id})
	case errors.As(err, &ve) && ve.Reverted:
		return e.sourceChanged()
	case errors.As(err, &ve), errors.Is(err, atomicfile.ErrRecoveryRequired):
		return derr(gen.DomainErrorKindPropertyRecoveryRequired, gen.EmptyDetails{}, e.p, b.s)
	case errors.Is(err, atomicfile.ErrNotRegular):
		return b.loadError(e.p, e.o, &sourceread.Error{Path: e.desc, Reason: gen.SourceErrorReasonNotFile, Err: err})
	}
	return b.loadError(e.p, e.o, &sourceread.Error{Path: e.desc, Reason: gen.SourceErrorReasonIo, Err: err})
}

// afterWrite lets the tests act between a write and the reading again
// of its object.
var afterWrite func()

// committed announces a write: the generation and the event sequence go
// up, the object's descriptor is read again on next use, and
// metadata/changed says support data was left alone (a property write
// never touches a uuid or a name).
func (b *Backend) committed(p *project, own *object) {
	p.stopPrefetch()
	if !p.advance(true) {
		return
	}
	p.invalidate(own)
	p.forgetRecords(own)
	b.announce(p, []string{own.id}, false, true)
}

// writeResult answers a write with the object's properties and editing
// state read again; when that fails the write stands and the client is
// told to refresh.
func (b *Backend) writeResult(p *project, id string) (gen.PropertyWriteResult, error) {
	refresh := func() error {
		return derr(gen.DomainErrorKindPropertyCommittedRefreshRequired, gen.EmptyDetails{}, p, b.s)
	}
	ctx := gen.ProjectContext{SessionID: gen.SessionID(b.s.id), ProjectID: gen.ProjectID(p.id), Generation: gen.Generation(p.generation)}
	if _, ok := p.objs[id]; !ok {
		// A nested object is known again once its owner is read.
		for cur := id; strings.Contains(cur, "/"); {
			cur = cur[:strings.LastIndex(cur, "/")]
			if o, ok := p.objs[cur]; ok {
				p.load(o)
				break
			}
		}
	}
	props, err := b.Properties(gen.ObjectParams{SessionID: ctx.SessionID, ProjectID: ctx.ProjectID, Generation: ctx.Generation, ObjectID: gen.ObjectID(id)})
	if err != nil {
		return gen.PropertyWriteResult{}, refresh()
	}
	e, err := b.editor(ctx, gen.ObjectID(id))
	if err != nil {
		return gen.PropertyWriteResult{}, refresh()
	}
	r := gen.PropertyWriteResult{Properties: props.Properties, Picture: props.Picture, Editing: e.state()}
	r.SessionID, r.ProjectID, r.Generation, r.EventSequence = b.ctx(p)
	return r, nil
}
