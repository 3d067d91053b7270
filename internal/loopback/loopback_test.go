package loopback

import (
	"net"
	"testing"
)

// Loopback is localhost in any case and the loopback literals of both
// families, bracketed or not; every other host is remote, however it
// would resolve, including the unspecified addresses that listen on every
// interface.
func TestHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "LocalHost": true,
		"127.0.0.1": true, "127.255.255.254": true, "::1": true, "[::1]": true,
		"0:0:0:0:0:0:0:1": true, "::ffff:127.0.0.1": true,
		"": false, "0.0.0.0": false, "::": false, "[::]": false, "10.0.0.1": false,
		"128.0.0.1": false, "::2": false, "example.com": false,
		"localhost.": false, "localhost.localdomain": false, "ip6-localhost": false,
		"127.0.0.1.nip.io": false, "[127.0.0.1]": true, "[::1": false,
		// One pair of brackets, around an address only (the bridge once
		// trimmed any number, the stand page a lone one, and took
		// "[localhost]"); an address with a zone is no loopback literal.
		"::1]": false, "[[::1]]": false, "[localhost]": false,
		"::1%lo": false, "[::1%lo]": false, "fe80::1%lo": false, "::1%25lo": false,
	} {
		if got := Host(host); got != want {
			t.Errorf("Host(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestHostPort(t *testing.T) {
	for hostport, want := range map[string]bool{
		"localhost:8080": true, "LOCALHOST:0": true, "127.0.0.1:80": true, "[::1]:443": true,
		"localhost": true, "::1": true, "[::1]": true,
		"0.0.0.0:80": false, "[::]:80": false, "example.com:80": false, ":8080": false,
		"[::ffff:127.0.0.1]:80": true, "[::1%lo]:80": false,
	} {
		if got := HostPort(hostport); got != want {
			t.Errorf("HostPort(%q) = %v, want %v", hostport, got, want)
		}
	}
}

func TestLiteral(t *testing.T) {
	for in, want := range map[string]string{
		"localhost": IPv4, "LOCALHOST": IPv4, "127.0.0.2": "127.0.0.2", "::1": "::1", "example.com": "example.com",
	} {
		if got := Literal(in); got != want {
			t.Errorf("Literal(%q) = %q, want %q", in, got, want)
		}
	}
}

// IP gives the address a loopback host stands for, brackets taken off,
// and nil for every host Host refuses.
func TestIP(t *testing.T) {
	for host, want := range map[string]string{
		"localhost": IPv4, "LOCALHOST": IPv4, "127.0.0.2": "127.0.0.2", "[::1]": "::1", "::1": "::1",
		"0.0.0.0": "", "example.com": "", "::1%lo": "", "[::1": "",
	} {
		got := IP(host)
		if (want == "") != (got == nil) || (got != nil && !got.Equal(net.ParseIP(want))) {
			t.Errorf("IP(%q) = %v, want %q", host, got, want)
		}
	}
}

// IsName is the name localhost alone, in any case: no address, no other
// name, no trailing dot.
func TestIsName(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost": true, "localhost.": false, "127.0.0.1": false, "::1": false, "": false, "[localhost]": false,
	} {
		if got := IsName(host); got != want {
			t.Errorf("IsName(%q) = %v, want %v", host, got, want)
		}
	}
}
