package spec

import (
	"strings"
	"testing"
)

// profileDoc adds a valid profile, and the page that shows it, to the
// minimal spec.
func profileDoc(t *testing.T, d map[string]any) {
	t.Helper()
	d["profiles"] = []any{map[string]any{
		"id": "demo.profile.strict", "name": "strict", "revision": "2.1",
		"title":       map[string]any{"en": "Strict profile", "ru": "Строгий профиль"},
		"description": map[string]any{"en": "Only what the strict reader takes.", "ru": "Только то, что принимает строгий читатель."},
		"stability":   "experimental", "since": "1.0",
		"events": []any{}, "constants": []any{"demo.limit.items"}, "rules": []any{"demo.wire.lines"},
	}}
	appendTo(t, d, "/docs/pages/0/sections", "profiles")
}

func TestProfileLoads(t *testing.T) {
	set, diags := Load(fixture(t, func(d map[string]any) { profileDoc(t, d) }))
	if diags.HasErrors() {
		t.Fatalf("spec with a profile has errors:\n%s", diags.Errors().Error())
	}
	d := set.Domain("demo")
	if len(d.Profiles) != 1 {
		t.Fatalf("profiles = %d, want 1", len(d.Profiles))
	}
	p := d.Profiles[0]
	if p.Ptr != "/profiles/0" || p.Revision != "2.1" || p.GoName() != "Strict" {
		t.Errorf("profile ptr %q revision %q go name %q", p.Ptr, p.Revision, p.GoName())
	}
	kinds := map[string]bool{}
	for _, e := range d.Entries() {
		kinds[e.Kind] = true
	}
	if !kinds[KindProfile] {
		t.Error("the profile is not among the entries")
	}
	var names []string
	for _, id := range d.GoIdentifiers() {
		names = append(names, id.Name)
	}
	all := strings.Join(names, " ")
	for _, want := range []string{"ProfileStrict", "RuleWireLines", "RuleCommandName"} {
		if !strings.Contains(" "+all+" ", " "+want+" ") {
			t.Errorf("generated names lack %s: %s", want, all)
		}
	}
}

// A spec without profiles keeps its canonical model: profiles are omitted
// when empty, so digests of older specs do not move.
func TestProfilesOmittedFromModelWhenEmpty(t *testing.T) {
	set, diags := Load(fixture(t, nil))
	if diags.HasErrors() {
		t.Fatal(diags.Errors())
	}
	if strings.Contains(string(set.Domain("demo").Canonical()), `"profiles"`) {
		t.Error("the canonical model of a spec without profiles names profiles")
	}
}

func TestProfileErrors(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(t *testing.T, d map[string]any)
		want   string
	}{
		{"id of the wrong kind", func(t *testing.T, d map[string]any) {
			set(t, d, "/profiles/0/id", "demo.wire.strict")
		}, `spec/demo.json:/profiles/0/id: id "demo.wire.strict" must be demo.profile.<name>`},
		{"unknown event", func(t *testing.T, d map[string]any) {
			set(t, d, "/profiles/0/events", []any{"demo.event.nothing"})
		}, `spec/demo.json:/profiles/0/events: profile strict lists demo.event.nothing in events, which no entry of the spec declares`},
		{"a method as an event", func(t *testing.T, d map[string]any) {
			set(t, d, "/profiles/0/events", []any{"demo.method.get"})
		}, `profile strict lists demo.method.get in events, which is not an event`},
		{"a rule as a constant", func(t *testing.T, d map[string]any) {
			set(t, d, "/profiles/0/constants", []any{"demo.wire.lines"})
		}, `profile strict lists demo.wire.lines in constants, which is not a constant`},
		{"a type as a rule", func(t *testing.T, d map[string]any) {
			set(t, d, "/profiles/0/rules", []any{"demo.type.get-params"})
		}, `profile strict lists demo.type.get-params in rules, which is not a rule`},
		{"listed twice", func(t *testing.T, d map[string]any) {
			set(t, d, "/profiles/0/rules", []any{"demo.wire.lines", "demo.wire.lines"})
		}, `profile strict lists demo.wire.lines twice in rules`},
		{"duplicate name", func(t *testing.T, d map[string]any) {
			p := map[string]any{}
			for k, v := range get(t, d, "/profiles/0").(map[string]any) {
				p[k] = v
			}
			p["id"] = "demo.profile.other"
			appendTo(t, d, "/profiles", p)
		}, `profile name "strict" is also used by`},
		{"not on a page", func(t *testing.T, d map[string]any) {
			set(t, d, "/docs/pages/0/sections", []any{"rules:wire", "errors"})
		}, `no page shows section "profiles" (1 entries)`},
		{"unknown member", func(t *testing.T, d map[string]any) {
			set(t, d, "/profiles/0/limits", []any{})
		}, `'limits' not allowed`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := Load(fixture(t, func(d map[string]any) {
				profileDoc(t, d)
				c.mutate(t, d)
			}))
			if !diags.HasErrors() {
				t.Fatalf("no error; want %q", c.want)
			}
			if got := diags.Errors().Error(); !strings.Contains(got, c.want) {
				t.Errorf("errors do not contain %q; got:\n%s", c.want, got)
			}
		})
	}
}
