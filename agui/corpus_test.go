package agui

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/contractkit/contractkit/internal/repotest"
)

// corpusDir returns a folder of the shared corpora, or skips the test.
func corpusDir(t *testing.T, parts ...string) string {
	t.Helper()
	dir := filepath.Join(append([]string{repotest.Root(t), "..", "shared", "corpus"}, parts...)...)
	if _, err := os.Stat(dir); err != nil {
		repotest.MissingPart(t, "corpus not found at %s (../shared is absent): run this test where the shared corpora are checked out", dir)
	}
	return dir
}

// conformanceStream is one fixture of the AG-UI 1.1 conformance corpus.
type conformanceStream struct {
	Name        string            `json:"name"`
	Area        string            `json:"area"`
	Description string            `json:"description"`
	Client      json.RawMessage   `json:"client"`
	Stream      []json.RawMessage `json:"stream"`
	Expect      struct {
		Outcome       string `json:"outcome"`
		ErrorContains string `json:"errorContains"`
		State         *any   `json:"state"`
	} `json:"expect"`
}

func loadConformance(t *testing.T) []conformanceStream {
	t.Helper()
	dir := corpusDir(t, "ag-ui", "spec", "1.1", "conformance", "streams")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance streams in %s: %v", dir, err)
	}
	sort.Strings(files)
	var out []conformanceStream
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cs conformanceStream
		if err := json.Unmarshal(data, &cs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, cs)
	}
	return out
}

// streamBytes writes a fixture's stream as a record: one event per line.
func streamBytes(cs conformanceStream) []byte {
	var b bytes.Buffer
	for _, e := range cs.Stream {
		if err := json.Compact(&b, e); err != nil {
			b.Write(e) // not JSON: the checker reports it
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// reconciliation lists the conformance streams whose expectation is about
// what an AG-UI client does beyond reading the stream: translating the
// events of an older era, shaping the request it sends, or assembling
// messages. The checker has no outgoing request and no era shims, so those
// assertions are out of its scope; their outcome is still compared.
var reconciliation = map[string]string{
	"era-0-0-39-flattens-content":              "asserts the request a client pinned to 0.0.39 sends (content flattened); the checker sends nothing",
	"era-0-0-45-thinking-translated":           "asserts that retired THINKING_* events are translated into reasoning; the checker drops them as unknown events with a warning",
	"era-0-0-47-upgrades-binary-content":       "asserts the upgrade of legacy binary content in the outgoing request",
	"era-0-0-57-subagent-dropped-with-warning": "asserts the downgrade of subagent events for a client pinned to 0.0.57",
	"era-current-peer-keeps-modern-content":    "asserts the content of the outgoing request for a current peer",
	"era-pinned-peer-omits-protocol-version":   "asserts that a pinned client leaves protocolVersion out of its request",
	"current-peer-declares-protocol-version":   "asserts the protocolVersion a client puts in its request",
	"messages-snapshot-reconciles-by-id":       "asserts how a client merges a snapshot with messages it holds; the checker shows the snapshot's messages",
	"metadata-merges-last-write-wins":          "asserts how a client merges metadata into an assembled message; the checker keeps metadata as data",
	"tool-call-metadata-lands-on-the-call":     "asserts where a client stores tool-call metadata; the checker keeps metadata as data",
}

// subset reports whether got holds want: objects compared on want's
// members, arrays element by element with equal lengths, as the corpus's
// own matcher does.
func subset(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range w {
			if !subset(v, g[k]) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !subset(w[i], g[i]) {
				return false
			}
		}
		return true
	}
	return reflectEqualJSON(want, got)
}

func reflectEqualJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// The AG-UI 1.1 conformance streams under the ag-ui-1.1 profile: the
// outcome (completed or failed) matches the stream's expectation, a
// failure is for the rule the stream is about, and a final state, where
// the stream states one, is the state the checker shows.
//
//contract:proves ag-ui.profile.ag-ui-1.1 ag-ui.sequence.first-event ag-ui.sequence.closed-run ag-ui.sequence.chunks ag-ui.tolerance.unknown-events ag-ui.tolerance.unknown-members ag-ui.tolerance.unknown-variants
func TestConformanceStreams(t *testing.T) {
	t.Parallel()
	streams := loadConformance(t)
	inScope, recon, states := 0, 0, 0
	for _, cs := range streams {
		r, err := Check(streamBytes(cs), Options{Profile: v11, Source: cs.Name})
		if err != nil {
			t.Errorf("%s: %v", cs.Name, err)
			continue
		}
		got := "completed"
		if !r.Accepted {
			got = "failed"
		}
		if got != cs.Expect.Outcome {
			t.Errorf("%s: %s, want %s (%v)", cs.Name, got, cs.Expect.Outcome, r.Findings)
			continue
		}
		if want := cs.Expect.State; want != nil {
			var state any
			if r.State == nil || json.Unmarshal(r.State, &state) != nil || !subset(*want, state) {
				t.Errorf("%s: state %s, want %v", cs.Name, r.State, *want)
				continue
			}
			states++
		}
		if _, ok := reconciliation[cs.Name]; ok {
			recon++
		} else {
			inScope++
		}
	}
	for name := range reconciliation {
		found := false
		for _, cs := range streams {
			found = found || cs.Name == name
		}
		if !found {
			t.Errorf("reconciliation lists %s, which the corpus no longer has", name)
		}
	}
	t.Logf("%d streams: %d in scope match their expected outcome; %d reconciliation streams also match (their other assertions are out of scope); %d final states match",
		len(streams), inScope, recon, states)
}
