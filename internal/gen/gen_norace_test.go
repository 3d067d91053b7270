//go:build !race

package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractkit/contractkit/internal/spec"
)

// These tests generate every spec several times over and compare bytes:
// work the race detector slows down many times, and whose races (between
// the emitters of one generation) TestGenerated already runs under it.
// make test runs them without it, after the race pass
// (scripts/norace-tests.sh).

// Generating the same input twice gives the same bytes.
func TestDeterministic(t *testing.T) {
	fsys, a := demoRepo(t)
	b, err := Generate(fsys)
	if err != nil {
		t.Fatal(err)
	}
	assertSameOutput(t, a, b)
}

func assertSameOutput(t *testing.T, a, b *Output) {
	t.Helper()
	if len(a.Files) != len(b.Files) {
		t.Fatalf("%d files, then %d", len(a.Files), len(b.Files))
	}
	for p, data := range a.Files {
		if !bytes.Equal(data, b.Files[p]) {
			t.Errorf("%s differs between runs:\n%s", p, firstDiff(data, b.Files[p]))
		}
	}
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(al), len(bl))
}

// Reordering a spec's id-keyed collections and the members of its objects,
// and adding a second spec read in either order, changes no output byte.
func TestShuffledInputSameOutput(t *testing.T) {
	base, want := demoRepo(t)
	for seed := int64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewSource(seed))
		fsys := fstest.MapFS{}
		for p, f := range base {
			fsys[p] = f
		}
		specs, _ := spec.SpecFiles(base)
		for _, p := range specs {
			var doc any
			if err := json.Unmarshal(base[p].Data, &doc); err != nil {
				t.Fatal(err)
			}
			shuffleSets(r, doc)
			fsys[p] = &fstest.MapFile{Data: []byte(encodeShuffled(r, doc))}
		}
		// The examples were validated when want was generated; validating
		// them again in another order writes no byte, so it is left out.
		got, err := generate(fsys, options{skipExamples: true})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		assertSameOutput(t, want, got)

		// The order in which spec files are read does not matter either.
		for i := len(specs) - 1; i > 0; i-- {
			j := r.Intn(i + 1)
			specs[i], specs[j] = specs[j], specs[i]
		}
		set, diags := spec.LoadFiles(fsys, specs)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		for _, d := range set.Domains {
			if w := want.Set.Domain(d.Header.ID); w.Digest != d.Digest {
				t.Errorf("seed %d: %s digest %s, want %s", seed, d.Header.ID, d.Digest, w.Digest)
			}
		}
	}
}

// shuffleSets reorders the arrays whose order carries no meaning: the
// id-keyed collections of a spec and the kinds of an error.
func shuffleSets(r *rand.Rand, doc any) {
	m := doc.(map[string]any)
	for _, k := range []string{"constants", "types", "methods", "notifications", "events", "errors", "capabilities", "rules"} {
		if a, ok := m[k].([]any); ok {
			r.Shuffle(len(a), func(i, j int) { a[i], a[j] = a[j], a[i] })
		}
	}
	if errs, ok := m["errors"].([]any); ok {
		for _, e := range errs {
			if ks, ok := e.(map[string]any)["kinds"].([]any); ok {
				r.Shuffle(len(ks), func(i, j int) { ks[i], ks[j] = ks[j], ks[i] })
			}
		}
	}
}

// encodeShuffled writes JSON with object members in random order.
func encodeShuffled(r *rand.Rand, v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		var b strings.Builder
		b.WriteString("{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(",\n")
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteString(": ")
			b.WriteString(encodeShuffled(r, x[k]))
		}
		b.WriteString("}")
		return b.String()
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, encodeShuffled(r, e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
