package bsl

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// kinds spells tokens as kind:text for comparison.
func kinds(src string) []string {
	var out []string
	for _, tok := range Tokenize([]byte(src)) {
		s := tok.Kind.String() + ":" + src[tok.Start:tok.End]
		if tok.Key() != "" {
			s += "=" + tok.Key()
		}
		if tok.Unterminated {
			s += "!"
		}
		out = append(out, s)
	}
	return out
}

func TestTokenize(t *testing.T) {
	cases := []struct {
		src  string
		want string
	}{
		{"Справочники.Товары.НайтиПоКоду(1);",
			"ident:Справочники punct:. ident:Товары punct:. ident:НайтиПоКоду punct:( number:1 punct:) punct:;"},
		// A reserved word after a dot is a name; keywords in any case.
		{"Если Объект.Новый ТОГДА", "keyword:Если=if ident:Объект punct:. ident:Новый keyword:ТОГДА=then"},
		{"New Structure; NEW", "keyword:New=new ident:Structure punct:; keyword:NEW=new"},
		{`А = "Он сказал ""да""";`, `ident:А punct:= string:"Он сказал ""да""" punct:;`},
		{"А = 'ab' + '2024", "ident:А punct:= date:'ab' punct:+ date:'2024!"},
		{"// комментарий Справочники.Х\nБ", "comment:// комментарий Справочники.Х ident:Б"},
		{"#Если Сервер Тогда\nА\n#КонецЕсли", "preproc:#Если Сервер Тогда ident:А preproc:#КонецЕсли"},
		{"&НаСервере\nПроцедура П() Экспорт", "annotation:&НаСервере keyword:Процедура=procedure ident:П punct:( punct:) keyword:Экспорт=export"},
		{"Перейти ~Метка; ~Метка:", "keyword:Перейти=goto label:~Метка punct:; label:~Метка punct::"},
		{"a <= b <> c >= 1.5", "ident:a punct:<= ident:b punct:<> ident:c punct:>= number:1.5"},
		{"x = 1.;", "ident:x punct:= number:1 punct:. punct:;"},
		{"\ufeffА", "ident:А"},
		{"А\u00a0Б $", "ident:А ident:Б invalid:$"},
		{"_a1 1a", "ident:_a1 number:1 ident:a"},
		{"А = \"не закрыта\nБ = 1;", "ident:А punct:= string:\"не закрыта! ident:Б punct:= number:1 punct:;"},
	}
	for _, c := range cases {
		if got := strings.Join(kinds(c.src), " "); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}

// A string continues on the lines that start with "|", across blank,
// comment and preprocessor lines, and its value joins the parts with line
// breaks.
func TestMultilineString(t *testing.T) {
	src := "Т = \"ВЫБРАТЬ\n\t|\tПоле // не комментарий\n\n// комментарий между частями\n#Если Сервер Тогда\n\t|ИЗ Справочник.\"\"Х\"\"\";\r\n\t|после"
	toks := Tokenize([]byte(src))
	if len(toks) < 3 || toks[2].Kind != String || toks[2].Unterminated {
		t.Fatalf("tokens %v", kinds(src))
	}
	v := StringValue([]byte(src), toks[2])
	want := "ВЫБРАТЬ\n\tПоле // не комментарий\nИЗ Справочник.\"Х\""
	if string(v.Bytes) != want {
		t.Errorf("value %q, want %q", v.Bytes, want)
	}
	if got := kinds(src)[3:]; strings.Join(got, " ") != "punct:; punct:| ident:после" {
		t.Errorf("after the string: %v", got)
	}
	// Every byte of the value maps to the byte it came from.
	for i, b := range v.Bytes {
		p := v.Pos[i]
		switch b {
		case '\n':
			if src[p] != '\n' {
				t.Errorf("byte %d: line break from %q", i, src[p])
			}
		default:
			if src[p] != b {
				t.Errorf("byte %d %q from %d %q", i, b, p, src[p])
			}
		}
	}
	i := strings.Index(string(v.Bytes), "Справочник")
	s, e := v.Span(i, i+len("Справочник"))
	if src[s:e] != "Справочник" {
		t.Errorf("span %q", src[s:e])
	}
	// A string that ends at a line that does not continue it.
	src = "Т = \"начало\n\nА = 1;"
	if got := strings.Join(kinds(src), " "); got != "ident:Т punct:= string:\"начало! ident:А punct:= number:1 punct:;" {
		t.Errorf("%s", got)
	}
}

func TestFold(t *testing.T) {
	if !EqualFold([]byte("СправочникСсылка"), []byte("справочникссылка")) || !EqualFold([]byte("ЁЖ"), []byte("ёж")) {
		t.Error("case is not ignored")
	}
	if EqualFold([]byte("Справочник"), []byte("Справочники")) || EqualFold([]byte("a"), []byte("b")) {
		t.Error("different names are equal")
	}
	if KeywordKey([]byte("ВызватьИсключение")) != "raise" || KeywordKey([]byte("Справочники")) != "" {
		t.Error("keywords")
	}
	if KeywordKey([]byte("\xff")) != "" {
		t.Error("invalid UTF-8 is no keyword")
	}
}

// FuzzTokenize: any bytes give tokens in order, inside the source, not
// overlapping, that leave only white space uncovered; string values map
// back into their tokens.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"Процедура П(Знач А) Экспорт\n\tА = \"x\n\t|y\"\"z\"; // к\nКонецПроцедуры",
		"Т = \"ВЫБРАТЬ\n// c\n#Если\n|ИЗ Справочник.Х\";", "'2020", "\"", "\"\n|", "&", "~", "#", "/", "\ufeff", "\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		toks := Tokenize(src)
		prev := 0
		for _, tok := range toks {
			if int(tok.Start) < prev || tok.End <= tok.Start || int(tok.End) > len(src) {
				t.Fatalf("token %+v after %d in %d bytes", tok, prev, len(src))
			}
			gap := string(src[prev:tok.Start])
			for _, r := range gap {
				if !strings.ContainsRune(" \t\r\n\f\v\u00a0\ufeff\u2028\u2029\u0085\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", r) {
					t.Fatalf("%q left out before %+v", gap, tok)
				}
			}
			prev = int(tok.End)
			if tok.Kind == String {
				v := StringValue(src, tok)
				if len(v.Bytes) != len(v.Pos) {
					t.Fatalf("value and positions differ in length")
				}
				for _, p := range v.Pos {
					if p < int(tok.Start) || p >= int(tok.End) {
						t.Fatalf("position %d outside %+v", p, tok)
					}
				}
			}
		}
	})
}

func TestFoldInPlace(t *testing.T) {
	b := []byte("ИдентификаторыОбъектовМетаданных Ёж ЀЏ ABC ÄÖ \xff \u212a")
	FoldInPlace(b)
	if want := "идентификаторыобъектовметаданных ёж ѐџ abc äö \xff \u212a"; string(b) != want {
		t.Errorf("%q, want %q", b, want)
	}
}

func FuzzFoldInPlace(f *testing.F) {
	f.Add([]byte("Справочники.ТОВАРЫ Ё \xd0"))
	f.Fuzz(func(t *testing.T, src []byte) {
		b := append([]byte(nil), src...)
		FoldInPlace(b)
		if len(b) != len(src) {
			t.Fatalf("length %d, was %d", len(b), len(src))
		}
		if utf8.Valid(src) && !EqualFold(b, src) {
			t.Fatalf("%q folds to %q", src, b)
		}
	})
}

// IsName accepts what NameAt reads as one whole name, and nothing else:
// a letter or _ first, then letters, ASCII digits and _.
func TestIsName(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"Товары", true}, {"_x1", true}, {"Ёлка_2", true}, {"a", true}, {"Ⅻ", false},
		{"", false}, {"1Товары", false}, {"Мои товары", false}, {"Отбор.Владелец", false},
		{"a٣", false}, {"x²", false}, {"a-b", false}, {"\xff", false},
	} {
		if got := IsName(c.s); got != c.want {
			t.Errorf("IsName(%q) = %v, want %v", c.s, got, c.want)
		}
		if whole := c.s != "" && NameAt([]byte(c.s), 0) == len(c.s); whole != c.want {
			t.Errorf("NameAt reads %q as one whole name: %v, IsName says %v", c.s, whole, c.want)
		}
	}
}
