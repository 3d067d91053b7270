package browsertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
	"github.com/contractkit/contractkit/internal/repotest"
)

// Hostile strings: markup, a script end, a bidirectional override and an
// embedded URL. None may become an element, run, reorder the page or be
// requested.
const (
	evilImg    = `<img src=x onerror="window.__pwned=1">`
	evilScript = `</script><script>window.__pwned=2</script>`
	evilBidi   = "invoice\u202Egnp.exe"
	evilURL    = "https://agent.example/steal?c=1"
)

type ev = map[string]any

func ndjson(t testing.TB, events ...ev) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, e := range events {
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func started() ev  { return ev{"type": contract.EventRunStarted, "threadId": "t", "runId": "r"} }
func finished() ev { return ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r"} }

// hostileRecords writes the hostile and edge-case records into dir and
// returns their paths, sorted.
func hostileRecords(t *testing.T, dir string) []string {
	t.Helper()
	files := map[string][]byte{
		"xss.ndjson": ndjson(t, started(),
			ev{"type": contract.EventTextMessageStart, "messageId": evilImg, "role": "assistant"},
			ev{"type": contract.EventTextMessageContent, "messageId": evilImg, "delta": evilScript + " " + evilBidi + " " + evilURL},
			ev{"type": contract.EventTextMessageEnd, "messageId": evilImg},
			ev{"type": contract.EventStepStarted, "stepName": evilBidi},
			ev{"type": contract.EventStepFinished, "stepName": evilBidi},
			ev{"type": contract.EventStateSnapshot, "snapshot": ev{evilImg: evilScript, "bidi": evilBidi, "url": evilURL}},
			ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r", "outcome": ev{"type": "interrupt", "interrupts": []any{
				ev{"id": evilImg, "reason": evilScript, "message": evilBidi, "metadata": ev{"img": evilImg}}}}},
		),
		"run-error.ndjson": ndjson(t, started(),
			ev{"type": contract.EventRunError, "message": evilScript + evilBidi, "code": evilImg}),
		// A JSON escape of a lone surrogate: the reader refuses it.
		"lone-surrogate.ndjson": []byte(string(ndjson(t, started())) +
			`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}` + "\n" +
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud800<img src=x onerror=\"window.__pwned=3\">"}` + "\n"),
		"lone-surrogate-key.ndjson": []byte(string(ndjson(t, started())) +
			`{"type":"STATE_SNAPSHOT","snapshot":{"\udc00":1}}` + "\n"),
		"custom-event.json": []byte(`[{"type":"RUN_STARTED","threadId":"t","runId":"r"},{"type":"CUSTOM","name":"n","value":1},{"type":"RUN_FINISHED","threadId":"t","runId":"r"}]`),
		"unfinished.ndjson": ndjson(t, started(),
			ev{"type": contract.EventTextMessageStart, "messageId": "open-message", "role": "assistant"},
			ev{"type": contract.EventTextMessageContent, "messageId": "open-message", "delta": "half a sente"},
			ev{"type": contract.EventStepStarted, "stepName": "open-step"},
			ev{"type": contract.EventToolCallStart, "toolCallId": "open-call", "toolCallName": "search"},
			ev{"type": contract.EventToolCallArgs, "toolCallId": "open-call", "delta": `{"q":`},
		),
		"duplicate-names.ndjson":  []byte(string(ndjson(t, started())) + `{"type":"STATE_SNAPSHOT","snapshot":{"a":1,"\u0061":2}}` + "\n"),
		"not-json.ndjson":         []byte("{\"type\":\"RUN_STARTED\",\n"),
		"empty.ndjson":            []byte(" \n"),
		"numbers.ndjson":          []byte(string(ndjson(t, started())) + `{"type":"STATE_SNAPSHOT","snapshot":{"fraction":1.50,"exp":1E2,"big":1e400,"neg":-0.0}}` + "\n" + string(ndjson(t, finished()))),
		"oversize.ndjson":         append(ndjson(t, started(), finished()), bytes.Repeat([]byte(" "), contract.LimitInputBytes)...),
		"compact-output.ndjson":   copies(t, 10000, 12, false),
		"refused-output.ndjson":   copies(t, 100000, 12, true),
		"tutorial-lookalike.json": []byte(`[{"type":"RUN_STARTED","threadId":"tutorial-thread","runId":"tutorial-run"},{"type":"RUN_FINISHED","threadId":"tutorial-thread","runId":"tutorial-run"}]`),
	}
	var paths []string
	for name, data := range files {
		paths = append(paths, writeFile(t, dir, name, data))
	}
	sort.Strings(paths)
	return paths
}

// copies is an AG-UI 1.1 record whose state is copied n times by one delta:
// with many small values (the full form large, the compact one within the
// output bound) or one long string (even the compact form too large).
func copies(t *testing.T, size, n int, long bool) []byte {
	t.Helper()
	var value any
	if long {
		value = strings.Repeat("x", size)
	} else {
		list := make([]int, size)
		for i := range list {
			list[i] = i % 10
		}
		value = list
	}
	var ops []any
	for i := 0; i < n; i++ {
		ops = append(ops, ev{"op": "copy", "from": "/a", "path": fmt.Sprintf("/c%d", i)})
	}
	return ndjson(t, started(),
		ev{"type": contract.EventStateSnapshot, "snapshot": ev{"a": value}},
		ev{"type": contract.EventStateDelta, "delta": ops},
		finished())
}

// conformanceRecords writes every AG-UI 1.1 conformance stream of the
// shared corpus as a record (one event per line, as agui's own corpus test
// does), or skips when ../shared is absent.
func conformanceRecords(t *testing.T, dir string) []string {
	t.Helper()
	src := filepath.Join(repoRoot, "..", "shared", "corpus", "ag-ui", "spec", "1.1", "conformance", "streams")
	files, err := filepath.Glob(filepath.Join(src, "*.json"))
	if err != nil || len(files) == 0 {
		repotest.MissingPart(t, "no conformance streams at %s (../shared is absent): run where the shared corpora are checked out", src)
	}
	sort.Strings(files)
	var paths []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fx struct {
			Name   string            `json:"name"`
			Stream []json.RawMessage `json:"stream"`
		}
		if err := json.Unmarshal(data, &fx); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var b bytes.Buffer
		for _, e := range fx.Stream {
			if err := json.Compact(&b, e); err != nil {
				b.Write(e)
			}
			b.WriteByte('\n')
		}
		paths = append(paths, writeFile(t, dir, fx.Name+".ndjson", b.Bytes()))
	}
	return paths
}

// record512 is an accepted stand record of exactly LimitInputBytes bytes:
// streamed messages, a tool call and a large state snapshot, as a busy run
// would record them.
func record512(t testing.TB) []byte {
	t.Helper()
	var events []ev
	events = append(events, started())
	for i := 0; i < 300; i++ {
		id := fmt.Sprintf("m%d", i)
		events = append(events,
			ev{"type": contract.EventTextMessageStart, "messageId": id, "role": "assistant"},
			ev{"type": contract.EventTextMessageContent, "messageId": id, "delta": strings.Repeat("Streaming text of a message, word by word. ", 3)},
			ev{"type": contract.EventTextMessageEnd, "messageId": id})
	}
	state := ev{}
	for i := 0; i < 22000; i++ {
		state[fmt.Sprintf("k%05d", i)] = float64(i) + 0.25
	}
	events = append(events, ev{"type": contract.EventStateSnapshot, "snapshot": state})
	body := ndjson(t, events...)
	tail := func(name string) []byte {
		return ndjson(t, ev{"type": contract.EventStepStarted, "stepName": name}, ev{"type": contract.EventStepFinished, "stepName": name}, finished())
	}
	// The step's name fills the record to the limit; it appears twice, and
	// an odd byte is a space at the end of the last line.
	pad := contract.LimitInputBytes - len(body) - len(tail(""))
	if pad < 0 {
		t.Fatalf("the 512 KiB record is %d bytes too large before padding", -pad)
	}
	end := tail(strings.Repeat("s", pad/2))
	if pad%2 == 1 {
		end = append(end[:len(end)-1], ' ', '\n')
	}
	body = append(body, end...)
	if len(body) != contract.LimitInputBytes {
		t.Fatalf("the record is %d bytes, want %d", len(body), contract.LimitInputBytes)
	}
	return body
}
