//go:build linux

package tcpstate

import (
	"encoding/binary"
	"net"
	"syscall"
)

// tcpClose is TCP_CLOSE of the kernel's tcp_states.h: the state a socket
// enters when a reset arrives.
const tcpClose = 7

// read returns tcpi_state, the first byte of struct tcp_info: asking for
// four bytes of TCP_INFO makes the kernel copy the first four.
func read(c *net.TCPConn) (int, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var v int
	var serr error
	if err := rc.Control(func(fd uintptr) {
		v, serr = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_INFO)
	}); err != nil {
		return 0, err
	}
	if serr != nil {
		return 0, serr
	}
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], uint32(v))
	return int(b[0]), nil
}
