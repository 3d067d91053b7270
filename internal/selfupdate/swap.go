package selfupdate

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contractkit/contractkit/internal/atomicfile"
)

// swap puts the synced file tmp in place of exe with one rename, then
// syncs the directory: at every moment exe is the old binary or the new
// one. Windows does not rename over a running executable, so there the
// old one is first moved into the state directory (a moment without a
// binary at exe, and the one exception to the rule).
func swap(tmp, exe, stateDir string) error {
	if err := os.Chmod(tmp, modeOf(exe)); err != nil {
		return err
	}
	if runtime.GOOS == "windows" {
		aside := filepath.Join(stateDir, "replaced"+tempMarker+filepath.Base(tmp))
		if err := os.Rename(exe, aside); err != nil {
			return err
		}
		if err := os.Rename(tmp, exe); err != nil {
			return errors.Join(err, os.Rename(aside, exe))
		}
		return nil
	}
	if err := os.Rename(tmp, exe); err != nil {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(exe))
}

// modeOf is exe's permission bits, so the new binary is as executable as
// the old one; 0755 when it cannot be read.
func modeOf(exe string) os.FileMode {
	if fi, err := os.Stat(exe); err == nil {
		return fi.Mode().Perm()
	}
	return 0o755
}

// runVersion runs path --version and returns the version it reports:
// in the line eska prints ("eska <build>; IDE server <version>", the
// build from the toolchain's build information, the version the one a
// release stamps), the IDE server's version; in the earlier form
// ("eska <version>"), the second word.
func runVersion(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, candidateTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Stdin, cmd.Stderr = nil, nil
	out, err := cmd.Output()
	if err != nil {
		return "", err
	}
	first, _, _ := strings.Cut(string(out), "\n")
	return reportedVersion(first)
}

// serverMark precedes the version in eska's --version line.
const serverMark = "; IDE server "

// reportedVersion is the version a --version line reports.
func reportedVersion(line string) (string, error) {
	fields := strings.Fields(line)
	if len(fields) < 2 || fields[0] != "eska" {
		return "", errors.New("--version printed " + strconvQuote(line))
	}
	if _, after, ok := strings.Cut(line, serverMark); ok {
		if v := strings.Fields(after); len(v) > 0 {
			return v[0], nil
		}
		return "", errors.New("--version printed " + strconvQuote(line))
	}
	return fields[1], nil
}

// strconvQuote quotes what a candidate printed for an error message: at
// most 80 bytes of it, cut between characters, with control characters
// escaped (strconv.Quote), so a line that is not a version line cannot
// move the terminal's cursor or split a character.
func strconvQuote(s string) string {
	if len(s) > 80 {
		n := 80
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return strconv.Quote(s)
}
