package ide

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/rpc"
)

const edMD = `<?xml version="1.0" encoding="UTF-8"?>
<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses" xmlns:v8="http://v8.1c.ru/8.1/data/core" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="2.17">
`

// editProject writes a configuration with a small catalog and a large
// one (many attributes, so that a write of it takes a while).
func editProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var attrs strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&attrs, "\t\t\t<Attribute uuid=\"00000000-0000-0000-0001-%012d\">\n\t\t\t\t<Properties>\n\t\t\t\t\t<Name>Р%d</Name>\n\t\t\t\t\t<Comment/>\n\t\t\t\t</Properties>\n\t\t\t</Attribute>\n", i, i)
	}
	files := map[string]string{
		"eska.toml":              "[project]\ntype = \"configuration\"\nsource = \"src\"\n",
		"src/Configuration.xml":  edMD + "<Configuration uuid=\"00000000-0000-0000-0000-000000000001\"><Properties><Name>К</Name></Properties><ChildObjects><Catalog>Малый</Catalog><Catalog>Большой</Catalog></ChildObjects></Configuration>\n</MetaDataObject>\n",
		"src/Catalogs/Малый.xml": edMD + "\t<Catalog uuid=\"00000000-0000-0000-0000-000000000002\">\n\t\t<Properties>\n\t\t\t<Name>Малый</Name>\n\t\t\t<Comment/>\n\t\t</Properties>\n\t</Catalog>\n</MetaDataObject>\n",
		"src/Catalogs/Большой.xml": edMD + "\t<Catalog uuid=\"00000000-0000-0000-0000-000000000003\">\n\t\t<Properties>\n\t\t\t<Name>Большой</Name>\n\t\t\t<Comment/>\n\t\t</Properties>\n\t\t<ChildObjects>\n" +
			attrs.String() + "\t\t</ChildObjects>\n\t</Catalog>\n</MetaDataObject>\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// openNotifying is open with the server's notifications delivered, as
// cmd/eska wires them.
func openNotifying(t *testing.T) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{t: t, in: inW, frames: make(chan string, 64), code: make(chan int, 1)}
	var srv *rpc.Server
	h := NewServer("test", func(c string) { srv.Diag(c) })
	srv = rpc.NewServer(h.Config(io.Discard))
	h.SetNotifier(srv.SendNotification)
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

// send writes frames in one write, so that the reader sees them together.
func (s *session) send(bodies ...string) {
	s.t.Helper()
	var buf []byte
	for _, b := range bodies {
		buf = rpc.AppendFrame(buf, []byte(b))
	}
	if _, err := s.in.Write(buf); err != nil {
		s.t.Fatal(err)
	}
}

// response reads frames up to the response of id; the notifications
// before it are returned too.
func (s *session) response(id string) (string, []string) {
	s.t.Helper()
	var notes []string
	for {
		select {
		case f := <-s.frames:
			if strings.Contains(f, `"id":`+id+`,`) || strings.Contains(f, `"id":`+id+`}`) {
				return f, notes
			}
			notes = append(notes, f)
		case <-time.After(20 * time.Second):
			s.t.Fatalf("no response %s", id)
		}
	}
}

// editSession initializes a client of minor 8 that opted in and opens
// the project.
func editSession(t *testing.T, dir string) *session {
	s := openNotifying(t)
	s.call(initialize(8, true))
	s.send(`{"jsonrpc":"2.0","id":"o","method":"workspace/open","params":{"start":{"value":` + itoaString(dir) + `,"encoding":"utf-8"},"selection":{"kind":"current"},"diskCache":false}}`)
	if resp, _ := s.response(`"o"`); strings.Contains(resp, "error") {
		t.Fatal(resp)
	}
	return s
}

// generation asks project/info for the project's generation.
func (s *session) generation() string {
	s.t.Helper()
	s.send(`{"jsonrpc":"2.0","id":"i","method":"project/info","params":{"sessionId":"s1"}}`)
	resp, _ := s.response(`"i"`)
	var r struct {
		Result struct{ Projects []struct{ Generation string } } `json:"result"`
	}
	json.Unmarshal([]byte(resp), &r)
	return r.Result.Projects[0].Generation
}

func snapshotOf(t *testing.T, s *session, id string) string {
	t.Helper()
	s.send(`{"jsonrpc":"2.0","id":"e","method":"metadata/propertyEditing","params":{"sessionId":"s1","projectId":"p1","generation":"` + s.generation() + `","objectId":"` + id + `"}}`)
	resp, _ := s.response(`"e"`)
	var r struct {
		Result struct{ Snapshot string } `json:"result"`
	}
	json.Unmarshal([]byte(resp), &r)
	if r.Result.Snapshot == "" {
		t.Fatalf("editing %s: %s", id, resp)
	}
	return r.Result.Snapshot
}

func updateRequest(id, objectID, snapshot, text string) string {
	return `{"jsonrpc":"2.0","id":"` + id + `","method":"metadata/updateProperty","params":{"sessionId":"s1","projectId":"p1","generation":"0","objectId":"` +
		objectID + `","snapshot":"` + snapshot + `","path":"Comment","change":{"kind":"text","value":"` + text + `"}}}`
}

// Cancelling a write before it starts prevents it; once it has started
// its real result is answered and the file is written, whatever cancel
// arrives. Both through the real metadata/updateProperty.
//
//contract:proves eska-ide-api.cancellation.mutating eska-ide-api.cancellation.commit-point
func TestUpdateCancellation(t *testing.T) {
	dir := editProject(t)
	s := editSession(t, dir)
	big, small := snapshotOf(t, s, "catalog:Большой"), snapshotOf(t, s, "catalog:Малый")
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(dir, "src", "Catalogs", name+".xml"))
		return string(b)
	}
	// The hook holds each write of Большой, once it has started, until
	// its own cancel has reached it.
	started := make(chan struct{}, 1)
	writeStarted = func(ctx context.Context, objectID string) {
		if objectID == "catalog:Большой" {
			started <- struct{}{}
			<-ctx.Done()
		}
	}
	defer func() { writeStarted = nil }()
	// The write of Большой runs and is held; the one of Малый waits
	// behind it. The reader reads cancels in order, so the cancel of
	// Малый is marked before the one of Большой lets it go on: Малый is
	// cancelled before it starts, every time.
	s.send(updateRequest("big", "catalog:Большой", big, "первый"))
	<-started
	s.send(updateRequest("small", "catalog:Малый", small, "не записан"),
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"small"}}`,
		`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"big"}}`)
	if resp, _ := s.response(`"big"`); !strings.Contains(resp, `"result"`) || !strings.Contains(read("Большой"), "<Comment>первый</Comment>") {
		t.Fatalf("big, cancelled after it started: %s", resp)
	}
	resp, _ := s.response(`"small"`)
	if code, kind := errorOf(t, resp); code != gen.CodeRequestFailed || kind != "cancelled" {
		t.Errorf("small, cancelled before it started: %s", resp)
	}
	if strings.Contains(read("Малый"), "не записан") {
		t.Errorf("a write cancelled before it started was made")
	}
	// Cancelled once running (the hook goes on only when the cancel has
	// reached the request): the write is made and its result answered.
	big = snapshotOf(t, s, "catalog:Большой")
	req := strings.Replace(updateRequest("run", "catalog:Большой", big, "второй"), `"generation":"0"`, `"generation":"`+s.generation()+`"`, 1)
	s.send(req)
	<-started
	s.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"run"}}`)
	resp, notes := s.response(`"run"`)
	if code, _ := errorOf(t, resp); code != 0 || !strings.Contains(read("Большой"), "<Comment>второй</Comment>") {
		t.Errorf("cancelled after it started: answer %s, file written %v", resp, strings.Contains(read("Большой"), "<Comment>второй</Comment>"))
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "metadata/changed") {
		t.Errorf("the write was not announced before its answer: %v", notes)
	}
}

// propertyEditing is granted only with the opt-in from minor 6; the
// choice methods of later minors do not exist for earlier clients.
//
//contract:proves eska-ide-api.versions.opt-in eska-ide-api.editing.version-filter eska-ide-api.editing.opt-in
func TestEditingCapabilities(t *testing.T) {
	ctx := `"sessionId":"s9","projectId":"p1","generation":"0","objectId":"catalog:К","path":"Comment"`
	for _, c := range []struct {
		minor      int
		optIn      bool
		editing    string // "" absent
		readOnly   bool
		refChoices int64 // answer code of propertyReferenceChoices
		valChoices int64
	}{
		{5, true, "", true, gen.CodeMethodNotFound, gen.CodeMethodNotFound},
		{6, false, "false", true, gen.CodeMethodNotFound, gen.CodeMethodNotFound},
		{6, true, "true", false, gen.CodeMethodNotFound, gen.CodeMethodNotFound},
		{7, true, "true", false, gen.CodeRequestFailed, gen.CodeMethodNotFound},
		{8, true, "true", false, gen.CodeRequestFailed, gen.CodeRequestFailed},
		{11, true, "true", false, gen.CodeRequestFailed, gen.CodeRequestFailed},
	} {
		s := open(t)
		r, _ := decodeResponse(s.call(initialize(c.minor, c.optIn)))
		var res struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		json.Unmarshal(r.Result, &res)
		if got := string(res.Capabilities["propertyEditing"]); got != c.editing || string(res.Capabilities["readOnly"]) != fmt.Sprint(c.readOnly) {
			t.Errorf("1.%d opt-in %v: propertyEditing %q readOnly %s", c.minor, c.optIn, got, res.Capabilities["readOnly"])
		}
		if code, _ := errorOf(t, s.call(`{"jsonrpc":"2.0","id":"r","method":"metadata/propertyReferenceChoices","params":{`+ctx+`}}`)); code != c.refChoices {
			t.Errorf("1.%d: propertyReferenceChoices %d", c.minor, code)
		}
		if code, _ := errorOf(t, s.call(`{"jsonrpc":"2.0","id":"v","method":"metadata/propertyValueChoices","params":{`+ctx+`,"key":"xs:string"}}`)); code != c.valChoices {
			t.Errorf("1.%d: propertyValueChoices %d", c.minor, code)
		}
	}
}
