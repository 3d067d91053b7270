package browsertest

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// shotsEnv, set to "write", makes TestScreenshots write into the how-to
// guides (make page-screenshots); otherwise the shots go to a temporary
// folder, so that a CI run never changes the tree.
const shotsEnv = "AGUI_SCREENSHOTS"

// TestScreenshots takes the screenshots of the how-to guides, in Russian
// and in English: the tutorial, an accepted file and a rejected file with
// its findings. Each must be a PNG of a sensible size.
func TestScreenshots(t *testing.T) {
	dir := t.TempDir()
	recs := hostileRecords(t, dir)
	good := writeFile(t, dir, "weather.ndjson", ndjson(t, started(),
		ev{"type": contract.EventTextMessageStart, "messageId": "m1", "role": "assistant"},
		ev{"type": contract.EventTextMessageContent, "messageId": "m1", "delta": "It will rain in Tallinn tomorrow."},
		ev{"type": contract.EventTextMessageEnd, "messageId": "m1"},
		ev{"type": contract.EventStateSnapshot, "snapshot": ev{"city": "Tallinn", "sky": "rain"}},
		finished()))
	for _, lang := range []string{"ru", "en"} {
		out := filepath.Join(t.TempDir(), lang)
		if os.Getenv(shotsEnv) == "write" {
			out = filepath.Join(repoRoot, "Docs", lang, "how-to", "img")
		}
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		tb := openTab(t)
		if _, err := chromedp.Run(tb.ctx, chromedp.EmulateViewport(1000, 800)); err != nil {
			t.Fatal(err)
		}
		if lang == "en" {
			tb.do(chromedp.Click(chromedp.CSS("#lang")))
		}
		tb.do(clickTutorial())
		tb.waitCards(1)
		tb.shot(out, "stand-page-tutorial.png", "main")
		tb.choose(good, pick(t, recs, "custom-event.json"))
		tb.shot(out, "stand-page-accepted.png", "#record-0")
		tb.shot(out, "stand-page-rejected.png", "#record-1")
	}
}

func (tb *tab) shot(dir, name, sel string) {
	tb.t.Helper()
	data, err := chromedp.Run(tb.ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		tb.t.Fatalf("screenshot of %s: %v", sel, err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		tb.t.Fatalf("%s is not a PNG: %v", name, err)
	}
	if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 100 {
		tb.t.Errorf("%s is %dx%d, too small to show the result", name, b.Dx(), b.Dy())
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		tb.t.Fatal(err)
	}
}
