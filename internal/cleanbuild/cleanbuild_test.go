package cleanbuild

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/repotest"
)

// commands are the module's commands. Each has a job below; a command
// added under cmd/ fails the test until it gets one.
var commands = []string{"agui", "aicontrol-mcp", "aicontrol-sample", "aictl", "contractdiff", "eska", "gen"}

const module = "github.com/contractkit/contractkit"

// Bounds: the build of every command with a cold cache on two cores, and
// each run of a command.
const (
	buildTimeout = 15 * time.Minute
	runTimeout   = time.Minute
	stopTimeout  = 10 * time.Second
)

// The token the sample, aictl and aicontrol-mcp share; the smoke needs a
// token-protected endpoint.
const token = "cleanbuild-token-4k7Q"

func TestEveryCommandFromACleanClone(t *testing.T) {
	if testing.Short() {
		t.Skip("clones the checkout and builds every command")
	}
	if _, err := exec.LookPath("git"); err != nil {
		repotest.MissingPart(t, "git is not installed: the test clones the checkout with it")
	}
	root := repotest.Root(t)
	headOut, _, err := output(root, nil, "git", "rev-parse", "HEAD")
	if err != nil {
		repotest.MissingPart(t, "the checkout has no git HEAD to clone: %v", err)
	}
	head := strings.TrimSpace(headOut)
	tmp := t.TempDir()
	clone, bin, work := filepath.Join(tmp, "clone"), filepath.Join(tmp, "bin"), filepath.Join(tmp, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}

	// A clone of HEAD alone: what a module proxy serves at a version.
	mustRun(t, tmp, nil, "git", "init", "-q", clone)
	mustRun(t, clone, nil, "git", "fetch", "-q", "--depth=1", "--no-tags", "file://"+filepath.ToSlash(root), "HEAD")
	mustRun(t, clone, nil, "git", "checkout", "-q", "--detach", "FETCH_HEAD")
	if got := strings.TrimSpace(mustRun(t, clone, nil, "git", "rev-parse", "HEAD")); got != head {
		t.Fatalf("the clone is at %s, the checkout at %s", got, head)
	}
	goVersion := strings.TrimSpace(mustRun(t, clone, goEnv(), "go", "env", "GOVERSION"))

	// go build alone, every command at once. -trimpath keeps the build
	// cache's keys free of the temporary folder's name, so a second run
	// reuses the first one's work; -buildvcs=true stamps the commit even
	// where a go env setting turned stamping off.
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=true", "-o", bin+string(filepath.Separator), "./cmd/...")
	build.Dir, build.Env = clone, goEnv()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/... in a clean clone: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(bin)
	if err != nil {
		t.Fatal(err)
	}
	var built []string
	for _, e := range entries {
		built = append(built, e.Name())
	}
	if !slices.Equal(built, commands) {
		t.Fatalf("go build ./cmd/... made %q; this test gives a job to %q: give every command one", built, commands)
	}
	cmd := func(name string) string { return filepath.Join(bin, name) }

	// gen and contractdiff work on a repository: this one, as its CI runs
	// them. (In a repository of another layout they are proved by the
	// adoption test.)
	t.Run("gen", func(t *testing.T) {
		code, out, errOut := run(t, clone, []string{"CONTRACTKIT_GEN_CACHE=off"}, cmd("gen"), "--check", "--quiet")
		if code != 0 {
			t.Errorf("gen --check in the clone: exit %d\n%s%s", code, out, errOut)
		}
	})
	t.Run("contractdiff", func(t *testing.T) { contractdiffJob(t, clone, filepath.Join(tmp, "baseline"), cmd("contractdiff")) })

	// What the other commands get from the repository is only what a
	// user would have: a record, and the stamp to compare the served
	// checker with. Then the tree goes: a binary that reads it fails.
	tutorial, err := os.ReadFile(filepath.Join(clone, "agui", "tutorial.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	stampData, err := os.ReadFile(filepath.Join(clone, "agui", "page", "checker.json"))
	if err != nil {
		t.Fatal(err)
	}
	var stamp struct{ Checker string }
	if err := json.Unmarshal(stampData, &stamp); err != nil || stamp.Checker == "" {
		t.Fatalf("agui/page/checker.json: %v %q", err, stampData)
	}
	if err := os.RemoveAll(clone); err != nil {
		t.Fatal(err)
	}

	// A clean checkout is stamped with its tag, or else a pseudo-version
	// that ends with the commit's short hash, and the commit itself.
	t.Run("version", func(t *testing.T) {
		for _, name := range commands {
			code, out, errOut := run(t, work, nil, cmd(name), "--version")
			m := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + ` (v\S+) \(` + regexp.QuoteMeta(module) + `, revision ` + head + `, \S+, ` + regexp.QuoteMeta(goVersion) + `\)`).FindStringSubmatch(out)
			if code != 0 || m == nil || strings.HasPrefix(m[1], "v0.0.0-") && !strings.HasSuffix(m[1], "-"+head[:12]) || strings.Count(out, "\n") != 1 {
				t.Errorf("%s --version: exit %d, stdout %q, stderr %q; want the version of commit %s, built by %s", name, code, out, errOut, head, goVersion)
			}
		}
	})
	t.Run("agui check", func(t *testing.T) { aguiCheckJob(t, work, cmd("agui"), tutorial) })
	t.Run("agui serve", func(t *testing.T) { aguiServeJob(t, work, cmd("agui"), stamp.Checker) })
	t.Run("eska tree", func(t *testing.T) { eskaJob(t, work, cmd("eska")) })
	t.Run("aicontrol", func(t *testing.T) { aicontrolJob(t, work, cmd("aicontrol-sample"), cmd("aictl"), cmd("aicontrol-mcp")) })
}

// contractdiff compares this repository's specs with a baseline where the
// AiControl line limit was one byte higher: lowering what the server
// accepts breaks clients, so with --enforce it blocks, naming the change.
func contractdiffJob(t *testing.T, clone, baseline, contractdiff string) {
	if err := os.MkdirAll(filepath.Join(baseline, "spec"), 0o755); err != nil {
		t.Fatal(err)
	}
	specs, err := filepath.Glob(filepath.Join(clone, "spec", "*.json"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no specs in the clone: %v", err)
	}
	for _, p := range specs {
		copyFile(t, p, filepath.Join(baseline, "spec", filepath.Base(p)))
	}
	copyFile(t, filepath.Join(clone, "contract-change-dispositions.json"), filepath.Join(baseline, "contract-change-dispositions.json"))
	specPath := filepath.Join(baseline, "spec", "AiControlProtocol.json")
	data, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	limit := `"value": ` + strconv.Itoa(aicontrol.MaxLineBytes) + `,`
	if n := bytes.Count(data, []byte(limit)); n != 1 {
		t.Fatalf("spec/AiControlProtocol.json holds %q %d times; the test raises the one line limit", limit, n)
	}
	raised := `"value": ` + strconv.Itoa(aicontrol.MaxLineBytes+1) + `,`
	if err := os.WriteFile(specPath, bytes.Replace(data, []byte(limit), []byte(raised), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, clone, nil, contractdiff, "--baseline-dir", baseline, "--enforce", "--format", "json")
	var rep struct {
		Status  string
		Counts  struct{ Breaking, MissingDispositions, DispositionProblems int }
		Domains []struct {
			Domain   string
			Findings []struct{ Rule, Severity, Target string }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("contractdiff --format json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	var found bool
	for _, d := range rep.Domains {
		for _, f := range d.Findings {
			found = found || d.Domain == "ai-control-protocol" && f.Rule == "limit-narrowed" && f.Severity == "breaking" && f.Target == "ai-control-protocol.limit.line-bytes/value"
		}
	}
	if code != 1 || rep.Status != "blocked" || rep.Counts.Breaking != 1 || rep.Counts.MissingDispositions != 1 || rep.Counts.DispositionProblems != 0 || !found {
		t.Errorf("contractdiff on a lowered line limit: exit %d, %+v\n%s", code, rep, errOut)
	}
}

// agui check accepts the tutorial record and rejects an unknown event.
func aguiCheckJob(t *testing.T, work, agui string, tutorial []byte) {
	for _, c := range []struct {
		name     string
		data     []byte
		code     int
		accepted bool
	}{
		{"tutorial.ndjson", tutorial, 0, true},
		{"unknown-event.json", []byte(`[{"type":"NOT_AN_EVENT"}]`), 1, false},
	} {
		if err := os.WriteFile(filepath.Join(work, c.name), c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := run(t, work, nil, agui, "check", "--json", c.name)
		var res struct {
			Accepted *bool
			Source   string
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != c.code || res.Accepted == nil || *res.Accepted != c.accepted || res.Source != c.name {
			t.Errorf("agui check %s: exit %d, %v\n%s%s", c.name, code, err, out, errOut)
		}
	}
}

var assetRef = regexp.MustCompile(`(?:src|href)="([^"]+)"`)

// agui serve: the page and every asset it names answer 200; the checker
// it serves is the committed one, a WebAssembly module whose every import
// the served loader provides and which exports what the loader calls.
// (That it runs, and answers as agui check does, make browser-test shows
// in Chromium.)
func aguiServeJob(t *testing.T, work, agui, checkerDigest string) {
	srv := start(t, work, nil, agui, "serve", "--port", "0")
	first := srv.line(t)
	i := strings.Index(first, "http://")
	if i < 0 {
		t.Fatalf("agui serve printed no URL: %q", first)
	}
	pageURL := strings.TrimSpace(first[i:])
	base := pageURL[:strings.Index(pageURL[len("http://"):], "/")+len("http://")]
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil}}
	get := func(url string) ([]byte, string) {
		t.Helper()
		resp, err := client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
		}
		return body, resp.Header.Get("Content-Type")
	}
	html, ctype := get(pageURL)
	if !strings.HasPrefix(ctype, "text/html") {
		t.Errorf("the page is served as %q", ctype)
	}
	assets := map[string][]byte{}
	for _, m := range assetRef.FindAllSubmatch(html, -1) {
		ref := string(m[1])
		if strings.Contains(ref, ":") || strings.HasPrefix(ref, "/") {
			t.Errorf("the page names %q, not an asset beside it", ref)
			continue
		}
		assets[ref], _ = get(base + "/" + ref)
	}
	script, loader := assets["agui.wasm.js"], assets["wasm_exec.js"]
	if script == nil || loader == nil {
		t.Fatalf("the page does not load the checker and its loader; it names %d assets", len(assets))
	}
	m := regexp.MustCompile(`globalThis\.aguiWasmBase64 = "([A-Za-z0-9+/=]+)";`).FindSubmatch(script)
	if m == nil {
		t.Fatalf("agui.wasm.js holds no checker: %.200q", script)
	}
	wasm, err := base64.StdEncoding.DecodeString(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(wasm); hex.EncodeToString(sum[:]) != checkerDigest {
		t.Errorf("the served checker (%d bytes) is not the one agui/page/checker.json names", len(wasm))
	}
	if err := links(wasm, loader); err != nil {
		t.Errorf("the served checker does not link against the served loader: %v", err)
	}
	code, out := srv.stop(t)
	if code != 0 || !strings.Contains(out, "agui serve: stopped") {
		t.Errorf("agui serve on SIGINT: exit %d, output %q", code, out)
	}
}

// links checks what WebAssembly.instantiate would check first: the module
// is well formed section by section, every function it imports is one the
// Go loader's import object defines (module "gojs"), and it exports what
// the loader calls to run it.
func links(wasm, loader []byte) error {
	if !bytes.HasPrefix(wasm, []byte("\x00asm\x01\x00\x00\x00")) {
		return errors.New("not a WebAssembly module of version 1")
	}
	r := &wasmReader{b: wasm[8:]}
	var imports []string
	exports := map[string]bool{}
	for len(r.b) > 0 {
		id := r.byte()
		body := &wasmReader{b: r.bytes(r.uint())}
		switch id {
		case 2: // imports
			for n := body.uint(); n > 0 && body.err == nil; n-- {
				mod, name := string(body.bytes(body.uint())), string(body.bytes(body.uint()))
				if kind := body.byte(); kind != 0 {
					return fmt.Errorf("import %s.%s is of kind %d, not a function", mod, name, kind)
				}
				body.uint() // the function's type
				if mod != "gojs" {
					return fmt.Errorf("import %s.%s is not from the Go loader's module gojs", mod, name)
				}
				imports = append(imports, name)
			}
		case 7: // exports
			for n := body.uint(); n > 0 && body.err == nil; n-- {
				name := string(body.bytes(body.uint()))
				body.byte()
				body.uint()
				exports[name] = true
			}
		}
		if body.err != nil {
			return fmt.Errorf("section %d: %w", id, body.err)
		}
	}
	if r.err != nil {
		return r.err
	}
	if len(imports) == 0 {
		return errors.New("the module imports nothing from the loader")
	}
	for _, name := range imports {
		if !bytes.Contains(loader, []byte(`"`+name+`":`)) {
			return fmt.Errorf("the loader defines no %q", name)
		}
	}
	for _, name := range []string{"run", "resume", "getsp", "mem"} {
		if !exports[name] || !bytes.Contains(loader, []byte("exports."+name)) {
			return fmt.Errorf("export %q: in the module %v, used by the loader %v", name, exports[name], bytes.Contains(loader, []byte("exports."+name)))
		}
	}
	return nil
}

// wasmReader reads the binary format's bytes, LEB128 numbers and vectors;
// the first error sticks.
type wasmReader struct {
	b   []byte
	err error
}

func (r *wasmReader) fail() {
	if r.err == nil {
		r.err = errors.New("truncated")
	}
	r.b = nil
}

func (r *wasmReader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *wasmReader) uint() uint64 {
	var v uint64
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	r.fail()
	return 0
}

func (r *wasmReader) bytes(n uint64) []byte {
	if uint64(len(r.b)) < n {
		r.fail()
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

// eska tree prints the Configurator tree of a small project written here.
func eskaJob(t *testing.T, work, eska string) {
	dir := filepath.Join(work, "project")
	head := "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<MetaDataObject xmlns=\"http://v8.1c.ru/8.3/MDClasses\" xmlns:v8=\"http://v8.1c.ru/8.1/data/core\" version=\"2.17\">\n"
	for name, content := range map[string]string{
		"eska.toml": "[project]\ntype = \"configuration\"\nsource = \"src\"\n",
		"src/Configuration.xml": head + `<Configuration uuid="00000000-0000-0000-0000-000000000001"><Properties><Name>Shop</Name>` +
			`<DefaultLanguage>Language.English</DefaultLanguage></Properties>` +
			`<ChildObjects><Language>English</Language><Catalog>Goods</Catalog></ChildObjects></Configuration>` + "\n</MetaDataObject>\n",
		"src/Languages/English.xml": head + `<Language uuid="00000000-0000-0000-0000-000000000002"><Properties><Name>English</Name>` +
			`<LanguageCode>en</LanguageCode></Properties></Language>` + "\n</MetaDataObject>\n",
		"src/Catalogs/Goods.xml": head + `<Catalog uuid="00000000-0000-0000-0000-000000000003"><Properties><Name>Goods</Name></Properties><ChildObjects/></Catalog>` + "\n</MetaDataObject>\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := run(t, work, nil, eska, "tree", "project")
	if code != 0 || !strings.HasPrefix(out, "Shop (configuration)\n") || !strings.Contains(out, "\n  Catalogs\n    Goods\n") {
		t.Errorf("eska tree: exit %d\n%s%s", code, out, errOut)
	}
}

// The sample listens; aictl's smoke passes 12 of 12 against it; and
// aicontrol-mcp, given the actions file the sample prints, lists a tool
// per action and its observe tool over stdio.
func aicontrolJob(t *testing.T, work, sample, aictl, mcp string) {
	env := []string{"AICONTROL_TOKEN=" + token}
	game := start(t, work, env, sample, "--port", "0")
	var ready struct {
		Ready bool
		Host  string
		Port  int
	}
	if line := game.line(t); json.Unmarshal([]byte(line), &ready) != nil || !ready.Ready || ready.Host != "127.0.0.1" || ready.Port == 0 {
		t.Fatalf("the sample's ready line %q", line)
	}
	port := strconv.Itoa(ready.Port)
	defer func() {
		if code, out := game.stop(t); code != 0 {
			t.Errorf("the sample on SIGINT: exit %d\n%s", code, out)
		}
	}()

	code, out, errOut := run(t, work, env, aictl, "smoke", "--port", port)
	var rep bridge.SmokeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || rep.Status != "passed" || rep.CheckCount != len(bridge.SmokeChecks) || len(rep.Checks) != len(bridge.SmokeChecks) {
		t.Errorf("aictl smoke: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	for _, c := range rep.Checks {
		if c.Status != "passed" {
			t.Errorf("smoke check %s: %s %s", c.Name, c.Status, c.Detail)
		}
	}

	code, actions, errOut := run(t, work, nil, sample, "--print-actions")
	if code != 0 {
		t.Fatalf("aicontrol-sample --print-actions: exit %d %s", code, errOut)
	}
	if err := os.WriteFile(filepath.Join(work, "actions.json"), []byte(actions), 0o644); err != nil {
		t.Fatal(err)
	}
	server := start(t, work, env, mcp, "--actions", "actions.json", "--port", port)
	server.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cleanbuild","version":"1"}}}`)
	server.reply(t, 1)
	server.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	server.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var list struct {
		Tools []struct{ Name string }
	}
	if err := json.Unmarshal(server.reply(t, 2), &list); err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, tool := range list.Tools {
		tools = append(tools, tool.Name)
	}
	slices.Sort(tools)
	if want := []string{"echo", "fail", "move", "observe", "wait"}; !slices.Equal(tools, want) {
		t.Errorf("aicontrol-mcp lists %q, want %q", tools, want)
	}
	server.stdin.Close()
	if code, out := server.wait(t); code != 0 {
		t.Errorf("aicontrol-mcp after its client left: exit %d\n%s", code, out)
	}
}

// proc is a command left running: a server, read line by line.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr bytes.Buffer
	done   chan struct{}
	err    error
}

// start runs a command in dir; it is killed when the test ends if it is
// still running.
func start(t *testing.T, dir string, env []string, name string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(name, args...), lines: make(chan string, 64), done: make(chan struct{})}
	p.cmd.Dir, p.cmd.Env = dir, append(os.Environ(), env...)
	p.cmd.Stderr = &p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// line is the next line of stdout.
func (p *proc) line(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			<-p.done
			t.Fatalf("%s ended (%v) without the line expected\n%s", filepath.Base(p.cmd.Path), p.err, p.stderr.String())
		}
		return l
	case <-time.After(runTimeout):
		t.Fatalf("%s wrote no line in %s\n%s", filepath.Base(p.cmd.Path), runTimeout, p.stderr.String())
	}
	return ""
}

func (p *proc) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// reply reads JSON-RPC messages until the response with this id, and
// returns its result.
func (p *proc) reply(t *testing.T, id int) json.RawMessage {
	t.Helper()
	for {
		var msg struct {
			ID     *int
			Result json.RawMessage
			Error  json.RawMessage
		}
		line := p.line(t)
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("not JSON-RPC: %q", line)
		}
		if msg.ID != nil && *msg.ID == id {
			if msg.Error != nil {
				t.Fatalf("request %d: %s", id, msg.Error)
			}
			return msg.Result
		}
	}
}

// stop interrupts the command as Ctrl+C would and waits for it.
func (p *proc) stop(t *testing.T) (int, string) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGINT)
	return p.wait(t)
}

// wait waits for the command to end; it returns the exit code and what
// it wrote that was not read.
func (p *proc) wait(t *testing.T) (int, string) {
	t.Helper()
	var rest strings.Builder
	deadline := time.After(stopTimeout)
	for {
		select {
		case l, ok := <-p.lines:
			if ok {
				rest.WriteString(l + "\n")
				continue
			}
			<-p.done
			var ee *exec.ExitError
			if errors.As(p.err, &ee) {
				return ee.ExitCode(), rest.String() + p.stderr.String()
			}
			if p.err != nil {
				t.Fatal(p.err)
			}
			return 0, rest.String() + p.stderr.String()
		case <-deadline:
			t.Fatalf("%s did not end within %s", filepath.Base(p.cmd.Path), stopTimeout)
		}
	}
}

// goEnv is the environment of the go commands: flags a go env setting
// adds (this machine's turns VCS stamps off) are replaced, and no
// workspace file above the temporary folder takes part.
func goEnv() []string {
	return append(os.Environ(), "GOFLAGS=-mod=readonly", "GOWORK=off")
}

// run runs a command to its end, within runTimeout, and returns its exit
// code, stdout and stderr.
func run(t *testing.T, dir string, env []string, name string, args ...string) (int, string, string) {
	t.Helper()
	out, errOut, err := output(dir, env, name, args...)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out, errOut
	}
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, errOut)
	}
	return 0, out, errOut
}

func output(dir string, env []string, name string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, name, args...)
	c.Dir, c.Env = dir, append(os.Environ(), env...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	return out.String(), errb.String(), err
}

// mustRun runs a command that must succeed and returns its stdout.
func mustRun(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, errOut, err := output(dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, errOut)
	}
	return out
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
