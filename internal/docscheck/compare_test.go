package docscheck

import (
	"strings"
	"testing"
)

const enPage = `# <a id="ai-control-protocol"></a>AI control protocol

The protocol is line based; see [wire rules](#wire-rules) and
[methods](methods.md#ai-control-protocol.method.act).

## <a id="wire-rules"></a>Wire rules

<a id="ai-control-protocol.wire.line-limit"></a>A line is at most 64 KiB.

| Field | Type | Meaning |
|-------|------|---------|
| <a id="f.id"></a>` + "`id`" + ` | string | Request id, ` + "`a \\| b`" + ` |
| ` + "`op`" + ` | string | Operation |

` + "```json" + `
{"id": "1", "op": "act"}
` + "```" + `

### <a id="errors"></a>Errors

    ERR line-too-long
`

const ruPage = `# <a id="ai-control-protocol"></a>Протокол управления ИИ

Протокол построчный; см. [правила передачи](#wire-rules) и
[методы](methods.md#ai-control-protocol.method.act).

## <a id="wire-rules"></a>Правила передачи

<a id="ai-control-protocol.wire.line-limit"></a>Строка не длиннее 64 КиБ.

| Поле | Тип | Значение |
|------|-----|----------|
| <a id="f.id"></a>` + "`id`" + ` | строка | Идентификатор запроса, ` + "`a \\| b`" + ` |
| ` + "`op`" + ` | строка | Операция |

` + "```json" + `
{"id": "1", "op": "act"}
` + "```" + `

### <a id="errors"></a>Ошибки

    ERR line-too-long
`

const (
	enPath = "Docs/en/reference/ai-control-protocol/index.md"
	ruPath = "Docs/ru/reference/ai-control-protocol/index.md"
)

// pair parses the RU page after applying edit to it, so each test states
// only its one defect.
func pair(t *testing.T, edit func(string) string) []Problem {
	t.Helper()
	en, probs := Parse(enPath, []byte(enPage))
	wantProblems(t, probs)
	ru, _ := Parse(ruPath, []byte(edit(ruPage)))
	return ComparePair(ru, en)
}

func replace(old, new string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, old) {
			panic("fixture does not contain " + old)
		}
		return strings.Replace(s, old, new, 1)
	}
}

func TestComparePairClean(t *testing.T) {
	en, _ := Parse(enPath, []byte(enPage))
	ru, probs := Parse(ruPath, []byte(ruPage))
	wantProblems(t, probs)
	if en.Headings[1].Text == ru.Headings[1].Text {
		t.Fatalf("fixture should translate heading text")
	}
	wantProblems(t, ComparePair(ru, en))
	wantProblems(t, ComparePair(en, ru))
}

func TestComparePairHeadingLevel(t *testing.T) {
	wantProblems(t, pair(t, replace("### <a id=\"errors\">", "## <a id=\"errors\">")),
		ruPath+`:19: heading 3 (line 19) is level 2 with anchors [errors], `+enPath+` heading 3 (line 19) is level 3 with anchors [errors]`)
}

func TestComparePairHeadingAnchors(t *testing.T) {
	wantProblems(t, pair(t, replace(`## <a id="wire-rules"></a>Правила передачи`, `<a id="wire-rules"></a>`+"\n## Правила передачи")),
		ruPath+`:7: heading 2 (line 7) is level 2 with anchors [], `+enPath+` heading 2 (line 6) is level 2 with anchors [wire-rules]`)
}

func TestComparePairExtraHeading(t *testing.T) {
	wantProblems(t, pair(t, func(s string) string { return s + "\n## <a id=\"extra\"></a>Ещё\n" }),
		ruPath+`:23: anchor 6 (line 23) is "extra", `+enPath+` has only 5 anchors`,
		ruPath+`:23: heading 4 (line 23) is level 2 with anchors [extra], `+enPath+` has only 3 headings`,
	)
}

func TestComparePairMissingAnchor(t *testing.T) {
	wantProblems(t, pair(t, replace(`<a id="ai-control-protocol.wire.line-limit"></a>`, ``)),
		ruPath+`:12: anchor 3 (line 12) is "f.id", `+enPath+` anchor 3 (line 8) is "ai-control-protocol.wire.line-limit" (4 anchors here, 5 there)`)
}

func TestComparePairCodeInfo(t *testing.T) {
	wantProblems(t, pair(t, replace("```json", "```jsonc")),
		ruPath+`:15: code block 1 (line 15) has info "jsonc", `+enPath+` code block 1 (line 15) has info "json"`)
}

func TestComparePairCodeText(t *testing.T) {
	wantProblems(t, pair(t, replace(`"op": "act"`, `"op": "действие"`)),
		ruPath+`:15: code block 1 (line 15) differs from `+enPath+` code block 1 (line 15) in its line 1: "{\"id\": \"1\", \"op\": \"действие\"}\n" vs "{\"id\": \"1\", \"op\": \"act\"}\n"`)
}

func TestComparePairMissingCodeBlock(t *testing.T) {
	wantProblems(t, pair(t, replace("    ERR line-too-long\n", "")),
		ruPath+`:15: has only 1 code block, `+enPath+` code block 2 (line 21) has info "" and 1 line`)
}

func TestComparePairTableRows(t *testing.T) {
	wantProblems(t, pair(t, replace("| `op` | строка | Операция |\n", "")),
		ruPath+`:10: table 1 (line 10) has 3 columns and 1 row, `+enPath+` table 1 (line 10) has 3 columns and 2 rows`)
}

func TestComparePairTableColumns(t *testing.T) {
	wantProblems(t, pair(t, func(s string) string {
		s = replace("| Поле | Тип | Значение |", "| Поле | Тип |")(s)
		s = replace("|------|-----|----------|", "|------|-----|")(s)
		s = replace("| <a id=\"f.id\"></a>`id` | строка | Идентификатор запроса, `a \\| b` |", "| <a id=\"f.id\"></a>`id` | строка |")(s)
		return replace("| `op` | строка | Операция |", "| `op` | строка |")(s)
	}),
		ruPath+`:10: table 1 (line 10) has 2 columns and 2 rows, `+enPath+` table 1 (line 10) has 3 columns and 2 rows`)
}

func TestComparePairTableCount(t *testing.T) {
	wantProblems(t, pair(t, func(s string) string { return s + "\n| A |\n|---|\n| a |\n" }),
		ruPath+`:23: table 2 (line 23) has 1 column and 1 row, `+enPath+` has only 1 table`)
}

func TestComparePairNil(t *testing.T) {
	if got := ComparePair(nil, &Page{}); got != nil {
		t.Errorf("got %v", got)
	}
}
