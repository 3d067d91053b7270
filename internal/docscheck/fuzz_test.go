package docscheck

import (
	"bytes"
	"testing"
)

// FuzzParse calls the unexported parse, which has no recover, so any panic
// in goldmark or in the checks surfaces here instead of being turned into a
// problem by Parse. It also checks properties that hold for every input.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		enPage, ruPage,
		"| a | b |\n|---|---|\n| 1 |\n",
		"| a | b | c |\n|---|---|\n",
		"a\n|-|-|\n",
		"> | q |\n> |:-:|\n> | r \\| s |\n",
		"<div>\n<a\n id='x' href=\"y.md#z\"\n</div>\n",
		"<a id=\"x\"></a><a id=\"x\"></a>[l](#x)\n",
		"# <a name=n id=n>\n\n```go\ncode\n```\n\n    ind\n",
		"[x](../../../a%zz.md) <https://x> www.y.z a@b.c\n",
		"<!-- <a id=\"c\"> -->\n<script><a id=s></script>\n",
		"- | x |\n  | - |\n\t| y |\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		pg, probs := parse("Docs/en/reference/f/page.md", src)
		if pg == nil {
			t.Fatal("nil page")
		}
		maxLine := bytes.Count(src, []byte("\n")) + 1
		check := func(what string, line int) {
			if line < 0 || line > maxLine {
				t.Fatalf("%s line %d outside 0..%d", what, line, maxLine)
			}
		}
		for _, p := range probs {
			check("problem", p.Line)
		}
		for _, a := range pg.Anchors {
			check("anchor", a.Line)
		}
		for _, h := range pg.Headings {
			check("heading", h.Line)
		}
		for _, l := range pg.Links {
			check("link", l.Line)
		}
		for _, c := range pg.Code {
			check("code", c.Line)
		}
		for _, tab := range pg.Tables {
			check("table", tab.Line)
			for _, r := range tab.Rows {
				check("row", r.Line)
			}
		}
		if diff := ComparePair(pg, pg); len(diff) != 0 {
			t.Fatalf("page differs from itself: %v", diff)
		}
		CheckLinks(map[string]*Page{pg.Path: pg}, func(string) bool { return true })
	})
}
