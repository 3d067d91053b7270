//go:build unix

package bridge

import (
	"errors"
	"net"
	"syscall"
)

// closeProbe tells whether the listener has closed a connection: the end
// of the stream (or a reset) is waiting to be read, with no data before
// it. It looks without consuming anything and without blocking. The
// protocol is request and response, so between calls a listener sends
// nothing; an end of stream seen here came before the next request was
// written. It is made once per connection, so a look allocates nothing.
type closeProbe struct {
	rc     syscall.RawConn
	closed bool
	b      [1]byte
	look   func(fd uintptr) bool
}

func newCloseProbe(conn net.Conn) *closeProbe {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	p := &closeProbe{rc: rc}
	p.look = func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), p.b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		p.closed = (n == 0 && err == nil) || errors.Is(err, syscall.ECONNRESET)
		return true // never wait for data
	}
	return p
}

// peerClosed reports whether the listener has closed the connection; a
// nil probe (a connection without a socket) never knows.
func (p *closeProbe) peerClosed() bool {
	if p == nil {
		return false
	}
	p.closed = false
	return p.rc.Read(p.look) == nil && p.closed
}
