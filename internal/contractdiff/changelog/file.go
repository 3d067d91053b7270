package changelog

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/contractkit/contractkit/internal/atomicfile"
)

// Dir is the folder, relative to a repository root, where each domain's
// notes accumulate, one file per language: changelog/<domain>.<lang>.md.
const Dir = "changelog"

// FilePath returns the repository-relative path of a domain's notes.
func FilePath(domain, lang string) string {
	return filepath.Join(Dir, domain+"."+lang+".md")
}

// AppendRelease appends the notes of d, in lang, to the file at path when
// d's version differs from its baseline's and the file does not hold the
// notes of this version yet, and reports whether it wrote. The file is
// replaced atomically (a temporary file in its folder, synced, renamed
// over it), never through a symbolic link, and only if it still holds the
// bytes the notes were appended to.
func AppendRelease(path string, d Domain, lang string) (bool, error) {
	if d.Base == nil || d.Base.Header.Version == d.Cur.Header.Version {
		return false, nil
	}
	old, err := readRegular(path)
	if err != nil {
		return false, err
	}
	var notes bytes.Buffer
	if err := Write(&notes, []Domain{d}, lang); err != nil {
		return false, err
	}
	heading, _, _ := strings.Cut(notes.String(), "\n")
	if bytes.Contains(append([]byte("\n"), old...), []byte("\n"+heading+"\n")) {
		return false, nil // this version's notes are there already
	}
	var out bytes.Buffer
	out.Write(old)
	if len(old) == 0 {
		title := map[string]string{EN: "Changes of %s", RU: "Изменения: %s"}[lang]
		fmt.Fprintf(&out, "# "+title+"\n", d.Cur.Header.Title.Get(lang))
	}
	out.WriteString("\n")
	out.Write(notes.Bytes())
	return true, replace(path, old, out.Bytes())
}

// readRegular reads the file at path, or nothing when there is none. A
// symbolic link, at the path or on the way to it, is an error.
func readRegular(path string) ([]byte, error) {
	if err := noLinks(path); err != nil {
		return nil, err
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	return os.ReadFile(path)
}

// noLinks refuses a path any existing part of which is a symbolic link.
func noLinks(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	for p := abs; ; p = filepath.Dir(p) {
		if st, err := os.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s: %s is a symbolic link; the notes are not written through one", path, p)
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}

// replace writes data over path, which must still hold old (nothing for a
// file that did not exist), atomically: see atomicfile.WriteFile.
func replace(path string, old, data []byte) error {
	return atomicfile.WriteFile(filepath.Dir(path), filepath.Base(path), data, 0o644, func() error {
		now, err := readRegular(path)
		if err != nil {
			return err
		}
		if !bytes.Equal(now, old) {
			return fmt.Errorf("%s changed while the notes were written; nothing was written", path)
		}
		return nil
	})
}
