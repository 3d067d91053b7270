//go:build unix

package picture

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO in place of a picture would block a naive reader forever; the IDE
// worker must get an answer instead.
func TestFIFO(t *testing.T) {
	for _, target := range []string{"picture", "descriptor"} {
		t.Run(target, func(t *testing.T) {
			desc, p := descriptor("Picture.png"), filepath.Join(pictureDir, "Picture.png")
			if target == "descriptor" {
				desc, p = "", descriptorFile
			}
			f := newFixture(t, desc, nil)
			p = filepath.Join(f.ext(), p)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			done := make(chan Preview, 1)
			go func() { done <- Load(f.root, f.name) }()
			select {
			case got := <-done:
				wantStatus(t, got, StatusInvalid)
			case <-time.After(10 * time.Second):
				t.Fatal("Load blocked on a FIFO")
			}
		})
	}
}
