// Package bridge is the AiControl listener an embedding project links into
// its development client, and a client library for it. Every method name,
// error code, limit, default and DTO comes from generated/aicontrol, which
// is generated from spec/AiControlProtocol.json.
//
// The server side is a bounded TCP listener (loopback by default) that
// accepts newline-delimited JSON requests, authorizes each connection with
// a shared token, queues project commands for the client loop, and serves
// observations and events. The client loop owns the game state: it
// publishes observation snapshots, drains accepted commands at a safe
// point, completes each one, and appends its own events.
package bridge

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/loopback"
)

// Defaults of the settings the contract does not fix.
const (
	// DefaultMaxConnections bounds simultaneous connections; the contract
	// needs one, tools and adapters may hold a few more.
	DefaultMaxConnections = 16
	// DefaultIdleTimeout closes a connection that sends no complete request
	// for this long, so that abandoned peers do not hold slots forever.
	DefaultIdleTimeout = 5 * time.Minute
	// DefaultWriteTimeout bounds how long a response may wait for a peer
	// that does not read.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultShutdownGrace bounds how long Close keeps serving the
	// connections that follow events, so that they can read the
	// completions of the commands it failed.
	DefaultShutdownGrace = 2 * time.Second
)

// millis turns a contract default given in milliseconds into a duration.
func millis(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// Config configures a listener. The zero value is not enough: Enabled must
// be set, because a remote-control surface starts only when asked for.
type Config struct {
	// Enabled must be true: the listener is off unless the project or the
	// operator turns it on explicitly.
	Enabled bool
	// Addr is host:port; empty means aicontrol.DefaultHost and
	// aicontrol.DefaultPort. Port 0 picks a free port (tests, samples).
	Addr string
	// Token is the shared secret; empty means every connection is
	// authorized, which only a loopback listener may allow. Read it from a
	// secret store or an environment variable, never from a command line.
	Token string
	// AllowRemote permits a non-loopback address, which also needs a
	// non-empty Token.
	AllowRemote bool
	// MaxQueuedCommands bounds the command queue (0: the contract's default).
	MaxQueuedCommands int
	// MaxEvents bounds the event history (0: the contract's default).
	MaxEvents int
	// MaxConnections bounds simultaneous authorized connections (0:
	// DefaultMaxConnections). On a listener without a token every
	// connection is authorized when it is accepted.
	MaxConnections int
	// MaxUnauthenticatedConnections bounds the connections of a
	// token-protected listener that have not authorized yet, apart from
	// MaxConnections (0: the contract's default). When one more arrives,
	// the oldest of them is answered too-many-connections and closed: a
	// client with the token always gets in while an authorized slot is
	// free, however often strangers reconnect.
	MaxUnauthenticatedConnections int
	// IdleTimeout closes a connection idle for this long (0: DefaultIdleTimeout).
	IdleTimeout time.Duration
	// WriteTimeout bounds the write of one response (0: DefaultWriteTimeout).
	WriteTimeout time.Duration
	// AuthDeadline is how long a connection may stay unauthorized on a
	// listener with a token (0: the contract's default, a few seconds).
	// Lines, failed or not, do not extend it.
	AuthDeadline time.Duration
	// WaitWhenFull makes a listener whose connection slots are all taken
	// stop accepting, so that new connections wait in the kernel's backlog,
	// unanswered, until a slot frees (the reference sample's behaviour).
	// By default the newest connection is answered with one
	// too-many-connections error line and closed.
	WaitWhenFull bool
	// AuthFailureDelay holds back the answer to a failed auth; it doubles
	// with each failure within AuthFailureWindow, up to AuthFailureMaxDelay
	// (0: the contract's defaults for all three).
	AuthFailureDelay    time.Duration
	AuthFailureMaxDelay time.Duration
	AuthFailureWindow   time.Duration
	// ShutdownGrace bounds how long Close serves connections that follow
	// events before it closes them (0: DefaultShutdownGrace).
	ShutdownGrace time.Duration
	// CloseDrain bounds how long a connection closed after an error
	// answer has its bytes read and dropped, so that the close does not
	// reset the connection before the peer has read the answer (0: the
	// contract's default).
	CloseDrain time.Duration
}

// Errors of configuration; Listen returns them before it binds anything.
var (
	ErrNotEnabled       = errors.New("bridge: listener not enabled (Config.Enabled is false)")
	ErrRemoteNeedsOptIn = errors.New("bridge: non-loopback address needs AllowRemote")
	ErrRemoteNeedsToken = errors.New("bridge: non-loopback address needs a non-empty token")
	ErrTokenTooShort    = fmt.Errorf("bridge: a listener that may accept non-loopback peers needs a token of at least %d bytes", aicontrol.MinTokenBytes)
)

// withDefaults fills zero settings from the contract and this package.
func (c Config) withDefaults() Config {
	if c.Addr == "" {
		c.Addr = net.JoinHostPort(aicontrol.DefaultHost, strconv.Itoa(aicontrol.DefaultPort))
	}
	if c.MaxQueuedCommands == 0 {
		c.MaxQueuedCommands = aicontrol.DefaultMaxQueuedCommands
	}
	if c.MaxEvents == 0 {
		c.MaxEvents = aicontrol.DefaultMaxEvents
	}
	if c.MaxConnections == 0 {
		c.MaxConnections = DefaultMaxConnections
	}
	if c.MaxUnauthenticatedConnections == 0 {
		c.MaxUnauthenticatedConnections = aicontrol.DefaultMaxUnauthenticatedConnections
	}
	if c.CloseDrain == 0 {
		c.CloseDrain = millis(aicontrol.DefaultCloseDrainMs)
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.AuthDeadline == 0 {
		c.AuthDeadline = millis(aicontrol.DefaultAuthDeadlineMs)
	}
	if c.AuthFailureDelay == 0 {
		c.AuthFailureDelay = millis(aicontrol.DefaultAuthFailureDelayMs)
	}
	if c.AuthFailureMaxDelay == 0 {
		c.AuthFailureMaxDelay = millis(aicontrol.DefaultAuthFailureMaxDelayMs)
	}
	if c.AuthFailureWindow == 0 {
		c.AuthFailureWindow = millis(aicontrol.DefaultAuthFailureWindowMs)
	}
	if c.ShutdownGrace == 0 {
		c.ShutdownGrace = DefaultShutdownGrace
	}
	return c
}

// Validate reports why the configuration is unsafe or unusable, before
// any thread or socket exists: a listener that is not enabled, a bad
// address or port, a non-loopback address without both AllowRemote and a
// token, non-positive capacities or timeouts.
func (c Config) Validate() error {
	if !c.Enabled {
		return ErrNotEnabled
	}
	c = c.withDefaults()
	host, port, err := SplitAddr(c.Addr)
	if err != nil {
		return err
	}
	_ = port
	if !IsLoopback(host) {
		if !c.AllowRemote {
			return fmt.Errorf("%w: %q", ErrRemoteNeedsOptIn, host)
		}
		if c.Token == "" {
			return fmt.Errorf("%w: %q", ErrRemoteNeedsToken, host)
		}
		if len(c.Token) < aicontrol.MinTokenBytes {
			return fmt.Errorf("%w: %q has %d", ErrTokenTooShort, host, len(c.Token))
		}
	}
	for _, v := range []struct {
		name string
		n    int
	}{{"MaxQueuedCommands", c.MaxQueuedCommands}, {"MaxEvents", c.MaxEvents}, {"MaxConnections", c.MaxConnections}, {"MaxUnauthenticatedConnections", c.MaxUnauthenticatedConnections}} {
		if v.n <= 0 {
			return fmt.Errorf("bridge: %s must be positive, got %d", v.name, v.n)
		}
	}
	for _, d := range []time.Duration{c.IdleTimeout, c.WriteTimeout, c.AuthDeadline, c.AuthFailureDelay, c.AuthFailureMaxDelay, c.AuthFailureWindow, c.ShutdownGrace, c.CloseDrain} {
		if d < 0 {
			return fmt.Errorf("bridge: timeouts and delays must be positive")
		}
	}
	return nil
}

// Warnings lists the risks of a configuration that Validate accepts: a
// loopback listener without a token, or with one short enough to guess.
// A program that starts a listener prints them where its operator sees
// them (the sample writes them on stderr). They never contain the token.
func (c Config) Warnings() []string {
	switch {
	case !c.Enabled:
		return nil
	case c.Token == "":
		return []string{"no token: every process on this machine can drive the game through the listener"}
	case len(c.Token) < aicontrol.MinTokenBytes:
		return []string{fmt.Sprintf("the token has %d bytes, fewer than %d: a local process can guess it; use a random token of at least %d bytes",
			len(c.Token), aicontrol.MinTokenBytes, aicontrol.MinTokenBytes)}
	}
	return nil
}

// SplitAddr splits host:port and checks the port: a decimal 0..65535.
func SplitAddr(addr string) (host string, port int, err error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("bridge: address %q: %v", addr, err)
	}
	if host == "" {
		// ":43011" would bind every interface: that is not loopback.
		host = "0.0.0.0"
	}
	port, err = strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 || strings.TrimLeft(p, "0123456789") != "" {
		return "", 0, fmt.Errorf("bridge: port %q is not a number from 0 to 65535", p)
	}
	return host, port, nil
}

// IsLoopback reports whether host names only this machine: "localhost",
// an address in 127.0.0.0/8, or ::1. No name is resolved, so a name that
// happens to point at loopback still counts as remote; and "localhost" is
// never resolved either, but bound and dialled as LiteralHost says.
func IsLoopback(host string) bool { return loopback.Host(host) }

// LiteralHost is the host to bind or dial for host: "localhost" becomes
// the contract's loopback literal aicontrol.DefaultHost, since a resolver
// (a hosts file, a DNS answer) may map the name anywhere, even to every
// interface; any other host is returned as it is.
func LiteralHost(host string) string {
	if loopback.IsName(host) {
		return aicontrol.DefaultHost
	}
	return host
}

// ErrNotLoopback means a socket meant for loopback was bound elsewhere.
var ErrNotLoopback = errors.New("bound address is not loopback")

// CheckLoopbackAddr refuses a bound address outside loopback, naming it:
// a listener meant for this machine serves nothing until this passes.
func CheckLoopbackAddr(a net.Addr) error {
	ta, ok := a.(*net.TCPAddr)
	if !ok || ta.IP == nil || !ta.IP.IsLoopback() {
		return fmt.Errorf("%w: %s; refusing to serve (an address outside loopback needs the explicit remote opt-in)", ErrNotLoopback, a)
	}
	return nil
}

// Command is an accepted act command, handed to the client loop by Drain.
type Command struct {
	// Seq is the command's sequence number: 1 for the first accepted
	// command, one more for each next.
	Seq int64
	// Params is the command as the client sent it: its type, the common
	// fields and, in Params.Extra, the project's own members.
	Params aicontrol.ActParams
}
