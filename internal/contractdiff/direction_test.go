package contractdiff

import (
	"os"
	"testing"
)

// Who sends each type of the base spec, reached through methods of both
// directions, notifications, events, errors, unions, arrays and aliases.
func TestDirections(t *testing.T) {
	data, err := os.ReadFile("testdata/base.json")
	if err != nil {
		t.Fatal(err)
	}
	d := parseSpec(t, metaSchemaFS(t), "base", data)
	want := map[string]Direction{
		"demo.type.get-params":        ClientSent, // params of a client-to-server method
		"demo.type.mode":              ClientSent, // a field of GetParams
		"demo.type.filter":            ClientSent,
		"demo.type.filter-by-name":    ClientSent, // a variant of Filter
		"demo.type.item-id":           ClientSent,
		"demo.type.get-result":        ServerSent, // its result
		"demo.type.item":              ServerSent, // array items of GetResult.items
		"demo.type.file-item":         ServerSent, // a variant of Item
		"demo.type.status":            ServerSent,
		"demo.type.generation":        ServerSent, // an alias in GetResult
		"demo.type.color":             Both,       // in GetParams and GetResult
		"demo.type.confirm-params":    ServerSent, // params of a server-to-client method
		"demo.type.confirm-result":    ClientSent, // its result, sent by the client
		"demo.type.cancel-params":     ClientSent, // a client notification
		"demo.type.progress-params":   ServerSent, // a server notification
		"demo.type.result-code":       ServerSent,
		"demo.type.changed-event":     ServerSent, // an event payload
		"demo.type.failure-data":      ServerSent, // error data
		"demo.type.not-found-details": ServerSent, // error kind details
		"demo.type.scratch":           Both,       // no message carries it
	}
	got := Directions(d)
	if len(got) != len(want) {
		t.Errorf("%d types, want %d", len(got), len(want))
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s is %s, want %s", id, got[id], w)
		}
	}
	for dir, s := range map[Direction]string{ClientSent: "client-sent", ServerSent: "server-sent", Both: "both", 0: ""} {
		if dir.String() != s {
			t.Errorf("Direction(%d).String() = %q, want %q", dir, dir.String(), s)
		}
	}
}
