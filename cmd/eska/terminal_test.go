package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// terminal runs the command in process and returns its exit code, stdout
// and stderr.
func terminal(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, nil, &out, &errb)
	return code, out.String(), errb.String()
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A configuration whose default language is the one given, with one
// catalog.
func languageProject(t *testing.T, language, code string) string {
	t.Helper()
	dir := t.TempDir()
	head := `<?xml version="1.0" encoding="UTF-8"?>
<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses" xmlns:v8="http://v8.1c.ru/8.1/data/core" version="2.17">
`
	writeFiles(t, dir, map[string]string{
		"eska.toml": "[project]\ntype = \"configuration\"\nsource = \"src\"\n",
		"src/Configuration.xml": head + `<Configuration uuid="00000000-0000-0000-0000-000000000001"><Properties><Name>Conf</Name>` +
			`<DefaultLanguage>Language.` + language + `</DefaultLanguage></Properties>` +
			`<ChildObjects><Language>` + language + `</Language><Catalog>Goods</Catalog></ChildObjects></Configuration>
</MetaDataObject>
`,
		"src/Languages/" + language + ".xml": head + `<Language uuid="00000000-0000-0000-0000-000000000002"><Properties><Name>` + language +
			`</Name><LanguageCode>` + code + `</LanguageCode></Properties></Language>
</MetaDataObject>
`,
		"src/Catalogs/Goods.xml": head + `<Catalog uuid="00000000-0000-0000-0000-000000000003"><Properties><Name>Goods</Name></Properties><ChildObjects/></Catalog>
</MetaDataObject>
`,
	})
	return dir
}

// The terminal commands: unknown commands are named, --version answers
// with the build and the IDE server version, invalid flag values are
// refused rather than replaced, manifest problems are reported with file
// and line, and the tree's labels default to the configuration's language.
func TestTerminal(t *testing.T) {
	if code, _, stderr := terminal("bogus"); code != 2 || !strings.HasPrefix(stderr, `eska: unknown command "bogus"`) || !strings.Contains(stderr, "usage: eska") {
		t.Errorf("eska bogus: %d %q", code, stderr)
	}
	for _, v := range []string{"--version", "-version", "version"} {
		if code, stdout, _ := terminal(v); code != 0 || !strings.HasPrefix(stdout, "eska ") || !strings.HasSuffix(stdout, "; IDE server "+version+"\n") || strings.Count(stdout, "\n") != 1 {
			t.Errorf("eska %s: %d %q", v, code, stdout)
		}
	}
	english := languageProject(t, "English", "en")
	russian := languageProject(t, "Русский", "ru")
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"tree", "-lang", "fr", english}, `eska tree: -lang "fr": the labels are in ru or en`},
		{[]string{"tree", "-depth", "-1", english}, "eska tree: -depth -1: the depth is 0 or more"},
		{[]string{"search", "-limit", "0", english, "x"}, "eska search: -limit must be 1 to 500"},
		{[]string{"search", "-limit", "501", english, "x"}, "eska search: -limit must be 1 to 500"},
	} {
		if code, _, stderr := terminal(tc.args...); code != 2 || strings.TrimSpace(stderr) != tc.stderr {
			t.Errorf("eska %s: %d %q, want 2 %q", strings.Join(tc.args, " "), code, stderr, tc.stderr)
		}
	}
	// At the limits the values are taken.
	if code, _, stderr := terminal("tree", "-depth", "0", english); code != 0 {
		t.Errorf("-depth 0: %d %s", code, stderr)
	}
	for _, limit := range []string{"1", "500"} {
		if code, _, stderr := terminal("search", "-limit", limit, english, "Goods"); code != 0 {
			t.Errorf("-limit %s: %d %s", limit, code, stderr)
		}
	}
	// Labels in the configuration's language unless asked otherwise.
	for _, tc := range []struct {
		dir, lang, want string
	}{
		{english, "", "  Catalogs\n"},
		{russian, "", "  Справочники\n"},
		{english, "ru", "  Справочники\n"},
		{russian, "en", "  Catalogs\n"},
	} {
		args := []string{"tree", "-depth", "1"}
		if tc.lang != "" {
			args = append(args, "-lang", tc.lang)
		}
		code, stdout, stderr := terminal(append(args, tc.dir)...)
		if code != 0 || !strings.Contains(stdout, tc.want) {
			t.Errorf("eska %s: %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
	// Manifest problems, with the file and the line (and column when the
	// reader knows it).
	for _, tc := range []struct {
		manifest, want string
	}{
		{"[project]\ntype = 1\n", "eska.toml:2:8: project.type must be a string, not an integer"},
		{"[project]\ntype = \"configuration\"\nsourec = \"src\"\n", "eska.toml:3: unknown key project.sourec"},
		{"[project]\ntype = \"module\"\n", `eska.toml:2: project.type "module" is not a project type; want configuration, extension, processing or report`},
		{"# nothing\n", "eska.toml: manifest holds neither [project] nor [workspace]; it must hold exactly one"},
	} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"eska.toml": tc.manifest})
		// The editing commands open the project the same way.
		for _, args := range [][]string{{"tree", dir}, {"property", "show", dir, "catalog:Товары"}, {"rename", "preview", dir, "catalog:Товары", "Изделия"}} {
			code, _, stderr := terminal(args...)
			if want := "eska: " + filepath.Join(dir, tc.want) + "\n"; code != 1 || stderr != want {
				t.Errorf("eska %s, manifest %q: %d %q, want 1 %q", args[0], tc.manifest, code, stderr, want)
			}
		}
	}
}
