package agui

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/runtime/genrt"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

func tree(t testing.TB, s string) *strictjson.Value {
	t.Helper()
	v, err := strictjson.Parse([]byte(s), strictjson.Options{})
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

// opsOf reads a patch as the checker does: parsed once, each operation
// checked by the generated decoder, the operations read from the tree.
func opsOf(t testing.TB, patch string) ([]patchOp, error) {
	t.Helper()
	v, err := strictjson.Parse([]byte(patch), strictjson.Options{})
	if err != nil {
		return nil, err
	}
	return opsOfTree(v)
}

func opsOfTree(v *strictjson.Value) ([]patchOp, error) {
	if v.Kind != strictjson.Array {
		return nil, errors.New("a patch is an array")
	}
	for _, e := range v.Elems {
		var d genrt.Decoder
		if _, err := contract.DecodeJSONPatchOperationTree(e, &d); err != nil {
			return nil, err
		}
	}
	m, err := loadModel()
	if err != nil {
		return nil, err
	}
	return treeOps(nil, v, m.patchTag, namePath, nameFrom, nameValue), nil
}

// applyPatch applies ops to doc in place and returns the document it
// leaves: the patched one, or on a fault the one it was given, undone.
func applyPatch(doc *strictjson.Value, ops []patchOp, opt patchOptions) (*strictjson.Value, *patchFault) {
	p := newPatcher(doc, opt)
	f := p.apply(ops)
	p.commit()
	return p.root, f
}

func TestPatchApplier(t *testing.T) {
	cases := []struct {
		doc, patch, want string
		fault            faultKind
		index            int
	}{
		{`{"a":1}`, `[{"op":"add","path":"/b","value":[1]}]`, `{"a":1,"b":[1]}`, 0, 0},
		{`{"a":[1,3]}`, `[{"op":"add","path":"/a/1","value":2}]`, `{"a":[1,2,3]}`, 0, 0},
		{`{"a":[1]}`, `[{"op":"add","path":"/a/-","value":2}]`, `{"a":[1,2]}`, 0, 0},
		{`{"a":1}`, `[{"op":"add","path":"/a","value":2}]`, `{"a":2}`, 0, 0},
		{`{"a/b":1,"m~n":2}`, `[{"op":"remove","path":"/a~1b"},{"op":"replace","path":"/m~0n","value":3}]`, `{"m~n":3}`, 0, 0},
		{`{"a":1.0}`, `[{"op":"test","path":"/a","value":1}]`, `{"a":1.0}`, 0, 0},
		{`{"a":{"x":1,"y":[1,2]}}`, `[{"op":"test","path":"/a","value":{"y":[1,2],"x":1}}]`, `{"a":{"x":1,"y":[1,2]}}`, 0, 0},
		{`{"a":[1]}`, `[{"op":"add","path":"/a/01","value":2}]`, ``, faultApply, 0},
		{`{"a":[1]}`, `[{"op":"add","path":"/a/3","value":2}]`, ``, faultApply, 0},
		{`{"a":1}`, `[{"op":"add","path":"/b","value":2},{"op":"test","path":"/a","value":"1"}]`, ``, faultApply, 1},
		{`{"a":1}`, `[{"op":"remove","path":""}]`, ``, faultRemoveRoot, 0},
		{`{"a":1}`, `[{"op":"copy","from":"/a","path":"/b"}]`, ``, faultCopyMove, 0},
		{`{"a":1}`, `[{"op":"replace","path":"/x/y","value":1}]`, ``, faultApply, 0},
	}
	for _, c := range cases {
		doc := tree(t, c.doc)
		before := compact(doc)
		ops, err := opsOf(t, c.patch)
		if err != nil {
			t.Fatalf("%s: %v", c.patch, err)
		}
		out, f := applyPatch(doc, ops, patchOptions{})
		if f != nil && compact(out) != before {
			t.Errorf("%s: a failed patch left %s, not %s", c.patch, compact(out), before)
		}
		switch {
		case c.want != "" && f != nil:
			t.Errorf("%s on %s: %v", c.patch, c.doc, f)
		case c.want != "" && compact(out) != c.want:
			t.Errorf("%s on %s = %s, want %s", c.patch, c.doc, compact(out), c.want)
		case c.want == "" && f == nil:
			t.Errorf("%s on %s applied: %s", c.patch, c.doc, compact(out))
		case c.want == "" && (f.Kind != c.fault || f.Index != c.index):
			t.Errorf("%s on %s: fault %+v, want kind %d at %d", c.patch, c.doc, f, c.fault, c.index)
		}
	}
}

// rfcCase is one record of the RFC 6902 test suite.
type rfcCase struct {
	Comment  string            `json:"comment"`
	Doc      json.RawMessage   `json:"doc"`
	Patch    []json.RawMessage `json:"patch"`
	Expected json.RawMessage   `json:"expected"`
	Error    string            `json:"error"`
	Disabled bool              `json:"disabled"`
}

// runRFC applies one case with the options and reports whether the outcome
// matches the suite: the expected document, or an error.
func runRFC(t *testing.T, c rfcCase, opt patchOptions) (ok, copyMove bool) {
	doc, err := strictjson.Parse(c.Doc, strictjson.Options{})
	if err != nil {
		t.Fatalf("%s: doc: %v", c.Comment, err)
	}
	before := compact(doc)
	for _, r := range c.Patch {
		var m map[string]any
		_ = json.Unmarshal(r, &m)
		if m["op"] == opCopy || m["op"] == opMove {
			copyMove = true
		}
	}
	ops, err := opsForCase(c)
	if err != nil {
		// A malformed operation: the decoder rejects it, which is the
		// right outcome only where the suite expects an error.
		return c.Expected == nil, copyMove
	}
	out, f := applyPatch(doc, ops, opt)
	if f != nil && compact(out) != before {
		t.Errorf("%s: a failed patch left %s, not %s", c.Comment, compact(out), before)
	}
	if c.Expected == nil {
		return f != nil, copyMove
	}
	if f != nil {
		return false, copyMove
	}
	return equalJSON(out, tree(t, string(c.Expected))), copyMove
}

//contract:proves ag-ui.stand.state-atomicity ag-ui.unsupported.copy-move
func TestRFC6902Suite(t *testing.T) {
	t.Parallel()
	dir := corpusDir(t, "json-patch-tests")
	var cases []rfcCase
	for _, f := range []string{"tests.json", "spec_tests.json"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		var cs []rfcCase
		if err := json.Unmarshal(data, &cs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		cases = append(cases, cs...)
	}
	var standPass, standTotal, cmRejected, cmTotal, fullPass, disabled int
	for _, c := range cases {
		if c.Disabled || c.Patch == nil {
			disabled++
			continue
		}
		ok, cm := runRFC(t, c, patchOptions{})
		if cm {
			cmTotal++
			// Under the stand every case that uses copy or move must be
			// rejected, whatever the suite expects.
			doc, _ := strictjson.Parse(c.Doc, strictjson.Options{})
			ops, err := opsForCase(c)
			if err == nil {
				if _, f := applyPatch(doc, ops, patchOptions{}); f != nil {
					cmRejected++
				} else {
					t.Errorf("%q: a patch with copy or move applied under the stand", c.Comment)
				}
			} else {
				cmRejected++
			}
		} else {
			standTotal++
			if ok {
				standPass++
			} else {
				t.Errorf("stand: %q: outcome differs from the suite (expected %s, error %q)", c.Comment, c.Expected, c.Error)
			}
		}
		if full, _ := runRFC(t, c, patchOptions{copyMove: true}); full {
			fullPass++
		} else {
			t.Errorf("all operations: %q: outcome differs from the suite", c.Comment)
		}
	}
	t.Logf("RFC 6902 suite: %d cases (%d disabled skipped)", len(cases), disabled)
	t.Logf("add/remove/replace/test: %d of %d pass", standPass, standTotal)
	t.Logf("copy/move under the stand: %d of %d correctly rejected", cmRejected, cmTotal)
	t.Logf("every operation allowed (AG-UI 1.1): %d of %d pass", fullPass, standTotal+cmTotal)
}

// opsForCase reads a case's patch, or returns the decoder's error.
func opsForCase(c rfcCase) ([]patchOp, error) {
	raw, err := json.Marshal(c.Patch)
	if err != nil {
		return nil, err
	}
	v, err := strictjson.Parse(raw, strictjson.Options{})
	if err != nil {
		return nil, err
	}
	return opsOfTree(v)
}

//contract:proves ag-ui.stand.state-atomicity ag-ui.stand.direct-input ag-ui.stand.initial-state-bytes ag-ui.stand.patch-bytes ag-ui.limit.patch-bytes ag-ui.unsupported.remove-root
func TestApplyPatchDirect(t *testing.T) {
	t.Parallel()
	shared := []any{1, 2}
	state := map[string]any{"a": map[string]any{"b": 1}, "s1": shared, "s2": shared}
	keep, _ := json.Marshal(state)
	out, err := ApplyPatch(state, []any{
		map[string]any{"op": "replace", "path": "/a/b", "value": 2},
		map[string]any{"op": "add", "path": "/s1/-", "value": 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(state); string(got) != string(keep) {
		t.Errorf("the caller's state changed: %s", got)
	}
	want := map[string]any{"a": map[string]any{"b": json.Number("2")}, "s1": []any{json.Number("1"), json.Number("2"), json.Number("3")}, "s2": []any{json.Number("1"), json.Number("2")}}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("ApplyPatch = %v, want %v", out, want)
	}
	fails := []struct {
		state, patch any
		in, ptr      string
		rule         string
	}{
		{state, []any{map[string]any{"op": "add", "path": "/x", "value": 1}, map[string]any{"op": "remove", "path": "/nope"}}, "patch", "/1/path", contract.RuleStandStateAtomicity},
		{state, []any{map[string]any{"op": "move", "from": "/a", "path": "/z"}}, "patch", "/0", contract.RuleUnsupportedCopyMove},
		{state, []any{map[string]any{"op": "remove", "path": ""}}, "patch", "/0/path", contract.RuleUnsupportedRemoveRoot},
		{state, []any{map[string]any{"op": "replace", "path": "", "value": []any{}}}, "patch", "", contract.RuleStandStateRoot},
		{[]any{}, []any{}, "state", "", contract.RuleStandStateRoot},
		{state, map[string]any{"op": "add"}, "patch", "", contract.RuleStructureEventSchema},
	}
	for _, f := range fails {
		_, err := ApplyPatch(f.state, f.patch)
		fe, ok := err.(*FindingError)
		if !ok || fe.In != f.in || fe.Pointer != f.ptr || fe.Rule != f.rule {
			t.Errorf("ApplyPatch(%v) error %v, want %s at %s %q", f.patch, err, f.rule, f.in, f.ptr)
		}
		if got, _ := json.Marshal(state); string(got) != string(keep) {
			t.Errorf("a failed patch changed the caller's state: %s", got)
		}
	}

	// The size limits, at the limit and one past it. A euro sign is one
	// text unit and three bytes, so the text limit is not what stops them.
	filler := func(wrap, size int) string {
		n := (size - wrap) / 3
		return repeat("€", n) + repeat("x", size-wrap-3*n)
	}
	stateAt := func(size int) map[string]any { return map[string]any{"s": filler(len(`{"s":""}`), size)} }
	if _, err := ApplyPatch(stateAt(contract.LimitInitialStateBytes), []any{}); err != nil {
		t.Errorf("state at the limit: %v", err)
	}
	if _, err := ApplyPatch(stateAt(contract.LimitInitialStateBytes+1), []any{}); !isRule(err, contract.RuleStandInitialStateBytes) {
		t.Errorf("state one past the limit: %v", err)
	}
	patchAt := func(size int) []any {
		const wrap = len(`[{"op":"add","path":"/p","value":""}]`)
		return []any{map[string]any{"op": "add", "path": "/p", "value": filler(wrap, size)}}
	}
	if _, err := ApplyPatch(map[string]any{}, patchAt(contract.LimitPatchBytes)); err != nil {
		t.Errorf("patch at the limit: %v", err)
	}
	if _, err := ApplyPatch(map[string]any{}, patchAt(contract.LimitPatchBytes+1)); !isRule(err, contract.RuleStandPatchBytes) {
		t.Errorf("patch one past the limit: %v", err)
	}
}

// An index past an array's end is refused with the array's real length:
// the bound an insertion is held to (the length itself) is not the count
// of elements. Each place that reads an index is tried at its last good
// index and one past it, in a record under both profiles and through
// ApplyPatch.
func TestIndexOutOfBoundsCounts(t *testing.T) {
	t.Parallel()
	state := map[string]any{"arr": []any{1, 2}, "one": []any{7}, "none": []any{}}
	cases := []struct {
		op   map[string]any
		msg  string // "" when the operation applies
		copy bool   // copy and move: AG-UI 1.1 only
	}{
		{map[string]any{"op": "add", "path": "/arr/2", "value": 3}, "", false},
		{map[string]any{"op": "add", "path": "/arr/3", "value": 3}, "index 3 is out of bounds: the array has 2 elements, so a value can be inserted at index 2 at most", false},
		{map[string]any{"op": "add", "path": "/one/2", "value": 3}, "index 2 is out of bounds: the array has 1 element, so a value can be inserted at index 1 at most", false},
		{map[string]any{"op": "add", "path": "/none/1", "value": 3}, "index 1 is out of bounds: the array has 0 elements, so a value can be inserted at index 0 at most", false},
		{map[string]any{"op": "replace", "path": "/arr/1", "value": 3}, "", false},
		{map[string]any{"op": "replace", "path": "/arr/2", "value": 3}, "index 2 is out of bounds: the array has 2 elements, the last at index 1", false},
		{map[string]any{"op": "remove", "path": "/arr/2"}, "index 2 is out of bounds: the array has 2 elements, the last at index 1", false},
		{map[string]any{"op": "remove", "path": "/one/1"}, "index 1 is out of bounds: the array has 1 element, the last at index 0", false},
		{map[string]any{"op": "remove", "path": "/none/0"}, "index 0 is out of bounds: the array is empty", false},
		{map[string]any{"op": "test", "path": "/arr/1", "value": 2}, "", false},
		{map[string]any{"op": "test", "path": "/arr/2", "value": 2}, "index 2 is out of bounds: the array has 2 elements, the last at index 1", false},
		{map[string]any{"op": "test", "path": "/arr/99999999999999999999/x", "value": 2}, "index 99999999999999999999 is out of bounds: the array has 2 elements, the last at index 1", false},
		{map[string]any{"op": "copy", "from": "/arr/1", "path": "/arr/2"}, "", true},
		{map[string]any{"op": "copy", "from": "/arr/2", "path": "/arr/0"}, "index 2 is out of bounds: the array has 2 elements, the last at index 1", true},
		{map[string]any{"op": "copy", "from": "/arr/0", "path": "/arr/3"}, "index 3 is out of bounds: the array has 2 elements, so a value can be inserted at index 2 at most", true},
		{map[string]any{"op": "move", "from": "/one/0", "path": "/arr/3"}, "index 3 is out of bounds: the array has 2 elements, so a value can be inserted at index 2 at most", true},
	}
	for _, c := range cases {
		data := lines(t, run(snapshot(state), delta(c.op))...)
		for _, profile := range []string{stand, v11} {
			if c.copy && profile == stand {
				continue // the stand refuses copy and move before their paths
			}
			r := check(t, profile, data)
			var found []Finding
			found = append(found, r.Findings...)
			found = append(found, r.Warnings...)
			if c.msg == "" {
				if !r.Accepted || len(found) != 0 {
					t.Errorf("%s %v: %v", profile, c.op, found)
				}
				continue
			}
			wantRule := map[string]string{stand: contract.RuleStandStateAtomicity, v11: contract.RuleSequenceStateDelta}[profile]
			if len(found) != 1 || found[0].Rule != wantRule || found[0].Event != 2 || !strings.Contains(found[0].Message, c.msg) {
				t.Errorf("%s %v: %v; want %s saying %q", profile, c.op, found, wantRule, c.msg)
			}
			if profile == v11 && string(r.State) != `{"arr":[1,2],"none":[],"one":[7]}` {
				t.Errorf("%s %v: the state became %s", profile, c.op, r.State)
			}
		}
		if c.copy {
			continue
		}
		_, err := ApplyPatch(state, []any{c.op})
		if c.msg == "" {
			if err != nil {
				t.Errorf("ApplyPatch %v: %v", c.op, err)
			}
			continue
		}
		if !isRule(err, contract.RuleStandStateAtomicity) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ApplyPatch %v: %v; want %q", c.op, err, c.msg)
		}
	}
}

func isRule(err error, rule string) bool {
	fe, ok := err.(*FindingError)
	return ok && fe.Rule == rule
}

func repeat(s string, n int) string {
	if n <= 0 {
		return ""
	}
	b := make([]byte, 0, len(s)*n)
	for i := 0; i < n; i++ {
		b = append(b, s...)
	}
	return string(b)
}
