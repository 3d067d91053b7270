package ide

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/rpc"
	"github.com/contractkit/contractkit/internal/repotest"
)

// session runs the server in-process over pipes.
type session struct {
	t      *testing.T
	in     *io.PipeWriter
	frames chan string
	code   chan int
}

func open(t *testing.T) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{t: t, in: inW, frames: make(chan string, 64), code: make(chan int, 1)}
	var srv *rpc.Server
	h := NewServer("test", func(c string) { srv.Diag(c) })
	srv = rpc.NewServer(h.Config(io.Discard))
	go func() { s.code <- srv.Run(inR, outW); outW.Close() }()
	go func() {
		fr := rpc.NewFrameReader(outR, gen.MaxHeaderBytes, gen.MaxResponseBytes)
		for {
			b, err := fr.ReadFrame()
			if err != nil {
				close(s.frames)
				return
			}
			s.frames <- string(b)
		}
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return s
}

func (s *session) call(body string) string {
	s.t.Helper()
	if _, err := s.in.Write(rpc.AppendFrame(nil, []byte(body))); err != nil {
		s.t.Fatal(err)
	}
	select {
	case f := <-s.frames:
		return f
	case <-time.After(5 * time.Second):
		s.t.Fatalf("no response to %s", body)
	}
	return ""
}

// response is the JSON-RPC response envelope, read by the test itself.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func decodeResponse(resp string) (response, error) {
	var r response
	err := json.Unmarshal([]byte(resp), &r)
	return r, err
}

// errorOf decodes an error response and, for domain errors, its kind.
func errorOf(t *testing.T, resp string) (code int64, kind string) {
	t.Helper()
	r, err := decodeResponse(resp)
	if err != nil {
		t.Fatalf("%s: %v", resp, err)
	}
	if r.Error == nil {
		return 0, ""
	}
	if r.Error.Data != nil {
		d, err := gen.DecodeDomainErrorData(r.Error.Data)
		if err != nil {
			t.Fatalf("domain error data %s: %v", r.Error.Data, err)
		}
		kind = string(d.Kind)
	}
	return r.Error.Code, kind
}

func initialize(minor int, optIn bool) string {
	p := `{"apiVersion":{"major":1,"minor":` + itoa(minor) + `},"client":{"name":"Тест","version":"1"}`
	if optIn {
		p += `,"allowPropertyEdits":true`
	}
	return `{"jsonrpc":"2.0","id":"init","method":"initialize","params":` + p + `}}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// The version is negotiated: same major, client minor not above 11.
//
//contract:proves eska-ide-api.lifecycle.initialize-first eska-ide-api.versions.negotiation eska-ide-api.limits.announced
//contract:proves eska-ide-api.error-kind.unsupported-version eska-ide-api.method.initialize eska-ide-api.capability.self-update
func TestVersionNegotiation(t *testing.T) {
	for _, c := range []struct {
		params string
		kind   string
	}{
		{`{"apiVersion":{"major":2,"minor":0},"client":{"name":"x","version":"1"}}`, "unsupported_version"},
		{`{"apiVersion":{"major":1,"minor":12},"client":{"name":"x","version":"1"}}`, "unsupported_version"},
		{`{"apiVersion":{"major":0,"minor":5},"client":{"name":"x","version":"1"}}`, "unsupported_version"},
	} {
		s := open(t)
		code, kind := errorOf(t, s.call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+c.params+`}`))
		if code != gen.CodeRequestFailed || kind != c.kind {
			t.Errorf("%s: %d %s", c.params, code, kind)
		}
	}
	for minor := 0; minor <= gen.SupportedAPIMinor; minor++ {
		s := open(t)
		resp := s.call(initialize(minor, true))
		r, err := decodeResponse(resp)
		if err != nil || r.Result == nil {
			t.Fatalf("minor %d: %s %v", minor, resp, err)
		}
		res, err := gen.DecodeInitializeResult(r.Result)
		if err != nil || res.APIVersion.Minor != int64(minor) || res.Server.Name != gen.ServerName {
			t.Fatalf("minor %d: %s %v", minor, r.Result, err)
		}
		if l := res.Limits; l.MaxHeaderBytes != gen.MaxHeaderBytes || l.MaxRequestBytes != gen.MaxRequestBytes ||
			l.MaxResponseBytes != gen.MaxResponseBytes || l.MaxDepth != gen.MaxDepth || l.MaxBatchItems != gen.MaxBatchItems ||
			l.MaxPendingRequests != gen.MaxPendingRequests || l.MaxQueuedBytes != gen.MaxQueuedBytes {
			t.Errorf("minor %d: limits %+v", minor, l)
		}
		// A capability appears only to clients whose minor has it.
		var caps map[string]any
		_ = json.Unmarshal(mustJSON(t, res.Capabilities), &caps)
		for _, info := range gen.CapabilityTable {
			_, present := caps[info.Name]
			want := versionAtMost(info.Since, minor)
			if present != want {
				t.Errorf("minor %d: capability %s present=%v, since %s", minor, info.Name, present, info.Since)
			}
		}
		// `eska update` exists: selfUpdate is true from 1.1 (issue 27).
		if su := res.Capabilities.SelfUpdate; (minor == 0) != (su == nil) || su != nil && !*su {
			t.Errorf("minor %d: selfUpdate %v", minor, su)
		}
	}
}

func mustJSON(t *testing.T, m json.Marshaler) []byte {
	b, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func versionAtMost(since string, minor int) bool {
	parts := strings.SplitN(since, ".", 2)
	if len(parts) < 2 {
		return true
	}
	var m int
	_ = json.Unmarshal([]byte(parts[1]), &m)
	return m <= minor
}

// Methods of a later minor, or gated by a capability not granted, do not
// exist for the client; writes without the opt-in say property_read_only.
//
//contract:proves eska-ide-api.versions.gating eska-ide-api.versions.opt-in eska-ide-api.error-reporting.unsupported-write
//contract:proves eska-ide-api.error.method-not-found eska-ide-api.error.request-failed
func TestMethodAvailability(t *testing.T) {
	ctx := `"sessionId":"s1","projectId":"p1","generation":"0"`
	s := open(t)
	s.call(initialize(0, false))
	if code, _ := errorOf(t, s.call(`{"jsonrpc":"2.0","id":"w","method":"metadata/updateProperty","params":{`+ctx+`}}`)); code != gen.CodeMethodNotFound {
		t.Errorf("1.0 client, updateProperty: %d", code)
	}
	if code, _ := errorOf(t, s.call(`{"jsonrpc":"2.0","id":"r","method":"metadata/renamePreview","params":{`+ctx+`,"objectId":"a","newName":"b"}}`)); code != gen.CodeMethodNotFound {
		t.Errorf("1.0 client, renamePreview: %d", code)
	}
	if code, kind := errorOf(t, s.call(`{"jsonrpc":"2.0","id":"root","method":"metadata/root","params":{`+ctx+`}}`)); code != gen.CodeRequestFailed || kind != "unknown_session" {
		t.Errorf("metadata/root without a session: %d %s", code, kind)
	}
	if code, _ := errorOf(t, s.call(`{"jsonrpc":"2.0","id":"bad","method":"metadata/root","params":{"sessionId":"s1"}}`)); code != gen.CodeInvalidParams {
		t.Errorf("metadata/root with missing members: %d", code)
	}
	s = open(t)
	s.call(initialize(6, false))
	if code, kind := errorOf(t, s.call(`{"jsonrpc":"2.0","id":"w","method":"metadata/updateProperty","params":{`+ctx+`}}`)); code != gen.CodeRequestFailed || kind != "property_read_only" {
		t.Errorf("1.6 client without opt-in, updateProperty: %d %s", code, kind)
	}
}

// workspace/open without an eska.toml fails with manifest_missing (no
// project is ever made up), and a session the process does not have is
// unknown_session.
//
//contract:proves eska-ide-api.error-reporting.domain
//contract:proves eska-ide-api.error-kind.project-open-failed
func TestWorkspaceOpenWithoutManifest(t *testing.T) {
	s := open(t)
	s.call(initialize(0, false))
	dir := t.TempDir()
	resp := s.call(`{"jsonrpc":"2.0","id":"o","method":"workspace/open","params":{"start":{"value":` + itoaString(dir) + `,"encoding":"utf-8"},"selection":{"kind":"current"}}}`)
	code, kind := errorOf(t, resp)
	if code != gen.CodeRequestFailed || kind != "project_open_failed" || !strings.Contains(resp, `"reason":"manifest_missing"`) {
		t.Errorf("open without manifest: %s", resp)
	}
	resp = s.call(`{"jsonrpc":"2.0","id":"c","method":"workspace/close","params":{"sessionId":"s9"}}`)
	if _, kind := errorOf(t, resp); kind != "unknown_session" || !strings.Contains(resp, `"sessionId":"s9"`) {
		t.Errorf("close of an unknown session: %s", resp)
	}
}

func itoaString(s string) string { b, _ := json.Marshal(s); return string(b) }

// Unknown members of known objects are ignored; unknown enum values and
// wrong types of known members are invalid params.
//
//contract:proves eska-ide-api.envelope.unknown-members
func TestUnknownMembersAndEnums(t *testing.T) {
	s := open(t)
	resp := s.call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"apiVersion":{"major":1,"minor":0,"patch":7},"client":{"name":"x","version":"1","vendor":"y"},"futureMember":true}}`)
	if code, _ := errorOf(t, resp); code != 0 {
		t.Errorf("unknown members: %s", resp)
	}
	for _, params := range []string{
		`{"apiVersion":{"major":1,"minor":0},"client":{"name":"x","version":"1"},"locale":"fr-FR"}`,
		`{"apiVersion":{"major":"1","minor":0},"client":{"name":"x","version":"1"}}`,
		`{"apiVersion":{"major":1,"minor":0}}`,
	} {
		s := open(t)
		if code, _ := errorOf(t, s.call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+params+`}`)); code != gen.CodeInvalidParams {
			t.Errorf("%s: code %d", params, code)
		}
	}
}

// Every fixture frame, and the two frames of frames.wire, split at every
// byte boundary give the same responses as when sent whole.
func TestFixtureFramesSplitAtEveryByte(t *testing.T) {
	dir := filepath.Join(repotest.Root(t), "..", "shared", "corpus", "eska", "docs", "ide-protocol")
	wire, err := os.ReadFile(filepath.Join(dir, "frames.wire"))
	if err != nil {
		repotest.MissingPart(t, "eska corpus not found (%v): ../shared is absent", err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "fixtures.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Cases []struct {
			Client []json.RawMessage `json:"client"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	scripts := [][]byte{wire}
	for _, c := range fx.Cases {
		script := rpc.AppendFrame(nil, []byte(initialize(11, false)))
		for _, m := range c.Client {
			script = rpc.AppendFrame(script, m)
		}
		scripts = append(scripts, script)
	}
	for si, script := range scripts {
		// Whether a $/cancelRequest overtakes its request depends on timing,
		// not framing: such a script is compared by response ids only.
		racy := strings.Contains(string(script), "$/cancelRequest")
		view := func(resps []string) string {
			if !racy {
				return strings.Join(resps, "\n")
			}
			var ids []string
			for _, r := range resps {
				var m struct{ ID json.RawMessage }
				_ = json.Unmarshal([]byte(r), &m)
				ids = append(ids, string(m.ID))
			}
			return strings.Join(ids, ",")
		}
		whole := view(replay(t, [][]byte{script}))
		for split := 1; split < len(script); split++ {
			if got := view(replay(t, [][]byte{script[:split], script[split:]})); got != whole {
				t.Fatalf("script %d split at byte %d:\n got %s\nwant %s", si, split, got, whole)
			}
		}
	}
}

// replay writes chunks to a fresh in-process server and collects every
// response up to the one of a closing shutdown; then it ends the server.
func replay(t *testing.T, chunks [][]byte) []string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var srv *rpc.Server
	h := NewServer("test", func(c string) { srv.Diag(c) })
	srv = rpc.NewServer(h.Config(io.Discard))
	done := make(chan int, 1)
	go func() { done <- srv.Run(inR, outW); outW.Close() }()
	go func() {
		for _, c := range chunks {
			if _, err := inW.Write(c); err != nil {
				return
			}
		}
		inW.Write(rpc.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":"zz-end","method":"shutdown"}`)))
	}()
	var out []string
	fr := rpc.NewFrameReader(outR, gen.MaxHeaderBytes, gen.MaxResponseBytes)
	for {
		b, err := fr.ReadFrame()
		if err == io.EOF {
			break // the script ended the conversation itself (exit)
		}
		if err != nil {
			t.Fatalf("after %v: %v", out, err)
		}
		if strings.Contains(string(b), `"id":"zz-end"`) {
			break
		}
		out = append(out, string(b))
	}
	inW.Close() // end of input between frames: the server stops
	go io.Copy(io.Discard, outR)
	<-done
	inR.Close()
	outR.Close()
	return out
}

// metadata/search and metadata/indexErrors take a limit of 1 to 500: the
// bounds reach the backend (which answers for the unknown session), one
// past them is invalid params.
//
//contract:proves eska-ide-api.limits.paging
//contract:proves eska-ide-api.error-kind.unknown-session eska-ide-api.error.request-failed eska-ide-api.method.metadata-index-errors
func TestPagingLimits(t *testing.T) {
	s := open(t)
	s.call(initialize(0, false))
	ctx := `"sessionId":"s9","projectId":"p1","generation":"0"`
	for _, c := range []struct {
		method, params string
		code           int64
	}{
		{"metadata/search", `"text":"a","limit":500`, gen.CodeRequestFailed},
		{"metadata/search", `"text":"a","limit":501`, gen.CodeInvalidParams},
		{"metadata/search", `"text":"a","limit":1`, gen.CodeRequestFailed},
		{"metadata/search", `"text":"a","limit":0`, gen.CodeInvalidParams},
		{"metadata/indexErrors", `"limit":500`, gen.CodeRequestFailed},
		{"metadata/indexErrors", `"limit":501`, gen.CodeInvalidParams},
		{"metadata/indexErrors", `"limit":0`, gen.CodeInvalidParams},
	} {
		resp := s.call(`{"jsonrpc":"2.0","id":"q","method":"` + c.method + `","params":{` + ctx + `,` + c.params + `}}`)
		code, kind := errorOf(t, resp)
		if code != c.code || (code == gen.CodeRequestFailed && kind != "unknown_session") {
			t.Errorf("%s %s: %d %s", c.method, c.params, code, kind)
		}
	}
}
