// Package browsertest drives the stand page in Debian's Chromium, headless,
// through the DevTools protocol (github.com/chromedp/chromedp): it serves the
// page with the real `agui serve`, chooses files with DOM.setFileInputFiles,
// reads results from the DOM, records every network request, and compares
// what the page shows with `agui check --json`.
//
// It is a module of its own so that chromedp and the DevTools protocol
// bindings never become dependencies of contractkit: `go test ./...` in the
// main module does not see these tests; `make browser-test` runs them. The
// agui they serve the page with is built by go build alone, with the
// checker the repository commits: what go install gives a user.
package browsertest
