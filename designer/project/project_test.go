package project

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/generated/ide"
)

// tree describes a fixture: a path relative to the fixture's root maps to a
// file's content, to "/" for an empty directory, or to "-> target" for a
// symlink. Paths may start with "../" to place files beside the root, which
// is how fixtures get an ancestor manifest or a symlink target outside.
type tree map[string]string

// build lays out files under a fresh directory and returns that directory.
// It resolves the temporary directory first so expected paths compare
// equal on systems whose temp dir sits behind a symlink.
func build(t *testing.T, files tree) string {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "w")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, content := range files {
		path := filepath.Join(root, rel)
		if content == "/" {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "-> "); ok {
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const (
	cfgManifest  = "[project]\ntype = \"configuration\"\n"
	extManifest  = "[project]\ntype = \"extension\"\n"
	configXML    = "<MetaDataObject/>\n"
	wsBaseExt    = "[workspace]\nmembers = [\"ext\", \"base\"]\n"
	procManifest = "[project]\ntype = \"processing\"\n"
)

// workspaceTree is a workspace whose members are declared out of
// alphabetical order, so that tests see declaration order, not sorting.
func workspaceTree() tree {
	return tree{
		"eska.toml":                          wsBaseExt,
		"base/eska.toml":                     cfgManifest,
		"base/src/Configuration.xml":         configXML,
		"base/src/Catalogs/Goods/Ext/x.bsl":  "",
		"ext/eska.toml":                      extManifest,
		"ext/src/Configuration.xml":          configXML,
		"ext/src/CommonModules/M/Ext/Module": "",
	}
}

func cur() Selection                  { return ide.SelectionCurrent{} }
func all() Selection                  { return ide.SelectionAll{} }
func named(names ...string) Selection { return ide.NamedSelection{Names: names} }
func members(ps []Project) (out []string) {
	for _, p := range ps {
		out = append(out, p.Scope.Member)
	}
	return out
}

func TestStandalone(t *testing.T) {
	root := build(t, tree{
		"eska.toml":                cfgManifest,
		"src/Configuration.xml":    configXML,
		"src/Catalogs/Goods.xml":   "",
		"src/Catalogs/Goods/x.bsl": "",
	})
	for _, start := range []string{root, root + "/src/Catalogs", root + "/src/Catalogs/Goods/x.bsl", root + "/src/../src"} {
		c, err := Discover(start)
		if err != nil {
			t.Fatalf("Discover(%s): %v", start, err)
		}
		want := Project{
			Type:       TypeConfiguration,
			Root:       root,
			Manifest:   root + "/eska.toml",
			Source:     root + "/src",
			Descriptor: root + "/src/Configuration.xml",
		}
		if c.Workspace || c.Root != root || c.Manifest != root+"/eska.toml" || c.Current != "" {
			t.Errorf("Discover(%s) = %+v, want standalone at %s", start, c, root)
		}
		got, err := c.Select(cur())
		if err != nil {
			t.Fatalf("Select(current): %v", err)
		}
		if !reflect.DeepEqual(got, []Project{want}) {
			t.Errorf("Select(current) = %+v, want %+v", got, want)
		}
	}
}

func TestWorkspaceSelection(t *testing.T) {
	root := build(t, workspaceTree())
	tests := []struct {
		name    string
		start   string
		sel     Selection
		current string
		want    []string
	}{
		{"current from root", "", cur(), "", []string{"ext", "base"}},
		{"current from root, pointer variant", "", &ide.SelectionCurrent{}, "", []string{"ext", "base"}},
		{"current from member", "base", cur(), "base", []string{"base"}},
		{"current from nested directory of member", "base/src/Catalogs/Goods/Ext", cur(), "base", []string{"base"}},
		{"current from file in member", "ext/src/CommonModules/M/Ext/Module", cur(), "ext", []string{"ext"}},
		{"all from root", "", all(), "", []string{"ext", "base"}},
		{"all from member", "base/src", all(), "base", []string{"ext", "base"}},
		{"named one", "", named("base"), "", []string{"base"}},
		{"named in declaration order", "ext", named("base", "ext"), "ext", []string{"ext", "base"}},
		{"named pointer variant", "", &ide.NamedSelection{Names: []string{"ext"}}, "", []string{"ext"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Discover(filepath.Join(root, tt.start))
			if err != nil {
				t.Fatal(err)
			}
			if !c.Workspace || c.Root != root || c.Manifest != root+"/eska.toml" || c.Current != tt.current {
				t.Errorf("context = %+v, want workspace at %s with current %q", c, root, tt.current)
			}
			got, err := c.Select(tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(members(got), tt.want) {
				t.Errorf("selected %q, want %q", members(got), tt.want)
			}
			for _, p := range got {
				dir := filepath.Join(root, p.Scope.Member)
				want := Project{
					Scope:      p.Scope,
					Type:       map[string]Type{"base": TypeConfiguration, "ext": TypeExtension}[p.Scope.Member],
					Root:       dir,
					Manifest:   dir + "/eska.toml",
					Source:     dir + "/src",
					Descriptor: dir + "/src/Configuration.xml",
				}
				if p != want {
					t.Errorf("project = %+v, want %+v", p, want)
				}
			}
		})
	}
}

// TestSelectDoesNotAlias keeps a caller's edits to one result out of the
// context and out of later results.
func TestSelectDoesNotAlias(t *testing.T) {
	c, err := Discover(build(t, workspaceTree()))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := c.Select(all())
	got[0].Root = "changed"
	again, _ := c.Select(cur())
	if again[0].Root == "changed" || c.Projects[0].Root == "changed" {
		t.Error("Select returned the context's own slice")
	}
}

func TestOpenOK(t *testing.T) {
	tests := []struct {
		name  string
		files tree
		start string
		sel   Selection
		want  []Project // paths relative to the fixture root
	}{
		{
			name:  "processing with descriptor among several xml",
			files: tree{"eska.toml": procManifest + "descriptor = \"Main.xml\"\n", "src/Main.xml": "", "src/Other.xml": ""},
			sel:   cur(),
			want:  []Project{{Type: TypeProcessing, Source: "src", Descriptor: "src/Main.xml"}},
		},
		{
			name:  "processing without descriptor, single xml",
			files: tree{"eska.toml": procManifest, "src/Main.xml": "", "src/Main/Ext/ObjectModule.bsl": "", "src/Main/Forms/F.xml": ""},
			sel:   cur(),
			want:  []Project{{Type: TypeProcessing, Source: "src", Descriptor: "src/Main.xml"}},
		},
		{
			name:  "report with descriptor in a subdirectory and custom source",
			files: tree{"eska.toml": "[project]\ntype = \"report\"\nsource = \"src/rep\"\ndescriptor = \"x/R.xml\"\n", "src/rep/x/R.xml": ""},
			sel:   cur(),
			want:  []Project{{Type: TypeReport, Source: "src/rep", Descriptor: "src/rep/x/R.xml"}},
		},
		{
			name:  "report single xml is a symlink inside source",
			files: tree{"eska.toml": "[project]\ntype = \"report\"\n", "src/R.xml": "-> real/R.data", "src/real/R.data": ""},
			sel:   cur(),
			want:  []Project{{Type: TypeReport, Source: "src", Descriptor: "src/R.xml"}},
		},
		{
			name:  "source is the manifest's own directory",
			files: tree{"eska.toml": cfgManifest + "source = \".\"\n", "Configuration.xml": configXML},
			sel:   cur(),
			want:  []Project{{Type: TypeConfiguration, Source: "", Descriptor: "Configuration.xml"}},
		},
		{
			name:  "source with a harmless dot-dot",
			files: tree{"eska.toml": cfgManifest + "source = \"a/../src\"\n", "src/Configuration.xml": configXML, "a": "/"},
			sel:   cur(),
			want:  []Project{{Type: TypeConfiguration, Source: "src", Descriptor: "src/Configuration.xml"}},
		},
		{
			name:  "source symlink inside the project",
			files: tree{"eska.toml": cfgManifest, "src": "-> dump", "dump/Configuration.xml": configXML},
			sel:   cur(),
			want:  []Project{{Type: TypeConfiguration, Source: "src", Descriptor: "src/Configuration.xml"}},
		},
		{
			name:  "manifest is a link inside its directory",
			files: tree{"eska.toml": "-> settings/eska.toml", "settings/eska.toml": cfgManifest, "src/Configuration.xml": configXML},
			sel:   cur(),
			want:  []Project{{Type: TypeConfiguration, Source: "src", Descriptor: "src/Configuration.xml"}},
		},
		{
			name:  "start is a file",
			files: tree{"eska.toml": cfgManifest, "src/Configuration.xml": configXML},
			start: "src/Configuration.xml",
			sel:   cur(),
			want:  []Project{{Type: TypeConfiguration, Source: "src", Descriptor: "src/Configuration.xml"}},
		},
		{
			name:  "manifest exactly at the size limit",
			files: tree{"eska.toml": padTo(cfgManifest, MaxManifestSize), "src/Configuration.xml": configXML},
			sel:   cur(),
			want:  []Project{{Type: TypeConfiguration, Source: "src", Descriptor: "src/Configuration.xml"}},
		},
		{
			name:  "dotted keys and inline table are plain TOML",
			files: tree{"eska.toml": "project = { type = \"configuration\", source = \"s\" }\n", "s/Configuration.xml": configXML},
			sel:   cur(),
			want:  []Project{{Type: TypeConfiguration, Source: "s", Descriptor: "s/Configuration.xml"}},
		},
		{
			name: "project under a workspace that does not list it is standalone",
			files: tree{
				"../eska.toml": "[workspace]\nmembers = [\"other\"]\n", "../other": "/",
				"eska.toml": cfgManifest, "src/Configuration.xml": configXML,
			},
			sel:  cur(),
			want: []Project{{Type: TypeConfiguration, Source: "src", Descriptor: "src/Configuration.xml"}},
		},
		{
			name: "project nested in a member but not listed is standalone",
			files: func() tree {
				f := workspaceTree()
				f["base/inner/eska.toml"] = cfgManifest
				f["base/inner/src/Configuration.xml"] = configXML
				return f
			}(),
			start: "base/inner/src",
			sel:   cur(),
			want:  []Project{{Type: TypeConfiguration, Root: "base/inner", Source: "base/inner/src", Descriptor: "base/inner/src/Configuration.xml"}},
		},
		{
			name: "member reached through a project directory in between",
			files: tree{
				"eska.toml":                         "[workspace]\nmembers = [\"outer/inner\"]\n",
				"outer/eska.toml":                   cfgManifest,
				"outer/src/Configuration.xml":       configXML,
				"outer/inner/eska.toml":             extManifest,
				"outer/inner/src/Configuration.xml": configXML,
			},
			start: "outer/inner/src",
			sel:   cur(),
			want:  []Project{{Scope: Scope{"outer/inner"}, Type: TypeExtension, Root: "outer/inner", Source: "outer/inner/src", Descriptor: "outer/inner/src/Configuration.xml"}},
		},
		{
			name: "member listed through a symlink inside the workspace",
			files: tree{
				"eska.toml": "[workspace]\nmembers = [\"ext\"]\n", "ext": "-> real/ext",
				"real/ext/eska.toml": extManifest, "real/ext/src/Configuration.xml": configXML,
			},
			start: "real/ext/src",
			sel:   cur(),
			want:  []Project{{Scope: Scope{"ext"}, Type: TypeExtension, Root: "ext", Source: "ext/src", Descriptor: "ext/src/Configuration.xml"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := build(t, tt.files)
			got, err := Open(filepath.Join(root, tt.start), tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.want {
				w := &tt.want[i]
				w.Root = filepath.Join(root, w.Root)
				w.Manifest = filepath.Join(w.Root, "eska.toml")
				w.Source = filepath.Join(root, w.Source)
				w.Descriptor = filepath.Join(root, w.Descriptor)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Open =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// padTo pads a manifest with a comment line to exactly n bytes.
func padTo(m string, n int) string {
	return m + "#" + strings.Repeat("x", n-len(m)-2) + "\n"
}

func TestOpenErrors(t *testing.T) {
	okSrc := tree{"src/Configuration.xml": configXML}
	ws := workspaceTree()
	tests := []struct {
		name   string
		files  tree
		start  string // relative to the fixture root
		sel    Selection
		reason Reason
		path   string // relative to the fixture root, or absolute
		msg    string // the problem after "<path>: "; {root} stands for the fixture root
	}{
		// manifest_missing
		{"member directory missing", with(ws, tree{"eska.toml": "[workspace]\nmembers = [\"base\", \"gone\"]\n"}), "", cur(),
			ReasonManifestMissing, "gone/eska.toml", `not found; workspace member "gone" listed in {root}/eska.toml has no directory`},
		{"member manifest missing", with(ws, tree{"eska.toml": "[workspace]\nmembers = [\"base\", \"bare\"]\n", "bare/src/Configuration.xml": configXML}), "", cur(),
			ReasonManifestMissing, "bare/eska.toml", `not found; workspace member "bare" listed in {root}/eska.toml needs its own eska.toml with [project]`},
		{"start does not exist", with(okSrc, tree{"eska.toml": cfgManifest}), "nope", cur(),
			ReasonManifestMissing, "nope", "start path cannot be used: no such file or directory"},

		// manifest_invalid
		{"unknown key", with(okSrc, tree{"eska.toml": cfgManifest + "sourec = \"x\"\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 3: unknown key project.sourec"},
		{"unknown keys and table", with(okSrc, tree{"eska.toml": "name = 1\n" + cfgManifest + "[tool]\nx = 1\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 1: unknown keys name, tool, tool.x"},
		{"syntax error names line and column", with(okSrc, tree{"eska.toml": "[project]\ntype = \"configuration\"\nsource = src\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 3, column 10: expected value but found \"src\" instead"},
		{"wrong type", with(okSrc, tree{"eska.toml": "[project]\ntype = 1\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 2, column 8: project.type must be a string, not an integer"},
		{"members not an array", tree{"eska.toml": "[workspace]\nmembers = \"a\"\n"}, "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 2, column 12: workspace.members must be an array of strings, not a string"},
		{"members element not a string", tree{"eska.toml": "[workspace]\nmembers = [\"a\", 2]\n"}, "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 2, column 12: workspace.members must be an array of strings, but element 1 is an integer"},
		{"project as array of tables", with(okSrc, tree{"eska.toml": "[[project]]\ntype = \"configuration\"\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 1: project must be a table, not an array of tables"},
		{"key spelt in another case beside the right one", with(okSrc, tree{"eska.toml": "[project]\nType = 1\ntype = \"configuration\"\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 2: unknown key project.Type"},
		{"unknown key reported before a wrong type", with(okSrc, tree{"eska.toml": "[project]\ntype = 1\nx = 2\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 3: unknown key project.x"},
		{"key spelt in another case", with(okSrc, tree{"eska.toml": "[project]\nType = \"configuration\"\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 2: unknown key project.Type"},
		{"project is not a table", with(okSrc, tree{"eska.toml": "project = \"configuration\"\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 1: project must be a table, not a string"},
		{"unknown project type", with(okSrc, tree{"eska.toml": "[project]\ntype = \"module\"\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", `line 2: project.type "module" is not a project type; want configuration, extension, processing or report`},
		{"type missing", with(okSrc, tree{"eska.toml": "[project]\nsource = \"src\"\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 1: project.type is missing; want configuration, extension, processing or report"},
		{"both tables", with(okSrc, tree{"eska.toml": cfgManifest + "[workspace]\nmembers = [\"a\"]\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "manifest holds both [project] and [workspace]; it must hold exactly one"},
		{"neither table", tree{"eska.toml": "# nothing\n"}, "", cur(),
			ReasonManifestInvalid, "eska.toml", "manifest holds neither [project] nor [workspace]; it must hold exactly one"},
		{"empty source", with(okSrc, tree{"eska.toml": cfgManifest + "source = \"\"\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", `line 3: project.source is empty; omit it for the default "src"`},
		{"descriptor on a configuration", with(okSrc, tree{"eska.toml": cfgManifest + "descriptor = \"Configuration.xml\"\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 3: project.descriptor is only for processing and report; a configuration's root descriptor is always Configuration.xml"},
		{"empty descriptor", tree{"eska.toml": procManifest + "descriptor = \"\"\n", "src/P.xml": ""}, "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 3: project.descriptor is empty; omit it to use the single *.xml file in the source directory"},
		{"manifest one past the size limit", with(okSrc, tree{"eska.toml": padTo(cfgManifest, MaxManifestSize+1)}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "manifest is larger than 65536 bytes"},
		{"manifest nesting past the shape limit", with(okSrc, tree{"eska.toml": "[project]\ntype = " + strings.Repeat("{a=", 15000) + "1" + strings.Repeat("}", 15000) + "\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 2: arrays and tables nest deeper than 8 levels"},
		{"many unknown keys", with(okSrc, tree{"eska.toml": cfgManifest + "[[x]]\na=1\n[[x]]\na=1\nb=1\nc=1\nd=1\ne=1\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 5: unknown keys x, x.a, x.b, x.c, x.d and 1 more"},
		{"manifest not UTF-8", with(okSrc, tree{"eska.toml": cfgManifest + "# \xff\n"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "manifest is not valid UTF-8"},
		{"manifest is a directory", tree{"eska.toml/x": ""}, "", cur(),
			ReasonManifestInvalid, "eska.toml", "is not a regular file"},
		{"manifest is a dangling symlink", tree{"eska.toml": "-> nowhere.toml"}, "", cur(),
			ReasonManifestInvalid, "eska.toml", "cannot be read: no such file or directory"},
		{"manifest is a link out of its directory", with(okSrc, tree{"eska.toml": "-> ../elsewhere/eska.toml", "../elsewhere/eska.toml": cfgManifest}), "", cur(),
			ReasonManifestInvalid, "eska.toml", "resolves to {root}/../elsewhere/eska.toml, outside its directory {root}"},
		{"members missing", tree{"eska.toml": "[workspace]\n"}, "", cur(),
			ReasonManifestInvalid, "eska.toml", "workspace.members is missing"},
		{"members empty", tree{"eska.toml": "[workspace]\nmembers = []\n"}, "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 2: workspace.members is empty; a workspace needs at least one member"},
		{"member empty name", tree{"eska.toml": "[workspace]\nmembers = [\"\"]\n"}, "", cur(),
			ReasonManifestInvalid, "eska.toml", "line 2: workspace member name is empty"},
		{"member dot", tree{"eska.toml": "[workspace]\nmembers = [\".\"]\n"}, "", cur(),
			ReasonManifestInvalid, "eska.toml", `line 2: workspace member "." is the workspace root itself`},
		{"member absolute", tree{"eska.toml": "[workspace]\nmembers = [\"/etc\"]\n"}, "", cur(),
			ReasonManifestInvalid, "eska.toml", `line 2: workspace member "/etc" is absolute; members are relative to the workspace manifest`},
		{"member leaves by dot-dot", tree{"eska.toml": "[workspace]\nmembers = [\"../x\"]\n"}, "", cur(),
			ReasonManifestInvalid, "eska.toml", `line 2: workspace member "../x" must not contain ".."`},
		{"member with inner dot-dot", tree{"eska.toml": "[workspace]\nmembers = [\"a/../b\"]\n"}, "", cur(),
			ReasonManifestInvalid, "eska.toml", `line 2: workspace member "a/../b" must not contain ".."`},
		{"member not clean", tree{"eska.toml": "[workspace]\nmembers = [\"./a/\"]\n"}, "", cur(),
			ReasonManifestInvalid, "eska.toml", `line 2: workspace member "./a/" is not a clean path; write "a"`},
		{"member listed twice", tree{"eska.toml": "[workspace]\nmembers = [\"a\", \"a\"]\n"}, "", cur(),
			ReasonManifestInvalid, "eska.toml", `line 2: workspace member "a" is listed twice`},
		{"member not a directory", tree{"eska.toml": "[workspace]\nmembers = [\"a\"]\n", "a": "file"}, "", cur(),
			ReasonManifestInvalid, "eska.toml", `workspace member "a" is not a directory`},
		{"member symlink leaves the workspace", with(ws, tree{"eska.toml": "[workspace]\nmembers = [\"out\"]\n", "out": "-> ../outside", "../outside/eska.toml": cfgManifest}), "", cur(),
			ReasonManifestInvalid, "eska.toml", `workspace member "out" resolves to {root}/../outside, which is not inside the workspace {root}`},
		{"two members are one directory", with(ws, tree{"eska.toml": "[workspace]\nmembers = [\"base\", \"alias\"]\n", "alias": "-> base"}), "", cur(),
			ReasonManifestInvalid, "eska.toml", `workspace members "base" and "alias" are the same directory {root}/base`},
		{"member holds a workspace", with(ws, tree{"base/eska.toml": "[workspace]\nmembers = [\"x\"]\n"}), "", cur(),
			ReasonManifestInvalid, "base/eska.toml", `workspace member "base" of {root}/eska.toml must hold [project], not [workspace]; workspaces do not nest`},
		{"member manifest invalid, found from another member", with(ws, tree{"base/eska.toml": "[project]\ntype = \"cfg\"\n"}), "ext/src", cur(),
			ReasonManifestInvalid, "base/eska.toml", `line 2: project.type "cfg" is not a project type; want configuration, extension, processing or report`},
		{"broken manifest further up", with(okSrc, tree{"eska.toml": cfgManifest, "../eska.toml": "[workspace]\nmembers = nope\n"}), "", cur(),
			ReasonManifestInvalid, "../eska.toml", `line 2, column 11: expected value but found "nope" instead`},

		// selection_invalid
		{"standalone all", with(okSrc, tree{"eska.toml": cfgManifest}), "", all(),
			ReasonSelectionInvalid, "eska.toml", "selection all is for a workspace; a standalone project accepts only current"},
		{"standalone named", with(okSrc, tree{"eska.toml": cfgManifest}), "", named("w"),
			ReasonSelectionInvalid, "eska.toml", "selection named is for a workspace; a standalone project accepts only current"},
		{"nil selection", with(okSrc, tree{"eska.toml": cfgManifest}), "", nil,
			ReasonSelectionInvalid, "eska.toml", "selection <nil> is not current, all or named"},
		{"named empty", ws, "", named(),
			ReasonSelectionInvalid, "eska.toml", "selection named lists no members"},
		{"named repeated", ws, "base", named("base", "ext", "base"),
			ReasonSelectionInvalid, "eska.toml", `selection names member "base" twice`},
		{"named unknown", ws, "", named("base", "nope"),
			ReasonSelectionInvalid, "eska.toml", `workspace has no member "nope"; members are "ext", "base"`},
		{"named empty string", ws, "", named(""),
			ReasonSelectionInvalid, "eska.toml", `workspace has no member ""; members are "ext", "base"`},

		// source_invalid
		{"source missing", tree{"eska.toml": cfgManifest}, "", cur(),
			ReasonSourceInvalid, "src", "source directory does not exist (source in {root}/eska.toml)"},
		{"source is a file", tree{"eska.toml": cfgManifest, "src": "x"}, "", cur(),
			ReasonSourceInvalid, "src", "source is not a directory"},
		{"source escapes by dot-dot", tree{"eska.toml": cfgManifest + "source = \"../outside\"\n", "../outside/Configuration.xml": configXML}, "", cur(),
			ReasonSourceInvalid, "../outside", "source directory resolves to {root}/../outside, outside the project directory {root}"},
		{"source escapes by symlink", tree{"eska.toml": cfgManifest, "src": "-> ../outside", "../outside/Configuration.xml": configXML}, "", cur(),
			ReasonSourceInvalid, "src", "source directory resolves to {root}/../outside, outside the project directory {root}"},
		{"source absolute", tree{"eska.toml": cfgManifest + "source = \"/etc\"\n"}, "", cur(),
			ReasonSourceInvalid, "/etc", "source directory is absolute; {root}/eska.toml wants it relative to {root}"},
		{"processing without xml", tree{"eska.toml": procManifest, "src/P/Ext/ObjectModule.bsl": "", "src/notes.txt": ""}, "", cur(),
			ReasonSourceInvalid, "src", "source directory holds no *.xml root descriptor for the processing"},
		{"processing with two xml", tree{"eska.toml": procManifest, "src/B.xml": "", "src/A.xml": ""}, "", cur(),
			ReasonSourceInvalid, "src", "source directory holds several *.xml files (A.xml, B.xml); set project.descriptor to choose the processing's root descriptor"},

		// root_invalid
		{"configuration descriptor missing", tree{"eska.toml": cfgManifest, "src": "/"}, "", cur(),
			ReasonRootInvalid, "src/Configuration.xml", "root descriptor does not exist"},
		{"configuration descriptor is a directory", tree{"eska.toml": cfgManifest, "src/Configuration.xml/x": ""}, "", cur(),
			ReasonRootInvalid, "src/Configuration.xml", "root descriptor is not a regular file"},
		{"processing named descriptor missing", tree{"eska.toml": procManifest + "descriptor = \"P.xml\"\n", "src/Q.xml": ""}, "", cur(),
			ReasonRootInvalid, "src/P.xml", "root descriptor does not exist"},
		{"report descriptor leaves source", tree{"eska.toml": "[project]\ntype = \"report\"\ndescriptor = \"../R.xml\"\n", "R.xml": "", "src": "/"}, "", cur(),
			ReasonRootInvalid, "R.xml", "root descriptor must be a relative path inside the source directory {root}/src"},
		{"report descriptor symlink leaves source", tree{"eska.toml": "[project]\ntype = \"report\"\n", "src/R.xml": "-> ../R.xml", "R.xml": ""}, "", cur(),
			ReasonRootInvalid, "src/R.xml", "root descriptor resolves to {root}/R.xml, outside the source directory {root}/src"},
		{"member descriptor missing", with(ws, tree{"ext/src/Configuration.xml": "/"}), "base", cur(),
			ReasonRootInvalid, "ext/src/Configuration.xml", "root descriptor is not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := build(t, tt.files)
			_, err := Open(filepath.Join(root, tt.start), tt.sel)
			var oe *OpenError
			if !errors.As(err, &oe) {
				t.Fatalf("Open = %v, want an *OpenError", err)
			}
			path := tt.path
			if !filepath.IsAbs(path) {
				path = filepath.Join(root, path)
			}
			msg := strings.ReplaceAll(tt.msg, "{root}/..", filepath.Dir(root))
			msg = strings.ReplaceAll(msg, "{root}", root)
			if oe.Reason != tt.reason || oe.Path != path {
				t.Errorf("reason, path = %s, %s; want %s, %s\n%v", oe.Reason, oe.Path, tt.reason, path, err)
			}
			if want := path + ": " + msg; err.Error() != want {
				t.Errorf("message\n got %s\nwant %s", err.Error(), want)
			}
		})
	}
}

// TestNoManifest walks from a fresh temporary directory up to the
// filesystem root, so it can only hold where no directory above the
// temporary directory has a manifest.
func TestNoManifest(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ManifestName)); err == nil {
			t.Skipf("%s has a manifest above the temporary directory", d)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	start := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(start, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{start, dir} {
		_, err := Open(s, cur())
		var oe *OpenError
		if !errors.As(err, &oe) || oe.Reason != ReasonManifestMissing || oe.Path != s {
			t.Fatalf("Open(%s) = %v, want manifest_missing at the start", s, err)
		}
		if want := s + ": no eska.toml in this directory or any directory above it"; err.Error() != want {
			t.Errorf("message\n got %s\nwant %s", err, want)
		}
		if !errors.Is(err, os.ErrNotExist) {
			t.Error("manifest_missing does not unwrap to fs.ErrNotExist")
		}
	}
}

func TestRelativeStart(t *testing.T) {
	_, err := Discover("some/dir")
	var oe *OpenError
	if !errors.As(err, &oe) || oe.Reason != ReasonManifestMissing {
		t.Fatalf("Discover(relative) = %v, want manifest_missing", err)
	}
	if want := "some/dir: start path is not absolute"; err.Error() != want {
		t.Errorf("message = %s, want %s", err, want)
	}
}

// TestReasonsAreTheContract keeps the reason constants spelt exactly as
// workspace/open reports them.
func TestReasonsAreTheContract(t *testing.T) {
	got := []Reason{ReasonManifestMissing, ReasonManifestInvalid, ReasonSelectionInvalid, ReasonSourceInvalid, ReasonRootInvalid}
	want := []string{"manifest_missing", "manifest_invalid", "selection_invalid", "source_invalid", "root_invalid"}
	for i := range got {
		if string(got[i]) != want[i] {
			t.Errorf("reason %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// TestNothingWritten checks the read-only promise: discovery, including
// failed discovery, leaves every file and directory of the fixture as it
// was.
func TestNothingWritten(t *testing.T) {
	root := build(t, with(workspaceTree(), tree{"ext/eska.toml": "[project]\ntype = \"bogus\"\n"}))
	before := snapshot(t, filepath.Dir(root))
	for _, start := range []string{root, root + "/base", root + "/ext/src"} {
		_, _ = Open(start, cur())
		_, _ = Open(start, named("base"))
	}
	if after := snapshot(t, filepath.Dir(root)); !reflect.DeepEqual(before, after) {
		t.Errorf("the fixture changed:\nbefore %v\nafter  %v", before, after)
	}
}

// with returns base overlaid with extra, leaving both as they were.
func with(base, extra tree) tree {
	out := tree{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out[path] = fi.Mode().String() + " " + fi.ModTime().String()
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[path] += " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCheckShape(t *testing.T) {
	nest := func(n int) string { return "x = " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n" }
	dotted := func(n int) string { return "a" + strings.Repeat(".a", n) + " = 1\n" }
	tests := []struct {
		name, in, err string
	}{
		{"nesting at the limit", nest(maxNesting), ""},
		{"nesting one past", nest(maxNesting + 1), "line 1: arrays and tables nest deeper than 8 levels"},
		{"inline tables one past", "\n" + strings.Repeat("{", maxNesting) + "[", "line 2: arrays and tables nest deeper than 8 levels"},
		{"dots at the limit", dotted(maxLineDots), ""},
		{"dots one past", "# c\n" + dotted(maxLineDots+1), "line 2: more than 8 dots outside strings; keys nest deeper than a manifest can"},
		{"dots reset per line", dotted(maxLineDots) + dotted(maxLineDots), ""},
		{"strings and comments do not count", strings.Join([]string{
			`a = "` + strings.Repeat(".[{", 40) + `\" ."`,
			`b = '` + strings.Repeat(".[{\\", 40) + `'`,
			`c = """` + strings.Repeat(".[{\n", 40) + `\""" ."""`,
			`d = '''` + strings.Repeat(".[{\\\n", 40) + `'''''`,
			`# ` + strings.Repeat(".[{", 40),
			`e = 1`,
		}, "\n"), ""},
		{"line counts through multi-line strings", "c = \"\"\"\n\n\"\"\"\n" + dotted(maxLineDots+1), "line 4: more than 8 dots outside strings; keys nest deeper than a manifest can"},
		{"unterminated string ends at the line", "a = \"" + strings.Repeat(".", 40) + "\n" + dotted(maxLineDots), ""},
		{"unterminated multi-line string", "a = '''" + strings.Repeat(".[", 40), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkShape([]byte(tt.in))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.err {
				t.Errorf("checkShape = %q, want %q", got, tt.err)
			}
		})
	}
}
