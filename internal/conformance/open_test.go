package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/generated"
	"github.com/contractkit/contractkit/internal/spec"
	"github.com/contractkit/contractkit/runtime/genrt"
)

// unknownValue reports whether a valid example of an open enum or union
// carries a value or tag the type does not list, and which.
func unknownValue(t *spec.Type, raw []byte) (string, bool) {
	switch t.Kind {
	case spec.EnumKind:
		for _, v := range t.Values {
			if bytes.Equal(compact(v.Value), compact(raw)) {
				return "", false
			}
		}
		return string(compact(raw)), true
	case spec.UnionKind:
		var m map[string]json.RawMessage
		var tag string
		if json.Unmarshal(raw, &m) != nil || json.Unmarshal(m[t.Tag], &tag) != nil {
			return "", false
		}
		for _, v := range t.Variants {
			if v.Tag == tag {
				return "", false
			}
		}
		return tag, true
	}
	return "", false
}

func compact(raw []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// The spec's own examples of open enums and unions with a value the spec
// does not list go through the generated decoder, which keeps them as
// sent and writes them back unchanged, and through the JSON Schema, which
// accepts them. The same example with its tag in a closed union is
// rejected by both, so openness is the type's, not the checker's.
func TestOpenExamplesKeptRaw(t *testing.T) {
	set := load(t)
	kept, closed := 0, 0
	for _, c := range generated.Contracts {
		d := set.Domain(c.Domain)
		schemaOf := compiler(t, c)
		for _, ex := range examples(d) {
			if !ex.valid || !ex.typ.Open {
				continue
			}
			value, unknown := unknownValue(ex.typ, ex.raw)
			if !unknown {
				continue
			}
			v, err := c.Decoders[ex.typ.Name](ex.raw)
			if err != nil {
				t.Errorf("%s: the decoder rejected %s: %v", ex.where, value, err)
				continue
			}
			inner := v
			if tv, ok := v.(genrt.Tagged); ok {
				inner = tv.Value
			}
			if ex.typ.Kind == spec.UnionKind && !strings.HasSuffix(fmt.Sprintf("%T", inner), "."+ex.typ.UnknownGoName()) {
				t.Errorf("%s: decoded as %T, want the union's unknown variant", ex.where, inner)
			}
			out, err := json.Marshal(v)
			if err != nil || !bytes.Equal(out, compact(ex.raw)) {
				t.Errorf("%s: written back as %s (%v), want %s", ex.where, out, err, compact(ex.raw))
			}
			if err := schemaOf(ex.typ.Name).Validate(instance(ex.raw)); err != nil {
				t.Errorf("%s: the JSON Schema rejects %s: %v", ex.where, value, err)
			}
			kept++
		}
		// A closed union refuses the same kind of value.
		for _, ex := range examples(d) {
			if !ex.valid || ex.typ.Open || ex.typ.Kind != spec.UnionKind {
				continue
			}
			var m map[string]any
			if json.Unmarshal(ex.raw, &m) != nil {
				continue
			}
			m[ex.typ.Tag] = "not-a-listed-tag"
			closed++
			raw, _ := json.Marshal(m)
			if _, err := c.Decoders[ex.typ.Name](raw); err == nil {
				t.Errorf("%s: the closed union %s decoded an unknown tag", ex.where, ex.typ.Name)
			}
			if err := schemaOf(ex.typ.Name).Validate(instance(raw)); err == nil {
				t.Errorf("%s: the JSON Schema of the closed union %s accepts an unknown tag", ex.where, ex.typ.Name)
			}
		}
	}
	if kept == 0 {
		t.Fatal("no spec example gives an open enum or union a value it does not list")
	}
	if closed == 0 {
		t.Fatal("no example of a closed union to refuse an unknown tag with")
	}
	t.Logf("%d examples with an unlisted value kept raw by decoder and schema; %d closed-union examples refuse an unknown tag", kept, closed)
}
