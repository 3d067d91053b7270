package corpus

import (
	"fmt"
	"os"
	"path/filepath"
)

// DesignerArchives are the Designer XML corpora, by archive name.
var DesignerArchives = []string{"ssl_3_1", "mdclasses", "bsl-language-server"}

// DesignerProject is one project of the extracted Designer corpora.
type DesignerProject struct {
	Name       string // the folder under the extraction directory
	Type       string // configuration, extension, processing or report
	Source     string // relative to the folder
	Descriptor string // the root descriptor for processing and report, or ""
}

// Manifest is the eska.toml the project is opened with.
func (p DesignerProject) Manifest() string {
	m := fmt.Sprintf("[project]\ntype = %q\nsource = %q\n", p.Type, p.Source)
	if p.Descriptor != "" {
		m += fmt.Sprintf("descriptor = %q\n", p.Descriptor)
	}
	return m
}

// DesignerProjects lists the projects of the Designer corpora extracted
// into dir: SSL 3.1, the mdclasses configurations, extension and external
// objects, and every configuration of the bsl-language-server fixtures.
func DesignerProjects(dir string) []DesignerProject {
	out := []DesignerProject{
		{"ssl_3_1", "configuration", "src/cf", ""},
		{"mdclasses/mdclasses", "configuration", "src/cf", ""},
		{"mdclasses/mdclasses_3_18", "configuration", "src/cf", ""},
		{"mdclasses/mdclasses_3_25", "configuration", "src/cf", ""},
		{"mdclasses/mdclasses_3_27", "configuration", "src/cf", ""},
		{"mdclasses/mdclasses_5_1", "configuration", "src/cf", ""},
		{"mdclasses/mdclasses_ext", "extension", "src/cf", ""},
		{"mdclasses/external/src/epf", "processing", ".", "ТестоваяВнешняяОбработка.xml"},
		{"mdclasses/external/src/erf", "report", ".", "ТестовыйВнешнийОтчет.xml"},
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "bsl-language-server"))
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, "bsl-language-server", e.Name(), "Configuration.xml")); err == nil {
			out = append(out, DesignerProject{"bsl-language-server/" + e.Name(), "configuration", ".", ""})
		}
	}
	return out
}
