//go:build !unix

package selfupdate

import (
	"errors"
	"io/fs"
	"os"
)

// lockFile creates path exclusively. Without flock a killed update
// leaves it behind; `eska update` then says another update is running
// until the file is removed by hand.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path+".held", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, errBusy
		}
		return nil, err
	}
	f.Close()
	return func() { os.Remove(path + ".held") }, nil
}
