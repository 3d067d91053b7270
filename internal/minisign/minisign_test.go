package minisign

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractkit/contractkit/internal/repotest"
)

// testKey reads the test key of the release tests (never used for a real
// release).
func testKey(t *testing.T) SecretKey {
	t.Helper()
	raw, err := os.ReadFile("../selfupdate/testdata/release-test.key")
	if err != nil {
		t.Fatal(err)
	}
	k, err := ParseSecretKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSignVerify(t *testing.T) {
	k := testKey(t)
	msg := []byte("eska manifest\n")
	sig, err := Sign(k, msg, "signature from eska release", "serial 3")
	if err != nil {
		t.Fatal(err)
	}
	trusted, err := Verify(k.Public(), msg, sig)
	if err != nil || trusted != "serial 3" {
		t.Fatalf("Verify = %q, %v", trusted, err)
	}
	// The key, its file and its base64 line read back the same.
	for _, text := range [][]byte{k.Public().File(), []byte(k.Public().String())} {
		pk, err := ParsePublicKey(text)
		if err != nil || pk.String() != k.Public().String() {
			t.Fatalf("ParsePublicKey(%q) = %v, %v", text, pk, err)
		}
	}
	back, err := ParseSecretKey(k.File())
	if err != nil || !bytes.Equal(back.Key, k.Key) || back.ID != k.ID {
		t.Fatalf("ParseSecretKey(File()) = %v", err)
	}
}

// Every change of the message, the signature or the trusted comment, and
// another key, is refused.
func TestVerifyRefuses(t *testing.T) {
	k := testKey(t)
	other, err := GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte(`{"serial":"1"}`)
	sig, _ := Sign(k, msg, "u", "t")
	lines := strings.Split(string(sig), "\n")
	flip := func(line int) []byte {
		l := append([]string(nil), lines...)
		b := []byte(l[line])
		// Change one base64 digit in the middle of the line.
		if b[20] == 'A' {
			b[20] = 'B'
		} else {
			b[20] = 'A'
		}
		l[line] = string(b)
		return []byte(strings.Join(l, "\n"))
	}
	otherID := other.Public()
	otherID.Key = k.Public().Key
	sameIDOtherKey := other.Public()
	sameIDOtherKey.ID = k.ID
	cases := []struct {
		name string
		key  PublicKey
		msg  []byte
		sig  []byte
		want error
	}{
		{"message changed", k.Public(), []byte(`{"serial":"2"}`), sig, ErrInvalid},
		{"signature changed", k.Public(), msg, flip(1), ErrInvalid},
		{"global signature changed", k.Public(), msg, flip(3), ErrInvalid},
		{"trusted comment changed", k.Public(), msg, []byte(strings.Replace(string(sig), "trusted comment: t", "trusted comment: x", 1)), ErrInvalid},
		{"another key id", otherID, msg, sig, ErrUnknownKey},
		{"another key, same id", sameIDOtherKey, msg, sig, ErrInvalid},
		{"empty", k.Public(), msg, nil, ErrMalformed},
		{"three lines", k.Public(), msg, []byte(strings.Join(lines[:3], "\n")), ErrMalformed},
		{"not base64", k.Public(), msg, []byte(strings.Replace(string(sig), lines[1], "!!!!", 1)), ErrMalformed},
		{"unknown algorithm", k.Public(), msg, []byte(strings.Replace(string(sig), lines[1], "X"+lines[1][1:], 1)), ErrMalformed},
	}
	for _, c := range cases {
		if _, err := Verify(c.key, c.msg, c.sig); !errors.Is(err, c.want) {
			t.Errorf("%s: Verify = %v, want %v", c.name, err, c.want)
		}
	}
}

// A legacy signature (algorithm Ed, over the message itself) verifies
// too, as minisign -V accepts it without -H.
func TestVerifyLegacy(t *testing.T) {
	if _, err := exec.LookPath("minisign"); err != nil {
		repotest.MissingPart(t, "minisign is not installed (make minisign)")
	}
	dir := t.TempDir()
	k := testKey(t)
	key := filepath.Join(dir, "k.key")
	os.WriteFile(key, k.File(), 0o600)
	msg := filepath.Join(dir, "m")
	os.WriteFile(msg, []byte("legacy"), 0o644)
	run(t, "minisign", "-S", "-l", "-s", key, "-m", msg, "-t", "legacy comment")
	sig, _ := os.ReadFile(msg + ".minisig")
	if trusted, err := Verify(k.Public(), []byte("legacy"), sig); err != nil || trusted != "legacy comment" {
		t.Fatalf("Verify(legacy) = %q, %v", trusted, err)
	}
}

// The real minisign tool and this package agree both ways: minisign
// signs with a key it generated and this package verifies; this package
// signs and `minisign -V -H` (prehashed signatures only) verifies; and
// minisign signs with a secret key file this package wrote.
func TestMinisignTool(t *testing.T) {
	if _, err := exec.LookPath("minisign"); err != nil {
		repotest.MissingPart(t, "minisign is not installed (make minisign)")
	}
	dir := t.TempDir()
	pub, sec := filepath.Join(dir, "minisign.pub"), filepath.Join(dir, "minisign.key")
	run(t, "minisign", "-G", "-W", "-p", pub, "-s", sec)
	msg := filepath.Join(dir, "manifest.json")
	body := []byte(`{"serial":"9"}` + "\n")
	os.WriteFile(msg, body, 0o644)
	run(t, "minisign", "-S", "-s", sec, "-m", msg, "-t", "from the real tool")

	pubText, _ := os.ReadFile(pub)
	pk, err := ParsePublicKey(pubText)
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := os.ReadFile(msg + ".minisig")
	if trusted, err := Verify(pk, body, sig); err != nil || trusted != "from the real tool" {
		t.Fatalf("Verify(minisign's signature) = %q, %v", trusted, err)
	}
	if _, err := Verify(pk, append(body, ' '), sig); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Verify(changed file) = %v", err)
	}
	// minisign's secret key file reads here, and signs the same.
	secText, _ := os.ReadFile(sec)
	sk, err := ParseSecretKey(secText)
	if err != nil {
		t.Fatal(err)
	}
	if sk.Public().String() != pk.String() {
		t.Fatalf("the secret key's public half %s, minisign.pub %s", sk.Public(), pk)
	}

	// Our signature, checked by minisign (-H: prehashed only).
	ours, err := Sign(sk, body, "signature from eska release", "ours")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(msg+".minisig", ours, 0o644)
	out := run(t, "minisign", "-V", "-H", "-p", pub, "-m", msg)
	if !strings.Contains(out, "ours") {
		t.Fatalf("minisign -V printed %q", out)
	}
	os.WriteFile(msg, append(body, ' '), 0o644)
	if out, err := exec.Command("minisign", "-V", "-p", pub, "-m", msg).CombinedOutput(); err == nil {
		t.Fatalf("minisign -V accepted a changed file: %s", out)
	}

	// Our key file (the test key), used by minisign.
	k := testKey(t)
	key2 := filepath.Join(dir, "test.key")
	os.WriteFile(key2, k.File(), 0o600)
	os.WriteFile(msg, body, 0o644)
	run(t, "minisign", "-S", "-s", key2, "-m", msg, "-t", "with our key file")
	sig, _ = os.ReadFile(msg + ".minisig")
	if _, err := Verify(k.Public(), body, sig); err != nil {
		t.Fatalf("Verify(minisign with our key file) = %v", err)
	}
	run(t, "minisign", "-V", "-P", k.Public().String(), "-m", msg)
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestParseSecretKeyRefuses(t *testing.T) {
	k := testKey(t)
	file := string(k.File())
	line := strings.Split(file, "\n")[1]
	if _, err := ParseSecretKey([]byte(line[:len(line)-8] + "AAAAAAAA")); !errors.Is(err, ErrMalformed) {
		t.Errorf("a changed checksum: %v", err)
	}
	if _, err := ParseSecretKey([]byte("not a key")); !errors.Is(err, ErrMalformed) {
		t.Errorf("text: %v", err)
	}
	if _, err := ParsePublicKey([]byte(line)); !errors.Is(err, ErrMalformed) {
		t.Errorf("a secret key read as a public one: %v", err)
	}
}

func FuzzVerify(f *testing.F) {
	raw, err := os.ReadFile("../selfupdate/testdata/release-test.key")
	if err != nil {
		f.Fatal(err)
	}
	k, err := ParseSecretKey(raw)
	if err != nil {
		f.Fatal(err)
	}
	sig, _ := Sign(k, []byte("m"), "u", "t")
	f.Add([]byte("m"), sig, []byte(k.Public().File()))
	f.Add([]byte(""), []byte("untrusted comment: \n\ntrusted comment: \n\n"), []byte("RWQ="))
	f.Fuzz(func(t *testing.T, msg, sig, pub []byte) {
		ParseSecretKey(pub)
		pk, err := ParsePublicKey(pub)
		if err != nil {
			pk = k.Public()
		}
		if _, err := Verify(pk, msg, sig); err == nil && !bytes.Equal(pk.Key, k.Public().Key) {
			t.Fatalf("a signature verified under a key that never signed anything")
		}
	})
}
