//go:build unix

package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// trustLink says why the symbolic link st at link is not to be followed,
// nil when it is: it must belong to root or to this process's effective
// user, and its folder too, and no one else may write in that folder
// (no group or other write bit, an ACL granting another user a write
// showing as the group's) unless the folder is sticky, as /tmp is: there
// only a link's owner, the folder's and root may remove or rename it, so
// a link of root's or this user's stays as they made it. A link itself
// cannot be changed, only replaced in its folder.
func trustLink(link string, st fs.FileInfo) error {
	folder := filepath.Dir(link)
	dir, err := os.Stat(folder)
	if err != nil {
		return err
	}
	return trustLinkIn(link, int(st.Sys().(*syscall.Stat_t).Uid), folder, int(dir.Sys().(*syscall.Stat_t).Uid), dir.Mode())
}

// trustLinkIn is trustLink's judgement of a link of owner in the folder
// of dirOwner and dirMode (named folder).
func trustLinkIn(link string, owner int, folder string, dirOwner int, dirMode fs.FileMode) error {
	euid := os.Geteuid()
	if owner != 0 && owner != euid {
		return &UntrustedLinkError{Path: link, Why: "it belongs to " + userName(owner) + ", neither root nor this user"}
	}
	switch {
	case dirOwner != 0 && dirOwner != euid:
		return &UntrustedLinkError{Path: link, Why: fmt.Sprintf("its folder %s belongs to %s, who may replace it", folder, userName(dirOwner))}
	case dirMode&fs.ModeSticky == 0 && dirMode.Perm()&0o002 != 0:
		return &UntrustedLinkError{Path: link, Why: fmt.Sprintf("its folder %s may be written by every user (mode %#o, not sticky), who may replace it", folder, dirMode.Perm())}
	case dirMode&fs.ModeSticky == 0 && dirMode.Perm()&0o020 != 0:
		return &UntrustedLinkError{Path: link, Why: fmt.Sprintf("its folder %s may be written by its group (mode %#o, not sticky), who may replace it", folder, dirMode.Perm())}
	}
	return nil
}

// walkFolder walks to the folder path with open folders, not names: each
// part is opened relative to the folder opened before it, never through
// a link (O_NOFOLLOW); a part that is a link is judged (trustLinkIn, its
// folder being the one held open, so the folder judged is the one it is
// in) and read there (readlinkat), and the walk goes on from its target.
// No name is looked up twice, so a folder on the way swapped for a link
// between a look and an open cannot send the walk elsewhere: the folder
// it returns is reached only through parts it judged. The errors are
// TrustedFolderWay's; a part that does not exist a *fs.PathError.
func walkFolder(path string) (*os.File, error) {
	at, rest := startOf(filepath.Clean(path))
	fd, err := unix.Open(at, walkOpen|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: at, Err: err}
	}
	// fd is closed on every return but the last, which hands it over.
	defer func() {
		if fd >= 0 {
			unix.Close(fd)
		}
	}()
	parts := splitParts(rest)
	followed := 0
	for len(parts) > 0 {
		part := parts[0]
		parts = parts[1:]
		p := filepath.Join(at, part)
		next, err := unix.Openat(fd, part, walkOpen|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == nil {
			unix.Close(fd)
			fd, at = next, p
			continue
		}
		var st unix.Stat_t
		if serr := unix.Fstatat(fd, part, &st, unix.AT_SYMLINK_NOFOLLOW); serr != nil {
			return nil, &fs.PathError{Op: "open", Path: p, Err: serr}
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
		case unix.S_IFDIR:
			return nil, &fs.PathError{Op: "open", Path: p, Err: err}
		default:
			return nil, &NotDirError{Path: p}
		}
		if followed++; followed > MaxLinks {
			return nil, &TooManyLinksError{Path: p}
		}
		var dir unix.Stat_t
		if err := unix.Fstat(fd, &dir); err != nil {
			return nil, &fs.PathError{Op: "stat", Path: at, Err: err}
		}
		dirMode := fs.FileMode(dir.Mode & 0o777)
		if dir.Mode&unix.S_ISVTX != 0 {
			dirMode |= fs.ModeSticky
		}
		if err := trustLinkIn(p, int(st.Uid), at, int(dir.Uid), dirMode); err != nil {
			return nil, err
		}
		target, err := readlinkat(fd, part)
		if err != nil {
			return nil, &fs.PathError{Op: "readlink", Path: p, Err: err}
		}
		var root string
		if root, parts = afterLink(target, parts); root != "" {
			rfd, err := unix.Open(root, walkOpen|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				return nil, &fs.PathError{Op: "open", Path: root, Err: err}
			}
			unix.Close(fd)
			fd, at = rfd, root
		}
	}
	f := os.NewFile(uintptr(fd), at)
	fd = -1
	return f, nil
}

// readlinkat reads the link name in the folder dirfd.
func readlinkat(dirfd int, name string) (string, error) {
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// userName names the user uid: "user NAME (UID)", or "user UID" when the
// system does not know the name.
func userName(uid int) string {
	id := strconv.Itoa(uid)
	if u, err := user.LookupId(id); err == nil && u.Username != "" {
		return "user " + u.Username + " (" + id + ")"
	}
	return "user " + id
}
