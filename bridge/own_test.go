//go:build !aicontrol_disabled

package bridge

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/contractkit/contractkit/generated/aicontrol"
)

// A queued command owns its strings: the request line's memory, which the
// command was decoded from without a copy, is reused for the next line,
// and the command must read the same after that as it did when it was
// accepted. Every member of ActParams is set, so a new member fails here
// until the test (and ownActParams, if the member holds a string) covers it.
func TestQueuedCommandOwnsItsStrings(t *testing.T) {
	const params = `{"type":"move","targetId":"target","itemId":"item","auxId":"aux","x":1,"y":2,` +
		`"screenX":3,"screenY":4,"intArg":5,"stringArg":"text","append":true,"projectMember":{"k":"v"}}`
	want, err := aicontrol.DecodeActParams([]byte(params))
	if err != nil {
		t.Fatal(err)
	}
	wv := reflect.ValueOf(want)
	for i := 0; i < wv.NumField(); i++ {
		if wv.Field(i).IsZero() {
			t.Fatalf("the test's act sets no %s: add it to the line, and to ownActParams if it holds a string", wv.Type().Field(i).Name)
		}
	}

	s := &Server{cfg: Config{}.withDefaults(), state: newState(4, 4)}
	cs := &connState{authorized: true}
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"act","params":` + params + `}`)
	if out := s.handle(nil, cs, line); !bytes.Contains(out, []byte(`"accepted":true`)) {
		t.Fatalf("answer %s", out)
	}
	// The connection reads its next line into the same memory.
	copy(line, bytes.Repeat([]byte("#"), len(line)))
	s.handle(nil, cs, []byte(`{"jsonrpc":"2.0","id":2,"method":"act","params":{"type":"jump","targetId":"other","stringArg":"more","zz":1}}`))

	got := s.Drain(0)
	if len(got) != 2 {
		t.Fatalf("%d commands queued, want 2", len(got))
	}
	if !reflect.DeepEqual(got[0].Params, want) {
		t.Errorf("queued command after its line was overwritten:\n got %+v\nwant %+v", got[0].Params, want)
	}
}
