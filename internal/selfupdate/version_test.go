package selfupdate

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// Any two strings compare consistently: antisymmetric, equal to
// themselves, and a version that parses sorts after one that does not.
func FuzzCompareVersions(f *testing.F) {
	for _, s := range []string{"0.1.0", "v1.2.3-rc.1", "1.2.3+build", "(devel)", "", "01.2.3", "1.2.3-"} {
		f.Add(s, "0.2.0")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if compareVersions(a, a) != 0 {
			t.Fatalf("%q differs from itself", a)
		}
		if ab, ba := compareVersions(a, b), compareVersions(b, a); ab != -ba {
			t.Fatalf("compare(%q, %q) = %d but compare(%q, %q) = %d", a, b, ab, b, a, ba)
		}
		_, ea := parseVersion(a)
		_, eb := parseVersion(b)
		if ea == nil && eb != nil && compareVersions(a, b) != 1 {
			t.Fatalf("%q parses, %q does not, yet it does not sort after", a, b)
		}
	})
}

// Whatever the first line a candidate prints says, reportedVersion reads it
// without a panic, and a version it reports is one word of that line.
func FuzzReportedVersion(f *testing.F) {
	for _, s := range []string{"eska 0.1.0", "eska x; IDE server v0.2.0", "eska x; IDE server ", "eska", "", "other 0.1.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		v, err := reportedVersion(line)
		if err != nil {
			return
		}
		if v == "" || strings.ContainsFunc(v, unicode.IsSpace) || !slices.Contains(strings.Fields(line), v) {
			t.Fatalf("reportedVersion(%q) = %q", line, v)
		}
	})
}

// What an error quotes of a candidate's line is cut at 80 bytes: a line of
// 80 is quoted whole, one of 81 loses its last byte to the ellipsis.
func TestQuoteCutAtLimit(t *testing.T) {
	at := strings.Repeat("x", 80)
	if got, want := strconvQuote(at), `"`+at+`"`; got != want {
		t.Errorf("80 bytes: %s, want %s", got, want)
	}
	if got, want := strconvQuote(at+"y"), `"`+at+`…"`; got != want {
		t.Errorf("81 bytes: %s, want %s", got, want)
	}
}
