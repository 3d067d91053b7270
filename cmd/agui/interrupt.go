package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interruption is the cause of a run cut because the process was told to
// stop (Ctrl-C, SIGTERM).
type interruption struct{ sig os.Signal }

func (i *interruption) Error() string { return "interrupted by " + i.name() }

// name names the signal as people know it.
func (i *interruption) name() string {
	switch i.sig {
	case os.Interrupt:
		return "SIGINT (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return i.sig.String()
}

// interrupted returns the interruption that ended ctx, or nil.
func interrupted(ctx context.Context) *interruption {
	var i *interruption
	if errors.As(context.Cause(ctx), &i) {
		return i
	}
	return nil
}

// cancelOnSignal cancels with an *interruption when the process gets
// SIGINT or SIGTERM, until stop is called. The signal is caught once: a
// second one ends the process the usual way, should the first not be
// enough.
func cancelOnSignal(cancel context.CancelCauseFunc) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			cancel(&interruption{s})
		case <-done:
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
		})
	}
}
