//go:build !linux

package tcpstate

import "net"

const tcpClose = -1

func read(*net.TCPConn) (int, error) { return 0, ErrUnsupported }
