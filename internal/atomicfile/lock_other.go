//go:build !unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
)

// Lock takes the project's write lock without waiting: ErrBusy when the
// lock file exists. Without flock a killed writer leaves it behind; it
// must then be removed by hand.
func (w *Writer) Lock() (unlock func(), err error) {
	dir, err := w.stateDir(true)
	if err != nil {
		return nil, err
	}
	if err := StateFile(dir, w.State, lockName); err != nil {
		dir.Close()
		return nil, err
	}
	f, err := dir.OpenFile(lockName, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		dir.Close()
		if errors.Is(err, fs.ErrExist) {
			return nil, ErrBusy
		}
		return nil, err
	}
	f.Close()
	return func() { dir.Remove(lockName); dir.Close() }, nil
}
