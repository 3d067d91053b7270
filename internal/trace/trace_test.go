package trace

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestScan(t *testing.T) {
	fsys := fstest.MapFS{
		"a/a_test.go": {Data: []byte(`package a

import "testing"

//contract:proves demo.wire.lines
func TestLines(t *testing.T) {
	//contract:proves demo.error.parse demo.wire.lines
}

func TestOther(t *testing.T) {
	//contract:proves demo.wire.unknown
}

//contract:proves demo.wire.lines
var x = 1
`)},
		"a/a.go":                {Data: []byte("package a\n//contract:proves demo.wire.lines\n")},
		"generated/g/g_test.go": {Data: []byte("package g\n\nfunc TestG() {\n\t//contract:proves demo.wire.lines\n}\n")},
		"b/b_test.go":           {Data: []byte("package b\n\nfunc TestB() {\n\t//contract:proves\n}\n")},
		"c/broken_test.go":      {Data: []byte("package c\n//contract:proves x\nfunc {")},
	}
	known := func(id string) bool { return strings.HasPrefix(id, "demo.") && id != "demo.wire.unknown" }
	tests, problems, err := Scan(fsys, known)
	if err != nil {
		t.Fatal(err)
	}
	if got := tests["demo.wire.lines"]; len(got) != 1 || got[0].Func != "TestLines" || got[0].Path != "a/a_test.go" {
		t.Errorf("demo.wire.lines: %+v (one test, directives in doc and body merged; non-test and generated files ignored)", got)
	}
	if got := tests["demo.error.parse"]; len(got) != 1 || got[0].Line != 7 {
		t.Errorf("demo.error.parse: %+v", got)
	}
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.String())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		`a/a_test.go:11: contract:proves names "demo.wire.unknown", which no spec declares`,
		"a/a_test.go:14: contract:proves is outside a function",
		"b/b_test.go:4: contract:proves names no entry id",
		"c/broken_test.go:0: cannot parse",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
}

// A scan that knows no ids yet keeps every directive; Unknown then reports
// the ones no spec declares, as a scan with known would have.
func TestUnknownAfterScan(t *testing.T) {
	fsys := fstest.MapFS{"a/a_test.go": {Data: []byte("package a\n\n//contract:proves demo.wire.lines demo.wire.gone\nfunc TestA() {}\n")}}
	tests, problems, err := Scan(fsys, nil)
	if err != nil || len(problems) != 0 || len(tests) != 2 {
		t.Fatalf("scan: %v %v %v", tests, problems, err)
	}
	if got := tests["demo.wire.lines"]; len(got) != 1 || got[0].FuncLine != 4 || got[0].Line != 3 {
		t.Errorf("lines: %+v, want the directive on line 3 and the function on line 4", got)
	}
	ps := Unknown(tests, func(id string) bool { return id == "demo.wire.lines" })
	if len(ps) != 1 || ps[0].String() != `a/a_test.go:3: contract:proves names "demo.wire.gone", which no spec declares` {
		t.Errorf("unknown: %v", ps)
	}
}
