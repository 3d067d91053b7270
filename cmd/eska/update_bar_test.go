package main

import (
	"bytes"
	"os"
	"testing"
)

// The progress bar redraws one line: the share done, as a bar and as a
// percentage, and the sizes in KiB.
func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	bar := progressBar(&b)
	bar(512<<10, 1<<20)
	if got, want := b.String(), "\r[===============               ]  50.0% 512/1024 KiB"; got != want {
		t.Fatalf("half: %q, want %q", got, want)
	}
	b.Reset()
	bar(1<<20, 1<<20)
	if got, want := b.String(), "\r[==============================] 100.0% 1024/1024 KiB"; got != want {
		t.Fatalf("done: %q, want %q", got, want)
	}
	b.Reset()
	bar(1, 0)
	if b.Len() != 0 {
		t.Fatalf("an unknown total drew %q", b.String())
	}
	if isTerminal(&b) {
		t.Fatal("a buffer is not a terminal")
	}
	// The null device is a character device, and still no terminal.
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if isTerminal(null) {
		t.Fatalf("%s is not a terminal", os.DevNull)
	}
}
