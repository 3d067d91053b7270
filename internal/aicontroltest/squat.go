package aicontroltest

import (
	"errors"
	"net"
	"time"
)

// Squat plays one squatter on a listener: it connects to addr, sends
// nothing (or, with fragments, a fragment of a line every period, never
// its end), and connects again as soon as it is closed, until stop is
// closed. It blocks on reads with deadlines and never spins: a failed dial
// waits 10 ms before the next.
func Squat(addr string, fragments bool, period time.Duration, stop <-chan struct{}) {
	buf := make([]byte, 512)
	for {
		select {
		case <-stop:
			return
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		done := make(chan struct{})
		go func() {
			select {
			case <-stop:
				c.Close()
			case <-done:
			}
		}()
		for {
			if fragments {
				if _, err := c.Write([]byte(`{"jsonrpc":"2.0","met`)); err != nil {
					break
				}
			}
			_ = c.SetReadDeadline(time.Now().Add(period))
			var ne net.Error
			if _, err := c.Read(buf); err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
				break
			}
		}
		close(done)
		c.Close()
	}
}
