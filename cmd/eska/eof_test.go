package main

import (
	"os/exec"
	"testing"
)

// initialize, exit and the end of input arrive together: the frames in
// one write and stdin closed at once. The exit was read before the end of
// input, so it is handled first and decides the code: 1, exit without
// shutdown, every time; with shutdown before it, 0.
//
//contract:proves eska-ide-api.lifecycle.exit-codes
func TestExitWithEOFInOneWrite(t *testing.T) {
	bin := build(t)
	exit := `{"jsonrpc":"2.0","method":"exit"}`
	shutdown := `{"jsonrpc":"2.0","id":"s","method":"shutdown"}`
	for _, tc := range []struct {
		name  string
		input []byte
		code  int
	}{
		{"initialize, exit, EOF", framed(init10, exit), 1},
		{"initialize, shutdown, exit, EOF", framed(init10, shutdown, exit), 0},
	} {
		for i := 0; i < 100; i++ {
			cmd := exec.Command(bin, "ide", "--stdio")
			stdin, _ := cmd.StdinPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if _, err := stdin.Write(tc.input); err != nil {
				t.Fatal(err)
			}
			stdin.Close()
			code := 0
			if err := cmd.Wait(); err != nil {
				ee, ok := err.(*exec.ExitError)
				if !ok {
					t.Fatal(err)
				}
				code = ee.ExitCode()
			}
			if code != tc.code {
				t.Fatalf("%s, run %d of 100: exit %d, want %d", tc.name, i+1, code, tc.code)
			}
		}
	}
}
