// Package selfupdate replaces the running eska binary with a release from
// a signed channel, and back: the work behind `eska update`.
//
// A channel is a manifest (gen.UpdateManifest) and its minisign signature
// beside it (URL + ".minisig"), made by the key whose public half is built
// into the binary. Every check happens before the binary is touched: the
// signature, the manifest's serial against the highest one this
// installation accepted (a replayed old manifest), its expiry (a frozen
// channel), the version rules, the artifact's size (no byte past the
// declared size is read) and SHA-256, and the new binary run with
// --version. The swap is then one rename of a synced file beside the
// binary, so a crash at any moment leaves the old binary or the new one;
// the old one is kept in the state directory for Rollback. A lock there
// keeps two updates of one binary apart. Every refusal is a domain error
// (update_* kinds) with gen.UpdateRefusalDetails.
package selfupdate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"time"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/minisign"
)

// Config is what an update needs to know about this build and where it
// runs.
type Config struct {
	// Exe is the binary to replace; empty: the running executable.
	Exe string
	// Version is the running binary's version.
	Version string
	// Key is the release key's public half (minisign's base64 line);
	// empty in a build made without one, which then cannot update.
	Key string
	// URL is the manifest's URL.
	URL string
	// Platform is GOOS-GOARCH; empty: this build's.
	Platform string
	// Client fetches; nil: NewClient().
	Client *http.Client
	// Now is the clock for the manifest's expiry; nil: time.Now.
	Now func() time.Time
	// Progress, when set, is called while an artifact downloads.
	Progress func(done, total int64)
	// Stall is how long a download may go without a byte before it is
	// given up; zero: stallTimeout.
	Stall time.Duration
}

// Options are the choices of an update.
type Options struct {
	// To is the version to install; empty: the latest.
	To string
	// AllowDowngrade permits a version below the running one.
	AllowDowngrade bool
}

// candidateTimeout bounds a run of a binary with --version before the
// swap: a binary that hangs is no better than one that does not start.
const candidateTimeout = 30 * time.Second

// stallTimeout is how long a request may wait for its answer's headers,
// and a download for its next byte: a slow link still finishes, a dead
// one does not hang the command.
const stallTimeout = 60 * time.Second

// refuse is an update_* domain error.
func refuse(kind gen.DomainErrorKind, d gen.UpdateRefusalDetails) *gen.RPCError {
	raw, err := d.MarshalJSON()
	if err != nil {
		raw = []byte(`{}`)
	}
	return gen.NewError(gen.CodeRequestFailed, gen.DomainErrorData{Kind: kind, Details: raw})
}

func reason(r gen.UpdateRefusalReason) *gen.UpdateRefusalReason { return &r }
func str(s string) *string                                      { return &s }

// Kind is the update_* kind of err, or "" when it is not a refusal.
func Kind(err error) gen.DomainErrorKind {
	var re *gen.RPCError
	if errors.As(err, &re) {
		if d, ok := re.Data.(gen.DomainErrorData); ok {
			return d.Kind
		}
	}
	return ""
}

// prepared is a configuration checked and completed.
type prepared struct {
	Config
	key   minisign.PublicKey
	state *state
}

func (c Config) prepare() (*prepared, error) {
	if c.Key == "" || c.URL == "" {
		return nil, refuse(gen.DomainErrorKindUpdateNotConfigured, gen.UpdateRefusalDetails{})
	}
	key, err := minisign.ParsePublicKey([]byte(c.Key))
	if err != nil {
		return nil, refuse(gen.DomainErrorKindUpdateNotConfigured, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonMalformed)})
	}
	p, err := c.local()
	if err != nil {
		return nil, err
	}
	p.key = key
	return p, nil
}

// local completes what does not concern the channel: enough for a
// rollback.
func (c Config) local() (*prepared, error) {
	var err error
	if c.Exe == "" {
		if c.Exe, err = os.Executable(); err != nil {
			return nil, installFailed(err)
		}
	}
	// Replace the file itself, not a symbolic link to it.
	if c.Exe, err = filepath.EvalSymlinks(c.Exe); err != nil {
		return nil, installFailed(err)
	}
	if c.Platform == "" {
		c.Platform = runtime.GOOS + "-" + runtime.GOARCH
	}
	if c.Client == nil {
		c.Client = NewClient()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Stall == 0 {
		c.Stall = stallTimeout
	}
	return &prepared{Config: c, state: newState(c.Exe)}, nil
}

func installFailed(err error) *gen.RPCError {
	return refuse(gen.DomainErrorKindUpdateInstallFailed, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonIo), Actual: str(err.Error())})
}

// channel is a verified manifest and what it offers this binary.
type channel struct {
	manifest gen.UpdateManifest
	base     *url.URL
	latest   gen.UpdateRelease
}

// load fetches and verifies the manifest: signature, format, expiry and
// serial. Nothing is written.
func (p *prepared) load(ctx context.Context) (*channel, error) {
	base, err := url.Parse(p.URL)
	if err != nil || base.Host == "" {
		return nil, refuse(gen.DomainErrorKindUpdateNotConfigured, gen.UpdateRefusalDetails{URL: str(p.URL)})
	}
	body, err := fetchSmall(ctx, p.Client, p.URL, gen.MaxUpdateManifestBytes, p.Stall)
	if err != nil {
		return nil, err
	}
	sig, err := fetchSmall(ctx, p.Client, p.URL+".minisig", gen.MaxUpdateSignatureBytes, p.Stall)
	if err != nil {
		if Kind(err) == gen.DomainErrorKindUpdateFetchFailed && errors.Is(err, errNotFound) {
			return nil, refuse(gen.DomainErrorKindUpdateSignatureInvalid, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonMissing), URL: str(p.URL + ".minisig")})
		}
		return nil, err
	}
	if _, err := minisign.Verify(p.key, body, sig); err != nil {
		r := gen.UpdateRefusalReasonMismatch
		switch {
		case errors.Is(err, minisign.ErrMalformed):
			r = gen.UpdateRefusalReasonMalformed
		case errors.Is(err, minisign.ErrUnknownKey):
			r = gen.UpdateRefusalReasonUnknownKey
		}
		return nil, refuse(gen.DomainErrorKindUpdateSignatureInvalid, gen.UpdateRefusalDetails{Reason: &r, URL: str(p.URL + ".minisig")})
	}
	m, err := gen.DecodeUpdateManifest(body)
	if err != nil {
		return nil, refuse(gen.DomainErrorKindUpdateManifestInvalid, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonMalformed), Actual: str(err.Error())})
	}
	expires, err := time.Parse(time.RFC3339, m.Expires)
	if err != nil {
		return nil, refuse(gen.DomainErrorKindUpdateManifestInvalid, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonMalformed), Actual: str("expires: " + err.Error())})
	}
	if !p.Now().Before(expires) {
		return nil, refuse(gen.DomainErrorKindUpdateManifestExpired, gen.UpdateRefusalDetails{Expires: str(m.Expires)})
	}
	seen, err := p.state.serial()
	if err != nil {
		return nil, installFailed(err)
	}
	if m.Serial < seen {
		return nil, refuse(gen.DomainErrorKindUpdateManifestRollback, gen.UpdateRefusalDetails{Expected: str(fmt.Sprint(seen)), Actual: str(fmt.Sprint(m.Serial))})
	}
	c := &channel{manifest: m, base: base}
	for i, r := range m.Versions {
		if _, err := parseVersion(r.Version); err != nil {
			return nil, refuse(gen.DomainErrorKindUpdateManifestInvalid, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonMalformed), Version: str(r.Version)})
		}
		if i == 0 || compareVersions(r.Version, c.latest.Version) > 0 {
			c.latest = r
		}
	}
	return c, nil
}

// target is the release to install: the one --to names, else the latest.
func (c *channel) target(to string) (gen.UpdateRelease, error) {
	if to == "" {
		return c.latest, nil
	}
	for _, r := range c.manifest.Versions {
		if sameVersion(r.Version, to) {
			return r, nil
		}
	}
	return gen.UpdateRelease{}, refuse(gen.DomainErrorKindUpdateUnknownVersion, gen.UpdateRefusalDetails{Version: str(to)})
}

// artifact is the target's binary for the platform, its URL resolved
// against the manifest's and checked.
func (p *prepared) artifact(c *channel, r gen.UpdateRelease) (gen.UpdateArtifact, error) {
	a, ok := r.Artifacts[p.Platform]
	if !ok {
		return a, refuse(gen.DomainErrorKindUpdateNoArtifact, gen.UpdateRefusalDetails{Version: str(r.Version), Platform: str(p.Platform)})
	}
	ref, err := url.Parse(a.URL)
	if err != nil {
		return a, refuse(gen.DomainErrorKindUpdateManifestInvalid, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonMalformed), URL: str(a.URL)})
	}
	a.URL = c.base.ResolveReference(ref).String()
	return a, checkURL(a.URL)
}

// Check answers `eska update --check`: what the verified manifest offers,
// without downloading or changing anything.
func Check(ctx context.Context, cfg Config, to string) (gen.UpdateCheckResult, error) {
	p, err := cfg.prepare()
	if err != nil {
		return gen.UpdateCheckResult{}, err
	}
	c, err := p.load(ctx)
	if err != nil {
		return gen.UpdateCheckResult{}, err
	}
	r, err := c.target(to)
	if err != nil {
		return gen.UpdateCheckResult{}, err
	}
	out := gen.UpdateCheckResult{Current: p.Version, Latest: c.latest.Version, Target: r.Version,
		Downgrade: compareVersions(r.Version, p.Version) < 0, Platform: p.Platform,
		Serial: c.manifest.Serial, Expires: c.manifest.Expires}
	if a, err := p.artifact(c, r); err == nil {
		out.Artifact = &a
		out.Available = !sameVersion(r.Version, p.Version)
	}
	return out, nil
}

// Update installs the target release in place of the binary.
func Update(ctx context.Context, cfg Config, o Options) (gen.UpdateResult, error) {
	p, err := cfg.prepare()
	if err != nil {
		return gen.UpdateResult{}, err
	}
	unlock, err := p.state.lock()
	if err != nil {
		return gen.UpdateResult{}, err
	}
	defer unlock()
	c, err := p.load(ctx)
	if err != nil {
		return gen.UpdateResult{}, err
	}
	r, err := c.target(o.To)
	if err != nil {
		return gen.UpdateResult{}, err
	}
	out := gen.UpdateResult{From: p.Version, To: r.Version, Serial: c.manifest.Serial, RollbackAvailable: p.state.hasPrevious()}
	if sameVersion(r.Version, p.Version) {
		out.To = p.Version
		return out, p.state.accept(c.manifest.Serial)
	}
	if compareVersions(r.Version, p.Version) < 0 && !o.AllowDowngrade {
		return gen.UpdateResult{}, refuse(gen.DomainErrorKindUpdateDowngradeRefused, gen.UpdateRefusalDetails{Current: str(p.Version), Version: str(r.Version)})
	}
	a, err := p.artifact(c, r)
	if err != nil {
		return gen.UpdateResult{}, err
	}
	tmp, err := p.download(ctx, a)
	if err != nil {
		return gen.UpdateResult{}, err
	}
	defer os.Remove(tmp) // gone after the swap; removes a refused download
	if err := checkCandidate(ctx, tmp, r.Version); err != nil {
		return gen.UpdateResult{}, err
	}
	if err := p.state.keep(p.Exe); err != nil {
		return gen.UpdateResult{}, installFailed(err)
	}
	if err := swap(tmp, p.Exe, p.state.dir); err != nil {
		return gen.UpdateResult{}, installFailed(err)
	}
	out.Updated, out.RollbackAvailable = true, true
	// The binary is new whatever happens now; a failure to record the
	// serial only weakens the next replay check, so it is not an error
	// of this update.
	p.state.accept(c.manifest.Serial)
	return out, nil
}

// Rollback swaps the binary and the one kept by the last update (or
// rollback), so that a second rollback undoes the first.
func Rollback(ctx context.Context, cfg Config) (gen.UpdateRollbackResult, error) {
	p, err := cfg.local() // a rollback needs no channel
	if err != nil {
		return gen.UpdateRollbackResult{}, err
	}
	unlock, err := p.state.lock()
	if err != nil {
		return gen.UpdateRollbackResult{}, err
	}
	defer unlock()
	prev := p.state.previous()
	if !p.state.hasPrevious() {
		return gen.UpdateRollbackResult{}, refuse(gen.DomainErrorKindUpdateNoPrevious, gen.UpdateRefusalDetails{})
	}
	tmp, err := p.state.copyIn(prev, "incoming-")
	if err != nil {
		return gen.UpdateRollbackResult{}, installFailed(err)
	}
	defer os.Remove(tmp)
	v, err := runVersion(ctx, tmp)
	if err != nil {
		return gen.UpdateRollbackResult{}, refuse(gen.DomainErrorKindUpdateNoPrevious, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonDoesNotStart), Actual: str(err.Error())})
	}
	if err := p.state.keep(p.Exe); err != nil {
		return gen.UpdateRollbackResult{}, installFailed(err)
	}
	if err := swap(tmp, p.Exe, p.state.dir); err != nil {
		return gen.UpdateRollbackResult{}, installFailed(err)
	}
	return gen.UpdateRollbackResult{From: p.Version, To: v}, nil
}

// checkCandidate runs the downloaded binary with --version: it must start
// and report the version the manifest promised.
func checkCandidate(ctx context.Context, path, want string) error {
	got, err := runVersion(ctx, path)
	if err != nil {
		return refuse(gen.DomainErrorKindUpdateCandidateFailed, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonDoesNotStart), Version: str(want), Actual: str(err.Error())})
	}
	if !sameVersion(got, want) {
		return refuse(gen.DomainErrorKindUpdateCandidateFailed, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonWrongVersion), Expected: str(want), Actual: str(got)})
	}
	return nil
}

// AsRPCError is err as the API tells it (the CLI prints it with --json):
// the refusal it carries, or install_failed for any other error.
func AsRPCError(err error) *gen.RPCError {
	var re *gen.RPCError
	if !errors.As(err, &re) {
		re = installFailed(err)
	}
	return re
}

// httpStatus is a non-200 answer.
func httpStatus(u string, code int) error {
	e := refuse(gen.DomainErrorKindUpdateFetchFailed, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonHTTPStatus), URL: str(u), Status: ptr(int64(code))})
	if code == http.StatusNotFound {
		return &notFound{e}
	}
	return e
}

func ptr[T any](v T) *T { return &v }
