package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// testdata/run.jsonl is go test -json over a package with a passing test
// that logs, two skips (one in a subtest) and a failing test.
func TestSummarize(t *testing.T) {
	in, err := os.ReadFile("testdata/run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out, skips bytes.Buffer
	failed, err := summarize(bytes.NewReader(in), &out, &skips)
	if err != nil || !failed {
		t.Fatalf("failed %v, err %v; want a failure reported", failed, err)
	}
	wantOut := "    x_test.go:6: shown\n    x_test.go:6: broken\n--- FAIL: TestD (0.00s)\nFAIL\nFAIL\tts\t0.005s\n"
	if out.String() != wantOut {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), wantOut)
	}
	wantSkips := "Skipped tests (2), with the reason each gave:\n" +
		"  ts TestB: x_test.go:4: needs the moon\n" +
		"  ts TestC/sub: x_test.go:5: corpus missing: x\n"
	if skips.String() != wantSkips {
		t.Errorf("skips:\n%s\nwant:\n%s", skips.String(), wantSkips)
	}
}

// Every test passing and nothing skipped: exit status 0 and an explicit
// "none"; a package that starts and never finishes is a failure.
func TestSummarizePassAndUnfinished(t *testing.T) {
	pass := `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0}
{"Action":"output","Package":"p","Output":"ok  \tp\t0.010s\n"}
{"Action":"pass","Package":"p","Elapsed":0.01}
`
	var out, skips bytes.Buffer
	failed, err := summarize(strings.NewReader(pass), &out, &skips)
	if err != nil || failed || out.String() != "ok  \tp\t0.010s\n" || skips.String() != "Skipped tests: none.\n" {
		t.Errorf("failed %v err %v out %q skips %q", failed, err, out.String(), skips.String())
	}
	out.Reset()
	failed, _ = summarize(strings.NewReader(`{"Action":"start","Package":"q"}`+"\nbuild noise\n"), &out, &skips)
	if !failed || !strings.Contains(out.String(), "build noise\n") || !strings.Contains(out.String(), "FAIL\tq\t(the stream ended") {
		t.Errorf("unfinished package: failed %v, out %q", failed, out.String())
	}
}
