package main

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// writeArchive writes a tar.gz of files under ssl_3_1/, the layout of the
// shared corpus.
func writeArchive(t *testing.T, path string, files map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: "ssl_3_1/" + name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(content))
	}
	tw.Close()
	zw.Close()
	f.Close()
}

const head = `<?xml version="1.0" encoding="UTF-8"?>
<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses" version="2.17">
`

// Every object appears N times in the root, in files and folders of its
// copy's name, with its own Name; UUIDs differ between copies and agree
// within one; files a copy does not change are links, not copies.
func TestBuild(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "ssl.tar.gz")
	writeArchive(t, archive, map[string]string{
		"src/cf/Configuration.xml": head + `<Configuration uuid="11111111-1111-1111-1111-111111111111"><Properties><Name>Conf</Name></Properties><ChildObjects>
			<Catalog>Товары</Catalog>
			<CommonModule>Общий</CommonModule>
		</ChildObjects></Configuration>
</MetaDataObject>
`,
		"src/cf/Catalogs/Товары.xml": head + `<Catalog uuid="22222222-2222-2222-2222-222222222222"><Properties><Name>Товары</Name>` +
			`<Ref>33333333-3333-3333-3333-333333333333</Ref></Properties><ChildObjects><Form>Форма</Form></ChildObjects></Catalog>
</MetaDataObject>
`,
		"src/cf/Catalogs/Товары/Forms/Форма.xml": head + `<Form uuid="44444444-4444-4444-4444-444444444444"><Properties><Name>Форма</Name></Properties></Form>
</MetaDataObject>
`,
		"src/cf/Catalogs/Товары/Ext/ObjectModule.bsl": "// object\n",
		"src/cf/CommonModules/Общий.xml": head + `<CommonModule uuid="55555555-5555-5555-5555-555555555555"><Properties><Name>Общий</Name></Properties></CommonModule>
</MetaDataObject>
`,
		"src/cf/Ext/SessionModule.bsl": "// session\n",
	})
	out := filepath.Join(dir, "scale", "3")
	st, err := build(3, out, archive)
	if err != nil {
		t.Fatal(err)
	}
	if st.objects != 2 || st.descriptors != 6 {
		t.Errorf("%+v", st)
	}
	src := filepath.Join(out, "src", "cf")
	root, _ := os.ReadFile(filepath.Join(src, "Configuration.xml"))
	declared := regexp.MustCompile(`<(Catalog|CommonModule)>([^<]+)<`).FindAllStringSubmatch(string(root), -1)
	var names []string
	for _, m := range declared {
		names = append(names, m[1]+"."+m[2])
	}
	if got := strings.Join(names, " "); got != "Catalog.Товары Catalog.Товары_1 Catalog.Товары_2 CommonModule.Общий CommonModule.Общий_1 CommonModule.Общий_2" {
		t.Errorf("root declares %s", got)
	}
	uuids := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	seen := map[string]string{}
	for k, name := range []string{"Товары", "Товары_1", "Товары_2"} {
		data, err := os.ReadFile(filepath.Join(src, "Catalogs", name+".xml"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "<Name>"+name+"</Name>") {
			t.Errorf("copy %d does not name itself %s", k, name)
		}
		form, err := os.ReadFile(filepath.Join(src, "Catalogs", name, "Forms", "Форма.xml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range append(uuids.FindAllString(string(data), -1), uuids.FindAllString(string(form), -1)...) {
			if other, ok := seen[u]; ok && other != name {
				t.Errorf("UUID %s in both %s and %s", u, other, name)
			}
			seen[u] = name
		}
		module, err := os.Stat(filepath.Join(src, "Catalogs", name, "Ext", "ObjectModule.bsl"))
		if err != nil {
			t.Fatal(err)
		}
		original, _ := os.Stat(filepath.Join(dir, "scale", "ssl_3_1", "src", "cf", "Catalogs", "Товары", "Ext", "ObjectModule.bsl"))
		if !os.SameFile(module, original) {
			t.Errorf("the module of copy %d is not a link to the extracted one", k)
		}
	}
	if len(seen) != 9 {
		t.Errorf("%d distinct UUIDs in three copies of a catalog and its form, want 9", len(seen))
	}
	if _, err := os.Stat(filepath.Join(src, "Ext", "SessionModule.bsl")); err != nil {
		t.Errorf("the root's own files: %v", err)
	}
	if m, err := os.ReadFile(filepath.Join(out, "eska.toml")); err != nil || !strings.Contains(string(m), `source = "src/cf"`) {
		t.Errorf("eska.toml: %q %v", m, err)
	}
}
