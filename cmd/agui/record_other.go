//go:build !unix

package main

import (
	"fmt"
	"io/fs"
	"os"
)

// openNoFollow opens path for reading; the caller compares the file it
// opened with the one Lstat saw, so a link put in its place is found.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

// readOnly says why the file st at path is not one this process may
// replace: here, the read-only attribute (no write bit).
func readOnly(path string, st fs.FileInfo) error {
	if st.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("%s is read-only; agui does not replace it", path)
	}
	return nil
}
