package goemit_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/generated/aicontrol"
)

// The generated validator of act params rejects a missing or empty
// command type with the invalid-params code and the pointer /type.
//
//contract:proves ai-control-protocol.command.type ai-control-protocol.error.invalid-params
func TestActParamsType(t *testing.T) {
	for _, raw := range []string{`{}`, `{"type":""}`, `{"type":7}`, `{"type":null}`} {
		_, err := aicontrol.DecodeActParams([]byte(raw))
		var ve *aicontrol.ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("%s: error %v is not a ValidationError", raw, err)
		}
		if ve.Code != aicontrol.CodeInvalidParams || ve.Pointer != "/type" {
			t.Errorf("%s: code %d pointer %q, want -32602 at /type", raw, ve.Code, ve.Pointer)
		}
	}
	p, err := aicontrol.DecodeActParams([]byte(`{"type":"move"}`))
	if err != nil || p.Type != "move" {
		t.Errorf("valid act: %+v, %v", p, err)
	}
}

// The events limit is clamped to 1..MaxEventsPerRequest: at the limit kept,
// one past it lowered, below one raised; absent values get their defaults.
//
//contract:proves ai-control-protocol.method.events
func TestEventsParamsClamp(t *testing.T) {
	for _, c := range []struct {
		in           string
		after, limit int64
	}{
		{`{}`, 0, aicontrol.DefaultEventsPerRequest},
		{`{"limit":500}`, 0, 500},
		{`{"limit":501}`, 0, aicontrol.MaxEventsPerRequest},
		{`{"limit":1}`, 0, 1},
		{`{"limit":0}`, 0, 1},
		{`{"limit":-3,"afterSeq":-1}`, 0, 1},
		{`{"afterSeq":41,"limit":10}`, 41, 10},
	} {
		p, err := aicontrol.DecodeEventsParams([]byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if *p.AfterSeq != c.after || *p.Limit != c.limit {
			t.Errorf("%s: afterSeq %d limit %d, want %d %d", c.in, *p.AfterSeq, *p.Limit, c.after, c.limit)
		}
	}
	for _, in := range []string{`{"limit":"5"}`, `{"afterSeq":1.5}`, `{"limit":9007199254740992}`} {
		if _, err := aicontrol.DecodeEventsParams([]byte(in)); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
}

// Project members of a command survive decoding and encoding unchanged,
// after the common fields, in name order.
func TestActParamsKeepsProjectMembers(t *testing.T) {
	in := `{"zeta":{"b":[1,2]},"type":"say","stringArg":"Привет","alpha":true,"targetId":12}`
	p, err := aicontrol.DecodeActParams([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if p.TargetID == nil || p.TargetID.Integer == nil || *p.TargetID.Integer != 12 || p.TargetID.String != nil {
		t.Errorf("targetId = %+v", p.TargetID)
	}
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"say","targetId":12,"stringArg":"Привет","alpha":true,"zeta":{"b":[1,2]}}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	p.Extra["broken"] = json.RawMessage(`{"x":`)
	if _, err := json.Marshal(p); err == nil || !strings.Contains(err.Error(), `Extra["broken"]`) {
		t.Errorf("invalid extra member written: %v", err)
	}
}

// Constant members are always written with their one value, and a nil
// required array is written as [] rather than null.
func TestMarshalConstantsAndEmptyArrays(t *testing.T) {
	out, err := json.Marshal(aicontrol.ActResult{CommandSeq: 3})
	if err != nil || string(out) != `{"accepted":true,"commandSeq":3}` {
		t.Errorf("ActResult = %s, %v", out, err)
	}
	out, err = json.Marshal(aicontrol.EventsResult{LatestSeq: 9})
	if err != nil || string(out) != `{"latestSeq":9,"events":[]}` {
		t.Errorf("EventsResult = %s, %v", out, err)
	}
	out, err = json.Marshal(aicontrol.Response{ID: nil, Error: &aicontrol.ErrorObject{Code: aicontrol.CodeParseError, Message: "Parse error"}})
	if err != nil || string(out) != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` {
		t.Errorf("Response = %s, %v", out, err)
	}
	// An unset string-or-integer id cannot be written.
	if _, err := json.Marshal(aicontrol.Request{Method: "ping"}); err == nil {
		t.Error("request without id written")
	}
}

// Ids keep their JSON kind: 1 and "1" differ.
func TestRequestIDKinds(t *testing.T) {
	a, err := aicontrol.DecodeRequest([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := aicontrol.DecodeRequest([]byte(`{"jsonrpc":"2.0","id":"1","method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	if a.ID.Integer == nil || b.ID.String == nil {
		t.Errorf("ids: %+v and %+v", a.ID, b.ID)
	}
	ja, _ := json.Marshal(a.ID)
	jb, _ := json.Marshal(b.ID)
	if string(ja) != "1" || string(jb) != `"1"` {
		t.Errorf("ids encode as %s and %s", ja, jb)
	}
}

func TestTables(t *testing.T) {
	m, ok := aicontrol.LookupMethod("act")
	if !ok || m.ID != "ai-control-protocol.method.act" || m.Params != "ActParams" || len(m.Errors) != 3 {
		t.Errorf("act = %+v", m)
	}
	if _, ok := aicontrol.LookupMethod("teleport"); ok {
		t.Error("unknown method found")
	}
	e, ok := aicontrol.LookupError(-32002)
	if !ok || e.ID != "ai-control-protocol.error.queue-full" || e.Message != "Command queue full" || e.MessageRU == "" {
		t.Errorf("-32002 = %+v", e)
	}
	if len(aicontrol.Methods) != 6 || len(aicontrol.Errors) != 7 || len(aicontrol.Events) != 1 {
		t.Errorf("tables: %d methods, %d errors, %d events", len(aicontrol.Methods), len(aicontrol.Errors), len(aicontrol.Events))
	}
	for i := 1; i < len(aicontrol.Errors); i++ {
		if aicontrol.Errors[i-1].Code >= aicontrol.Errors[i].Code {
			t.Errorf("errors not ordered by code: %d before %d", aicontrol.Errors[i-1].Code, aicontrol.Errors[i].Code)
		}
	}
	v, err := m.DecodeParams([]byte(`{"type":"move","x":3}`))
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := v.(aicontrol.ActParams); !ok || *p.X != 3 {
		t.Errorf("DecodeParams gave %#v", v)
	}
	if _, err := aicontrol.SchemaFS.ReadFile("schema/ActParams.json"); err != nil {
		t.Error(err)
	}
}
