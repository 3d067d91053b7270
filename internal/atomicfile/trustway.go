package atomicfile

// A user's own file (a record agui saves, say) may lie below folders
// reached through symbolic links: /tmp and /var on macOS, /var/run, a
// home or a project folder moved elsewhere and linked back. Refusing
// every such link refuses the user's ordinary paths; following every one
// lets whoever may plant or change a link send the file somewhere the
// user did not mean. TrustedWay follows a link on the way only when no
// one but root and this user may have put it there or may change it, as
// careful tools judge a path before they trust it (OpenSSH's StrictModes).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MaxLinks is how many symbolic links TrustedWay follows on one way, as
// many as the Linux kernel follows resolving a path: more is a loop, or as
// good as one.
const MaxLinks = 40

// UntrustedLinkError is a symbolic link on the way that TrustedWay does
// not follow: Why says whose it is, or who else may change its folder.
type UntrustedLinkError struct {
	Path string // the link, with the links before it resolved
	Why  string
}

func (e *UntrustedLinkError) Error() string {
	return e.Path + ": a symbolic link not followed: " + e.Why
}

// TooManyLinksError is a way on which more than MaxLinks links are met;
// Path is the one past the bound.
type TooManyLinksError struct{ Path string }

func (e *TooManyLinksError) Error() string {
	return fmt.Sprintf("%s: more than %d symbolic links on the way (a loop of links?)", e.Path, MaxLinks)
}

// TrustedWay looks at each part of path in turn, from the root for an
// absolute path or from the working folder for a relative one (the
// working folder itself is the caller's and may be reached through
// links). A part on the way that is a symbolic link is followed only if
// it is trusted (trustLink: it belongs to root or to this process's
// effective user, and no one else may change the folder it is in); the
// parts of what it names are then looked at by the same rule, at most
// MaxLinks links in all (a *TooManyLinksError past it). An untrusted link
// is an *UntrustedLinkError, the last part being a link a *LinkError, a
// part on the way that is not a folder a *NotDirError. It returns what
// path names, as Lstat sees it, or nil when that or a folder on the way
// does not exist. The path is cleaned first (filepath.Clean), as the
// callers clean it when they open its folder.
func TrustedWay(path string) (fs.FileInfo, error) { return trustedWay(path, false) }

// TrustedFolderWay is TrustedWay for a folder in which files are to be
// made: its last part too is on the way to them, so a trusted link there
// is followed, and what it returns is the folder it leads to.
func TrustedFolderWay(path string) (fs.FileInfo, error) { return trustedWay(path, true) }

func trustedWay(path string, followLast bool) (fs.FileInfo, error) {
	at, rest := startOf(filepath.Clean(path))
	followed := 0
	return lookWay(at, splitParts(rest), func(p string, st fs.FileInfo, last bool) (string, error) {
		if last && !followLast {
			return "", &LinkError{Path: p}
		}
		if followed++; followed > MaxLinks {
			return "", &TooManyLinksError{Path: p}
		}
		if err := trustLink(p, st); err != nil {
			return "", err
		}
		return os.Readlink(p)
	})
}

// lookWay looks at parts in turn by name (Lstat), from the folder at: a
// part on the way that is not a folder is a *NotDirError; a part that is
// a symbolic link is handed to link (its path, what Lstat saw, whether
// it is the last part), which returns the error that ends the walk or
// the link's target, through which the walk goes on (afterLink). It
// returns what the last part names, or nil when that or a folder on the
// way does not exist (TrustedWay; way, which follows no link).
func lookWay(at string, parts []string, link func(p string, st fs.FileInfo, last bool) (string, error)) (fs.FileInfo, error) {
	for len(parts) > 0 {
		part := parts[0]
		parts = parts[1:]
		// at holds no link (each was resolved), so a ".." joined to it
		// is the folder's parent, as the system would find it.
		p := filepath.Join(at, part)
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		last := len(parts) == 0
		if st.Mode()&fs.ModeSymlink == 0 {
			if last {
				return st, nil
			}
			if !st.IsDir() {
				return nil, &NotDirError{Path: p}
			}
			at = p
			continue
		}
		target, err := link(p, st, last)
		if err != nil {
			return nil, err
		}
		var root string
		if root, parts = afterLink(target, parts); root != "" {
			at = root
		}
	}
	return os.Lstat(at)
}

// afterLink returns the parts a walk goes on with past a link to target,
// rest being those after the link, and, for an absolute target, the root
// the walk starts again from ("" for a relative one: it goes on from the
// link's folder). The target is not cleaned: "a/../b" goes through a,
// which may itself be a link.
func afterLink(target string, rest []string) (root string, parts []string) {
	if filepath.IsAbs(target) {
		root, rel := startOf(target)
		return root, append(splitParts(rel), rest...)
	}
	return "", append(splitParts(target), rest...)
}

// startOf splits a path into where its walk begins (the root of an
// absolute path, the working folder for a relative one) and the rest.
func startOf(path string) (string, string) {
	if !filepath.IsAbs(path) {
		return ".", path
	}
	vol := filepath.VolumeName(path)
	return vol + string(filepath.Separator), strings.TrimLeft(path[len(vol):], string(filepath.Separator))
}

// splitParts returns the names in rel, without empty ones and ".".
func splitParts(rel string) []string {
	var parts []string
	for _, p := range strings.Split(rel, string(filepath.Separator)) {
		if p != "" && p != "." {
			parts = append(parts, p)
		}
	}
	return parts
}

// FolderChangedError is a folder whose way changed while OpenFolder
// opened it: the path led to another folder than the walk did.
type FolderChangedError struct{ Path string }

func (e *FolderChangedError) Error() string {
	return e.Path + ": the way to the folder changed while it was opened"
}

// OpenFolder opens the folder path, in which files are to be made, by
// the rule of TrustedFolderWay, and returns it as an *os.Root through
// which they are made, renamed and removed. The way is walked with open
// folders, not names (on unix; walkFolder), so that a folder on it
// swapped for a link between a look and an open cannot lead the walk
// elsewhere. An os.Root is opened by name, so the folder it opened is
// compared with the one the walk holds (still open, so no other folder
// can take its identity meanwhile): another is a *FolderChangedError,
// never a folder the walk did not judge. The errors are TrustedFolderWay's
// (a part that does not exist a *fs.PathError).
func OpenFolder(path string) (*os.Root, error) {
	walked, err := walkFolder(path)
	if err != nil {
		return nil, err
	}
	defer walked.Close()
	want, err := walked.Stat()
	if err != nil {
		return nil, err
	}
	if !want.IsDir() {
		return nil, &NotDirError{Path: filepath.Clean(path)}
	}
	if folderWalked != nil {
		folderWalked()
	}
	root, err := os.OpenRoot(filepath.Clean(path))
	if err != nil {
		return nil, err
	}
	if got, err := root.Stat("."); err != nil || !os.SameFile(got, want) {
		root.Close()
		return nil, &FolderChangedError{Path: filepath.Clean(path)}
	}
	return root, nil
}

// folderWalked, when set (by a test), is called once OpenFolder's walk
// holds the folder, before the folder is opened as an os.Root.
var folderWalked func()
