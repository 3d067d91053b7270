package strictjson

import (
	"reflect"
	"testing"
)

// The largest and the smallest magnitude a 64-bit float holds pass; one
// step past either, and exponents no float can reach, are listed by
// pointer in document order.
func TestNumbersBeyondFloat64(t *testing.T) {
	doc := `{"max":1.7976931348623157e308,"min":4.9e-324,"zero":0e-999999,` +
		`"over":1.8e308,"under":-1e-400,"a/b":[1,2e999],"huge":1e1000100,"tiny":1e-1000100}`
	v, err := Parse([]byte(doc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := v.NumbersBeyondFloat64()
	want := []NumberAt{{"/over", "1.8e308"}, {"/under", "-1e-400"}, {"/a~1b/1", "2e999"}, {"/huge", "1e1000100"}, {"/tiny", "1e-1000100"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	long := NumberAt{"/x", "1234567890123456789012345678901234567890123e999"}
	if m := long.BeyondFloat64Message(); len(m) > 120 {
		t.Errorf("message not cut: %q", m)
	}
}
