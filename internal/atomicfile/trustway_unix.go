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
	euid := os.Geteuid()
	owner := int(st.Sys().(*syscall.Stat_t).Uid)
	if owner != 0 && owner != euid {
		return &UntrustedLinkError{Path: link, Why: "it belongs to " + userName(owner) + ", neither root nor this user"}
	}
	folder := filepath.Dir(link)
	dir, err := os.Stat(folder)
	if err != nil {
		return err
	}
	dirOwner := int(dir.Sys().(*syscall.Stat_t).Uid)
	switch {
	case dirOwner != 0 && dirOwner != euid:
		return &UntrustedLinkError{Path: link, Why: fmt.Sprintf("its folder %s belongs to %s, who may replace it", folder, userName(dirOwner))}
	case dir.Mode()&fs.ModeSticky == 0 && dir.Mode().Perm()&0o002 != 0:
		return &UntrustedLinkError{Path: link, Why: fmt.Sprintf("its folder %s may be written by every user (mode %#o, not sticky), who may replace it", folder, dir.Mode().Perm())}
	case dir.Mode()&fs.ModeSticky == 0 && dir.Mode().Perm()&0o020 != 0:
		return &UntrustedLinkError{Path: link, Why: fmt.Sprintf("its folder %s may be written by its group (mode %#o, not sticky), who may replace it", folder, dir.Mode().Perm())}
	}
	return nil
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
