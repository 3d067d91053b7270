// Package tcpstate tells a test whether the kernel still holds a TCP
// connection open, without reading from it or writing to it: a test of a
// peer that never reads must not touch the socket, since its own bytes
// would change how the other side closes.
package tcpstate

import (
	"errors"
	"net"
)

// ErrUnsupported means this system gives no way to look.
var ErrUnsupported = errors.New("tcpstate: the connection state cannot be read on this system")

// Closed reports whether the connection has been closed or reset by the
// other side as far as this side's kernel knows: true once a reset has
// arrived, false while it is established (data still unread included).
func Closed(c *net.TCPConn) (bool, error) {
	state, err := read(c)
	if err != nil {
		return false, err
	}
	return state == tcpClose, nil
}
