package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/repotest"
)

// committed is what the repository holds: the checker, the loader and the
// stamp written by the last make page.
type committed struct {
	wasm, loader []byte
	stamp        stamp
}

func readCommitted(t *testing.T, root string) committed {
	t.Helper()
	var c committed
	gzScript, err := os.ReadFile(filepath.Join(root, siteDir, checkerFile))
	if err != nil {
		t.Fatalf("%v: the checker is committed; run make page and commit agui/page", err)
	}
	script, err := gunzip(gzScript)
	if err != nil {
		t.Fatalf("%s: %v", checkerFile, err)
	}
	if c.wasm, err = wasmFromScript(script); err != nil {
		t.Fatalf("%s: %v", checkerFile, err)
	}
	if c.loader, err = os.ReadFile(filepath.Join(root, siteDir, loaderFile)); err != nil {
		t.Fatalf("%v: the loader is committed; run make page and commit agui/page", err)
	}
	data, err := os.ReadFile(filepath.Join(root, stampFile))
	if err != nil {
		t.Fatalf("%v: run make page and commit agui/page", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c.stamp); err != nil {
		t.Fatalf("%s: %v", stampFile, err)
	}
	return c
}

// The committed checker is a WebAssembly module, the stamp describes
// exactly the committed files, and the sources it names are the ones in
// this checkout. This part needs no compiler, so it holds on any Go
// toolchain.
func TestCommittedCheckerMatchesSources(t *testing.T) {
	root := repotest.Root(t)
	c := readCommitted(t, root)
	if !bytes.HasPrefix(c.wasm, []byte("\x00asm\x01\x00\x00\x00")) {
		t.Fatalf("%s does not hold a WebAssembly module (version 1)", checkerFile)
	}
	if got := digest(c.wasm); got != c.stamp.Checker {
		t.Errorf("%s holds a checker with SHA-256 %s, the stamp names %s: run make page and commit agui/page", checkerFile, got, c.stamp.Checker)
	}
	if got := digest(c.loader); got != c.stamp.Loader {
		t.Errorf("%s has SHA-256 %s, the stamp names %s: run make page and commit agui/page", loaderFile, got, c.stamp.Loader)
	}
	if strings.Join(c.stamp.Flags, " ") != strings.Join(buildFlags, " ") {
		t.Errorf("the checker was built with %q, pagebuild builds with %q: run make page", c.stamp.Flags, buildFlags)
	}
	packages, modules, err := sources(root)
	if err != nil {
		t.Fatal(err)
	}
	if stale := differ(c.stamp.Packages, packages); len(stale) > 0 {
		t.Errorf("the committed checker was built from other sources of %s than this checkout's: run make page and commit agui/page", strings.Join(stale, ", "))
	}
	if stale := differ(c.stamp.Modules, modules); len(stale) > 0 {
		t.Errorf("the committed checker was built with other versions of %s: run make page and commit agui/page", strings.Join(stale, ", "))
	}
}

// differ lists the keys whose values differ between two maps.
func differ(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// The committed checker is reproducible: built again from this checkout
// by the toolchain the stamp names, it is the same bytes, and the loader is
// that toolchain's. With another toolchain the bytes cannot be compared
// (the compiler's output is the toolchain's); the test says which one
// make page used.
func TestCommittedCheckerIsReproducible(t *testing.T) {
	root := repotest.Root(t)
	c := readCommitted(t, root)
	version, err := goOutput(root, "env", "GOVERSION")
	if err != nil {
		t.Fatal(err)
	}
	if v := strings.TrimSpace(string(version)); v != c.stamp.Go {
		repotest.MissingPart(t, "the committed checker was built by %s and this toolchain is %s: only the same toolchain rebuilds the same bytes", c.stamp.Go, v)
	}
	b, err := buildChecker(root)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.wasm, c.wasm) {
		t.Errorf("the checker built from this checkout (%d bytes, SHA-256 %s) is not the committed one (%d bytes, SHA-256 %s): run make page and commit agui/page",
			len(b.wasm), b.stamp.Checker, len(c.wasm), digest(c.wasm))
	}
	if !bytes.Equal(b.loader, c.loader) {
		t.Errorf("%s is not the one of %s: run make page and commit agui/page", loaderFile, b.goroot)
	}
	if want := c.stamp; !bytes.Equal(b.stamp.encode(), want.encode()) {
		t.Errorf("%s is not what make page writes now:\n%s", stampFile, b.stamp.encode())
	}
}

func TestWasmFromScript(t *testing.T) {
	wasm := []byte("\x00asm\x01\x00\x00\x00 and more")
	got, err := wasmFromScript(checkerScript(wasm))
	if err != nil || !bytes.Equal(got, wasm) {
		t.Fatalf("round trip: %q %v", got, err)
	}
	for _, bad := range []string{"", "globalThis.x = 1;\n", scriptHead + "not base64!" + scriptTail, scriptHead + "AAAA"} {
		if _, err := wasmFromScript([]byte(bad)); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}
