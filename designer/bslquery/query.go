// Package bslquery splits the text of a 1C:Enterprise query (the query
// language of the platform, as written inside a BSL string, a data
// composition schema or an access restriction) into tokens with their
// byte ranges: names and reserved words of both languages, numbers,
// strings, comments, parameters (&Name) and operators. Like package bsl
// it reads any bytes and never fails; it does not parse.
package bslquery

import (
	"unicode"
	"unicode/utf8"

	"github.com/contractkit/contractkit/designer/bsl"
)

// Kind is the kind of a token.
type Kind uint8

// Token kinds.
const (
	Ident   Kind = iota + 1 // a name: a table, a field, an alias
	Keyword                 // a reserved word; Token.Key names it
	Number
	String  // "..." with "" inside
	Comment // // to the end of the line
	Param   // &Name
	Punct   // an operator or separator; <=, >= and <> are one token
	Invalid // a character the language does not use
)

var kindNames = [...]string{Ident: "ident", Keyword: "keyword", Number: "number", String: "string",
	Comment: "comment", Param: "param", Punct: "punct", Invalid: "invalid"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind?"
}

// Token is one token of a query text: small, as in package bsl.
type Token struct {
	Start, End   int32
	Kind         Kind
	Unterminated bool // a string the text does not close
	key          uint8
}

// Key is the English name of a reserved word in lower case; empty for
// other tokens.
func (t Token) Key() string { return keywordNames[t.key] }

// keywords maps the lower-case spellings of the query language's reserved
// words, Russian and English, to their index in keywordNames.
var (
	keywords     = map[string]uint8{}
	keywordNames = []string{""}
)

func init() {
	for _, kw := range [][2]string{
		{"выбрать", "select"}, {"разрешенные", "allowed"}, {"различные", "distinct"}, {"первые", "top"},
		{"из", "from"}, {"где", "where"}, {"как", "as"}, {"поместить", "into"}, {"уничтожить", "drop"},
		{"соединение", "join"}, {"левое", "left"}, {"правое", "right"}, {"полное", "full"}, {"внутреннее", "inner"},
		{"внешнее", "outer"}, {"объединить", "union"}, {"все", "all"}, {"сгруппировать", "group"},
		{"упорядочить", "order"}, {"имеющие", "having"}, {"итоги", "totals"}, {"индексировать", "index"},
		{"выбор", "case"}, {"когда", "when"}, {"тогда", "then"}, {"иначе", "else"}, {"конец", "end"},
		{"и", "and"}, {"или", "or"}, {"не", "not"}, {"в", "in"}, {"иерархии", "hierarchy"}, {"есть", "is"},
		{"между", "between"}, {"подобно", "like"}, {"спецсимвол", "escape"}, {"ссылка", "refs"},
		{"значение", "value"}, {"тип", "type"}, {"выразить", "cast"}, {"типзначения", "valuetype"},
		{"для", "for"}, {"изменения", "update"}, {"истина", "true"}, {"ложь", "false"},
		{"неопределено", "undefined"}, {"null", "null"}, {"пустаятаблица", "emptytable"}, {"по", "on"},
		{"возр", "asc"}, {"убыв", "desc"}, {"автоупорядочивание", "autoorder"}, {"общие", "overall"},
		{"только", "only"}, {"периодами", "periods"},
	} {
		id := uint8(len(keywordNames))
		keywordNames = append(keywordNames, kw[1])
		keywords[kw[0]] = id
		keywords[kw[1]] = id
	}
	keywords["by"] = keywords["on"] // СГРУППИРОВАТЬ ПО / GROUP BY, УПОРЯДОЧИТЬ ПО / ORDER BY
}

// keywordID returns the index of a reserved word, or 0.
func keywordID(word []byte) uint8 {
	const max = 40
	if len(word) > max {
		return 0
	}
	var buf [max]byte
	lower, ok := bsl.Fold(buf[:0], word)
	if !ok {
		return 0
	}
	return keywords[string(lower)]
}

// Tokenize splits a query text into tokens, skipping white space.
func Tokenize(src []byte) []Token {
	out := make([]Token, 0, len(src)/6)
	afterDot := false
	i := 0
	for i < len(src) {
		c := src[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			if r, n := utf8.DecodeRune(src[i:]); r != utf8.RuneError && unicode.IsSpace(r) || r == '\uFEFF' {
				i += n
				continue
			}
		}
		start := i
		tok := Token{Start: int32(start)}
		switch {
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' && src[i] != '\r' {
				i++
			}
			tok.Kind = Comment
		case c == '"':
			i++
			tok.Kind, tok.Unterminated = String, true
			for i < len(src) {
				if src[i] == '"' {
					if i+1 < len(src) && src[i+1] == '"' {
						i += 2
						continue
					}
					i++
					tok.Unterminated = false
					break
				}
				i++
			}
		case '0' <= c && c <= '9':
			for i < len(src) && '0' <= src[i] && src[i] <= '9' {
				i++
			}
			if i+1 < len(src) && src[i] == '.' && '0' <= src[i+1] && src[i+1] <= '9' {
				i++
				for i < len(src) && '0' <= src[i] && src[i] <= '9' {
					i++
				}
			}
			tok.Kind = Number
		case c == '&':
			i = bsl.NameAt(src, i+1)
			tok.Kind = Param
			if i == start+1 {
				tok.Kind = Punct
			}
		default:
			if end := bsl.NameAt(src, i); end > i {
				i = end
				tok.Kind = Ident
				if !afterDot {
					if id := keywordID(src[start:end]); id != 0 {
						tok.Kind, tok.key = Keyword, id
					}
				}
				break
			}
			if c < utf8.RuneSelf {
				i++
				tok.Kind = Invalid
				switch c {
				case '.', ',', ';', ':', '(', ')', '[', ']', '{', '}', '=', '+', '-', '*', '/', '%', '<', '>', '?', '#', '|', '!', '$', '@', '\\', '\'', '^', '~', '`':
					tok.Kind = Punct
					if i < len(src) && (c == '<' && (src[i] == '=' || src[i] == '>') || c == '>' && src[i] == '=') {
						i++
					}
				}
				break
			}
			_, n := utf8.DecodeRune(src[i:])
			i += n
			tok.Kind = Invalid
		}
		tok.End = int32(i)
		out = append(out, tok)
		if tok.Kind != Comment {
			afterDot = tok.Kind == Punct && tok.End-tok.Start == 1 && src[tok.Start] == '.'
		}
	}
	return out
}

// StringValue returns the value of a string token: its content with
// doubled quotes made single, and for each byte its offset in the text.
func StringValue(src []byte, tok Token) (value []byte, pos []int) {
	if tok.Kind != String {
		return nil, nil
	}
	end := int(tok.End)
	if !tok.Unterminated {
		end--
	}
	if end > int(tok.Start)+1 {
		value, pos = make([]byte, 0, end-int(tok.Start)-1), make([]int, 0, end-int(tok.Start)-1)
	}
	for i := int(tok.Start) + 1; i < end; i++ {
		value = append(value, src[i])
		pos = append(pos, i)
		if src[i] == '"' && i+1 < end && src[i+1] == '"' {
			i++
		}
	}
	return value, pos
}

// IsQuery reports whether a text reads as a query or a part of one: it
// holds a reserved word that only queries use (SELECT, FROM, WHERE,
// JOIN, UNION, INTO, DROP, REFS, VALUE, CAST, VALUETYPE, HIERARCHY)
// written in capitals, the way query texts are written and prose is not.
func IsQuery(src []byte, toks []Token) bool {
	for _, t := range toks {
		if t.Kind != Keyword {
			continue
		}
		switch t.Key() {
		case "select", "from", "where", "join", "union", "into", "drop", "refs", "value", "cast", "valuetype", "hierarchy":
			if upper(src[t.Start:t.End]) {
				return true
			}
		}
	}
	return false
}

// upper reports a word with no lower-case letter.
func upper(word []byte) bool {
	for _, r := range string(word) {
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}
