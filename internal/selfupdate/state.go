package selfupdate

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/atomicfile"
)

// stateDirName is the folder beside the binary where updates keep their
// lock, the highest manifest serial accepted, the previous binary and
// their temporary files. Beside the binary, because whoever may replace
// the binary may write there, a download lands on the binary's file
// system (so the swap is a rename), and two installations never share
// a state.
const stateDirName = ".eska-update"

// Names in the state directory.
const (
	lockName   = "lock"
	stateName  = "state.json"
	tempMarker = ".tmp-" // every temporary file has it; removed when found
)

type state struct{ dir string }

func newState(exe string) *state { return &state{dir: filepath.Join(filepath.Dir(exe), stateDirName)} }

// previous is where the binary before the last swap is kept.
func (s *state) previous() string {
	if runtime.GOOS == "windows" {
		return filepath.Join(s.dir, "previous.exe")
	}
	return filepath.Join(s.dir, "previous")
}

func (s *state) hasPrevious() bool {
	fi, err := os.Stat(s.previous())
	return err == nil && fi.Mode().IsRegular()
}

// record is state.json.
type record struct {
	// Serial is the highest manifest serial accepted, as a decimal
	// string like the manifest's.
	Serial string `json:"serial"`
}

// serial is the highest manifest serial accepted so far; 0 before any.
func (s *state) serial() (uint64, error) {
	raw, err := os.ReadFile(filepath.Join(s.dir, stateName))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var r record
	if err := json.Unmarshal(raw, &r); err != nil {
		return 0, err
	}
	return strconv.ParseUint(r.Serial, 10, 64)
}

// accept records serial as the lowest acceptable from now on.
func (s *state) accept(serial uint64) error {
	if seen, err := s.serial(); err == nil && seen >= serial {
		return nil
	}
	raw, _ := json.Marshal(record{Serial: strconv.FormatUint(serial, 10)})
	// atomicfile.WriteFile owns the temporary file, sync, rename and
	// folder sync; a temporary file a kill leaves is removed by cleanTemps.
	return atomicfile.WriteFile(s.dir, stateName, append(raw, '\n'), 0o600, nil)
}

// create makes a new temporary file in the state directory.
func (s *state) create(prefix string) (*os.File, error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, err
	}
	return os.CreateTemp(s.dir, prefix+tempMarker+"*")
}

// cleanTemps removes the temporary files a killed update left behind
// (its own, and those of atomicfile.WriteFile writing state.json);
// called with the lock held, so none of them is in use.
func (s *state) cleanTemps() {
	entries, _ := os.ReadDir(s.dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), tempMarker) || atomicfile.IsPutTemp(e.Name()) {
			os.Remove(filepath.Join(s.dir, e.Name()))
		}
	}
}

// copyIn copies src into a new synced, executable temporary file of the
// state directory.
func (s *state) copyIn(src, prefix string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := s.create(prefix)
	if err != nil {
		return "", err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Chmod(0o755)
	}
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out.Name())
		return "", err
	}
	return out.Name(), nil
}

// keep copies the binary to the previous slot: into a temporary file
// first, then renamed, so the slot holds a whole binary at every moment.
func (s *state) keep(exe string) error {
	tmp, err := s.copyIn(exe, "previous-")
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, s.previous()); err != nil {
		os.Remove(tmp)
		return err
	}
	return atomicfile.SyncDir(s.dir)
}

// lock takes the update lock without waiting, and then clears what a
// killed update left.
func (s *state) lock() (unlock func(), err error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, installFailed(err)
	}
	unlock, err = lockFile(filepath.Join(s.dir, lockName))
	if errors.Is(err, errBusy) {
		return nil, refuse(gen.DomainErrorKindUpdateInProgress, gen.UpdateRefusalDetails{})
	}
	if err != nil {
		return nil, installFailed(err)
	}
	s.cleanTemps()
	return unlock, nil
}

var errBusy = errors.New("another update holds the lock")
