package bindingcheck

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/generated"
	"github.com/contractkit/contractkit/internal/fonline"
	"github.com/contractkit/contractkit/internal/repotest"
)

// modules lists the generated modules of every domain in one language:
// ext is "ts" or "python", and every domain must have its folder.
func modules(t *testing.T, lang, ext string) (dirs, files []string) {
	t.Helper()
	root := repotest.Root(t)
	for _, c := range generated.Contracts {
		dir := filepath.Join(root, "generated", c.Package, lang)
		fs, err := filepath.Glob(filepath.Join(dir, "*."+ext))
		if err != nil || len(fs) == 0 {
			t.Fatalf("no %s modules of %s in %s (%v)", lang, c.Domain, dir, err)
		}
		dirs = append(dirs, dir)
		files = append(files, fs...)
	}
	return dirs, files
}

// Every generated TypeScript module, the examples and the vscode-jsonrpc
// descriptors included, compiles under tsc --strict: each valid spec
// example satisfies its type and each @ts-expect-error line is an error.
func TestTypeScriptStrict(t *testing.T) {
	x := Find(t)
	_, files := modules(t, "ts", "ts")
	out, err := x.TSC(t, t.TempDir(), TSConfig{Files: files, Paths: map[string][]string{"vscode-jsonrpc": {JSONRPCPath(x.Modules)}}})
	if err != nil {
		t.Fatalf("tsc --strict over %d modules: %v\n%s", len(files), err, out)
	}
	t.Logf("tsc --strict --noEmit: %d modules, no errors", len(files))
}

// Every generated Python module passes Pyright in strict mode, with
// unnecessary ignore comments as errors.
func TestPyrightStrict(t *testing.T) {
	x := Find(t)
	dirs, files := modules(t, "python", "py")
	out, err := x.Pyright(t, t.TempDir(), dirs, files)
	if err != nil || !bytes.Contains(out, []byte("0 errors")) {
		t.Fatalf("pyright strict over %d modules: %v\n%s", len(files), err, out)
	}
	t.Logf("pyright strict: %d modules: %s", len(files), lastLine(out))
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// copyDomain copies the generated modules of one domain's language folder
// into a temporary folder, with edit applied to the examples module.
func copyDomain(t *testing.T, pkg, lang, examples string, edit func(string) (string, int)) (dir string, removed int) {
	t.Helper()
	src := filepath.Join(repotest.Root(t), "generated", pkg, lang)
	dir = t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == examples {
			var s string
			s, removed = edit(string(b))
			b = []byte(s)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, removed
}

var (
	tsExpect = regexp.MustCompile(`(?m)^// @ts-expect-error.*\n`)
	tsError  = regexp.MustCompile(`(?m)^[^\n]*aicontrol\.examples\.ts\((\d+),\d+\): error TS\d+`)
	pyIgnore = regexp.MustCompile(`  # pyright: ignore\[reportAssignmentType\]`)
	pyError  = regexp.MustCompile(`(?m)aicontrol_examples\.py:(\d+):\d+ - error`)
)

// Without their @ts-expect-error lines, the negative examples are compile
// errors, one line each: the directives are not decoration, and tsc here
// does report what the check above relies on it to report.
func TestTypeScriptNegativesFail(t *testing.T) {
	x := Find(t)
	dir, removed := copyDomain(t, "aicontrol", "ts", "aicontrol.examples.ts", func(s string) (string, int) {
		n := len(tsExpect.FindAllString(s, -1))
		return tsExpect.ReplaceAllString(s, ""), n
	})
	if removed == 0 {
		t.Fatal("aicontrol.examples.ts has no @ts-expect-error line")
	}
	out, err := x.TSC(t, dir, TSConfig{Files: []string{filepath.Join(dir, "aicontrol.ts"), filepath.Join(dir, "aicontrol.examples.ts")}})
	if err == nil {
		t.Fatalf("tsc accepted the negative examples without their directives\n%s", out)
	}
	if lines := distinct(tsError.FindAllSubmatch(out, -1)); lines != removed {
		t.Fatalf("tsc reported errors on %d lines, want one per removed directive (%d)\n%s", lines, removed, out)
	}
}

// The same for Pyright's ignore comments.
func TestPyrightNegativesFail(t *testing.T) {
	x := Find(t)
	dir, removed := copyDomain(t, "aicontrol", "python", "aicontrol_examples.py", func(s string) (string, int) {
		n := len(pyIgnore.FindAllString(s, -1))
		return pyIgnore.ReplaceAllString(s, ""), n
	})
	if removed == 0 {
		t.Fatal("aicontrol_examples.py has no pyright: ignore comment")
	}
	out, err := x.Pyright(t, dir, []string{dir}, []string{filepath.Join(dir, "aicontrol.py"), filepath.Join(dir, "aicontrol_examples.py")})
	if err == nil {
		t.Fatalf("pyright accepted the negative examples without their ignore comments\n%s", out)
	}
	if lines := distinct(pyError.FindAllSubmatch(out, -1)); lines != removed {
		t.Fatalf("pyright reported errors on %d lines, want one per removed comment (%d)\n%s", lines, removed, out)
	}
}

func distinct(ms [][][]byte) int {
	seen := map[string]bool{}
	for _, m := range ms {
		seen[string(m[1])] = true
	}
	return len(seen)
}

// deliberateAGUI lists the AG-UI examples on which the spec and
// @ag-ui/core's zod schemas disagree, each with the reason. A listed
// example on which they agree fails too, so the list cannot go stale.
var deliberateAGUI = map[string]string{
	"Event RUN_STARTED invalid 1": "the profile does not attribute a run to a subagent, so RUN_STARTED may not carry subagentRunId; the SDK's RunStartedEventSchema is a loose object, which lets members it does not name through",
}

// Every AG-UI event example of the spec, typed by the generated binding,
// goes through the SDK's own schemas (EventSchemas of @ag-ui/core) in a
// TypeScript program compiled here by tsc --strict: both sides name the
// same event types (a compile-time check of the program), and they agree
// on every example but the listed ones.
func TestAGUICoreSchemas(t *testing.T) {
	x := Find(t)
	root := repotest.Root(t)
	dir := filepath.Join(root, "internal", "bindingcheck", "node")
	// The build sits in the packages' folder, so that Node resolves
	// @ag-ui/core from it; "type": "module" keeps tsc's ES modules.
	out, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	if err := os.WriteFile(filepath.Join(out, "package.json"), []byte(`{"type": "module"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := x.TSC(t, out, TSConfig{Files: []string{filepath.Join(dir, "agui-core.ts")}, OutDir: out, RootDir: root, Bundler: true}); err != nil {
		t.Fatalf("tsc --strict agui-core.ts: %v\n%s", err, b)
	}
	cmd := exec.Command(x.Node, filepath.Join(out, "internal", "bindingcheck", "node", "agui-core.js"))
	cmd.Dir = dir
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("node agui-core.js: %v\n%s", err, b)
	}
	var res struct {
		SameEventTypes    bool
		OnlyOurs, OnlySDK []string
		Verdicts          []struct {
			Label      string
			Valid, SDK bool
			Issues     string
		}
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("agui-core.js printed %s: %v", b, err)
	}
	if !res.SameEventTypes || len(res.OnlyOurs) > 0 || len(res.OnlySDK) > 0 {
		t.Errorf("event types only in the spec %v, only in @ag-ui/core %v", res.OnlyOurs, res.OnlySDK)
	}
	var valid, invalid, agree int
	seen := map[string]bool{}
	for _, v := range res.Verdicts {
		seen[v.Label] = true
		if v.Valid {
			valid++
		} else {
			invalid++
		}
		reason, listed := deliberateAGUI[v.Label]
		switch {
		case v.Valid == v.SDK && listed:
			t.Errorf("%s: listed as a disagreement (%s), but both sides now say valid=%v", v.Label, reason, v.Valid)
		case v.Valid == v.SDK:
			agree++
		case !listed:
			t.Errorf("%s: the spec says valid=%v, @ag-ui/core's schemas say %v (%s)", v.Label, v.Valid, v.SDK, v.Issues)
		}
	}
	for label := range deliberateAGUI {
		if !seen[label] {
			t.Errorf("%s: listed, but no such example was given to the schemas", label)
		}
	}
	if valid == 0 || invalid == 0 {
		t.Fatalf("%d valid and %d invalid event examples: the examples module lost its event examples", valid, invalid)
	}
	t.Logf("@ag-ui/core EventSchemas: %d event examples (%d valid, %d invalid), %d agree, %d listed disagreements", len(res.Verdicts), valid, invalid, agree, len(deliberateAGUI))
}

// The Python modules run: python3 imports every module and its examples
// module (so each TypedDict class is created, each union's variants after
// the objects they extend, and each example assigned). Pyright checks
// types; this checks that the module a QA script imports loads. Python
// 3.10, the oldest the modules promise, runs them too where it is on PATH
// as python3.10.
func TestPythonModulesImport(t *testing.T) {
	py, err := fonline.Python()
	if err != nil {
		t.Fatal(err) // make test installs python3
	}
	dirs, files := modules(t, "python", "py")
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".py"))
	}
	run := func(t *testing.T, py string) {
		script := "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\nprint(len(sys.argv) - 1)\n"
		cmd := exec.Command(py, append([]string{"-c", script}, names...)...)
		// No __pycache__ may appear in generated/, which gen owns.
		cmd.Env = append(os.Environ(), "PYTHONPATH="+strings.Join(dirs, string(os.PathListSeparator)), "PYTHONDONTWRITEBYTECODE=1")
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != strconv.Itoa(len(names)) {
			t.Fatalf("%s importing %v: %v\n%s", py, names, err, out)
		}
		t.Logf("%s imported %d modules", py, len(names))
	}
	t.Run("python3", func(t *testing.T) { run(t, py) })
	t.Run("python3.10", func(t *testing.T) {
		py, err := exec.LookPath("python3.10")
		if err == nil {
			// A version manager's shim may be on PATH without the version.
			err = exec.Command(py, "-c", "import sys").Run()
		}
		if err != nil {
			t.Skipf("no working python3.10 on PATH (%v): the modules were imported by python3 only", err)
		}
		run(t, py)
	})
}

// snippetPreamble declares, for the how-to's VS Code snippet, what the
// surrounding extension would have: the server process and the values the
// snippet passes along.
const snippetPreamble = `import type { ChildProcessWithoutNullStreams } from "node:child_process";
import type { Generation, NodeId, ProjectId, SessionId } from "./ide.js";
declare const child: ChildProcessWithoutNullStreams;
declare function refresh(sessionId: SessionId, generation: Generation): void;
declare function reload(): void;
declare const sessionId: SessionId, projectId: ProjectId, generation: Generation, node: NodeId;
`

var (
	codeBlock    = regexp.MustCompile("(?ms)^```(ts|python)\n(.*?)^```")
	bindingQuote = regexp.MustCompile(`"\./(\w+)(\.jsonrpc)?\.js"`)
)

// The code of the bindings how-to compiles against the generated modules:
// each TypeScript block under tsc --strict, each Python block under
// Pyright strict, so the guide cannot drift from what gen writes. (The
// Russian page has the same code blocks; the docs check compares them.)
func TestHowToSnippets(t *testing.T) {
	x := Find(t)
	root := repotest.Root(t)
	page, err := os.ReadFile(filepath.Join(root, "Docs", "en", "how-to", "bindings.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var tsFiles, pyFiles []string
	for i, m := range codeBlock.FindAllSubmatch(page, -1) {
		code := string(m[2])
		switch string(m[1]) {
		case "ts":
			if strings.Contains(code, "child.") {
				code = snippetPreamble + code
			}
			// "./ide.jsonrpc.js" is generated/ide/ts/ide.jsonrpc.ts.
			code = bindingQuote.ReplaceAllStringFunc(code, func(q string) string {
				sm := bindingQuote.FindStringSubmatch(q)
				return `"` + filepath.Join(root, "generated", sm[1], "ts", sm[1]+sm[2]+".js") + `"`
			})
			f := filepath.Join(dir, "snippet"+strconv.Itoa(i)+".ts")
			if err := os.WriteFile(f, []byte(code+"\nexport {};\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			tsFiles = append(tsFiles, f)
		case "python":
			f := filepath.Join(dir, "snippet"+strconv.Itoa(i)+".py")
			if err := os.WriteFile(f, []byte(code), 0o644); err != nil {
				t.Fatal(err)
			}
			pyFiles = append(pyFiles, f)
		}
	}
	if len(tsFiles) < 2 || len(pyFiles) < 1 {
		t.Fatalf("the how-to has %d TypeScript and %d Python blocks; want the VS Code, AG-UI and Python ones", len(tsFiles), len(pyFiles))
	}
	out, err := x.TSC(t, dir, TSConfig{Files: tsFiles, Bundler: true, Paths: map[string][]string{
		"vscode-jsonrpc":         {JSONRPCPath(x.Modules)},
		"vscode-jsonrpc/node.js": {filepath.Join(x.Modules, "vscode-jsonrpc", "node.d.ts")},
	}})
	if err != nil {
		t.Errorf("tsc --strict over the how-to's TypeScript: %v\n%s", err, out)
	}
	pyDirs, _ := modules(t, "python", "py")
	if out, err := x.Pyright(t, dir, pyDirs, pyFiles); err != nil {
		t.Errorf("pyright strict over the how-to's Python: %v\n%s", err, out)
	}
}
