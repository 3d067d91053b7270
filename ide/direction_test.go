package ide

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	gen "github.com/contractkit/contractkit/generated/ide"
)

// The server only answers: every frame it writes in a whole session is a
// response or one of the two server notifications, it never sends a
// request, and after workspace/close nothing about that session follows.
//
//contract:proves eska-ide-api.notification-handling.server-direction
func TestServerOnlyAnswersAndNotifies(t *testing.T) {
	s := editSession(t, editProject(t))
	var all []string
	call := func(id, body string) string {
		t.Helper()
		s.send(body)
		resp, notes := s.response(id)
		all = append(all, notes...)
		all = append(all, resp)
		return resp
	}
	ctx := `"sessionId":"s1","projectId":"p1"`
	call(`"ix"`, `{"jsonrpc":"2.0","id":"ix","method":"metadata/index","params":{`+ctx+`,"generation":"0","action":"start"}}`)
	finished := func() bool {
		for _, f := range all {
			var m struct {
				Method string
				Params struct{ Progress gen.Progress }
			}
			if json.Unmarshal([]byte(f), &m) == nil && m.Method == gen.NotificationMetadataIndexProgress &&
				m.Params.Progress.State != gen.ProgressStateBuilding && m.Params.Progress.State != gen.ProgressStateNotStarted {
				return true
			}
		}
		return false
	}
	// A change of the index's state is always notified, so the end of
	// indexing arrives as a progress notification: wait for it.
	for !finished() {
		select {
		case f, ok := <-s.frames:
			if !ok {
				t.Fatalf("the server stopped while indexing: %v", all)
			}
			all = append(all, f)
		case <-time.After(20 * time.Second):
			t.Fatalf("indexing did not finish: %v", all)
		}
	}
	call(`"st"`, `{"jsonrpc":"2.0","id":"st","method":"metadata/index","params":{`+ctx+`,"generation":"0","action":"status"}}`)
	event := `{"jsonrpc":"2.0","method":"workspace/didChangeFiles","params":{` + ctx + `,"sequence":"%s","paths":[{"value":"Catalogs/Малый.xml","encoding":"utf-8"}]}}`
	s.send(strings.Replace(event, "%s", "1", 1))
	call(`"i1"`, `{"jsonrpc":"2.0","id":"i1","method":"project/info","params":{"sessionId":"s1"}}`)
	call(`"c"`, `{"jsonrpc":"2.0","id":"c","method":"workspace/close","params":{"sessionId":"s1"}}`)
	closedAt := len(all)
	s.send(strings.Replace(event, "%s", "2", 1))
	if _, kind := errorOf(t, call(`"i2"`, `{"jsonrpc":"2.0","id":"i2","method":"project/info","params":{"sessionId":"s1"}}`)); kind != gen.KindUnknownSession {
		t.Errorf("project/info after close: kind %q", kind)
	}
	call(`"sd"`, `{"jsonrpc":"2.0","id":"sd","method":"shutdown"}`)
	s.send(`{"jsonrpc":"2.0","method":"exit"}`)
	for done := false; !done; {
		select {
		case f, ok := <-s.frames:
			if !ok {
				done = true
				break
			}
			all = append(all, f)
		case <-time.After(5 * time.Second):
			t.Fatal("the server did not stop after exit")
		}
	}
	seen := map[string]int{}
	for i, f := range all {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(f), &m); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		_, hasID := m["id"]
		_, hasResult := m["result"]
		_, hasError := m["error"]
		var method string
		json.Unmarshal(m["method"], &method)
		switch {
		case method == "" && hasID && hasResult != hasError:
			seen["response"]++
		case method == gen.NotificationMetadataChanged || method == gen.NotificationMetadataIndexProgress:
			if hasID {
				t.Errorf("notification with an id: %s", f)
			}
			if i >= closedAt {
				t.Errorf("notification after workspace/close: %s", f)
			}
			seen[method]++
		default:
			t.Errorf("the server wrote neither a response nor one of its notifications: %s", f)
		}
	}
	if seen[gen.NotificationMetadataChanged] == 0 || seen[gen.NotificationMetadataIndexProgress] == 0 || seen["response"] < 5 {
		t.Errorf("the session did not exercise both directions of output: %v", seen)
	}
}
