package agui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/contractkit/contractkit/internal/strictjson"
)

// The JSON Patch applier (RFC 6902). It works on immutable trees: an
// operation copies only the containers on the path it changes and shares
// everything else with the previous document. A patch therefore never
// touches the document it is applied to, which is what makes it atomic:
// on any error the caller simply keeps the document it had.

// Patch operation names (RFC 6902 section 4).
const (
	opAdd     = "add"
	opRemove  = "remove"
	opReplace = "replace"
	opMove    = "move"
	opCopy    = "copy"
	opTest    = "test"
)

// patchOp is one operation, its pointers still unparsed.
type patchOp struct {
	Op    string
	Path  string
	From  string
	Value *strictjson.Value
}

// patchFault says why a patch does not apply: which operation (its index
// in the list), which of its members ("path", "from" or "" for the
// operation as a whole) and what kind of problem it is.
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
)

func (f *patchFault) Error() string {
	return fmt.Sprintf("operation %d: %s", f.Index, f.Msg)
}

// patchOptions say which operations a caller allows.
type patchOptions struct {
	copyMove bool // RFC 6902 copy and move
}

// applyPatch applies ops in order to doc and returns the new document. doc
// is never modified; on a fault the result is nil.
func applyPatch(doc *strictjson.Value, ops []patchOp, opt patchOptions) (*strictjson.Value, *patchFault) {
	for i, op := range ops {
		next, f := applyOp(doc, op, opt)
		if f != nil {
			f.Index = i
			return nil, f
		}
		doc = next
	}
	return doc, nil
}

func applyOp(doc *strictjson.Value, op patchOp, opt patchOptions) (*strictjson.Value, *patchFault) {
	fault := func(member string, kind faultKind, format string, args ...any) *patchFault {
		return &patchFault{Member: member, Kind: kind, Msg: fmt.Sprintf(format, args...)}
	}
	path, err := parsePointer(op.Path)
	if err != nil {
		return nil, fault("path", faultApply, "%v", err)
	}
	switch op.Op {
	case opAdd:
		out, err := addAt(doc, path, op.Value)
		if err != nil {
			return nil, fault("path", faultApply, "add at %q: %v", op.Path, err)
		}
		return out, nil
	case opRemove:
		if len(path) == 0 {
			return nil, fault("path", faultRemoveRoot, "remove cannot delete the whole document")
		}
		out, err := removeAt(doc, path)
		if err != nil {
			return nil, fault("path", faultApply, "remove at %q: %v", op.Path, err)
		}
		return out, nil
	case opReplace:
		out, err := replaceAt(doc, path, op.Value)
		if err != nil {
			return nil, fault("path", faultApply, "replace at %q: %v", op.Path, err)
		}
		return out, nil
	case opTest:
		got, err := getAt(doc, path)
		if err != nil {
			return nil, fault("path", faultApply, "test at %q: %v", op.Path, err)
		}
		if !equalJSON(got, op.Value) {
			return nil, fault("", faultApply, "test at %q failed: the value there is %s, not %s", op.Path, compact(got), compact(op.Value))
		}
		return doc, nil
	case opMove, opCopy:
		if !opt.copyMove {
			return nil, fault("", faultCopyMove, "%s is not supported; only add, remove, replace and test are", op.Op)
		}
		from, err := parsePointer(op.From)
		if err != nil {
			return nil, fault("from", faultApply, "%v", err)
		}
		v, err := getAt(doc, from)
		if err != nil {
			return nil, fault("from", faultApply, "%s from %q: %v", op.Op, op.From, err)
		}
		if op.Op == opMove {
			if op.From == op.Path {
				return doc, nil
			}
			if strings.HasPrefix(op.Path, op.From+"/") {
				return nil, fault("from", faultApply, "move from %q into its own child %q", op.From, op.Path)
			}
			if len(from) == 0 {
				return nil, fault("from", faultApply, "move cannot take the whole document")
			}
			doc, err = removeAt(doc, from)
			if err != nil {
				return nil, fault("from", faultApply, "move from %q: %v", op.From, err)
			}
		}
		out, err := addAt(doc, path, v)
		if err != nil {
			return nil, fault("path", faultApply, "%s to %q: %v", op.Op, op.Path, err)
		}
		return out, nil
	}
	return nil, fault("", faultUnknownOp, "unknown operation %q", op.Op)
}

// parsePointer splits an RFC 6901 pointer into unescaped tokens.
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("pointer %q does not start with a slash", p)
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		if !strings.Contains(t, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(t); j++ {
			if t[j] != '~' {
				b.WriteByte(t[j])
				continue
			}
			if j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1') {
				return nil, fmt.Errorf("pointer %q has a ~ that is not ~0 or ~1", p)
			}
			if t[j+1] == '0' {
				b.WriteByte('~')
			} else {
				b.WriteByte('/')
			}
			j++
		}
		toks[i] = b.String()
	}
	return toks, nil
}

// arrayIndex reads an array index token: decimal digits without leading
// zeros, below limit.
func arrayIndex(tok string, limit int) (int, error) {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, fmt.Errorf("%q is not an array index", tok)
	}
	for _, c := range tok {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not an array index", tok)
		}
	}
	n, err := strconv.Atoi(tok)
	if err != nil || n >= limit {
		return 0, fmt.Errorf("index %s is out of bounds (%d elements)", tok, limit)
	}
	return n, nil
}

func memberIndex(v *strictjson.Value, name string) int {
	for i := range v.Members {
		if v.Members[i].Key == name {
			return i
		}
	}
	return -1
}

func getAt(doc *strictjson.Value, path []string) (*strictjson.Value, error) {
	v := doc
	for _, tok := range path {
		switch v.Kind {
		case strictjson.Object:
			i := memberIndex(v, tok)
			if i < 0 {
				return nil, fmt.Errorf("no member %q", tok)
			}
			v = v.Members[i].Value
		case strictjson.Array:
			i, err := arrayIndex(tok, len(v.Elems))
			if err != nil {
				return nil, err
			}
			v = v.Elems[i]
		default:
			return nil, fmt.Errorf("%s has no member %q", describeKind(v.Kind), tok)
		}
	}
	return v, nil
}

// modify returns a copy of doc in which the container at path is replaced
// by what f makes of it. Only the containers on the path are copied.
func modify(doc *strictjson.Value, path []string, f func(*strictjson.Value) (*strictjson.Value, error)) (*strictjson.Value, error) {
	if len(path) == 0 {
		return f(doc)
	}
	tok := path[0]
	switch doc.Kind {
	case strictjson.Object:
		i := memberIndex(doc, tok)
		if i < 0 {
			return nil, fmt.Errorf("no member %q", tok)
		}
		child, err := modify(doc.Members[i].Value, path[1:], f)
		if err != nil {
			return nil, err
		}
		out := *doc
		out.Members = append([]strictjson.Member(nil), doc.Members...)
		out.Members[i].Value = child
		return &out, nil
	case strictjson.Array:
		i, err := arrayIndex(tok, len(doc.Elems))
		if err != nil {
			return nil, err
		}
		child, err := modify(doc.Elems[i], path[1:], f)
		if err != nil {
			return nil, err
		}
		out := *doc
		out.Elems = append([]*strictjson.Value(nil), doc.Elems...)
		out.Elems[i] = child
		return &out, nil
	}
	return nil, fmt.Errorf("%s has no member %q", describeKind(doc.Kind), tok)
}

func addAt(doc *strictjson.Value, path []string, val *strictjson.Value) (*strictjson.Value, error) {
	if len(path) == 0 {
		return val, nil
	}
	last := path[len(path)-1]
	return modify(doc, path[:len(path)-1], func(c *strictjson.Value) (*strictjson.Value, error) {
		out := *c
		switch c.Kind {
		case strictjson.Object:
			out.Members = append([]strictjson.Member(nil), c.Members...)
			if i := memberIndex(c, last); i >= 0 {
				out.Members[i].Value = val
			} else {
				out.Members = append(out.Members, strictjson.Member{Key: last, Value: val})
			}
			return &out, nil
		case strictjson.Array:
			i := len(c.Elems)
			if last != "-" {
				var err error
				if i, err = arrayIndex(last, len(c.Elems)+1); err != nil {
					return nil, err
				}
			}
			out.Elems = make([]*strictjson.Value, 0, len(c.Elems)+1)
			out.Elems = append(append(append(out.Elems, c.Elems[:i]...), val), c.Elems[i:]...)
			return &out, nil
		}
		return nil, fmt.Errorf("cannot add member %q to %s", last, describeKind(c.Kind))
	})
}

func removeAt(doc *strictjson.Value, path []string) (*strictjson.Value, error) {
	last := path[len(path)-1]
	return modify(doc, path[:len(path)-1], func(c *strictjson.Value) (*strictjson.Value, error) {
		out := *c
		switch c.Kind {
		case strictjson.Object:
			i := memberIndex(c, last)
			if i < 0 {
				return nil, fmt.Errorf("no member %q", last)
			}
			out.Members = append(append([]strictjson.Member(nil), c.Members[:i]...), c.Members[i+1:]...)
			return &out, nil
		case strictjson.Array:
			i, err := arrayIndex(last, len(c.Elems))
			if err != nil {
				return nil, err
			}
			out.Elems = append(append([]*strictjson.Value(nil), c.Elems[:i]...), c.Elems[i+1:]...)
			return &out, nil
		}
		return nil, fmt.Errorf("%s has no member %q", describeKind(c.Kind), last)
	})
}

func replaceAt(doc *strictjson.Value, path []string, val *strictjson.Value) (*strictjson.Value, error) {
	if len(path) == 0 {
		return val, nil
	}
	last := path[len(path)-1]
	return modify(doc, path[:len(path)-1], func(c *strictjson.Value) (*strictjson.Value, error) {
		out := *c
		switch c.Kind {
		case strictjson.Object:
			i := memberIndex(c, last)
			if i < 0 {
				return nil, fmt.Errorf("no member %q", last)
			}
			out.Members = append([]strictjson.Member(nil), c.Members...)
			out.Members[i].Value = val
			return &out, nil
		case strictjson.Array:
			i, err := arrayIndex(last, len(c.Elems))
			if err != nil {
				return nil, err
			}
			out.Elems = append([]*strictjson.Value(nil), c.Elems...)
			out.Elems[i] = val
			return &out, nil
		}
		return nil, fmt.Errorf("%s has no member %q", describeKind(c.Kind), last)
	})
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
	for _, m := range a.Members {
		i := memberIndex(b, m.Key)
		if i < 0 || !equalJSON(m.Value, b.Members[i].Value) {
			return false
		}
	}
	return true
}

func compact(v *strictjson.Value) string { return string(v.AppendCompact(nil)) }
