// Command pagebuild builds what the stand page needs beyond its hand-written
// files, and writes the page as a static folder. `make page` runs it twice:
//
//	go run ./agui/page/pagebuild -checker
//	go run ./agui/page/pagebuild -static DIR
//
// -checker compiles the package agui to WebAssembly (agui/page/wasm),
// wraps the binary as a base64 string in a script — the page loads no file
// with fetch, so that its policy can forbid every connection — and writes
// it gzipped to agui/page/site/agui.wasm.js.gz; it copies Go's loader
// wasm_exec.js from the Go distribution that builds it, so the two always
// match; and it writes the stamp agui/page/checker.json: the toolchain,
// the digests of both files and of every package compiled into the
// checker. It prints the sizes, raw and gzipped, for Docs/performance.md.
//
// The three files are committed, so that agui serve works in a build from
// a clean checkout (go install …/cmd/agui@version) with nothing fetched
// and nothing built beyond go build. The build is reproducible — no paths
// (-trimpath), no symbol tables (-s -w), no version control stamp
// (-buildvcs=false) — and a test in this package rebuilds the checker and
// compares it with the committed one byte for byte, and compares the
// packages' digests with the stamp, so a change to package agui without
// `make page` fails make test.
//
// -static writes the site as embedded in a fresh build — hence a second
// run, compiled after the first wrote the checker — into DIR.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/contractkit/contractkit/agui/page"
	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/internal/atomicfile"
)

func main() {
	checker := flag.Bool("checker", false, "build the checker and the loader into "+siteDir+" and write the stamp "+stampFile)
	static := flag.String("static", "", "write the page as a static folder into `DIR`")
	flag.Parse()
	var err error
	switch {
	case *checker && *static == "":
		err = writeChecker(".")
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

// writeChecker builds the checker in the repository at root and writes it,
// the loader and the stamp.
func writeChecker(root string) error {
	b, err := buildChecker(root)
	if err != nil {
		return err
	}
	script := checkerScript(b.wasm)
	gzScript := gz(script)
	if err := writeAtomic(filepath.Join(root, siteDir, checkerFile), gzScript); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(root, siteDir, loaderFile), b.loader); err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(root, stampFile), b.stamp.encode()); err != nil {
		return err
	}
	fmt.Printf("checker: agui.wasm %d bytes, gzipped %d bytes (%s)\n", len(b.wasm), len(gz(b.wasm)), b.stamp.Go)
	fmt.Printf("checker: agui.wasm.js (base64 script) %d bytes, gzipped %d bytes (what agui serve sends)\n", len(script), len(gzScript))
	fmt.Printf("checker: wasm_exec.js %d bytes, from %s\n", len(b.loader), b.goroot)
	fmt.Printf("checker: commit %s, %s and %s\n", filepath.ToSlash(filepath.Join(siteDir, checkerFile)), filepath.ToSlash(filepath.Join(siteDir, loaderFile)), stampFile)
	return nil
}

// writeAtomic replaces a built file so that a concurrent build of agui
// never embeds half of it.
func writeAtomic(path string, data []byte) error {
	return atomicfile.WriteFile(filepath.Dir(path), filepath.Base(path), data, 0o644, nil)
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
