//go:build !aicontrol_disabled

package bridge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/contractkit/contractkit/generated/aicontrol"
)

// 64 connections × 1,000 requests (250 under the race detector, which
// sees the same interleavings in fewer), while a client loop drains and
// completes commands: no response is mismatched (the client checks every
// id), and every accepted commandSeq completes exactly once.
//
//contract:proves ai-control-protocol.wire.sequential-connection ai-control-protocol.integration.command-completion
func TestConcurrentConnections(t *testing.T) {
	const conns = 64
	perConn := 1000
	if raceEnabled {
		perConn = 250
	}
	s := start(t, Config{Token: testToken, MaxConnections: conns, MaxQueuedCommands: 64, MaxEvents: 4096})

	var mu sync.Mutex
	accepted := map[int64]bool{}
	completed := map[int64]int{}

	loopDone := make(chan struct{})
	stopLoop := make(chan struct{})
	go func() {
		defer close(loopDone)
		for {
			select {
			case <-s.Wake():
			case <-time.After(5 * time.Millisecond):
			case <-stopLoop:
				// Drain what is left, then stop.
				for _, c := range s.Drain(0) {
					completeOne(t, s, c, &mu, completed)
				}
				return
			}
			for _, c := range s.Drain(0) {
				completeOne(t, s, c, &mu, completed)
			}
		}
	}()

	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := client(t, s, testToken)
			ctx := context.Background()
			for j := 0; j < perConn; j++ {
				var err error
				switch j % 4 {
				case 0:
					var r aicontrol.ActResult
					r, err = c.Act(ctx, aicontrol.ActParams{Type: "move", IntArg: ptr(int64(i*perConn + j))})
					var re *RemoteError
					if errors.As(err, &re) && re.Code == aicontrol.CodeQueueFull {
						err = nil // back-pressure is a valid answer
					} else if err == nil {
						mu.Lock()
						if accepted[r.CommandSeq] {
							err = fmt.Errorf("commandSeq %d handed out twice", r.CommandSeq)
						}
						accepted[r.CommandSeq] = true
						mu.Unlock()
					}
				case 1:
					_, err = c.Ping(ctx)
				case 2:
					_, err = c.Events(ctx, int64(j), 10)
				case 3:
					_, err = c.Status(ctx)
				}
				if err != nil {
					errs <- fmt.Errorf("connection %d request %d: %w", i, j, err)
					return
				}
			}
		}(i)
	}
	wg.Wait()
	close(stopLoop)
	<-loopDone
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(accepted) == 0 {
		t.Fatal("no command was accepted")
	}
	for seq := range accepted {
		if completed[seq] != 1 {
			t.Errorf("command %d completed %d times", seq, completed[seq])
		}
	}
	for seq, n := range completed {
		if !accepted[seq] || n != 1 {
			t.Errorf("completion of command %d (accepted %v, %d times)", seq, accepted[seq], n)
		}
	}
	// Sequence numbers are dense: 1..N with no gaps from refused acts.
	for seq := int64(1); seq <= int64(len(accepted)); seq++ {
		if !accepted[seq] {
			t.Errorf("commandSeq %d missing: a refused act used a number", seq)
		}
	}
	t.Logf("%d requests, %d commands accepted and completed", conns*perConn, len(accepted))
}

func completeOne(t *testing.T, s *Server, c Command, mu *sync.Mutex, completed map[int64]int) {
	if _, err := s.Complete(c.Seq, true, "done", nil); err != nil {
		t.Errorf("complete %d: %v", c.Seq, err)
		return
	}
	mu.Lock()
	completed[c.Seq]++
	mu.Unlock()
}

func ptr[T any](v T) *T { return &v }
