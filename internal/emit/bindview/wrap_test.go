package bindview

import (
	"reflect"
	"testing"
)

// A line holds words while it stays within the width: at the width the
// words share a line, one column past it the last word moves down.
func TestWrap(t *testing.T) {
	for _, c := range []struct {
		text  string
		width int
		want  []string
	}{
		{"ab cd", 5, []string{"ab cd"}},
		{"ab cd", 4, []string{"ab", "cd"}},
		{"  ab\n\tcd  ", 5, []string{"ab cd"}},
		{"abcdefgh ij", 4, []string{"abcdefgh", "ij"}},
		{"", 10, nil},
	} {
		if got := Wrap(c.text, c.width); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Wrap(%q, %d) = %q, want %q", c.text, c.width, got, c.want)
		}
	}
}

// Blank paragraphs vanish, and one empty line stands between the others.
func TestParagraphs(t *testing.T) {
	got := Paragraphs([]string{" ab cd ", "", "  ", "ef"}, 4)
	want := []string{"ab", "cd", "", "ef"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Paragraphs = %q, want %q", got, want)
	}
	if got := Paragraphs([]string{"", " "}, 4); got != nil {
		t.Errorf("Paragraphs of blanks = %q, want nil", got)
	}
}
