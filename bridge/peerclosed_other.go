//go:build !unix

package bridge

import "net"

// closeProbe cannot look at a socket without reading from it here: a
// closed connection shows when a request fails (ErrNoResponse).
type closeProbe struct{}

func newCloseProbe(net.Conn) *closeProbe { return nil }

func (*closeProbe) peerClosed() bool { return false }
