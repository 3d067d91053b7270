package agui

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	contract "github.com/contractkit/contractkit/generated/agui"
)

// ev is an event written as a Go map, for building records in tests.
type ev = map[string]any

// lines writes events as a record with one event per line. Values are
// written by encoding/json without HTML escaping; a json.RawMessage is
// written as it is, so tests can spell literals the checker must see.
func lines(t testing.TB, events ...ev) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, e := range events {
		b.Write(encode(t, e))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func encode(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// run wraps events in a run: RUN_STARTED first, RUN_FINISHED last.
func run(events ...ev) []ev {
	out := []ev{{"type": contract.EventRunStarted, "threadId": "t", "runId": "r"}}
	out = append(out, events...)
	return append(out, ev{"type": contract.EventRunFinished, "threadId": "t", "runId": "r"})
}

func check(t testing.TB, profile string, data []byte) *Result {
	t.Helper()
	r, err := Check(data, Options{Profile: profile, Source: t.Name()})
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	return r
}

// accept fails unless the record is accepted under the profile.
func accept(t testing.TB, profile string, data []byte) *Result {
	t.Helper()
	r := check(t, profile, data)
	if !r.Accepted {
		t.Fatalf("rejected under %s: %v", profile, r.Findings)
	}
	return r
}

// reject fails unless the record is rejected under the profile by rule,
// at the given event and pointer.
func reject(t testing.TB, profile string, data []byte, event int, ptr, rule string) *Result {
	t.Helper()
	r := check(t, profile, data)
	if r.Accepted {
		t.Fatalf("accepted under %s; want %s at event %d %q", profile, rule, event, ptr)
	}
	f := r.Findings[0]
	if f.Rule != rule || f.Event != event || f.Pointer != ptr {
		t.Fatalf("finding %v; want %s at event %d %q", f, rule, event, ptr)
	}
	if strings.TrimSpace(f.Message) == "" {
		t.Errorf("finding %v has no message", f)
	}
	return r
}

const (
	stand = contract.ProfileStand
	v11   = contract.ProfileAgUI11
)

// checkDirect checks events as Go values, as CheckValues takes them, and
// returns the result the way check does for a record's bytes: the reading
// limits are the same on both paths, so the same events get the same
// finding.
func checkDirect(t testing.TB, profile string, events []ev) *Result {
	t.Helper()
	in := make([]any, len(events))
	for i, e := range events {
		in[i] = e
	}
	r, err := CheckValues(in, Options{Profile: profile, Source: t.Name()})
	if err != nil {
		t.Fatalf("CheckValues: %v", err)
	}
	return r
}

// acceptDirect fails unless CheckValues accepts the events.
func acceptDirect(t testing.TB, profile string, events []ev) {
	t.Helper()
	if r := checkDirect(t, profile, events); !r.Accepted {
		t.Fatalf("CheckValues rejected under %s: %v", profile, r.Findings)
	}
}

// rejectDirect fails unless CheckValues rejects the events by rule, at the
// given event and pointer.
func rejectDirect(t testing.TB, profile string, events []ev, event int, ptr, rule string) {
	t.Helper()
	r := checkDirect(t, profile, events)
	if r.Accepted {
		t.Fatalf("CheckValues accepted under %s; want %s at event %d %q", profile, rule, event, ptr)
	}
	if f := r.Findings[0]; f.Rule != rule || f.Event != event || f.Pointer != ptr || strings.TrimSpace(f.Message) == "" {
		t.Fatalf("CheckValues finding %v; want %s at event %d %q with a message", f, rule, event, ptr)
	}
}
