package agui

import (
	"fmt"
	"strconv"
	"strings"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// The JSON Patch applier (RFC 6902). It changes the document in place and
// writes every change into an undo log, so that a patch that fails part way
// is undone exactly: the document is then the same tree it was, value for
// value. Applying a patch costs the length of the patch and of the paths it
// names, not the size of the document: nothing is copied to make a patch
// atomic. (Inserting into or removing from the middle of an array or an
// object still moves the entries after it, as it would in any array.)

// Patch operation names (RFC 6902 section 4): the tags of the profile's
// JSONPatchOperation union.
const (
	opAdd     = contract.JSONPatchOperationTagAdd
	opRemove  = contract.JSONPatchOperationTagRemove
	opReplace = contract.JSONPatchOperationTagReplace
	opMove    = contract.JSONPatchOperationTagMove
	opCopy    = contract.JSONPatchOperationTagCopy
	opTest    = contract.JSONPatchOperationTagTest
)

// Members of a patch operation, named alike in every operation that has
// them.
const (
	namePath  = contract.AddOperationMemberPath
	nameFrom  = contract.MoveOperationMemberFrom
	nameValue = contract.AddOperationMemberValue
)

// patchOp is one operation, its pointers still unparsed. Index is its
// position in the patch as the record wrote it.
type patchOp struct {
	Op    string
	Path  string
	From  string
	Value *strictjson.Value
	Index int
}

// patchFault says why a patch does not apply: which operation (its index
// in the patch as written), which of its members ("path", "from" or "" for
// the operation as a whole) and what kind of problem it is.
type patchFault struct {
	Index  int
	Member string
	Kind   faultKind
	Msg    string
}

type faultKind int

const (
	faultApply      faultKind = iota // the operation does not apply to the document
	faultRemoveRoot                  // remove of the whole document
	faultCopyMove                    // copy or move where they are not allowed
	faultUnknownOp                   // an operation RFC 6902 does not define
	faultDepth                       // the patched document would nest deeper than maxDepth
)

func (f *patchFault) Error() string {
	return fmt.Sprintf("operation %d: %s", f.Index, f.Msg)
}

// patchOptions say which operations a caller allows.
type patchOptions struct {
	copyMove bool // RFC 6902 copy and move
	// maxDepth, when not 0, bounds how deep the document may nest after a
	// patch, counted from its root, which is level 1.
	maxDepth int
}

// indexFrom is the member count from which an object gets a map from
// member name to position: below it a scan is cheaper than the map.
const indexFrom = 32

// patcher holds a document and applies patches to it.
type patcher struct {
	root *strictjson.Value
	opt  patchOptions
	undo []undo
	// index maps the names of a large object to their positions. It is
	// kept while the object is only added to and replaced in, and dropped
	// when a member is removed or a patch is undone.
	index map[*strictjson.Value]map[string]int
	// path and from hold the tokens of the pointers being applied, reused
	// from one operation to the next.
	path, from []string
	// deepOp is the index of the last operation of the patch being applied
	// that put a value deeper than maxDepth, or -1. Only then is the whole
	// document measured: a value placed within the bound cannot take a
	// document that was within it past it, so most patches cost nothing.
	deepOp int
}

// undo is one change, and how to take it back.
type undo struct {
	kind undoKind
	c    *strictjson.Value // the container changed
	i    int               // the position changed
	v    *strictjson.Value // the value replaced or removed, or the old root
	m    strictjson.Member // the member removed
}

type undoKind uint8

const (
	undoRoot         undoKind = iota // the root was replaced by another value
	undoSetMember                    // member i's value was replaced
	undoSetElem                      // element i was replaced
	undoAppendMember                 // a member was appended
	undoInsertElem                   // element i was inserted
	undoRemoveMember                 // member i was removed
	undoRemoveElem                   // element i was removed
)

func newPatcher(root *strictjson.Value, opt patchOptions) *patcher {
	return &patcher{root: root, opt: opt}
}

// apply applies ops in order. On a fault every change they made is undone
// and the fault names the operation; otherwise the changes stay pending
// until commit or rollback.
func (p *patcher) apply(ops []patchOp) *patchFault {
	p.undo = p.undo[:0]
	p.deepOp = -1
	for _, op := range ops {
		if f := p.op(op); f != nil {
			p.rollback()
			f.Index = op.Index
			return f
		}
	}
	// A later operation may have removed what went too deep: the bound
	// holds for the document the whole patch leaves.
	if p.deepOp >= 0 && !withinDepth(p.root, p.opt.maxDepth) {
		p.rollback()
		return &patchFault{Index: p.deepOp, Kind: faultDepth,
			Msg: fmt.Sprintf("the patch would leave the document nesting more than %d levels deep, counted from its root; "+
				"a snapshot of it would pass the depth limit of %d levels, counted from the event", p.opt.maxDepth, p.opt.maxDepth+memberLevel-1)}
	}
	return nil
}

// placed notes that an operation put v at a path of n tokens, where its
// deepest level is n plus its own depth.
func (p *patcher) placed(n int, v *strictjson.Value, index int) {
	if p.opt.maxDepth > 0 && !withinDepth(v, p.opt.maxDepth-n) {
		p.deepOp = index
	}
}

// withinDepth reports whether v nests at most limit levels, v itself
// being level 1 when it is an array or an object; a scalar has no level.
// It stops as soon as the answer is known.
func withinDepth(v *strictjson.Value, limit int) bool {
	switch v.Kind {
	case strictjson.Array:
		if limit <= 0 {
			return false
		}
		for _, e := range v.Elems {
			if !withinDepth(e, limit-1) {
				return false
			}
		}
	case strictjson.Object:
		if limit <= 0 {
			return false
		}
		for _, m := range v.Members {
			if !withinDepth(m.Value, limit-1) {
				return false
			}
		}
	}
	return true
}

// commit keeps the changes of the last apply.
func (p *patcher) commit() { p.undo = p.undo[:0] }

// rollback undoes the changes of the last apply, last first.
func (p *patcher) rollback() {
	for k := len(p.undo) - 1; k >= 0; k-- {
		u := &p.undo[k]
		c := u.c
		switch u.kind {
		case undoRoot:
			p.root = u.v
		case undoSetMember:
			c.Members[u.i].Value = u.v
		case undoSetElem:
			c.Elems[u.i] = u.v
		case undoAppendMember:
			c.Members[len(c.Members)-1] = strictjson.Member{}
			c.Members = c.Members[:len(c.Members)-1]
		case undoInsertElem:
			c.Elems = removeAt(c.Elems, u.i)
		case undoRemoveMember:
			c.Members = insertAt(c.Members, u.i, u.m)
		case undoRemoveElem:
			c.Elems = insertAt(c.Elems, u.i, u.v)
		}
		*u = undo{}
	}
	p.undo = p.undo[:0]
	clear(p.index) // positions may have moved back; rebuilt when needed
}

func insertAt[T any](s []T, i int, x T) []T {
	var zero T
	s = append(s, zero)
	copy(s[i+1:], s[i:])
	s[i] = x
	return s
}

func removeAt[T any](s []T, i int) []T {
	copy(s[i:], s[i+1:])
	var zero T
	s[len(s)-1] = zero
	return s[:len(s)-1]
}

func (p *patcher) op(op patchOp) *patchFault {
	fault := func(member string, kind faultKind, format string, args ...any) *patchFault {
		return &patchFault{Member: member, Kind: kind, Msg: fmt.Sprintf(format, args...)}
	}
	path, err := parsePointer(p.path[:0], op.Path)
	if err != nil {
		return fault(namePath, faultApply, "%v", err)
	}
	p.path = path
	switch op.Op {
	case opAdd:
		if err := p.add(path, op.Value); err != nil {
			return fault(namePath, faultApply, "add at %q: %v", op.Path, err)
		}
		p.placed(len(path), op.Value, op.Index)
		return nil
	case opRemove:
		if len(path) == 0 {
			return fault(namePath, faultRemoveRoot, "remove cannot delete the whole document")
		}
		if _, err := p.remove(path); err != nil {
			return fault(namePath, faultApply, "remove at %q: %v", op.Path, err)
		}
		return nil
	case opReplace:
		if err := p.replace(path, op.Value); err != nil {
			return fault(namePath, faultApply, "replace at %q: %v", op.Path, err)
		}
		p.placed(len(path), op.Value, op.Index)
		return nil
	case opTest:
		got, err := p.get(path)
		if err != nil {
			return fault(namePath, faultApply, "test at %q: %v", op.Path, err)
		}
		if !equalJSON(got, op.Value) {
			return fault("", faultApply, "test at %q failed: the value there is %s, not %s", op.Path, compact(got), compact(op.Value))
		}
		return nil
	case opMove, opCopy:
		if !p.opt.copyMove {
			return fault("", faultCopyMove, "%s is not supported; only add, remove, replace and test are", op.Op)
		}
		from, err := parsePointer(p.from[:0], op.From)
		if err != nil {
			return fault(nameFrom, faultApply, "%v", err)
		}
		p.from = from
		v, err := p.get(from)
		if err != nil {
			return fault(nameFrom, faultApply, "%s from %q: %v", op.Op, op.From, err)
		}
		if op.Op == opMove {
			if op.From == op.Path {
				return nil
			}
			if strings.HasPrefix(op.Path, op.From+"/") {
				return fault(nameFrom, faultApply, "move from %q into its own child %q", op.From, op.Path)
			}
			if len(from) == 0 {
				return fault(nameFrom, faultApply, "move cannot take the whole document")
			}
			if v, err = p.remove(from); err != nil {
				return fault(nameFrom, faultApply, "move from %q: %v", op.From, err)
			}
		} else {
			// The copy is a value of its own: a later operation that
			// changes one must not change the other.
			v = cloneValue(v)
		}
		if err := p.add(path, v); err != nil {
			return fault(namePath, faultApply, "%s to %q: %v", op.Op, op.Path, err)
		}
		p.placed(len(path), v, op.Index)
		return nil
	}
	return fault("", faultUnknownOp, "unknown operation %q", op.Op)
}

// parsePointer appends the unescaped tokens of an RFC 6901 pointer to dst.
func parsePointer(dst []string, p string) ([]string, error) {
	if p == "" {
		return dst, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("pointer %q does not start with a slash", p)
	}
	for rest := p[1:]; ; {
		t, after, more := strings.Cut(rest, "/")
		t, ok := strictjson.UnescapePointerToken(t)
		if !ok {
			return nil, fmt.Errorf("pointer %q has a ~ that is not ~0 or ~1", p)
		}
		dst = append(dst, t)
		if !more {
			return dst, nil
		}
		rest = after
	}
}

// arrayIndex reads an array index token for an array of n elements:
// decimal digits without leading zeros, below n, or up to n when the
// operation inserts (add, and the target of copy and move, may name the
// place after the last element).
func arrayIndex(tok string, n int, inserts bool) (int, error) {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, fmt.Errorf("%q is not an array index", tok)
	}
	for _, c := range tok {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not an array index", tok)
		}
	}
	last := n - 1
	if inserts {
		last = n
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i > last {
		// The message says how many elements the array has, which is
		// not the bound an insertion is held to.
		elems := "elements"
		if n == 1 {
			elems = "element"
		}
		if inserts {
			return 0, fmt.Errorf("index %s is out of bounds: the array has %d %s, so a value can be inserted at index %d at most", tok, n, elems, last)
		}
		if n == 0 {
			return 0, fmt.Errorf("index %s is out of bounds: the array is empty", tok)
		}
		return 0, fmt.Errorf("index %s is out of bounds: the array has %d %s, the last at index %d", tok, n, elems, last)
	}
	return i, nil
}

// member returns the position of the member name in the object v, or -1.
func (p *patcher) member(v *strictjson.Value, name string) int {
	if len(v.Members) < indexFrom {
		return memberIndex(v, name)
	}
	ix := p.index[v]
	if ix == nil {
		ix = make(map[string]int, len(v.Members))
		for i := range v.Members {
			ix[v.Members[i].Key] = i
		}
		if p.index == nil {
			p.index = map[*strictjson.Value]map[string]int{}
		}
		p.index[v] = ix
	}
	if i, ok := ix[name]; ok {
		return i
	}
	return -1
}

func memberIndex(v *strictjson.Value, name string) int {
	for i := range v.Members {
		if v.Members[i].Key == name {
			return i
		}
	}
	return -1
}

// get returns the value at path.
func (p *patcher) get(path []string) (*strictjson.Value, error) {
	v := p.root
	for _, tok := range path {
		c, err := p.child(v, tok)
		if err != nil {
			return nil, err
		}
		v = c
	}
	return v, nil
}

func (p *patcher) child(v *strictjson.Value, tok string) (*strictjson.Value, error) {
	switch v.Kind {
	case strictjson.Object:
		i := p.member(v, tok)
		if i < 0 {
			return nil, fmt.Errorf("no member %q", tok)
		}
		return v.Members[i].Value, nil
	case strictjson.Array:
		i, err := arrayIndex(tok, len(v.Elems), false)
		if err != nil {
			return nil, err
		}
		return v.Elems[i], nil
	}
	return nil, fmt.Errorf("%s has no member %q", describeKind(v.Kind), tok)
}

// parent returns the container that path's last token names a place in.
func (p *patcher) parent(path []string) (*strictjson.Value, string, error) {
	c, err := p.get(path[:len(path)-1])
	return c, path[len(path)-1], err
}

func (p *patcher) setRoot(v *strictjson.Value) {
	p.undo = append(p.undo, undo{kind: undoRoot, v: p.root})
	p.root = v
}

func (p *patcher) add(path []string, val *strictjson.Value) error {
	if len(path) == 0 {
		p.setRoot(val)
		return nil
	}
	c, last, err := p.parent(path)
	if err != nil {
		return err
	}
	switch c.Kind {
	case strictjson.Object:
		if i := p.member(c, last); i >= 0 {
			p.undo = append(p.undo, undo{kind: undoSetMember, c: c, i: i, v: c.Members[i].Value})
			c.Members[i].Value = val
			return nil
		}
		c.Members = append(c.Members, strictjson.Member{Key: last, Value: val})
		if ix := p.index[c]; ix != nil {
			ix[last] = len(c.Members) - 1
		}
		p.undo = append(p.undo, undo{kind: undoAppendMember, c: c})
		return nil
	case strictjson.Array:
		i := len(c.Elems)
		if last != "-" {
			if i, err = arrayIndex(last, len(c.Elems), true); err != nil {
				return err
			}
		}
		c.Elems = insertAt(c.Elems, i, val)
		p.undo = append(p.undo, undo{kind: undoInsertElem, c: c, i: i})
		return nil
	}
	return fmt.Errorf("cannot add member %q to %s", last, describeKind(c.Kind))
}

// remove removes the value at path, which is not the root, and returns it.
func (p *patcher) remove(path []string) (*strictjson.Value, error) {
	c, last, err := p.parent(path)
	if err != nil {
		return nil, err
	}
	switch c.Kind {
	case strictjson.Object:
		i := p.member(c, last)
		if i < 0 {
			return nil, fmt.Errorf("no member %q", last)
		}
		m := c.Members[i]
		c.Members = removeAt(c.Members, i)
		delete(p.index, c)
		p.undo = append(p.undo, undo{kind: undoRemoveMember, c: c, i: i, m: m})
		return m.Value, nil
	case strictjson.Array:
		i, err := arrayIndex(last, len(c.Elems), false)
		if err != nil {
			return nil, err
		}
		v := c.Elems[i]
		c.Elems = removeAt(c.Elems, i)
		p.undo = append(p.undo, undo{kind: undoRemoveElem, c: c, i: i, v: v})
		return v, nil
	}
	return nil, fmt.Errorf("%s has no member %q", describeKind(c.Kind), last)
}

func (p *patcher) replace(path []string, val *strictjson.Value) error {
	if len(path) == 0 {
		p.setRoot(val)
		return nil
	}
	c, last, err := p.parent(path)
	if err != nil {
		return err
	}
	switch c.Kind {
	case strictjson.Object:
		i := p.member(c, last)
		if i < 0 {
			return fmt.Errorf("no member %q", last)
		}
		p.undo = append(p.undo, undo{kind: undoSetMember, c: c, i: i, v: c.Members[i].Value})
		c.Members[i].Value = val
		return nil
	case strictjson.Array:
		i, err := arrayIndex(last, len(c.Elems), false)
		if err != nil {
			return err
		}
		p.undo = append(p.undo, undo{kind: undoSetElem, c: c, i: i, v: c.Elems[i]})
		c.Elems[i] = val
		return nil
	}
	return fmt.Errorf("%s has no member %q", describeKind(c.Kind), last)
}

// cloneValue copies a tree, so that the copy can change on its own.
func cloneValue(v *strictjson.Value) *strictjson.Value {
	out := *v
	switch v.Kind {
	case strictjson.Array:
		out.Elems = make([]*strictjson.Value, len(v.Elems))
		for i, e := range v.Elems {
			out.Elems[i] = cloneValue(e)
		}
	case strictjson.Object:
		out.Members = make([]strictjson.Member, len(v.Members))
		for i, m := range v.Members {
			out.Members[i] = strictjson.Member{Key: m.Key, KeyStart: m.KeyStart, Value: cloneValue(m.Value)}
		}
	}
	return &out
}

// equalJSON compares two values as RFC 6902 test does: numbers by value,
// objects regardless of member order.
func equalJSON(a, b *strictjson.Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case strictjson.Null:
		return true
	case strictjson.Bool:
		return a.Bool == b.Bool
	case strictjson.String:
		return a.Str == b.Str
	case strictjson.Number:
		return a.Str == b.Str || parseDecimal(a.Str).equal(parseDecimal(b.Str))
	case strictjson.Array:
		if len(a.Elems) != len(b.Elems) {
			return false
		}
		for i := range a.Elems {
			if !equalJSON(a.Elems[i], b.Elems[i]) {
				return false
			}
		}
		return true
	}
	if len(a.Members) != len(b.Members) {
		return false
	}
	var names map[string]int // for large objects, instead of a scan per member
	if len(b.Members) >= indexFrom {
		names = make(map[string]int, len(b.Members))
		for i := range b.Members {
			names[b.Members[i].Key] = i
		}
	}
	for _, m := range a.Members {
		i := -1
		if names != nil {
			if k, ok := names[m.Key]; ok {
				i = k
			}
		} else {
			i = memberIndex(b, m.Key)
		}
		if i < 0 || !equalJSON(m.Value, b.Members[i].Value) {
			return false
		}
	}
	return true
}

func compact(v *strictjson.Value) string { return string(v.AppendCompact(nil)) }

// treeOps appends to ops the operations of a patch, read from its tree,
// which a generated decoder already checked: each element is an operation,
// or was dropped by AG-UI 1.1 tolerance as an operation RFC 6902 does not
// define (those are left out here too). The values stay the tree's own.
func treeOps(ops []patchOp, list *strictjson.Value, tag, path, from, value string) []patchOp {
	for i, e := range list.Elems {
		op := patchOp{Index: i}
		for k := range e.Members {
			m := &e.Members[k]
			switch m.Key {
			case tag:
				op.Op = m.Value.Str
			case path:
				op.Path = m.Value.Str
			case from:
				op.From = m.Value.Str
			case value:
				op.Value = m.Value
			}
		}
		switch op.Op {
		case opAdd, opRemove, opReplace, opMove, opCopy, opTest:
			ops = append(ops, op)
		}
	}
	return ops
}
