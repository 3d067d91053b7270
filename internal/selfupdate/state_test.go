package selfupdate

import (
	"os"
	"path/filepath"
	"testing"
)

// accept keeps the highest serial, and the lock removes the temporary
// files a killed write of state.json or a killed download left.
func TestStateAcceptAndCleanTemps(t *testing.T) {
	st := newState(filepath.Join(t.TempDir(), "eska"))
	if err := st.accept(7); err != nil {
		t.Fatal(err)
	}
	if err := st.accept(5); err != nil {
		t.Fatal(err)
	}
	if n, err := st.serial(); err != nil || n != 7 {
		t.Fatalf("serial after accept(7), accept(5) = %d, %v; want 7", n, err)
	}
	if fi, err := os.Stat(filepath.Join(st.dir, stateName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("state.json: %v, %v; want mode 0600", fi, err)
	}
	left := []string{".contractkit-put-state.json-0123456789abcdef", "new" + tempMarker + "42"}
	for _, name := range left {
		if err := os.WriteFile(filepath.Join(st.dir, name), []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	unlock, err := st.lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	for _, name := range left {
		if _, err := os.Lstat(filepath.Join(st.dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s left after lock: %v", name, err)
		}
	}
	if n, err := st.serial(); err != nil || n != 7 {
		t.Fatalf("serial after lock = %d, %v; want 7", n, err)
	}
}
