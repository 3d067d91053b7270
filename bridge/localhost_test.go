//go:build !aicontrol_disabled

package bridge

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// hostileResolver stands in for a hosts file or DNS answer that maps
// names off the machine. listen resolves names through it (as net.Listen
// would through the system's), binds a real loopback socket so that no
// traffic leaves the machine, and reports the address the name resolved
// to as the bound one.
type hostileResolver struct {
	names map[string]string // name -> address it "resolves" to

	mu      sync.Mutex
	asked   []string // hosts listen was given
	resolve []string // names it had to resolve
}

func (r *hostileResolver) listen(network, addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.asked = append(r.asked, host)
	r.mu.Unlock()
	if net.ParseIP(host) != nil {
		return net.Listen(network, addr)
	}
	r.mu.Lock()
	r.resolve = append(r.resolve, host)
	r.mu.Unlock()
	to, ok := r.names[strings.ToLower(host)]
	if !ok {
		return nil, errors.New("no such host " + host)
	}
	ln, err := net.Listen(network, net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return nil, err
	}
	return fakeAddrListener{ln, &net.TCPAddr{IP: net.ParseIP(to), Port: ln.Addr().(*net.TCPAddr).Port}}, nil
}

// fakeAddrListener reports addr as its bound address.
type fakeAddrListener struct {
	net.Listener
	addr net.Addr
}

func (l fakeAddrListener) Addr() net.Addr { return l.addr }

// withListen replaces listenTCP for one test.
func withListen(t *testing.T, f func(network, addr string) (net.Listener, error)) {
	saved := listenTCP
	listenTCP = f
	t.Cleanup(func() { listenTCP = saved })
}

// localhost is never resolved: with a resolver that maps it to a LAN
// address or to every interface, the listener binds the loopback literal
// and serves there. A bound address outside loopback is refused, naming
// it, before anything is served.
//
//contract:proves ai-control-protocol.security.loopback-default
func TestLocalhostNeverResolved(t *testing.T) {
	for _, to := range []string{"192.0.2.10", "0.0.0.0", "::"} {
		r := &hostileResolver{names: map[string]string{"localhost": to}}
		withListen(t, r.listen)
		for _, name := range []string{"localhost", "LocalHost"} {
			s, err := Listen(Config{Enabled: true, Addr: name + ":0", Token: "short"})
			if err != nil {
				t.Fatalf("localhost resolving to %s: %v", to, err)
			}
			bound := s.Addr().(*net.TCPAddr)
			st := s.Status()
			s.Close()
			if !bound.IP.Equal(net.IPv4(127, 0, 0, 1)) || st.Host != "127.0.0.1" {
				t.Errorf("%s resolving to %s: bound %v, status host %q; want 127.0.0.1", name, to, bound, st.Host)
			}
		}
		if len(r.resolve) != 0 {
			t.Errorf("the listener asked to resolve %q", r.resolve)
		}
	}

	// Whatever the socket layer did, a bound address outside loopback is
	// refused unless remote peers are allowed.
	for _, bound := range []string{"192.0.2.10", "0.0.0.0", "::"} {
		withListen(t, func(network, addr string) (net.Listener, error) {
			ln, err := net.Listen(network, addr)
			if err != nil {
				return nil, err
			}
			return fakeAddrListener{ln, &net.TCPAddr{IP: net.ParseIP(bound), Port: 43011}}, nil
		})
		s, err := Listen(Config{Enabled: true, Addr: "127.0.0.1:0"})
		if !errors.Is(err, ErrNotLoopback) || !strings.Contains(err.Error(), net.JoinHostPort(bound, "43011")) {
			t.Errorf("bound to %s: %v, want ErrNotLoopback naming the address", bound, err)
		}
		if s != nil {
			s.Close()
		}
	}
}

// LiteralHost maps only the name localhost (any case); every other host,
// loopback literal or not, is returned unchanged.
func TestLiteralHost(t *testing.T) {
	for in, want := range map[string]string{
		"localhost": "127.0.0.1", "LOCALHOST": "127.0.0.1", "127.0.0.2": "127.0.0.2", "::1": "::1",
		"localhost.": "localhost.", "example.test": "example.test",
	} {
		if got := LiteralHost(in); got != want {
			t.Errorf("LiteralHost(%q) = %q, want %q", in, got, want)
		}
	}
}

// The client dials localhost as the loopback literal too: the token it
// sends must not follow a resolver's idea of the name off the machine.
//
//contract:proves ai-control-protocol.security.loopback-default
func TestClientDialsLocalhostLiterally(t *testing.T) {
	s := start(t, Config{Token: testToken})
	c, err := Dial(context.Background(), ClientConfig{Host: "localhost", Port: s.Addr().(*net.TCPAddr).Port, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if want := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Addr().(*net.TCPAddr).Port)); c.addr != want {
		t.Errorf("dialled %q, want %q", c.addr, want)
	}
	if ok, err := c.Auth(context.Background()); err != nil || !ok {
		t.Fatalf("auth over localhost: %v %v", ok, err)
	}
}
