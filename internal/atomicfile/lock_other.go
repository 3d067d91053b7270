//go:build !unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Lock takes the project's write lock without waiting: ErrBusy when the
// lock file exists. Without flock a killed writer leaves it behind; it
// must then be removed by hand.
func (w *Writer) Lock() (unlock func(), err error) {
	if err := os.MkdirAll(w.State, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(w.State, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, ErrBusy
		}
		return nil, err
	}
	f.Close()
	return func() { os.Remove(path) }, nil
}
