package witness

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// Strings made to a pattern match it and have the length asked for.
func TestMatching(t *testing.T) {
	for _, c := range []struct {
		pattern string
		n       int
	}{
		{`^[a-z]+$`, 5},
		{`^[a-z][a-z0-9-]*$`, 1},
		{`^[a-z][a-z0-9-]*$`, 12},
		{`^[0-9a-f]{64}$`, 64},
		{`^(0|[1-9][0-9]*)$`, 3},
		{`^[^\n]*$`, 4},
		{`^catalog:.+$`, 10},
		{`x`, 6}, // unanchored: padded around the match
	} {
		got := matching(c.pattern, c.n)
		if len(got) == 0 {
			t.Errorf("%s: no string of %d characters", c.pattern, c.n)
			continue
		}
		re := regexp.MustCompile(c.pattern)
		for _, s := range got {
			if !re.MatchString(s) || utf8.RuneCountInString(s) != c.n {
				t.Errorf("%s: %q does not match or is not %d characters", c.pattern, s, c.n)
			}
		}
	}
	// A length the pattern cannot have gives nothing, not a wrong string.
	if got := matching(`^[0-9a-f]{64}$`, 63); len(got) != 0 {
		t.Errorf("63 characters of a 64-character pattern: %q", got)
	}
}

// Any pattern a spec may hold gives strings that match it (or none), in
// bounded time and memory, and never a panic.
func FuzzPatternStrings(f *testing.F) {
	for _, p := range []string{`^[a-z]+$`, `(a{1000}){1000}`, `((a{100}){100}){100}`, `^\p{L}+$`, `[^\x00-\x{10FFFF}]`, `a|b|c`, `(?i)abc`, `\bx\B`} {
		f.Add(p, 8)
	}
	f.Fuzz(func(t *testing.T, pattern string, n int) {
		re, err := regexp.Compile(pattern)
		if err != nil || n < 0 || n > 4096 {
			return
		}
		for _, s := range append(samples(pattern), matching(pattern, n)...) {
			if len(s) > 2*maxGenerated {
				t.Fatalf("%q: a string of %d bytes", pattern, len(s))
			}
			if !re.MatchString(s) {
				t.Fatalf("%q: %q does not match", pattern, strings.Repeat(s, 1))
			}
		}
	})
}
