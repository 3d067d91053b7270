// Command pagebuild builds what the stand page needs beyond its committed
// files, and writes the page as a static folder. `make page` runs it twice:
//
//	go run ./internal/tools/pagebuild -checker
//	go run ./internal/tools/pagebuild -static DIR
//
// -checker compiles the package agui to WebAssembly (agui/page/wasm, with
// -trimpath and without symbol tables, which the page never needs), wraps
// the binary as a base64 string in a script — the page loads no file with
// fetch, so that its policy can forbid every connection — and writes it
// gzipped to agui/page/site/agui.wasm.js.gz; it copies Go's loader
// wasm_exec.js from the Go distribution that builds it, so the two always
// match. It prints the sizes, raw and gzipped, for Docs/performance.md.
//
// -static writes the site as embedded in a fresh build — hence a second
// run, compiled after the first wrote the checker — into DIR.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/contractkit/contractkit/agui/page"
	contract "github.com/contractkit/contractkit/generated/agui"
)

const siteDir = "agui/page/site"

func main() {
	checker := flag.Bool("checker", false, "build the checker and the loader into "+siteDir)
	static := flag.String("static", "", "write the page as a static folder into `DIR`")
	flag.Parse()
	var err error
	switch {
	case *checker && *static == "":
		err = buildChecker()
	case !*checker && *static != "":
		err = writeStatic(*static)
	default:
		err = fmt.Errorf("give exactly one of -checker and -static DIR")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pagebuild:", err)
		os.Exit(1)
	}
}

func buildChecker() error {
	tmp, err := os.MkdirTemp("", "pagebuild")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "agui.wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./agui/page/wasm")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build of the checker: %w", err)
	}
	wasm, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	var script bytes.Buffer
	script.WriteString("// The stand page's checker: the Go package agui compiled to WebAssembly, as\n")
	script.WriteString("// base64, so that the page loads it as a script and needs no fetch.\n")
	script.WriteString("globalThis.aguiWasmBase64 = \"")
	script.WriteString(base64.StdEncoding.EncodeToString(wasm))
	script.WriteString("\";\n")
	gzScript := gz(script.Bytes())
	if err := writeAtomic(filepath.Join(siteDir, strings.TrimPrefix(page.CheckerScript, "/")+".gz"), gzScript); err != nil {
		return err
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("go env GOROOT: %w", err)
	}
	loader, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return fmt.Errorf("Go's wasm_exec.js: %w", err)
	}
	if err := writeAtomic(filepath.Join(siteDir, strings.TrimPrefix(page.WasmExec, "/")), loader); err != nil {
		return err
	}
	fmt.Printf("checker: agui.wasm %d bytes, gzipped %d bytes\n", len(wasm), len(gz(wasm)))
	fmt.Printf("checker: agui.wasm.js (base64 script) %d bytes, gzipped %d bytes (what agui serve sends)\n", script.Len(), len(gzScript))
	fmt.Printf("checker: wasm_exec.js %d bytes, from %s\n", len(loader), strings.TrimSpace(string(goroot)))
	return nil
}

func gz(data []byte) []byte {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// writeAtomic replaces a built file so that a concurrent build of agui
// never embeds half of it.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".pagebuild-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

func writeStatic(dir string) error {
	s, err := page.Embedded()
	if err != nil {
		return err
	}
	if err := s.Complete(); err != nil {
		return err
	}
	if err := s.WriteDir(dir); err != nil {
		return err
	}
	fmt.Printf("page: %d files written to %s; serve the folder with any static file server and open %s\n", len(s.Paths()), dir, contract.PagePath)
	return nil
}
