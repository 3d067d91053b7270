package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/repotest"
)

// copyTree copies a directory of the shared corpora into a temporary one:
// the corpus stays read-only, and the copy gets its eska.toml.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// eskaFixtureProject is the eska test configuration with a manifest.
func eskaFixtureProject(t *testing.T) string {
	t.Helper()
	src := filepath.Join(repotest.Root(t), "..", "shared", "corpus", "eska", "tests", "fixtures", "designer", "configuration")
	if _, err := os.Stat(src); err != nil {
		repotest.MissingPart(t, "eska fixtures not found at %s (../shared is absent)", src)
	}
	dir := t.TempDir()
	copyTree(t, src, filepath.Join(dir, "src"))
	if err := os.WriteFile(filepath.Join(dir, "eska.toml"), []byte("[project]\ntype = \"configuration\"\nsource = \"src\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// shapeOf describes what the contract fixes about a message: a
// notification's method and params members, a result's members, an
// error's code and kind. Values are illustrative in the fixtures.
func shapeOf(t *testing.T, raw []byte) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) != nil {
			t.Fatalf("not JSON: %s", raw)
		}
		var parts []string
		for _, a := range arr {
			parts = append(parts, shapeOf(t, a))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	members := func(raw json.RawMessage) string {
		var o map[string]json.RawMessage
		if json.Unmarshal(raw, &o) != nil {
			return string(raw)
		}
		var ks []string
		for k := range o {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return strings.Join(ks, ",")
	}
	switch {
	case m["method"] != nil:
		return "notification " + string(m["method"]) + " {" + members(m["params"]) + "}"
	case m["error"] != nil:
		var e struct {
			Code int64 `json:"code"`
			Data struct {
				Kind string `json:"kind"`
			} `json:"data"`
		}
		json.Unmarshal(m["error"], &e)
		return "error " + string(m["id"]) + " " + jsonInt(e.Code) + " " + e.Data.Kind
	}
	return "result " + string(m["id"]) + " {" + members(m["result"]) + "}"
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

// The eska fixtures that need an open session, replayed through the real
// binary on the eska test configuration: each answer has the shape the
// fixture shows (members of results and notifications, codes and kinds of
// errors) in the same order, notifications before the response they
// precede.
//
//contract:proves eska-ide-api.file-events.changed
//contract:proves eska-ide-api.notification.metadata-changed
func TestFixtureReplaySession(t *testing.T) {
	fx := readFixtures(t)
	project := eskaFixtureProject(t)
	bin := build(t)
	startJSON, _ := json.Marshal(project)
	open := `{"jsonrpc":"2.0","id":"open","method":"workspace/open","params":{"start":{"value":` + string(startJSON) + `,"encoding":"utf-8"},"selection":{"kind":"current"}}}`
	index := `{"jsonrpc":"2.0","id":"ix","method":"metadata/index","params":{"sessionId":"s1","projectId":"p1","generation":"0","action":"start"}}`
	// What each case needs before its own messages, and how many frames
	// that produces after initialize and open.
	pre := map[string][]string{
		"metadata/search":  {index},
		"stale-generation": {`{"jsonrpc":"2.0","method":"workspace/didChangeFiles","params":{"sessionId":"s1","projectId":"p1","sequence":"1","paths":[{"value":"Catalogs/Контрагенты.xml","encoding":"utf-8"}]}}`},
		"index-progress":   {index},
	}
	skip := map[string]string{
		"cancel-pending": "its timing (a request queued behind another) is covered by ide/rpc's cancellation tests",
	}
	replayed := 0
	for _, c := range fx.Cases {
		if _, ok := needsBackend[c.Name]; !ok {
			continue
		}
		if why, ok := skip[c.Name]; ok {
			t.Logf("not replayed: %s: %s", c.Name, why)
			continue
		}
		input := []string{init10}
		if c.Name != "workspace/open" {
			input = append(input, open)
		}
		input = append(input, pre[c.Name]...)
		for _, m := range c.Client {
			s := string(m)
			if c.Name == "workspace/open" {
				s = strings.Replace(s, `"/workspace/demo"`, string(startJSON), 1)
			}
			input = append(input, s)
		}
		p := startProc(t, bin)
		// A search comes after indexing has finished, as it would from a
		// client; the progress case waits for the index's last word.
		own := len(input) - len(c.Client)
		p.send(framed(input[:own]...))
		if c.Name == "metadata/search" || c.Name == "index-progress" {
			p.waitFor("end of indexing", indexFinished)
		}
		p.send(framed(append(slices.Clip(input[own:]), sentinel)...))
		p.waitFor("answer to the sentinel", answered(sentinelID))
		got, stderr, _ := p.finish()
		got = withoutSentinel(t, c.Name, got)
		// Drop the answers to initialize, open and the preconditions.
		var rest []string
		for _, g := range got {
			var m map[string]json.RawMessage
			json.Unmarshal([]byte(g), &m)
			id := string(m["id"])
			if id == `"i"` || id == `"open"` || id == `"ix"` {
				continue
			}
			if c.Name == "metadata/search" && string(m["method"]) == `"metadata/indexProgress"` {
				continue // from the precondition's index
			}
			rest = append(rest, g)
		}
		if c.Name == "index-progress" {
			// The fixture shows the final notification; earlier ones may precede it.
			if len(rest) > 0 {
				rest = rest[len(rest)-1:]
			}
		}
		if c.Name == "stale-generation" {
			// The file event's metadata/changed comes first.
			if len(rest) > 0 && strings.Contains(rest[0], `"metadata/changed"`) {
				rest = rest[1:]
			}
		}
		if len(rest) != len(c.Server) {
			t.Errorf("%s: %d messages, want %d:\n%v\nstderr: %s", c.Name, len(rest), len(c.Server), rest, stderr)
			continue
		}
		for i := range rest {
			if g, w := shapeOf(t, []byte(rest[i])), shapeOf(t, c.Server[i]); g != w {
				t.Errorf("%s: message %d\n got %s\nwant %s\n(%s)", c.Name, i, g, w, rest[i])
			}
		}
		replayed++
	}
	if replayed < 15 {
		t.Errorf("only %d session cases replayed", replayed)
	}
	t.Logf("%d session cases replayed by shape", replayed)
}

// indexFinished holds once an indexProgress notification says the index
// has stopped building (on this configuration it ends incomplete: one of
// its descriptors is broken on purpose).
func indexFinished(frames []string) bool {
	for _, f := range frames {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Progress struct {
					State gen.ProgressState `json:"state"`
				} `json:"progress"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(f), &m) == nil && m.Method == gen.NotificationMetadataIndexProgress &&
			m.Params.Progress.State != gen.ProgressStateBuilding && m.Params.Progress.State != gen.ProgressStateNotStarted {
			return true
		}
	}
	return false
}

// A file event carries at most 4096 paths: 4096 are applied, 4097 are
// invalid params (a short code on stderr, nothing applied), and the next
// batch then shows the gap in the sequence, so the loss is not silent.
//
//contract:proves eska-ide-api.limit.file-event-paths eska-ide-api.file-events.resync
//contract:proves eska-ide-api.method.project-info eska-ide-api.notification.workspace-did-change-files
func TestFileEventPathLimit(t *testing.T) {
	project := eskaFixtureProject(t)
	bin := build(t)
	startJSON, _ := json.Marshal(project)
	open := `{"jsonrpc":"2.0","id":"open","method":"workspace/open","params":{"start":{"value":` + string(startJSON) + `,"encoding":"utf-8"},"selection":{"kind":"current"},"diskCache":false}}`
	event := func(seq string, n int) string {
		paths := make([]string, n)
		for i := range paths {
			paths[i] = `{"value":"Catalogs/Контрагенты.xml","encoding":"utf-8"}`
		}
		return `{"jsonrpc":"2.0","method":"workspace/didChangeFiles","params":{"sessionId":"s1","projectId":"p1","sequence":"` + seq + `","paths":[` + strings.Join(paths, ",") + `]}}`
	}
	info := func(id string) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","method":"project/info","params":{"sessionId":"s1"}}`
	}
	got, stderr, code := runProcess(t, bin, framed(init10, open, event("1", gen.MaxFileEventPaths), event("2", gen.MaxFileEventPaths+1), info("info"), event("3", 1), info("after")), `the answer to "after"`, answered("after"))
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var changed []string
	for _, g := range got {
		if strings.Contains(g, `"method":"metadata/changed"`) {
			changed = append(changed, g)
		}
	}
	if len(changed) != 2 {
		t.Fatalf("%d metadata/changed, want 2: %v", len(changed), got)
	}
	if !strings.Contains(changed[0], `"generation":"1"`) || !strings.Contains(changed[0], `"requiresRefresh":false`) {
		t.Errorf("4096 paths: %s", changed[0])
	}
	if !strings.Contains(changed[1], `"requiresRefresh":true`) {
		t.Errorf("after the refused batch the gap must be announced: %s", changed[1])
	}
	if stderr == "" {
		t.Errorf("the refused batch left nothing on stderr")
	}
	// The refused batch changed nothing: project/info in between still has generation 1.
	var between string
	for i, g := range got {
		if strings.Contains(g, `"id":"info"`) {
			between = got[i]
			break
		}
	}
	if !strings.Contains(between, `"generation":"1"`) || !strings.Contains(between, `"requiresRefresh":false`) {
		t.Errorf("project/info after the refused batch: %s", between)
	}
}
