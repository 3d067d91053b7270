package refs

import (
	"sort"

	"github.com/contractkit/contractkit/designer/bsl"
	"github.com/contractkit/contractkit/designer/bslquery"
)

// Why an uncertain place is uncertain.
const (
	WhyString   = "string"   // inside an ordinary string: dynamic access, a name built or passed as text
	WhyComment  = "comment"  // inside a comment
	WhyText     = "text"     // inside a human text of the XML (a synonym, a comment)
	WhyMember   = "member"   // a member of something that is not the platform's metadata or manager
	WhyShadowed = "shadowed" // a local name or attribute that hides the common module
	WhyAlias    = "alias"    // the query gives an alias the spelling of a metadata class
	WhyQuery    = "query"    // a name of a query inside a string: an alias or a field
)

// Place is one place that names the target: its bytes in the file, and
// whether a rename changes it.
type Place struct {
	Start, End int
	Certain    bool
	Why        string // for an uncertain place
}

// placeSet collects places, each range once.
type placeSet struct {
	seen map[int]bool
	out  []Place
}

func (s *placeSet) add(p Place) {
	if s.seen == nil {
		s.seen = map[int]bool{}
	}
	if s.seen[p.Start] {
		return
	}
	s.seen[p.Start] = true
	s.out = append(s.out, p)
}

func (s *placeSet) sorted() []Place {
	sort.Slice(s.out, func(i, j int) bool { return s.out[i].Start < s.out[j].Start })
	return s.out
}

// span maps a range of a decoded text to the source.
type span func(start, end int) (int, int)

// Module finds the places of a BSL module. hidden lists names (folded
// by bsl.FoldInPlace) that hide globals in the whole module: the
// attributes of a form or of the object whose module it is. hits are
// t.Hits(src): only the literals and comments that hold one are read
// closely.
func (t *Target) Module(src []byte, hits []int, hidden map[string]bool) []Place {
	if len(hits) == 0 {
		return nil
	}
	toks := bsl.Tokenize(src)
	var ps placeSet
	var shadow shadowing
	if t.module {
		shadow = t.shadowing(src, toks, hidden)
	}
	// sig is the index of the significant token before each one.
	prevSig := func(i int) int {
		for j := i - 1; j >= 0; j-- {
			if k := toks[j].Kind; k != bsl.Comment && k != bsl.Preproc {
				return j
			}
		}
		return -1
	}
	isDot := func(j int) bool {
		return j >= 0 && toks[j].Kind == bsl.Punct && int(toks[j].End)-int(toks[j].Start) == 1 && src[int(toks[j].Start)] == '.'
	}
	word := func(j int) []byte { return src[int(toks[j].Start):int(toks[j].End)] }
	for i, tok := range toks {
		switch tok.Kind {
		case bsl.Comment, bsl.Preproc:
			if t.hitIn(hits, int(tok.Start), int(tok.End)) {
				t.prose(src[int(tok.Start):int(tok.End)], func(s, e int) (int, int) { return int(tok.Start) + s, int(tok.Start) + e }, WhyComment, &ps)
			}
		case bsl.String:
			if !t.hitIn(hits, int(tok.Start), int(tok.End)) {
				continue
			}
			v := bsl.StringValue(src, tok)
			sp := func(s, e int) (int, int) { return v.Span(s, e) }
			switch {
			case t.typeString(toks, i, src, prevSig):
				t.typeList(v.Bytes, sp, &ps)
			default:
				qt := bslquery.Tokenize(v.Bytes)
				if bslquery.IsQuery(v.Bytes, qt) {
					t.query(v.Bytes, qt, sp, false, &ps)
					// Every other naming inside the literal is listed: an
					// alias or field of the query named like the object.
					t.inString(v.Bytes, qt, sp, WhyQuery, &ps)
				} else {
					t.inString(v.Bytes, qt, sp, WhyString, &ps)
				}
			}
		case bsl.Ident:
			if !t.isName(word(i)) {
				continue
			}
			p := prevSig(i)
			if isDot(p) {
				w := prevSig(p)
				if w < 0 || toks[w].Kind != bsl.Ident && toks[w].Kind != bsl.Keyword {
					continue
				}
				ww := word(w)
				switch {
				case isWord(t.coll, ww):
					before := prevSig(w)
					certain := false
					if isDot(before) {
						m := prevSig(before)
						certain = m >= 0 && isOneOf(word(m), metadataWords) && !isDot(prevSig(m))
					} else {
						certain = t.managed
					}
					if certain {
						ps.add(Place{Start: int(tok.Start), End: int(tok.End), Certain: true})
					} else {
						ps.add(Place{Start: int(tok.Start), End: int(tok.End), Why: WhyMember})
					}
				case isWord(t.types, ww):
					// Catalog.X outside a string is no code: a member of
					// something named like a class.
					ps.add(Place{Start: int(tok.Start), End: int(tok.End), Why: WhyMember})
				}
				continue
			}
			if !t.module {
				continue
			}
			if n := i + 1; n < len(toks) && isDot(n) {
				if shadow.hides(int(tok.Start)) {
					ps.add(Place{Start: int(tok.Start), End: int(tok.End), Why: WhyShadowed})
				} else {
					ps.add(Place{Start: int(tok.Start), End: int(tok.End), Certain: true})
				}
			}
		}
	}
	return ps.sorted()
}

// typeString reports whether the string token i is the first argument of
// Тип(...) or Новый ОписаниеТипов(...).
func (t *Target) typeString(toks []bsl.Token, i int, src []byte, prevSig func(int) int) bool {
	p := prevSig(i)
	if p < 0 || toks[p].Kind != bsl.Punct || src[int(toks[p].Start)] != '(' {
		return false
	}
	f := prevSig(p)
	if f < 0 || toks[f].Kind != bsl.Ident {
		return false
	}
	w := src[int(toks[f].Start):int(toks[f].End)]
	before := prevSig(f)
	switch {
	case isOneOf(w, typeFuncWords):
		return before < 0 || !(toks[before].Kind == bsl.Punct && src[int(toks[before].Start)] == '.')
	case isOneOf(w, typeDescWords):
		return before >= 0 && toks[before].Kind == bsl.Keyword && toks[before].Key() == "new"
	}
	return false
}

// typeList reads a list of type names ("СправочникСсылка.X, Строка"): a
// type word followed by the name is certain, any other naming uncertain.
func (t *Target) typeList(text []byte, sp span, ps *placeSet) {
	qt := bslquery.Tokenize(text)
	for i, q := range qt {
		if q.Kind != bslquery.Ident && q.Kind != bslquery.Keyword || !t.isName(text[int(q.Start):int(q.End)]) {
			continue
		}
		s, e := sp(int(q.Start), int(q.End))
		if w := qualifier(text, qt, i); w >= 0 && isWord(t.types, text[int(qt[w].Start):int(qt[w].End)]) && !dotBefore(text, qt, w) {
			ps.add(Place{Start: s, End: e, Certain: true})
		} else {
			ps.add(Place{Start: s, End: e, Why: WhyString})
		}
	}
}

// inString reports every naming inside a string as uncertain, with why.
func (t *Target) inString(text []byte, qt []bslquery.Token, sp span, why string, ps *placeSet) {
	for _, q := range qt {
		switch q.Kind {
		case bslquery.Ident, bslquery.Keyword, bslquery.Param:
			start := int(q.Start)
			if q.Kind == bslquery.Param {
				start++ // &Name: a parameter named like the object
			}
			if t.isName(text[start:int(q.End)]) {
				s, e := sp(start, int(q.End))
				ps.add(Place{Start: s, End: e, Why: why})
			}
		case bslquery.String:
			// Quotes inside the string: the words inside still count as
			// the string's.
			v, pos := bslquery.StringValue(text, q)
			t.inString(v, bslquery.Tokenize(v), func(s, e int) (int, int) { return sp(pos[s], pos[e-1]+1) }, why, ps)
		case bslquery.Comment:
			inner := text[int(q.Start)+2 : int(q.End)]
			t.inString(inner, bslquery.Tokenize(inner), func(s, e int) (int, int) { return sp(int(q.Start)+2+s, int(q.Start)+2+e) }, why, ps)
		}
	}
}

// prose reports the namings of a comment or a human text: the name after
// one of the target's words (or, for a common module, before a dot), and
// any naming inside quotes.
func (t *Target) prose(text []byte, sp span, why string, ps *placeSet) {
	qt := bslquery.Tokenize(text)
	for i, q := range qt {
		switch q.Kind {
		case bslquery.Ident, bslquery.Keyword:
			if !t.isName(text[int(q.Start):int(q.End)]) {
				continue
			}
			if t.shaped(text, qt, i, true) {
				s, e := sp(int(q.Start), int(q.End))
				ps.add(Place{Start: s, End: e, Why: why})
			}
		case bslquery.String:
			// Quotes in a comment or a human text are still the
			// comment's or the text's: the reason says where a person
			// looks, not what the quotes would mean in code.
			v, pos := bslquery.StringValue(text, q)
			t.inString(v, bslquery.Tokenize(v), func(s, e int) (int, int) { return sp(pos[s], pos[e-1]+1) }, why, ps)
		case bslquery.Comment:
			// The text of a comment after its slashes.
			t.prose(text[int(q.Start)+2:int(q.End)], func(s, e int) (int, int) { return sp(int(q.Start)+2+s, int(q.Start)+2+e) }, why, ps)
		}
	}
}

// shaped reports whether name token i reads as a reference: after one of
// the target's words and a dot, or for a common module before a dot and
// not after one. In prose a dot and a space end an abbreviation ("см.
// Модуль.Метод"), not a member.
func (t *Target) shaped(text []byte, qt []bslquery.Token, i int, prose bool) bool {
	if w := qualifier(text, qt, i); w >= 0 {
		ww := text[int(qt[w].Start):int(qt[w].End)]
		if isWord(t.types, ww) || isWord(t.coll, ww) {
			return true
		}
	}
	member := dotBefore(text, qt, i) && (!prose || int(qt[i-1].End) == int(qt[i].Start))
	return t.module && !member && i+1 < len(qt) && isQDot(text, qt[i+1])
}

// query finds the places of a query text: a class or type word, a dot
// and the name, where the word is not itself a member, is certain (in
// prose, uncertain with why); namings inside the query's strings and
// comments are uncertain.
func (t *Target) query(text []byte, qt []bslquery.Token, sp span, prose bool, ps *placeSet) {
	alias := false
	for i, q := range qt {
		// КАК Справочник.Х is a type (in ВЫРАЗИТЬ); КАК Справочник alone
		// an alias.
		if q.Kind == bslquery.Keyword && q.Key() == "as" && i+1 < len(qt) && qt[i+1].Kind == bslquery.Ident &&
			isWord(t.types, text[int(qt[i+1].Start):int(qt[i+1].End)]) && (i+2 >= len(qt) || !isQDot(text, qt[i+2])) {
			alias = true
		}
	}
	for i, q := range qt {
		switch q.Kind {
		case bslquery.Ident, bslquery.Keyword:
			if !t.isName(text[int(q.Start):int(q.End)]) || !t.shaped(text, qt, i, prose) {
				continue
			}
			s, e := sp(int(q.Start), int(q.End))
			w := qualifier(text, qt, i)
			switch {
			case prose:
				ps.add(Place{Start: s, End: e, Why: WhyText})
			case w < 0 || !isWord(t.types, text[int(qt[w].Start):int(qt[w].End)]):
				// A collection word or a common module call: not a query's.
				ps.add(Place{Start: s, End: e, Why: WhyMember})
			case dotBefore(text, qt, w):
				ps.add(Place{Start: s, End: e, Why: WhyMember})
			case alias:
				ps.add(Place{Start: s, End: e, Why: WhyAlias})
			default:
				ps.add(Place{Start: s, End: e, Certain: true})
			}
		case bslquery.String:
			// In a human text (prose) quotes are the text's, as the
			// contract's reason text says; in a query, a string.
			why := WhyString
			if prose {
				why = WhyText
			}
			v, pos := bslquery.StringValue(text, q)
			t.inString(v, bslquery.Tokenize(v), func(s, e int) (int, int) { return sp(pos[s], pos[e-1]+1) }, why, ps)
		case bslquery.Comment:
			why := WhyComment
			if prose {
				why = WhyText // "//" in a synonym is no comment
			}
			t.prose(text[int(q.Start):int(q.End)], func(s, e int) (int, int) { return sp(int(q.Start)+s, int(q.Start)+e) }, why, ps)
		}
	}
}

// qualifier returns the index of the word before "." before token i, or
// -1.
func qualifier(text []byte, qt []bslquery.Token, i int) int {
	if i < 2 || !isQDot(text, qt[i-1]) {
		return -1
	}
	if k := qt[i-2].Kind; k != bslquery.Ident && k != bslquery.Keyword {
		return -1
	}
	return i - 2
}

func dotBefore(text []byte, qt []bslquery.Token, i int) bool {
	return i > 0 && isQDot(text, qt[i-1])
}

func isQDot(text []byte, q bslquery.Token) bool {
	return q.Kind == bslquery.Punct && int(q.End)-int(q.Start) == 1 && text[int(q.Start)] == '.'
}
