package main

import (
	"bytes"
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"
)

// --print-actions prints the actions file beside the source, byte for
// byte, and it describes the actions the sample runs: a sample installed
// with go install can be tried with aicontrol-mcp without the repository
// (the proof test in internal/gobuild starts aicontrol-mcp on it).
func TestPrintActions(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--print-actions"}, &out, &errb, nil); code != 0 || errb.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	want, err := os.ReadFile("actions.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("--print-actions printed %d bytes, actions.json has %d", out.Len(), len(want))
	}
	var f struct{ Actions []struct{ Name string } }
	if err := json.Unmarshal(out.Bytes(), &f); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range f.Actions {
		names = append(names, a.Name)
	}
	if got := strings.Join(names, " "); got != strings.Join(actions, " ") {
		t.Errorf("the actions file names %q, the sample runs %q", got, strings.Join(actions, " "))
	}
}

func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--version"}, &out, &errb, nil); code != 0 || !strings.HasPrefix(out.String(), "aicontrol-sample ") || !strings.Contains(out.String(), runtime.Version()) || errb.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if code := run([]string{"extra"}, &out, &errb, nil); code != 2 || !strings.Contains(errb.String(), `unexpected argument "extra"`) {
		t.Errorf("an argument: exit %d, stderr %q", code, errb.String())
	}
}
