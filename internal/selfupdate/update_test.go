//go:build unix

package selfupdate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/minisign"
)

// These tests run the update against a loopback TLS server with small
// shell scripts as the binaries: a script answers --version like eska,
// so the candidate check runs a real process. cmd/eska's update test does
// the same with real eska binaries built by the release tool.

const platform = "linux-amd64"

func testKey(t testing.TB) minisign.SecretKey {
	t.Helper()
	raw, err := os.ReadFile("testdata/release-test.key")
	if err != nil {
		t.Fatal(err)
	}
	k, err := minisign.ParseSecretKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// script is a binary that reports version.
func script(version string) []byte {
	return []byte("#!/bin/sh\necho 'eska " + version + "'\n")
}

// release is one version's artifact as the testChannel serves it.
type release struct {
	version string
	body    []byte // what the server sends
	size    int64  // declared; 0: len(body)
	sha     string // declared; "": the body's
	url     string // declared; "": a file on the server
}

// testChannel is a test's release testChannel on a loopback TLS server.
type testChannel struct {
	t        *testing.T
	srv      *httptest.Server
	files    map[string][]byte
	handlers map[string]http.HandlerFunc
	key      minisign.SecretKey
}

func newTestChannel(t *testing.T) *testChannel {
	c := &testChannel{t: t, files: map[string][]byte{}, handlers: map[string]http.HandlerFunc{}, key: testKey(t)}
	c.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := c.handlers[r.URL.Path]; h != nil {
			h(w, r)
			return
		}
		body, ok := c.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// publish writes a signed manifest with the releases.
func (c *testChannel) publish(serial uint64, expires time.Time, rels ...release) []byte {
	m := gen.UpdateManifest{Format: 1, Serial: serial, Expires: expires.UTC().Format(time.RFC3339)}
	for _, r := range rels {
		name := "/eska-" + r.version
		c.files[name] = r.body
		a := gen.UpdateArtifact{URL: strings.TrimPrefix(name, "/"), Size: int64(len(r.body))}
		sum := sha256.Sum256(r.body)
		a.Sha256 = hex.EncodeToString(sum[:])
		if r.size != 0 {
			a.Size = r.size
		}
		if r.sha != "" {
			a.Sha256 = r.sha
		}
		if r.url != "" {
			a.URL = r.url
		}
		m.Versions = append(m.Versions, gen.UpdateRelease{Version: r.version, Artifacts: map[string]gen.UpdateArtifact{platform: a}})
	}
	raw, err := m.MarshalJSON()
	if err != nil {
		c.t.Fatal(err)
	}
	c.sign(raw)
	return raw
}

func (c *testChannel) sign(manifest []byte) {
	sig, err := minisign.Sign(c.key, manifest, "test", "test")
	if err != nil {
		c.t.Fatal(err)
	}
	c.files["/manifest.json"], c.files["/manifest.json.minisig"] = manifest, sig
}

// install puts a binary of version in a fresh folder and returns the
// configuration that updates it from the testChannel.
func (c *testChannel) install(version string) Config {
	exe := filepath.Join(c.t.TempDir(), "eska")
	if err := os.WriteFile(exe, script(version), 0o755); err != nil {
		c.t.Fatal(err)
	}
	return Config{Exe: exe, Version: version, Key: c.key.Public().String(), URL: c.srv.URL + "/manifest.json",
		Platform: platform, Client: c.client()}
}

// client is the update's own client (NewClient: its redirect rule, its
// proxy setting) trusting the test server's certificate.
func (c *testChannel) client() *http.Client {
	cl := NewClient()
	cl.Transport.(*http.Transport).TLSClientConfig = c.srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	return cl
}

var week = time.Now().Add(7 * 24 * time.Hour)

func versionOf(t *testing.T, exe string) string {
	t.Helper()
	v, err := runVersion(context.Background(), exe)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestUpdateAndRollback(t *testing.T) {
	c := newTestChannel(t)
	c.publish(5, week, release{version: "0.1.0", body: script("0.1.0")}, release{version: "0.2.0", body: script("0.2.0")})
	cfg := c.install("0.1.0")
	ctx := context.Background()

	chk, err := Check(ctx, cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	if !chk.Available || chk.Target != "0.2.0" || chk.Latest != "0.2.0" || chk.Downgrade || chk.Serial != 5 || chk.Artifact == nil ||
		chk.Artifact.URL != c.srv.URL+"/eska-0.2.0" {
		t.Fatalf("Check = %+v", chk)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfg.Exe), stateDirName)); !os.IsNotExist(err) {
		t.Fatalf("--check wrote the state directory: %v", err)
	}

	r, err := Update(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r != (gen.UpdateResult{From: "0.1.0", To: "0.2.0", Updated: true, Serial: 5, RollbackAvailable: true}) {
		t.Fatalf("Update = %+v", r)
	}
	if v := versionOf(t, cfg.Exe); v != "0.2.0" {
		t.Fatalf("after the update the binary reports %s", v)
	}
	st := newState(cfg.Exe)
	if seen, _ := st.serial(); seen != 5 {
		t.Fatalf("serial recorded %d, want 5", seen)
	}
	if prev, _ := os.ReadFile(st.previous()); !bytes.Equal(prev, script("0.1.0")) {
		t.Fatalf("the previous binary kept is %q", prev)
	}
	if fi, _ := os.Stat(cfg.Exe); fi.Mode().Perm() != 0o755 {
		t.Fatalf("the new binary's mode is %v", fi.Mode())
	}

	// The same version again changes nothing.
	cfg.Version = "0.2.0"
	r, err = Update(ctx, cfg, Options{})
	if err != nil || r.Updated || r.To != "0.2.0" {
		t.Fatalf("Update at the latest = %+v, %v", r, err)
	}

	rb, err := Rollback(ctx, cfg)
	if err != nil || rb != (gen.UpdateRollbackResult{From: "0.2.0", To: "0.1.0"}) {
		t.Fatalf("Rollback = %+v, %v", rb, err)
	}
	if v := versionOf(t, cfg.Exe); v != "0.1.0" {
		t.Fatalf("after the rollback the binary reports %s", v)
	}
	// A second rollback returns to where the first began.
	cfg.Version = "0.1.0"
	rb, err = Rollback(ctx, cfg)
	if err != nil || rb.To != "0.2.0" || versionOf(t, cfg.Exe) != "0.2.0" {
		t.Fatalf("second Rollback = %+v, %v", rb, err)
	}
	// No temporary file is left.
	entries, _ := os.ReadDir(st.dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), tempMarker) {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestDowngrade(t *testing.T) {
	c := newTestChannel(t)
	c.publish(1, week, release{version: "0.1.0", body: script("0.1.0")}, release{version: "v0.3.0", body: script("v0.3.0")})
	cfg := c.install("0.2.0")
	ctx := context.Background()
	chk, err := Check(ctx, cfg, "0.1.0")
	if err != nil || !chk.Downgrade || !chk.Available || chk.Target != "0.1.0" {
		t.Fatalf("Check --to 0.1.0 = %+v, %v", chk, err)
	}
	expectRefusal(t, cfg, Options{To: "0.1.0"}, gen.DomainErrorKindUpdateDowngradeRefused, "")
	if r, err := Update(ctx, cfg, Options{To: "0.1.0", AllowDowngrade: true}); err != nil || r.To != "0.1.0" || versionOf(t, cfg.Exe) != "0.1.0" {
		t.Fatalf("downgrade allowed = %+v, %v", r, err)
	}
	// v0.3.0 in the manifest is the same version as 0.3.0.
	cfg.Version = "0.1.0"
	if r, err := Update(ctx, cfg, Options{To: "0.3.0"}); err != nil || r.To != "v0.3.0" {
		t.Fatalf("--to 0.3.0 = %+v, %v", r, err)
	}
}

// expectRefusal runs an update that must be refused with kind (and
// reason, when given) and checks that the binary is byte for byte what it
// was and nothing was kept as previous.
func expectRefusal(t *testing.T, cfg Config, o Options, kind gen.DomainErrorKind, reason gen.UpdateRefusalReason) gen.UpdateRefusalDetails {
	t.Helper()
	before, err := os.ReadFile(cfg.Exe)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Update(context.Background(), cfg, o)
	after, rerr := os.ReadFile(cfg.Exe)
	if rerr != nil || !bytes.Equal(before, after) {
		t.Fatalf("the binary changed on a refusal (%v)", err)
	}
	if newState(cfg.Exe).hasPrevious() {
		t.Fatalf("a refused update kept a previous binary")
	}
	if got := Kind(err); got != kind {
		t.Fatalf("Update = %v (kind %q), want kind %q", err, got, kind)
	}
	var out struct {
		Code int64
		Data struct {
			Kind    string
			Details gen.UpdateRefusalDetails
		}
	}
	raw, merr := json.Marshal(AsRPCError(err))
	if merr != nil || json.Unmarshal(raw, &out) != nil || out.Code != gen.CodeRequestFailed || out.Data.Kind != string(kind) {
		t.Fatalf("AsRPCError = %s (%v, %v)", raw, merr, err)
	}
	d := out.Data.Details
	if reason != "" && (d.Reason == nil || *d.Reason != reason) {
		t.Fatalf("%s: reason %v, want %s", kind, d.Reason, reason)
	}
	return d
}

// Every refusal of the issue, each with the binary unchanged.
//
//contract:proves eska-ide-api.error-kind.update-not-configured eska-ide-api.error-kind.update-signature-invalid eska-ide-api.error-kind.update-manifest-invalid eska-ide-api.error-kind.update-manifest-rollback eska-ide-api.error-kind.update-manifest-expired eska-ide-api.error-kind.update-artifact-mismatch
//contract:proves eska-ide-api.error-kind.update-downgrade-refused eska-ide-api.error-kind.update-no-artifact eska-ide-api.error-kind.update-unknown-version eska-ide-api.error-kind.update-candidate-failed eska-ide-api.error-kind.update-insecure-transport eska-ide-api.error-kind.update-fetch-failed eska-ide-api.error-kind.update-install-failed
func TestRefusals(t *testing.T) {
	good := func(c *testChannel) { c.publish(3, week, release{version: "0.2.0", body: script("0.2.0")}) }
	other, err := minisign.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		setup  func(c *testChannel, cfg *Config)
		opts   Options
		kind   gen.DomainErrorKind
		reason gen.UpdateRefusalReason
	}{
		{"no release key built in", func(c *testChannel, cfg *Config) { good(c); cfg.Key = "" }, Options{}, gen.DomainErrorKindUpdateNotConfigured, ""},
		{"signature missing", func(c *testChannel, cfg *Config) { good(c); delete(c.files, "/manifest.json.minisig") }, Options{},
			gen.DomainErrorKindUpdateSignatureInvalid, gen.UpdateRefusalReasonMissing},
		{"manifest changed after signing", func(c *testChannel, cfg *Config) {
			good(c)
			c.files["/manifest.json"] = bytes.Replace(c.files["/manifest.json"], []byte(`"serial":"3"`), []byte(`"serial":"4"`), 1)
		}, Options{}, gen.DomainErrorKindUpdateSignatureInvalid, gen.UpdateRefusalReasonMismatch},
		{"signed by another key", func(c *testChannel, cfg *Config) { c.key = other; good(c) }, Options{},
			gen.DomainErrorKindUpdateSignatureInvalid, gen.UpdateRefusalReasonUnknownKey},
		{"signature malformed", func(c *testChannel, cfg *Config) {
			good(c)
			c.files["/manifest.json.minisig"] = []byte("not a signature\n")
		}, Options{},
			gen.DomainErrorKindUpdateSignatureInvalid, gen.UpdateRefusalReasonMalformed},
		{"signed but not a manifest", func(c *testChannel, cfg *Config) { c.sign([]byte(`{"format":1}`)) }, Options{},
			gen.DomainErrorKindUpdateManifestInvalid, gen.UpdateRefusalReasonMalformed},
		{"older than the last one seen", func(c *testChannel, cfg *Config) {
			good(c)
			if err := newState(cfg.Exe).accept(4); err != nil {
				t.Fatal(err)
			}
		}, Options{}, gen.DomainErrorKindUpdateManifestRollback, ""},
		{"expired", func(c *testChannel, cfg *Config) {
			good(c)
			cfg.Now = func() time.Time { return week.Add(time.Second) }
		}, Options{},
			gen.DomainErrorKindUpdateManifestExpired, ""},
		{"size differs (fewer bytes)", func(c *testChannel, cfg *Config) {
			c.publish(3, week, release{version: "0.2.0", body: script("0.2.0"), size: int64(len(script("0.2.0"))) + 1})
		}, Options{}, gen.DomainErrorKindUpdateArtifactMismatch, gen.UpdateRefusalReasonSize},
		{"size differs (more bytes)", func(c *testChannel, cfg *Config) {
			c.publish(3, week, release{version: "0.2.0", body: script("0.2.0"), size: int64(len(script("0.2.0"))) - 1})
		}, Options{}, gen.DomainErrorKindUpdateArtifactMismatch, gen.UpdateRefusalReasonSize},
		{"sha256 differs", func(c *testChannel, cfg *Config) {
			c.publish(3, week, release{version: "0.2.0", body: script("0.2.0"), sha: strings.Repeat("0", 64)})
		}, Options{}, gen.DomainErrorKindUpdateArtifactMismatch, gen.UpdateRefusalReasonSha256},
		{"downgrade", func(c *testChannel, cfg *Config) {
			c.publish(3, week, release{version: "0.0.9", body: script("0.0.9")})
		}, Options{To: "0.0.9"},
			gen.DomainErrorKindUpdateDowngradeRefused, ""},
		{"no artifact for this platform", func(c *testChannel, cfg *Config) { good(c); cfg.Platform = "plan9-386" }, Options{},
			gen.DomainErrorKindUpdateNoArtifact, ""},
		{"unknown --to", func(c *testChannel, cfg *Config) { good(c) }, Options{To: "9.9.9"}, gen.DomainErrorKindUpdateUnknownVersion, ""},
		{"candidate does not start", func(c *testChannel, cfg *Config) {
			c.publish(3, week, release{version: "0.2.0", body: []byte("\x7fELF not really")})
		}, Options{}, gen.DomainErrorKindUpdateCandidateFailed, gen.UpdateRefusalReasonDoesNotStart},
		{"candidate reports another version", func(c *testChannel, cfg *Config) {
			c.publish(3, week, release{version: "0.2.0", body: script("0.3.0")})
		}, Options{}, gen.DomainErrorKindUpdateCandidateFailed, gen.UpdateRefusalReasonWrongVersion},
		{"artifact over plain HTTP", func(c *testChannel, cfg *Config) {
			c.publish(3, week, release{version: "0.2.0", body: script("0.2.0"), url: "http://example.com/eska"})
		}, Options{}, gen.DomainErrorKindUpdateInsecureTransport, gen.UpdateRefusalReasonPlainHTTP},
		{"manifest over plain HTTP", func(c *testChannel, cfg *Config) { good(c); cfg.URL = "http://example.com/manifest.json" }, Options{},
			gen.DomainErrorKindUpdateInsecureTransport, gen.UpdateRefusalReasonPlainHTTP},
		{"redirect to plain HTTP", func(c *testChannel, cfg *Config) {
			plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(script("0.2.0")) }))
			t.Cleanup(plain.Close)
			good(c)
			c.handlers["/eska-0.2.0"] = func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, plain.URL+"/eska", http.StatusFound)
			}
		}, Options{}, gen.DomainErrorKindUpdateInsecureTransport, gen.UpdateRefusalReasonRedirectToHTTP},
		{"state directory unusable", func(c *testChannel, cfg *Config) {
			good(c)
			if err := os.WriteFile(filepath.Join(filepath.Dir(cfg.Exe), stateDirName), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, Options{}, gen.DomainErrorKindUpdateInstallFailed, gen.UpdateRefusalReasonIo},
		{"server error", func(c *testChannel, cfg *Config) {
			good(c)
			c.handlers["/manifest.json"] = func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) }
		}, Options{}, gen.DomainErrorKindUpdateFetchFailed, gen.UpdateRefusalReasonHTTPStatus},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestChannel(t)
			cfg := c.install("0.1.0")
			tc.setup(c, &cfg)
			expectRefusal(t, cfg, tc.opts, tc.kind, tc.reason)
		})
	}
}

// A redirect to another HTTPS URL is followed.
func TestRedirectToHTTPS(t *testing.T) {
	c := newTestChannel(t)
	c.publish(3, week, release{version: "0.2.0", body: script("0.2.0")})
	c.files["/moved"] = script("0.2.0")
	c.handlers["/eska-0.2.0"] = func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/moved", http.StatusFound) }
	cfg := c.install("0.1.0")
	if _, err := Update(context.Background(), cfg, Options{}); err != nil || versionOf(t, cfg.Exe) != "0.2.0" {
		t.Fatalf("Update through a redirect = %v", err)
	}
}

// Plain HTTP is accepted on loopback (a local mirror, a test).
func TestPlainHTTPOnLoopback(t *testing.T) {
	c := newTestChannel(t)
	c.publish(3, week, release{version: "0.2.0", body: script("0.2.0")})
	plain := httptest.NewServer(c.srv.Config.Handler)
	t.Cleanup(plain.Close)
	cfg := c.install("0.1.0")
	cfg.URL, cfg.Client = plain.URL+"/manifest.json", nil
	if _, err := Update(context.Background(), cfg, Options{}); err != nil || versionOf(t, cfg.Exe) != "0.2.0" {
		t.Fatalf("Update over loopback HTTP = %v", err)
	}
}

// A server that sends an endless artifact is cut off at the declared
// size: the update is refused long before the stream would end.
func TestStopsAtDeclaredSize(t *testing.T) {
	c := newTestChannel(t)
	body := script("0.2.0")
	c.publish(3, week, release{version: "0.2.0", body: body})
	var sent atomic.Int64
	c.handlers["/eska-0.2.0"] = func(w http.ResponseWriter, r *http.Request) {
		w.Write(body)
		chunk := bytes.Repeat([]byte{'x'}, 64<<10)
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) && sent.Load() < 1<<30 {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}
	cfg := c.install("0.1.0")
	expectRefusal(t, cfg, Options{}, gen.DomainErrorKindUpdateArtifactMismatch, gen.UpdateRefusalReasonSize)
	c.srv.CloseClientConnections()
	// What the server managed to write is bounded by the socket buffers,
	// not by the stream: far below the gigabyte it would send.
	if n := sent.Load(); n > 64<<20 {
		t.Fatalf("the server wrote %d bytes past the artifact", n)
	}
}

// A download that stops sending is given up after the stall time, with
// the binary unchanged.
func TestStalledDownload(t *testing.T) {
	c := newTestChannel(t)
	body := script("0.2.0")
	c.publish(3, week, release{version: "0.2.0", body: body})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	c.handlers["/eska-0.2.0"] = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.Write(body[:4])
		w.(http.Flusher).Flush()
		select { // silent until the client gives up (or the test ends)
		case <-r.Context().Done():
		case <-release:
		}
	}
	cfg := c.install("0.1.0")
	cfg.Stall = 200 * time.Millisecond
	d := expectRefusal(t, cfg, Options{}, gen.DomainErrorKindUpdateFetchFailed, gen.UpdateRefusalReasonNetwork)
	if d.URL == nil || !strings.HasSuffix(*d.URL, "/eska-0.2.0") {
		t.Fatalf("details %+v", d)
	}
	// A manifest that stops halfway too.
	c.handlers["/manifest.json"] = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte(`{"format":1`))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}
	d = expectRefusal(t, cfg, Options{}, gen.DomainErrorKindUpdateFetchFailed, gen.UpdateRefusalReasonNetwork)
	if d.URL == nil || !strings.HasSuffix(*d.URL, "/manifest.json") {
		t.Fatalf("details %+v", d)
	}
}

// The manifest and signature limits, at the limit and one past it.
//
//contract:proves eska-ide-api.limit.update-manifest-bytes eska-ide-api.limit.update-signature-bytes
func TestManifestLimits(t *testing.T) {
	ctx := context.Background()
	for _, extra := range []int{0, 1} {
		c := newTestChannel(t)
		m := c.publish(3, week, release{version: "0.2.0", body: script("0.2.0")})
		padded := append(bytes.Clone(m), bytes.Repeat([]byte{' '}, gen.MaxUpdateManifestBytes-len(m)+extra)...)
		c.sign(padded)
		cfg := c.install("0.1.0")
		_, err := Check(ctx, cfg, "")
		if extra == 0 && (err != nil || len(padded) != gen.MaxUpdateManifestBytes) {
			t.Fatalf("a manifest of %d bytes: %v", len(padded), err)
		}
		if extra == 1 {
			// Refused for its size, not for any other failure of the fetch.
			d := expectRefusal(t, cfg, Options{}, gen.DomainErrorKindUpdateFetchFailed, gen.UpdateRefusalReasonTooLarge)
			if d.URL == nil || !strings.HasSuffix(*d.URL, "/manifest.json") {
				t.Fatalf("a manifest of %d bytes: details %+v", len(padded), d)
			}
		}
	}
	for _, extra := range []int{0, 1} {
		c := newTestChannel(t)
		m := c.publish(3, week, release{version: "0.2.0", body: script("0.2.0")})
		short, _ := minisign.Sign(c.key, m, "u", "")
		comment := strings.Repeat("t", gen.MaxUpdateSignatureBytes-len(short)+extra)
		sig, _ := minisign.Sign(c.key, m, "u", comment)
		c.files["/manifest.json.minisig"] = sig
		cfg := c.install("0.1.0")
		_, err := Check(ctx, cfg, "")
		if extra == 0 && (err != nil || len(sig) != gen.MaxUpdateSignatureBytes) {
			t.Fatalf("a signature of %d bytes: %v", len(sig), err)
		}
		if extra == 1 {
			d := expectRefusal(t, cfg, Options{}, gen.DomainErrorKindUpdateFetchFailed, gen.UpdateRefusalReasonTooLarge)
			if d.URL == nil || !strings.HasSuffix(*d.URL, "/manifest.json.minisig") {
				t.Fatalf("a signature of %d bytes: details %+v", len(sig), d)
			}
		}
	}
}

// A second update while one holds the lock is refused; the lock goes
// with its holder.
//
//contract:proves eska-ide-api.error-kind.update-in-progress
func TestLock(t *testing.T) {
	c := newTestChannel(t)
	c.publish(3, week, release{version: "0.2.0", body: script("0.2.0")})
	cfg := c.install("0.1.0")
	st := newState(cfg.Exe)
	unlock, err := st.lock()
	if err != nil {
		t.Fatal(err)
	}
	expectRefusal(t, cfg, Options{}, gen.DomainErrorKindUpdateInProgress, "")
	if _, err := Rollback(context.Background(), cfg); Kind(err) != gen.DomainErrorKindUpdateInProgress {
		t.Fatalf("Rollback under the lock = %v", err)
	}
	unlock()
	if _, err := Update(context.Background(), cfg, Options{}); err != nil {
		t.Fatalf("Update after the lock was released = %v", err)
	}
}

// A rollback needs a kept binary that starts.
//
//contract:proves eska-ide-api.error-kind.update-no-previous
func TestRollbackWithoutPrevious(t *testing.T) {
	c := newTestChannel(t)
	cfg := c.install("0.1.0")
	if _, err := Rollback(context.Background(), cfg); Kind(err) != gen.DomainErrorKindUpdateNoPrevious {
		t.Fatalf("Rollback = %v", err)
	}
	// A kept binary that does not start is no rollback target.
	st := newState(cfg.Exe)
	os.MkdirAll(st.dir, 0o755)
	os.WriteFile(st.previous(), []byte("garbage"), 0o755)
	before, _ := os.ReadFile(cfg.Exe)
	if _, err := Rollback(context.Background(), cfg); Kind(err) != gen.DomainErrorKindUpdateNoPrevious {
		t.Fatalf("Rollback to garbage = %v", err)
	}
	if after, _ := os.ReadFile(cfg.Exe); !bytes.Equal(before, after) {
		t.Fatal("the binary changed")
	}
}

// The binary is replaced through a symbolic link, not the link.
func TestThroughSymlink(t *testing.T) {
	c := newTestChannel(t)
	c.publish(3, week, release{version: "0.2.0", body: script("0.2.0")})
	cfg := c.install("0.1.0")
	link := filepath.Join(t.TempDir(), "eska-link")
	if err := os.Symlink(cfg.Exe, link); err != nil {
		t.Fatal(err)
	}
	real := cfg.Exe
	cfg.Exe = link
	if _, err := Update(context.Background(), cfg, Options{}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if v := versionOf(t, real); v != "0.2.0" {
		t.Fatalf("the link's target reports %s", v)
	}
}

// Both forms of eska's --version line report their version; anything
// else is refused.
func TestReportedVersion(t *testing.T) {
	for line, want := range map[string]string{
		"eska 0.1.0": "0.1.0",
		"eska development build (github.com/contractkit/contractkit, revision 0123abc, go1.26.8); IDE server v0.2.0": "v0.2.0",
		"eska v0.2.0 (github.com/contractkit/contractkit, go1.26.8); IDE server 0.2.0":                               "0.2.0",
	} {
		if got, err := reportedVersion(line); err != nil || got != want {
			t.Errorf("reportedVersion(%q) = %q, %v; want %q", line, got, err, want)
		}
	}
	for _, line := range []string{"", "eska", "other 0.1.0", "eska x; IDE server "} {
		if got, err := reportedVersion(line); err == nil {
			t.Errorf("reportedVersion(%q) = %q, want an error", line, got)
		}
	}
	// What the error quotes of a line is escaped, and cut between
	// characters: a 2-byte character straddles byte 80 here.
	line := "\x1b[2J!" + strings.Repeat("я", 40)
	_, err := reportedVersion(line)
	if err == nil || !utf8.ValidString(err.Error()) || strings.ContainsRune(err.Error(), 0x1b) || !strings.Contains(err.Error(), `"\x1b[2J`) {
		t.Errorf("reportedVersion(%q): %v", line, err)
	}
}

// A candidate that prints today's --version line is installed.
func TestCandidateWithBuildLine(t *testing.T) {
	c := newTestChannel(t)
	body := []byte("#!/bin/sh\necho 'eska development build (github.com/contractkit/contractkit, go1.26.8); IDE server 0.2.0'\n")
	c.publish(3, week, release{version: "0.2.0", body: body})
	cfg := c.install("0.1.0")
	if r, err := Update(context.Background(), cfg, Options{}); err != nil || r.To != "0.2.0" {
		t.Fatalf("Update = %+v, %v", r, err)
	}
}

func TestCompareVersions(t *testing.T) {
	ordered := []string{"0.0.1", "0.1.0-alpha", "0.1.0-alpha.1", "0.1.0-alpha.beta", "0.1.0-beta.2", "0.1.0-beta.11", "0.1.0-rc.1", "v0.1.0", "0.2.0", "0.10.0", "1.0.0"}
	for i := range ordered {
		for j := range ordered {
			want := cmpInt(i, j)
			if got := compareVersions(ordered[i], ordered[j]); got != want {
				t.Errorf("compareVersions(%s, %s) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
	for _, bad := range []string{"", "1", "1.2", "01.2.3", "1.2.3-", "a.b.c", "(devel)"} {
		if _, err := parseVersion(bad); err == nil {
			t.Errorf("parseVersion(%q) accepted", bad)
		}
	}
	if !sameVersion("v1.2.3", "1.2.3") || sameVersion("1.2.3", "1.2.4") {
		t.Error("sameVersion")
	}
	_ = fmt.Sprint
}

// A loopback host is never asked through a proxy, whatever the
// environment names: plain HTTP is accepted there only because it stays
// on this machine. Go's own exception is "localhost" in lower case and
// the loopback literals; checkURL takes "localhost" in any case.
func TestLoopbackNotProxied(t *testing.T) {
	via, _ := url.Parse("http://proxy.example:3128")
	proxy := loopbackDirect(func(*http.Request) (*url.URL, error) { return via, nil })
	for u, direct := range map[string]bool{
		"http://LOCALHOST:8080/manifest.json": true, "http://localhost/m": true, "http://LocalHost/m": true,
		"http://127.0.0.1:1/m": true, "http://[::1]:1/m": true,
		"https://example.com/m": false, "http://localhost.example/m": false, "http://[::]:1/m": false,
	} {
		req, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := proxy(req)
		if err != nil || (got == nil) != direct {
			t.Errorf("%s: proxy %v, %v; want direct %v", u, got, err, direct)
		}
		if checkURL(u) == nil && strings.HasPrefix(u, "http:") && !direct {
			t.Errorf("%s: plain HTTP accepted, yet proxied", u)
		}
	}
}

// "localhost", in any case, is dialled as 127.0.0.1, never resolved;
// every other address is dialled as it is.
func TestLocalhostDialledAsItsLiteral(t *testing.T) {
	var got string
	dial := literalDial(func(_ context.Context, _, addr string) (net.Conn, error) {
		got = addr
		return nil, errors.New("not dialled")
	})
	for addr, want := range map[string]string{
		"localhost:80": "127.0.0.1:80", "LOCALHOST:8080": "127.0.0.1:8080",
		"127.0.0.2:1": "127.0.0.2:1", "[::1]:443": "[::1]:443", "example.com:443": "example.com:443",
	} {
		dial(context.Background(), "tcp", addr)
		if got != want {
			t.Errorf("%s dialled as %s, want %s", addr, got, want)
		}
	}
}

// NewClient asks "LOCALHOST" directly even when the environment names a
// proxy. Go reads the proxy variables once a process, so the check runs
// in a child of the test binary that starts with them set; the proxy it
// names is a closed loopback port, which a request sent through it could
// not pass.
func TestNewClientAsksLoopbackDirectly(t *testing.T) {
	if os.Getenv("CONTRACTKIT_SELFUPDATE_PROXY_CHILD") == "1" {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "direct") }))
		defer srv.Close()
		u, _ := url.Parse(srv.URL)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://LOCALHOST:"+u.Port()+"/", nil)
		resp, err := NewClient().Do(req)
		if err != nil {
			t.Fatalf("LOCALHOST with HTTP_PROXY set: %v", err)
		}
		defer resp.Body.Close()
		if b, _ := io.ReadAll(resp.Body); string(b) != "direct" {
			t.Fatalf("LOCALHOST with HTTP_PROXY set: %q", b)
		}
		return
	}
	// A port just closed: nothing listens there.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestNewClientAsksLoopbackDirectly$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CONTRACTKIT_SELFUPDATE_PROXY_CHILD=1",
		"HTTP_PROXY=http://"+closed, "http_proxy=http://"+closed, "NO_PROXY=", "no_proxy=", "REQUEST_METHOD=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the child: %v\n%s", err, out)
	}
}
