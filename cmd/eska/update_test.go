//go:build unix

package main

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	mrand "math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/minisign"
	"github.com/contractkit/contractkit/internal/repotest"
)

// A release is built the way make eska-release builds one (the release
// tool, for the host platform only), served by a loopback TLS server, and
// a real eska built the same way as the old version updates itself to
// the new one and rolls back.

const testKeyFile = "internal/selfupdate/testdata/release-test.key"

// updateKills is how many updates and rollbacks TestUpdateKilled kills:
// ESKA_UPDATE_KILLS, 200 in make crash-test; fewer by default.
func updateKills() int {
	if n, err := strconv.Atoi(os.Getenv("ESKA_UPDATE_KILLS")); err == nil && n > 0 {
		return n
	}
	return 16
}

// releaseWorld is the served release and the two binaries.
type releaseWorld struct {
	srv      *httptest.Server
	dist     string // what the server serves: manifest, signature, new binary
	certFile string // the server's certificate, for SSL_CERT_FILE
	oldBin   []byte // eska 0.1.0 as built by the release tool
	newBin   []byte // eska 0.2.0, the served artifact
	manifest string
}

func init() {
	// TestMain calls it after the run: stop the server, delete what
	// buildReleases made.
	removeReleases = func() {
		if world != nil {
			world.srv.Close()
		}
		if releaseBase != "" {
			os.RemoveAll(releaseBase)
		}
	}
}

var releaseBase string

var (
	worldOnce sync.Once
	world     *releaseWorld
	worldErr  error
)

// releases builds the world once per test process.
func releases(t *testing.T) *releaseWorld {
	t.Helper()
	worldOnce.Do(func() { world, worldErr = buildReleases(t) })
	if worldErr != nil {
		t.Fatal(worldErr)
	}
	return world
}

func buildReleases(t *testing.T) (*releaseWorld, error) {
	root := repotest.Root(t)
	tool := repotest.Build(t, "internal/tools/eskarelease")
	base, err := os.MkdirTemp("", "eska-release")
	if err != nil {
		return nil, err
	}
	releaseBase = base
	w := &releaseWorld{dist: filepath.Join(base, "dist")}
	w.srv = httptest.NewTLSServer(http.FileServer(http.Dir(w.dist)))
	w.manifest = w.srv.URL + "/manifest.json"
	w.certFile = filepath.Join(base, "cert.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: w.srv.Certificate().Raw})
	if err := os.WriteFile(w.certFile, pemBytes, 0o644); err != nil {
		return nil, err
	}
	release := func(version, out string) ([]byte, error) {
		cmd := exec.Command(tool, "-version", version, "-out", out, "-platforms", "host", "-url", w.manifest)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "ESKA_RELEASE_KEY_FILE="+filepath.Join(root, testKeyFile))
		if b, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("eskarelease %s: %v\n%s", version, err, b)
		}
		return os.ReadFile(filepath.Join(out, fmt.Sprintf("eska-%s-%s-%s", version, goos(), goarch())))
	}
	if w.oldBin, err = release("0.1.0", filepath.Join(base, "old")); err != nil {
		return nil, err
	}
	if w.newBin, err = release("0.2.0", w.dist); err != nil {
		return nil, err
	}
	return w, nil
}

func goos() string {
	out, _ := exec.Command("go", "env", "GOOS").Output()
	return strings.TrimSpace(string(out))
}
func goarch() string {
	out, _ := exec.Command("go", "env", "GOARCH").Output()
	return strings.TrimSpace(string(out))
}

// install puts the old binary in a fresh folder.
func (w *releaseWorld) install(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "eska")
	if err := os.WriteFile(exe, w.oldBin, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// eska runs the installed binary with the server's certificate trusted.
func (w *releaseWorld) eska(exe string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "SSL_CERT_FILE="+w.certFile, "ESKA_UPDATE_URL=")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

func (w *releaseWorld) run(t *testing.T, exe string, env []string, args ...string) (stdout string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := w.eska(exe, env, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return out.String(), ee.ExitCode()
		}
		t.Fatalf("eska %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), 0
}

func TestUpdateRealBinaries(t *testing.T) {
	w := releases(t)
	exe := w.install(t)

	if out, _ := w.run(t, exe, nil, "--version"); !strings.HasPrefix(out, "eska ") || !strings.HasSuffix(out, "; IDE server 0.1.0\n") {
		t.Fatalf("the old binary says %q", out)
	}
	out, code := w.run(t, exe, nil, "update", "--check", "--json")
	chk, err := gen.DecodeUpdateCheckResult([]byte(out))
	if code != 0 || err != nil || !chk.Available || chk.Current != "0.1.0" || chk.Target != "0.2.0" || chk.Artifact == nil ||
		chk.Artifact.Size != int64(len(w.newBin)) {
		t.Fatalf("update --check: %d %s (%v)", code, out, err)
	}
	if got, _ := os.ReadFile(exe); !bytes.Equal(got, w.oldBin) {
		t.Fatal("--check changed the binary")
	}

	out, code = w.run(t, exe, nil, "update", "--json")
	r, err := gen.DecodeUpdateResult([]byte(out))
	if code != 0 || err != nil || r.From != "0.1.0" || r.To != "0.2.0" || !r.Updated || !r.RollbackAvailable {
		t.Fatalf("update: %d %s (%v)", code, out, err)
	}
	if got, _ := os.ReadFile(exe); !bytes.Equal(got, w.newBin) {
		t.Fatal("the binary is not the served release")
	}
	if out, _ := w.run(t, exe, nil, "--version"); !strings.HasPrefix(out, "eska ") || !strings.HasSuffix(out, "; IDE server 0.2.0\n") {
		t.Fatalf("the updated binary says %q", out)
	}
	out, code = w.run(t, exe, nil, "update", "--json")
	if r, err := gen.DecodeUpdateResult([]byte(out)); code != 0 || err != nil || r.Updated {
		t.Fatalf("update at the latest: %d %s", code, out)
	}

	out, code = w.run(t, exe, nil, "update", "--rollback", "--json")
	rb, err := gen.DecodeUpdateRollbackResult([]byte(out))
	if code != 0 || err != nil || rb.From != "0.2.0" || rb.To != "0.1.0" {
		t.Fatalf("update --rollback: %d %s (%v)", code, out, err)
	}
	if got, _ := os.ReadFile(exe); !bytes.Equal(got, w.oldBin) {
		t.Fatal("the rolled back binary is not the old one")
	}
	// For a person: one line, no JSON.
	out, code = w.run(t, exe, nil, "update", "--check")
	if code != 0 || out != "eska 0.1.0; 0.2.0 is available: eska update\n" {
		t.Fatalf("update --check for a person: %d %q", code, out)
	}
}

// The JSON of a refusal is the contract's error; the binary is unchanged.
func TestUpdateRefusedRealBinary(t *testing.T) {
	w := releases(t)
	exe := w.install(t)
	// A manifest URL with no signature beside it.
	other := httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/manifest.json" {
			raw, _ := os.ReadFile(filepath.Join(w.dist, "manifest.json"))
			rw.Write(raw)
			return
		}
		http.NotFound(rw, r)
	}))
	defer other.Close()
	cert := filepath.Join(t.TempDir(), "other.pem")
	os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: other.Certificate().Raw}), 0o644)
	out, code := w.run(t, exe, []string{"SSL_CERT_FILE=" + cert, "ESKA_UPDATE_URL=" + other.URL + "/manifest.json"}, "update", "--json")
	if code != 1 || !strings.Contains(out, `"kind":"update_signature_invalid"`) || !strings.Contains(out, `"reason":"missing"`) {
		t.Fatalf("update from an unsigned channel: %d %s", code, out)
	}
	if got, _ := os.ReadFile(exe); !bytes.Equal(got, w.oldBin) {
		t.Fatal("the binary changed")
	}
	// For a person: the kind and its details on stderr, exit code 1.
	var errb bytes.Buffer
	cmd := w.eska(exe, []string{"SSL_CERT_FILE=" + cert, "ESKA_UPDATE_URL=" + other.URL + "/manifest.json"}, "update")
	cmd.Stderr = &errb
	if err := cmd.Run(); err == nil || !strings.HasPrefix(errb.String(), "eska update: update_signature_invalid: missing, url ") ||
		!strings.HasSuffix(errb.String(), "; the binary is unchanged\n") {
		t.Fatalf("update from an unsigned channel, for a person: %v %q", err, errb.String())
	}
	// A build without a release key cannot update at all.
	plain := build(t)
	out, code = w.run(t, plain, []string{"ESKA_UPDATE_URL=" + w.manifest}, "update", "--json")
	if code != 1 || !strings.Contains(out, `"kind":"update_not_configured"`) {
		t.Fatalf("update without a key: %d %s", code, out)
	}
	// Held lock: a second update is refused.
	st := filepath.Join(filepath.Dir(exe), ".eska-update")
	os.MkdirAll(st, 0o755)
	f, err := os.OpenFile(filepath.Join(st, "lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	out, code = w.run(t, exe, nil, "update", "--json")
	f.Close()
	if code != 1 || !strings.Contains(out, `"kind":"update_in_progress"`) {
		t.Fatalf("update under the lock: %d %s", code, out)
	}
	if got, _ := os.ReadFile(exe); !bytes.Equal(got, w.oldBin) {
		t.Fatal("the binary changed")
	}
}

// Proxies come from the environment: with HTTPS_PROXY set, the update of a
// channel named by host goes through a CONNECT proxy (on loopback,
// tunnelling to a test server whose certificate is for releases.invalid).
// The name never resolves (RFC 6761), so without the proxy nothing would
// leave the machine either: the update would just fail.
func TestUpdateThroughProxy(t *testing.T) {
	w := releases(t)
	exe := w.install(t)
	srv, certFile := invalidHostServer(t, http.FileServer(http.Dir(w.dist)))
	target := srv.Listener.Addr().String()
	var mu sync.Mutex
	var seen []string
	proxy := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.Host)
		mu.Unlock()
		if r.Method != http.MethodConnect {
			http.Error(rw, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		up, err := net.DialTimeout("tcp", target, 5*time.Second)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadGateway)
			return
		}
		hj, ok := rw.(http.Hijacker)
		if !ok {
			up.Close()
			return
		}
		rw.WriteHeader(http.StatusOK)
		conn, buf, err := hj.Hijack()
		if err != nil {
			up.Close()
			return
		}
		deadline := time.Now().Add(60 * time.Second)
		conn.SetDeadline(deadline)
		up.SetDeadline(deadline)
		go func() { io.Copy(up, buf); up.(*net.TCPConn).CloseWrite() }()
		io.Copy(conn, up)
		conn.Close()
		up.Close()
	}))
	defer proxy.Close()
	env := []string{"HTTPS_PROXY=" + proxy.URL, "https_proxy=" + proxy.URL, "NO_PROXY=", "no_proxy=",
		"SSL_CERT_FILE=" + certFile, "ESKA_UPDATE_URL=https://releases.invalid/manifest.json"}
	out, code := w.run(t, exe, env, "update", "--json")
	if r, err := gen.DecodeUpdateResult([]byte(out)); code != 0 || err != nil || r.To != "0.2.0" {
		t.Fatalf("update through the proxy: %d %s (%v)", code, out, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[0] != "CONNECT releases.invalid:443" {
		t.Fatalf("the proxy saw %q", seen)
	}
}

// invalidHostServer is a loopback TLS server with a self-signed
// certificate for releases.invalid, and that certificate's PEM file.
func invalidHostServer(t *testing.T, h http.Handler) (*httptest.Server, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "releases.invalid"},
		DNSNames: []string{"releases.invalid"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	certFile := filepath.Join(t.TempDir(), "releases.invalid.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return srv, certFile
}

// An update or rollback killed (SIGKILL) at random moments always leaves
// a working binary, byte for byte the old or the new one, and a kept
// previous binary that is whole when there is one; the next update runs
// (the lock went with the killed process) and removes what it left.
func TestUpdateKilled(t *testing.T) {
	w := releases(t)
	// How long a whole update takes here: kills are spread over it.
	exe := w.install(t)
	start := time.Now()
	if _, code := w.run(t, exe, nil, "update", "--json"); code != 0 {
		t.Fatal("a plain update failed")
	}
	span := time.Since(start) + 20*time.Millisecond
	rng := mrand.New(mrand.NewSource(time.Now().UnixNano()))
	whole := func(b []byte) bool { return bytes.Equal(b, w.oldBin) || bytes.Equal(b, w.newBin) }
	var killed, finished int
	for i := 0; i < updateKills(); i++ {
		exe := w.install(t)
		args := []string{"update", "--json"}
		if i%2 == 1 {
			// A rollback: first a whole update, then the rollback killed.
			if _, code := w.run(t, exe, nil, "update", "--json"); code != 0 {
				t.Fatal("update before the rollback failed")
			}
			args = []string{"update", "--rollback", "--json"}
		}
		cmd := w.eska(exe, nil, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
			finished++
		case <-time.After(time.Duration(rng.Int63n(int64(span)))):
			cmd.Process.Kill()
			<-done
			killed++
		}
		got, err := os.ReadFile(exe)
		if err != nil || !whole(got) {
			t.Fatalf("kill %d (%s): the binary is torn or gone (%d bytes, %v)", i, args[1], len(got), err)
		}
		if out, code := w.run(t, exe, nil, "--version"); code != 0 || !strings.Contains(out, "; IDE server 0.") {
			t.Fatalf("kill %d: the binary left does not run: %d %q", i, code, out)
		}
		prev := filepath.Join(filepath.Dir(exe), ".eska-update", "previous")
		if b, err := os.ReadFile(prev); err == nil && !whole(b) {
			t.Fatalf("kill %d: the kept previous binary is torn (%d bytes)", i, len(b))
		}
		// The next update is not blocked, and clears the temporaries. A
		// kill in the instant the update forks its candidate's --version
		// leaves the child holding the inherited lock until its exec
		// closes it; on a loaded machine that child may wait to be
		// scheduled, so update_in_progress is retried for a bounded time.
		for try := 0; ; try++ {
			out, code := w.run(t, exe, nil, "update", "--json")
			if code == 0 {
				break
			}
			if !strings.Contains(out, `"update_in_progress"`) || try == 50 {
				t.Fatalf("kill %d: the next update (try %d): %d %s", i, try+1, code, out)
			}
			time.Sleep(100 * time.Millisecond)
		}
		entries, _ := os.ReadDir(filepath.Dir(prev))
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp-") {
				t.Errorf("kill %d: %s left after the next update", i, e.Name())
			}
		}
	}
	t.Logf("%d runs killed, %d finished before their kill (a whole update takes %v here)", killed, finished, span)
	if killed == 0 {
		t.Fatal("no run was killed: the test proved nothing")
	}
}

// The signature of the served manifest is minisign's: the real tool
// checks it with the public key the binaries carry.
func TestReleaseSignatureMinisign(t *testing.T) {
	w := releases(t)
	if _, err := exec.LookPath("minisign"); err != nil {
		repotest.MissingPart(t, "minisign is not installed (make minisign)")
	}
	raw, err := os.ReadFile(filepath.Join(repotest.Root(t), testKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	k, err := minisign.ParseSecretKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("minisign", "-V", "-H", "-P", k.Public().String(), "-m", filepath.Join(w.dist, "manifest.json")).CombinedOutput()
	if err != nil {
		t.Fatalf("minisign -V: %v\n%s", err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	found := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), "eska manifest serial") {
			found = true
		}
	}
	if !found {
		t.Fatalf("minisign printed no trusted comment of the release: %s", out)
	}
}
