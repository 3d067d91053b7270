package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/contractkit/contractkit/internal/emit/goemit"
	"github.com/contractkit/contractkit/internal/repotest"
	"github.com/contractkit/contractkit/internal/spec"
)

// TestGenerated keeps the checked-in output honest: what gen produces from
// the specs is exactly what the repository holds.
func TestGenerated(t *testing.T) {
	root := repotest.Root(t)
	out, err := Generate(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	checkImports(t, out)
	changes, err := Compare(os.DirFS(root), out)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range changes {
		if i == 10 {
			t.Errorf("... and %d more", len(changes)-10)
			break
		}
		t.Errorf("%s %s (run make generate)\n%s", c.Kind, c.Path, c.Diff)
	}
}

// demo is the repository with the demo spec of spec/testdata beside the
// real ones (a second file read in either order), and its generation:
// computed once and shared by the tests that read them, which must not
// change either.
var demo struct {
	once sync.Once
	fsys fstest.MapFS
	out  *Output
	err  error
}

func demoRepo(t *testing.T) (fstest.MapFS, *Output) {
	t.Helper()
	demo.once.Do(func() {
		fsys := repotest.MapFS(t)
		data, err := os.ReadFile("../spec/testdata/minimal.json")
		if err != nil {
			demo.err = err
			return
		}
		fsys["spec/zz-demo.json"] = &fstest.MapFile{Data: data}
		fsys["impl/get.go"] = &fstest.MapFile{Data: []byte("package impl\n\nfunc get() {}\n")}
		demo.fsys = fsys
		demo.out, demo.err = Generate(fsys)
	})
	if demo.err != nil {
		t.Fatal(demo.err)
	}
	return demo.fsys, demo.out
}

// model.json carries the canonical model and a digest that anyone can
// recompute from it.
func TestModelDigest(t *testing.T) {
	root := repotest.Root(t)
	set, diags := spec.Load(os.DirFS(root))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for _, d := range set.Domains {
		data, err := os.ReadFile(root + "/generated/" + d.Header.Package + "/model.json")
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Spec   string          `json:"spec"`
			Digest string          `json:"digest"`
			Model  json.RawMessage `json:"model"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		// Canonical form: sorted keys, no insignificant space, no HTML escaping.
		dec := json.NewDecoder(bytes.NewReader(m.Model))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		var canon bytes.Buffer
		enc := json.NewEncoder(&canon)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(bytes.TrimRight(canon.Bytes(), "\n"))
		if got := "sha256:" + hex.EncodeToString(sum[:]); got != m.Digest || got != d.Digest {
			t.Errorf("%s: recomputed digest %s, model.json says %s, loader says %s", d.File, got, m.Digest, d.Digest)
		}
		if m.Spec != d.File {
			t.Errorf("model.json spec = %q, want %q", m.Spec, d.File)
		}
	}
}

// The AiControl model holds the 49 entries of the reference contract, the
// 13 this contract adds (error precedence, id and JSON rules, the bounds on
// strangers, shutdown delivery), the 7 integration rules of the MCP
// adapter, and the typed params, results and event.
func TestAiControlEntries(t *testing.T) {
	set, diags := spec.Load(os.DirFS(repotest.Root(t)))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	d := set.Domain("ai-control-protocol")
	want := map[string]int{"wire": 13, "method": 6, "error": 7, "command": 11, "security": 12, "integration": 14, "validation": 6}
	total := 0
	for kind, n := range want {
		got := d.EntriesOfKind(kind)
		if len(got) != n {
			t.Errorf("%s entries = %d, want %d", kind, len(got), n)
		}
		for _, e := range got {
			if e.Requirement == nil || e.Rationale == nil {
				t.Errorf("%s lacks a requirement or rationale", e.ID)
			}
		}
		total += len(got)
	}
	if total != 69 {
		t.Errorf("%d entries, want 69", total)
	}
	for _, id := range []string{"ai-control-protocol.wire.line-limit", "ai-control-protocol.command.screen-x",
		"ai-control-protocol.security.server-authority", "ai-control-protocol.validation.shipping-artifact",
		"ai-control-protocol.error.queue-full", "ai-control-protocol.method.events"} {
		found := false
		for _, e := range d.Entries() {
			found = found || e.ID == id
		}
		if !found {
			t.Errorf("entry %s is missing", id)
		}
	}
	for _, m := range d.Methods {
		if m.ParamsType == nil || m.ResultType == nil {
			t.Errorf("method %s lacks a typed params or result", m.Method)
		}
	}
	if len(d.Events) != 1 || d.Events[0].Name != "command_completed" || d.Events[0].PayloadType == nil {
		t.Errorf("events = %v, want command_completed with a typed payload", d.Events)
	}
	for name, want := range map[string]string{"MaxLineBytes": "1048576", "DefaultPort": "43011", "DefaultHost": `"127.0.0.1"`,
		"DefaultMaxQueuedCommands": "64", "DefaultMaxEvents": "512", "JSONRPCVersion": `"2.0"`, "ProtocolVersion": "1",
		"DefaultEventsPerRequest": "100", "MaxEventsPerRequest": "500"} {
		found := false
		for _, c := range d.Constants {
			if c.Symbol == name {
				found = true
				if string(c.Value) != want {
					t.Errorf("%s = %s, want %s", name, c.Value, want)
				}
			}
		}
		if !found {
			t.Errorf("constant %s is missing", name)
		}
	}
}

// BenchmarkGenerate measures a full in-memory generation of every spec
// (what gen --check does before comparing with the disk).
func BenchmarkGenerate(b *testing.B) {
	fsys := repotest.MapFS(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Generate(fsys); err != nil {
			b.Fatal(err)
		}
	}
}

// The demo spec exercises what AiControl does not: a tagged union with an
// object and a tag-only variant, a string enum, a required nullable
// member, an object that rejects unknown members, a constant-bounded
// clamp, and a decimal-u64 alias. Its generated package must compile,
// vet clean, and pass a round-trip test.
func TestDemoPackageCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a generated package; skipped with -short")
	}
	_, out := demoRepo(t)
	rt, err := os.ReadFile("testdata/demo_roundtrip_test.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	// The module holds what the demo package needs and nothing else: its
	// generated files, the two runtime packages it imports, go.mod.
	fsys := fstest.MapFS{}
	for p, f := range repotest.MapFS(t) {
		dir := path.Dir(p)
		if p == "go.mod" || p == "go.sum" || (dir == "runtime/genrt" || dir == "runtime/strictjson") && !strings.HasSuffix(p, "_test.go") {
			fsys[p] = f
		}
	}
	for p, data := range out.Files {
		if strings.HasPrefix(p, "generated/demo/") {
			fsys[p] = &fstest.MapFile{Data: data}
		}
	}
	fsys["generated/demo/roundtrip_test.go"] = &fstest.MapFile{Data: rt}
	dir := repotest.CopyTo(t, fsys)
	for _, args := range [][]string{{"vet", "./generated/demo/"}, {"test", "-count=1", "./generated/demo/"}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, b)
		}
	}
}

// checkImports fails on a generated Go file that imports anything of
// contractkit but its public runtime packages (and, in the registry, the
// generated packages themselves): an internal/ package cannot be imported
// from another module, so generated code that did would not build there.
func checkImports(t *testing.T, out *Output) {
	t.Helper()
	allowed := map[string]bool{}
	for _, p := range goemit.RuntimePackages {
		allowed[p] = true
	}
	seen := 0
	for _, p := range out.Paths() {
		if !strings.HasSuffix(p, ".go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, out.Files[p], parser.ImportsOnly)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case allowed[ip]:
				seen++
			case strings.HasPrefix(ip, goemit.Module+"/generated/"):
			case strings.Contains(ip, "/internal/") || strings.HasPrefix(ip, goemit.Module+"/"):
				t.Errorf("%s imports %s: generated code may import only %v", p, ip, goemit.RuntimePackages)
			case strings.Contains(strings.SplitN(ip, "/", 2)[0], "."):
				t.Errorf("%s imports %s, outside the standard library and contractkit's runtime", p, ip)
			}
		}
	}
	if seen == 0 {
		t.Error("no generated file imports the runtime packages: the check saw nothing")
	}
}
