package metadata

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// The editing fixture is laid out as the Designer writes descriptors: a
// BOM, CRLF, tab indentation, every property on a line of its own.

const edHead = "\ufeff<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" +
	`<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses" xmlns:app="http://v8.1c.ru/8.2/managed-application/core" xmlns:cfg="http://v8.1c.ru/8.1/data/enterprise/current-config" xmlns:v8="http://v8.1c.ru/8.1/data/core" xmlns:xr="http://v8.1c.ru/8.3/xcf/readable" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="2.17">` + "\n"

// crlf turns the line ends of a fixture into CRLF.
func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

const goodsCatalog = edHead + `	<Catalog uuid="00000000-0000-0000-0000-000000000101">
		<Properties>
			<Name>Товары</Name>
			<Synonym>
				<v8:item>
					<v8:lang>ru</v8:lang>
					<v8:content>Товары</v8:content>
				</v8:item>
				<v8:item>
					<v8:lang>en</v8:lang>
					<v8:content>Goods</v8:content>
				</v8:item>
			</Synonym>
			<Comment/>
			<Hierarchical>true</Hierarchical>
			<CodeLength>9</CodeLength>
			<DescriptionLength>25</DescriptionLength>
			<CodeType>String</CodeType>
			<StandardAttributes>
				<xr:StandardAttribute name="Code">
					<xr:Comment/>
				</xr:StandardAttribute>
			</StandardAttributes>
			<Characteristics/>
			<DefaultObjectForm>Catalog.Товары.Form.ФормаЭлемента</DefaultObjectForm>
			<DefaultListForm/>
		</Properties>
		<ChildObjects>
			<Attribute uuid="00000000-0000-0000-0000-000000000102">
				<Properties>
					<Name>Артикул</Name>
					<Synonym/>
					<Comment>код &amp; артикул</Comment>
					<Type>
						<v8:Type>xs:string</v8:Type>
						<v8:StringQualifiers>
							<v8:Length>5</v8:Length>
							<v8:AllowedLength>Variable</v8:AllowedLength>
						</v8:StringQualifiers>
					</Type>
					<MultiLine>false</MultiLine>
					<FillValue xsi:type="xs:string">abc</FillValue>
					<FillChecking>DontCheck</FillChecking>
				</Properties>
			</Attribute>
			<Attribute uuid="00000000-0000-0000-0000-000000000103">
				<Properties>
					<Name>Цена</Name>
					<Synonym>
						<v8:item>
							<v8:lang>ru</v8:lang>
							<v8:content>Цена</v8:content>
						</v8:item>
					</Synonym>
					<Comment/>
					<Type>
						<v8:Type>xs:decimal</v8:Type>
						<v8:NumberQualifiers>
							<v8:Digits>15</v8:Digits>
							<v8:FractionDigits>2</v8:FractionDigits>
							<v8:AllowedSign>Nonnegative</v8:AllowedSign>
						</v8:NumberQualifiers>
					</Type>
					<MinValue xsi:nil="true"/>
					<MaxValue xsi:nil="true"/>
					<FillValue xsi:nil="true"/>
				</Properties>
			</Attribute>
			<Attribute uuid="00000000-0000-0000-0000-000000000104">
				<Properties>
					<Name>Вид</Name>
					<Synonym/>
					<Comment/>
					<Type>
						<v8:Type>cfg:EnumRef.Статусы</v8:Type>
					</Type>
					<FillValue xsi:type="xr:DesignTimeRef">Enum.Статусы.EmptyRef</FillValue>
					<ChoiceParameterLinks>
						<xr:Link>
							<xr:Name>Отбор.Владелец</xr:Name>
							<xr:DataPath xsi:type="xs:string">Catalog.Товары.Attribute.Артикул</xr:DataPath>
							<xr:ValueChange>Clear</xr:ValueChange>
						</xr:Link>
					</ChoiceParameterLinks>
					<ChoiceParameters>
						<app:item name="Отбор.Код">
							<app:value xsi:type="xs:string">А1</app:value>
						</app:item>
						<app:item name="Отбор.Вид">
							<app:value xsi:type="v8:FixedArray">
								<v8:Value xsi:type="xr:DesignTimeRef">Enum.Статусы.EnumValue.Новый</v8:Value>
								<v8:Value xsi:type="xr:DesignTimeRef">Enum.Статусы.EnumValue.Закрыт</v8:Value>
							</app:value>
						</app:item>
					</ChoiceParameters>
				</Properties>
			</Attribute>
			<TabularSection uuid="00000000-0000-0000-0000-000000000105">
				<Properties>
					<Name>Цены</Name>
					<Synonym/>
					<Comment/>
				</Properties>
				<ChildObjects>
					<Attribute uuid="00000000-0000-0000-0000-000000000106">
						<Properties>
							<Name>Сумма</Name>
							<Synonym/>
							<Comment/>
							<ChoiceParameterLinks>
								<xr:Link>
									<xr:Name>Отбор.Цена</xr:Name>
									<xr:DataPath xsi:type="xs:string">Catalog.Товары.Attribute.Цена</xr:DataPath>
									<xr:ValueChange>Clear</xr:ValueChange>
								</xr:Link>
							</ChoiceParameterLinks>
						</Properties>
					</Attribute>
				</ChildObjects>
			</TabularSection>
			<Form>ФормаЭлемента</Form>
			<Form>ФормаСписка</Form>
		</ChildObjects>
	</Catalog>
</MetaDataObject>
`

const statusEnum = edHead + `	<Enum uuid="00000000-0000-0000-0000-000000000201">
		<Properties>
			<Name>Статусы</Name>
			<Synonym/>
			<Comment/>
			<UseStandardCommands>false</UseStandardCommands>
		</Properties>
		<ChildObjects>
			<EnumValue uuid="00000000-0000-0000-0000-000000000202">
				<Properties>
					<Name>Новый</Name>
					<Synonym/>
					<Comment/>
				</Properties>
			</EnumValue>
			<EnumValue uuid="00000000-0000-0000-0000-000000000203">
				<Properties>
					<Name>Закрыт</Name>
					<Synonym/>
					<Comment/>
				</Properties>
			</EnumValue>
		</ChildObjects>
	</Enum>
</MetaDataObject>
`

// editFixture is a configuration without support data whose catalog has
// a field of every kind the profile edits.
func editFixture() map[string]string {
	return map[string]string{
		"eska.toml":                              "[project]\ntype = \"configuration\"\nsource = \"src\"\n",
		"src/Configuration.xml":                  descU("Configuration", "Конф", 1, "", "<Catalog>Товары</Catalog><Enum>Статусы</Enum><CommonModule>Общий</CommonModule>"),
		"src/Catalogs/Товары.xml":                crlf(goodsCatalog),
		"src/Catalogs/Товары/Ext/Predefined.xml": predefined,
		"src/Catalogs/Товары/Forms/ФормаЭлемента.xml": descU("Form", "ФормаЭлемента", 107, "", ""),
		"src/Catalogs/Товары/Forms/ФормаСписка.xml":   descU("Form", "ФормаСписка", 108, "", ""),
		"src/Enums/Статусы.xml":                       crlf(statusEnum),
		"src/CommonModules/Общий.xml":                 descU("CommonModule", "Общий", 301, "<Server>true</Server><ReturnValuesReuse>DontUse</ReturnValuesReuse>", ""),
	}
}

// openEditing opens a fixture as a client of the minor that opted in to
// editing.
func openEditing(t *testing.T, files map[string]string, minor int) *harness {
	t.Helper()
	h := newHarness(t, files)
	h.grants = editGrants(minor)
	h.open(h.root, gen.SelectionCurrent{})
	return h
}

func (h *harness) editing(id string) gen.EditingResult {
	h.t.Helper()
	h.know(id)
	r, err := h.b.PropertyEditing(gen.ObjectParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: gen.ObjectID(id)})
	if err != nil {
		h.t.Fatalf("propertyEditing %s: %s", id, errText(err))
	}
	return r
}

// know expands the owners of an object, as a client does before it
// shows the object.
func (h *harness) know(id string) {
	for i := strings.Index(id, "/"); i >= 0; {
		h.b.Children(gen.ChildrenParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, Node: obj(id[:i])})
		j := strings.Index(id[i+1:], "/")
		if j < 0 {
			break
		}
		i += j + 1
	}
}

// change decodes a change written as JSON.
func change(t testing.TB, js string) gen.PropertyChange {
	t.Helper()
	c, err := gen.DecodePropertyChange([]byte(js))
	if err != nil {
		t.Fatalf("change %s: %v", js, err)
	}
	return c
}

func (h *harness) editParams(id, path, js string) gen.PropertyEditParams {
	h.t.Helper()
	return gen.PropertyEditParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: gen.ObjectID(id),
		Snapshot: h.editing(id).Snapshot, Path: path, Change: change(h.t, js)}
}

// update writes one change against the current snapshot and follows the
// generation.
func (h *harness) update(id, path, js string) (gen.PropertyWriteResult, error) {
	h.t.Helper()
	r, err := h.b.UpdateProperty(h.editParams(id, path, js))
	if err == nil {
		h.gen = r.Generation
	}
	return r, err
}

func (h *harness) undo(id string, redo bool) (gen.PropertyWriteResult, error) {
	h.t.Helper()
	dir := gen.UndoDirectionUndo
	if redo {
		dir = gen.UndoDirectionRedo
	}
	r, err := h.b.UndoProperty(gen.UndoPropertyParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, ObjectID: gen.ObjectID(id),
		Snapshot: h.editing(id).Snapshot, Direction: dir})
	if err == nil {
		h.gen = r.Generation
	}
	return r, err
}

func (h *harness) file(rel string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.root, "src", filepath.FromSlash(rel)))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// fieldValue is a field's value as JSON, or "" when it is not a field.
func fieldValue(r gen.EditingState, path string) string {
	for _, f := range r.Fields {
		if f.Path == path {
			return string(f.Value)
		}
	}
	return ""
}

func stateOf(r gen.EditingResult) gen.EditingState {
	return gen.EditingState{Snapshot: r.Snapshot, Source: r.Source, Profile: r.Profile, Writable: r.Writable, Fields: r.Fields,
		ReadOnlyProperties: r.ReadOnlyProperties, Undo: r.Undo, Redo: r.Redo}
}

func schemaKind(s gen.EditSchema) string {
	b, _ := gen.MarshalEditSchema(s)
	var k struct{ Kind string }
	json.Unmarshal(b, &k)
	return k.Kind
}
