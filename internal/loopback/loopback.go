// Package loopback decides whether a host names this machine only, the one
// rule behind every listener and client of the project that stays on
// loopback unless told otherwise (the AiControl bridge and aicontrol-mcp,
// agui serve, the stand page, agui tap, the self-updater).
//
// No name is resolved: a resolver (a hosts file, a DNS answer) may map any
// name anywhere, "localhost" included, even to every interface. So a name
// that happens to point at loopback counts as remote, and "localhost" is
// bound and dialled as the literal Literal gives.
package loopback

import (
	"net"
	"strings"
)

// IPv4 is the address "localhost" stands for.
const IPv4 = "127.0.0.1"

// Host reports whether host names only this machine: "localhost" in any
// case (host names are), an address in 127.0.0.0/8, or ::1; an address
// may stand in brackets, as in a URL.
func Host(host string) bool { return IP(host) != nil }

// IP is the loopback address host stands for (IPv4 for "localhost"), or
// nil when host is not one by Host's rule.
func IP(host string) net.IP {
	if IsName(host) {
		return net.ParseIP(IPv4)
	}
	if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return ip
	}
	return nil
}

// HostPort is Host for a host with or without a port, as a Host header
// or a listen address holds it.
func HostPort(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return Host(host)
}

// Literal is the host to bind or dial for host: "localhost", in any case,
// becomes IPv4; any other host is returned as it is.
func Literal(host string) string {
	if IsName(host) {
		return IPv4
	}
	return host
}

// IsName reports whether host is the name "localhost", in any case (host
// names are), which no one resolves: Literal says what it stands for, or
// a protocol's own loopback literal where its contract names one.
func IsName(host string) bool { return strings.EqualFold(host, "localhost") }
