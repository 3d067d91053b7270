package refs

import (
	"github.com/contractkit/contractkit/designer/bsl"
)

// shadowing records where a local name hides a common module of the
// same name: the whole module, or some of its methods.
type shadowing struct {
	all     bool
	methods [][2]int // byte ranges of methods with a local of the name
}

func (s shadowing) hides(at int) bool {
	if s.all {
		return true
	}
	for _, m := range s.methods {
		if m[0] <= at && at < m[1] {
			return true
		}
	}
	return false
}

// shadowing finds the locals named like the target in a module: module
// variables (Перем), and in a method its parameters, variables, loop
// variables and the names it assigns at the start of a statement (which
// makes them local). hidden names the module's attributes.
func (t *Target) shadowing(src []byte, toks []bsl.Token, hidden map[string]bool) shadowing {
	var s shadowing
	if hidden[string(fold(t.Name))] {
		s.all = true
		return s
	}
	isPunct := func(i int, c byte) bool {
		return i >= 0 && i < len(toks) && toks[i].Kind == bsl.Punct && int(toks[i].End)-int(toks[i].Start) == 1 && src[int(toks[i].Start)] == c
	}
	isName := func(i int) bool {
		return i >= 0 && i < len(toks) && toks[i].Kind == bsl.Ident && t.isName(src[int(toks[i].Start):int(toks[i].End)])
	}
	next := func(i int) int {
		for i++; i < len(toks) && (toks[i].Kind == bsl.Comment || toks[i].Kind == bsl.Preproc); i++ {
		}
		return i
	}
	prev := func(i int) int {
		for i--; i >= 0 && (toks[i].Kind == bsl.Comment || toks[i].Kind == bsl.Preproc || toks[i].Kind == bsl.Annotation); i-- {
		}
		return i
	}
	// varList reports whether the names after Перем at i include the name.
	varList := func(i int) bool {
		for j := next(i); j < len(toks) && !isPunct(j, ';'); j = next(j) {
			if isName(j) {
				return true
			}
		}
		return false
	}
	inMethod := -1 // the start offset of the method being read
	local := false
	headerEnd := -1
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		if tok.Kind == bsl.Keyword {
			switch tok.Key() {
			case "procedure", "function":
				inMethod, local = int(tok.Start), false
				// The parameters: names after "(" or "," (or Знач).
				j := next(next(i))
				if !isPunct(j, '(') {
					continue
				}
				depth := 0
				for ; j < len(toks); j = next(j) {
					switch {
					case isPunct(j, '('):
						depth++
					case isPunct(j, ')'):
						depth--
					}
					if depth == 0 {
						break
					}
					p := prev(j)
					if isName(j) && (isPunct(p, '(') && depth == 1 || isPunct(p, ',') && depth == 1 || toks[p].Kind == bsl.Keyword && toks[p].Key() == "val") {
						local = true
					}
				}
				headerEnd = j
				if n := next(j); n < len(toks) && toks[n].Kind == bsl.Keyword && toks[n].Key() == "export" {
					headerEnd = n
				}
				i = j
				continue
			case "endprocedure", "endfunction":
				if inMethod >= 0 && local {
					s.methods = append(s.methods, [2]int{inMethod, int(tok.End)})
				}
				inMethod, local = -1, false
				continue
			case "var":
				if varList(i) {
					if inMethod < 0 {
						s.all = true
						return s
					}
					local = true
				}
				continue
			case "for":
				j := next(i)
				if j < len(toks) && toks[j].Kind == bsl.Keyword && toks[j].Key() == "each" {
					j = next(j)
				}
				if isName(j) && inMethod >= 0 {
					local = true
				}
				continue
			}
		}
		if inMethod >= 0 && isName(i) && isPunct(next(i), '=') {
			p := prev(i)
			start := p == headerEnd || isPunct(p, ';') || p >= 0 && toks[p].Kind == bsl.Keyword &&
				(toks[p].Key() == "then" || toks[p].Key() == "else" || toks[p].Key() == "do" || toks[p].Key() == "try" || toks[p].Key() == "except") ||
				p >= 0 && toks[p].Kind == bsl.Label
			if start || isPunct(p, ':') && p > 0 && toks[p-1].Kind == bsl.Label {
				local = true
			}
		}
	}
	return s
}
