package signedfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

type note struct {
	Text string `json:"text"`
}

// A sealed file opens with its own kind and key, and with nothing else:
// another key, another magic, another format, a changed body, a missing
// header line.
func TestSealOpen(t *testing.T) {
	key := bytes.Repeat([]byte{1}, KeySize)
	k := Kind{Magic: "test-kind/", Format: 3, Key: key}
	raw, err := k.Seal(note{Text: "привет"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "test-kind/3 "; !bytes.HasPrefix(raw, []byte(want)) {
		t.Fatalf("header %q, want it to open with %q", raw, want)
	}
	var n note
	if err := k.Open(raw, &n); err != nil || n.Text != "привет" {
		t.Fatalf("Open = %v, %+v", err, n)
	}
	other := k
	other.Key = bytes.Repeat([]byte{2}, KeySize)
	if err := other.Open(raw, &n); !errors.Is(err, ErrSignature) {
		t.Errorf("another key: %v", err)
	}
	magic := k
	magic.Magic = "test-other/"
	if err := magic.Open(raw, &n); !errors.Is(err, ErrNotSigned) {
		t.Errorf("another magic: %v", err)
	}
	// The magic is signed: a file re-headed with another kind's magic
	// fails its signature under that kind.
	if err := magic.Open(append([]byte("test-other/"), raw[len("test-kind/"):]...), &n); !errors.Is(err, ErrSignature) {
		t.Errorf("re-headed: %v", err)
	}
	var fe *FormatError
	if err := k.Open(k.Frame(4, []byte(`{"text":"x"}`)), &n); !errors.As(err, &fe) || fe.Got != "4" || fe.Want != 3 {
		t.Errorf("another format: %v", err)
	}
	changed := bytes.Replace(raw, []byte("привет"), []byte("пока!!"), 1)
	if err := k.Open(changed, &n); !errors.Is(err, ErrSignature) {
		t.Errorf("changed body: %v", err)
	}
	if err := k.Open(raw[:bytes.IndexByte(raw, '\n')], &n); !errors.Is(err, ErrNotSigned) {
		t.Errorf("no body: %v", err)
	}
	if err := k.Open(k.Frame(3, []byte(`not json`)), &n); err == nil {
		t.Error("a signed body that is not JSON was accepted")
	}
}

// The key is made once and then read back; a key file of the wrong size
// is replaced.
func TestLoadKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "eska")
	k1, err := LoadKey(dir)
	if err != nil || len(k1) != KeySize {
		t.Fatalf("first LoadKey: %d bytes, %v", len(k1), err)
	}
	k2, err := LoadKey(dir)
	if err != nil || !bytes.Equal(k1, k2) {
		t.Fatalf("second LoadKey gave another key (%v)", err)
	}
	if err := os.WriteFile(filepath.Join(dir, KeyFile), []byte("short"), 0o600); err != nil {
		t.Fatal(err)
	}
	k3, err := LoadKey(dir)
	if err != nil || len(k3) != KeySize || bytes.Equal(k3[:5], []byte("short")) {
		t.Fatalf("a damaged key was not replaced: %q, %v", k3, err)
	}
	if on, _ := os.ReadFile(filepath.Join(dir, KeyFile)); !bytes.Equal(on, k3) {
		t.Errorf("the key on disk is not the key returned")
	}
	// The size is exact: a key one byte longer is damaged too, and the
	// KeySize bytes it begins with are not taken for a key.
	long := append(bytes.Clone(k3), 0)
	if err := os.WriteFile(filepath.Join(dir, KeyFile), long, 0o600); err != nil {
		t.Fatal(err)
	}
	k4, err := LoadKey(dir)
	if err != nil || len(k4) != KeySize || bytes.Equal(k4, k3) {
		t.Fatalf("a key of %d bytes was not replaced: %x, %v", KeySize+1, k4, err)
	}
	if on, _ := os.ReadFile(filepath.Join(dir, KeyFile)); !bytes.Equal(on, k4) {
		t.Errorf("the key on disk is not the key returned after a long one")
	}
	if _, err := LoadKey(""); err == nil {
		t.Error("LoadKey without a directory succeeded")
	}
}

// Open takes any bytes without a panic. A file framed for this kind opens
// exactly when its body is JSON; any other format is a FormatError; and a
// file whose header was not made with this key never opens.
func FuzzOpen(f *testing.F) {
	k := Kind{Magic: "test-kind/", Format: 3, Key: bytes.Repeat([]byte{1}, KeySize)}
	f.Add([]byte(`{"text":"x"}`), 3)
	f.Add([]byte("not json"), 3)
	f.Add([]byte("{}\n{}"), 4)
	f.Add([]byte(""), -1)
	f.Fuzz(func(t *testing.T, body []byte, format int) {
		var v json.RawMessage
		err := k.Open(k.Frame(format, body), &v)
		var fe *FormatError
		switch {
		case format != k.Format:
			if !errors.As(err, &fe) {
				t.Fatalf("format %d: %v, want a FormatError", format, err)
			}
		case json.Valid(body) != (err == nil):
			t.Fatalf("body %q (JSON %v): %v", body, json.Valid(body), err)
		}
		// The same bytes as a whole file: its header is not this key's.
		if err := k.Open(body, &v); err == nil {
			t.Fatalf("%q opened without a signature of this key", body)
		}
	})
}
