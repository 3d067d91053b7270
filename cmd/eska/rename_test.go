package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// renameProject renders a configuration where the catalog named name is
// named by n documents (a typed attribute in each descriptor, a manager
// call in each module) and by a common module: a rename writes 2n+4
// files and moves a descriptor and a folder.
func renameProject(name string, n int) map[string]string {
	var children strings.Builder
	children.WriteString("<Catalog>" + name + "</Catalog><CommonModule>Сервис</CommonModule>")
	files := map[string]string{
		"src/Catalogs/" + name + ".xml":                   strings.Replace(catalogXML(name, 2), "<v8:content>"+name+"<", "<v8:content>Номенклатура<", 1),
		"src/Catalogs/" + name + "/Ext/ManagerModule.bsl": "\ufeffФункция Пустая() Экспорт\r\n\tВозврат Справочники." + name + ".ПустаяСсылка();\r\nКонецФункции\r\n",
		"src/CommonModules/Сервис.xml":                    catalogHead + "\t<CommonModule uuid=\"00000000-0000-0000-0000-000000000009\">\r\n\t\t<Properties>\r\n\t\t\t<Name>Сервис</Name>\r\n\t\t\t<Server>true</Server>\r\n\t\t</Properties>\r\n\t</CommonModule>\r\n</MetaDataObject>\r\n",
		"src/CommonModules/Сервис/Ext/Module.bsl":         "Функция Тип() Экспорт\n\tВозврат Тип(\"СправочникСсылка." + name + "\");\nКонецФункции\n",
	}
	for i := 1; i <= n; i++ {
		doc := fmt.Sprintf("Д%d", i)
		children.WriteString("<Document>" + doc + "</Document>")
		files["src/Documents/"+doc+".xml"] = catalogHead + fmt.Sprintf("\t<Document uuid=\"00000000-0000-0000-0001-%012d\">\r\n\t\t<Properties>\r\n\t\t\t<Name>%s</Name>\r\n\t\t</Properties>\r\n"+
			"\t\t<ChildObjects>\r\n\t\t\t<Attribute uuid=\"00000000-0000-0000-0002-%012d\">\r\n\t\t\t\t<Properties>\r\n\t\t\t\t\t<Name>Товар</Name>\r\n"+
			"\t\t\t\t\t<Type>\r\n\t\t\t\t\t\t<v8:Type>cfg:CatalogRef.%s</v8:Type>\r\n\t\t\t\t\t</Type>\r\n\t\t\t\t</Properties>\r\n\t\t\t</Attribute>\r\n\t\t</ChildObjects>\r\n"+
			"\t</Document>\r\n</MetaDataObject>\r\n", i, doc, i, name)
		files["src/Documents/"+doc+"/Ext/ObjectModule.bsl"] = "Процедура ОбработкаПроведения(Отказ)\n\tЗапрос = Новый Запрос(\"ВЫБРАТЬ 1 ИЗ Справочник." + name + " КАК Т\");\nКонецПроцедуры\n"
	}
	files["src/Configuration.xml"] = catalogHead + "<Configuration uuid=\"00000000-0000-0000-0000-000000000001\"><Properties><Name>К</Name></Properties><ChildObjects>" +
		children.String() + "</ChildObjects></Configuration>\r\n</MetaDataObject>\r\n"
	return files
}

// sourceTree reads every file under dir/src by slash path, and the
// temporary files writes left there.
func sourceTree(t *testing.T, dir string) (files map[string]string, temps []string) {
	t.Helper()
	files = map[string]string{}
	src := filepath.Join(dir, "src")
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.HasPrefix(d.Name(), ".eska-write-") {
			temps = append(temps, rel)
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	return files, temps
}

// eska rename: the plan and the answer as the API's JSON, the same
// refusals, and the rename kept in the history so that eska property
// undo gives every byte back.
//
//contract:proves eska-ide-api.editing.rename-cli
func TestRenameCommand(t *testing.T) {
	bin := build(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"eska.toml": "[project]\ntype = \"configuration\"\nsource = \"src\"\n"})
	writeFiles(t, dir, renameProject("Товары", 3))
	before, _ := sourceTree(t, dir)
	out, code := eskaRun(t, bin, "rename", "preview", "--json", dir, "catalog:Товары", "Изделия")
	pr, err := gen.DecodeRenamePreviewResult([]byte(strings.TrimSpace(out)))
	if code != 0 || err != nil || !pr.ApplyAvailable || len(pr.Plan.Files) != 2*3+4 || len(pr.Plan.Moves) != 2 {
		t.Fatalf("preview: %d %v %s", code, err, out)
	}
	// A stale snapshot is refused.
	out, code = eskaRun(t, bin, "rename", "apply", "--json", "-snapshot", "00", dir, "catalog:Товары", "Изделия")
	if code != 1 || !strings.Contains(out, `"kind":"source_changed"`) {
		t.Errorf("stale snapshot: %d %s", code, out)
	}
	out, code = eskaRun(t, bin, "rename", "apply", "--json", "-snapshot", pr.Plan.Snapshot, dir, "catalog:Товары", "Изделия")
	ar, err := gen.DecodeRenameApplyResult([]byte(strings.TrimSpace(out)))
	if code != 0 || err != nil || ar.Renamed.To != "catalog:Изделия" {
		t.Fatalf("apply: %d %v %s", code, err, out)
	}
	after, _ := sourceTree(t, dir)
	want := map[string]string{}
	for k, v := range renameProject("Изделия", 3) {
		want[k] = v
	}
	if !reflect.DeepEqual(after, want) {
		t.Errorf("after the rename the tree is not the project renamed")
	}
	// The same name again is refused with the API's error.
	out, code = eskaRun(t, bin, "rename", "apply", "--json", dir, "catalog:Изделия", "Изделия")
	if code != 1 || !strings.Contains(out, `"kind":"rename_invalid_name"`) {
		t.Errorf("same name: %d %s", code, out)
	}
	// A later run undoes it byte for byte, and redoes it.
	if out, code = eskaRun(t, bin, "property", "undo", "--json", dir, "catalog:Изделия"); code != 0 || !strings.Contains(out, `"renamed":{"from":"catalog:Изделия","to":"catalog:Товары"`) {
		t.Fatalf("undo: %d %s", code, out)
	}
	if got, _ := sourceTree(t, dir); !reflect.DeepEqual(got, before) {
		t.Error("undo did not restore every byte")
	}
	if out, code = eskaRun(t, bin, "property", "undo", "--json", "-redo", dir, "catalog:Товары"); code != 0 {
		t.Fatalf("redo: %d %s", code, out)
	}
	if got, _ := sourceTree(t, dir); !reflect.DeepEqual(got, want) {
		t.Error("redo did not rename again")
	}
	if _, code = eskaRun(t, bin, "rename", "move", dir, "catalog:Изделия", "Х"); code != 2 {
		t.Errorf("an unknown command: exit %d", code)
	}
}
