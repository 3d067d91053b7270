package metadata

// Linked numerator edits (API 1.10). A document numerator's five
// numbering parameters, and those of every document that names it, are
// one setting: a change of one writes the numerator and every such
// document in one step of several files. A document's Numerator is
// linked too: assigning a numerator moves its five parameters into the
// document. The linked context (the numerator's descriptor and those of
// its documents) has a snapshot of its own, contextSnapshot, which a
// linked write must name.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/contractkit/contractkit/designer"
	"github.com/contractkit/contractkit/designer/xmledit"
	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/metadata/edithistory"
	"github.com/contractkit/contractkit/ide/metadata/sourceread"
	"github.com/contractkit/contractkit/internal/byteedit"
	"github.com/contractkit/contractkit/runtime/genrt"
)

// The values of the profile's link column.
const (
	linkNumerator  = "numerator"           // a document's Numerator
	linkParameter  = "numerator-parameter" // one of the five numbering parameters
	kindNumerator  = designer.Kind("document-numerator")
	numeratorClass = "DocumentNumerator" // the class word of a numerator's full name
)

// numberingParameters are the five parameters a numerator sets, in the
// order a document's descriptor holds them.
var numberingParameters = []string{"NumberType", "NumberLength", "NumberAllowedLength", "NumberPeriodicity", "CheckUnique"}

// linkFile is one descriptor of a linked context, read once.
type linkFile struct {
	o     *object
	path  string
	data  []byte
	props *designer.Element
}

// linkCtx is the linked context of an editor's object.
type linkCtx struct {
	numerator *linkFile   // nil for a document that names none
	docs      []*linkFile // the documents that name the numerator
	choices   []*linkFile // for a document without one: every numerator it may take
	snapshot  string
	err       error
}

// hasLinked reports whether the object's kind has linked fields at all.
func (e *editor) hasLinked() bool {
	return e.props != nil && e.o.parent == e.p.root && (e.o.kind() == designer.KindDocument || e.o.kind() == kindNumerator)
}

// numeratorName is the numerator a document's Properties name, or "".
func numeratorName(props *designer.Element) string {
	if props == nil || props.Child("Numerator") == nil {
		return ""
	}
	name, ok := strings.CutPrefix(strings.TrimSpace(props.Child("Numerator").Text), numeratorClass+".")
	if !ok {
		return ""
	}
	return name
}

// linkedField reports whether a field takes part in a linked edit: the
// Numerator of a document, and a numbering parameter of a numerator or
// of a document that names one.
func (e *editor) linkedField(f *field) bool {
	if !e.hasLinked() {
		return false
	}
	switch f.row.Link {
	case linkNumerator:
		return true
	case linkParameter:
		return e.o.kind() == kindNumerator || numeratorName(e.props) != ""
	}
	return false
}

// readLink reads one descriptor of the context.
func (e *editor) readLink(o *object) (*linkFile, error) {
	data, err := e.p.r.Read(o.desc)
	if err != nil {
		return nil, err
	}
	d, err := designer.ParseDescriptor(o.desc, data, e.p.r.Limit)
	if _, err = e.p.r.Interpret(o.desc, d, err); err != nil {
		return nil, err
	}
	if d.Object == nil || d.Object.Name != o.name {
		return nil, &sourceread.Error{Path: o.desc, Reason: reasonChanged, Err: fmt.Errorf("the descriptor no longer defines %s", o.id)}
	}
	return &linkFile{o: o, path: o.desc, data: data, props: d.Object.El.Child("Properties")}, nil
}

// link reads the object's linked context once per request.
func (e *editor) link() *linkCtx {
	if e.lctx != nil {
		return e.lctx
	}
	lc := &linkCtx{}
	e.lctx = lc
	own := &linkFile{o: e.o, path: e.desc, data: e.data, props: e.props}
	var numName string
	switch e.o.kind() {
	case kindNumerator:
		lc.numerator, numName = own, e.o.name
	case designer.KindDocument:
		numName = numeratorName(e.props)
	}
	var files []*linkFile
	if numName == "" {
		// A document without a numerator: the numerators it may take.
		files = append(files, own)
		for _, c := range e.p.root.children {
			if c.kind() == kindNumerator {
				lf, err := e.readLink(c)
				if err != nil {
					lc.err = err
					return lc
				}
				lc.choices = append(lc.choices, lf)
				files = append(files, lf)
			}
		}
	} else {
		if lc.numerator == nil {
			n, ok := e.p.objs[designer.ObjectID("", kindNumerator, numName)]
			if !ok || n.parent != e.p.root {
				lc.err = &sourceread.Error{Path: e.desc, Reason: gen.SourceErrorReasonInvalidMetadata, Err: fmt.Errorf("the numerator %s is not declared", numName)}
				return lc
			}
			lf, err := e.readLink(n)
			if err != nil {
				lc.err = err
				return lc
			}
			lc.numerator = lf
		}
		files = append(files, lc.numerator)
		needle := []byte(numeratorClass + "." + numName + "<")
		for _, c := range e.p.root.children {
			if c.kind() != designer.KindDocument {
				continue
			}
			lf := own
			if c != e.o {
				data, err := e.p.r.Read(c.desc)
				if err != nil || !bytes.Contains(data, needle) {
					continue
				}
				if lf, err = e.readLink(c); err != nil {
					lc.err = err
					return lc
				}
			}
			if numeratorName(lf.props) == numName {
				lc.docs = append(lc.docs, lf)
				files = append(files, lf)
			}
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	h := sha256.New()
	for _, f := range files {
		rel, _ := e.p.rel(f.path)
		fmt.Fprintf(h, "%s\x00%s\x00", filepath.ToSlash(rel), sha(f.data))
	}
	lc.snapshot = hex.EncodeToString(h.Sum(nil))
	return lc
}

// linkedState fills the linked members of the editing state.
func (e *editor) linkedState(st *gen.EditingState, undoLinked, redoLinked bool) {
	st.UndoLinked, st.RedoLinked = ptrTo(undoLinked), ptrTo(redoLinked)
	// A client of 1.10 always gets the member: null says there is no
	// linked context to name, which absence (an older client) cannot.
	st.ContextSnapshot = genrt.NullOf[string]()
	if !e.hasLinked() {
		return
	}
	lc := e.link()
	if lc.err != nil {
		return
	}
	st.ContextSnapshot = genrt.Some(lc.snapshot)
	st.LinkedObjects = []gen.ObjectID{}
	if lc.numerator != nil && lc.numerator.o != e.o {
		st.LinkedObjects = append(st.LinkedObjects, gen.ObjectID(lc.numerator.o.id))
	}
	for _, d := range lc.docs {
		if d.o != e.o {
			st.LinkedObjects = append(st.LinkedObjects, gen.ObjectID(d.o.id))
		}
	}
}

// checkContext checks the contextSnapshot a linked request names.
func (e *editor) checkContext(c genrt.Nullable[string]) error {
	lc := e.link()
	if lc.err != nil {
		return e.b.loadError(e.p, e.o, lc.err)
	}
	got, ok := c.Get()
	if !ok {
		return invalidParams("/contextSnapshot", "a linked field needs the contextSnapshot of the editing state shown")
	}
	if got != lc.snapshot {
		path := e.desc
		if lc.numerator != nil {
			path = lc.numerator.path
		}
		rel, _ := e.p.rel(path)
		return derr(gen.DomainErrorKindSourceChanged, gen.SourceChangedDetails{Path: ToPath(rel)}, e.p, e.b.s)
	}
	return nil
}

// changeText is the text a scalar change writes.
func changeText(c gen.PropertyChange) string {
	switch v := c.(type) {
	case gen.TextChange:
		return v.Value
	case gen.BooleanChange:
		return strconv.FormatBool(v.Value)
	case gen.EnumChange:
		return v.Value
	case gen.IntegerChange:
		return strconv.FormatInt(v.Value, 10)
	case gen.UnsignedIntegerChange:
		return strconv.FormatUint(v.Value, 10)
	}
	return ""
}

// linkedPlan makes the step of a linked change: the replacements of
// every file of the context. own are those of the object's descriptor.
func (e *editor) linkedPlan(f *field, c gen.PropertyChange) (*edithistory.SetStep, []xmledit.Edit, error) {
	lc := e.link()
	if lc.err != nil {
		return nil, nil, e.b.loadError(e.p, e.o, lc.err)
	}
	edits := map[*linkFile][]xmledit.Edit{}
	own := &linkFile{o: e.o, path: e.desc, data: e.data, props: e.props}
	set := func(lf *linkFile, name, text string) error {
		el := lf.props.Child(name)
		if el == nil {
			return &errInvalid{path: f.path, why: fmt.Sprintf("%s has no %s to keep in step", lf.o.id, name)}
		}
		ed, err := xmledit.SetText(lf.data, el, text)
		if err != nil {
			return err
		}
		edits[lf] = append(edits[lf], ed)
		return nil
	}
	switch f.row.Link {
	case linkParameter:
		ownEdits, err := e.edits(f, c)
		if err != nil {
			return nil, nil, err
		}
		text := changeText(c)
		for _, lf := range append([]*linkFile{lc.numerator}, lc.docs...) {
			if lf.path == e.desc {
				edits[lf] = ownEdits
				continue
			}
			if err := set(lf, f.path, text); err != nil {
				return nil, nil, err
			}
		}
	case linkNumerator:
		rc, ok := c.(gen.ReferenceChange)
		if !ok {
			return nil, nil, invalid(f, "a reference change for a reference field")
		}
		if rc.Value == nil || *rc.Value == "" {
			if err := set(own, "Numerator", ""); err != nil {
				return nil, nil, err
			}
			break
		}
		var from *linkFile
		for _, n := range lc.choices {
			if numeratorClass+"."+n.o.name == *rc.Value {
				from = n
			}
		}
		if lc.numerator != nil && numeratorClass+"."+lc.numerator.o.name == *rc.Value {
			from = lc.numerator
		}
		if from == nil {
			return nil, nil, invalid(f, "%q is not one of the numerators metadata/propertyReferenceChoices lists", *rc.Value)
		}
		if err := set(own, "Numerator", *rc.Value); err != nil {
			return nil, nil, err
		}
		for _, name := range numberingParameters {
			if src := from.props.Child(name); src != nil && own.props.Child(name) != nil {
				if err := set(own, name, strings.TrimSpace(src.Text)); err != nil {
					return nil, nil, err
				}
			}
		}
	default:
		return nil, nil, invalid(f, "not a linked field")
	}
	step := &edithistory.SetStep{Linked: true}
	var ownEdits []xmledit.Edit
	for lf, eds := range edits {
		rel, _ := e.p.rel(lf.path)
		sf, err := edithistory.NewSetFile(filepath.ToSlash(rel), lf.data, eds)
		if err != nil {
			return nil, nil, err
		}
		if err := e.verifyLinked(lf, sf); err != nil {
			e.b.diag("edit-verify")
			return nil, nil, gen.NewError(gen.CodeInternalError, nil)
		}
		if sf.Before == sf.After {
			continue
		}
		step.Files = append(step.Files, sf)
		if lf.path == e.desc {
			ownEdits = eds
		}
	}
	sort.Slice(step.Files, func(i, j int) bool { return step.Files[i].Rel < step.Files[j].Rel })
	return step, ownEdits, nil
}

// verifyLinked parses the new bytes of a file of a linked step: the
// descriptor still defines its object, and only numbering parameters
// and Numerator changed.
func (e *editor) verifyLinked(lf *linkFile, sf edithistory.SetFile) error {
	if sf.Before == sf.After {
		return nil
	}
	nb, err := byteedit.Apply(lf.data, sf.Edits)
	if err != nil {
		return err
	}
	d, err := designer.ParseDescriptor(lf.path, nb, e.p.r.Limit)
	if err != nil {
		return err
	}
	if d.Object == nil || d.Object.Name != lf.o.name {
		return fmt.Errorf("%s: the object is gone", lf.path)
	}
	allowed := map[string]bool{"Numerator": true}
	for _, n := range numberingParameters {
		allowed[n] = true
	}
	old, err := designer.ParseDescriptor(lf.path, lf.data, e.p.r.Limit)
	if err != nil {
		return err
	}
	edited := map[*designer.Element]bool{}
	for _, c := range old.Object.El.Child("Properties").Children {
		if allowed[c.Local] {
			edited[c] = true
		}
	}
	if !sameExceptSet(old.Root, d.Root, edited) {
		return fmt.Errorf("%s: more than the numbering changed", lf.path)
	}
	return nil
}

// sameExceptSet compares two element trees, allowing any difference
// inside the elements of edited (found in a).
func sameExceptSet(a, b *designer.Element, edited map[*designer.Element]bool) bool {
	if a.Local != b.Local || a.Space != b.Space {
		return false
	}
	if edited[a] {
		return true
	}
	if a.Text != b.Text || a.Mixed != b.Mixed || len(a.Children) != len(b.Children) || len(a.Attrs) != len(b.Attrs) {
		return false
	}
	for i := range a.Attrs {
		if a.Attrs[i] != b.Attrs[i] {
			return false
		}
	}
	for i := range a.Children {
		if !sameExceptSet(a.Children[i], b.Children[i], edited) {
			return false
		}
	}
	return true
}

// numeratorChoices lists the numerators a document may take.
func (e *editor) numeratorChoices() []gen.ReferenceChoice {
	out := []gen.ReferenceChoice{}
	for _, c := range e.p.root.children {
		if c.kind() == kindNumerator {
			out = append(out, gen.ReferenceChoice{Value: numeratorClass + "." + c.name, ObjectID: gen.ObjectID(c.id), MetadataKind: gen.MetadataKind(c.kind()), Caption: synonymCaption(c)})
		}
	}
	return out
}

// writeLinked writes a linked step, keeps it in the history of the
// object edited and announces every object it changed.
func (b *Backend) writeLinked(e *editor, step *edithistory.SetStep) (gen.PropertyWriteResult, error) {
	if len(step.Files) == 0 {
		return b.writeResult(e.p, e.o.id)
	}
	if err := b.writeSet(e.p, step); err != nil {
		return gen.PropertyWriteResult{}, b.linkedWriteError(e, err)
	}
	if afterWrite != nil {
		afterWrite()
	}
	if err := e.p.editing(b).hist.Push(e.desc, edithistory.Step{Object: e.o.id, Set: step}); err != nil {
		b.diag("edit-history")
	}
	b.linkedCommitted(e.p, step)
	return b.writeResult(e.p, e.o.id)
}

// linkedWriteError maps a failed linked write (or its undo).
func (b *Backend) linkedWriteError(e *editor, err error) error {
	id := gen.ObjectID(e.o.id)
	symlink := func() error {
		return e.readOnlyError(gen.PropertyReadOnlyDetails{Reason: ptrTo(gen.PropertyReadOnlyReasonSymlink), ObjectID: &id})
	}
	return b.setWriteError(e.p, err, symlink, func() error { return e.sourceChanged() })
}

// linkedCommitted takes a written linked step in: the objects of its
// files are read again on next use and announced together.
func (b *Backend) linkedCommitted(p *project, s *edithistory.SetStep) {
	p.stopPrefetch()
	if !p.advance(true) {
		return
	}
	var affected []string
	for _, f := range s.Files {
		if o := p.owner(filepath.FromSlash(f.Rel)); o != nil && o != p.root {
			p.invalidate(o)
			p.forgetRecords(o)
			affected = append(affected, o.id)
		}
	}
	b.announce(p, affected, false, true)
}

// previewLinked fills a preview of a linked change: the replacements of
// the object's descriptor, and those of every file.
func (e *editor) previewLinked(pl *planned, r *gen.PreviewResult) {
	r.Files = []gen.FileEdits{}
	for _, ed := range pl.edits {
		r.Changes = append(r.Changes, gen.ByteEdit{Range: gen.Range{Start: ed.Start, End: ed.End}, Text: ed.Text})
	}
	for _, f := range pl.linked.Files {
		fe := gen.FileEdits{Path: ToPath(filepath.FromSlash(f.Rel)), Changes: make([]gen.ByteEdit, 0, len(f.Edits))}
		for _, ed := range f.Edits {
			fe.Changes = append(fe.Changes, gen.ByteEdit{Range: gen.Range{Start: ed.Start, End: ed.End}, Text: ed.Text})
		}
		r.Files = append(r.Files, fe)
	}
	r.Changed = len(pl.linked.Files) > 0
}
