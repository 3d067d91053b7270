// Package bindingcheck runs the type checkers of the generated TypeScript
// and Python bindings for tests: tsc and Pyright, pinned with the peer
// libraries the bindings are written against (vscode-jsonrpc, @ag-ui/core
// with zod, @types/node) in node/package-lock.json and installed by
// `make bindings-node` (npm ci). A test whose checker is not installed
// skips with the reason, or fails under CONTRACTKIT_REQUIRE_PARTS=1.
package bindingcheck

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/contractkit/contractkit/internal/repotest"
)

// Tools are the installed checkers.
type Tools struct {
	// Node is the node executable.
	Node string
	// Modules is the node_modules folder of the pinned packages.
	Modules string
}

// Find returns the checkers, or ends the test through
// repotest.MissingPart when node or the packages are missing.
func Find(t testing.TB) *Tools {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		repotest.MissingPart(t, "node is not installed: the TypeScript and Python binding checks run tsc and Pyright on it")
		return nil
	}
	mods := filepath.Join(repotest.Root(t), "internal", "bindingcheck", "node", "node_modules")
	for _, p := range []string{"typescript/bin/tsc", "pyright/index.js", "vscode-jsonrpc/package.json", "@ag-ui/core/package.json", "zod/package.json"} {
		if _, err := os.Stat(filepath.Join(mods, p)); err != nil {
			repotest.MissingPart(t, "%s is not installed: run make bindings-node (npm ci in internal/bindingcheck/node)", p)
			return nil
		}
	}
	return &Tools{Node: node, Modules: mods}
}

// TSConfig is the part of a tsconfig.json the checks set.
type TSConfig struct {
	Files []string
	// Paths maps bare module names to the files tsc reads for them (the
	// generated modules sit outside any node_modules tree).
	Paths map[string][]string
	// OutDir is where tsc writes JavaScript; "" checks without emitting.
	OutDir string
	// RootDir keeps the emitted tree's shape under OutDir.
	RootDir string
	// Bundler resolves and emits every file as an ES module whatever
	// package.json says (module es2022, moduleResolution bundler): for a
	// program that imports the generated modules, which lie outside any
	// package, and runs on Node from an OutDir marked "type": "module".
	Bundler bool
}

// TSC runs tsc --strict over cfg in dir (which receives tsconfig.json) and
// returns its output and exit error.
func (x *Tools) TSC(t testing.TB, dir string, cfg TSConfig) ([]byte, error) {
	t.Helper()
	opts := map[string]any{
		"strict":           true,
		"target":           "es2022",
		"module":           "nodenext",
		"moduleResolution": "nodenext",
		"types":            []string{"node"},
		"typeRoots":        []string{filepath.Join(x.Modules, "@types")},
		"skipLibCheck":     false,
		"noEmit":           cfg.OutDir == "",
	}
	if cfg.Bundler {
		opts["module"] = "es2022"
		opts["moduleResolution"] = "bundler"
	}
	if cfg.Paths != nil {
		opts["paths"] = cfg.Paths
	}
	if cfg.OutDir != "" {
		opts["outDir"] = cfg.OutDir
		opts["rootDir"] = cfg.RootDir
	}
	b, err := json.MarshalIndent(map[string]any{"compilerOptions": opts, "files": cfg.Files}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tsconfig.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(x.Node, filepath.Join(x.Modules, "typescript", "bin", "tsc"), "-p", filepath.Join(dir, "tsconfig.json"), "--pretty", "false")
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// JSONRPCPath is the declaration file tsc reads for "vscode-jsonrpc" from
// a node_modules folder.
func JSONRPCPath(modules string) string {
	return filepath.Join(modules, "vscode-jsonrpc", "lib", "common", "api.d.ts")
}

// Pyright runs Pyright in strict mode, as Python 3.11, over files, with
// extraPaths on the import path; reportUnnecessaryTypeIgnoreComment is an
// error, so an expected rejection that stops happening fails the run.
func (x *Tools) Pyright(t testing.TB, dir string, extraPaths, files []string) ([]byte, error) {
	t.Helper()
	cfg := map[string]any{
		"typeCheckingMode":                   "strict",
		"pythonVersion":                      "3.11",
		"reportUnnecessaryTypeIgnoreComment": "error",
		"enableTypeIgnoreComments":           false,
		"extraPaths":                         extraPaths,
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pyrightconfig.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{filepath.Join(x.Modules, "pyright", "index.js"), "-p", filepath.Join(dir, "pyrightconfig.json")}, files...)
	cmd := exec.Command(x.Node, args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}
