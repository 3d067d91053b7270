package strictjson

import "testing"

func TestOffsets(t *testing.T) {
	in := []byte(`{"a": [1, {"b/c": "x"}], "~": null}`)
	v, err := Parse(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := v.Offsets()
	want := map[string]int{"": 0, "/a": 6, "/a/0": 7, "/a/1": 10, "/a/1/b~1c": 18, "/~0": 30}
	if len(got) != len(want) {
		t.Fatalf("%d offsets, want %d: %v", len(got), len(want), got)
	}
	for ptr, off := range want {
		if got[ptr] != off {
			t.Errorf("%q at %d, want %d (%q)", ptr, got[ptr], off, in[off:])
		}
	}
	if (*Value)(nil).Offsets() == nil {
		t.Error("nil value: want an empty map")
	}
}
