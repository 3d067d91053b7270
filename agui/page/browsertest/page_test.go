package browsertest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/contractkit/contractkit/agui/page"
	contract "github.com/contractkit/contractkit/generated/agui"
)

func pick(t *testing.T, paths []string, name string) string {
	t.Helper()
	for _, p := range paths {
		if filepath.Base(p) == name {
			return p
		}
	}
	t.Fatalf("no record %s", name)
	return ""
}

// The page shows every item of показ_результата, in Russian by default and
// in English on request, with labelled, keyboard-operable controls and the
// verdict announced.
//
//contract:proves ag-ui.view.page
func TestPageShowsResults(t *testing.T) {
	dir := t.TempDir()
	recs := hostileRecords(t, dir)
	tb := openTab(t)

	// Russian by default, the stand profile selected, every control labelled.
	if lang := eval[string](tb, `document.documentElement.lang`); lang != "ru" {
		t.Errorf("the page's language is %q, want ru by default", lang)
	}
	if p := eval[string](tb, `document.getElementById('profile').value`); p != contract.ProfileStand {
		t.Errorf("the default profile is %q", p)
	}
	unlabelled := eval[[]string](tb, `Array.from(document.querySelectorAll('input, select, button')).filter(e =>
		!(e.labels && e.labels.length > 0 && e.labels[0].textContent.trim()) && !e.textContent.trim() && !e.getAttribute('aria-label')).map(e => e.id || e.outerHTML)`)
	if len(unlabelled) > 0 {
		t.Errorf("controls without a label: %v", unlabelled)
	}
	if live := eval[string](tb, `document.getElementById('status').getAttribute('aria-live')`); live != "polite" {
		t.Errorf("the verdict region is aria-live=%q", live)
	}

	// Keyboard only: Tab to the tutorial button and press Enter.
	tb.do(chromedp.Focus(chromedp.CSS("#lang")))
	for i := 0; i < 10 && eval[string](tb, `document.activeElement.id`) != "tutorial"; i++ {
		tb.do(chromedp.KeyEvent(kb.Tab))
	}
	if id := eval[string](tb, `document.activeElement.id`); id != "tutorial" {
		t.Fatalf("Tab did not reach the tutorial button (at %q)", id)
	}
	tb.do(chromedp.KeyEvent(kb.Enter))
	tb.waitCards(1)
	tut := tb.cards()[0]
	if tut.Kind != "tutorial" || !strings.Contains(tut.Text, "УЧЕБНЫЙ ПРИМЕР") || !strings.Contains(tut.Text, "не файл, который вы выбрали") {
		t.Errorf("the tutorial is not labelled as such: %.300s", tut.Text)
	}
	if !strings.Contains(tb.text("#status"), "ПРИНЯТА") {
		t.Errorf("the verdict is not announced: %q", tb.text("#status"))
	}
	// The tutorial's declared outcome and state are shown, not applied.
	for _, want := range []string{"остановка", "confirm-umbrella", "Остановки только показываются", "Итоговое состояние (показано, нигде не применено)", `"forecast"`, "Tallinn"} {
		if !strings.Contains(tut.Text, want) {
			t.Errorf("the tutorial's result lacks %q", want)
		}
	}

	// Chosen files beside the tutorial: a rejected one with its finding, an
	// unfinished one, a run error whose reason is literal data.
	tb.do(chromedp.SetUploadFiles(chromedp.CSS("#files"), []string{pick(t, recs, "custom-event.json"), pick(t, recs, "unfinished.ndjson"), pick(t, recs, "run-error.ndjson")}))
	tb.waitCards(4)
	cards := tb.cards()
	if cards[0].Kind != "tutorial" || cards[1].Kind != "file" || strings.Contains(cards[1].Text, "УЧЕБНЫЙ ПРИМЕР") || !strings.Contains(cards[1].Text, "Выбранный файл") {
		t.Errorf("a chosen file is not kept apart from the tutorial: %q / %.200s", cards[1].Kind, cards[1].Text)
	}
	status := tb.text("#status")
	if !strings.Contains(status, "Проверено записей: 3") || !strings.Contains(status, "принято: 2; отклонено: 1") {
		t.Errorf("the verdicts are not announced: %q", status)
	}
	row := eval[[]string](tb, `Array.from(document.querySelectorAll('#results article.record')[1].querySelectorAll('tr.finding td')).map(td => td.textContent)`)
	ruleRU := ruleTitle(t, contract.RuleUnsupportedCustomEvents, "ru")
	if len(row) != 5 || row[0] != "1" || row[1] != "/type" || row[2] != contract.RuleUnsupportedCustomEvents || row[3] != ruleRU || !strings.Contains(row[4], "CUSTOM") {
		t.Errorf("the finding is shown as %q, want event 1, /type, %s, %q and the reason", row, contract.RuleUnsupportedCustomEvents, ruleRU)
	}
	unfinished := eval[[]string](tb, `Array.from(document.querySelectorAll('#results article.record')[2].querySelectorAll('.unfinished li')).map(li => li.textContent)`)
	if !slices.Equal(unfinished, []string{"запуск r", "сообщение open-message", "вызов инструмента open-call", "шаг open-step"}) {
		t.Errorf("unfinished items: %q", unfinished)
	}
	if !strings.Contains(cards[3].Text, evilScript+evilBidi) || !strings.Contains(cards[3].Text, "сообщение об ошибке (как прислано)") {
		t.Errorf("the run error's reason is not shown literally: %.400s", cards[3].Text)
	}

	// Drag and drop: a file dropped on the drop zone is checked like a
	// chosen one.
	tb.drop("#drop", pick(t, recs, "tutorial-lookalike.json"))
	tb.waitCards(5)
	if c := tb.cards()[4]; c.Kind != "file" || c.Source != "tutorial-lookalike.json" || c.Verdict != "accepted" || strings.Contains(c.Text, "УЧЕБНЫЙ ПРИМЕР") {
		t.Errorf("the dropped file: %+v", c)
	}

	// English on request, the rule's title from the spec in English.
	tb.do(chromedp.Click(chromedp.CSS("#lang")))
	if lang := eval[string](tb, `document.documentElement.lang`); lang != "en" {
		t.Errorf("after the switch the page's language is %q", lang)
	}
	row = eval[[]string](tb, `Array.from(document.querySelectorAll('#results article.record')[1].querySelectorAll('tr.finding td')).map(td => td.textContent)`)
	if len(row) != 5 || row[3] != ruleTitle(t, contract.RuleUnsupportedCustomEvents, "en") {
		t.Errorf("in English the finding is shown as %q", row)
	}
	if c := tb.cards(); !strings.Contains(c[0].Text, "TUTORIAL EXAMPLE") || !strings.Contains(c[1].Text, "REJECTED") {
		t.Errorf("the results are not in English: %.200s", c[0].Text)
	}

	// The output bound: the compact form with its notice, then the refusal.
	tb.selectProfile(contract.ProfileAgUI11)
	cards = tb.choose(pick(t, recs, "compact-output.ndjson"), pick(t, recs, "refused-output.ndjson"), pick(t, recs, "numbers.ndjson"))
	if cards[0].Form != "compact" || !strings.Contains(cards[0].Text, "shown compactly") {
		t.Errorf("compact output: form %q", cards[0].Form)
	}
	size := eval[int](tb, `new TextEncoder().encode(document.querySelectorAll('#results article.record')[0].textContent).length`)
	if size > contract.LimitOutputBytes {
		t.Errorf("the compact result renders %d bytes, more than %d", size, contract.LimitOutputBytes)
	}
	if cards[1].Form != "refused" || !strings.Contains(cards[1].Text, "Display refused") || strings.Contains(cards[1].Text, "xxxxxxxx") || !strings.Contains(cards[1].Text, contract.RuleViewOutputBound) {
		t.Errorf("refused output: form %q, %.300s", cards[1].Form, cards[1].Text)
	}
	// Numbers are shown as the record wrote them, never as JavaScript
	// would print them after parsing.
	for _, lit := range []string{"1.50", "1E2", "1e400", "-0.0"} {
		if !strings.Contains(cards[2].Text, lit) {
			t.Errorf("the state does not show the number %s as written: %.400s", lit, cards[2].Text)
		}
	}

	// A tool result that answers no call the record started is shown as
	// a message of its own, naming the call it answers, as the command
	// line shows it.
	orphan := filepath.Join(dir, "orphan-result.ndjson")
	if err := os.WriteFile(orphan, []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"TOOL_CALL_RESULT","messageId":"tm","toolCallId":"zz","content":"orphan result"}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A tool message a snapshot restates says why the tool failed.
	failed := filepath.Join(dir, "failed-tool.ndjson")
	if err := os.WriteFile(failed, []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}
{"type":"MESSAGES_SNAPSHOT","messages":[{"id":"tm","role":"tool","content":"","toolCallId":"c1","error":"disk full"}]}
{"type":"RUN_FINISHED","threadId":"t","runId":"r"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	tb.choose(orphan, failed)
	msgs := eval[[]string](tb, `Array.from(document.querySelectorAll('#results article.record li.message')).map(li => li.textContent)`)
	if len(msgs) != 2 || !strings.Contains(msgs[0], "result of tool call") || !strings.Contains(msgs[0], "zz") || !strings.Contains(msgs[0], "orphan result") {
		t.Errorf("the tool result of no started call is shown as %q, want one message naming the call zz and its content", msgs)
	}
	if len(msgs) == 2 && (!strings.Contains(msgs[1], "c1") || !strings.Contains(msgs[1], "the tool failed") || !strings.Contains(msgs[1], "disk full")) {
		t.Errorf("the failed tool's message is shown as %q, want the call c1 and why it failed", msgs[1])
	}
}

// Record content is only ever text: no element or script of a record
// appears, nothing of it runs, and it is shown literally, its direction
// isolated.
//
//contract:proves ag-ui.view.page-text
func TestRecordContentIsText(t *testing.T) {
	dir := t.TempDir()
	recs := hostileRecords(t, dir)
	tb := openTab(t)
	scripts := eval[int](tb, `document.scripts.length`)
	cards := tb.choose(pick(t, recs, "xss.ndjson"), pick(t, recs, "lone-surrogate.ndjson"), pick(t, recs, "lone-surrogate-key.ndjson"), pick(t, recs, "run-error.ndjson"))
	report := cards[0].Text
	for _, lit := range []string{evilImg, evilScript, evilBidi, evilURL} {
		if !strings.Contains(report, lit) {
			t.Errorf("the report does not show %q literally", lit)
		}
	}
	if cards[0].Verdict != "accepted" {
		t.Errorf("the hostile but well-formed record is %s", cards[0].Verdict)
	}
	for _, c := range cards[1:3] {
		if c.Verdict != "rejected" || !strings.Contains(c.Text, contract.RuleReaderUnpairedSurrogates) {
			t.Errorf("%s: a lone surrogate is not refused by %s: %.300s", c.Source, contract.RuleReaderUnpairedSurrogates, c.Text)
		}
	}
	// The JSON view shows the same text literally.
	views := tb.jsonViews()
	if views[0].JSON == nil || !strings.Contains(*views[0].JSON, `<img src=x onerror=\"window.__pwned=1\">`) {
		t.Error("the JSON view does not show the markup literally")
	}
	tb.do(chromedp.Click(chromedp.CSS("#results article.record .view-report")))
	checks := eval[map[string]any](tb, `({
		imgs: document.querySelectorAll('img').length,
		scripts: document.scripts.length,
		pwned: window.__pwned === undefined ? null : window.__pwned,
		// every element holding record text is a data node of the page
		foreign: Array.from(document.querySelectorAll('#results *')).filter(e => !['ARTICLE','HEADER','H2','H3','SPAN','BDI','PRE','P','DIV','SECTION','UL','LI','STRONG','TABLE','CAPTION','THEAD','TBODY','TR','TH','TD','CODE','BUTTON','DETAILS','SUMMARY'].includes(e.tagName)).map(e => e.tagName),
		notIsolated: Array.from(document.querySelectorAll('#results .data')).filter(e => getComputedStyle(e).unicodeBidi !== 'isolate').length,
		title: document.title,
	})`)
	if checks["imgs"] != 0.0 || checks["scripts"] != float64(scripts) || checks["pwned"] != nil {
		t.Errorf("record content became markup or ran: %v", checks)
	}
	if f := checks["foreign"].([]any); len(f) > 0 {
		t.Errorf("elements the page does not make: %v", f)
	}
	if checks["notIsolated"] != 0.0 {
		t.Errorf("%v data nodes do not isolate their direction", checks["notIsolated"])
	}
	if checks["title"] != "Проверка записей AG-UI" {
		t.Errorf("the record changed the page's title to %q", checks["title"])
	}
	// The programmatic input returns data, never renders or runs it.
	thread := eval[string](tb, fmt.Sprintf(`aguiStand.check([{type: "RUN_STARTED", threadId: %q, runId: "r"}]).result.runs[0].threadId`, evilImg))
	if thread != evilImg || eval[int](tb, `document.querySelectorAll('img').length`) != 0 {
		t.Errorf("the programmatic input's result is %q", thread)
	}
}

// The page contacts no one: agui serve sends the page's policy with
// connect-src 'none', the policy is in force, and the page requests only
// its own assets while it loads, checks files and the tutorial, switches
// language and takes programmatic input.
//
//contract:proves ag-ui.stand.page-offline
func TestPageRequestsNothingElse(t *testing.T) {
	dir := t.TempDir()
	recs := hostileRecords(t, dir)
	tb := openTab(t)
	tb.choose(pick(t, recs, "xss.ndjson"), pick(t, recs, "custom-event.json"))
	tb.do(clickTutorial(), chromedp.Click(chromedp.CSS("#lang")), chromedp.Click(chromedp.CSS("#help summary")))
	eval[bool](tb, `aguiStand.check([{type: "RUN_STARTED", threadId: "https://agent.example/t", runId: "r"}]).accepted`)
	// The policy is in force: a fetch from the page is refused.
	blocked := eval[string](tb, `fetch('/').then(() => 'fetched', e => 'blocked: ' + e.name)`)
	if !strings.HasPrefix(blocked, "blocked") {
		t.Errorf("a fetch from the page was not blocked: %s", blocked)
	}
	tb.mu.Lock()
	requests := slices.Clone(tb.requests)
	csp, _ := tb.docHeaders["Content-Security-Policy"].(string)
	tb.mu.Unlock()
	if !strings.Contains(csp, "connect-src 'none'") || !strings.Contains(csp, "default-src 'none'") || csp != site.Policy() {
		t.Errorf("the page's policy header is %q", csp)
	}
	base, _ := url.Parse(baseURL)
	// Headless Chromium does not fetch the icon; a browser with a window
	// may, and the icon is one of the page's own assets.
	want := []string{contract.PagePath, "/stand.css", page.CatalogScript, page.WasmExec, page.CheckerScript, "/input.js", "/stand.js"}
	var got []string
	for _, r := range requests {
		u, err := url.Parse(r)
		if err != nil || u.Host != base.Host || u.Scheme != "http" {
			t.Errorf("the page requested %s, which is not one of its own assets", r)
			continue
		}
		got = append(got, u.Path)
	}
	slices.Sort(got)
	got = slices.Compact(got)
	for _, p := range got {
		if _, ok := site.File(p); !ok {
			t.Errorf("the page requested %s, which is not one of its assets", p)
		}
	}
	for _, p := range want {
		if !slices.Contains(got, p) {
			t.Errorf("the page did not request its asset %s: the recording misses requests", p)
		}
	}
	t.Logf("%d requests, all to the page's own assets: %q", len(requests), got)
}

// A catalog that does not describe the checker's contract keeps the page
// from checking: it says so, and its controls stay disabled.
//
//contract:proves ag-ui.view.page-checker
func TestCatalogMismatchRefused(t *testing.T) {
	fsys := fstest.MapFS{}
	for _, p := range site.Paths() {
		if p == page.CatalogScript {
			continue
		}
		data, _ := site.File(p)
		if p == contract.PageCatalog {
			data = []byte(strings.Replace(string(data), contract.Digest, "sha256:"+strings.Repeat("0", 64), 1))
		}
		fsys[strings.TrimPrefix(p, "/")] = &fstest.MapFile{Data: data}
	}
	s, err := page.New(fsys)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	tb := openURL(t, srv.URL+page.EscapePath(contract.PagePath), false)
	_, err = chromedp.Run(tb.ctx, chromedp.Poll[bool](`document.getElementById('checker-state').className === 'error'`))
	if err != nil {
		t.Fatalf("the page did not refuse a mismatched catalog: %v", err)
	}
	state := tb.text("#checker-state")
	disabled := eval[bool](tb, `document.getElementById('files').disabled && document.getElementById('tutorial').disabled`)
	if !strings.Contains(state, "не соответствует проверяющему") || !disabled {
		t.Errorf("state %q, controls disabled %v", state, disabled)
	}
}

// The static folder make page writes (Site.WriteDir) works from any static file server,
// which sends no policy: the page's own <meta> policy still forbids every
// connection, and the page checks as it does under agui serve.
//
//contract:proves ag-ui.view.page ag-ui.stand.page-offline
func TestStaticFolder(t *testing.T) {
	dir := t.TempDir()
	if err := site.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	tb := openURL(t, srv.URL+page.EscapePath(contract.PagePath), true)
	if csp, _ := tb.docHeaders["Content-Security-Policy"].(string); csp != "" {
		t.Fatalf("the plain file server sent a policy: %q", csp)
	}
	tb.do(clickTutorial())
	tb.waitCards(1)
	if c := tb.cards()[0]; c.Kind != "tutorial" || c.Verdict != "accepted" {
		t.Errorf("tutorial from the static folder: %+v", c)
	}
	if blocked := eval[string](tb, `fetch('/').then(() => 'fetched', e => 'blocked')`); blocked != "blocked" {
		t.Errorf("without a policy header, a fetch from the page was %s", blocked)
	}
}

// The language switch spells every text of the page again, the checker's
// state and the status line included: an English page says nothing in
// Russian, and back.
func TestLanguageSwitchStatus(t *testing.T) {
	tb := openTab(t)
	if got := tb.text("#checker-state"); got != "Проверяющий готов." {
		t.Fatalf("checker state before the switch: %q", got)
	}
	tb.do(clickTutorial())
	tb.waitCards(1)
	ru := tb.text("#status")
	if !strings.Contains(ru, "ПРИНЯТА") {
		t.Fatalf("status before the switch: %q", ru)
	}
	tb.do(chromedp.Click(chromedp.CSS("#lang")))
	if got := tb.text("#checker-state"); got != "The checker is ready." {
		t.Errorf("checker state in English: %q", got)
	}
	en := tb.text("#status")
	if en == ru || !strings.Contains(en, "ACCEPTED") {
		t.Errorf("status in English: %q (in Russian it was %q)", en, ru)
	}
	tb.do(chromedp.Click(chromedp.CSS("#lang")))
	if got := tb.text("#checker-state"); got != "Проверяющий готов." {
		t.Errorf("checker state back in Russian: %q", got)
	}
	if got := tb.text("#status"); got != ru {
		t.Errorf("status back in Russian: %q, want %q", got, ru)
	}
}
