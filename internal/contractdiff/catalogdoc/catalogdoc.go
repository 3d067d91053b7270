// Package catalogdoc renders the contractdiff rule catalog as reference
// pages in English and Russian, from the text/template sources under
// templates/<lang>/contract-diff/. Both languages receive the same data,
// so their pages differ only in words.
package catalogdoc

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"text/template"
	"unicode"

	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/emit/docemit"
	"github.com/contractkit/contractkit/internal/spec"
)

// Languages of the pages, in output order.
var Languages = []string{"en", "ru"}

// Pages are the generated pages, by file name, each rendered from the
// template of the same name plus ".tmpl".
var Pages = []string{"index.md", "rules.md"}

// Dir returns the folder of the pages in a language.
func Dir(lang string) string { return path.Join("Docs", lang, "reference", "contract-diff") }

// File is one generated page.
type File struct {
	Path string
	Data []byte
}

// Group is the rules of one severity.
type Group struct {
	Severity contractdiff.Severity
	Name     spec.Text
	Meaning  spec.Text
	Blocks   bool
	Rules    []*contractdiff.Rule
}

// Data is what a page template receives.
type Data struct {
	Lang    string
	File    string // this page's file name
	Sibling string // relative link to the same page in the other language
	Nav     []NavItem
	Groups  []Group
	Rules   []*contractdiff.Rule
}

// NavItem is one entry of the page list.
type NavItem struct {
	File    string
	Current bool
}

// Emit renders every page in every language, into Dir(lang). templates
// holds <lang>/contract-diff/*.tmpl.
func Emit(templates fs.FS) ([]File, error) {
	dirs := map[string]string{}
	for _, lang := range Languages {
		dirs[lang] = Dir(lang)
	}
	return EmitTo(templates, dirs, Languages)
}

// EmitTo renders every page in each of langs, into dirs[lang].
func EmitTo(templates fs.FS, dirs map[string]string, langs []string) ([]File, error) {
	rules := contractdiff.Rules()
	var groups []Group
	for _, s := range contractdiff.Severities {
		g := Group{Severity: s, Name: s.Name(), Meaning: s.Meaning(), Blocks: s == contractdiff.Breaking}
		for _, r := range rules {
			if r.Severity == s {
				g.Rules = append(g.Rules, r)
			}
		}
		groups = append(groups, g)
	}
	var files []File
	for _, lang := range langs {
		t, err := docemit.LoadTemplates(templates, path.Join(lang, "contract-diff"), funcs(lang))
		if err != nil {
			return nil, err
		}
		other := "ru"
		if lang == "ru" {
			other = "en"
		}
		otherDir, ok := dirs[other]
		if !ok {
			otherDir = Dir(other)
		}
		for _, page := range Pages {
			d := &Data{Lang: lang, File: page, Sibling: path.Join(docemit.Rel(dirs[lang], otherDir), page), Groups: groups, Rules: rules}
			for _, p := range Pages {
				d.Nav = append(d.Nav, NavItem{File: p, Current: p == page})
			}
			var buf bytes.Buffer
			if err := t.ExecuteTemplate(&buf, page+".tmpl", d); err != nil {
				return nil, fmt.Errorf("%s/contract-diff/%s.tmpl: %w", lang, page, err)
			}
			files = append(files, File{Path: path.Join(dirs[lang], page), Data: docemit.Tidy(buf.Bytes())})
		}
	}
	return files, nil
}

func funcs(lang string) template.FuncMap {
	return template.FuncMap{
		// tr is a text in the page's language, escaped for markdown.
		"tr":     func(t spec.Text) string { return docemit.Escape(t.Get(lang)) },
		"code":   func(s any) string { return docemit.Code(s) },
		"anchor": docemit.Anchor,
		// sentence starts a text with a capital letter.
		"sentence": func(s string) string {
			r := []rune(s)
			if len(r) > 0 {
				r[0] = unicode.ToUpper(r[0])
			}
			return string(r)
		},
	}
}
