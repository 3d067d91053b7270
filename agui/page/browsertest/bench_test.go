package browsertest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/contractkit/contractkit/agui"
	"github.com/contractkit/contractkit/agui/page"
	"github.com/contractkit/contractkit/agui/page/pagecheck"
	contract "github.com/contractkit/contractkit/generated/agui"
)

// The budgets of the page are measured here, never asserted: make
// page-bench runs these benchmarks and prints what Docs/performance.md
// records, with the load average beside it.

var printContext sync.Once

func benchContext(b *testing.B) {
	printContext.Do(func() {
		up, _ := exec.Command("uptime").Output()
		ver, _ := exec.Command(must(chromiumPath())).CombinedOutput()
		if out, err := exec.Command(must(chromiumPath()), "--version").Output(); err == nil {
			ver = out
		}
		script, _ := site.File(page.CheckerScript)
		wasm, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.SplitN(string(script), `"`, 3)[1], `"`))
		if err != nil {
			b.Fatalf("the checker script holds no base64: %v", err)
		}
		fmt.Printf("page-bench: %s", up)
		fmt.Printf("page-bench: %s", ver)
		fmt.Printf("page-bench: agui.wasm %d bytes, gzipped %d; agui.wasm.js %d bytes, gzipped %d (as served)\n",
			len(wasm), gzSize(wasm), len(script), gzSize(script))
	})
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

func gzSize(data []byte) int {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(data)
	w.Close()
	return buf.Len()
}

// BenchmarkPageReady opens the page in a new tab with the cache disabled,
// from navigation until the checker is ready to check (the agui-ready
// mark, measured by the page from its navigation start).
func BenchmarkPageReady(b *testing.B) {
	benchContext(b)
	var ready, scripts, decoded, compiled []float64
	for i := 0; i < b.N; i++ {
		tb := &tab{}
		ctx, cancel := chromedp.NewContext(browser, chromedp.WithListener(tb.listen))
		ctx, cancelT := context.WithTimeout(ctx, time.Minute)
		tb.ctx = ctx
		openCold(b, tb)
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]float64](`Object.fromEntries(performance.getEntriesByType('mark').map(m => [m.name, m.startTime]))`))
		if err != nil {
			b.Fatal(err)
		}
		ready = append(ready, ms["agui-ready"])
		scripts = append(scripts, ms["agui-script-start"])
		decoded = append(decoded, ms["agui-wasm-decoded"])
		compiled = append(compiled, ms["agui-wasm-compiled"])
		cancelT()
		cancel()
	}
	report(b, "ms-to-scripts-run", scripts)
	report(b, "ms-to-wasm-decoded", decoded)
	report(b, "ms-to-wasm-compiled", compiled)
	report(b, "ms-to-ready", ready)
}

// openCold navigates a new tab with the browser's cache disabled, so that
// every asset comes from the server and every compilation starts afresh.
func openCold(b *testing.B, tb *tab) {
	b.Helper()
	if _, err := chromedp.Call(tb.ctx, network.Enable, network.EnableParams{}); err != nil {
		b.Fatal(err)
	}
	if _, err := chromedp.Call(tb.ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		b.Fatal(err)
	}
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(pageURL), chromedp.WaitReady(chromedp.CSS(`html[data-ready="true"]`))); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCheck512KiB chooses an accepted record of exactly
// LimitInputBytes bytes and reads, from the page, how long reading the
// file, checking it and rendering its result took.
func BenchmarkCheck512KiB(b *testing.B) {
	benchContext(b)
	dir := b.TempDir()
	rec := record512(b)
	path := writeFile(b, dir, "busy-run-512KiB.ndjson", rec)
	tb := &tab{}
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithListener(tb.listen))
	defer cancel()
	tb.ctx = ctx
	openCold(b, tb)
	var check, read, render, total []float64
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#clear")), chromedp.SetUploadFiles(chromedp.CSS("#files"), []string{path})); err != nil {
			b.Fatal(err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll('#results article.record').length === 1`)); err != nil {
			b.Fatal(err)
		}
		total = append(total, float64(time.Since(start).Microseconds())/1000)
		m, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`({...document.querySelector('#results article.record').dataset})`))
		if err != nil {
			b.Fatal(err)
		}
		if m["verdict"] != "accepted" {
			b.Fatalf("the 512 KiB record is %s", m["verdict"])
		}
		check = append(check, num(m["checkMs"]))
		read = append(read, num(m["readMs"]))
		render = append(render, num(m["renderMs"]))
	}
	fmt.Printf("page-bench: record of %d bytes (LimitInputBytes = %d)\n", len(rec), contract.LimitInputBytes)
	report(b, "ms-check", check)
	report(b, "ms-read-file", read)
	report(b, "ms-render", render)
	report(b, "ms-choose-to-shown", total)
}

// BenchmarkNativeCheck512KiB is the anchor: the same record through the
// same code (package pagecheck, as the WebAssembly checker runs it), compiled
// for this machine, in this process.
func BenchmarkNativeCheck512KiB(b *testing.B) {
	benchContext(b)
	rec := record512(b)
	var samples []float64
	for i := 0; i < b.N; i++ {
		start := time.Now()
		a := pagecheck.CheckBytes(rec, agui.Options{Source: "busy-run-512KiB.ndjson"})
		samples = append(samples, float64(time.Since(start).Microseconds())/1000)
		if !a.Accepted {
			b.Fatal("the 512 KiB record is rejected")
		}
	}
	report(b, "ms-check", samples)
}

func num(s string) float64 {
	var f float64
	fmt.Sscan(s, &f)
	return f
}

// report prints the median and the worst of the samples and reports the
// median as a metric.
func report(b *testing.B, unit string, samples []float64) {
	s := slices.Clone(samples)
	slices.Sort(s)
	med := s[len(s)/2]
	fmt.Printf("page-bench: %s %s: median %.1f ms, worst %.1f ms over %d runs\n", b.Name(), unit, med, s[len(s)-1], len(s))
	b.ReportMetric(med, unit)
}
