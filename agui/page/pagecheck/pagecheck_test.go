package pagecheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/agui"
	contract "github.com/contractkit/contractkit/generated/agui"
)

func lines(events ...string) []byte { return []byte(strings.Join(events, "\n") + "\n") }

const (
	runStarted  = `{"type":"RUN_STARTED","threadId":"t","runId":"r"}`
	runFinished = `{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`
)

// copies is an AG-UI 1.1 record whose delta copies its state n times.
func copies(value string, n int) []byte {
	var ops []string
	for i := 0; i < n; i++ {
		ops = append(ops, fmt.Sprintf(`{"op":"copy","from":"/a","path":"/c%d"}`, i))
	}
	return lines(runStarted, `{"type":"STATE_SNAPSHOT","snapshot":{"a":`+value+`}}`, `{"type":"STATE_DELTA","delta":[`+strings.Join(ops, ",")+`]}`, runFinished)
}

// The answer's JSON is RenderJSON's, byte for byte, and its form is the
// one RenderJSON chose.
//
//contract:proves ag-ui.view.page-checker
func TestAnswerIsRenderJSON(t *testing.T) {
	small := "[" + strings.TrimSuffix(strings.Repeat("1,", 10000), ",") + "]"
	cases := []struct {
		name    string
		data    []byte
		profile string
		form    string
	}{
		{"tutorial", agui.TutorialExample(), contract.ProfileStand, FormFull},
		{"rejected", lines(runStarted, `{"type":"CUSTOM","name":"n","value":1}`), contract.ProfileStand, FormFull},
		{"compact", copies(small, 12), contract.ProfileAgUI11, FormCompact},
		{"refused", copies(`"`+strings.Repeat("x", 100000)+`"`, 12), contract.ProfileAgUI11, FormRefused},
	}
	for _, c := range cases {
		opt := agui.Options{Profile: c.profile, Source: c.name}
		a := CheckBytes(c.data, opt)
		r, err := agui.Check(c.data, opt)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := r.RenderJSON()
		if a.Error != "" || !bytes.Equal(a.JSON, want) || a.Form != c.form || a.Accepted != r.Accepted {
			t.Errorf("%s: form %q (want %q), error %q, JSON equal %v", c.name, a.Form, c.form, a.Error, bytes.Equal(a.JSON, want))
		}
		if (a.View == nil) != (c.form == FormRefused) {
			t.Errorf("%s: view %.100s", c.name, a.View)
		}
	}
	tut := CheckTutorial(contract.ProfileStand)
	if tut.Error != "" || !bytes.Contains(tut.JSON, []byte(`"example": true`)) || !bytes.Contains(tut.JSON, []byte(agui.TutorialSource)) {
		t.Errorf("tutorial: %s", tut.JSON)
	}
	if a := CheckBytes([]byte(" \n"), agui.Options{}); a.Error == "" || a.JSON != nil {
		t.Errorf("an empty record: %+v", a)
	}
	if a := CheckBytes(agui.TutorialExample(), agui.Options{Profile: "loose"}); !strings.Contains(a.Error, "unknown profile") {
		t.Errorf("an unknown profile: %+v", a)
	}
}

// The view holds every raw value of the record as the text of its JSON,
// numbers exactly as the record wrote them.
func TestViewKeepsRawText(t *testing.T) {
	data := lines(runStarted, `{"type":"STATE_SNAPSHOT","snapshot":{"fraction":1.50,"exp":1E2,"big":1e400}}`,
		`{"type":"RUN_FINISHED","threadId":"t","runId":"r","result":{"n":10.0}}`)
	a := CheckBytes(data, agui.Options{Profile: contract.ProfileAgUI11})
	var v struct {
		State string `json:"state"`
		Runs  []struct {
			Outcome struct {
				Result string `json:"result"`
			} `json:"outcome"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(a.View, &v); err != nil {
		t.Fatalf("%v\n%s", err, a.View)
	}
	if v.State != "{\n  \"fraction\": 1.50,\n  \"exp\": 1E2,\n  \"big\": 1e400\n}" || v.Runs[0].Outcome.Result != "{\n  \"n\": 10.0\n}" {
		t.Errorf("view: state %q, result %q", v.State, v.Runs[0].Outcome.Result)
	}
}

// Values the page wrote as JSON text are checked as the Go API checks
// values; a refusal of the page's own is a result of the same shape.
func TestValuesAndRejections(t *testing.T) {
	text := `[{"type":"RUN_STARTED","threadId":"t","runId":"r"},{"type":"STATE_SNAPSHOT","snapshot":{"b":1,"a":-0}}]`
	a := CheckValues([]byte(text), agui.Options{Source: "v"})
	var events []any
	json.Unmarshal([]byte(text), &events)
	r, _ := agui.CheckValues([]any{
		map[string]any{"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
		map[string]any{"type": "STATE_SNAPSHOT", "snapshot": map[string]any{"b": json.Number("1"), "a": json.Number("-0")}},
	}, agui.Options{Source: "v"})
	want, _ := r.RenderJSON()
	if !bytes.Equal(a.JSON, want) || a.Accepted || !bytes.Contains(a.JSON, []byte(contract.RuleReaderNegativeZero)) {
		t.Errorf("values: %s\nwant %s", a.JSON, want)
	}
	for _, bad := range []string{`{"type":"RUN_STARTED"}`, `[1,`, "[\"\\ud800\"]"} {
		if a := CheckValues([]byte(bad), agui.Options{}); !strings.Contains(a.Error, "a bug of the page") {
			t.Errorf("%s: %+v", bad, a)
		}
	}
	f := agui.Finding{Event: 2, Pointer: "/snapshot/k", Rule: contract.RuleStandJsProperties, Message: "the property is an accessor"}
	a = Reject(f, agui.Options{Source: "v"})
	var res agui.Result
	if err := json.Unmarshal(a.JSON, &res); err != nil || a.Accepted || len(res.Findings) != 1 || res.Findings[0] != f || res.Events != 0 || res.Profile != contract.ProfileStand {
		t.Errorf("rejection: %v %s", err, a.JSON)
	}
}
