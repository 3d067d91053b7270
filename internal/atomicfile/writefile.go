package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// putPrefix begins the names of WriteFile's temporary files. It differs
// from tempPrefix because no journal names these: whoever owns the folder
// removes what a killed write left (gen removes unexpected files in the
// folders it owns).
const putPrefix = ".contractkit-put-"

// IsPutTemp reports a name WriteFile gives its temporary files.
func IsPutTemp(name string) bool { return strings.HasPrefix(filepath.Base(name), putPrefix) }

// WriteFile puts data in the file rel below root, creating it and the
// folders on the way when they are missing: the bytes go to a temporary
// file in the same folder, which is synced and renamed over the file, and
// then the folder is synced, so a crash leaves the old file or the new one
// whole, never a mix. A symbolic link at rel or on the way to it below
// root is refused before anything is written (root itself may be reached
// through links). A file that exists keeps its permissions; a new one gets
// perm. before, when not nil, runs just before the rename: the caller's
// last look at the snapshot it computed data from; its error stops the
// write and is returned.
func WriteFile(root, rel string, data []byte, perm fs.FileMode, before func() error) error {
	if rel == "" || filepath.IsAbs(rel) || !filepath.IsLocal(rel) {
		return fmt.Errorf("%s: not a path below %s", rel, root)
	}
	full := filepath.Join(root, rel)
	mode, err := noLinksBelow(root, rel)
	if err != nil {
		return err
	}
	if mode == 0 {
		mode = perm
	}
	dir := filepath.Dir(full)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var suffix [8]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return err
	}
	tmp := filepath.Join(dir, tempNameWith(putPrefix, filepath.Base(full), "-"+hex.EncodeToString(suffix[:])))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode.Perm())
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode.Perm()) // OpenFile's mode passed through the umask
	}
	if err == nil {
		err = f.Sync()
	}
	err = errors.Join(err, f.Close())
	if err == nil && before != nil {
		err = before()
	}
	if err == nil {
		// The links are looked for again: one made while the bytes were
		// written must not be replaced by the file it pointed from.
		_, err = noLinksBelow(root, rel)
	}
	if err == nil {
		err = os.Rename(tmp, full)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return SyncDir(dir)
}

// noLinksBelow refuses rel when a part of it below root is a symbolic
// link, or when rel names something that is not a regular file. It returns
// the permissions of the file rel names, 0 when there is none yet.
func noLinksBelow(root, rel string) (fs.FileMode, error) {
	st, err := way(root, rel)
	var le *LinkError
	var nd *NotDirError
	switch {
	case errors.As(err, &le):
		return 0, fmt.Errorf("%s: %s is a symbolic link; nothing is written through one", filepath.Join(root, rel), le.Path)
	case errors.As(err, &nd):
		return 0, fmt.Errorf("%s: %s is not a folder", filepath.Join(root, rel), nd.Path)
	case err != nil:
		return 0, err
	case st == nil:
		return 0, nil
	case !st.Mode().IsRegular():
		return 0, fmt.Errorf("%s: not a regular file", filepath.Join(root, rel))
	}
	return st.Mode().Perm(), nil
}

// way looks at each part of rel below root in turn, following no link: a
// part that is a symbolic link is a *LinkError, a part on the way that is
// not a folder a *NotDirError (both name the part as root joined with
// rel's parts up to it). It returns what rel names, as Lstat sees it, or
// nil when that or a folder on the way does not exist. root itself may be
// reached through links: it is the caller's.
func way(root, rel string) (fs.FileInfo, error) {
	return lookWay(root, splitParts(filepath.Clean(rel)), func(p string, _ fs.FileInfo, _ bool) (string, error) {
		return "", &LinkError{Path: p}
	})
}
