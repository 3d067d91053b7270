// Package page holds the stand's local page — the HTML, script, style,
// the catalog generated from the spec and the checker compiled to
// WebAssembly — and serves it.
//
// The files under site/ are embedded. Two of them are built by `make
// page` and committed, so that a build from a clean checkout (what go
// install gives) serves the page with nothing fetched and nothing else
// built: wasm_exec.js (Go's loader, copied from the Go distribution) and
// agui.wasm.js.gz (the checker, base64 in a script, gzipped). The stamp
// checker.json beside site/ says what they were built from; a test
// rebuilds the checker and compares the bytes, so the committed checker
// is the package agui of the same commit. A Site without them serves the
// page but has no checker: Complete says so, and agui serve refuses to
// start.
//
// The page loads everything it needs as scripts, styles and one icon,
// never with fetch, so that its Content-Security-Policy can forbid every
// connection (connect-src 'none'). The policy is written once, in the
// page's own <meta> element; the server sends the same policy as a header,
// with frame-ancestors, which a <meta> policy cannot carry.
package page

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	neturl "net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/internal/loopback"
)

//go:embed site
var embedded embed.FS

// Built assets: written by `make page` and committed.
const (
	// WasmExec is Go's loader for WebAssembly programs.
	WasmExec = "/wasm_exec.js"
	// CheckerScript is the checker: its WebAssembly binary as a base64
	// string in a script, so that the page needs no fetch to load it.
	CheckerScript = "/agui.wasm.js"
	// CatalogScript is the catalog as a script, derived from the catalog
	// file when the site is read, for the same reason.
	CatalogScript = "/stand-catalog.js"
)

// gzSuffix marks an asset stored compressed.
const gzSuffix = ".gz"

// ErrNoChecker is returned by Complete when the checker was not built.
var ErrNoChecker = errors.New("this build has no checker for the page: agui/page/site lacks agui.wasm.js.gz or wasm_exec.js, which the repository commits; restore them (git checkout agui/page/site) or rebuild them with make page, then build agui again")

// Site is the page's files, ready to serve.
type Site struct {
	files map[string]*asset // by URL path
	csp   string
}

type asset struct {
	data  []byte // the content
	gz    []byte // the content gzipped, when stored so
	ctype string
	etag  string
}

// Embedded returns the site built into this binary.
func Embedded() (*Site, error) {
	sub, err := fs.Sub(embedded, "site")
	if err != nil {
		return nil, err
	}
	return New(sub)
}

// New reads a site from fsys, whose root is the site's root.
func New(fsys fs.FS) (*Site, error) {
	s := &Site{files: map[string]*asset{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		a := &asset{data: data}
		if strings.HasSuffix(p, gzSuffix) {
			p = strings.TrimSuffix(p, gzSuffix)
			a.gz = data
			if a.data, err = gunzip(data); err != nil {
				return fmt.Errorf("%s%s: %w", p, gzSuffix, err)
			}
		}
		a.ctype = contentType(p)
		s.files["/"+p] = a
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("page: reading the site: %w", err)
	}
	html := s.files[contract.PagePath]
	if html == nil {
		return nil, fmt.Errorf("page: the site has no page at %s", contract.PagePath)
	}
	if s.csp, err = metaPolicy(html.data); err != nil {
		return nil, fmt.Errorf("page: %s: %w", contract.PagePath, err)
	}
	cat := s.files[contract.PageCatalog]
	if cat == nil {
		return nil, fmt.Errorf("page: the site has no catalog at %s (run make generate)", contract.PageCatalog)
	}
	s.files[CatalogScript] = &asset{data: catalogScript(cat.data), ctype: contentType(CatalogScript)}
	for _, a := range s.files {
		sum := sha256.Sum256(a.data)
		a.etag = `"` + hex.EncodeToString(sum[:16]) + `"`
	}
	return s, nil
}

// catalogScript wraps the catalog's JSON as a script. JSON text is a
// JavaScript expression, and the file is loaded by src, never inlined,
// so no sequence in it can end the script early.
func catalogScript(catalog []byte) []byte {
	var b bytes.Buffer
	b.WriteString("// The page catalog ")
	b.WriteString(contract.PageCatalog)
	b.WriteString(", as a script: the page loads nothing with fetch.\n\"use strict\";\nglobalThis.aguiCatalog = ")
	b.Write(bytes.TrimSpace(catalog))
	b.WriteString(";\n")
	return b.Bytes()
}

var metaCSP = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`)

// metaPolicy returns the policy the page declares in its <meta> element.
func metaPolicy(html []byte) (string, error) {
	m := metaCSP.FindSubmatch(html)
	if m == nil {
		return "", errors.New("the page declares no Content-Security-Policy in a <meta> element")
	}
	policy := string(m[1])
	if !strings.Contains(policy, "connect-src 'none'") {
		return "", errors.New("the page's Content-Security-Policy must forbid every connection (connect-src 'none')")
	}
	return policy, nil
}

// Policy is the Content-Security-Policy header the server sends.
func (s *Site) Policy() string { return s.csp + "; frame-ancestors 'none'" }

// Complete reports whether the site has its checker.
func (s *Site) Complete() error {
	if s.files[WasmExec] == nil || s.files[CheckerScript] == nil {
		return ErrNoChecker
	}
	return nil
}

// Paths lists the URL paths the site serves, sorted.
func (s *Site) Paths() []string {
	out := make([]string, 0, len(s.files))
	for p := range s.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// File returns the content served at a URL path.
func (s *Site) File(urlPath string) ([]byte, bool) {
	a := s.files[urlPath]
	if a == nil {
		return nil, false
	}
	return a.data, true
}

// Handler serves the site. It answers GET and HEAD only, and only to
// requests addressed to a loopback host, so that a page of another origin
// cannot reach it through a name it points at this machine.
func (s *Site) Handler() http.Handler {
	return http.HandlerFunc(s.serve)
}

func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", s.Policy())
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if !LoopbackHost(r.Host) {
		http.Error(w, "this server answers only requests addressed to a loopback host", http.StatusMisdirectedRequest)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path == "/" {
		http.Redirect(w, r, EscapePath(contract.PagePath), http.StatusFound)
		return
	}
	a := s.files[r.URL.Path]
	if a == nil {
		http.NotFound(w, r)
		return
	}
	h.Set("Content-Type", a.ctype)
	h.Set("Cache-Control", "no-cache")
	body, etag := a.data, a.etag
	if a.gz != nil {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r) {
			h.Set("Content-Encoding", "gzip")
			body, etag = a.gz, strings.TrimSuffix(a.etag, `"`)+`-gz"`
		}
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// EscapePath returns a URL path percent-encoded, as a browser requests it.
func EscapePath(p string) string { return (&neturl.URL{Path: p}).EscapedPath() }

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.ReplaceAll(params, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// LoopbackHost reports whether a Host header names a loopback address:
// localhost, 127.0.0.0/8 or ::1, with or without a port.
func LoopbackHost(hostport string) bool { return loopback.HostPort(hostport) }

func contentType(p string) string {
	switch path.Ext(p) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".json":
		return "application/json"
	case ".svg":
		return "image/svg+xml"
	}
	return "application/octet-stream"
}

func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// WriteDir writes the site as a static folder that any static file server
// can host: every file the server serves, uncompressed, under its decoded
// path. Such a server sends no policy header; the page's <meta> policy
// still forbids every connection.
func (s *Site) WriteDir(dir string) error {
	for _, p := range s.Paths() {
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, "/")))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, s.files[p].data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
