package metadata

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/runtime/genrt"
)

// The test fixtures are small Designer XML trees written for these tests;
// they follow the layout of real exports (one descriptor per object,
// Ext folders for modules and payloads) without copying any.

const mdHead = `<?xml version="1.0" encoding="UTF-8"?>
<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses" xmlns:v8="http://v8.1c.ru/8.1/data/core" xmlns:xr="http://v8.1c.ru/8.3/xcf/readable" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:cfg="http://v8.1c.ru/8.1/data/enterprise/current-config" version="2.17">
`

func syn(pairs ...string) string {
	var b strings.Builder
	b.WriteString("<Synonym>")
	for i := 0; i+1 < len(pairs); i += 2 {
		b.WriteString("<v8:item><v8:lang>" + pairs[i] + "</v8:lang><v8:content>" + pairs[i+1] + "</v8:content></v8:item>")
	}
	b.WriteString("</Synonym>")
	return b.String()
}

func desc(tag, name, props, children string) string {
	return mdHead + "<" + tag + ` uuid="00000000-0000-0000-0000-000000000001"><Properties><Name>` + name + "</Name>" + props +
		"</Properties><ChildObjects>" + children + "</ChildObjects></" + tag + ">\n</MetaDataObject>\n"
}

func inline(tag, name, props, children string) string {
	c := ""
	if children != "" {
		c = "<ChildObjects>" + children + "</ChildObjects>"
	}
	return "<" + tag + ` uuid="00000000-0000-0000-0000-000000000001"><Properties><Name>` + name + "</Name>" + props + "</Properties>" + c + "</" + tag + ">"
}

// configurationFixture is a configuration with one of most things: modules
// of the root, a catalog with every kind of child and predefined items, a
// malformed document, a binary-only module, a picture, an enum with a
// repeated value, an element of unknown kind and a numerator.
func configurationFixture() map[string]string {
	crlfBOM := func(s string) string { return "\ufeff" + strings.ReplaceAll(s, "\n", "\r\n") }
	return map[string]string{
		"eska.toml": "[project]\ntype = \"configuration\"\nsource = \"src\"\n",
		"src/Configuration.xml": crlfBOM(desc("Configuration", "Конф", syn("ru", "Конфигурация", "en", "Configuration"),
			"<Language>Русский</Language><Catalog>Товары</Catalog><Document>Заказ</Document><CommonModule>Общий</CommonModule>"+
				"<CommonModule>Бинарный</CommonModule><CommonPicture>Логотип</CommonPicture><Enum>Статусы</Enum>"+
				"<Interface>Старый</Interface><DocumentNumerator>Нумератор</DocumentNumerator><Catalog>Нет</Catalog>")),
		"src/Ext/SessionModule.bsl":            "// session\n",
		"src/Languages/Русский.xml":            desc("Language", "Русский", "<LanguageCode>ru</LanguageCode>", ""),
		"src/Interfaces/Старый.xml":            desc("Interface", "Старый", "", ""),
		"src/DocumentNumerators/Нумератор.xml": desc("DocumentNumerator", "Нумератор", "", ""),
		"src/Catalogs/Товары.xml": desc("Catalog", "Товары",
			syn("ru", "Номенклатура товаров", "en", "Goods")+"<Comment>до <b/>после</Comment><Hierarchical>true</Hierarchical>"+
				`<Owners><xr:Item xsi:type="xr:MDObjectRef">Catalog.Нет</xr:Item></Owners><CodeLength>9</CodeLength>`+
				`<Explanation><v8:item><v8:lang>ru</v8:lang></v8:item></Explanation>`,
			inline("Attribute", "Артикул", syn("ru", "Артикул товара"), "")+
				inline("Attribute", "Связи", `<Type><v8:Type>cfg:CatalogRef.Товары</v8:Type><v8:Type>cfg:CatalogRef.Нет</v8:Type><v8:TypeSet>cfg:AnyIBRef</v8:TypeSet></Type>`+
					`<FillValue xsi:type="xr:DesignTimeRef">Enum.Статусы.EnumValue.Закрыт</FillValue><Format xsi:nil="true"/>`+
					`<Mask xsi:type="xs:string"/><ChoiceForm>Catalog.Товары.Form.ФормаЭлемента</ChoiceForm>`+
					`<Link xsi:type="xr:MDObjectRef">Catalog.Товары.StandardAttribute.Code</Link><Other xsi:type="xr:DesignTimeRef">Catalog.Товары.Вложенный</Other>`, "")+
				inline("Attribute", "Длина", `<Type><v8:Type>xs:string</v8:Type><v8:StringQualifiers><v8:Length>25</v8:Length></v8:StringQualifiers></Type>`+
					`<DefaultObjectForm>Catalog.Товары.Form.ФормаЭлемента</DefaultObjectForm><Picture>CommonPicture.Логотип</Picture><Owner xsi:type="xr:MDObjectRef">Catalog.Нет</Owner>`, "")+
				inline("TabularSection", "Цены", "", inline("Attribute", "Цена", "", ""))+
				"<Form>ФормаЭлемента</Form>"+inline("Command", "Печать", "", "")+"<Template>Макет</Template>"),
		"src/Catalogs/Товары/Ext/ObjectModule.bsl":                    "// object\n",
		"src/Catalogs/Товары/Ext/ManagerModule.bin":                   "\x00\x01",
		"src/Catalogs/Товары/Ext/Predefined.xml":                      predefined,
		"src/Catalogs/Товары/Forms/ФормаЭлемента.xml":                 desc("Form", "ФормаЭлемента", "<FormType>Managed</FormType>", ""),
		"src/Catalogs/Товары/Forms/ФормаЭлемента/Ext/Form.xml":        "<Form/>\n",
		"src/Catalogs/Товары/Forms/ФормаЭлемента/Ext/Form/Module.bsl": "// form\n",
		"src/Catalogs/Товары/Templates/Макет.xml":                     desc("Template", "Макет", "<TemplateType>TextDocument</TemplateType>", ""),
		"src/Catalogs/Товары/Templates/Макет/Ext/Template.txt":        "text\n",
		"src/Catalogs/Товары/Commands/Печать/Ext/CommandModule.bsl":   "// command\n",
		"src/Documents/Заказ.xml":                                     mdHead + "<Document><Properties><Name>Заказ</Name></Properties>\n",
		"src/CommonModules/Общий.xml":                                 desc("CommonModule", "Общий", "<Server>true</Server><ReturnValuesReuse>DuringSession</ReturnValuesReuse><ReturnValuesReuse>Future</ReturnValuesReuse>", ""),
		"src/CommonModules/Общий/Ext/Module.bsl":                      "// common\n",
		"src/CommonModules/Бинарный.xml":                              desc("CommonModule", "Бинарный", "", ""),
		"src/CommonModules/Бинарный/Ext/Module.bin":                   "\x00",
		"src/CommonPictures/Логотип.xml":                              desc("CommonPicture", "Логотип", "", ""),
		"src/CommonPictures/Логотип/Ext/Picture.xml": `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
			`<ExtPicture xmlns="http://v8.1c.ru/8.3/xcf/extrnprops" xmlns:xr="http://v8.1c.ru/8.3/xcf/readable" version="2.17"><Picture><xr:Abs>Picture.png</xr:Abs><xr:LoadTransparent>false</xr:LoadTransparent></Picture></ExtPicture>` + "\n",
		"src/CommonPictures/Логотип/Ext/Picture/Picture.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00",
		"src/Enums/Статусы.xml": desc("Enum", "Статусы", "",
			inline("EnumValue", "Новый", syn("ru", "Новый статус"), "")+inline("EnumValue", "Закрыт", "", "")+inline("EnumValue", "Новый", "", "")),
	}
}

const predefined = `<?xml version="1.0" encoding="UTF-8"?>
<PredefinedData xmlns="http://v8.1c.ru/8.3/xcf/predef" version="2.17">
	<Item id="1"><Name>Основной</Name><Code>1</Code><Description>Основная группа</Description><IsFolder>true</IsFolder>
		<ChildItems><Item id="2"><Name>Вложенный</Name><Code>2</Code><Description>Вложенный элемент</Description><IsFolder>false</IsFolder></Item></ChildItems>
	</Item>
</PredefinedData>
`

func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// harness drives a Backend the way the IDE server does, and records the
// notifications it sends.
type harness struct {
	t      *testing.T
	b      *Backend
	root   string
	notes  []note
	sid    gen.SessionID
	pid    gen.ProjectID
	gen    gen.Generation
	rootID gen.NodeID
	grants gen.Grants // what open passes as the client's grants
}

// clientGrants is what a client of API minor 1.minor is granted, with the
// editing opt-in when edits, less the capabilities a test's client was
// not given.
func clientGrants(minor int, edits bool, withheld ...string) gen.Grants {
	var optIns []string
	if edits {
		optIns = append(optIns, gen.OptInAllowPropertyEdits)
	}
	return gen.GrantsFor(genrt.FormatVersion(gen.APIMajor, int64(minor)), optIns...).Without(withheld...)
}

// editGrants is an editing client of minor 1.minor that reads support
// data but neither picture previews nor presentations.
func editGrants(minor int) gen.Grants {
	return clientGrants(minor, true, gen.CapabilityPicturePreview, gen.CapabilityPropertyPresentation)
}

type note struct {
	method string
	params json.RawMessage
}

func newHarness(t *testing.T, files map[string]string) *harness {
	t.Helper()
	h := &harness{t: t, root: t.TempDir()}
	writeTree(t, h.root, files)
	h.b = New(func(m string, p []byte) { h.notes = append(h.notes, note{m, append(json.RawMessage(nil), p...)}) })
	return h
}

func (h *harness) open(start string, sel gen.Selection) gen.SessionInfo {
	h.t.Helper()
	info, err := h.b.Open(gen.OpenParams{Start: ToPath(start), Selection: sel}, h.grants)
	if err != nil {
		h.t.Fatalf("open %s: %v", start, errText(err))
	}
	h.sid, h.pid, h.rootID = info.SessionID, info.Projects[0].ProjectID, info.Projects[0].Root
	return info
}

func (h *harness) ctx() gen.ProjectContext {
	return gen.ProjectContext{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen}
}

func (h *harness) children(id gen.NodeID) []gen.Node {
	h.t.Helper()
	r, err := h.b.Children(gen.ChildrenParams{SessionID: h.sid, ProjectID: h.pid, Generation: h.gen, Node: id})
	if err != nil {
		h.t.Fatalf("children of %s: %s", nodeKey(id), errText(err))
	}
	return r.Nodes
}

// find returns the child of id whose key is want.
func (h *harness) find(id gen.NodeID, want string) gen.Node {
	h.t.Helper()
	for _, n := range h.children(id) {
		if nodeKey(n.ID) == want {
			return n
		}
	}
	h.t.Fatalf("no child %s under %s; have %v", want, nodeKey(id), keys(h.children(id)))
	return gen.Node{}
}

func obj(id string) gen.NodeID { return gen.ObjectNodeID{ObjectID: gen.ObjectID(id)} }

func coll(owner, kind string) gen.NodeID {
	var c gen.Collection
	switch kind {
	case "modules":
		c = gen.CollectionModules{}
	case "common":
		c = gen.CollectionCommon{}
	case "unsupported":
		c = gen.CollectionUnsupported{}
	default:
		c = gen.MetadataCollection{MetadataKind: gen.MetadataKind(kind)}
	}
	return gen.CollectionNodeID{Owner: gen.ObjectID(owner), Collection: c}
}

// nodeKey spells a NodeID compactly for assertions: o:<id>, g:<owner>#<group>, m:<owner>#<role>.
func nodeKey(id gen.NodeID) string {
	switch n := id.(type) {
	case gen.ObjectNodeID:
		return "o:" + string(n.ObjectID)
	case gen.ModuleNodeID:
		return "m:" + string(n.Owner) + "#" + n.Role
	case gen.CollectionNodeID:
		switch c := n.Collection.(type) {
		case gen.MetadataCollection:
			return "g:" + string(n.Owner) + "#" + string(c.MetadataKind)
		case gen.CollectionModules:
			return "g:" + string(n.Owner) + "#modules"
		case gen.CollectionCommon:
			return "g:" + string(n.Owner) + "#common"
		case gen.CollectionUnsupported:
			return "g:" + string(n.Owner) + "#unsupported"
		}
	case nil:
		return "null"
	}
	return "?"
}

func keys(nodes []gen.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, nodeKey(n.ID))
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	if re, ok := err.(*gen.RPCError); ok {
		if d, ok := re.Data.(gen.DomainErrorData); ok {
			return string(d.Kind) + " " + string(d.Details)
		}
		if d, ok := re.Data.(gen.ErrorDetail); ok {
			// Invalid params: the message is the bare literal, the place
			// and the reason are in the data.
			p := "<no pointer>"
			if d.Pointer != nil {
				p = *d.Pointer
			}
			return re.Message + ": " + p + ": " + d.Reason
		}
		return re.Message
	}
	return err.Error()
}

// kindOf returns the domain error kind of err, or "".
func kindOf(err error) string {
	if re, ok := err.(*gen.RPCError); ok {
		if d, ok := re.Data.(gen.DomainErrorData); ok {
			return string(d.Kind)
		}
	}
	return ""
}

func detailsOf(err error) string {
	if re, ok := err.(*gen.RPCError); ok {
		if d, ok := re.Data.(gen.DomainErrorData); ok {
			return string(d.Details)
		}
	}
	return ""
}

// snapshot records every file under root with its bytes and mode.
func snapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if info.IsDir() {
			out[rel+"/"] = info.Mode().String()
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[rel] = info.Mode().String() + ":" + info.ModTime().String() + ":" + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func jsonOf(t testing.TB, v json.Marshaler) string {
	t.Helper()
	b, err := v.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
