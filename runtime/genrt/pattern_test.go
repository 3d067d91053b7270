package genrt

import (
	"regexp"
	"testing"
)

// Each hand-written test decides exactly what its expression decides.
func TestFastPatterns(t *testing.T) {
	inputs := []string{"", "/", "//", "/a", "a", "a/b", "/a~0b", "/a~1", "/~", "/a~", "/~2", "/~01", "~0", "/a/~1/b", "/\u00e9", "/\x00", "/ a"}
	for expr, fast := range fastPatterns {
		re := regexp.MustCompile(expr)
		for _, s := range inputs {
			if got, want := fast(s), re.MatchString(s); got != want {
				t.Errorf("%s on %q: %v, the expression says %v", expr, s, got, want)
			}
		}
		if p := CompilePattern(expr); p.fast == nil || p.String() != expr {
			t.Errorf("%s: not compiled with its test", expr)
		}
	}
}
