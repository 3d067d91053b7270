//go:build unix

package main

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A device or a pipe where a report goes is written to, not replaced:
// --output /dev/null discards the report, and a FIFO a script reads gets
// it whole.
func TestReportToADeviceOrPipe(t *testing.T) {
	dir := demoRepo(t)
	if code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "markdown", "--output", os.DevNull); code != 0 {
		t.Errorf("--output %s: exit %d\n%s%s", os.DevNull, code, stdout, stderr)
	}
	fifo := filepath.Join(t.TempDir(), "report.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo) // waits for the writer
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--format", "github", "--markdown", fifo)
	var report []byte
	select {
	case report = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("nothing read the FIFO")
	}
	if code != 0 || !bytes.HasPrefix(report, []byte("# Contract diff")) {
		t.Errorf("--markdown to a FIFO: exit %d, the reader got %q\n%s%s", code, report, stdout, stderr)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", st, err)
	}
}
