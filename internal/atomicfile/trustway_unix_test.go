//go:build unix

package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nobody is the user another user's link or folder is given to (root
// only: no other user may give a file away).
const nobody = 65534

// trustTree makes, in a new folder of this user's (0700), the folder
// real/sub holding f.txt, and returns the new folder.
func trustTree(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "real", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "real", "sub", "f.txt"), []byte("f"), 0o644); err != nil {
		t.Fatal(err)
	}
	return base
}

// symlink makes the link at link naming target, or fails the test.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// trustedLinks makes, in trustTree's base, this user's links to real and
// real/sub by every kind of way: rel (relative), abs (absolute), c1 (a
// chain: c1 to c2 to abs) and through (a target through rel and "..").
func trustedLinks(t *testing.T, base string) {
	t.Helper()
	symlink(t, "real", filepath.Join(base, "rel"))
	symlink(t, filepath.Join(base, "real"), filepath.Join(base, "abs"))
	symlink(t, "c2", filepath.Join(base, "c1"))
	symlink(t, filepath.Join(base, "abs"), filepath.Join(base, "c2"))
	symlink(t, "rel/../real/./sub", filepath.Join(base, "through"))
}

// chmod sets mode exactly (the umask aside), or fails the test.
func chmod(t *testing.T, path string, mode fs.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// giveAway makes path, without following it, another user's: root only.
func giveAway(t *testing.T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("only root may give a file to another user (lchown); this case needs one owned by someone else")
	}
	if err := os.Lchown(path, nobody, nobody); err != nil {
		t.Fatal(err)
	}
}

// sameAs fails unless st is the file at path.
func sameAs(t *testing.T, what string, st fs.FileInfo, err error, path string) {
	t.Helper()
	want, werr := os.Lstat(path)
	if werr != nil {
		t.Fatal(werr)
	}
	if err != nil || st == nil || !os.SameFile(st, want) {
		t.Errorf("%s: %v, %v; want %s", what, st, err, path)
	}
}

// A link on the way owned by this user, in this user's own folder, is
// followed: relative and absolute targets, a chain of them, one whose
// target goes through another link and "..", from a relative path too;
// what lies beyond is judged as without a link (missing: nil; a file
// where a folder belongs: *NotDirError). way (WriteFile's, for eska), still
// refuses them all.
func TestTrustedWayFollowsTrustedLinks(t *testing.T) {
	base := trustTree(t)
	real := filepath.Join(base, "real")
	f := filepath.Join(real, "sub", "f.txt")
	trustedLinks(t, base)
	for _, path := range []string{
		filepath.Join(base, "rel", "sub", "f.txt"),
		filepath.Join(base, "abs", "sub", "f.txt"),
		filepath.Join(base, "c1", "sub", "f.txt"),
		filepath.Join(base, "through", "f.txt"),
	} {
		st, err := TrustedWay(path)
		sameAs(t, path, st, err, f)
		if _, err := way(base, strings.TrimPrefix(path, base+"/")); !errors.As(err, new(*LinkError)) {
			t.Errorf("way %s: %v, want a *LinkError", path, err)
		}
	}
	if st, err := TrustedWay(filepath.Join(base, "c1", "sub", "missing")); st != nil || err != nil {
		t.Errorf("missing: %v, %v", st, err)
	}
	if st, err := TrustedWay(filepath.Join(base, "c1", "nowhere", "missing")); st != nil || err != nil {
		t.Errorf("missing folder: %v, %v", st, err)
	}
	var nd *NotDirError
	if _, err := TrustedWay(filepath.Join(base, "rel", "sub", "f.txt", "x")); !errors.As(err, &nd) || nd.Path != f {
		t.Errorf("a file on the way: %v, want a *NotDirError at %s", err, f)
	}
	// A relative path, from the working folder.
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(base)
	st, err := TrustedWay(filepath.Join("c1", "sub", "f.txt"))
	sameAs(t, "relative", st, err, f)
}

// The last part is the file itself: a link there is a *LinkError (named
// as reached, with the links before it resolved), trusted or not;
// TrustedFolderWay, for a folder files are made in, follows a trusted one.
func TestTrustedWayLastPart(t *testing.T) {
	base := trustTree(t)
	real := filepath.Join(base, "real")
	symlink(t, "real", filepath.Join(base, "rel"))
	symlink(t, "f.txt", filepath.Join(real, "sub", "flink"))
	var le *LinkError
	if _, err := TrustedWay(filepath.Join(base, "rel")); !errors.As(err, &le) || le.Path != filepath.Join(base, "rel") {
		t.Errorf("the file a link: %v", err)
	}
	if _, err := TrustedWay(filepath.Join(base, "rel", "sub", "flink")); !errors.As(err, &le) || le.Path != filepath.Join(real, "sub", "flink") {
		t.Errorf("the file a link, past a link: %v", err)
	}
	st, err := TrustedFolderWay(filepath.Join(base, "rel"))
	sameAs(t, "folder", st, err, real)
	st, err = TrustedFolderWay(real)
	sameAs(t, "the folder itself", st, err, real)
}

// untrusted fails unless err is an *UntrustedLinkError for link whose
// reason holds why.
func untrusted(t *testing.T, what string, err error, link, why string) {
	t.Helper()
	var ue *UntrustedLinkError
	if !errors.As(err, &ue) || ue.Path != link || !strings.Contains(ue.Why, why) {
		t.Errorf("%s: %v, want an *UntrustedLinkError at %s saying %q", what, err, link, why)
	}
}

// Who may have put or may change a link decides: this user's link in a
// folder others may write in (0777, 0775 without the sticky bit) is not
// followed; in a sticky folder (1777, as /tmp) it is, and another user's
// is not; another user's link, or a link in another user's folder, is
// not followed even in a folder of this user's. A trusted link leading
// to an untrusted one stops at the untrusted one.
func TestTrustedWayJudgesWhoMayChangeALink(t *testing.T) {
	base := trustTree(t)
	real := filepath.Join(base, "real")
	f := filepath.Join(real, "sub", "f.txt")
	folder := func(name string, mode fs.FileMode) string {
		d := filepath.Join(base, name)
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		chmod(t, d, mode)
		symlink(t, real, filepath.Join(d, "mine"))
		return d
	}
	open := folder("open", 0o777)
	group := folder("group", 0o775)
	sticky := folder("sticky", 0o777|fs.ModeSticky)
	closed := folder("closed", 0o755)
	_, err := TrustedWay(filepath.Join(open, "mine", "sub", "f.txt"))
	untrusted(t, "0777", err, filepath.Join(open, "mine"), "its folder "+open+" may be written by every user (mode 0777, not sticky)")
	_, err = TrustedWay(filepath.Join(group, "mine", "sub", "f.txt"))
	untrusted(t, "0775", err, filepath.Join(group, "mine"), "its folder "+group+" may be written by its group (mode 0775, not sticky)")
	st, err := TrustedWay(filepath.Join(sticky, "mine", "sub", "f.txt"))
	sameAs(t, "1777, mine", st, err, f)
	st, err = TrustedWay(filepath.Join(closed, "mine", "sub", "f.txt"))
	sameAs(t, "0755, mine", st, err, f)
	// A trusted link to an untrusted one.
	symlink(t, filepath.Join(open, "mine"), filepath.Join(base, "toopen"))
	_, err = TrustedWay(filepath.Join(base, "toopen", "sub", "f.txt"))
	untrusted(t, "through a trusted link", err, filepath.Join(open, "mine"), "may be written by every user")

	t.Run("another user's", func(t *testing.T) {
		if name := userName(nobody); !strings.HasPrefix(name, "user ") || !strings.Contains(name, fmt.Sprint(nobody)) {
			t.Errorf("the user %d is named %q", nobody, name)
		}
		symlink(t, real, filepath.Join(sticky, "theirs"))
		giveAway(t, filepath.Join(sticky, "theirs"))
		_, err := TrustedWay(filepath.Join(sticky, "theirs", "sub", "f.txt"))
		untrusted(t, "1777, theirs", err, filepath.Join(sticky, "theirs"), "it belongs to "+userName(nobody)+", neither root nor this user")
		symlink(t, real, filepath.Join(closed, "theirs"))
		giveAway(t, filepath.Join(closed, "theirs"))
		_, err = TrustedWay(filepath.Join(closed, "theirs", "sub", "f.txt"))
		untrusted(t, "0755, theirs", err, filepath.Join(closed, "theirs"), fmt.Sprintf("(%d), neither root nor this user", nobody))
		// This user's link in another user's folder: they may replace it.
		giveAway(t, closed)
		_, err = TrustedWay(filepath.Join(closed, "mine", "sub", "f.txt"))
		untrusted(t, "in their folder", err, filepath.Join(closed, "mine"), "its folder "+closed+" belongs to "+userName(nobody)+", who may replace it")
	})
}

// At most MaxLinks links are followed on a way, by TrustedWay and by
// OpenFolder's walk alike: a chain of 40 is, one of 41 is a
// *TooManyLinksError naming the 41st, and so is a loop.
func TestTrustedWayBoundsLinks(t *testing.T) {
	base := trustTree(t)
	chain := func(name string, n int) string {
		// name-1 -> name-2 -> … -> name-n -> real
		for i := 1; i <= n; i++ {
			target := fmt.Sprintf("%s-%d", name, i+1)
			if i == n {
				target = "real"
			}
			symlink(t, target, filepath.Join(base, fmt.Sprintf("%s-%d", name, i)))
		}
		return filepath.Join(base, name+"-1", "sub", "f.txt")
	}
	st, err := TrustedWay(chain("at", MaxLinks))
	sameAs(t, "40 links", st, err, filepath.Join(base, "real", "sub", "f.txt"))
	var te *TooManyLinksError
	if _, err := TrustedWay(chain("past", MaxLinks+1)); !errors.As(err, &te) || te.Path != filepath.Join(base, "past-41") {
		t.Errorf("41 links: %v", err)
	}
	// OpenFolder's walk with open folders (walkFolder) keeps the same
	// bound, at it and one past it.
	root, err := OpenFolder(filepath.Dir(chain("open-at", MaxLinks)))
	if err != nil {
		t.Errorf("OpenFolder, 40 links: %v", err)
	} else {
		st, err := root.Stat(".")
		sameAs(t, "OpenFolder, 40 links", st, err, filepath.Join(base, "real", "sub"))
		root.Close()
	}
	if _, err := OpenFolder(filepath.Dir(chain("open-past", MaxLinks+1))); !errors.As(err, &te) || te.Path != filepath.Join(base, "open-past-41") {
		t.Errorf("OpenFolder, 41 links: %v", err)
	}
	symlink(t, "b", filepath.Join(base, "a"))
	symlink(t, "a", filepath.Join(base, "b"))
	if _, err := TrustedWay(filepath.Join(base, "a", "f.txt")); !errors.As(err, &te) || !strings.Contains(err.Error(), "more than 40 symbolic links on the way") {
		t.Errorf("a loop: %v", err)
	}
	if _, err := TrustedFolderWay(filepath.Join(base, "a")); !errors.As(err, &te) {
		t.Errorf("a loop as the folder: %v", err)
	}
}

// OpenFolder walks as TrustedFolderWay judges: trusted links (relative,
// absolute, chained, through "..", the last part too) lead to the folder
// they name; an untrusted link, a loop, a file on the way and a missing
// folder are refused with TrustedFolderWay's errors; a relative path
// starts at the working folder.
func TestOpenFolderFollowsOnlyTrustedLinks(t *testing.T) {
	base := trustTree(t)
	real := filepath.Join(base, "real")
	sub := filepath.Join(real, "sub")
	trustedLinks(t, base)
	opened := func(what, path, want string) {
		t.Helper()
		root, err := OpenFolder(path)
		if err != nil {
			t.Errorf("%s: %v", what, err)
			return
		}
		defer root.Close()
		st, err := root.Stat(".")
		sameAs(t, what, st, err, want)
	}
	opened("relative link", filepath.Join(base, "rel", "sub"), sub)
	opened("absolute link", filepath.Join(base, "abs", "sub"), sub)
	opened("chain", filepath.Join(base, "c1", "sub"), sub)
	opened("through ..", filepath.Join(base, "through"), sub)
	opened("the last part a link", filepath.Join(base, "c1"), real)
	opened("no link", sub, sub)
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(base)
	opened("from the working folder", filepath.Join("c1", "sub"), sub)
	os.Chdir(wd)

	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o700)
	chmod(t, open, 0o777)
	symlink(t, real, filepath.Join(open, "mine"))
	_, err := OpenFolder(filepath.Join(open, "mine", "sub"))
	untrusted(t, "0777", err, filepath.Join(open, "mine"), "its folder "+open+" may be written by every user (mode 0777, not sticky)")
	symlink(t, filepath.Join(open, "mine"), filepath.Join(base, "toopen"))
	_, err = OpenFolder(filepath.Join(base, "toopen"))
	untrusted(t, "through a trusted link", err, filepath.Join(open, "mine"), "may be written by every user")
	symlink(t, "b", filepath.Join(base, "a"))
	symlink(t, "a", filepath.Join(base, "b"))
	var te *TooManyLinksError
	if _, err := OpenFolder(filepath.Join(base, "a")); !errors.As(err, &te) {
		t.Errorf("a loop: %v", err)
	}
	var nd *NotDirError
	f := filepath.Join(sub, "f.txt")
	if _, err := OpenFolder(filepath.Join(base, "rel", "sub", "f.txt", "x")); !errors.As(err, &nd) || nd.Path != f {
		t.Errorf("a file on the way: %v, want a *NotDirError at %s", err, f)
	}
	if _, err := OpenFolder(f); !errors.As(err, &nd) || nd.Path != f {
		t.Errorf("a file as the folder: %v, want a *NotDirError at %s", err, f)
	}
	if _, err := OpenFolder(filepath.Join(base, "c1", "nowhere")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// The folder OpenFolder returns is the one its walk reached: should the
// folder be swapped for a link to another (in a folder others may
// write, where the walk would not follow it) once the walk holds it and
// before it is opened by name, the other folder is not returned: a
// *FolderChangedError. The neighbour, with no swap, opens the folder.
func TestOpenFolderSwappedForALinkAfterTheWalk(t *testing.T) {
	base := trustTree(t)
	shared := filepath.Join(base, "shared")
	proj, elsewhere := filepath.Join(shared, "proj"), filepath.Join(base, "elsewhere")
	os.MkdirAll(proj, 0o755)
	os.Mkdir(elsewhere, 0o755)
	chmod(t, shared, 0o777)
	defer func() { folderWalked = nil }()
	folderWalked = func() {
		os.Rename(proj, proj+"-was")
		symlink(t, elsewhere, proj)
	}
	root, err := OpenFolder(proj)
	var fc *FolderChangedError
	if !errors.As(err, &fc) || fc.Path != proj {
		t.Errorf("swapped: %v, %v; want a *FolderChangedError at %s", root, err, proj)
	}
	folderWalked = nil
	os.Remove(proj)
	os.Rename(proj+"-was", proj)
	root, err = OpenFolder(proj)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	st, err := root.Stat(".")
	sameAs(t, "untouched", st, err, proj)
}

// readlinkat reads a link's whole target, whatever its length: one
// shorter than its first buffer (256 bytes), one that fills it exactly
// (read again with a larger one), one a byte past it, and one that needs
// the buffer doubled more than once.
func TestReadlinkatWholeTarget(t *testing.T) {
	dir := t.TempDir()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, n := range []int{255, 256, 257, 1025} {
		target := strings.Repeat("t", n)
		name := fmt.Sprintf("link-%d", n)
		symlink(t, target, filepath.Join(dir, name))
		if got, err := readlinkat(int(d.Fd()), name); err != nil || got != target {
			t.Errorf("a target of %d bytes: %d bytes read, %v", n, len(got), err)
		}
	}
}
