package docscheck

import (
	"strings"
	"testing"
	"testing/fstest"
)

func treeFixture() fstest.MapFS {
	methods := `# <a id="ai-control-protocol.methods"></a>Methods

<a id="ai-control-protocol.method.act"></a>` + "`act`" + ` performs an action. Back to [index](index.md#wire-rules);
source: [bridge/server.go](../../../../bridge/server.go).
`
	return fstest.MapFS{
		"bridge/server.go": {Data: []byte("package bridge\n")},
		"Docs/en/reference/ai-control-protocol/index.md":   {Data: []byte(enPage)},
		"Docs/ru/reference/ai-control-protocol/index.md":   {Data: []byte(ruPage)},
		"Docs/en/reference/ai-control-protocol/methods.md": {Data: []byte(methods)},
		"Docs/ru/reference/ai-control-protocol/methods.md": {Data: []byte(strings.Replace(methods, "Methods", "Методы", 1))},
		"Docs/en/reference/ai-control-protocol/notes.txt":  {Data: []byte("not markdown, not paired")},
	}
}

var langDirs = [2]string{"Docs/en/reference", "Docs/ru/reference"}

func TestCheckTreeClean(t *testing.T) {
	probs, err := CheckTree(treeFixture(), []string{"Docs/en/reference", "Docs/ru/reference"}, langDirs)
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, probs)
}

func TestCheckTreeMissingCounterpart(t *testing.T) {
	fsys := treeFixture()
	delete(fsys, "Docs/ru/reference/ai-control-protocol/methods.md")
	probs, err := CheckTree(fsys, nil, langDirs)
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, probs,
		`Docs/en/reference/ai-control-protocol/methods.md: page has no counterpart in the other language: Docs/ru/reference/ai-control-protocol/methods.md does not exist`,
		`Docs/ru/reference/ai-control-protocol/index.md:4: broken link "methods.md#ai-control-protocol.method.act": Docs/ru/reference/ai-control-protocol/methods.md does not exist`,
	)
}

// All three kinds of problem meet in one sorted list.
func TestCheckTreeCombinesAndSorts(t *testing.T) {
	fsys := treeFixture()
	fsys["Docs/ru/reference/ai-control-protocol/index.md"] = &fstest.MapFile{Data: []byte(
		strings.Replace(ruPage, "| `op` | строка | Операция |", "| `op` | строка |", 1))}
	en := fsys["Docs/en/reference/ai-control-protocol/methods.md"]
	en.Data = append(en.Data, "\n[gone](gone.md)\n\n```\nonly in English\n```\n"...)
	probs, err := CheckTree(fsys, []string{"Docs"}, langDirs)
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, probs,
		`Docs/en/reference/ai-control-protocol/methods.md:6: broken link "gone.md": Docs/en/reference/ai-control-protocol/gone.md does not exist`,
		`Docs/ru/reference/ai-control-protocol/index.md:13: table row has 2 cells, but the header row (line 10) has 3`,
		`Docs/ru/reference/ai-control-protocol/methods.md: has only 0 code blocks, Docs/en/reference/ai-control-protocol/methods.md code block 1 (line 8) has info "" and 1 line`,
	)
}

func TestCheckTreeErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		dirs  []string
		langs [2]string
	}{
		"missing dir":      {[]string{"Docs/de"}, [2]string{}},
		"missing lang dir": {nil, [2]string{"Docs/en/reference", "Docs/de/reference"}},
		"one lang dir":     {nil, [2]string{"Docs/en/reference", ""}},
		"overlap":          {nil, [2]string{"Docs", "Docs/ru"}},
		"escape":           {[]string{"../x"}, [2]string{}},
	} {
		if _, err := CheckTree(treeFixture(), tc.dirs, tc.langs); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
	if _, err := CheckTree(nil, nil, [2]string{}); err == nil {
		t.Errorf("nil fs: want an error")
	}
}
