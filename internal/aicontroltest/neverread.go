package aicontroltest

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/contractkit/contractkit/internal/tcpstate"
)

// NeverRead plays a client that never reads its answers: it connects to
// addr with a small receive buffer, authorizes with token (reading only
// that answer), sends requests without reading any answer, and returns
// how long after the last request the listener reset the connection. It
// only looks at the socket's state (tcpstate), every 20 ms, so that its
// own bytes do not change how the listener closes. It gives up after
// limit; on a system where the state cannot be read it returns
// tcpstate.ErrUnsupported.
func NeverRead(addr, token string, requests []string, limit time.Duration) (time.Duration, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	tc := c.(*net.TCPConn)
	if _, err := tcpstate.Closed(tc); err != nil {
		return 0, err
	}
	_ = tc.SetReadBuffer(4096) // a small window fills at once
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"auth","params":{"token":` + strconv.Quote(token) + `}}` + "\n")); err != nil {
		return 0, err
	}
	answer := make([]byte, 0, 128)
	for !strings.HasSuffix(string(answer), "\n") {
		b := make([]byte, 1)
		if _, err := c.Read(b); err != nil {
			return 0, err
		}
		answer = append(answer, b[0])
	}
	if !strings.Contains(string(answer), `"authorized":true`) {
		return 0, errors.New("auth answered " + string(answer))
	}
	if _, err := c.Write([]byte(strings.Join(requests, "\n") + "\n")); err != nil {
		return 0, err
	}
	last := time.Now()
	for time.Since(last) < limit {
		closed, err := tcpstate.Closed(tc)
		if err != nil {
			return 0, err
		}
		if closed {
			return time.Since(last), nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0, errors.New("still open " + limit.String() + " after the last request")
}
