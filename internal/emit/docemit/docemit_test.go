package docemit_test

import (
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractkit/contractkit/internal/config"
	"github.com/contractkit/contractkit/internal/docscheck"
	"github.com/contractkit/contractkit/internal/emit/docemit"
	"github.com/contractkit/contractkit/internal/repotest"
	"github.com/contractkit/contractkit/internal/spec"
	"github.com/contractkit/contractkit/templates"
)

// TestDocsTree parses every page under Docs/ with goldmark and fails on a
// broken relative link or #anchor, a table row with the wrong number of
// cells, or any difference in headings, anchors, code blocks or tables
// between an English page and its Russian twin.
func TestDocsTree(t *testing.T) {
	root := repotest.Root(t)
	problems, err := docscheck.CheckTree(os.DirFS(root), []string{"Docs"}, [2]string{"Docs/en", "Docs/ru"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	// The check must have had pages to look at.
	n := 0
	_ = fs.WalkDir(os.DirFS(root), "Docs", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".md") {
			n++
		}
		return nil
	})
	if n < 12 {
		t.Errorf("only %d pages under Docs/", n)
	}
}

// Texts with table and template metacharacters still give well-formed
// pages: pipes and braces are escaped, angle brackets become entities.
func TestEscaping(t *testing.T) {
	fsys := repotest.MapFS(t)
	raw, err := os.ReadFile("../../spec/testdata/minimal.json")
	if err != nil {
		t.Fatal(err)
	}
	tricky := "a | b {c} <d> [e](f) `x|y {z}` *g*"
	src := strings.Replace(string(raw), `"One message per line."`, `"`+strings.ReplaceAll(tricky, "`", "\\u0060")+`"`, 1)
	for p := range fsys {
		if strings.HasPrefix(p, "spec/") && p != spec.MetaSchemaPath {
			delete(fsys, p)
		}
	}
	fsys["spec/demo.json"] = &fstest.MapFile{Data: []byte(src)}
	fsys["impl/get.go"] = &fstest.MapFile{Data: []byte("package impl\n\nfunc get() {}\n")}
	set, diags := spec.Load(fsys)
	if diags.HasErrors() {
		t.Fatal(diags.Errors().Error())
	}
	files, err := docemit.Emit(docemit.Input{Domain: set.Domain("demo"), Templates: templates.FS, Repo: fsys})
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]*docscheck.Page{}
	for _, f := range files {
		p, problems := docscheck.Parse(f.Path, f.Data)
		for _, pr := range problems {
			t.Error(pr)
		}
		pages[f.Path] = p
		// An input without a regenerate command names config's default.
		if want := "run `" + config.DefaultRegenerate + "`"; strings.Contains(f.Path, "/en/") && !strings.Contains(string(f.Data), want) {
			t.Errorf("%s does not name the default regenerate command %q", f.Path, want)
		}
		if strings.HasSuffix(f.Path, "en/reference/demo/wire.md") {
			want := `a \| b \{c\} &lt;d&gt; \[e\](f) ` + "`x\\|y {z}`" + ` \*g\*`
			if !strings.Contains(string(f.Data), want) {
				t.Errorf("wire.md does not contain the escaped text %q:\n%s", want, f.Data)
			}
		}
	}
	for _, f := range files {
		if strings.Contains(f.Path, "/en/") {
			ru := strings.Replace(f.Path, "/en/", "/ru/", 1)
			for _, pr := range docscheck.ComparePair(pages[ru], pages[f.Path]) {
				t.Error(pr)
			}
		}
	}
}

func TestEscapeAndCode(t *testing.T) {
	for in, want := range map[string]string{
		"plain":        "plain",
		"a|b":          `a\|b`,
		"{x}":          `\{x\}`,
		"`{x}|y`":      "`{x}\\|y`",
		"1 < 2 > 0":    "1 &lt; 2 &gt; 0",
		"line\nbreak":  "line break",
		"[not](links)": `\[not\](links)`,
	} {
		if got := docemit.Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"x":   "`x`",
		"a`b": "``a`b``",
		"`a":  "`` `a ``",
		"a|b": "`a\\|b`",
	} {
		if got := docemit.Code(in); got != want {
			t.Errorf("Code(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTidy(t *testing.T) {
	in := "\n\n# A  \n\n\n\ntext\n```json\n{}\n\n\n```\n\n\n"
	want := "# A\n\ntext\n```json\n{}\n\n\n```\n"
	if got := string(docemit.Tidy([]byte(in))); got != want {
		t.Errorf("Tidy = %q, want %q", got, want)
	}
}

func TestLoadTemplatesErrors(t *testing.T) {
	if _, err := docemit.LoadTemplates(fstest.MapFS{}, "templates/en/reference", nil); err == nil ||
		!strings.Contains(err.Error(), "templates/en/reference/*.tmpl: no templates") {
		t.Errorf("empty folder: err = %v, want it to name the pattern", err)
	}
	bad := fstest.MapFS{"t/a.md.tmpl": {Data: []byte("{{.X")}}
	if _, err := docemit.LoadTemplates(bad, "t", nil); err == nil || !strings.HasPrefix(err.Error(), "t/a.md.tmpl: ") {
		t.Errorf("bad template: err = %v, want it to start with the file", err)
	}
	good := fstest.MapFS{"t/a.md.tmpl": {Data: []byte("{{define \"b\"}}B{{end}}A")}}
	tmpl, err := docemit.LoadTemplates(good, "t", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tmpl.Lookup("a.md.tmpl") == nil || tmpl.Lookup("b") == nil {
		t.Errorf("templates = %s, want a.md.tmpl and b", tmpl.DefinedTemplates())
	}
}

// Every source on a reference page links to the line that holds its anchor
// text, shown beside it, and every test links to its function's line: a
// reader who follows a link lands on the code, not on the top of a file.
func TestReferenceLinksToLines(t *testing.T) {
	root := repotest.Root(t)
	source := regexp.MustCompile("\\[`([^`]+):([0-9]+)`\\]\\(\\.\\./\\.\\./\\.\\./\\.\\./([^)#]+)#L([0-9]+)\\) (`+)(.+?)`+(?:<br>| \\|)")
	test := regexp.MustCompile("\\[`(Test[A-Za-z0-9_]*|Fuzz[A-Za-z0-9_]*|Benchmark[A-Za-z0-9_]*)`\\]\\(\\.\\./\\.\\./\\.\\./\\.\\./([^)#]+)#L([0-9]+)\\)")
	files := map[string][]string{}
	line := func(p string, n int) string {
		if files[p] == nil {
			data, err := os.ReadFile(root + "/" + p)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			files[p] = strings.Split(string(data), "\n")
		}
		if n < 1 || n > len(files[p]) {
			return ""
		}
		return files[p][n-1]
	}
	var sources, tests int
	err := fs.WalkDir(os.DirFS(root), "Docs/en/reference", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(root + "/" + p)
		if err != nil {
			return err
		}
		for _, m := range source.FindAllStringSubmatch(string(data), -1) {
			sources++
			n, _ := strconv.Atoi(m[4])
			if m[1] != m[3] || m[2] != m[4] {
				t.Errorf("%s: link text %s:%s and target %s#L%s differ", p, m[1], m[2], m[3], m[4])
			}
			anchor := strings.ReplaceAll(strings.TrimSpace(m[6]), `\|`, "|")
			first, _, _ := strings.Cut(anchor, "\n")
			if !strings.Contains(line(m[3], n), first) {
				t.Errorf("%s: %s line %d is %q, which does not hold the anchor %q", p, m[3], n, line(m[3], n), first)
			}
		}
		for _, m := range test.FindAllStringSubmatch(string(data), -1) {
			tests++
			n, _ := strconv.Atoi(m[3])
			if !strings.HasPrefix(line(m[2], n), "func "+m[1]+"(") {
				t.Errorf("%s: %s line %d is %q, not the declaration of %s", p, m[2], n, line(m[2], n), m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if sources < 300 || tests < 300 {
		t.Errorf("found %d source links and %d test links on the English reference pages; the patterns no longer match what the pages write", sources, tests)
	}
}
