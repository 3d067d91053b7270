//go:build aicontrol_disabled

package bridge

import (
	"errors"
	"net"

	"github.com/contractkit/contractkit/generated/aicontrol"
)

// ErrDisabled is what Listen returns in a build with the aicontrol_disabled
// tag. Release and package builds set the tag, so the listener and its
// remote-command path are not in the binary at all: a runtime switch alone
// would leave them there.
var ErrDisabled = errors.New("bridge: listener compiled out of this build (tag aicontrol_disabled)")

// ShutdownMessage matches the listener build, so callers compile either way.
const ShutdownMessage = "listener closed before the command completed"

// Server has the listener's method set so that embedding code compiles in
// both builds; none of them can ever be reached with a listener.
type Server struct{}

// Listen always fails in this build, after checking the configuration.
func Listen(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return nil, ErrDisabled
}

func (*Server) Addr() net.Addr                                              { return nil }
func (*Server) Status() aicontrol.StatusResult                              { return aicontrol.StatusResult{} }
func (*Server) PublishObservation(any) (int64, error)                       { return 0, ErrDisabled }
func (*Server) Drain(int) []Command                                         { return nil }
func (*Server) Wake() <-chan struct{}                                       { return nil }
func (*Server) Complete(int64, bool, string, map[string]any) (int64, error) { return 0, ErrDisabled }
func (*Server) AppendEvent(any) (int64, error)                              { return 0, ErrDisabled }
func (*Server) Close() ([]int64, error)                                     { return nil, nil }
