package browsertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/contractkit/contractkit/agui/page"
	contract "github.com/contractkit/contractkit/generated/agui"
)

// The whole run is bounded: a stuck browser or server cannot hold CI.
const (
	runTimeout = 15 * time.Minute
	tabTimeout = 4 * time.Minute
)

var (
	repoRoot string
	aguiBin  string
	pageURL  string // the page's URL, percent-encoded, as agui serve prints it
	baseURL  string // scheme, host and port
	browser  context.Context
	site     *page.Site
)

func TestMain(m *testing.M) {
	code, err := setup(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsertest:", err)
		code = 1
	}
	os.Exit(code)
}

func setup(m *testing.M) (int, error) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		return 1, err
	}
	repoRoot = root
	// The site this test binary embeds is the one agui embeds: both are
	// built from agui/page/site, whose checker is committed.
	if site, err = page.Embedded(); err != nil {
		return 1, err
	}
	if err := site.Complete(); err != nil {
		return 1, err
	}
	tmp, err := os.MkdirTemp("", "browsertest")
	if err != nil {
		return 1, err
	}
	defer os.RemoveAll(tmp)
	aguiBin = filepath.Join(tmp, "agui")
	build := exec.Command("go", "build", "-o", aguiBin, "./cmd/agui")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		return 1, fmt.Errorf("go build ./cmd/agui: %v\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	serve := exec.CommandContext(ctx, aguiBin, "serve", "--port", "0")
	stdout, err := serve.StdoutPipe()
	if err != nil {
		return 1, err
	}
	serve.Stderr = os.Stderr
	if err := serve.Start(); err != nil {
		return 1, err
	}
	defer func() {
		serve.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { serve.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			serve.Process.Kill()
		}
	}()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		return 1, errors.New("agui serve printed nothing")
	}
	first := lines.Text()
	i := strings.Index(first, "http://")
	if i < 0 {
		return 1, fmt.Errorf("agui serve printed no URL: %q", first)
	}
	pageURL = strings.TrimSpace(first[i:])
	baseURL = pageURL[:strings.Index(pageURL[len("http://"):], "/")+len("http://")]
	go func() {
		for lines.Scan() {
		}
	}()

	chromium, err := chromiumPath()
	if err != nil {
		return 1, err
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		// The machine's network is closed: Chromium's own background
		// connections would only fail, noisily, and are no part of the page.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"),
		chromedp.UserDataDir(filepath.Join(tmp, "profile")),
		chromedp.WindowSize(1200, 900),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil {
		return 1, fmt.Errorf("starting %s: %w", chromium, err)
	}
	browser = bctx
	return m.Run(), nil
}

func chromiumPath() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium on PATH: make browser-test installs Debian's chromium with apt-get; or set CHROMIUM")
}

// tab is one browser tab on the page, with what it requested and what
// the page threw.
type tab struct {
	t   *testing.T
	ctx context.Context

	mu         sync.Mutex
	requests   []string
	docHeaders network.Headers
	exceptions []string
}

// openTab opens the page in a new tab and waits until its checker is
// ready. Every request the tab makes is recorded.
func openTab(t *testing.T) *tab {
	return openURL(t, pageURL, true)
}

func openURL(t *testing.T, url string, waitReady bool) *tab {
	t.Helper()
	tb := &tab{t: t}
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithListener(tb.listen))
	ctx, cancelTimeout := context.WithTimeout(ctx, tabTimeout)
	tb.ctx = ctx
	t.Cleanup(func() { cancelTimeout(); cancel() })
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("Network.enable: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		t.Fatalf("Network.setCacheDisabled: %v", err)
	}
	tb.do(chromedp.Navigate(url))
	if waitReady {
		tb.do(chromedp.WaitReady(chromedp.CSS(`html[data-ready="true"]`)))
	}
	t.Cleanup(func() {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		for _, e := range tb.exceptions {
			t.Errorf("the page threw: %s", e)
		}
	})
	return tb
}

// listen records requests, the document's headers and uncaught exceptions.
func (tb *tab) listen(ev any) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		tb.requests = append(tb.requests, e.Request.URL)
	case *network.EventResponseReceived:
		if e.Type == network.ResourceTypeDocument {
			tb.docHeaders = e.Response.Headers
		}
	case *runtime.EventExceptionThrown:
		d := e.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		tb.exceptions = append(tb.exceptions, msg)
	}
}

func (tb *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, actions...); err != nil {
		tb.t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression in the page, awaiting a promise,
// and returns its JSON value decoded as T.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("evaluating %.200s: %v", expr, err)
	}
	return v
}

// card is a record's result as the page shows it.
type card struct {
	Source  string  `json:"source"`
	Kind    string  `json:"kind"`
	Verdict string  `json:"verdict"`
	Form    string  `json:"form"`
	CheckMs float64 `json:"checkMs"`
	Text    string  `json:"text"`
	JSON    *string `json:"json"`
}

const cardsJS = `Array.from(document.querySelectorAll('#results article.record')).map(a => ({
  source: a.dataset.source, kind: a.dataset.kind, verdict: a.dataset.verdict, form: a.dataset.form,
  checkMs: Number(a.dataset.checkMs), text: a.textContent,
  json: a.querySelector('pre.json') ? a.querySelector('pre.json').textContent : null}))`

func (tb *tab) cards() []card {
	tb.t.Helper()
	return eval[[]card](tb, cardsJS)
}

// waitCards waits until the page shows n results.
func (tb *tab) waitCards(n int) {
	tb.t.Helper()
	_, err := chromedp.Run(tb.ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelectorAll('#results article.record').length === %d`, n),
		chromedp.WithPollingTimeout(2*time.Minute)))
	if err != nil {
		tb.t.Fatalf("waiting for %d results: %v", n, err)
	}
}

// choose clears the results and chooses files through the file input
// (DOM.setFileInputFiles), then waits for their results.
func (tb *tab) choose(paths ...string) []card {
	tb.t.Helper()
	tb.do(chromedp.Click(chromedp.CSS("#clear")), chromedp.SetUploadFiles(chromedp.CSS("#files"), paths))
	tb.waitCards(len(paths))
	return tb.cards()
}

// jsonViews switches every result to its JSON view and reads them.
func (tb *tab) jsonViews() []card {
	tb.t.Helper()
	eval[bool](tb, `Array.from(document.querySelectorAll('#results article.record .view-json')).forEach(b => b.click()), true`)
	return tb.cards()
}

func (tb *tab) selectProfile(name string) {
	tb.t.Helper()
	eval[string](tb, fmt.Sprintf(`(() => { const s = document.getElementById('profile'); s.value = %q; s.dispatchEvent(new Event('change')); return s.value; })()`, name))
}

func (tb *tab) text(sel string) string {
	tb.t.Helper()
	return eval[string](tb, fmt.Sprintf(`(document.querySelector(%q) || {textContent: ""}).textContent`, sel))
}

// cli runs `agui check` in dir, as a user would, and returns its standard
// output and exit code.
func cli(t *testing.T, dir string, args ...string) ([]byte, int) {
	t.Helper()
	cmd := exec.Command(aguiBin, append([]string{"check"}, args...)...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.Bytes(), 0
	case errors.As(err, &ee):
		return out.Bytes(), ee.ExitCode()
	}
	t.Fatalf("agui check: %v", err)
	return nil, 0
}

// catalog is the page catalog, as the page reads it.
func catalog(t *testing.T) map[string]any {
	t.Helper()
	data, ok := site.File(contract.PageCatalog)
	if !ok {
		t.Fatal("the site has no catalog")
	}
	var c map[string]any
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// ruleTitle returns a rule's title in a language, from the catalog.
func ruleTitle(t *testing.T, id, lang string) string { return ruleText(t, id, "title", lang) }

// ruleRequirement returns a rule's requirement in a language.
func ruleRequirement(t *testing.T, id, lang string) string {
	return ruleText(t, id, "requirement", lang)
}

func ruleText(t *testing.T, id, member, lang string) string {
	t.Helper()
	for _, r := range catalog(t)["rules"].([]any) {
		r := r.(map[string]any)
		if r["id"] == id {
			return r[member].(map[string]any)[lang].(string)
		}
	}
	t.Fatalf("no rule %s in the catalog", id)
	return ""
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
