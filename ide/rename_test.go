package ide

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// metadataRename, linkedPropertyEdits and unsignedIntegerProperties are
// granted from minors 9, 10 and 11 with the opt-in; without them the
// rename methods do not exist.
//
//contract:proves eska-ide-api.versions.opt-in eska-ide-api.versions.gating
func TestRenameCapabilities(t *testing.T) {
	ctx := `"sessionId":"s9","projectId":"p1","generation":"0","objectId":"catalog:К","newName":"Н"`
	for _, c := range []struct {
		minor                    int
		optIn                    bool
		rename, linked, unsigned string // "" absent
		preview                  int64
	}{
		{8, true, "", "", "", gen.CodeMethodNotFound},
		{9, false, "false", "", "", gen.CodeMethodNotFound},
		{9, true, "true", "", "", gen.CodeRequestFailed},
		{10, true, "true", "true", "", gen.CodeRequestFailed},
		{11, false, "false", "false", "false", gen.CodeMethodNotFound},
		{11, true, "true", "true", "true", gen.CodeRequestFailed},
	} {
		s := open(t)
		r, _ := decodeResponse(s.call(initialize(c.minor, c.optIn)))
		var res struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		json.Unmarshal(r.Result, &res)
		got := [3]string{string(res.Capabilities["metadataRename"]), string(res.Capabilities["linkedPropertyEdits"]), string(res.Capabilities["unsignedIntegerProperties"])}
		if got != [3]string{c.rename, c.linked, c.unsigned} {
			t.Errorf("1.%d opt-in %v: %v", c.minor, c.optIn, got)
		}
		if code, _ := errorOf(t, s.call(`{"jsonrpc":"2.0","id":"p","method":"metadata/renamePreview","params":{`+ctx+`}}`)); code != c.preview {
			t.Errorf("1.%d opt-in %v: renamePreview %d", c.minor, c.optIn, code)
		}
		if code, _ := errorOf(t, s.call(`{"jsonrpc":"2.0","id":"a","method":"metadata/renameApply","params":{`+ctx+`,"snapshot":"x","reviewedUncertain":true}}`)); code != c.preview {
			t.Errorf("1.%d opt-in %v: renameApply %d", c.minor, c.optIn, code)
		}
	}
}

// renameSession opens the edit project as a client of 1.11 that opted in.
func renameSession(t *testing.T, dir string) *session {
	s := openNotifying(t)
	s.call(initialize(11, true))
	s.send(`{"jsonrpc":"2.0","id":"o","method":"workspace/open","params":{"start":{"value":` + itoaString(dir) + `,"encoding":"utf-8"},"selection":{"kind":"current"},"diskCache":false}}`)
	if resp, _ := s.response(`"o"`); strings.Contains(resp, "error") {
		t.Fatal(resp)
	}
	return s
}

func (s *session) renamePlan(id, newName string) (snapshot string) {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":"rp","method":"metadata/renamePreview","params":{"sessionId":"s1","projectId":"p1","generation":"` + s.generation() +
		`","objectId":"` + id + `","newName":"` + newName + `"}}`)
	resp, _ := s.response(`"rp"`)
	var r struct {
		Result struct {
			ApplyAvailable bool
			Plan           struct{ Snapshot string }
		} `json:"result"`
	}
	json.Unmarshal([]byte(resp), &r)
	if !r.Result.ApplyAvailable {
		s.t.Fatalf("preview: %s", resp)
	}
	return r.Result.Plan.Snapshot
}

// Over the wire a rename answers renamed after a metadata/changed that
// carries the same renamed; cancelled once running, its result stands.
//
//contract:proves eska-ide-api.editing.renamed eska-ide-api.cancellation.mutating
//contract:proves eska-ide-api.method.metadata-rename-apply eska-ide-api.method.metadata-rename-preview
func TestRenameOverRPC(t *testing.T) {
	dir := editProject(t)
	s := renameSession(t, dir)
	snap := s.renamePlan("catalog:Малый", "Мелкий")
	// The hook holds the rename, once it has started, until its cancel
	// has reached it.
	started := make(chan struct{}, 1)
	writeStarted = func(ctx context.Context, objectID string) {
		if objectID == "catalog:Малый" {
			started <- struct{}{}
			<-ctx.Done()
		}
	}
	defer func() { writeStarted = nil }()
	s.send(`{"jsonrpc":"2.0","id":"ra","method":"metadata/renameApply","params":{"sessionId":"s1","projectId":"p1","generation":"` + s.generation() +
		`","objectId":"catalog:Малый","newName":"Мелкий","snapshot":"` + snap + `","reviewedUncertain":false}}`)
	<-started
	s.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"ra"}}`)
	resp, notes := s.response(`"ra"`)
	_, statErr := os.Stat(filepath.Join(dir, "src", "Catalogs", "Мелкий.xml"))
	if code, _ := errorOf(t, resp); code != 0 || statErr != nil {
		t.Fatalf("answer %s while the descriptor moved: %v", resp, statErr == nil)
	}
	renamed := `"renamed":{"from":"catalog:Малый","to":"catalog:Мелкий","descendantFrom":"catalog:Малый/","descendantTo":"catalog:Мелкий/"}`
	if !strings.Contains(resp, renamed) {
		t.Errorf("answer %s", resp)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "metadata/changed") || !strings.Contains(notes[0], renamed) {
		t.Errorf("metadata/changed before the answer: %v", notes)
	}
}

// An unsigned value above 2^64-1 is invalid params over the wire, and
// the file is not touched.
//
//contract:proves eska-ide-api.editing.unsigned-decimal
func TestUnsignedOverRPC(t *testing.T) {
	dir := editProject(t)
	desc := filepath.Join(dir, "src", "HTTPServices", "Api.xml")
	os.MkdirAll(filepath.Dir(desc), 0o755)
	os.WriteFile(desc, []byte(edMD+"\t<HTTPService uuid=\"00000000-0000-0000-0000-000000000009\">\n\t\t<Properties>\n\t\t\t<Name>Api</Name>\n\t\t\t<SessionMaxAge>20</SessionMaxAge>\n\t\t</Properties>\n\t</HTTPService>\n</MetaDataObject>\n"), 0o644)
	cfg := filepath.Join(dir, "src", "Configuration.xml")
	data, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, []byte(strings.Replace(string(data), "</ChildObjects>", "<HTTPService>Api</HTTPService></ChildObjects>", 1)), 0o644)
	s := renameSession(t, dir)
	snap := snapshotOf(t, s, "http-service:Api")
	before, _ := os.ReadFile(desc)
	for _, v := range []string{`"18446744073709551616"`, `"-1"`, `"2.5"`} {
		s.send(`{"jsonrpc":"2.0","id":"u","method":"metadata/updateProperty","params":{"sessionId":"s1","projectId":"p1","generation":"` + s.generation() +
			`","objectId":"http-service:Api","snapshot":"` + snap + `","path":"SessionMaxAge","change":{"kind":"unsignedInteger","value":` + v + `}}}`)
		resp, _ := s.response(`"u"`)
		if code, _ := errorOf(t, resp); code != gen.CodeInvalidParams {
			t.Errorf("%s: %s", v, resp)
		}
	}
	if after, _ := os.ReadFile(desc); string(after) != string(before) {
		t.Error("a refused value was written")
	}
	s.send(`{"jsonrpc":"2.0","id":"u","method":"metadata/updateProperty","params":{"sessionId":"s1","projectId":"p1","generation":"` + s.generation() +
		`","objectId":"http-service:Api","snapshot":"` + snap + `","path":"SessionMaxAge","change":{"kind":"unsignedInteger","value":"18446744073709551615"}}}`)
	if resp, _ := s.response(`"u"`); !strings.Contains(resp, `"value":"18446744073709551615"`) {
		t.Errorf("2^64-1: %s", resp)
	}
}
