package main

import (
	"bytes"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: what the test writes to the
// controller, the program reads from the terminal as typed input.
func openPTY(t *testing.T) (controller, tty *os.File) {
	t.Helper()
	c, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal on this machine (/dev/ptmx: %v)", err)
	}
	t.Cleanup(func() { c.Close() })
	if err := unix.IoctlSetPointerInt(int(c.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(c.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pseudo-terminal number: %v", err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return c, tty
}

// The hint that says how to end typed input goes to a terminal only: not
// to /dev/null, which is a character device too, nor to a pipe or a file.
func TestTerminalHintOnlyOnATerminal(t *testing.T) {
	const hint = "Ctrl-D"
	record := `{"type":"RUN_ERROR","message":"boom"}` + "\n"
	checkFrom := func(stdin *os.File) (int, string) {
		var out, errb bytes.Buffer
		code := run([]string{"check", "-"}, stdin, &out, &errb)
		return code, errb.String()
	}

	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if code, stderr := checkFrom(null); strings.Contains(stderr, hint) || code != exitUnusable {
		t.Errorf("from /dev/null: exit %d, stderr %q; want 2 (an empty record) and no hint", code, stderr)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString(record)
	w.Close()
	if code, stderr := checkFrom(r); strings.Contains(stderr, hint) || code != exitAccepted {
		t.Errorf("from a pipe: exit %d, stderr %q; want 0 and no hint", code, stderr)
	}
	r.Close()

	file := t.TempDir() + "/run.ndjson"
	os.WriteFile(file, []byte(record), 0o644)
	f, _ := os.Open(file)
	defer f.Close()
	if code, stderr := checkFrom(f); strings.Contains(stderr, hint) || code != exitAccepted {
		t.Errorf("from a file: exit %d, stderr %q; want 0 and no hint", code, stderr)
	}

	controller, tty := openPTY(t)
	// The record as typed, then Ctrl-D at the start of a line: end of input.
	if _, err := controller.WriteString(record + "\x04"); err != nil {
		t.Fatal(err)
	}
	if code, stderr := checkFrom(tty); !strings.Contains(stderr, hint) || code != exitAccepted {
		t.Errorf("from a terminal: exit %d, stderr %q; want 0 and the hint", code, stderr)
	}
}

// Through a pipe agui check - is silent, so a recorder's output is the
// only thing on stderr; a reader that is no file is no terminal.
func TestStdinHintNotForReaders(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"check", "-"}, strings.NewReader(`{"type":"RUN_ERROR","message":"boom"}`), &out, &errb)
	if code != exitAccepted || errb.String() != "" {
		t.Errorf("reader: exit %d, stderr %q", code, errb.String())
	}
	if isTerminal(strings.NewReader("")) {
		t.Error("a reader without a file descriptor counts as a terminal")
	}
}

// On a terminal the live check shows its progress on one line, redrawn in
// place (on anything else it shows none: TestLiveCheckMatchesFile).
func TestLiveProgressOnATerminal(t *testing.T) {
	controller, tty := openPTY(t)
	stream := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
		"data: {\"type\":\"STEP_STARTED\",\"stepName\":\"s\"}\n\n"
	agent := &sseAgent{body: []byte(stream + "data: {\"type\":\"STEP_FINISHED\",\"stepName\":\"s\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"), pieces: []int{1 << 20}, got: make(chan []byte, 1)}
	srv := httptest.NewServer(agent)
	defer srv.Close()
	var out bytes.Buffer
	code := run([]string{"check", "--url", srv.URL}, nil, &out, tty)
	tty.Close()
	seen := make(chan string, 1)
	go func() {
		var b bytes.Buffer
		buf := make([]byte, 4096)
		for {
			n, err := controller.Read(buf)
			b.Write(buf[:n])
			if err != nil || strings.Contains(b.String(), "open") {
				break
			}
		}
		seen <- b.String()
	}()
	var shown string
	select {
	case shown = <-seen:
	case <-time.After(5 * time.Second):
		controller.Close()
		shown = <-seen
	}
	if code != exitAccepted || !strings.Contains(shown, "\r\x1b[Kagui check: ") || !strings.Contains(shown, " events, ") {
		t.Errorf("exit %d; the terminal showed %q", code, shown)
	}
}
