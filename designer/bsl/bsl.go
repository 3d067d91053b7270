// Package bsl splits the text of a 1C:Enterprise module (BSL, the
// built-in language) into tokens with their byte ranges: identifiers and
// the reserved words of both languages, numbers, string literals
// (doubled quotes inside, and continuation lines that start with "|"),
// date literals, comments, preprocessor lines, annotations, labels and
// operators. It reads any bytes: what the language does not allow
// becomes an Invalid token or an unterminated literal, never a panic.
//
// It is a tokenizer, not a parser: it knows a reserved word only by its
// spelling and position (after a dot every word is a name), which is all
// a search for references needs.
package bsl

import (
	"unicode"
	"unicode/utf8"
)

// Kind is the kind of a token.
type Kind uint8

// Token kinds.
const (
	Ident      Kind = iota + 1 // a name
	Keyword                    // a reserved word; Token.Key names it
	Number                     // 12, 1.5
	String                     // "..." on one line or several
	Date                       // '20240101'
	Comment                    // // to the end of the line
	Preproc                    // # to the end of the line
	Annotation                 // &НаСервере
	Label                      // ~Метка
	Punct                      // an operator or separator; <=, >= and <> are one token
	Invalid                    // a character the language does not use
)

var kindNames = [...]string{Ident: "ident", Keyword: "keyword", Number: "number", String: "string", Date: "date",
	Comment: "comment", Preproc: "preproc", Annotation: "annotation", Label: "label", Punct: "punct", Invalid: "invalid"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind?"
}

// Token is one token: its kind and the bytes [Start, End) of the source.
// It is small (a module has a token every few bytes): offsets are 32
// bits, and a reserved word is an index into the table of names.
type Token struct {
	Start, End int32
	Kind       Kind
	// Unterminated marks a string or date literal the source does not
	// close.
	Unterminated bool
	key          uint8
}

// Key is the English name of a reserved word in lower case ("new",
// "procedure"); empty for other tokens.
func (t Token) Key() string { return keywordNames[t.key] }

// keywords maps the lower-case spellings of the reserved words, Russian
// and English, to their index in keywordNames, the English names (0 is
// no word).
var (
	keywords     = map[string]uint8{}
	keywordNames = []string{""}
)

func init() {
	for _, kw := range [][2]string{
		{"процедура", "procedure"}, {"функция", "function"}, {"конецпроцедуры", "endprocedure"}, {"конецфункции", "endfunction"},
		{"экспорт", "export"}, {"знач", "val"}, {"если", "if"}, {"иначеесли", "elsif"}, {"иначе", "else"}, {"тогда", "then"},
		{"конецесли", "endif"}, {"пока", "while"}, {"для", "for"}, {"каждого", "each"}, {"из", "in"}, {"по", "to"},
		{"цикл", "do"}, {"конеццикла", "enddo"}, {"попытка", "try"}, {"исключение", "except"}, {"конецпопытки", "endtry"},
		{"возврат", "return"}, {"продолжить", "continue"}, {"прервать", "break"}, {"вызватьисключение", "raise"},
		{"перем", "var"}, {"не", "not"}, {"и", "and"}, {"или", "or"}, {"новый", "new"}, {"перейти", "goto"},
		{"выполнить", "execute"}, {"добавитьобработчик", "addhandler"}, {"удалитьобработчик", "removehandler"},
		{"истина", "true"}, {"ложь", "false"}, {"неопределено", "undefined"}, {"null", "null"},
		{"асинх", "async"}, {"ждать", "await"},
	} {
		id := uint8(len(keywordNames))
		keywordNames = append(keywordNames, kw[1])
		keywords[kw[0]] = id
		keywords[kw[1]] = id
	}
}

// maxKeywordBytes is the longest spelling of a reserved word in UTF-8
// ("добавитьобработчик"); a longer name is never one.
const maxKeywordBytes = 36

// KeywordKey returns the English name of a reserved word spelled word in
// either language and any case, or "".
func KeywordKey(word []byte) string { return keywordNames[keywordID(word)] }

func keywordID(word []byte) uint8 {
	if len(word) > maxKeywordBytes {
		return 0
	}
	var buf [maxKeywordBytes]byte
	lower, ok := Fold(buf[:0], word)
	if !ok {
		return 0
	}
	return keywords[string(lower)]
}

// Fold appends the lower-case form of a name to dst, rune by rune, the
// way the language compares names; false when word is not UTF-8.
func Fold(dst, word []byte) ([]byte, bool) {
	for i := 0; i < len(word); {
		c := word[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		if c == 0xD0 && i+1 < len(word) && word[i+1]&0xC0 == 0x80 {
			// Cyrillic, as in FoldInPlace.
			d := word[i+1]
			switch {
			case 0x90 <= d && d <= 0x9F:
				dst = append(dst, 0xD0, d+0x20)
			case 0xA0 <= d && d <= 0xAF:
				dst = append(dst, 0xD1, d-0x20)
			case 0x80 <= d && d <= 0x8F:
				dst = append(dst, 0xD1, d+0x10)
			default:
				dst = append(dst, c, d)
			}
			i += 2
			continue
		}
		r, n := utf8.DecodeRune(word[i:])
		if r == utf8.RuneError && n == 1 {
			return dst, false
		}
		dst = utf8.AppendRune(dst, lower(r))
		i += n
	}
	return dst, true
}

// lower is unicode.ToLower with the Cyrillic letters of Russian first.
func lower(r rune) rune {
	switch {
	case 'А' <= r && r <= 'Я':
		return r + 'а' - 'А'
	case 'а' <= r && r <= 'я' || r == 'ё':
		return r
	case r == 'Ё':
		return 'ё'
	}
	return unicode.ToLower(r)
}

// EqualFold reports whether two names are the same name for the
// language: equal up to case.
func EqualFold(a, b []byte) bool {
	for len(a) > 0 && len(b) > 0 {
		ca, cb := a[0], b[0]
		if ca < utf8.RuneSelf && cb < utf8.RuneSelf {
			if 'A' <= ca && ca <= 'Z' {
				ca += 'a' - 'A'
			}
			if 'A' <= cb && cb <= 'Z' {
				cb += 'a' - 'A'
			}
			if ca != cb {
				return false
			}
			a, b = a[1:], b[1:]
			continue
		}
		ra, na := utf8.DecodeRune(a)
		rb, nb := utf8.DecodeRune(b)
		if ra != rb && lower(ra) != lower(rb) {
			return false
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) == 0 && len(b) == 0
}

// IsLetter reports a rune that may start a name: a Unicode letter or _.
func IsLetter(r rune) bool {
	return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r >= utf8.RuneSelf && unicode.IsLetter(r)
}

// IsNameRune reports a rune that may continue a name.
func IsNameRune(r rune) bool { return IsLetter(r) || '0' <= r && r <= '9' }

// IsName reports whether s is one name of the language, the rule every
// name a user gives an object or a parameter follows: a letter or _
// first, then letters, digits and _ (the identifier rule the eska IDE
// API states for renames). It is the rule NameAt reads names by, so a
// name it accepts is read back from a module as one name.
func IsName(s string) bool {
	for i, r := range s {
		if i == 0 && !IsLetter(r) || !IsNameRune(r) {
			return false
		}
	}
	return s != ""
}

// NameAt returns the end of the name that starts at i, or i when none
// does.
func NameAt(src []byte, i int) int {
	first := true
	for i < len(src) {
		c := src[i]
		if c < utf8.RuneSelf {
			if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9' {
				i++
				first = false
				continue
			}
			return i
		}
		if (c == 0xD0 || c == 0xD1) && i+1 < len(src) && src[i+1]&0xC0 == 0x80 {
			// U+0400-U+047F: Cyrillic letters, the common case.
			i += 2
			first = false
			continue
		}
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n == 1 || !unicode.IsLetter(r) {
			return i
		}
		i += n
		first = false
	}
	return i
}

// Tokenize splits src into tokens, skipping white space (a BOM at the
// start included).
func Tokenize(src []byte) []Token {
	t := tokenizer{src: src, out: make([]Token, 0, len(src)/6)}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		t.i = 3
	}
	for t.next() {
	}
	return t.out
}

type tokenizer struct {
	src      []byte
	i        int
	out      []Token
	afterDot bool // the last significant token was a "."
}

func (t *tokenizer) emit(tok Token) {
	t.out = append(t.out, tok)
	switch tok.Kind {
	case Comment, Preproc:
	default:
		t.afterDot = tok.Kind == Punct && tok.End-tok.Start == 1 && t.src[tok.Start] == '.'
	}
}

// lineEnd is the offset of the end of the line at i (its \r or \n, or
// the end of the source).
func (t *tokenizer) lineEnd(i int) int {
	for i < len(t.src) && t.src[i] != '\n' && t.src[i] != '\r' {
		i++
	}
	return i
}

func (t *tokenizer) next() bool {
	src := t.src
	for t.i < len(src) {
		c := src[t.i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
			t.i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(src[t.i:])
			if r != utf8.RuneError && unicode.IsSpace(r) || r == '\uFEFF' {
				t.i += n
				continue
			}
		}
		break
	}
	if t.i >= len(src) {
		return false
	}
	start := t.i
	c := src[start]
	switch {
	case c == '/' && start+1 < len(src) && src[start+1] == '/':
		t.i = t.lineEnd(start)
		t.emit(Token{Kind: Comment, Start: int32(start), End: int32(t.i)})
	case c == '#':
		t.i = t.lineEnd(start)
		t.emit(Token{Kind: Preproc, Start: int32(start), End: int32(t.i)})
	case c == '"':
		end, closed := t.stringEnd(start + 1)
		t.i = end
		t.emit(Token{Kind: String, Start: int32(start), End: int32(end), Unterminated: !closed})
	case c == '\'':
		j := start + 1
		for j < len(src) && src[j] != '\'' && src[j] != '\n' && src[j] != '\r' {
			j++
		}
		closed := j < len(src) && src[j] == '\''
		if closed {
			j++
		}
		t.i = j
		t.emit(Token{Kind: Date, Start: int32(start), End: int32(j), Unterminated: !closed})
	case '0' <= c && c <= '9':
		j := start
		for j < len(src) && '0' <= src[j] && src[j] <= '9' {
			j++
		}
		if j+1 < len(src) && src[j] == '.' && '0' <= src[j+1] && src[j+1] <= '9' {
			j++
			for j < len(src) && '0' <= src[j] && src[j] <= '9' {
				j++
			}
		}
		t.i = j
		t.emit(Token{Kind: Number, Start: int32(start), End: int32(j)})
	case c == '&' || c == '~':
		end := NameAt(src, start+1)
		kind := Annotation
		if c == '~' {
			kind = Label
		}
		if end == start+1 {
			kind, end = Punct, start+1
		}
		t.i = end
		t.emit(Token{Kind: kind, Start: int32(start), End: int32(end)})
	default:
		if end := NameAt(src, start); end > start {
			t.i = end
			tok := Token{Kind: Ident, Start: int32(start), End: int32(end)}
			if !t.afterDot {
				if id := keywordID(src[start:end]); id != 0 {
					tok.Kind, tok.key = Keyword, id
				}
			}
			t.emit(tok)
			return true
		}
		if c < utf8.RuneSelf {
			n := 1
			if start+1 < len(src) {
				switch string(src[start : start+2]) {
				case "<=", ">=", "<>":
					n = 2
				}
			}
			kind := Punct
			if !isPunct(c) {
				kind = Invalid
			}
			t.i = start + n
			t.emit(Token{Kind: kind, Start: int32(start), End: int32(start + n)})
			return true
		}
		_, n := utf8.DecodeRune(src[start:])
		t.i = start + n
		t.emit(Token{Kind: Invalid, Start: int32(start), End: int32(start + n)})
	}
	return true
}

func isPunct(c byte) bool {
	switch c {
	case '.', ',', ';', ':', '(', ')', '[', ']', '=', '+', '-', '*', '/', '%', '<', '>', '?', '|':
		return true
	}
	return false
}

// stringEnd finds the end of a string literal whose content starts at i:
// just after its closing quote, or the end of its last line when it is
// not closed. A line break continues the literal when the next line that
// is not blank, a comment or a preprocessor line starts with "|".
func (t *tokenizer) stringEnd(i int) (int, bool) {
	src := t.src
	for {
		for i < len(src) && src[i] != '\n' && src[i] != '\r' {
			if src[i] == '"' {
				if i+1 < len(src) && src[i+1] == '"' {
					i += 2
					continue
				}
				return i + 1, true
			}
			i++
		}
		cont, ok := t.continuation(i)
		if !ok {
			return i, false
		}
		i = cont
	}
}

// continuation looks past the line end at i for the "|" of a
// continuation line, and returns the offset after it.
func (t *tokenizer) continuation(i int) (int, bool) {
	src := t.src
	for i < len(src) {
		// i is at a line end: step over it.
		if src[i] == '\r' {
			i++
			if i < len(src) && src[i] == '\n' {
				i++
			}
		} else if src[i] == '\n' {
			i++
		} else {
			return 0, false
		}
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\f' || src[i] == '\v') {
			i++
		}
		switch {
		case i >= len(src):
			return 0, false
		case src[i] == '|':
			return i + 1, true
		case src[i] == '\n' || src[i] == '\r':
			// a blank line
		case src[i] == '#' || src[i] == '/' && i+1 < len(src) && src[i+1] == '/':
			i = t.lineEnd(i)
		default:
			return 0, false
		}
	}
	return 0, false
}

// Text is the value of a literal with, for each of its bytes, the offset
// of the source byte it comes from: a doubled quote gives one quote from
// the first; a line break between the parts of a string gives "\n" from
// the line end.
type Text struct {
	Bytes []byte
	Pos   []int
}

// Span returns the source range of Bytes[start:end] (end > start).
func (x Text) Span(start, end int) (int, int) {
	return x.Pos[start], x.Pos[end-1] + 1
}

// StringValue returns the value of a string token. Comment and
// preprocessor lines between the parts of a string are not part of it.
func StringValue(src []byte, tok Token) Text {
	var x Text
	if tok.Kind != String || tok.Start >= tok.End {
		return x
	}
	i, end := int(tok.Start)+1, int(tok.End)
	x.Bytes, x.Pos = make([]byte, 0, end-i), make([]int, 0, end-i)
	if !tok.Unterminated {
		end-- // the closing quote
	}
	for i < end {
		c := src[i]
		switch {
		case c == '"' && i+1 < end && src[i+1] == '"':
			x.Bytes = append(x.Bytes, '"')
			x.Pos = append(x.Pos, i)
			i += 2
		case c == '\n' || c == '\r':
			x.Bytes = append(x.Bytes, '\n')
			x.Pos = append(x.Pos, i)
			// Skip to the content after the next "|".
			j := i
			for j < end {
				if src[j] == '|' {
					break
				}
				if src[j] == '/' && j+1 < end && src[j+1] == '/' || src[j] == '#' {
					for j < end && src[j] != '\n' && src[j] != '\r' {
						j++
					}
					continue
				}
				j++
			}
			i = j + 1
		default:
			x.Bytes = append(x.Bytes, c)
			x.Pos = append(x.Pos, i)
			i++
		}
	}
	return x
}

// FoldInPlace lower-cases the letters of src in place wherever the lower
// case has the same length in UTF-8 (every Latin and Cyrillic letter), so
// that offsets in the result are offsets in src. It serves a fast
// search: a name is folded the same way and looked for with bytes.Index.
func FoldInPlace(src []byte) {
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c < utf8.RuneSelf:
			if 'A' <= c && c <= 'Z' {
				src[i] = c + 'a' - 'A'
			}
			i++
		case c == 0xD0 && i+1 < len(src):
			// Cyrillic А-П (D0 90-9F) → а-п (D0 B0-BF); Р-Я (D0 A0-AF) →
			// р-я (D1 80-8F); Ё (D0 81) → ё (D1 91); Ѐ-Џ (D0 80-8F) →
			// ѐ-џ (D1 90-9F).
			d := src[i+1]
			switch {
			case 0x90 <= d && d <= 0x9F:
				src[i+1] = d + 0x20
			case 0xA0 <= d && d <= 0xAF:
				src[i], src[i+1] = 0xD1, d-0x20
			case 0x80 <= d && d <= 0x8F:
				src[i], src[i+1] = 0xD1, d+0x10
			}
			i += 2
		default:
			r, n := utf8.DecodeRune(src[i:])
			if r != utf8.RuneError {
				if l := unicode.ToLower(r); l != r && utf8.RuneLen(l) == n {
					utf8.EncodeRune(src[i:], l)
				}
			}
			i += n
		}
	}
}
