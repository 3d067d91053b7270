//go:build unix

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// openNoFollow opens path for reading, refusing a link put in its place
// and not waiting on a pipe put there.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// readOnly says why the file st at path is not one this process may
// replace: nobody may write it (no write bit: someone means to keep it,
// even from root), the system says this process may not (faccessat with
// the effective ids, as a write would be judged: another user's 0644
// file, a group's, an ACL), or it belongs to someone else in a sticky
// folder (as /tmp), where only the file's or the folder's owner may
// replace it.
func readOnly(path string, st fs.FileInfo) error {
	if st.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("%s is read-only; agui does not replace it", path)
	}
	err := unix.Faccessat(unix.AT_FDCWD, path, unix.W_OK, unix.AT_EACCESS)
	switch {
	case errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) || errors.Is(err, unix.EROFS):
		return fmt.Errorf("%s is read-only to this user (%v); agui does not replace it", path, err)
	case err != nil:
		return fmt.Errorf("%s: %v", path, err)
	}
	euid := os.Geteuid()
	dir, err := os.Stat(filepath.Dir(path))
	if err != nil || dir.Mode()&fs.ModeSticky == 0 || euid == 0 {
		return nil
	}
	fileOwner, dirOwner := st.Sys().(*syscall.Stat_t).Uid, dir.Sys().(*syscall.Stat_t).Uid
	if int(fileOwner) != euid && int(dirOwner) != euid {
		return fmt.Errorf("%s belongs to another user in a sticky folder, where only its owner may replace it; agui does not replace it", path)
	}
	return nil
}
