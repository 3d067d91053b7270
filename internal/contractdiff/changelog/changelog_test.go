package changelog

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/contractkit/contractkit/internal/contractdiff"
	"github.com/contractkit/contractkit/internal/spec"
)

var update = flag.Bool("update", false, "rewrite the golden notes in testdata/ (read the diff before committing it)")

// release edits the contractdiff golden base spec into a release 1.3 of
// the demo protocol: a new optional request member, a lowered limit, a
// new value of an enum both ends send, a deprecated method and a removed
// optional result member.
func release(t *testing.T) (base, cur *spec.Domain) {
	t.Helper()
	data, err := os.ReadFile("../testdata/base.json")
	if err != nil {
		t.Fatal(err)
	}
	meta, err := os.ReadFile("../../../spec/contract.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{spec.MetaSchemaPath: {Data: meta}}
	parse := func(doc []byte) *spec.Domain {
		d, diags := spec.ParseOne(fsys, "spec/demo.json", doc)
		if diags.HasErrors() {
			t.Fatalf("invalid spec:\n%s", diags.Errors().Error())
		}
		return d
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["domain"].(map[string]any)["version"] = "1.3"
	for _, x := range doc["constants"].([]any) {
		if c := x.(map[string]any); c["id"] == "demo.limit.items" {
			c["value"] = 8
		}
	}
	for _, x := range doc["types"].([]any) {
		ty := x.(map[string]any)
		switch ty["name"] {
		case "GetParams":
			ty["fields"] = append(ty["fields"].([]any), map[string]any{"name": "sort", "type": "boolean", "required": false,
				"description": map[string]any{"en": "Sort the items by name.", "ru": "Упорядочить элементы по имени."}})
		case "GetResult":
			var keep []any
			for _, f := range ty["fields"].([]any) {
				if f.(map[string]any)["name"] != "note" {
					keep = append(keep, f)
				}
			}
			ty["fields"] = keep
		case "Color":
			ty["values"] = append(ty["values"].([]any), map[string]any{"value": "green", "description": map[string]any{"en": "Green.", "ru": "Зелёный."}})
		}
	}
	for _, x := range doc["methods"].([]any) {
		if m := x.(map[string]any); m["id"] == "demo.method.get" {
			m["stability"] = "deprecated"
		}
	}
	changed, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return parse(data), parse(changed)
}

func notes(t *testing.T, lang string) string {
	t.Helper()
	base, cur := release(t)
	fs := contractdiff.Compare(base, cur)
	d := Domain{Base: base, Cur: cur, Findings: fs, Migration: map[string]string{}}
	for _, f := range fs {
		if f.Rule == contractdiff.RuleEnumValueAdded {
			d.Migration[f.ChangeID()] = "Clients map green to their nearest color until they are rebuilt."
		}
	}
	var b bytes.Buffer
	if err := Write(&b, []Domain{d}, lang); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The notes of the release, in each language, match the golden files, which
// were read line by line when written: each entry is in the section of its
// kind, under the parties it asks to act, with the spec's own text in the
// notes' language.
func TestGoldenNotes(t *testing.T) {
	for _, lang := range []string{EN, RU} {
		t.Run(lang, func(t *testing.T) {
			got := notes(t, lang)
			file := "testdata/release." + lang + ".md"
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("notes differ from %s:\n%s", file, got)
			}
		})
	}
}

// What the notes must say, independently of the golden files.
func TestNotesContent(t *testing.T) {
	en, ru := notes(t, EN), notes(t, RU)
	section := func(s, party string) string {
		i := strings.Index(s, party)
		if i < 0 {
			t.Fatalf("no section %q in:\n%s", party, s)
		}
		rest := s[i:]
		if j := strings.Index(rest[1:], "\n### "); j >= 0 {
			rest = rest[:j+1]
		}
		return rest
	}
	client, server := section(en, "### For the client end"), section(en, "### For the server end")
	// The limit the server accepts is lowered: a narrowing of what clients
	// send, so it asks the client end, with no disposition yet.
	if !strings.Contains(client, "limit `demo.limit.items`") || strings.Contains(server, "limit `demo.limit.items`") {
		t.Errorf("the lowered limit must be listed for the client end only:\n%s", en)
	}
	// A new value of an enum both ends send is breaking, with the
	// migration of its disposition, for both ends.
	for _, s := range []string{client, server} {
		if !strings.Contains(s, "value `green` of `Color`") || !strings.Contains(s, "Migration: Clients map green") {
			t.Errorf("the new enum value and its migration are missing from a party:\n%s", s)
		}
	}
	// The removed result member and the new request member concern both
	// ends: one may use or must stop using it, the other must know it.
	for _, s := range []string{client, server} {
		if !strings.Contains(s, "field `GetResult.note`") || !strings.Contains(s, "field `GetParams.sort`") {
			t.Errorf("an addition or a removal is missing from a party:\n%s", s)
		}
	}
	for _, want := range []string{"#### Deprecated", "method `get`", "#### New", "field `GetParams.sort` — Sort the items by name"} {
		if !strings.Contains(en, want) {
			t.Errorf("the English notes lack %q", want)
		}
	}
	// The Russian notes take the spec's Russian texts and the catalog's
	// Russian rule titles.
	for _, want := range []string{"## Демонстрационный протокол 1.3", "Изменения с версии 1.2.", "Упорядочить элементы по имени",
		"#### Устарело", "метод `get`", "Переход: Clients map green"} {
		if !strings.Contains(ru, want) {
			t.Errorf("the Russian notes lack %q:\n%s", want, ru)
		}
	}
	if strings.Contains(ru, "Sort the items") || strings.Contains(ru, "Changes since") {
		t.Errorf("English text in the Russian notes:\n%s", ru)
	}
}

func TestUnknownLanguage(t *testing.T) {
	if err := Write(&bytes.Buffer{}, nil, "de"); err == nil {
		t.Error("no error for an unknown language")
	}
}
