package refs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/designer"
	"github.com/contractkit/contractkit/designer/bsl"
)

func target(t testing.TB, kind designer.Kind, name string) *Target {
	t.Helper()
	tg, ok := NewTarget(kind, name)
	if !ok {
		t.Fatalf("%s is not renamable", kind)
	}
	return tg
}

// marks spells places as the text they cover: +text for certain,
// ?why:text for uncertain.
func marks(src string, ps []Place) string {
	var out []string
	for _, p := range ps {
		if p.Certain {
			out = append(out, "+"+src[p.Start:p.End])
		} else {
			out = append(out, "?"+p.Why+":"+src[p.Start:p.End])
		}
	}
	return strings.Join(out, " ")
}

func module(t *testing.T, tg *Target, src string, hidden map[string]bool) string {
	t.Helper()
	return marks(src, tg.Module([]byte(src), tg.Hits([]byte(src)), hidden))
}

// The places of a catalog in BSL: managers, Метаданные, type strings and
// query tables are certain; strings, comments, members, aliases are not.
//
//contract:proves eska-ide-api.editing.rename-places
func TestModuleCatalog(t *testing.T) {
	tg := target(t, "catalog", "Товары")
	cases := []struct{ src, want string }{
		{"А = Справочники.Товары.НайтиПоКоду(1);", "+Товары"},
		{"А = справочники.ТОВАРЫ.ПустаяСсылка();", "+ТОВАРЫ"},
		{"М = Метаданные.Справочники.Товары;", "+Товары"},
		{"М = Metadata.Catalogs.Товары; N = Catalogs.Товары.EmptyRef()", "+Товары +Товары"},
		// A member of something else, or a method of the same name.
		{"М = Х.Справочники.Товары; Т = Модуль.Товары(); Товары = 1;", "?member:Товары"},
		{"М = Х.Метаданные.Справочники.Товары;", "?member:Товары"},
		{`Т = Тип("СправочникСсылка.Товары");`, "+Товары"},
		{`Т = Type("CatalogRef.Товары, CatalogObject.Товары")`, "+Товары +Товары"},
		{`О = Новый ОписаниеТипов("СправочникСсылка.Товары,Строка");`, "+Товары"},
		{`О = Новый ОписаниеТипов(Типы, "СправочникСсылка.Товары");`, "?string:Товары"},
		{`О = Х.Тип("СправочникСсылка.Товары");`, "?string:Товары"},
		{`Т = Тип("Товары");`, "?string:Товары"},
		// Query texts: the table is certain; the alias, a query string
		// and a comment in the query are not.
		{"Запрос.Текст = \"ВЫБРАТЬ Товары.Ссылка\n|ИЗ Справочник.Товары КАК Товары\n|// Справочник.Товары\n|ГДЕ Товары.Имя = \"\"Товары\"\"\";",
			"?query:Товары +Товары ?query:Товары ?comment:Товары ?query:Товары ?string:Товары"},
		{`Т = "ЗНАЧЕНИЕ(Справочник.Товары.ПустаяСсылка)";`, "+Товары"},
		{`Т = "ВЫБРАТЬ 1 ИЗ Справочник.Товары КАК Справочник";`, "?alias:Товары"},
		{`Т = "ВЫБРАТЬ Т.Справочник.Товары ИЗ Т";`, "?member:Товары"},
		// Ordinary strings: dynamic access, full names, names built by
		// concatenation.
		{`М = Метаданные.Справочники["Товары"]; Ф = ПолучитьФорму("Справочник.Товары.ФормаСписка");`, "?string:Товары ?string:Товары"},
		{`Х = "Справочник." + "Товары";`, "?string:Товары"},
		// Quotes in a comment are the comment's.
		{`// см. "Товары" и Справочники.Товары`, "?comment:Товары ?comment:Товары"},
		{"// Справочники.Товары устарел; Товары\nА = 1;", "?comment:Товары"},
		{"Т = Справочник.Товары;", "?member:Товары"},
		{"ТоварыИУслуги = Справочники.ТоварыИУслуги;", ""},
	}
	for _, c := range cases {
		if got := module(t, tg, c.src, nil); got != c.want {
			t.Errorf("%s\n got %q\nwant %q", c.src, got, c.want)
		}
	}
}

// A common module is named by its calls; a local, a parameter or a form
// attribute of the same name hides it.
//
//contract:proves eska-ide-api.editing.rename-places
func TestModuleCommonModule(t *testing.T) {
	tg := target(t, "common-module", "Общий")
	cases := []struct{ src, want string }{
		{"Общий.Сделать(); А = общий.Сделать();", "+Общий +общий"},
		{"А = Х.Общий.Сделать(); Общий();", ""},
		{"Процедура П(Общий)\n\tОбщий.Сделать();\nКонецПроцедуры\nПроцедура Р()\n\tОбщий.Сделать();\nКонецПроцедуры", "?shadowed:Общий +Общий"},
		{"Процедура П(А, Знач Общий = 1) Экспорт\n\tОбщий.Х();\nКонецПроцедуры", "?shadowed:Общий"},
		{"Процедура П()\n\tОбщий = Новый Структура;\n\tОбщий.Вставить(1);\nКонецПроцедуры", "?shadowed:Общий"},
		{"Процедура П()\n\tДля Каждого Общий Из С Цикл Общий.Х(); КонецЦикла;\nКонецПроцедуры", "?shadowed:Общий"},
		{"Перем Общий;\nПроцедура П()\n\tОбщий.Х();\nКонецПроцедуры", "?shadowed:Общий"},
		{"Процедура П()\n\tА = Общий.Х();\n\tОбщий.Y = 1;\nКонецПроцедуры", "+Общий +Общий"},
		{`ОбщегоНазначения.ОбщийМодуль("Общий").Х(); // Общий.Х()`, "?string:Общий ?comment:Общий"},
		{`Метаданные.ОбщиеМодули.Общий; ОбщиеМодули.Общий`, "+Общий ?member:Общий"},
	}
	for _, c := range cases {
		if got := module(t, tg, c.src, nil); got != c.want {
			t.Errorf("%s\n got %q\nwant %q", c.src, got, c.want)
		}
	}
	if got := module(t, tg, "Общий.Х();", map[string]bool{"общий": true}); got != "?shadowed:Общий" {
		t.Errorf("a form attribute: %q", got)
	}
}

func TestModuleEnum(t *testing.T) {
	tg := target(t, "enum", "Статусы")
	src := "Если С = Перечисления.Статусы.Новый Тогда\n\tТ = \"ВЫБРАТЬ 1 ГДЕ Т.С = ЗНАЧЕНИЕ(Перечисление.Статусы.Новый)\";\nКонецЕсли;"
	if got := module(t, tg, src, nil); got != "+Статусы +Статусы" {
		t.Errorf("%q", got)
	}
}

func xml(t *testing.T, tg *Target, src string, role XMLRole) string {
	t.Helper()
	ps, err := tg.XML([]byte(src), tg.Hits([]byte(src)), role)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return marks(src, ps)
}

// The places of a catalog in XML: its own Name, its line in
// Configuration.xml, type references, full names and query tables;
// human texts, comments and quoted names are uncertain.
//
//contract:proves eska-ide-api.editing.rename-places
func TestXML(t *testing.T) {
	tg := target(t, "catalog", "Товары")
	own := `<?xml version="1.0"?><MetaDataObject><Catalog uuid="1"><InternalInfo><xr:GeneratedType name="CatalogObject.Товары" category="Object"/></InternalInfo>` +
		`<Properties><Name>Товары</Name><Synonym><v8:item><v8:content>Справочник.Товары "Товары"</v8:content></v8:item></Synonym><Comment>см. Catalog.Товары</Comment></Properties>` +
		`<ChildObjects><Attribute><Properties><Name>Товары</Name></Properties></Attribute></ChildObjects></Catalog></MetaDataObject>`
	// A quoted name in a synonym is still human text (reason text).
	if got := xml(t, tg, own, XMLOwn); got != "+Товары +Товары ?text:Товары ?text:Товары ?text:Товары" {
		t.Errorf("own: %q", got)
	}
	if got := xml(t, tg, own, XMLOther); got != "+Товары ?text:Товары ?text:Товары ?text:Товары" {
		t.Errorf("not own: %q", got)
	}
	root := `<MetaDataObject><Configuration><ChildObjects><Catalog>Товары</Catalog><Enum>Товары</Enum></ChildObjects></Configuration></MetaDataObject>`
	if got := xml(t, tg, root, XMLRoot); got != "+Товары" {
		t.Errorf("root: %q", got)
	}
	other := `<Rights><object><name>Catalog.Товары.Attribute.Код</name><restrictionTemplate><condition>ГДЕ ЗНАЧЕНИЕ(Справочник.Товары.Х) &lt;&gt; Т.Справочник.Товары // Справочник.Товары
#ДляОбъекта("Товары")</condition></restrictionTemplate></object>` +
		`<Type><v8:Type xmlns:d5p1="x">d5p1:CatalogRef.Товары</v8:Type><v8:TypeSet>cfg:DefinedType.Товары</v8:TypeSet></Type>` +
		`<Command name="Catalog.Товары.StandardCommand.OpenList"/><![CDATA[ИЗ Справочник.Товары]]><!-- Справочники.Товары --></Rights>`
	if got := xml(t, tg, other, XMLOther); got != "+Товары +Товары ?member:Товары ?comment:Товары ?string:Товары +Товары +Товары +Товары ?comment:Товары" {
		t.Errorf("other: %q", got)
	}
	// A form's dynamic list and a schema's data set: the table is certain;
	// the alias and the fields through it are listed for review, as in a
	// module's query string; a quoted name stays a string.
	form := `<Form><Attributes><Attribute><Settings><QueryText>ВЫБРАТЬ Товары.Ссылка ИЗ Справочник.Товары КАК Товары ГДЕ Т.И = "Товары"</QueryText></Settings></Attribute></Attributes></Form>`
	if got := xml(t, tg, form, XMLOther); got != "?query:Товары +Товары ?query:Товары ?string:Товары" {
		t.Errorf("form QueryText: %q", got)
	}
	dcs := `<DataCompositionSchema><dataSet><name>Товары</name><query>ВЫБРАТЬ 1 ИЗ Справочник.Товары КАК Товары</query></dataSet></DataCompositionSchema>`
	if got := xml(t, tg, dcs, XMLOther); got != "+Товары ?query:Товары" {
		t.Errorf("schema query: %q", got)
	}
	for _, bad := range []string{"<a", "<a b>", "<a b=c>", `<a b="c>`, "<!-- x", "</a>", "<![CDATA[ x", "<? x", "<a/ >"} {
		src := bad + "Товары"
		if _, err := tg.XML([]byte(src), tg.Hits([]byte(src)), XMLOther); err == nil {
			t.Errorf("%q: no error", src)
		}
	}
}

// An entity inside a name maps to its whole reference.
func TestXMLEntities(t *testing.T) {
	tg := target(t, "catalog", "Товары")
	src := "<a>Catalog.&#1058;овары &amp; Catalog.Товары</a>"
	ps, err := tg.XML([]byte(src), tg.Hits([]byte(src)), XMLOther)
	if got := marks(src, ps); err != nil || got != "?text:&#1058;овары +Товары" {
		t.Errorf("%q %v", marks(src, ps), err)
	}
	d := decode([]byte("a&#1058;&lt;&bogus;"), 0, 19, false)
	if string(d.b) != "aТ<&bogus;" {
		t.Errorf("%q", d.b)
	}
}

func TestNewTarget(t *testing.T) {
	if _, ok := NewTarget("attribute", "X"); ok {
		t.Error("an attribute is not renamable here")
	}
	if !Renamable("catalog") || Renamable("style-item") {
		t.Error("Renamable")
	}
	tg := target(t, "catalog", "Товары")
	if got := fmt.Sprint(tg.Hits([]byte("ТОВАРЫ товары Товар"))); got != "[0 13]" {
		t.Errorf("hits %s", got)
	}
}

func FuzzXML(f *testing.F) {
	f.Add([]byte(`<a b="Catalog.Х">Справочник.Х<![CDATA[Х]]><!--Х--></a>`))
	f.Add([]byte(`<MetaDataObject><Catalog><Properties><Name>Х</Name></Properties></Catalog></MetaDataObject>`))
	tg := target(f, "catalog", "Х")
	f.Fuzz(func(t *testing.T, src []byte) {
		ps, err := tg.XML(src, tg.Hits(src), XMLOwn)
		if err != nil {
			return
		}
		checkPlaces(t, tg, src, ps)
	})
}

func FuzzModule(f *testing.F) {
	f.Add([]byte("Процедура П(Х)\n\tХ.Y(); Т = \"ВЫБРАТЬ 1 ИЗ Справочник.Х\n|//Х.Y\";\nКонецПроцедуры"))
	tg := target(f, "common-module", "Х")
	tc := target(f, "catalog", "Х")
	f.Fuzz(func(t *testing.T, src []byte) {
		checkPlaces(t, tg, src, tg.Module(src, tg.Hits(src), nil))
		checkPlaces(t, tc, src, tc.Module(src, tc.Hits(src), nil))
	})
}

// checkPlaces: places are in order, apart, and each covers the name.
func checkPlaces(t *testing.T, tg *Target, src []byte, ps []Place) {
	prev := 0
	for _, p := range ps {
		if p.Start < prev || p.End <= p.Start || p.End > len(src) {
			t.Fatalf("place %+v after %d in %d bytes", p, prev, len(src))
		}
		prev = p.End
		if p.Certain && !bsl.EqualFold(src[p.Start:p.End], []byte(tg.Name)) {
			t.Fatalf("certain place %q is not the name", src[p.Start:p.End])
		}
	}
}

// FuzzHits: the finder finds exactly the offsets where the name starts in
// any case, as a comparison at every offset does.
func FuzzHits(f *testing.F) {
	f.Add([]byte("ааАА Товары ТОВАРЫ_1 xX"), "аа")
	f.Add([]byte("ИдентификаторыОбъектов идентификаторыобъектов"), "ИдентификаторыОбъектов")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		name = strings.Map(func(r rune) rune {
			if 'а' <= r && r <= 'я' || 'А' <= r && r <= 'Я' || r == 'ё' || r == 'Ё' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' {
				return r
			}
			return -1
		}, name)
		if name == "" {
			return
		}
		fd := newFinder(name)
		got := fd.all(data)
		var want []int
		for i := 0; i+len(name) <= len(data); i++ {
			if bsl.EqualFold(data[i:i+len(name)], []byte(name)) {
				want = append(want, i)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q in %q: %v, want %v", name, data, got, want)
		}
	})
}
