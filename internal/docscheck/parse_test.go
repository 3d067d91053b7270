package docscheck

import (
	"reflect"
	"strings"
	"testing"
)

// lines joins fixture lines so that line numbers in the tests are easy to
// read off.
func lines(ls ...string) []byte {
	return []byte(strings.Join(ls, "\n") + "\n")
}

// wantProblems compares problems as strings, which is what users see.
func wantProblems(t *testing.T, got []Problem, want ...string) {
	t.Helper()
	var g []string
	for _, p := range got {
		g = append(g, p.String())
	}
	if !reflect.DeepEqual(g, want) {
		t.Errorf("problems:\n got  %q\n want %q", g, want)
	}
}

func TestProblemString(t *testing.T) {
	if got := (Problem{Path: "a.md", Line: 3, Msg: "m"}).String(); got != "a.md:3: m" {
		t.Errorf("got %q", got)
	}
	if got := (Problem{Path: "a.md", Msg: "m"}).String(); got != "a.md: m" {
		t.Errorf("file-level problem: got %q", got)
	}
}

func TestParseStructure(t *testing.T) {
	src := lines(
		`# <a id="proto"></a>Protocol`, // 1
		``,
		`Intro with [methods](methods.md#proto.method.act) and <a id="proto.wire.line-limit"></a> text.`, // 3
		`A code span is not markup: `+"`"+`<a id="not-an-anchor"></a>`+"`"+`.`,                           // 4
		``,
		`## <a name='wire-rules' class="x"></a>Wire rules`, // 6
		``,
		`<!-- <a id="commented-out"></a> -->`, // 8
		``,
		`<div>`, // 10
		`<a class=x`,
		`   id="$defs/Thing" href="../../../../bridge/server.go"></a>`, // 12
		`</div>`,
		``,
		`| Name | Description |`, // 15
		`|------|-------------|`,
		`| <a id="t.row"></a>a \| b | `+"`x \\| y`"+` and [s](#proto) |`, // 17
		``,
		"```json title=x", // 19
		`{"a": 1}`,
		"```",
		``,
		`    indented code`, // 23
		``,
		`Setext heading`, // 25
		`---`,
		``,
		`![diagram](img/d.png) <https://example.com> www.example.org`, // 28
	)
	pg, probs := Parse("Docs/en/reference/p/index.md", src)
	wantProblems(t, probs)

	want := &Page{
		Path: "Docs/en/reference/p/index.md",
		Anchors: []Anchor{
			{"proto", 1}, {"proto.wire.line-limit", 3}, {"wire-rules", 6},
			{"$defs/Thing", 11}, {"t.row", 17},
		},
		Headings: []Heading{
			{Level: 1, Text: "Protocol", Anchors: []string{"proto"}, Line: 1},
			{Level: 2, Text: "Wire rules", Anchors: []string{"wire-rules"}, Line: 6},
			{Level: 2, Text: "Setext heading", Line: 25},
		},
		Links: []Link{
			{"methods.md#proto.method.act", 3},
			{"../../../../bridge/server.go", 11},
			{"#proto", 17},
			{"img/d.png", 28},
			{"https://example.com", 28},
			{"http://www.example.org", 28},
		},
		Code: []CodeBlock{
			{Info: "json title=x", Text: "{\"a\": 1}\n", Line: 19},
			{Info: "", Text: "indented code\n", Line: 23},
		},
		Tables: []Table{{Line: 15, Columns: 2, Rows: []TableRow{{Line: 17, Cells: 2}}}},
	}
	if !reflect.DeepEqual(pg, want) {
		t.Errorf("page:\n got  %+v\n want %+v", pg, want)
	}
}

func TestParseLinkDestinationsAreUnescaped(t *testing.T) {
	src := lines(
		`[a](a\_b.md) [b](<with space.md>) [c](x&amp;y.md) [d][ref]`,
		``,
		`[ref]: ref.md#frag`,
	)
	pg, _ := Parse("p.md", src)
	want := []Link{{"a_b.md", 1}, {"with space.md", 1}, {"x&y.md", 1}, {"ref.md#frag", 1}}
	if !reflect.DeepEqual(pg.Links, want) {
		t.Errorf("links: got %+v, want %+v", pg.Links, want)
	}
}

func TestParseDuplicateAnchor(t *testing.T) {
	src := lines(
		`# <a id="x"></a>One`,
		``,
		`<a id="y" name="y"></a> is one target, not two.`,
		``,
		`| A |`,
		`|---|`,
		`| <a id="x"></a> |`,
	)
	_, probs := Parse("d.md", src)
	wantProblems(t, probs, `d.md:7: duplicate anchor id "x" (first declared on line 1)`)
}

func TestParseInvalidAnchorID(t *testing.T) {
	_, probs := Parse("d.md", lines(``, `<a id="has space"></a>`))
	wantProblems(t, probs, `d.md:2: anchor id "has space" contains ' '; ids may contain only letters, digits, '.', '-', '_', '/' and '$'`)
}

func TestParseEmptyAnchorID(t *testing.T) {
	_, probs := Parse("d.md", lines(`text <a id=""></a>`))
	wantProblems(t, probs, `d.md:1: empty anchor id`)
}

func TestParseMalformedATag(t *testing.T) {
	_, probs := Parse("d.md", lines(`<div>`, `<a id="broken></a>`, `</div>`))
	wantProblems(t, probs, `d.md:2: malformed <a> tag: unterminated quoted value of attribute id`)
}

func TestParseRowCellCount(t *testing.T) {
	src := lines(
		`| A | B |`,
		`|---|---|`,
		`| a \| still a | b |`,    // escaped pipe: 2 cells
		`| `+"`x \\| y`"+` | b |`, // escaped pipe in code span: 2 cells
		`| short |`,               // 5
		`| 1 | 2 | 3 |`,           // 6
		`no | borders`,            // 7: 2 cells
	)
	pg, probs := Parse("t.md", src)
	wantProblems(t, probs,
		`t.md:5: table row has 1 cell, but the header row (line 1) has 2`,
		`t.md:6: table row has 3 cells, but the header row (line 1) has 2`,
	)
	want := []Table{{Line: 1, Columns: 2, Rows: []TableRow{{3, 2}, {4, 2}, {5, 1}, {6, 3}, {7, 2}}}}
	if !reflect.DeepEqual(pg.Tables, want) {
		t.Errorf("tables: got %+v, want %+v", pg.Tables, want)
	}
}

// goldmark pads a header that is shorter than the delimiter row and still
// renders a table.
func TestParseDelimiterRowLongerThanHeader(t *testing.T) {
	src := lines(
		`Intro.`,
		``,
		`| A | B |`,
		`|---|---|---|`,
		`| a | b |`,
	)
	pg, probs := Parse("t.md", src)
	wantProblems(t, probs, `t.md:4: table delimiter row has 3 cells, but the header row (line 3) has 2`)
	if len(pg.Tables) != 1 {
		t.Errorf("want the table to be recorded, got %+v", pg.Tables)
	}
}

// goldmark refuses a header with more cells than the delimiter row, leaving
// a paragraph of pipes.
func TestParseDelimiterRowShorterThanHeader(t *testing.T) {
	src := lines(
		`- item`,
		``,
		`  | A | B | C |`,
		`  |---|---|`,
		`  | a | b | c |`,
	)
	pg, probs := Parse("t.md", src)
	wantProblems(t, probs, `t.md:4: table delimiter row has 2 cells, but the header row (line 3) has 3, so goldmark renders no table`)
	if len(pg.Tables) != 0 {
		t.Errorf("goldmark should not have made a table: %+v", pg.Tables)
	}
}

func TestParseNestedTables(t *testing.T) {
	src := lines(
		`> | A | B |`,
		`> |:-:|--:|`,
		`> | a |`,
		``,
		`- | X |`,
		`  | - |`,
		`  | x |`,
	)
	pg, probs := Parse("t.md", src)
	wantProblems(t, probs, `t.md:3: table row has 1 cell, but the header row (line 1) has 2`)
	want := []Table{
		{Line: 1, Columns: 2, Rows: []TableRow{{3, 1}}},
		{Line: 5, Columns: 1, Rows: []TableRow{{7, 1}}},
	}
	if !reflect.DeepEqual(pg.Tables, want) {
		t.Errorf("tables: got %+v, want %+v", pg.Tables, want)
	}
}

func TestCountCells(t *testing.T) {
	for _, tc := range []struct {
		row  string
		want int
	}{
		{"", 0},
		{"|", 0},
		{"||", 1},
		{"| a |", 1},
		{"a", 1},
		{"a | b", 2},
		{"| a | b |", 2},
		{"  | a | b |  \r", 2},
		{`| a \| b |`, 1},
		{`| a \|`, 1},
		{"| a ||", 2},
		{"| `a \\| b` | c |", 2},
	} {
		if got := countCells([]byte(tc.row)); got != tc.want {
			t.Errorf("countCells(%q) = %d, want %d", tc.row, got, tc.want)
		}
	}
}

func TestScanTags(t *testing.T) {
	type attrs = map[string]string
	for _, tc := range []struct {
		in   string
		want []attrs // one per tag; "<name>" holds the tag name
	}{
		{`<a id="x"></a>`, []attrs{{"<name>": "a", "id": "x"}}},
		{`<A ID='x' Name=y>`, []attrs{{"<name>": "a", "id": "x", "name": "y"}}},
		{`<a class="q" href = "b.md#c" id=$d/e/>`, []attrs{{"<name>": "a", "class": "q", "href": "b.md#c", "id": "$d/e/"}}},
		{`<a id="a&amp;b" id="second">`, []attrs{{"<name>": "a", "id": "a&b"}}},
		{`<a title="x > y" id="z">`, []attrs{{"<name>": "a", "title": "x > y", "id": "z"}}},
		{`<a hidden id="h">`, []attrs{{"<name>": "a", "hidden": "", "id": "h"}}},
		{`<!-- <a id="c"> --> <![CDATA[<a id="d">]]> <?pi <a id="e"> ?> </a>`, nil},
		{`<script><a id="s"></a></script><b id="after">`, []attrs{{"<name>": "script"}, {"<name>": "b", "id": "after"}}},
		{`1 < 2 <a.b <a`, []attrs{{"<name>": "a", "<err>": "missing '>'"}}},
	} {
		var got []attrs
		for _, tag := range scanTags([]byte(tc.in)) {
			m := attrs{"<name>": tag.name}
			if tag.err != "" {
				m["<err>"] = tag.err
			}
			for i, n := range tag.names {
				if _, ok := m[n]; !ok {
					m[n] = tag.vals[i]
				}
			}
			got = append(got, m)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("scanTags(%q):\n got  %v\n want %v", tc.in, got, tc.want)
		}
	}
}

// Truncated and degenerate input must still yield a page; FuzzParse explores
// further.
func TestParseHostileInput(t *testing.T) {
	for _, in := range []string{
		"", "\x00", "|", "|\n|", "<a", "<a id='", "[x](", "```", "\t|-|\n|-|", "<!--", "# <a id=x>\n",
		"| a |\n|---|\n|", "a\n|:-:|\n", "<div\n<a href=\"x\n",
	} {
		pg, _ := Parse("h.md", []byte(in))
		if pg == nil || pg.Path != "h.md" {
			t.Errorf("Parse(%q) returned %+v", in, pg)
		}
	}
}
