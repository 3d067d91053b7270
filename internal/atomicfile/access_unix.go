//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// WriteDenied says why this process may not replace the regular file st
// (as Lstat saw it) at path, nil when it may. Writability is judged as
// the system judges a write by this process (faccessat with the effective
// ids: another user's 0644 file, a group's, an ACL, a read-only mount), not
// by the owner's write bit; a file no one may write is denied even to
// root, which the system would let write it; another user's file in a
// sticky folder is denied, as the rename over it would be.
func WriteDenied(path string, st fs.FileInfo) error {
	if st.Mode().Perm()&0o222 == 0 {
		return &DeniedError{Path: path, Reason: ErrNoWriteBit}
	}
	err := unix.Faccessat(unix.AT_FDCWD, path, unix.W_OK, unix.AT_EACCESS)
	switch {
	case errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) || errors.Is(err, unix.EROFS):
		return &DeniedError{Path: path, Reason: ErrNotWritable, Err: err}
	case err != nil:
		return fmt.Errorf("%s: %w", path, err)
	}
	euid := os.Geteuid()
	dir, err := os.Stat(filepath.Dir(path))
	if err != nil || dir.Mode()&fs.ModeSticky == 0 || euid == 0 {
		return nil
	}
	fileOwner, dirOwner := st.Sys().(*syscall.Stat_t).Uid, dir.Sys().(*syscall.Stat_t).Uid
	if int(fileOwner) != euid && int(dirOwner) != euid {
		return &DeniedError{Path: path, Reason: ErrStickyOwner}
	}
	return nil
}

// OpenNoFollow opens path for reading, refusing a link at its end and not
// waiting on a named pipe put there.
func OpenNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
