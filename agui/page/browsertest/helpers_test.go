package browsertest

import (
	"fmt"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

func clickTutorial() chromedp.Action[chromedp.Void] { return chromedp.Click(chromedp.CSS("#tutorial")) }

func clickHelp() chromedp.Action[chromedp.Void] { return chromedp.Click(chromedp.CSS("#help summary")) }

// drop drags files from outside the page onto the element sel, as a user
// drops them from a file manager (Input.dispatchDragEvent).
func (tb *tab) drop(sel string, paths ...string) {
	tb.t.Helper()
	box := eval[map[string]float64](tb, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()`, sel))
	data := &input.DragData{Items: []*input.DragDataItem{}, Files: paths, DragOperationsMask: 1}
	for _, typ := range []input.DispatchDragEventType{input.DispatchDragEventTypeDragEnter, input.DispatchDragEventTypeDragOver, input.DispatchDragEventTypeDrop} {
		if _, err := chromedp.Call(tb.ctx, input.DispatchDragEvent, input.DispatchDragEventParams{Type: typ, X: box["x"], Y: box["y"], Data: data}); err != nil {
			tb.t.Fatalf("Input.dispatchDragEvent %s: %v", typ, err)
		}
	}
}
