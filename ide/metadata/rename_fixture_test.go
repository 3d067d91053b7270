package metadata

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// The rename fixture is written as templates: {N} marks a place the
// rename changes, {U} a place it lists as uncertain, and a bare Товары a
// naming that is no place at all (an attribute of the same name, a
// method). The expected plan and the expected tree after the rename are
// read from the templates, not from the code under test.

var renameTemplates = map[string]string{
	"eska.toml": "[project]\ntype = \"configuration\"\nsource = \"src\"\n",
	"src/Configuration.xml": edHead + `	<Configuration uuid="00000000-0000-0000-0000-000000000001">
		<Properties>
			<Name>Конф</Name>
		</Properties>
		<ChildObjects>
			<Catalog>{N}</Catalog>
			<Catalog>Склады</Catalog>
			<Document>Заказ</Document>
			<CommonModule>Общий</CommonModule>
			<Subsystem>Продажи</Subsystem>
			<Role>Роль</Role>
		</ChildObjects>
	</Configuration>
</MetaDataObject>
`,
	"src/Catalogs/{N}.xml": edHead + `	<Catalog uuid="00000000-0000-0000-0000-000000000101">
		<InternalInfo>
			<xr:GeneratedType name="CatalogObject.{N}" category="Object"/>
			<xr:GeneratedType name="CatalogRef.{N}" category="Ref"/>
		</InternalInfo>
		<Properties>
			<Name>{N}</Name>
			<Synonym>
				<v8:item>
					<v8:lang>ru</v8:lang>
					<v8:content>Товары и "{U}"</v8:content>
				</v8:item>
			</Synonym>
			<Comment>см. Справочник.{U}</Comment>
			<DefaultObjectForm>Catalog.{N}.Form.ФормаЭлемента</DefaultObjectForm>
		</Properties>
		<ChildObjects>
			<Attribute uuid="00000000-0000-0000-0000-000000000102">
				<Properties>
					<Name>Товары</Name>
					<Synonym/>
					<Comment/>
				</Properties>
			</Attribute>
			<Form>ФормаЭлемента</Form>
		</ChildObjects>
	</Catalog>
</MetaDataObject>
`,
	"src/Catalogs/{N}/Forms/ФормаЭлемента.xml": edHead + `	<Form uuid="00000000-0000-0000-0000-000000000103">
		<Properties>
			<Name>ФормаЭлемента</Name>
		</Properties>
	</Form>
</MetaDataObject>
`,
	"src/Catalogs/{N}/Forms/ФормаЭлемента/Ext/Form.xml":        "\ufeff<Form>\r\n\t<Attributes>\r\n\t\t<Attribute name=\"Объект\">\r\n\t\t\t<Type><v8:Type>cfg:CatalogObject.{N}</v8:Type></Type>\r\n\t\t</Attribute>\r\n\t</Attributes>\r\n</Form>\r\n",
	"src/Catalogs/{N}/Forms/ФормаЭлемента/Ext/Form/Module.bsl": "\ufeff&НаСервере\r\nПроцедура П()\r\n\tЭлемент = Справочники.{N}.СоздатьЭлемент();\r\nКонецПроцедуры\r\n",
	"src/Catalogs/{N}/Ext/ObjectModule.bsl":                    "\ufeffПроцедура ПередЗаписью(Отказ)\r\n\tЕсли ТипЗнч(Ссылка) = Тип(\"СправочникСсылка.{N}\") Тогда\r\n\t\tВозврат;\r\n\tКонецЕсли;\r\nКонецПроцедуры\r\n",
	"src/Catalogs/Склады.xml": edHead + `	<Catalog uuid="00000000-0000-0000-0000-000000000201">
		<Properties>
			<Name>Склады</Name>
		</Properties>
		<ChildObjects>
			<Attribute uuid="00000000-0000-0000-0000-000000000202">
				<Properties>
					<Name>Товар</Name>
					<Type>
						<v8:Type>cfg:CatalogRef.{N}</v8:Type>
					</Type>
				</Properties>
			</Attribute>
		</ChildObjects>
	</Catalog>
</MetaDataObject>
`,
	"src/Documents/Заказ.xml": edHead + `	<Document uuid="00000000-0000-0000-0000-000000000301">
		<Properties>
			<Name>Заказ</Name>
			<BasedOn>
				<xr:Item xsi:type="xr:MDObjectRef">Catalog.{N}</xr:Item>
			</BasedOn>
		</Properties>
		<ChildObjects>
			<Attribute uuid="00000000-0000-0000-0000-000000000302">
				<Properties>
					<Name>Товары</Name>
					<Type>
						<v8:Type>cfg:CatalogRef.{N}</v8:Type>
					</Type>
					<FillValue xsi:type="xr:DesignTimeRef">Catalog.{N}.EmptyRef</FillValue>
				</Properties>
			</Attribute>
		</ChildObjects>
	</Document>
</MetaDataObject>
`,
	"src/Documents/Заказ/Ext/ObjectModule.bsl": "\ufeff" + `Процедура ОбработкаПроведения(Отказ)
	Запрос = Новый Запрос;
	Запрос.Текст =
	"ВЫБРАТЬ
	|	{U}.Ссылка КАК Ссылка
	|ИЗ
	|	Справочник.{N} КАК {U}
	|// Справочник.{U}
	|ГДЕ
	|	{U}.Наименование = ""{U}""";
	Описание = Новый ОписаниеТипов("СправочникСсылка.{N}, Строка");
	Менеджер = Метаданные.Справочники["{U}"];
	Форма = ПолучитьФорму("Справочник.{U}.ФормаСписка");
	Х = Товары.Количество(); // Справочники.{U} — не код
	Модуль.Товары();
	ИмяТипа = "Справочник." + "{U}";
КонецПроцедуры
`,
	"src/CommonModules/Общий.xml": edHead + `	<CommonModule uuid="00000000-0000-0000-0000-000000000401">
		<Properties>
			<Name>Общий</Name>
			<Server>true</Server>
		</Properties>
	</CommonModule>
</MetaDataObject>
`,
	"src/CommonModules/Общий/Ext/Module.bsl": "Функция Пустая() Экспорт\n\tВозврат справочники.{N}.ПустаяСсылка();\nКонецФункции\n\nФункция Вид() Экспорт\n\tВозврат Х.Справочники.{U};\nКонецФункции\n",
	"src/Subsystems/Продажи.xml": edHead + `	<Subsystem uuid="00000000-0000-0000-0000-000000000501">
		<Properties>
			<Name>Продажи</Name>
			<Content>
				<xr:Item xsi:type="xr:MDObjectRef">Catalog.{N}</xr:Item>
				<xr:Item xsi:type="xr:MDObjectRef">Document.Заказ</xr:Item>
			</Content>
		</Properties>
	</Subsystem>
</MetaDataObject>
`,
	"src/Roles/Роль.xml": edHead + `	<Role uuid="00000000-0000-0000-0000-000000000601">
		<Properties>
			<Name>Роль</Name>
		</Properties>
	</Role>
</MetaDataObject>
`,
	"src/Roles/Роль/Ext/Rights.xml": "<Rights>\n\t<object>\n\t\t<name>Catalog.{N}</name>\n\t\t<right><name>Read</name><value>true</value>\n\t\t\t<restrictionByCondition><condition>ГДЕ Т.Ссылка &lt;&gt; ЗНАЧЕНИЕ(Справочник.{N}.ПустаяСсылка) // Справочник.{U}</condition></restrictionByCondition>\n\t\t</right>\n\t</object>\n</Rights>\n",
}

// renderRename fills the templates in: {N} with name (in paths too) and
// {U} with the old name; CRLF where the template's descriptor head asks
// for it is kept as written.
func renderRename(name string) map[string]string {
	out := map[string]string{}
	for p, body := range renameTemplates {
		out[strings.ReplaceAll(p, "{N}", name)] = strings.ReplaceAll(strings.ReplaceAll(body, "{N}", name), "{U}", "Товары")
	}
	return out
}

// expectedPlaces reads, from the templates, the places a rename of
// Товары must plan: the certain ones ({N}) and the uncertain ones ({U}),
// each as path:start in the bytes of the file before the rename.
func expectedPlaces() (certain, uncertain []string) {
	marker := regexp.MustCompile(`\{[NU]\}`)
	for p, body := range renameTemplates {
		if !strings.HasPrefix(p, "src/") {
			continue
		}
		rel := strings.TrimPrefix(strings.ReplaceAll(p, "{N}", "Товары"), "src/")
		shift := 0
		for _, m := range marker.FindAllStringIndex(body, -1) {
			at := m[0] + shift
			shift += len("Товары") - (m[1] - m[0])
			place := rel + ":" + strconv.Itoa(at)
			if body[m[0]+1] == 'N' {
				certain = append(certain, place)
			} else {
				uncertain = append(uncertain, place)
			}
		}
	}
	sort.Strings(certain)
	sort.Strings(uncertain)
	return certain, uncertain
}

// planPlaces spells a plan's places the same way.
func planPlaces(pl gen.RenamePlan) (certain, uncertain []string) {
	for _, f := range pl.Files {
		for _, e := range f.Edits {
			certain = append(certain, f.Path+":"+strconv.Itoa(int(e.Range.Start)))
		}
	}
	for _, u := range pl.Uncertain {
		uncertain = append(uncertain, u.Path+":"+strconv.Itoa(int(u.Range.Start)))
	}
	sort.Strings(certain)
	sort.Strings(uncertain)
	return certain, uncertain
}

func openRename(t *testing.T, minor int) *harness {
	t.Helper()
	return openEditing(t, renderRename("Товары"), minor)
}

func (h *harness) preview(id, name string) (gen.RenamePreviewResult, error) {
	return h.b.RenamePreview(gen.RenamePreviewParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: gen.ObjectID(id), NewName: name})
}

func (h *harness) apply(id, name, snapshot string, reviewed bool) (gen.RenameApplyResult, error) {
	r, err := h.b.RenameApply(gen.RenameApplyParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: gen.ObjectID(id),
		NewName: name, Snapshot: snapshot, ReviewedUncertain: reviewed})
	if err == nil {
		h.gen = r.Generation
	}
	return r, err
}
