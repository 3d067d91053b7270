package bslquery

import (
	"strings"
	"testing"
)

func spell(src string) string {
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
	return strings.Join(out, " ")
}

func TestTokenize(t *testing.T) {
	cases := []struct{ src, want string }{
		{"ВЫБРАТЬ Т.Ссылка ИЗ Справочник.Товары КАК Т ГДЕ Т.Код = &Код",
			"keyword:ВЫБРАТЬ=select ident:Т punct:. ident:Ссылка keyword:ИЗ=from ident:Справочник punct:. ident:Товары keyword:КАК=as ident:Т keyword:ГДЕ=where ident:Т punct:. ident:Код punct:= param:&Код"},
		// After a dot every word is a name (a field called Тип).
		{"Т.Тип = ТИП(Справочник.Х)", "ident:Т punct:. ident:Тип punct:= keyword:ТИП=type punct:( ident:Справочник punct:. ident:Х punct:)"},
		{`Т.Имя ПОДОБНО "%""х""%" // коммент`, `ident:Т punct:. ident:Имя keyword:ПОДОБНО=like string:"%""х""%" comment:// коммент`},
		{"a<>b<=1.25{x}#Для", "ident:a punct:<> ident:b punct:<= number:1.25 punct:{ ident:x punct:} punct:# keyword:Для=for"},
		{`"открыта`, `string:"открыта!`},
		{"SELECT * FROM Catalog.Goods", "keyword:SELECT=select punct:* keyword:FROM=from ident:Catalog punct:. ident:Goods"},
		{"&", "punct:&"},
	}
	for _, c := range cases {
		if got := spell(c.src); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}

func TestIsQuery(t *testing.T) {
	for src, want := range map[string]bool{
		"ВЫБРАТЬ 1":                              true,
		"\n\tИЗ Справочник.Х КАК Т":              true,
		"ЗНАЧЕНИЕ(Справочник.Х.ПустаяСсылка)":    true,
		"Справочник.Х":                           false,
		"Выбрать элемент из списка":              false,
		"Не удалось прочитать данные из таблицы": false,
		"select 1 from t":                        false,
		"SELECT 1":                               true,
	} {
		if got := IsQuery([]byte(src), Tokenize([]byte(src))); got != want {
			t.Errorf("%q: %v, want %v", src, got, want)
		}
	}
}

func TestStringValue(t *testing.T) {
	src := `x = "a""b"`
	toks := Tokenize([]byte(src))
	v, pos := StringValue([]byte(src), toks[2])
	if string(v) != `a"b` || len(pos) != 3 || src[pos[2]] != 'b' {
		t.Errorf("%q %v", v, pos)
	}
}

// FuzzTokenize: tokens are in order, inside the text, and cover all but
// white space; string values map into their tokens.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"ВЫБРАТЬ Т.Х ИЗ Справочник.Х КАК Т // к\nГДЕ Т.А = \"\"\"\"", "\"", "&", "/", "<>", "\xff", "ЗНАЧЕНИЕ(Перечисление.Х.Y)"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		prev := 0
		toks := Tokenize(src)
		for _, tok := range toks {
			if int(tok.Start) < prev || tok.End <= tok.Start || int(tok.End) > len(src) {
				t.Fatalf("token %+v after %d in %d bytes", tok, prev, len(src))
			}
			if gap := strings.TrimSpace(strings.ReplaceAll(string(src[prev:tok.Start]), "\ufeff", "")); gap != "" {
				t.Fatalf("%q left out before %+v", gap, tok)
			}
			prev = int(tok.End)
			v, pos := StringValue(src, tok)
			if len(v) != len(pos) {
				t.Fatal("value and positions differ in length")
			}
			for _, p := range pos {
				if p <= int(tok.Start) || p >= int(tok.End) {
					t.Fatalf("position %d outside %+v", p, tok)
				}
			}
		}
		IsQuery(src, toks)
	})
}
