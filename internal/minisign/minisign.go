// Package minisign reads and writes keys and signatures in the format of
// the minisign tool (https://jedisct1.github.io/minisign/), so that what
// eska's release signs can also be checked by hand with `minisign -V`, and
// a key made with `minisign -G -W` can sign a release.
//
// The format, as minisign documents it: a public key is one base64 line
// (after an "untrusted comment:" line in a file) of the algorithm "Ed",
// an 8-byte key id and the 32-byte Ed25519 public key. A signature file
// has four lines: an untrusted comment; base64 of the algorithm, the key
// id and a 64-byte Ed25519 signature; "trusted comment: " and its text;
// base64 of a second signature over the first signature followed by the
// trusted comment's text, which binds the comment to the file. Algorithm
// "ED" (minisign's default since 0.10) signs the BLAKE2b-512 hash of the
// file, "Ed" (legacy) the file itself. Signing here always prehashes;
// verification accepts both.
package minisign

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/crypto/blake2b"
)

// The two-byte algorithm tags.
const (
	algLegacy    = "Ed" // Ed25519 over the message itself
	algPrehashed = "ED" // Ed25519 over BLAKE2b-512(message)
	kdfNone      = "\x00\x00"
	checksumAlg  = "B2"
)

const (
	untrustedPrefix = "untrusted comment: "
	trustedPrefix   = "trusted comment: "
	keyIDLen        = 8
	// A secret key file's payload: algorithm, KDF, checksum algorithm
	// (2 bytes each), salt (32), opslimit and memlimit (8 each), then the
	// key id, the 64-byte secret key and a 32-byte checksum.
	secretHeaderLen = 2 + 2 + 2 + 32 + 8 + 8
	secretLen       = secretHeaderLen + keyIDLen + ed25519.PrivateKeySize + 32
	// maxLine bounds any line read, so a hostile file cannot make a parse
	// allocate much: the longest legitimate line is a trusted comment.
	maxLine = 8 << 10
)

// Errors of a verification.
var (
	// ErrMalformed: the key or signature is not in minisign's format.
	ErrMalformed = errors.New("not in minisign's format")
	// ErrUnknownKey: the signature was made by another key.
	ErrUnknownKey = errors.New("the signature was made by another key")
	// ErrInvalid: the signature does not match the message or the
	// trusted comment.
	ErrInvalid = errors.New("the signature does not match")
)

// PublicKey is a minisign public key.
type PublicKey struct {
	ID  [keyIDLen]byte
	Key ed25519.PublicKey
}

// SecretKey is an unencrypted minisign secret key.
type SecretKey struct {
	ID  [keyIDLen]byte
	Key ed25519.PrivateKey
}

// Public returns the key's public half.
func (k SecretKey) Public() PublicKey {
	return PublicKey{ID: k.ID, Key: k.Key.Public().(ed25519.PublicKey)}
}

// GenerateKey makes a new key pair from r (crypto/rand when nil).
func GenerateKey(r io.Reader) (SecretKey, error) {
	if r == nil {
		r = rand.Reader
	}
	var k SecretKey
	if _, err := io.ReadFull(r, k.ID[:]); err != nil {
		return k, err
	}
	_, priv, err := ed25519.GenerateKey(r)
	k.Key = priv
	return k, err
}

// String is the public key's base64 line, as `minisign -P` takes it.
func (k PublicKey) String() string {
	raw := append(append([]byte(algLegacy), k.ID[:]...), k.Key...)
	return base64.StdEncoding.EncodeToString(raw)
}

// File is the public key as a minisign.pub file.
func (k PublicKey) File() []byte {
	return []byte(fmt.Sprintf("%sminisign public key %X\n%s\n", untrustedPrefix, reverse(k.ID), k.String()))
}

// reverse is the key id as minisign prints it: as a little-endian number.
func reverse(id [keyIDLen]byte) []byte {
	out := make([]byte, keyIDLen)
	for i := range id {
		out[keyIDLen-1-i] = id[i]
	}
	return out
}

// ParsePublicKey reads a public key: the base64 line alone or a whole
// minisign.pub file.
func ParsePublicKey(text []byte) (PublicKey, error) {
	var k PublicKey
	line, err := keyLine(text)
	if err != nil {
		return k, err
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(line)
	if err != nil || len(raw) != 2+keyIDLen+ed25519.PublicKeySize || string(raw[:2]) != algLegacy {
		return k, fmt.Errorf("public key: %w", ErrMalformed)
	}
	copy(k.ID[:], raw[2:])
	k.Key = ed25519.PublicKey(bytes.Clone(raw[2+keyIDLen:]))
	return k, nil
}

// keyLine is the base64 line of a key: the only line, or the one after
// an untrusted comment.
func keyLine(text []byte) (string, error) {
	if len(text) > 2*maxLine {
		return "", fmt.Errorf("key: %w (too long)", ErrMalformed)
	}
	lines := splitLines(string(text))
	switch {
	case len(lines) == 1:
		return lines[0], nil
	case len(lines) == 2 && strings.HasPrefix(lines[0], untrustedPrefix):
		return lines[1], nil
	}
	return "", fmt.Errorf("key: %w (want a base64 line, after an untrusted comment in a file)", ErrMalformed)
}

// splitLines splits on LF (a CR before it is dropped) and drops one final
// empty line.
func splitLines(s string) []string {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// ParseSecretKey reads a secret key file that minisign wrote without a
// password (`minisign -G -W`) or that SecretKey.File wrote. Encrypted keys
// are refused: a release is signed without a person at the keyboard, so
// the key comes from the environment of the release job.
func ParseSecretKey(text []byte) (SecretKey, error) {
	var k SecretKey
	line, err := keyLine(text)
	if err != nil {
		return k, err
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(line)
	if err != nil || len(raw) != secretLen || string(raw[:2]) != algLegacy || string(raw[4:6]) != checksumAlg {
		return k, fmt.Errorf("secret key: %w", ErrMalformed)
	}
	if string(raw[2:4]) != kdfNone {
		return k, fmt.Errorf("secret key: %w (it is encrypted; make one with minisign -G -W or remove the password with minisign -C -W)", ErrMalformed)
	}
	body := raw[secretHeaderLen:]
	copy(k.ID[:], body)
	k.Key = ed25519.PrivateKey(bytes.Clone(body[keyIDLen : keyIDLen+ed25519.PrivateKeySize]))
	// The secret key holds its public half: a key whose halves disagree
	// would sign what nobody can verify.
	if !bytes.Equal(ed25519.NewKeyFromSeed(k.Key.Seed()), k.Key) {
		return k, fmt.Errorf("secret key: %w (its halves disagree)", ErrMalformed)
	}
	// minisign 0.11 leaves the checksum of an unencrypted key zero;
	// one that is set must match.
	sum, stored := secretChecksum(k), body[keyIDLen+ed25519.PrivateKeySize:]
	if !bytes.Equal(stored, make([]byte, len(stored))) && subtle.ConstantTimeCompare(sum[:], stored) != 1 {
		return k, fmt.Errorf("secret key: %w (checksum mismatch)", ErrMalformed)
	}
	return k, nil
}

// secretChecksum is BLAKE2b-256 of the algorithm, the key id and the
// secret key, as minisign checks it.
func secretChecksum(k SecretKey) [32]byte {
	h, _ := blake2b.New256(nil)
	h.Write([]byte(algLegacy))
	h.Write(k.ID[:])
	h.Write(k.Key)
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// File is the key as an unencrypted minisign secret key file.
func (k SecretKey) File() []byte {
	raw := make([]byte, 0, secretLen)
	raw = append(raw, algLegacy...)
	raw = append(raw, kdfNone...)
	raw = append(raw, checksumAlg...)
	raw = append(raw, make([]byte, 32+8+8)...) // no KDF: salt and limits unused
	raw = append(raw, k.ID[:]...)
	raw = append(raw, k.Key...)
	sum := secretChecksum(k)
	raw = append(raw, sum[:]...)
	return []byte(untrustedPrefix + "minisign secret key\n" + base64.StdEncoding.EncodeToString(raw) + "\n")
}

// Sign signs message (prehashed, minisign's default) and returns the
// signature file. The comments must be single lines.
func Sign(k SecretKey, message []byte, untrusted, trusted string) ([]byte, error) {
	if strings.ContainsAny(untrusted+trusted, "\r\n") {
		return nil, errors.New("minisign: a comment must be one line")
	}
	sig := ed25519.Sign(k.Key, prehash(message))
	global := ed25519.Sign(k.Key, append(bytes.Clone(sig), trusted...))
	var b bytes.Buffer
	b.WriteString(untrustedPrefix + untrusted + "\n")
	b.WriteString(base64.StdEncoding.EncodeToString(append(append([]byte(algPrehashed), k.ID[:]...), sig...)) + "\n")
	b.WriteString(trustedPrefix + trusted + "\n")
	b.WriteString(base64.StdEncoding.EncodeToString(global) + "\n")
	return b.Bytes(), nil
}

func prehash(message []byte) []byte {
	sum := blake2b.Sum512(message)
	return sum[:]
}

// Verify checks a signature file against message and the key and returns
// the trusted comment, which is only meaningful once this returned nil.
func Verify(k PublicKey, message, signature []byte) (trusted string, err error) {
	if len(signature) > 4*maxLine {
		return "", fmt.Errorf("signature: %w (too long)", ErrMalformed)
	}
	lines := splitLines(string(signature))
	if len(lines) != 4 || !strings.HasPrefix(lines[0], untrustedPrefix) || !strings.HasPrefix(lines[2], trustedPrefix) {
		return "", fmt.Errorf("signature: %w (want four lines: untrusted comment, signature, trusted comment, global signature)", ErrMalformed)
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(lines[1])
	if err != nil || len(raw) != 2+keyIDLen+ed25519.SignatureSize {
		return "", fmt.Errorf("signature: %w (line 2)", ErrMalformed)
	}
	global, err := base64.StdEncoding.Strict().DecodeString(lines[3])
	if err != nil || len(global) != ed25519.SignatureSize {
		return "", fmt.Errorf("signature: %w (line 4)", ErrMalformed)
	}
	alg, id, sig := string(raw[:2]), raw[2:2+keyIDLen], raw[2+keyIDLen:]
	signed := message
	switch alg {
	case algPrehashed:
		signed = prehash(message)
	case algLegacy:
	default:
		return "", fmt.Errorf("signature: %w (algorithm %q)", ErrMalformed, alg)
	}
	if !bytes.Equal(id, k.ID[:]) {
		return "", ErrUnknownKey
	}
	if !ed25519.Verify(k.Key, signed, sig) {
		return "", ErrInvalid
	}
	trusted = strings.TrimPrefix(lines[2], trustedPrefix)
	if !ed25519.Verify(k.Key, append(bytes.Clone(sig), trusted...), global) {
		return "", ErrInvalid
	}
	return trusted, nil
}
