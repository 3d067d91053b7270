package disposition

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

func schema(t testing.TB) *Schema {
	t.Helper()
	data, err := os.ReadFile("../../../" + SchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	s, err := CompileSchema(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// entryJSON is a valid entry with one member replaced or removed.
func entryJSON(replace map[string]string) string {
	members := []struct{ k, v string }{
		{"domain", `"demo"`}, {"changeId", `"0123456789abcdef0123456789abcdef"`}, {"rule", `"method-removed"`},
		{"target", `"demo.method.get"`}, {"reason", `"Nobody calls it."`}, {"migration", `"Call list instead."`},
		{"owner", `"@ann"`}, {"issue", `"#12"`}, {"expires", `"2030-01-31"`},
	}
	var parts []string
	known := map[string]bool{}
	for _, m := range members {
		known[m.k] = true
	}
	for k, v := range replace {
		if !known[k] {
			parts = append(parts, fmt.Sprintf("%q: %s", k, v))
		}
	}
	for _, m := range members {
		v, ok := replace[m.k]
		if !ok {
			v = m.v
		}
		if v == "" {
			continue // removed
		}
		parts = append(parts, fmt.Sprintf("%q: %s", m.k, v))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func fileJSON(entries ...string) string {
	return `{"$schema": "./spec/dispositions.schema.json", "dispositions": [` + strings.Join(entries, ",\n") + `]}`
}

func TestParseValid(t *testing.T) {
	second := entryJSON(map[string]string{"changeId": `"ffffffffffffffffffffffffffffffff"`, "rule": `"limit-narrowed"`})
	f, err := Parse("d.json", []byte(fileJSON(entryJSON(nil), second)), schema(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != 2 {
		t.Fatalf("%d entries", len(f.Entries))
	}
	e := f.Entries[0]
	if e.Domain != "demo" || e.Rule != "method-removed" || e.Expires != "2030-01-31" || e.Owner != "@ann" || e.Pointer != "/dispositions/0" || e.Line != 1 {
		t.Errorf("entry 0 = %+v", e)
	}
	if e := f.Entries[1]; e.Rule != "limit-narrowed" || e.Pointer != "/dispositions/1" || e.Line != 2 {
		t.Errorf("entry 1 = %+v", e)
	}
	// The file the repository starts with.
	data, err := os.ReadFile("../../../" + FileName)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(FileName, data, schema(t)); err != nil {
		t.Errorf("%s: %v", FileName, err)
	}
}

// Every malformed file is rejected with file:/pointer: message, never a panic.
func TestParseProblems(t *testing.T) {
	for _, c := range []struct {
		name, data string
		want       []string
	}{
		{"not JSON", `{"dispositions": [}`, []string{"d.json:/dispositions/0: invalid JSON"}},
		{"duplicate key", `{"dispositions": [], "dispositions": []}`, []string{"d.json:/dispositions: invalid JSON: duplicate"}},
		{"empty", ``, []string{"d.json:/: invalid JSON"}},
		{"no list", `{}`, []string{"d.json:/: missing dispositions"}},
		{"unknown member", fileJSON(entryJSON(map[string]string{"note": `"x"`})), []string{`d.json:/dispositions/0/note: unknown member "note"`}},
		{"missing fields", fileJSON(entryJSON(map[string]string{"owner": "", "reason": ""})), []string{"d.json:/dispositions/0: missing reason, owner: every entry needs domain, changeId, rule, target, reason, migration, owner, issue and expires"}},
		{"empty owner", fileJSON(entryJSON(map[string]string{"owner": `""`})), []string{"d.json:/dispositions/0/owner: length must be >= 1"}},
		{"blank reason", fileJSON(entryJSON(map[string]string{"reason": `"   "`})), []string{"d.json:/dispositions/0/reason: does not match pattern"}},
		{"bad change id", fileJSON(entryJSON(map[string]string{"changeId": `"XYZ"`})), []string{"d.json:/dispositions/0/changeId: does not match pattern"}},
		{"bad date", fileJSON(entryJSON(map[string]string{"expires": `"2030-02-30"`})), []string{`d.json:/dispositions/0/expires: "2030-02-30" is not a date`}},
		{"date shape", fileJSON(entryJSON(map[string]string{"expires": `"next year"`})), []string{"d.json:/dispositions/0/expires: does not match pattern"}},
		{"unknown rule", fileJSON(entryJSON(map[string]string{"rule": `"method-vanished"`})), []string{`d.json:/dispositions/0/rule: unknown rule "method-vanished"`}},
		{"twice", fileJSON(entryJSON(nil), entryJSON(nil)), []string{"d.json:/dispositions/1/changeId: change id 0123456789abcdef0123456789abcdef is also used by /dispositions/0"}},
		{"wrong type", `{"dispositions": {}}`, []string{"d.json:/dispositions: expected array, but got object"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("d.json", []byte(c.data), schema(t))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *ParseError", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%s\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

// Every limit is accepted at the limit and rejected one past it.
func TestParseLimits(t *testing.T) {
	s := schema(t)
	str := func(n int) string { return `"` + strings.Repeat("x", n) + `"` }
	for _, c := range []struct {
		member string
		limit  int
	}{{"reason", 2000}, {"migration", 2000}, {"owner", 200}, {"issue", 500}, {"target", 500}} {
		if _, err := Parse("d.json", []byte(fileJSON(entryJSON(map[string]string{c.member: str(c.limit)}))), s); err != nil {
			t.Errorf("%s of %d characters: %v", c.member, c.limit, err)
		}
		_, err := Parse("d.json", []byte(fileJSON(entryJSON(map[string]string{c.member: str(c.limit + 1)}))), s)
		if err == nil || !strings.Contains(err.Error(), "/dispositions/0/"+c.member+": length must be <= "+fmt.Sprint(c.limit)) {
			t.Errorf("%s of %d characters: err = %v", c.member, c.limit+1, err)
		}
	}

	// At most 1000 entries.
	many := func(n int) []byte {
		es := make([]string, n)
		for i := range es {
			es[i] = entryJSON(map[string]string{"changeId": fmt.Sprintf(`"%032x"`, i)})
		}
		return []byte(fileJSON(es...))
	}
	if _, err := Parse("d.json", many(1000), s); err != nil {
		t.Errorf("1000 entries: %v", err)
	}
	if _, err := Parse("d.json", many(1001), s); err == nil || !strings.Contains(err.Error(), "d.json:/dispositions: maximum 1000 items") {
		t.Errorf("1001 entries: err = %v", err)
	}

	// At most MaxFileBytes bytes: whitespace pads a valid file to the size.
	pad := func(n int) []byte {
		base := fileJSON(entryJSON(nil))
		return []byte(base + strings.Repeat(" ", n-len(base)))
	}
	if _, err := Parse("d.json", pad(MaxFileBytes), s); err != nil {
		t.Errorf("%d bytes: %v", MaxFileBytes, err)
	}
	if _, err := Parse("d.json", pad(MaxFileBytes+1), s); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("d.json:/: the file is %d bytes; the limit is %d", MaxFileBytes+1, MaxFileBytes)) {
		t.Errorf("%d bytes: err = %v", MaxFileBytes+1, err)
	}

	// Nesting: 16 levels reach the schema (which rejects them), 17 do not
	// get past the JSON reader.
	nest := func(n int) []byte {
		return []byte(`{"dispositions": [` + strings.Repeat("[", n-2) + strings.Repeat("]", n-2) + `]}`)
	}
	if _, err := Parse("d.json", nest(maxDepth), s); err == nil || strings.Contains(err.Error(), "invalid JSON") {
		t.Errorf("depth %d: err = %v, want a schema error", maxDepth, err)
	}
	if _, err := Parse("d.json", nest(maxDepth+1), s); err == nil || !strings.Contains(err.Error(), "invalid JSON") {
		t.Errorf("depth %d: err = %v, want invalid JSON", maxDepth+1, err)
	}
}

// The reader never panics and every problem it reports is located in the
// file it was given.
func FuzzParse(f *testing.F) {
	s := schema(f)
	f.Add([]byte(fileJSON(entryJSON(nil))))
	f.Add([]byte(fileJSON(entryJSON(map[string]string{"expires": `"2030-13-01"`}), entryJSON(nil))))
	f.Add([]byte(`{"dispositions": [{"domain": 1}]}`))
	f.Add([]byte(`{"dispositions": "\ud800"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("d.json", data, s)
		if err == nil {
			if file == nil {
				t.Fatal("nil file without an error")
			}
			for _, e := range file.Entries {
				if e.Line < 1 || !strings.HasPrefix(e.Pointer, "/dispositions/") {
					t.Fatalf("entry located at %s line %d", e.Pointer, e.Line)
				}
			}
			return
		}
		var pe *ParseError
		if !errors.As(err, &pe) || len(pe.Problems) == 0 {
			t.Fatalf("err = %v, want a *ParseError with problems", err)
		}
		for _, p := range pe.Problems {
			if p.File != "d.json" || p.Msg == "" || (p.Pointer != "" && p.Pointer[0] != '/') {
				t.Fatalf("problem %+v", p)
			}
		}
	})
}

// A number no 64-bit float holds is refused by pointer before the schema.
func TestNumberBeyondFloat64(t *testing.T) {
	_, err := Parse("d.json", []byte(`{"dispositions": [{"domain": 1e1000100}]}`), schema(t))
	if err == nil || !strings.Contains(err.Error(), "/dispositions/0/domain") || !strings.Contains(err.Error(), "the number 1e1000100 is outside the range of a 64-bit float") {
		t.Errorf("got %v", err)
	}
}

// The message for a missing member names every member an entry needs as
// the schema in use lists them: a repository's own schema that requires
// fewer is quoted, not the shipped list.
func TestMissingNamesSchemaRequired(t *testing.T) {
	data, err := os.ReadFile("../../../" + SchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	shipped := `"required": ["domain", "changeId", "rule", "target", "reason", "migration", "owner", "issue", "expires"]`
	own := strings.Replace(string(data), shipped, `"required": ["domain", "owner", "expires"]`, 1)
	if own == string(data) {
		t.Fatalf("%s has no required list %s", SchemaPath, shipped)
	}
	s, err := CompileSchema([]byte(own))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse("d.json", []byte(fileJSON(entryJSON(map[string]string{"owner": ""}))), s)
	want := "d.json:/dispositions/0: missing owner: every entry needs domain, owner and expires"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}
