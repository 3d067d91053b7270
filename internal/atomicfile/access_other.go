//go:build !unix

package atomicfile

import (
	"io/fs"
	"os"
)

// WriteDenied says why this process may not replace the regular file st
// at path, nil when it may: here, the read-only attribute (no write bit).
func WriteDenied(path string, st fs.FileInfo) error {
	if st.Mode().Perm()&0o222 == 0 {
		return &DeniedError{Path: path, Reason: ErrNoWriteBit}
	}
	return nil
}

// OpenNoFollow opens path for reading; the caller compares the file it
// opened with the one Lstat saw, so a link put in its place is found.
func OpenNoFollow(path string) (*os.File, error) { return os.Open(path) }
