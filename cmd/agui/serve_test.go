package main

import (
	"bytes"
	"compress/gzip"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/contractkit/contractkit/agui/page"
	contract "github.com/contractkit/contractkit/generated/agui"
)

// fakeSite is a small site of test files, with or without its checker, so
// that these tests can take the checker away and need not serve the
// megabytes of the real one.
func fakeSite(t *testing.T, checker bool) func() (*page.Site, error) {
	t.Helper()
	fsys := fstest.MapFS{
		strings.TrimPrefix(contract.PagePath, "/"):    {Data: []byte(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; connect-src 'none'">page`)},
		strings.TrimPrefix(contract.PageCatalog, "/"): {Data: []byte(`{}`)},
	}
	if checker {
		var gz bytes.Buffer
		w := gzip.NewWriter(&gz)
		w.Write([]byte("checker"))
		w.Close()
		fsys[strings.TrimPrefix(page.WasmExec, "/")] = &fstest.MapFile{Data: []byte("loader")}
		fsys[strings.TrimPrefix(page.CheckerScript, "/")+".gz"] = &fstest.MapFile{Data: gz.Bytes()}
	}
	return func() (*page.Site, error) { return page.New(fsys) }
}

func serveArgs(t *testing.T, site func() (*page.Site, error), args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	stop := make(chan struct{})
	close(stop)
	code := serveCommand(args, &out, &errb, site, stop, nil)
	return code, out.String(), errb.String()
}

//contract:proves ag-ui.stand.page-offline
func TestServeRefusesNonLoopback(t *testing.T) {
	for _, host := range []string{"0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.com", "localhost.example.com", ""} {
		code, out, errOut := serveArgs(t, fakeSite(t, true), "--port", "0", "--host", host)
		if code != exitUnusable || out != "" || !strings.Contains(errOut, "not a loopback address") || !strings.Contains(errOut, contract.RuleStandPageOffline) {
			t.Errorf("--host %q: exit %d, stdout %q, stderr %q", host, code, out, errOut)
		}
	}
	for _, host := range []string{"127.0.0.1", "localhost", "127.0.0.2"} {
		if code, out, errOut := serveArgs(t, fakeSite(t, true), "--port", "0", "--host", host); code != exitAccepted || !strings.Contains(out, "http://127.0.0.") {
			t.Errorf("--host %q: exit %d %q %q", host, code, out, errOut)
		}
	}
}

func TestServeUsage(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		site func() (*page.Site, error)
		want string
	}{
		"no checker":     {[]string{"--port", "0"}, fakeSite(t, false), "make page"},
		"bad port":       {[]string{"--port", "70000"}, fakeSite(t, true), "not a port"},
		"unknown flag":   {[]string{"--open"}, fakeSite(t, true), "agui serve --help"},
		"extra argument": {[]string{"file.json"}, fakeSite(t, true), "unexpected argument"},
	} {
		if code, _, errOut := serveArgs(t, c.site, c.args...); code != exitUnusable || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q", name, code, errOut)
		}
	}
	code, out, _ := serveArgs(t, fakeSite(t, true), "--help")
	if code != exitAccepted || !strings.Contains(out, "loopback") || !strings.Contains(out, "--port") {
		t.Errorf("help: %d %q", code, out)
	}
	if code, out, _ := runAgui(t, "", "--help"); code != exitAccepted || !strings.Contains(out, "agui serve") {
		t.Errorf("agui --help does not name serve: %q", out)
	}
}

// agui serve listens, prints the page's URL, serves the page at it with
// its policy, and stops when told.
func TestServeServes(t *testing.T) {
	// The command writes before it signals ready and before it returns,
	// and the test reads only after those: no lock is needed.
	var out, errb bytes.Buffer
	stop := make(chan struct{})
	ready := make(chan string, 1)
	done := make(chan int, 1)
	go func() { done <- serveCommand([]string{"--port", "0"}, &out, &errb, fakeSite(t, true), stop, ready) }()
	var url string
	select {
	case url = <-ready:
	case code := <-done:
		t.Fatalf("agui serve ended with %d: %s", code, errb.String())
	case <-time.After(10 * time.Second):
		t.Fatal("agui serve did not start")
	}
	if !strings.Contains(out.String(), url) || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, page.EscapePath(contract.PagePath)) {
		t.Errorf("printed %q, URL %q", out.String(), url)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasSuffix(string(b), "page") || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "connect-src 'none'") {
		t.Errorf("GET %s: %d %q %q", url, resp.StatusCode, b, resp.Header.Get("Content-Security-Policy"))
	}
	close(stop)
	select {
	case code := <-done:
		if code != exitAccepted || !strings.Contains(out.String(), "stopped") {
			t.Errorf("stop: exit %d, %q", code, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("agui serve did not stop")
	}
}

// agui serve is the one part of the command that touches the network, and
// it only listens: nothing in it dials, fetches or speaks TLS, and the
// rest of the command imports no network package (agui's own tests).
//
//contract:proves ag-ui.stand.page-offline
func TestServeNeverDials(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "serve.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"net.Listen": true, "net.JoinHostPort": true, "net.ParseIP": true, "net.IPv4": true, "net.IP": true}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		name := pkg.Name + "." + sel.Sel.Name
		switch {
		case pkg.Name == "net" && !allowed[name],
			pkg.Name == "http" && (strings.Contains(sel.Sel.Name, "Client") || sel.Sel.Name == "Get" || sel.Sel.Name == "Post" ||
				sel.Sel.Name == "Head" || sel.Sel.Name == "NewRequest" || sel.Sel.Name == "DefaultTransport" || sel.Sel.Name == "Transport"),
			pkg.Name == "tls":
			t.Errorf("serve.go uses %s: agui serve must only listen", name)
		}
		return true
	})
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "crypto/tls" || p == "os/exec" {
			t.Errorf("serve.go imports %s", p)
		}
	}
}
