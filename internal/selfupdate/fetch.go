package selfupdate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/internal/loopback"
)

// NewClient is the HTTP client of an update: proxies from the
// environment (HTTPS_PROXY, NO_PROXY, as Go reads them) but never for a
// loopback host, "localhost" dialled as its literal, and redirects only
// to URLs checkURL accepts, so a redirect never leads to plain HTTP.
func NewClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = loopbackDirect(http.ProxyFromEnvironment)
	t.DialContext = literalDial(t.DialContext)
	t.ResponseHeaderTimeout = stallTimeout
	return &http.Client{
		Transport: t,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("more than 10 redirects")
			}
			if req.URL.Scheme != "https" {
				return refuse(gen.DomainErrorKindUpdateInsecureTransport, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonRedirectToHTTP), URL: str(req.URL.String())})
			}
			return nil
		},
	}
}

// checkURL accepts https, and plain http only to a loopback address (a
// local mirror, or a test's server).
func checkURL(u string) error {
	parsed, err := url.Parse(u)
	if err == nil && parsed.Scheme == "https" && parsed.Host != "" {
		return nil
	}
	if err == nil && parsed.Scheme == "http" && loopback.Host(parsed.Hostname()) {
		return nil
	}
	return refuse(gen.DomainErrorKindUpdateInsecureTransport, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonPlainHTTP), URL: str(u)})
}

// loopbackDirect is proxy, but a loopback host (loopback.Host) is asked
// directly: plain HTTP is accepted there (checkURL) because it stays on
// this machine, and a proxy would carry it off. Go's own exception misses
// "localhost" in capitals, which checkURL accepts.
func loopbackDirect(proxy func(*http.Request) (*url.URL, error)) func(*http.Request) (*url.URL, error) {
	return func(req *http.Request) (*url.URL, error) {
		if loopback.Host(req.URL.Hostname()) {
			return nil, nil
		}
		return proxy(req)
	}
}

// literalDial is dial, but "localhost" is dialled as its literal
// (loopback.Literal) without asking a resolver, which could map the name
// anywhere: plain HTTP to it is accepted as staying on this machine.
func literalDial(dial func(context.Context, string, string) (net.Conn, error)) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, port, err := net.SplitHostPort(addr); err == nil {
			addr = net.JoinHostPort(loopback.Literal(host), port)
		}
		return dial(ctx, network, addr)
	}
}

// notFound marks a 404, which for the signature means it is missing.
type notFound struct{ error }

func (n *notFound) Unwrap() []error { return []error{n.error, errNotFound} }

var errNotFound = errors.New("not found")

// get starts a GET of u after checking its scheme.
func get(ctx context.Context, client *http.Client, u string) (*http.Response, error) {
	if err := checkURL(u); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, refuse(gen.DomainErrorKindUpdateFetchFailed, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonNetwork), URL: str(u), Actual: str(err.Error())})
	}
	resp, err := client.Do(req)
	if err != nil {
		var re *gen.RPCError
		if errors.As(err, &re) {
			return nil, re
		}
		return nil, refuse(gen.DomainErrorKindUpdateFetchFailed, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonNetwork), URL: str(u), Actual: str(err.Error())})
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, httpStatus(u, resp.StatusCode)
	}
	return resp, nil
}

// fetchSmall reads a whole small document of at most limit bytes within
// the stall time.
func fetchSmall(ctx context.Context, client *http.Client, u string, limit int64, stall time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, stall)
	defer cancel()
	resp, err := get(ctx, client, u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, refuse(gen.DomainErrorKindUpdateFetchFailed, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonNetwork), URL: str(u), Actual: str(err.Error())})
	}
	if int64(len(body)) > limit {
		return nil, refuse(gen.DomainErrorKindUpdateFetchFailed, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonTooLarge), URL: str(u), Expected: str(fmt.Sprint(limit))})
	}
	return body, nil
}

// download writes the artifact into a new file in the state directory
// (beside the binary, so the swap is a rename) and checks it: exactly
// a.Size bytes (one byte more is read only to see that the server sends
// too many, and then the download stops) with the declared SHA-256. The
// file is synced and executable; the caller removes it.
func (p *prepared) download(ctx context.Context, a gen.UpdateArtifact) (path string, err error) {
	// A download that gets no byte for p.Stall is cancelled.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stall := time.AfterFunc(p.Stall, cancel)
	defer stall.Stop()
	resp, err := get(ctx, p.Client, a.URL)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	f, err := p.state.create("download-")
	if err != nil {
		return "", installFailed(err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	h := sha256.New()
	src := io.LimitReader(resp.Body, a.Size+1)
	var done int64
	buf := make([]byte, 64<<10)
	last := time.Time{}
	for {
		n, rerr := src.Read(buf)
		stall.Reset(p.Stall)
		if n > 0 {
			if done+int64(n) > a.Size {
				return "", mismatch(gen.UpdateRefusalReasonSize, a, fmt.Sprint(a.Size), "more than "+fmt.Sprint(a.Size))
			}
			if _, err := f.Write(buf[:n]); err != nil {
				return "", installFailed(err)
			}
			h.Write(buf[:n])
			done += int64(n)
			if p.Progress != nil && time.Since(last) > redrawEvery {
				p.Progress(done, a.Size)
				last = time.Now()
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return "", refuse(gen.DomainErrorKindUpdateFetchFailed, gen.UpdateRefusalDetails{Reason: reason(gen.UpdateRefusalReasonNetwork), URL: str(a.URL), Actual: str(rerr.Error())})
		}
	}
	if p.Progress != nil {
		p.Progress(done, a.Size)
	}
	if done != a.Size {
		return "", mismatch(gen.UpdateRefusalReasonSize, a, fmt.Sprint(a.Size), fmt.Sprint(done))
	}
	if sum := hex.EncodeToString(h.Sum(nil)); !strings.EqualFold(sum, a.Sha256) {
		return "", mismatch(gen.UpdateRefusalReasonSha256, a, a.Sha256, sum)
	}
	if err := f.Chmod(0o755); err != nil {
		return "", installFailed(err)
	}
	if err := f.Sync(); err != nil {
		return "", installFailed(err)
	}
	if err := f.Close(); err != nil {
		return "", installFailed(err)
	}
	return f.Name(), nil
}

// redrawEvery spaces the progress reports of a download: a terminal bar
// redrawn four times a second looks live and costs nothing.
const redrawEvery = 250 * time.Millisecond

func mismatch(r gen.UpdateRefusalReason, a gen.UpdateArtifact, expected, actual string) error {
	return refuse(gen.DomainErrorKindUpdateArtifactMismatch, gen.UpdateRefusalDetails{Reason: &r, URL: str(a.URL), Expected: str(expected), Actual: str(actual)})
}
