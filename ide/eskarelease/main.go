// Command eskarelease builds an eska release: the binaries for every
// platform (-trimpath, the version and the release key's public half
// set with -ldflags), the channel manifest (gen.UpdateManifest) that
// lists them with their sizes and SHA-256, and its minisign signature.
// `make eska-release` runs it; the update tests run it for the host
// platform only.
//
//	ESKA_RELEASE_KEY=<an unencrypted minisign secret key file's text> \
//	  go run ./ide/eskarelease -version v0.2.0 -out dist \
//	  -url https://releases.example/eska/manifest.json
//
// The manifest keeps the other versions of a manifest already in -out,
// and its serial grows past theirs.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/atomicfile"
	"github.com/contractkit/contractkit/internal/minisign"
)

// platforms are the GOOS-GOARCH pairs of a release.
var platforms = []string{"linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64", "windows-arm64"}

// keyEnv holds the signing key: the text of an unencrypted minisign
// secret key file (`minisign -G -W`). keyFileEnv names such a file
// instead.
const (
	keyEnv     = "ESKA_RELEASE_KEY"
	keyFileEnv = "ESKA_RELEASE_KEY_FILE"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "eskarelease:", err)
		os.Exit(1)
	}
}

// manifestName is the manifest's file in the output folder; its
// signature is beside it, with ".minisig" added (as the client fetches it).
const manifestName = "manifest.json"

func run(args []string) error {
	fs := flag.NewFlagSet("eskarelease", flag.ContinueOnError)
	ver := fs.String("version", "", "the release's version (from the tag, e.g. v0.2.0)")
	out := fs.String("out", "dist", "the folder for the binaries, manifest.json and manifest.json.minisig")
	channel := fs.String("url", "", "the manifest's URL, built into the binaries as their channel")
	only := fs.String("platforms", strings.Join(platforms, ","), `GOOS-GOARCH list, or "host"`)
	validFor := fs.Duration("valid", 90*24*time.Hour, "how long the manifest stays valid")
	serial := fs.Uint64("serial", 0, "the manifest's serial (default: the current Unix time, above the previous manifest's)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *ver == "" || fs.NArg() != 0 {
		return fmt.Errorf("-version is required (make eska-release takes it from the tag)")
	}
	key, err := signingKey()
	if err != nil {
		return err
	}
	list := strings.Split(*only, ",")
	if *only == "host" {
		list = []string{runtime.GOOS + "-" + runtime.GOARCH}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	manifestPath := filepath.Join(*out, manifestName)
	m := gen.UpdateManifest{Format: 1}
	if raw, err := os.ReadFile(manifestPath); err == nil {
		prev, err := gen.DecodeUpdateManifest(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", manifestPath, err)
		}
		m.Serial = prev.Serial
		for _, r := range prev.Versions {
			if strings.TrimPrefix(r.Version, "v") != strings.TrimPrefix(*ver, "v") {
				m.Versions = append(m.Versions, r)
			}
		}
	}
	next := uint64(time.Now().Unix())
	if *serial != 0 {
		next = *serial
	}
	if next <= m.Serial {
		next = m.Serial + 1
	}
	m.Serial = next
	m.Expires = time.Now().Add(*validFor).UTC().Format(time.RFC3339)

	rel := gen.UpdateRelease{Version: *ver, Artifacts: map[string]gen.UpdateArtifact{}}
	for _, p := range list {
		goos, goarch, ok := strings.Cut(p, "-")
		if !ok {
			return fmt.Errorf("platform %q: want GOOS-GOARCH", p)
		}
		name := fmt.Sprintf("eska-%s-%s", *ver, p)
		if goos == "windows" {
			name += ".exe"
		}
		dst := filepath.Join(*out, name)
		ldflags := fmt.Sprintf("-s -w -X main.version=%s -X main.releaseKey=%s -X main.updateURL=%s", *ver, key.Public().String(), *channel)
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", dst, "./cmd/eska")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("build %s: %w", p, err)
		}
		size, sum, err := hashFile(dst)
		if err != nil {
			return err
		}
		// Relative to the manifest: the folder can be served from anywhere.
		rel.Artifacts[p] = gen.UpdateArtifact{URL: name, Size: size, Sha256: sum}
	}
	m.Versions = append(m.Versions, rel)
	raw, err := m.MarshalJSON()
	if err != nil {
		return err
	}
	raw = append(raw, '\n')
	sig, err := minisign.Sign(key, raw, "signature from eska release", fmt.Sprintf("eska manifest serial %d, version %s", m.Serial, *ver))
	if err != nil {
		return err
	}
	// The manifest is read back by the next release (it keeps the channel's
	// versions), so each file is replaced whole or not at all, and never
	// through a link.
	if err := atomicfile.WriteFile(*out, manifestName, raw, 0o644, nil); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(*out, manifestName+".minisig", sig, 0o644, nil); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "eskarelease: %s serial %d, %d binaries in %s; check by hand with minisign -V -P %s -m %s\n",
		*ver, m.Serial, len(rel.Artifacts), *out, key.Public(), manifestPath)
	return nil
}

func signingKey() (minisign.SecretKey, error) {
	text := os.Getenv(keyEnv)
	if path := os.Getenv(keyFileEnv); text == "" && path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			return minisign.SecretKey{}, err
		}
		text = string(raw)
	}
	if text == "" {
		return minisign.SecretKey{}, fmt.Errorf("no signing key: set %s to an unencrypted minisign secret key (or %s to its file)", keyEnv, keyFileEnv)
	}
	return minisign.ParseSecretKey([]byte(text))
}

func hashFile(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return n, hex.EncodeToString(h.Sum(nil)), err
}
