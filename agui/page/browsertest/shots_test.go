package browsertest

import (
	"bytes"
	"fmt"
	"image"
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
// its findings. Each must be a PNG of a sensible size and, unless it is
// being retaken, look like the one the guide shows: a page that changed
// makes the guide's picture stale, and this fails until make
// page-screenshots retakes it.
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
		shown := filepath.Join(repoRoot, "Docs", lang, "how-to", "img")
		tb.shot(out, shown, "stand-page-tutorial.png", "main")
		tb.choose(good, pick(t, recs, "custom-event.json"))
		tb.shot(out, shown, "stand-page-accepted.png", "#record-0")
		tb.shot(out, shown, "stand-page-rejected.png", "#record-1")
	}
}

// shotTolerance is the share of pixels that may differ (by more than
// shotChannelDelta in a colour channel) between a fresh shot and the
// guide's: Chromium draws the same page to the same pixels, so this only
// absorbs antialiasing noise; a changed word is more.
const (
	shotTolerance    = 0.0005
	shotChannelDelta = 48
)

// shot takes a screenshot of sel into dir/name and, when dir is not the
// guide's folder shown, compares it with the guide's.
func (tb *tab) shot(dir, shown, name, sel string) {
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
	if dir == shown {
		return
	}
	raw, err := os.ReadFile(filepath.Join(shown, name))
	if err != nil {
		tb.t.Errorf("the guide's %s: %v (make page-screenshots takes it)", name, err)
		return
	}
	want, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		tb.t.Errorf("the guide's %s is not a PNG: %v", name, err)
		return
	}
	if why := differs(img, want); why != "" {
		tb.t.Errorf("%s/%s is stale: %s; retake it with make page-screenshots (this run's shot: %s)", shown, name, why, filepath.Join(dir, name))
	}
}

// differs says how got and want differ beyond the tolerance, or "".
func differs(got, want image.Image) string {
	gb, wb := got.Bounds(), want.Bounds()
	if gb.Dx() != wb.Dx() || gb.Dy() != wb.Dy() {
		return fmt.Sprintf("the page draws %dx%d, the guide shows %dx%d", gb.Dx(), gb.Dy(), wb.Dx(), wb.Dy())
	}
	diff := 0
	for y := 0; y < gb.Dy(); y++ {
		for x := 0; x < gb.Dx(); x++ {
			r1, g1, b1, _ := got.At(gb.Min.X+x, gb.Min.Y+y).RGBA()
			r2, g2, b2, _ := want.At(wb.Min.X+x, wb.Min.Y+y).RGBA()
			if far(r1, r2) || far(g1, g2) || far(b1, b2) {
				diff++
			}
		}
	}
	if share := float64(diff) / float64(gb.Dx()*gb.Dy()); share > shotTolerance {
		return fmt.Sprintf("%.2f%% of its pixels differ (at most %.2f%% may)", 100*share, 100*shotTolerance)
	}
	return ""
}

// far compares two 16-bit colour channels in 8-bit steps.
func far(a, b uint32) bool {
	a, b = a>>8, b>>8
	if a > b {
		return a-b > shotChannelDelta
	}
	return b-a > shotChannelDelta
}
