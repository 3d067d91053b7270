//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contractkit/contractkit/internal/contractdiff"
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

// A policy that is no regular file, a FIFO a script feeds, has no size to
// look at first: it is read up to contractdiff.MaxPolicyBytes and one
// byte more. A policy of the limit is read; one byte past it is refused
// naming the limit.
func TestPolicyFromPipeLimit(t *testing.T) {
	dir := demoRepo(t)
	pad := func(n int) []byte {
		const doc = `{"severities": []}`
		return append([]byte(doc), bytes.Repeat([]byte(" "), n-len(doc))...)
	}
	for _, n := range []int{contractdiff.MaxPolicyBytes, contractdiff.MaxPolicyBytes + 1} {
		fifo := filepath.Join(t.TempDir(), "policy.fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("no FIFO here: %v", err)
		}
		fed := make(chan error, 1)
		go func() {
			// O_RDWR opens without waiting for the reader; the writes
			// wait for it, and the close is the end of the file.
			f, err := os.OpenFile(fifo, os.O_RDWR, 0)
			if err != nil {
				fed <- err
				return
			}
			_, err = f.Write(pad(n))
			fed <- errors.Join(err, f.Close())
		}()
		code, stdout, stderr := runCLI(t, dir, "--baseline-git-ref", "HEAD", "--policy", fifo)
		select {
		case err := <-fed:
			if err != nil && n == contractdiff.MaxPolicyBytes {
				t.Fatalf("feeding the FIFO: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("nothing read the FIFO")
		}
		want := fmt.Sprintf("%s: the file is more than %d bytes, the limit", fifo, contractdiff.MaxPolicyBytes)
		switch {
		case n == contractdiff.MaxPolicyBytes && code != 0:
			t.Errorf("a policy of %d bytes from a FIFO: exit %d\n%s%s", n, code, stdout, stderr)
		case n > contractdiff.MaxPolicyBytes && (code != 2 || !strings.Contains(stderr, want)):
			t.Errorf("a policy of %d bytes from a FIFO: exit %d, want 2 and %q\n%s%s", n, code, want, stdout, stderr)
		}
	}
}
