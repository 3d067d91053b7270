// Package signedfile frames the derived state eska keeps in a user's
// project (the metadata disk cache, the edit history): files a
// repository can plant, so each is read back only when it carries this
// user's signature. A file is one header line, the magic of its kind, its
// format and the hex HMAC-SHA256 under the user's key of the magic and
// the body, then the body, JSON:
//
//	<magic><format> <hex MAC>\n<JSON body>
//
// The magic is signed with the body, so a file of one kind never passes
// for a file of another kind signed with the same key.
package signedfile

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// KeySize is the length of a signing key.
const KeySize = 32

// Kind is one kind of signed file: its magic, its format and the key it
// is signed with.
type Kind struct {
	Magic  string // opens the header line, e.g. "eska-edit-history/"
	Format int    // a file of another format is refused
	Key    []byte
}

// Why Open refused a file, besides a body that is not the JSON expected.
var (
	ErrNotSigned = errors.New("no header line of this kind")
	ErrSignature = errors.New("the signature does not match: not written by this user's eska, or changed since")
)

// FormatError is a file of another format than the kind's.
type FormatError struct {
	Got  string // as the header has it
	Want int
}

func (e *FormatError) Error() string { return fmt.Sprintf("format %q, want %d", e.Got, e.Want) }

// MAC is the signature of a body.
func (k Kind) MAC(body []byte) []byte {
	m := hmac.New(sha256.New, k.Key)
	m.Write([]byte(k.Magic))
	m.Write(body)
	return m.Sum(nil)
}

// Seal encodes v as JSON and frames it with its signature.
func (k Kind) Seal(v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return k.Frame(k.Format, body), nil
}

// Frame is the file that holds body, signed, headed with format (which
// tests set to another than k's to make a file of another format).
func (k Kind) Frame(format int, body []byte) []byte {
	f := strconv.Itoa(format)
	out := make([]byte, 0, len(k.Magic)+len(f)+1+2*sha256.Size+1+len(body))
	out = append(out, k.Magic...)
	out = append(out, f...)
	out = append(out, ' ')
	out = hex.AppendEncode(out, k.MAC(body))
	out = append(out, '\n')
	return append(out, body...)
}

// Open checks the header and signature of raw and decodes its body into
// v. A file without the header of this kind, of another format, or whose
// signature fails is refused before its body is decoded.
func (k Kind) Open(raw []byte, v any) error {
	head, body, ok := bytes.Cut(raw, []byte{'\n'})
	if !ok || !bytes.HasPrefix(head, []byte(k.Magic)) {
		return ErrNotSigned
	}
	format, macHex, ok := bytes.Cut(head[len(k.Magic):], []byte{' '})
	if !ok || string(format) != strconv.Itoa(k.Format) {
		return &FormatError{Got: string(format), Want: k.Format}
	}
	want, err := hex.DecodeString(string(macHex))
	if err != nil || !hmac.Equal(want, k.MAC(body)) {
		return ErrSignature
	}
	return json.Unmarshal(body, v)
}

// KeyFile is the file, in the user's cache directory (DefaultKeyDir),
// that holds the key eska signs the state it keeps in projects with.
const KeyFile = "metadata-cache.key"

// DefaultKeyDir is where the signing key lives: eska's folder in the
// user's cache directory ($XDG_CACHE_HOME or ~/.cache on Linux).
func DefaultKeyDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "eska")
}

// LoadKey reads the signing key in dir, creating it on first use. The
// key is written to a temporary file and linked into place, so two
// processes starting at once agree on one key and neither reads half of
// it.
func LoadKey(dir string) ([]byte, error) {
	if dir == "" {
		return nil, errors.New("no key directory")
	}
	path := filepath.Join(dir, KeyFile)
	if key, err := os.ReadFile(path); err == nil && len(key) == KeySize {
		return key, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".key-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(key)
	serr := f.Sync()
	if cerr := f.Close(); werr != nil || serr != nil || cerr != nil {
		return nil, errors.Join(werr, serr, cerr)
	}
	if err := os.Link(f.Name(), path); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		// Another process was first, or a damaged key is there: a key of
		// the wrong size is replaced (files signed with it fail their
		// check and are rebuilt or dropped).
		if old, rerr := os.ReadFile(path); rerr == nil && len(old) == KeySize {
			return old, nil
		}
		if err := os.Rename(f.Name(), path); err != nil {
			return nil, err
		}
	}
	return key, nil
}
