package contractdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractkit/contractkit/internal/contractdiff/witness"
	"github.com/contractkit/contractkit/internal/spec"
	"github.com/contractkit/contractkit/runtime/strictjson"
)

// The golden cases under testdata/golden/ each describe a baseline spec, a
// current spec and the findings expected between them. Both specs are
// written as edits of testdata/base.json, so that a case shows only what
// it changes:
//
//	# what the case shows
//	-- baseline --
//	(edits turning base.json into the baseline; often none)
//	-- current --
//	(edits turning the baseline into the current spec)
//	-- findings --
//	breaking method-removed demo.method.get
//
// An edit is "add PATH JSON", "replace PATH JSON" or "remove PATH", where
// PATH is a JSON pointer in which an array element may also be named by
// its id, name, method, tag, value, slug, kind or type ("-" appends). The
// current section may instead be the single word "delete": the domain is
// gone. A findings line is "severity rule target", followed by
// "(not blocking)" for a breaking finding that does not block.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden cases")
	}
	meta := metaSchemaFS(t)
	base, err := os.ReadFile("testdata/base.json")
	if err != nil {
		t.Fatal(err)
	}
	// Most cases start from the unedited base: parse it once.
	unedited := parseSpec(t, meta, "base", base)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			gc := readGolden(t, file)
			baseline := applyEdits(t, base, gc.baseline)
			bd := unedited
			if len(gc.baseline) > 0 {
				bd = parseSpec(t, meta, "baseline", baseline)
			}
			var got []Finding
			if gc.deleted {
				diff, err := DiffSets([]*spec.Domain{bd}, nil, false)
				if err != nil {
					t.Fatal(err)
				}
				got = diff.Findings()
			} else {
				current := applyEdits(t, baseline, gc.current)
				cd := parseSpec(t, meta, "current", current)
				got = Compare(bd, cd)
				// Every pointer names a value of the current file.
				tree, err := strictjson.Parse(current, strictjson.Options{})
				if err != nil {
					t.Fatal(err)
				}
				ptrs := map[string]bool{}
				indexPointers(tree, "", ptrs)
				for _, f := range got {
					if !ptrs[f.Pointer] {
						t.Errorf("%s %s: pointer %q is not in the current spec", f.Rule, f.Target, f.Pointer)
					}
				}
				again := Compare(bd, cd)
				if fmt.Sprint(got) != fmt.Sprint(again) {
					t.Errorf("two comparisons of the same specs differ:\n%v\n%v", got, again)
				}
			}
			// The lifecycle policy findings (deprecation before removal,
			// reservation, major version) come with most breaking cases;
			// a case shows them when it expects one of them.
			lifecycle := map[string]bool{RuleRemovedWithoutDeprecation: true, RuleRemovedNotReserved: true, RuleBreakingWithoutMajorBump: true}
			shown := false
			for _, l := range gc.findings {
				if f := strings.Fields(l); len(f) >= 2 && lifecycle[f[1]] {
					shown = true
				}
			}
			var lines []string
			for _, f := range got {
				checkFinding(t, f)
				if lifecycle[f.Rule] && !shown {
					continue
				}
				lines = append(lines, findingLine(f))
			}
			sort.Strings(lines)
			want := append([]string(nil), gc.findings...)
			sort.Strings(want)
			if strings.Join(lines, "\n") != strings.Join(want, "\n") {
				var msgs []string
				for _, f := range got {
					msgs = append(msgs, fmt.Sprintf("  %s: %s [%s → %s]", f.Rule, f.Message, f.Before, f.After))
				}
				t.Errorf("findings:\n%s\nwant:\n%s\nmessages:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"), strings.Join(msgs, "\n"))
			}
		})
	}
}

// Every rule of the catalog is shown by at least one golden case.
func TestGoldenCoversCatalog(t *testing.T) {
	files, _ := filepath.Glob("testdata/golden/*.txt")
	seen := map[string]bool{}
	for _, file := range files {
		for _, l := range readGolden(t, file).findings {
			if f := strings.Fields(l); len(f) >= 2 {
				seen[f[1]] = true
			}
		}
	}
	for _, r := range Rules() {
		if !seen[r.ID] {
			t.Errorf("no golden case expects rule %s", r.ID)
		}
	}
}

func findingLine(f Finding) string {
	s := string(f.Severity) + " " + f.Rule + " " + f.Target
	if f.Severity == Breaking && !f.Blocking() {
		s += " (not blocking)"
	}
	return s
}

// checkFinding checks what every finding must carry.
func checkFinding(t *testing.T, f Finding) {
	t.Helper()
	r := LookupRule(f.Rule)
	switch {
	case r == nil:
		t.Errorf("finding names rule %s, which is not in the catalog", f.Rule)
	case r.Severity != f.Severity:
		t.Errorf("%s: severity %s, the catalog says %s", f.Rule, f.Severity, r.Severity)
	}
	if f.Message == "" || f.File == "" || (f.Pointer != "" && f.Pointer[0] != '/') || f.Line < 1 {
		t.Errorf("%s %s: message %q, file %q, pointer %q, line %d", f.Rule, f.Target, f.Message, f.File, f.Pointer, f.Line)
	}
	if f.Before == "" && f.After == "" {
		t.Errorf("%s %s: neither before nor after is set", f.Rule, f.Target)
	}
	if id := f.ChangeID(); len(id) != ChangeIDLength {
		t.Errorf("change id %q", id)
	}
	checkWitness(t, f)
}

// checkWitness: a finding about values carries a witness whose verdicts
// by the two schemas are the ones its change makes.
func checkWitness(t *testing.T, f Finding) {
	t.Helper()
	if f.Probe.IsZero() {
		if f.Witness.Found() {
			t.Errorf("%s %s: a witness without a probe", f.Rule, f.Target)
		}
		return
	}
	w := f.Witness
	if !w.Found() {
		t.Errorf("%s %s: no witness for %+v", f.Rule, f.Target, f.Probe)
		return
	}
	ok := false
	switch f.Probe.Want {
	case witness.Narrows:
		ok = w.Baseline && !w.Current
	case witness.Widens:
		ok = !w.Baseline && w.Current
	case witness.Either:
		ok = w.Baseline != w.Current
	case witness.Same:
		ok = w.Baseline && w.Current
	}
	if !ok {
		t.Errorf("%s %s: witness %s: %s, which is not what the change does (%d)", f.Rule, f.Target, w.JSON, w.Verdict(), f.Probe.Want)
	}
}

type goldenCase struct {
	baseline, current []string
	deleted           bool
	findings          []string
}

func readGolden(t *testing.T, file string) goldenCase {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var gc goldenCase
	var section *[]string
	sawCurrent := false
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "-- baseline --":
			section = &gc.baseline
		case line == "-- current --":
			section, sawCurrent = &gc.current, true
		case line == "-- findings --":
			section = &gc.findings
		case line == "" || strings.HasPrefix(line, "#"):
		case section == nil:
			t.Fatalf("%s:%d: text before the first section", file, i+1)
		default:
			*section = append(*section, line)
		}
	}
	if !sawCurrent {
		t.Fatalf("%s: no current section", file)
	}
	if len(gc.current) == 1 && gc.current[0] == "delete" {
		gc.current, gc.deleted = nil, true
	}
	return gc
}

func metaSchemaFS(t testing.TB) fstest.MapFS {
	t.Helper()
	data, err := os.ReadFile("../../spec/contract.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return fstest.MapFS{spec.MetaSchemaPath: {Data: data}}
}

func parseSpec(t testing.TB, meta fstest.MapFS, what string, data []byte) *spec.Domain {
	t.Helper()
	d, diags := spec.ParseOne(meta, "spec/demo.json", data)
	if diags.HasErrors() {
		t.Fatalf("the %s spec is invalid:\n%s", what, diags.Errors().Error())
	}
	return d
}

// applyEdits applies edit lines to a JSON document.
func applyEdits(t *testing.T, doc []byte, edits []string) []byte {
	t.Helper()
	if len(edits) == 0 {
		return doc
	}
	v := decodeJSON(t, doc)
	for _, e := range edits {
		op, rest, _ := strings.Cut(e, " ")
		path, arg, _ := strings.Cut(strings.TrimSpace(rest), " ")
		var val any
		if op != "remove" {
			val = decodeJSON(t, []byte(arg))
		}
		var err error
		v, err = patch(v, splitPointer(path), op, val)
		if err != nil {
			t.Fatalf("edit %q: %v", e, err)
		}
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func decodeJSON(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return v
}

func splitPointer(p string) []string {
	if p == "" || p == "/" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range parts {
		parts[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
	}
	return parts
}

// patch applies one operation at path inside v and returns the new v.
func patch(v any, path []string, op string, val any) (any, error) {
	if len(path) == 0 {
		if op == "remove" {
			return nil, fmt.Errorf("cannot remove the document")
		}
		return val, nil
	}
	key, rest := path[0], path[1:]
	switch x := v.(type) {
	case map[string]any:
		if len(rest) == 0 {
			switch op {
			case "remove":
				if _, ok := x[key]; !ok {
					return nil, fmt.Errorf("no member %q", key)
				}
				delete(x, key)
			case "replace":
				if _, ok := x[key]; !ok {
					return nil, fmt.Errorf("no member %q to replace", key)
				}
				x[key] = val
			default:
				x[key] = val
			}
			return x, nil
		}
		child, ok := x[key]
		if !ok {
			return nil, fmt.Errorf("no member %q", key)
		}
		nv, err := patch(child, rest, op, val)
		x[key] = nv
		return x, err
	case []any:
		if key == "-" && len(rest) == 0 && op == "add" {
			return append(x, val), nil
		}
		i := indexOf(x, key)
		if i < 0 {
			return nil, fmt.Errorf("no element %q", key)
		}
		if len(rest) == 0 {
			switch op {
			case "remove":
				return append(x[:i:i], x[i+1:]...), nil
			case "replace":
				x[i] = val
				return x, nil
			default:
				return append(x[:i:i], append([]any{val}, x[i:]...)...), nil
			}
		}
		nv, err := patch(x[i], rest, op, val)
		x[i] = nv
		return x, err
	}
	return nil, fmt.Errorf("%q: not a container", key)
}

// indexOf finds an array element by position or by name.
func indexOf(a []any, key string) int {
	if n, err := strconv.Atoi(key); err == nil && n >= 0 && n < len(a) {
		return n
	}
	for i, e := range a {
		if s, ok := e.(string); ok && s == key {
			return i
		}
	}
	for _, member := range []string{"id", "name", "method", "tag", "value", "slug", "kind", "type"} {
		for i, e := range a {
			if m, ok := e.(map[string]any); ok {
				if s, ok := m[member].(string); ok && s == key {
					return i
				}
			}
		}
	}
	return -1
}
