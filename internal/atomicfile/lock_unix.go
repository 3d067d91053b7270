//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// Lock takes the project's write lock without waiting: ErrBusy when
// another process (or another Writer of this one) holds it. The lock
// goes with the process, so a killed writer never leaves it taken.
func (w *Writer) Lock() (unlock func(), err error) {
	dir, err := w.stateDir(true)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	if err := StateFile(dir, w.State, lockName); err != nil {
		return nil, err
	}
	f, err := dir.OpenFile(lockName, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrBusy
		}
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
