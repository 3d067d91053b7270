//go:build !aicontrol_disabled

package bridge

import "fmt"

// A listener keeps two pools of connections, both under Server.mu:
//
//   - authorized connections, at most MaxConnections: a slot is taken when
//     a connection authorizes (or is accepted, on a listener without a
//     token) and given back when it closes or loses its authorization;
//   - connections that have not authorized yet, at most
//     MaxUnauthenticatedConnections, oldest first. A newcomer that finds
//     this pool full pushes the oldest out, never the other way round.
//
// Strangers that reconnect as soon as they are closed can then only push
// each other out: a client with the token is always let in, and it keeps
// its place until as many newer connections have arrived as the pool
// holds. While fewer strangers reconnect than the pool holds, nobody is
// pushed out at all; more of them churn through the pool, and can push a
// client out before its auth line is read (it is answered
// too-many-connections, and the client library dials again). Only a full
// pool of authorized connections turns newcomers away.

// admitLocked places a freshly accepted connection in its pool, or
// reports false when it must be turned away. The caller holds s.mu.
func (s *Server) admitLocked(cs *connState) bool {
	if cs.authorized {
		// A listener without a token: every connection is authorized.
		if s.authorized >= s.cfg.MaxConnections {
			return false
		}
		s.authorized++
		cs.counted = true
		return true
	}
	if s.authorized >= s.cfg.MaxConnections {
		// Nobody could authorize now: say so at once.
		return false
	}
	s.strangerLocked(cs)
	return true
}

// strangerLocked appends cs to the pool of unauthorized connections,
// evicting the oldest one when the pool is full.
func (s *Server) strangerLocked(cs *connState) {
	if s.strangers.Len() >= s.cfg.MaxUnauthenticatedConnections {
		s.evictLocked(s.strangers.Front().Value.(*connState))
	}
	cs.elem = s.strangers.PushBack(cs)
}

// evictLocked takes the oldest stranger out of the pool and wakes its
// goroutine, which answers it with too-many-connections and closes it.
func (s *Server) evictLocked(cs *connState) {
	s.strangers.Remove(cs.elem)
	cs.elem = nil
	cs.kick()
}

// promote moves a connection that has just presented the right token into
// the authorized pool. It reports false when the connection was evicted
// meanwhile or every authorized slot is taken; the auth is then answered
// with too-many-connections.
func (s *Server) promote(cs *connState) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs.counted {
		return true
	}
	if cs.evicted() || s.authorized >= s.cfg.MaxConnections {
		return false
	}
	if cs.elem != nil {
		s.strangers.Remove(cs.elem)
		cs.elem = nil
	}
	s.authorized++
	cs.counted = true
	return true
}

// demote moves a connection whose authorization a failed auth withdrew
// back among the strangers, as the newest of them.
func (s *Server) demote(cs *connState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !cs.counted {
		return
	}
	s.releaseLocked(cs)
	s.strangerLocked(cs)
}

// releaseLocked takes a connection out of whichever pool holds it.
func (s *Server) releaseLocked(cs *connState) {
	switch {
	case cs.counted:
		cs.counted = false
		s.authorized--
		select {
		case s.slotFreed <- struct{}{}:
		default:
		}
	case cs.elem != nil:
		s.strangers.Remove(cs.elem)
		cs.elem = nil
	}
}

// waitForSlot blocks a WaitWhenFull listener's accept loop while every
// authorized slot is taken; it reports false when Close starts.
func (s *Server) waitForSlot() bool {
	for {
		s.mu.Lock()
		free := s.authorized < s.cfg.MaxConnections
		s.mu.Unlock()
		if free {
			return true
		}
		select {
		case <-s.slotFreed:
		case <-s.done:
			return false
		}
	}
}

// slotsTaken is the message of the too-many-connections answer.
func (s *Server) slotsTaken() string {
	return fmt.Sprintf("all %d connection slots are taken", s.cfg.MaxConnections)
}

// evictedMessage is the message of the answer to an evicted stranger.
func (s *Server) evictedMessage() string {
	return fmt.Sprintf("dropped before authorizing: %d newer connections are waiting to authorize", s.cfg.MaxUnauthenticatedConnections)
}
