package genrt

import "regexp"

// CompiledPattern is a pattern of a contract: a regular expression, which
// a hand-written test decides instead where one exists for it. Patterns
// are checked on every value of their type, and a regular expression costs
// far more than a loop over the string for the few patterns contracts use
// on hot paths.
type CompiledPattern struct {
	re   *regexp.Regexp
	fast func(string) bool
}

// fastPatterns are the patterns with a hand-written test, each equivalent
// to its expression (the tests of this package compare them).
var fastPatterns = map[string]func(string) bool{
	// An RFC 6901 JSON pointer: "/"-separated tokens in which "~" only
	// starts "~0" or "~1".
	`^(/([^/~]|~[01])*)*$`: isJSONPointer,
}

// CompilePattern compiles a pattern of a contract, as regexp.MustCompile.
func CompilePattern(expr string) *CompiledPattern {
	return &CompiledPattern{re: regexp.MustCompile(expr), fast: fastPatterns[expr]}
}

// MatchString reports whether s matches the pattern.
func (p *CompiledPattern) MatchString(s string) bool {
	if p.fast != nil {
		return p.fast(s)
	}
	return p.re.MatchString(s)
}

// String returns the pattern's expression.
func (p *CompiledPattern) String() string { return p.re.String() }

func isJSONPointer(s string) bool {
	if s != "" && s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return false
		}
	}
	return true
}
