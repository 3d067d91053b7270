package witness

import (
	"encoding/json"
	"math/big"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/contractkit/contractkit/internal/emit/bindview"
	"github.com/contractkit/contractkit/internal/spec"
)

// synth builds small valid values of a side's types: required members
// only, the first enum value and variant, the lower end of every range,
// strings that match their pattern. A witness built from it is still
// checked against both schemas, so a value it gets wrong is only a
// candidate that fails.
type synth struct {
	d     *spec.Domain
	depth int
}

func (s *synth) named(t *spec.Type) (any, bool) {
	if s.depth > maxDepth {
		return nil, false
	}
	s.depth++
	defer func() { s.depth-- }()
	switch t.Kind {
	case spec.ObjectKind:
		m := map[string]any{}
		for _, f := range t.Fields {
			if !f.Required {
				continue
			}
			v, ok := s.field(f)
			if !ok {
				return nil, false
			}
			m[f.Name] = v
		}
		if len(t.ExactlyOneOf) > 0 {
			for _, f := range t.Fields {
				if f.Name == t.ExactlyOneOf[0] {
					v, ok := s.field(f)
					if !ok {
						return nil, false
					}
					m[f.Name] = v
				}
			}
		}
		return m, true
	case spec.EnumKind:
		if len(t.Values) == 0 {
			return nil, false
		}
		v, err := bindview.Decode(t.Values[0].Value)
		return v, err == nil
	case spec.UnionKind:
		for _, vr := range t.Variants {
			if v, ok := s.variant(t, vr); ok {
				return v, true
			}
		}
		return nil, false
	case spec.AliasKind:
		return s.ref(t.Type, t.Constraints)
	case spec.AlternativesKind:
		for _, a := range t.Alternatives {
			if v, ok := s.ref(&spec.TypeRef{Name: a.Type}, a.Constraints); ok {
				return v, true
			}
		}
	}
	return nil, false
}

// variant builds a value of one variant of a union, with its tag.
func (s *synth) variant(u *spec.Type, vr *spec.Variant) (any, bool) {
	m := map[string]any{}
	if vr.Object != nil {
		v, ok := s.named(vr.Object)
		if !ok {
			return nil, false
		}
		m = v.(map[string]any)
	}
	m[u.Tag] = vr.Tag
	return m, true
}

func (s *synth) field(f *spec.Field) (any, bool) {
	if v, ok := s.ref(&f.Type, f.Constraints); ok {
		return v, true
	}
	if f.Nullable {
		return nil, true
	}
	return nil, false
}

// ref builds a value of a type expression under constraints.
func (s *synth) ref(r *spec.TypeRef, k *spec.Constraints) (any, bool) {
	if k != nil && k.Const != nil {
		return constValue(s.d, k.Const)
	}
	switch {
	case r.Array != nil:
		n := 0
		if k != nil && k.MinItems != nil {
			n = int(*k.MinItems)
		}
		a := []any{}
		if n > 0 {
			x, ok := s.ref(r.Array, nil)
			if !ok {
				return nil, false
			}
			for i := 0; i < n; i++ {
				a = append(a, clone(x))
			}
		}
		return a, true
	case r.Map != nil:
		return map[string]any{}, true
	case r.Named != nil:
		// A named type's constraints are its own; a member's constraints
		// on a named alias add to them, and the schema check sorts it out.
		return s.named(r.Named)
	}
	switch r.Name {
	case spec.TString:
		for _, x := range strings_(k, nil) {
			return x, true
		}
		return nil, false
	case spec.TDecimalU64:
		return "0", true
	case spec.TInteger, spec.TNumber:
		return number(k), true
	case spec.TBoolean:
		return false, true
	case spec.TObject:
		return map[string]any{}, true
	case spec.TAny:
		return json.Number("0"), true
	}
	return nil, false
}

// constValue is the value of a const, through its constant.
func constValue(d *spec.Domain, raw json.RawMessage) (any, bool) {
	if id := spec.ConstantRef(raw); id != "" {
		k := d.LookupConstant(id)
		if k == nil {
			return nil, false
		}
		raw = k.Value
	}
	v, err := bindview.Decode(raw)
	return v, err == nil
}

// number is the lower end of a range, or zero moved into it.
func number(k *spec.Constraints) any {
	if k != nil && k.Minimum != nil && k.Minimum.Value != "" {
		return json.Number(k.Minimum.Value)
	}
	if k != nil && k.Maximum != nil && k.Maximum.Value != "" {
		if r, ok := new(big.Rat).SetString(string(k.Maximum.Value)); ok && r.Sign() < 0 {
			return json.Number(k.Maximum.Value)
		}
	}
	return json.Number("0")
}

// strings_ lists strings that satisfy k, of the given lengths when counts
// is not nil (as many of them as can be made).
func strings_(k *spec.Constraints, counts []int) []string {
	lo, hi := 0, -1
	pattern := ""
	if k != nil {
		if k.MinLength != nil {
			lo = int(*k.MinLength)
		}
		if k.MaxLength != nil {
			hi = int(*k.MaxLength)
		}
		pattern = k.Pattern
	}
	if counts == nil {
		n := lo
		if n == 0 {
			n = 1
		}
		if hi >= 0 && n > hi {
			n = hi
		}
		counts = []int{n, lo}
	}
	var out []string
	seen := map[string]bool{}
	add := func(x string) {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	for _, n := range counts {
		if n < 0 {
			continue
		}
		if pattern == "" {
			add(strings.Repeat("a", n))
			continue
		}
		for _, x := range matching(pattern, n) {
			add(x)
		}
	}
	return out
}

// matching returns strings of n characters that match pattern, made from
// the pattern itself with repetitions stretched.
func matching(pattern string, n int) []string {
	re, full, ok := compilePattern(pattern)
	if !ok || n > maxGenerated {
		return nil
	}
	var out []string
	for alt := 0; alt < 3 && len(out) == 0; alt++ {
		for rep := 0; rep <= n+2 && rep <= 4096; rep++ {
			x := genAlt(re, rep, alt)
			if utf8.RuneCountInString(x) == n && full.MatchString(x) {
				out = append(out, x)
				break
			}
		}
	}
	// A pattern that matches anywhere in the value (no anchors) may be
	// padded; try a few paddings too.
	if len(out) == 0 {
		for rep := 0; rep <= 8; rep++ {
			x := gen(re, rep)
			if k := utf8.RuneCountInString(x); k < n {
				x += strings.Repeat(firstRune(x, "a"), n-k)
			}
			if utf8.RuneCountInString(x) == n && full.MatchString(x) {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

// compilePattern parses a pattern for generation and compiles it for
// checking what was generated.
func compilePattern(pattern string) (*syntax.Regexp, *regexp.Regexp, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, nil, false
	}
	full, err := regexp.Compile(pattern)
	if err != nil {
		return nil, nil, false
	}
	return re, full, true
}

// samples returns a few strings that match pattern, of growing lengths.
func samples(pattern string) []string {
	re, full, ok := compilePattern(pattern)
	if !ok {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for alt := 0; alt < 3; alt++ {
		for rep := 0; rep <= 12; rep++ {
			x := genAlt(re, rep, alt)
			if !seen[x] && full.MatchString(x) {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	return out
}

func firstRune(s, def string) string {
	if s == "" {
		return def
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return string(r)
}

// gen writes one string the expression matches: the first alternative,
// the first fitting character of a class, and every repetition rep times
// (within its bounds).
func gen(re *syntax.Regexp, rep int) string { return genAlt(re, rep, 0) }

// genAlt is gen taking the alt-th alternative (modulo their number) of
// every alternation.
func genAlt(re *syntax.Regexp, rep, alt int) string {
	var b strings.Builder
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		if b.Len() > maxGenerated {
			return // nested repetitions multiply: a witness never needs this much
		}
		switch re.Op {
		case syntax.OpLiteral:
			for _, r := range re.Rune {
				b.WriteRune(r)
			}
		case syntax.OpCharClass:
			b.WriteRune(pick(re.Rune))
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte('a')
		case syntax.OpCapture:
			walk(re.Sub[0])
		case syntax.OpConcat:
			for _, s := range re.Sub {
				walk(s)
			}
		case syntax.OpAlternate:
			walk(re.Sub[alt%len(re.Sub)])
		case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
			lo, hi := 0, -1
			switch re.Op {
			case syntax.OpPlus:
				lo = 1
			case syntax.OpQuest:
				hi = 1
			case syntax.OpRepeat:
				lo, hi = re.Min, re.Max
			}
			n := max(rep, lo)
			if hi >= 0 && n > hi {
				n = hi
			}
			for i := 0; i < n; i++ {
				walk(re.Sub[0])
			}
		}
	}
	walk(re)
	return b.String()
}

// maxGenerated bounds a generated string, in bytes.
const maxGenerated = 1 << 16

// pick chooses a character of a class, preferring a lower-case letter,
// then a digit, then any printable character.
func pick(ranges []rune) rune {
	in := func(r rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if r >= ranges[i] && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	for _, r := range "a0A_-.x" {
		if in(r) {
			return r
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < ranges[i]+256; r++ {
			if r >= 0x20 && r != 0x7f {
				return r
			}
		}
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	return 'a'
}
