package actions

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/repotest"
)

// action returns one action entry named name.
func action(name string) string {
	return fmt.Sprintf(`{"name":%q,"description":{"en":"e","ru":"р"},"arguments":{"type":"object"}}`, name)
}

// file returns a catalog with the given action entries.
func file(entries ...string) string {
	return `{"schemaVersion":1,"actions":[` + strings.Join(entries, ",") + `]}`
}

func TestParseErrorsNameThePlace(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"syntax", `{"schemaVersion":1,`, "a.json: offset 19"},
		{"duplicate member", `{"schemaVersion":1,"schemaVersion":2,"actions":[]}`, "a.json: offset"},
		{"not an object", `[]`, "a.json:/: want an object, got array"},
		{"unknown member", `{"schemaVersion":1,"actions":[],"toolprefix":"x"}`, `a.json:/toolprefix: unknown member "toolprefix"`},
		{"no schemaVersion", `{"actions":[]}`, `a.json:/: missing member "schemaVersion"`},
		{"fractional schemaVersion", `{"schemaVersion":1.5,"actions":[` + action("a") + `]}`, "a.json:/schemaVersion: schemaVersion 1.5 is not an integer"},
		{"boolean schemaVersion", `{"schemaVersion":true,"actions":[` + action("a") + `]}`, "a.json:/schemaVersion: schemaVersion must be an integer or a non-empty string"},
		{"empty catalog", file(), "a.json:/actions: no actions"},
		{"actions not array", `{"schemaVersion":1,"actions":{}}`, "a.json:/actions: want an array, got object"},
		{"no description", file(`{"name":"a","arguments":{"type":"object"}}`), `a.json:/actions/0: missing member "description"`},
		{"description without ru", file(`{"name":"a","description":{"en":"e"},"arguments":{"type":"object"}}`), `a.json:/actions/0/description: missing member "ru"`},
		{"empty ru", file(`{"name":"a","description":{"en":"e","ru":" "},"arguments":{"type":"object"}}`), `a.json:/actions/0/description/ru: must not be empty`},
		{"bad tool name", file(action("a"), action("move here")), `a.json:/actions/1/name: tool name "move here" has ' ' at byte 4`},
		{"empty name", file(action("")), `a.json:/actions/0/name: must not be empty`},
		{"duplicate", file(action("a"), action("a")), `a.json:/actions/1/name: tool name "a" is already taken by /actions/0`},
		{"observe taken", file(action("observe")), `a.json:/actions/0/name: tool name "observe" is already taken by the adapter's observe tool`},
		{"arguments not object", file(`{"name":"a","description":{"en":"e","ru":"р"},"arguments":true}`), "a.json:/actions/0/arguments: want a JSON Schema object"},
		{"arguments of another type", file(`{"name":"a","description":{"en":"e","ru":"р"},"arguments":{"type":"array"}}`), `a.json:/actions/0/arguments/type: an MCP tool's arguments are an object`},
		{"type argument", file(`{"name":"a","description":{"en":"e","ru":"р"},"arguments":{"type":"object","properties":{"type":{}}}}`), `a.json:/actions/0/arguments/properties/type: "type" is the action's name`},
		{"invalid schema", file(`{"name":"a","description":{"en":"e","ru":"р"},"arguments":{"type":"object","minProperties":-1}}`), "a.json:/actions/0/arguments: not a valid JSON Schema"},
		{"remote ref", file(`{"name":"a","description":{"en":"e","ru":"р"},"arguments":{"type":"object","$ref":"https://example.invalid/s.json"}}`), "only references inside the schema are allowed"},
		// A bound a 64-bit float cannot hold would become infinity in the
		// schema compiler, or be dropped without a word.
		{"bound beyond float64", file(`{"name":"a","description":{"en":"e","ru":"р"},"arguments":{"type":"object","properties":{"x":{"minimum":1e400}}}}`), "a.json:/actions/0/arguments/properties/x/minimum: the number 1e400 is outside the range of a 64-bit float"},
		{"huge exponent", file(`{"name":"a","description":{"en":"e","ru":"р"},"arguments":{"type":"object","properties":{"x":{"maximum":1e10000000}}}}`), "a.json:/actions/0/arguments/properties/x/maximum: the number 1e10000000 is outside"},
		{"prefix breaks observe", `{"schemaVersion":1,"toolPrefix":"a b","actions":[` + action("x") + `]}`, `a.json:/actions/0/name: tool name "a bx"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("a.json", []byte(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

// The limits hold at their value and fail one past it.
func TestLimits(t *testing.T) {
	many := func(n int) string {
		var e []string
		for i := range n {
			e = append(e, action(fmt.Sprintf("a%d", i)))
		}
		return file(e...)
	}
	if _, err := Parse("a.json", []byte(many(MaxActions))); err != nil {
		t.Fatalf("%d actions: %v", MaxActions, err)
	}
	if _, err := Parse("a.json", []byte(many(MaxActions+1))); err == nil || !strings.Contains(err.Error(), "more than the limit of 256") {
		t.Fatalf("%d actions: %v", MaxActions+1, err)
	}

	long := strings.Repeat("n", MaxToolNameBytes)
	if _, err := Parse("a.json", []byte(file(action(long)))); err != nil {
		t.Fatalf("a %d-byte name: %v", MaxToolNameBytes, err)
	}
	if _, err := Parse("a.json", []byte(file(action(long+"n")))); err == nil || !strings.Contains(err.Error(), "more than the limit of 128") {
		t.Fatalf("a %d-byte name: %v", MaxToolNameBytes+1, err)
	}
	// The prefix counts towards the name.
	if _, err := Parse("a.json", []byte(`{"schemaVersion":1,"toolPrefix":"p","actions":[`+action(long)+`]}`)); err == nil {
		t.Fatal("prefix plus a 128-byte name accepted")
	}

	// A file of exactly MaxFileBytes (padded with whitespace) loads; one
	// byte more is refused before it is parsed.
	base := file(action("a"))
	dir := t.TempDir()
	at := filepath.Join(dir, "at.json")
	over := filepath.Join(dir, "over.json")
	if err := os.WriteFile(at, []byte(base+strings.Repeat(" ", MaxFileBytes-len(base))), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(over, []byte(base+strings.Repeat(" ", MaxFileBytes-len(base)+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(at); err != nil {
		t.Fatalf("a file of %d bytes: %v", MaxFileBytes, err)
	}
	if _, err := Load(over); err == nil || !strings.Contains(err.Error(), "larger than 1048576 bytes") {
		t.Fatalf("a file of %d bytes: %v", MaxFileBytes+1, err)
	}
	if _, err := Load(filepath.Join(dir, "missing.json")); err == nil {
		t.Fatal("a missing file loaded")
	}
}

func TestCommand(t *testing.T) {
	f, err := Parse("a.json", []byte(file(
		`{"name":"move","description":{"en":"e","ru":"р"},"arguments":{"type":"object","required":["x"],"properties":{"x":{"type":"integer","maximum":5},"note":{"type":"string"}}}}`,
		`{"name":"free","description":{"en":"e","ru":"р"},"arguments":{"type":"object"}}`,
		`{"name":"closed","description":{"en":"e","ru":"р"},"arguments":{"type":"object","additionalProperties":false,"properties":{"x":{},"in":{"type":"object","additionalProperties":false,"properties":{"y":{}}}}}}`,
	)))
	if err != nil {
		t.Fatal(err)
	}
	move, _ := f.Lookup("move")
	free, _ := f.Lookup("free")
	closed, _ := f.Lookup("closed")
	cmd, err := move.Command(json.RawMessage(`{"x":5,"note":"тест","targetId":"door-1"}`))
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Type != "move" || *cmd.X != 5 || string(cmd.Extra["note"]) != `"тест"` || cmd.TargetID == nil {
		t.Fatalf("command %+v", cmd)
	}
	for _, c := range []struct {
		act  *Action
		args string
		want string
	}{
		{move, `{"x":6}`, "/x: must be <= 5"},
		{move, `{}`, "missing properties: 'x'"},
		{move, `[1]`, "arguments must be an object, got array"},
		{move, `{"x":1,"x":2}`, "duplicate"},
		{free, `{"type":"move"}`, `/type: "type" is the action's name`},
		{free, `{"x":"a"}`, "does not fit the act command"},
		// A member the schema does not allow is named at its own pointer.
		{closed, `{"x":1,"zz":2,"a~b":3}`, `/a~0b: unknown member "a~b"; /zz: unknown member "zz"`},
		{closed, `{"x":1,"in":{"y":1,"w":2}}`, `/in/w: unknown member "w"`},
		{free, `{"append":1}`, "does not fit the act command"},
	} {
		_, err := c.act.Command(json.RawMessage(c.args))
		var ae *ArgumentError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.act.Name, c.args, err, c.want)
		}
	}
	// Absent arguments are an empty object.
	for _, args := range []string{"", "null"} {
		if cmd, err := free.Command(json.RawMessage(args)); err != nil || cmd.Type != "free" {
			t.Errorf("arguments %q: %+v %v", args, cmd, err)
		}
	}
}

func TestObservation(t *testing.T) {
	f, err := Parse("a.json", []byte(file(action("a"), action("b"))))
	if err != nil {
		t.Fatal(err)
	}
	obs, err := ReadObservation(json.RawMessage(`{"schemaVersion":1.0,"availableActions":["b","zz","b"],"hp":3}`))
	if err != nil || obs.SchemaVersion != "1" {
		t.Fatalf("%+v %v", obs, err)
	}
	if err := f.CheckSchema(obs); err != nil {
		t.Fatal(err)
	}
	typed, untyped := f.Split(obs.Available)
	if len(typed) != 1 || typed[0].Name != "b" || len(untyped) != 1 || untyped[0] != "zz" {
		t.Fatalf("typed %v untyped %v", typed, untyped)
	}
	for raw, want := range map[string]string{
		`[]`:                      "not an object",
		`{"availableActions":[]}`: "no schemaVersion",
		`{"schemaVersion":1}`:     "availableActions: want an array",
		`{"schemaVersion":1,"availableActions":[1]}`:   "availableActions/0: want a string",
		`{"schemaVersion":"",  "availableActions":[]}`: "non-empty string",
	} {
		if _, err := ReadObservation(json.RawMessage(raw)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
	other, _ := ReadObservation(json.RawMessage(`{"schemaVersion":"1","availableActions":[]}`))
	if err := f.CheckSchema(other); !errors.Is(err, ErrSchemaMismatch) || !strings.Contains(err.Error(), `schemaVersion "1", a.json declares 1`) {
		t.Fatalf("string against integer: %v", err)
	}
}

// The sample's own catalog loads and describes the sample's actions.
func TestSampleCatalog(t *testing.T) {
	f, err := Load(filepath.Join(repotest.Root(t), "cmd", "aicontrol-sample", "actions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range f.Actions {
		names = append(names, a.Name)
		if a.Description.En == "" || a.Description.Ru == "" || a.Title.En == "" || a.Title.Ru == "" {
			t.Errorf("%s: missing text", a.Name)
		}
	}
	if strings.Join(names, ",") != "echo,move,fail,wait" || f.SchemaVersion != "1" || f.ProjectName != "aicontrol-sample" {
		t.Fatalf("sample catalog: %v %s %s", names, f.SchemaVersion, f.ProjectName)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(file(action("a"))))
	f.Add([]byte(`{"schemaVersion":"v2","toolPrefix":"p.","project":{"name":"n","revision":"r"},"actions":[` +
		`{"name":"m","title":{"en":"t","ru":"т"},"description":{"en":"e","ru":"р"},"arguments":{"type":"object","properties":{"x":{"$ref":"#/$defs/i"}},"$defs":{"i":{"type":"integer"}}}}]}`))
	f.Add([]byte(`{"schemaVersion":1,"actions":[{"name":"a","description":{"en":"e","ru":"р"},"arguments":{"type":"object","$ref":"#"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cat, err := Parse("f.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		for _, a := range cat.Actions {
			if CheckToolName(a.Tool) != nil || !json.Valid(a.Arguments) {
				t.Fatalf("accepted action %+v", a)
			}
			// Arguments are checked without panicking, whatever they are.
			_, _ = a.Command(data)
		}
	})
}

func FuzzCommand(f *testing.F) {
	cat, err := Parse("a.json", []byte(file(
		`{"name":"m","description":{"en":"e","ru":"р"},"arguments":{"type":"object","properties":{"x":{"type":"integer"},"s":{"type":"string","maxLength":4}}}}`)))
	if err != nil {
		f.Fatal(err)
	}
	act, _ := cat.Lookup("m")
	f.Add([]byte(`{"x":1,"s":"ab"}`))
	f.Add([]byte(`{"x":1e400}`))
	f.Add([]byte(`{"itemId":-0,"append":true}`))
	f.Fuzz(func(t *testing.T, args []byte) {
		cmd, err := act.Command(args)
		if err != nil {
			var ae *ArgumentError
			if !errors.As(err, &ae) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if cmd.Type != "m" {
			t.Fatalf("command type %q", cmd.Type)
		}
		if _, err := cmd.MarshalJSON(); err != nil {
			t.Fatalf("accepted command does not encode: %v", err)
		}
	})
}

// Numbers a 64-bit float cannot hold are refused by name before the
// schema validator sees them; the largest and smallest it can hold pass
// that check.
func TestNumbersOutOfRange(t *testing.T) {
	cat, err := Parse("a.json", []byte(file(
		`{"name":"m","description":{"en":"e","ru":"р"},"arguments":{"type":"object","properties":{"n":{"type":"number"},"l":{"type":"array"}}}}`)))
	if err != nil {
		t.Fatal(err)
	}
	act, _ := cat.Lookup("m")
	for _, c := range []struct {
		args string
		out  bool
	}{
		{`{"n":1.7976931348623157e308}`, false},
		{`{"n":4.9e-324}`, false},
		{`{"n":0e-999999}`, false},
		{`{"n":1.8e308}`, true},
		{`{"n":-1.8e308}`, true},
		{`{"n":1e-400}`, true},
		{`{"n":1e1000100}`, true},
		{`{"l":[1,2e999]}`, true},
	} {
		_, err := act.Command([]byte(c.args))
		var ae *ArgumentError
		if err != nil && !errors.As(err, &ae) {
			t.Fatalf("%s: error of type %T: %v", c.args, err, err)
		}
		if got := err != nil && strings.Contains(err.Error(), "outside the range of a 64-bit float"); got != c.out {
			t.Errorf("%s: %v, want out of range %v", c.args, err, c.out)
		}
	}
}
