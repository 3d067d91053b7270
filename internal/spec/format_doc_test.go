package spec

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The spec format guide lists every top-level member the meta-schema
// defines, in its shape example and in its member table, in both
// languages: a member added to the format without a word in the guide
// fails here.
func TestSpecFormatGuideListsEveryMember(t *testing.T) {
	raw, err := os.ReadFile("../../" + MetaSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "ru"} {
		path := "../../Docs/" + lang + "/how-to/spec-format.md"
		page, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(page)
		shape, _, _ := strings.Cut(text[strings.Index(text, "```json"):], "\n```\n")
		for name := range meta.Properties {
			if name == "$schema" || name == "format" {
				continue // in the shape, explained by the page's opening
			}
			if !strings.Contains(shape, `"`+name+`":`) {
				t.Errorf("%s: the shape of a spec lacks %q", path, name)
			}
			if !strings.Contains(text, "\n| `"+name+"` |") {
				t.Errorf("%s: the member table lacks a row for %q", path, name)
			}
		}
	}
}
