package byteedit

import (
	"bytes"
	"testing"
)

func TestApplyInverse(t *testing.T) {
	data := []byte("0123456789")
	edits := []Edit{{Start: 7, End: 9, Text: "XYZ"}, {Start: 0, End: 0, Text: "<"}, {Start: 2, End: 5, Text: ""}}
	got, err := Apply(data, edits)
	if err != nil || string(got) != "<0156XYZ9" {
		t.Fatalf("%q %v", got, err)
	}
	var w bytes.Buffer
	if err := WriteApplied(&w, data, edits); err != nil || w.String() != string(got) {
		t.Errorf("written %q %v", w.String(), err)
	}
	inv, err := Inverse(data, edits)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Apply(got, inv)
	if err != nil || !bytes.Equal(back, data) {
		t.Errorf("back %q %v (inverse %v)", back, err, inv)
	}
	for _, bad := range [][]Edit{{{Start: -1, End: 0}}, {{Start: 3, End: 2}}, {{Start: 0, End: 11}}, {{Start: 1, End: 4}, {Start: 3, End: 5}}} {
		if _, err := Apply(data, bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
		if _, err := Inverse(data, bad); err == nil {
			t.Errorf("inverse %v: no error", bad)
		}
	}
}

// FuzzInverse: applying the inverse of valid edits gives the old bytes
// back, exactly.
func FuzzInverse(f *testing.F) {
	f.Add([]byte("abcdef"), int64(1), int64(3), "XY", int64(4), int64(6), "")
	f.Fuzz(func(t *testing.T, data []byte, s1, e1 int64, t1 string, s2, e2 int64, t2 string) {
		edits := []Edit{{Start: s1, End: e1, Text: t1}, {Start: s2, End: e2, Text: t2}}
		out, err := Apply(data, edits)
		if err != nil {
			return
		}
		inv, err := Inverse(data, edits)
		if err != nil {
			t.Fatalf("Apply took %v, Inverse refused: %v", edits, err)
		}
		back, err := Apply(out, inv)
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("%q %v → %q → %q (%v)", data, edits, out, back, err)
		}
	})
}

// Apply never panics, and keeps every byte outside its edits.
func FuzzApply(f *testing.F) {
	f.Add([]byte("0123456789"), int64(2), int64(5), "abc", int64(7), int64(7), "Z")
	f.Fuzz(func(t *testing.T, data []byte, s1, e1 int64, t1 string, s2, e2 int64, t2 string) {
		out, err := Apply(data, []Edit{{Start: s1, End: e1, Text: t1}, {Start: s2, End: e2, Text: t2}})
		if err != nil {
			return
		}
		a, b := Edit{Start: s1, End: e1, Text: t1}, Edit{Start: s2, End: e2, Text: t2}
		if a.Start > b.Start {
			a, b = b, a
		}
		want := string(data[:a.Start]) + a.Text + string(data[a.End:b.Start]) + b.Text + string(data[b.End:])
		if string(out) != want {
			t.Fatalf("%q, want %q", out, want)
		}
	})
}
