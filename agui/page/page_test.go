package page

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	contract "github.com/contractkit/contractkit/generated/agui"
)

const testPolicy = "default-src 'none'; script-src 'self'; connect-src 'none'"

func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// testSite is a small site with every part a real one has.
func testSite(t *testing.T, checker bool) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{
		strings.TrimPrefix(contract.PagePath, "/"):    {Data: []byte(`<!doctype html><meta http-equiv="Content-Security-Policy" content="` + testPolicy + `"><script src="stand.js"></script>`)},
		strings.TrimPrefix(contract.PageCatalog, "/"): {Data: []byte(`{"digest": "x", "page": "` + contract.PagePath + `"}` + "\n")},
		"stand.js": {Data: []byte("/* page */")},
	}
	if checker {
		fsys[strings.TrimPrefix(WasmExec, "/")] = &fstest.MapFile{Data: []byte("/* go */")}
		fsys[strings.TrimPrefix(CheckerScript, "/")+gzSuffix] = &fstest.MapFile{Data: gzipped(t, []byte(`globalThis.aguiWasmBase64 = "AGFzbQ==";`))}
	}
	return fsys
}

func get(t *testing.T, h http.Handler, method, target string, header map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	req.Host = "127.0.0.1:4747"
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, r *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

//contract:proves ag-ui.stand.page-offline ag-ui.view.page
func TestHandler(t *testing.T) {
	s, err := New(testSite(t, true))
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	r := get(t, h, "GET", EscapePath(contract.PagePath), nil)
	if r.StatusCode != 200 || r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("page: %d %q", r.StatusCode, r.Header.Get("Content-Type"))
	}
	if got := r.Header.Get("Content-Security-Policy"); got != testPolicy+"; frame-ancestors 'none'" {
		t.Errorf("policy %q", got)
	}
	for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cross-Origin-Resource-Policy": "same-origin"} {
		if r.Header.Get(k) != v {
			t.Errorf("%s: %q", k, r.Header.Get(k))
		}
	}
	// The catalog as a file, and as the script the page loads.
	r = get(t, h, "GET", EscapePath(contract.PageCatalog), nil)
	if b := body(t, r); r.StatusCode != 200 || r.Header.Get("Content-Type") != "application/json" || !bytes.HasPrefix(b, []byte(`{"digest": "x"`)) {
		t.Errorf("catalog: %d %q %s", r.StatusCode, r.Header.Get("Content-Type"), b)
	}
	r = get(t, h, "GET", CatalogScript, nil)
	script := string(body(t, r))
	m := regexp.MustCompile(`globalThis\.aguiCatalog = (.*);\n$`).FindStringSubmatch(script)
	if m == nil || !json.Valid([]byte(m[1])) || !strings.Contains(m[1], contract.PagePath) {
		t.Errorf("catalog script: %q", script)
	}
	// The checker, gzipped for a browser that takes gzip, plain otherwise.
	r = get(t, h, "GET", CheckerScript, map[string]string{"Accept-Encoding": "gzip, deflate"})
	gz := body(t, r)
	if r.Header.Get("Content-Encoding") != "gzip" || r.Header.Get("Vary") != "Accept-Encoding" {
		t.Errorf("gzip: %q %q", r.Header.Get("Content-Encoding"), r.Header.Get("Vary"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	r = get(t, h, "GET", CheckerScript, map[string]string{"Accept-Encoding": "gzip;q=0"})
	if b := body(t, r); r.Header.Get("Content-Encoding") != "" || !bytes.Equal(b, plain) || !bytes.Contains(b, []byte("aguiWasmBase64")) {
		t.Errorf("plain checker: %q %q", r.Header.Get("Content-Encoding"), b)
	}
	// What is not served.
	for _, c := range []struct {
		method, target string
		header         map[string]string
		status         int
	}{
		{"GET", "/", nil, http.StatusFound},
		{"POST", EscapePath(contract.PagePath), nil, http.StatusMethodNotAllowed},
		{"GET", "/missing.js", nil, http.StatusNotFound},
		{"GET", "/../go.mod", nil, http.StatusNotFound},
		{"GET", EscapePath(contract.PagePath), map[string]string{"Host": "attacker.example"}, http.StatusMisdirectedRequest},
		{"GET", EscapePath(contract.PagePath), map[string]string{"Host": "10.0.0.1:4747"}, http.StatusMisdirectedRequest},
		{"GET", EscapePath(contract.PagePath), map[string]string{"Host": "localhost:4747"}, http.StatusOK},
		{"GET", EscapePath(contract.PagePath), map[string]string{"Host": "[::1]:4747"}, http.StatusOK},
		{"HEAD", EscapePath(contract.PagePath), nil, http.StatusOK},
	} {
		r := get(t, h, c.method, c.target, c.header)
		if r.StatusCode != c.status || r.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s %s %v: %d, want %d", c.method, c.target, c.header, r.StatusCode, c.status)
		}
	}
	if loc := get(t, h, "GET", "/", nil).Header.Get("Location"); loc != EscapePath(contract.PagePath) || !strings.HasPrefix(loc, "/%D0%") {
		t.Errorf("redirect to %q", loc)
	}
}

// The page is found whether its path comes percent-encoded, as browsers
// send it, or as raw UTF-8 on the request line.
func TestPagePathEncodings(t *testing.T) {
	s, err := New(testSite(t, true))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, target := range []string{EscapePath(contract.PagePath), contract.PagePath} {
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		conn.Write([]byte("GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n"))
		r, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		b := body(t, r)
		conn.Close()
		if r.StatusCode != 200 || !bytes.Contains(b, []byte("Content-Security-Policy")) {
			t.Errorf("GET %q: %d", target, r.StatusCode)
		}
	}
}

func TestNewRefusesIncompleteSites(t *testing.T) {
	s, err := New(testSite(t, false))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(); !errors.Is(err, ErrNoChecker) || !strings.Contains(err.Error(), "make page") {
		t.Errorf("a site without its checker: %v", err)
	}
	page := strings.TrimPrefix(contract.PagePath, "/")
	for name, change := range map[string]func(fstest.MapFS){
		"no page":    func(f fstest.MapFS) { delete(f, page) },
		"no catalog": func(f fstest.MapFS) { delete(f, strings.TrimPrefix(contract.PageCatalog, "/")) },
		"no policy":  func(f fstest.MapFS) { f[page] = &fstest.MapFile{Data: []byte("<!doctype html>")} },
		"connections allowed": func(f fstest.MapFS) {
			f[page] = &fstest.MapFile{Data: []byte(`<meta http-equiv="Content-Security-Policy" content="default-src 'self'">`)}
		},
		"broken gzip": func(f fstest.MapFS) { f["x.js.gz"] = &fstest.MapFile{Data: []byte("not gzip")} },
	} {
		fsys := testSite(t, true)
		change(fsys)
		if _, err := New(fsys); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestWriteDir(t *testing.T) {
	s, err := New(testSite(t, true))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := s.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Paths() {
		want, _ := s.File(p)
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// The embedded site: it has its checker (committed, so that a build from
// a clean checkout serves the page), its page declares the policy, every
// asset it names is served, and its catalog is the one generated for this
// contract.
func TestEmbedded(t *testing.T) {
	s, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Policy(), "connect-src 'none'") || !strings.Contains(s.Policy(), "default-src 'none'") {
		t.Errorf("policy %q", s.Policy())
	}
	html, _ := s.File(contract.PagePath)
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllSubmatch(html, -1) {
		p := "/" + string(m[1])
		if _, ok := s.File(p); !ok {
			t.Errorf("the page names %s, which the site does not serve", p)
		}
	}
	cat, _ := s.File(contract.PageCatalog)
	var c struct{ Digest, Page, Catalog string }
	if err := json.Unmarshal(cat, &c); err != nil || c.Digest != contract.Digest || c.Page != contract.PagePath || c.Catalog != contract.PageCatalog {
		t.Errorf("catalog: %v %+v", err, c)
	}
}

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.0.0.1:80": true, "127.9.9.9:1": true, "[::1]:4747": true, "::1": true, "localhost:4747": true, "LOCALHOST": true,
		"0.0.0.0:4747": false, "10.0.0.1": false, "example.com": false, "localhost.example.com": false, "": false, "[::]:80": false,
	} {
		if LoopbackHost(host) != want {
			t.Errorf("LoopbackHost(%q) = %v", host, !want)
		}
	}
}
