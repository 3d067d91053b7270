package conformance

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/contractkit/contractkit/generated"
	ide "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/runtime/genrt"
)

// nulls lists the JSON pointers of every null inside v.
func nulls(v any, ptr string, out map[string]bool) {
	switch x := v.(type) {
	case nil:
		out[ptr] = true
	case map[string]any:
		for k, e := range x {
			nulls(e, ptr+"/"+k, out)
		}
	case []any:
		for i, e := range x {
			nulls(e, ptr+"/"+strconv.Itoa(i), out)
		}
	}
}

// Absent and null are different things to the contract: no valid example
// loses a null on its way through a generated decoder and encoder, and
// none gains one.
func TestNullSurvivesRoundTrip(t *testing.T) {
	set := load(t)
	checked := 0
	for _, c := range generated.Contracts {
		d := set.Domain(c.Domain)
		for _, ex := range examples(d) {
			if !ex.valid {
				continue
			}
			v, err := c.Decoders[ex.typ.Name](ex.raw)
			if err != nil {
				t.Errorf("%s: %v", ex.where, err)
				continue
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Errorf("%s: %v", ex.where, err)
				continue
			}
			before, after := map[string]bool{}, map[string]bool{}
			nulls(instance(ex.raw), "", before)
			nulls(instance(out), "", after)
			for p := range before {
				if !after[p] {
					t.Errorf("%s: null at %s is lost: %s", ex.where, p, out)
				}
			}
			for p := range after {
				if !before[p] {
					t.Errorf("%s: encoding adds a null at %s: %s", ex.where, p, out)
				}
			}
			if len(before) > 0 {
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no valid example holds a null")
	}
	t.Logf("%d examples with nulls kept them", checked)
}

// An optional, nullable member decodes to three different states, and
// each encodes back as it came.
func TestAbsentNullValue(t *testing.T) {
	base := `{"sessionId":"s1","projectId":"p1","generation":"0","objectId":"catalog:A","snapshot":"9f2c","direction":"undo"`
	for _, tc := range []struct {
		tail  string
		state genrt.Presence
	}{
		{"}", genrt.Absent},
		{`,"contextSnapshot":null}`, genrt.Null},
		{`,"contextSnapshot":"abc"}`, genrt.Present},
	} {
		raw := base + tc.tail
		p, err := ide.DecodeUndoPropertyParams([]byte(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if p.ContextSnapshot.State != tc.state {
			t.Errorf("%s: state %d, want %d", raw, p.ContextSnapshot.State, tc.state)
		}
		out, err := json.Marshal(p)
		if err != nil || !bytes.Equal(out, []byte(raw)) {
			t.Errorf("encoded %s (%v), want %s", out, err, raw)
		}
	}
}

// An open union keeps a variant whose tag it does not know, whole, and
// writes it back unchanged; a closed one still rejects it.
func TestOpenUnionKeepsUnknownTag(t *testing.T) {
	raw := `{"kind":"diagram","caption":{"ru-RU":"Схема","en-US":"Diagram"},"layout":"tree"}`
	v, err := ide.DecodePresentation([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	u, ok := v.(ide.PresentationUnknown)
	if !ok || u.Tag != "diagram" || string(u.Raw) != raw {
		t.Fatalf("decoded %#v", v)
	}
	out, err := ide.MarshalPresentation(v)
	if err != nil || string(out) != raw {
		t.Errorf("encoded %s (%v), want %s", out, err, raw)
	}
	if _, err := ide.DecodeLabel([]byte(`{"kind":"picture","text":"x"}`)); err == nil {
		t.Error("the closed union Label accepted an unknown kind")
	}
}
