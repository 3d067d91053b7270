package recordtext

import "testing"

// IsBlank is true of JSON's four white space characters alone, in any
// mix, and of nothing: a line the line form skips, an event's data that no
// record line holds. Any other byte, white space to other readers (VT,
// FF, NEL's and NBSP's bytes) included, makes text that is not blank.
func TestIsBlank(t *testing.T) {
	for _, text := range []string{"", " ", "\t", "\n", "\r", " \t\r\n \r\n"} {
		if !IsBlank([]byte(text)) {
			t.Errorf("%q is not blank", text)
		}
	}
	for _, text := range []string{"{}", " 0", "\v", "\f", "\u0085", "\u00a0", "\t\n\r x", "\x00"} {
		if IsBlank([]byte(text)) {
			t.Errorf("%q is blank", text)
		}
	}
}
