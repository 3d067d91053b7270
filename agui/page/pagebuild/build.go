package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contractkit/contractkit/agui/page"
)

// Where the checker comes from and where it goes, from the repository root.
const (
	wasmPkg   = "./agui/page/wasm"
	siteDir   = "agui/page/site"
	stampFile = "agui/page/checker.json"
)

var (
	checkerFile = strings.TrimPrefix(page.CheckerScript, "/") + ".gz"
	loaderFile  = strings.TrimPrefix(page.WasmExec, "/")
)

// buildFlags make the checker the same bytes on every machine with the
// same toolchain: no file paths, no symbol tables (the page never needs
// them), and no version control stamp, which would change with every
// commit even when the checker's sources do not.
var buildFlags = []string{"-trimpath", "-buildvcs=false", "-ldflags=-s -w"}

// goEnv is the environment of every go command pagebuild runs: the
// checker's target, GOFLAGS fixed so that flags a user set in `go env -w
// GOFLAGS` cannot change the build, and no workspace file.
func goEnv() []string {
	return append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOFLAGS=-mod=readonly", "GOWORK=off")
}

// stamp says what the committed checker was built from and by what.
type stamp struct {
	// Go is the toolchain that built it: `go env GOVERSION`.
	Go string `json:"go"`
	// Flags are the build flags.
	Flags []string `json:"flags"`
	// Checker and Loader are the SHA-256 of agui.wasm and wasm_exec.js.
	Checker string `json:"checker"`
	Loader  string `json:"loader"`
	// Packages are this module's packages compiled into the checker, by
	// path inside the module, each with the SHA-256 of its Go and
	// embedded files (names and contents).
	Packages map[string]string `json:"packages"`
	// Modules are the other modules compiled in, with their versions.
	Modules map[string]string `json:"modules,omitempty"`
}

func (s *stamp) encode() []byte {
	b, _ := json.MarshalIndent(s, "", "  ")
	return append(b, '\n')
}

// built is a fresh build of the checker.
type built struct {
	wasm, loader []byte
	goroot       string
	stamp        stamp
}

// goOutput runs a go command in dir with goEnv and returns its stdout.
func goOutput(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = goEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out, nil
}

// buildChecker compiles the checker of the repository at root.
func buildChecker(root string) (*built, error) {
	env, err := goOutput(root, "env", "GOVERSION", "GOROOT")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(env)), "\n")
	if len(lines) != 2 {
		return nil, fmt.Errorf("go env GOVERSION GOROOT printed %q", env)
	}
	b := &built{goroot: lines[1], stamp: stamp{Go: lines[0], Flags: buildFlags}}
	if b.stamp.Packages, b.stamp.Modules, err = sources(root); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "pagebuild")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "agui.wasm")
	args := append(append([]string{"build"}, buildFlags...), "-o", bin, wasmPkg)
	if _, err := goOutput(root, args...); err != nil {
		return nil, fmt.Errorf("building the checker: %w", err)
	}
	if b.wasm, err = os.ReadFile(bin); err != nil {
		return nil, err
	}
	if b.loader, err = os.ReadFile(filepath.Join(b.goroot, "lib", "wasm", "wasm_exec.js")); err != nil {
		return nil, fmt.Errorf("wasm_exec.js of the Go toolchain: %w", err)
	}
	b.stamp.Checker, b.stamp.Loader = digest(b.wasm), digest(b.loader)
	return b, nil
}

// sources digests what the checker is compiled from: every package of
// this module it imports (Go and embedded files), and the versions of
// other modules. The standard library comes with the toolchain.
func sources(root string) (packages, modules map[string]string, err error) {
	out, err := goOutput(root, "list", "-deps", "-json=ImportPath,Dir,GoFiles,EmbedFiles,Module", wasmPkg)
	if err != nil {
		return nil, nil, err
	}
	packages, modules = map[string]string{}, map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath, Dir     string
			GoFiles, EmbedFiles []string
			Module              *struct {
				Path, Version string
				Main          bool
			}
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("go list: %w", err)
		}
		switch {
		case p.Module == nil: // the standard library
		case !p.Module.Main:
			modules[p.Module.Path] = p.Module.Version
		default:
			files := append(append([]string{}, p.GoFiles...), p.EmbedFiles...)
			sort.Strings(files)
			h := sha256.New()
			for _, f := range files {
				data, err := os.ReadFile(filepath.Join(p.Dir, filepath.FromSlash(f)))
				if err != nil {
					return nil, nil, err
				}
				sum := sha256.Sum256(data)
				fmt.Fprintf(h, "%s\x00%x\n", f, sum)
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, p.Module.Path), "/")
			packages[rel] = hex.EncodeToString(h.Sum(nil))
		}
	}
	if len(packages) == 0 {
		return nil, nil, fmt.Errorf("go list %s named no package of this module", wasmPkg)
	}
	return packages, modules, nil
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

const (
	scriptHead = "// The stand page's checker: the Go package agui compiled to WebAssembly, as\n" +
		"// base64, so that the page loads it as a script and needs no fetch.\n" +
		"globalThis.aguiWasmBase64 = \""
	scriptTail = "\";\n"
)

// checkerScript wraps the checker as the script the page loads.
func checkerScript(wasm []byte) []byte {
	var b bytes.Buffer
	b.WriteString(scriptHead)
	b.WriteString(base64.StdEncoding.EncodeToString(wasm))
	b.WriteString(scriptTail)
	return b.Bytes()
}

// wasmFromScript is the inverse of checkerScript.
func wasmFromScript(script []byte) ([]byte, error) {
	s := string(script)
	if !strings.HasPrefix(s, scriptHead) || !strings.HasSuffix(s, scriptTail) {
		return nil, errors.New("not a checker script written by pagebuild")
	}
	return base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(s, scriptHead), scriptTail))
}

func gz(data []byte) []byte {
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
