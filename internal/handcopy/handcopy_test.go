package handcopy

import (
	"strings"
	"testing"
	"testing/fstest"
)

const generatedFixture = `package demo

const (
	DefaultSearchLimit        = 50
	MaxStderrDiagnostics      = 32
	MinProgressIntervalMillis = 100
	MaxPictureXMLBytes        = 65536
	MaxSearchLimit            = 500
	MinInteger                = -9007199254740991
	ContentLengthHeader       = "Content-Length"
	JSONPatchOperationTagAdd  = "add"
	unexported                = 7
)

type Reason string

const ReasonTooLarge Reason = "too_large"
`

func scanFixture(t *testing.T, runtime string) []Finding {
	t.Helper()
	fsys := fstest.MapFS{
		"generated/demo/contract.go":      {Data: []byte(generatedFixture)},
		"generated/demo/contract_test.go": {Data: []byte("package demo\n\nconst Ignored = 1\n")},
		"rt/rt.go":                        {Data: []byte(runtime)},
		"rt/rt_test.go":                   {Data: []byte("package rt\n\nvar limit = 50\n")},
		"other/other.go":                  {Data: []byte("package other\n\nvar limit = 50\n")},
	}
	consts, err := Constants(fsys, "generated")
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Scan(fsys, func(p string) bool { return strings.HasPrefix(p, "rt/") || strings.HasPrefix("rt/", p) }, consts)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestConstants(t *testing.T) {
	consts, err := Constants(fstest.MapFS{"generated/demo/contract.go": {Data: []byte(generatedFixture)}}, "generated")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Constant{}
	for _, c := range consts {
		got[c.Name] = c
	}
	if len(consts) != 9 {
		t.Errorf("%d constants, want the 9 exported ones with literal values", len(consts))
	}
	if c := got["MinInteger"]; c.Int == nil || c.Int.String() != "-9007199254740991" {
		t.Errorf("negative constant read as %v", c.Value())
	}
	if c := got["ReasonTooLarge"]; c.Str == nil || *c.Str != "too_large" || strings.Join(c.Words, " ") != "reason" {
		t.Errorf("typed string constant: %+v (words %v; the value's own words are not the concept's)", c.Value(), c.Words)
	}
	if _, ok := got["unexported"]; ok {
		t.Error("unexported constant read")
	}
}

func TestFindsHandCopies(t *testing.T) {
	cases := []struct {
		name, code, want string
	}{
		{"default beside its name", "limit := 50", "demo.DefaultSearchLimit"},
		{"a duration's count beside its concept", "progressEvery := 100 * time.Millisecond", "demo.MinProgressIntervalMillis"},
		{"a constant expression by its value", "const maxPictureXML = 64 << 10", "demo.MaxPictureXMLBytes"},
		{"a number inside a message", `err := errors.New("search: -limit must be 1 to 500")`, "demo.MaxSearchLimit"},
		{"a union tag under a short name", `const opAdd = "add"`, "demo.JSONPatchOperationTagAdd"},
		{"a name compared without case", `var contentLengthHeader = []byte("content-length")`, "demo.ContentLengthHeader"},
		{"a reason", `err := sourceError{reason: "too_large"}`, "demo.ReasonTooLarge"},
		{"a negative bound", "const minInteger = -9007199254740991", "demo.MinInteger"},
	}
	for _, c := range cases {
		fs := scanFixture(t, "package rt\n\nfunc f() {\n\t"+c.code+"\n}\n")
		if len(fs) != 1 || fs[0].Const != c.want || fs[0].Path != "rt/rt.go" || fs[0].Line != 4 {
			t.Errorf("%s: %v, want one finding of %s at rt/rt.go:4", c.name, fs, c.want)
		}
	}
	// A case of a switch is judged by what the switch is on.
	fs := scanFixture(t, "package rt\n\nfunc f(p patch) {\n\tswitch p.Op {\n\tcase \"add\":\n\t}\n}\n")
	if len(fs) != 1 || fs[0].Const != "demo.JSONPatchOperationTagAdd" || fs[0].Line != 5 {
		t.Errorf("switch case: %v", fs)
	}
}

func TestIgnoresOtherUses(t *testing.T) {
	for _, code := range []string{
		"internMaxLen := 32 // only a bound's word is shared",
		"x := runs[n-50]",
		"x := limit + 50",
		"var details [50]string",
		"buf := make([]byte, 0, 500)",
		"count := 50 // nothing in common",
		`name := "add"`,
		`kind := "ADD" // too short to compare without case`,
		"size := 64 << 10 // a shift's parts are not its value",
	} {
		if fs := scanFixture(t, "package rt\n\nfunc f() {\n\t"+code+"\n}\n"); len(fs) != 0 {
			t.Errorf("%s: %v, want nothing", code, fs)
		}
	}
}

// A literal after a switch is not judged by what the switch was on, even
// when a case held literals the scan skips (a make's sizes, indexes): three
// of them once left the case on the scan's stack of enclosing nodes.
func TestSwitchEndsItsContext(t *testing.T) {
	code := "package rt\n\nfunc f(p patch, runs []int) {\n\tswitch p.Op {\n\tcase \"x\":\n\t\tbuf := make([]byte, 0, 500)\n\t\t_ = runs[3] + len(buf)\n\t\t_ = runs[4]\n\t}\n\tname := \"add\"\n\t_ = name\n}\n"
	if fs := scanFixture(t, code); len(fs) != 0 {
		t.Errorf("%v, want nothing", fs)
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string]string{
		"MaxSearchLimit":         "max search limit",
		"HTTPServer":             "http server",
		"maxUTF8Bytes":           "max utf 8 bytes",
		"too_large":              "too large",
		"Content-Length":         "content length",
		"1 to 500":               "1 to 500",
		"MinProgressIntervalMs2": "min progress interval ms 2",
	} {
		if got := strings.Join(Words(in), " "); got != want {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

const memberFixture = `package demo

const (
	CancelParamsMemberID = "id"
	ScopeTagMember       = "member"
)
`

func TestMemberNames(t *testing.T) {
	fsys := fstest.MapFS{"generated/demo/types.go": {Data: []byte(memberFixture)}}
	consts, err := Constants(fsys, "generated")
	if err != nil {
		t.Fatal(err)
	}
	member := map[string]bool{}
	for _, c := range consts {
		member[c.Name] = c.Member
	}
	if !member["CancelParamsMemberID"] || member["ScopeTagMember"] {
		t.Errorf("member names read as %v; want CancelParamsMemberID only (ScopeTagMember's value is the word member)", member)
	}
	cases := []struct {
		code  string
		found bool
	}{
		{`idv := params.Get("id")`, true},
		{`ptr := strictjson.AppendPointer("", "id") // the cancel request's`, true},
		{`cancelMember := "id"`, true},
		{`ids := fs.String("id", "", "the request to cancel")`, false},
		{`log.Warn("cancelled", "id", x)`, false},
	}
	for _, c := range cases {
		fsys["rt/rt.go"] = &fstest.MapFile{Data: []byte("package rt\n\nfunc f() {\n\t" + c.code + "\n}\n")}
		fs, err := Scan(fsys, func(p string) bool { return strings.HasPrefix(p, "rt/") || strings.HasPrefix("rt/", p) }, consts)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.found && (len(fs) != 1 || fs[0].Const != "demo.CancelParamsMemberID" || fs[0].Line != 4):
			t.Errorf("%s: %v, want one finding of demo.CancelParamsMemberID at rt/rt.go:4", c.code, fs)
		case !c.found && len(fs) != 0:
			t.Errorf("%s: %v, want nothing: the literal is not used as a member name", c.code, fs)
		}
	}
}
