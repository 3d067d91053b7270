//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// WriteDenied: a file with no write bit is denied (even to root); one
// this process may write is not. Another user's files are tested end to
// end by cmd/agui (TestSaveJudgesWritabilityAsTheSystemDoes, as root).
func TestWriteDenied(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		mode os.FileMode
		want error
	}{{0o444, ErrNoWriteBit}, {0o400, ErrNoWriteBit}, {0o644, nil}, {0o200, nil}} {
		path := filepath.Join(dir, tc.mode.String())
		os.WriteFile(path, nil, 0o600)
		os.Chmod(path, tc.mode)
		st, _ := os.Lstat(path)
		if err := WriteDenied(path, st); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%v: %v, want %v", tc.mode, err, tc.want)
		}
	}
}
