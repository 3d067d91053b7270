//go:build !aicontrol_disabled

package bridge

import (
	"sync"
	"time"

	"github.com/contractkit/contractkit/generated/aicontrol"
)

// authLimiter counts failed auth attempts across the listener and decides
// what each failure costs: a delay that doubles with the failures seen
// within the window, and a close once the connection or the listener has
// used its allowance. Memory is one timestamp per allowed failure.
type authLimiter struct {
	base, max, window time.Duration

	mu    sync.Mutex
	times []time.Time // the newest failures, a ring of MaxAuthFailuresPerListener+1
	next  int
}

func newAuthLimiter(cfg Config) *authLimiter {
	return &authLimiter{
		base:   cfg.AuthFailureDelay,
		max:    cfg.AuthFailureMaxDelay,
		window: cfg.AuthFailureWindow,
		times:  make([]time.Time, aicontrol.MaxAuthFailuresPerListener+1),
	}
}

// fail records a failed attempt at now, the connFailures-th of its
// connection, and returns how long to hold the answer back and whether to
// close the connection after it.
func (l *authLimiter) fail(now time.Time, connFailures int) (time.Duration, bool) {
	l.mu.Lock()
	l.times[l.next] = now
	l.next = (l.next + 1) % len(l.times)
	recent := 0
	for _, t := range l.times {
		if !t.IsZero() && now.Sub(t) < l.window {
			recent++
		}
	}
	l.mu.Unlock()
	closeConn := connFailures > aicontrol.MaxAuthFailuresPerConnection || recent > aicontrol.MaxAuthFailuresPerListener
	return l.delay(max(recent, connFailures)), closeConn
}

// delay is the hold-back of the n-th failure: base, doubled n-1 times, at
// most max.
func (l *authLimiter) delay(n int) time.Duration {
	d := l.base
	for i := 1; i < n && d < l.max; i++ {
		d *= 2
	}
	return min(d, l.max)
}
