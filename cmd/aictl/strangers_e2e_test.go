package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractkit/contractkit/bridge"
	"github.com/contractkit/contractkit/generated/aicontrol"
	"github.com/contractkit/contractkit/internal/aicontroltest"
	"github.com/contractkit/contractkit/internal/tcpstate"
)

// Against the built sample with its default slots: 64 strangers that
// reconnect as soon as they are cut (half silent, half sending a fragment
// of a line now and then) do not keep the client with the token out. It
// connects and authorizes within a second 30 times of 30, and the smoke
// passes 12 of 12 meanwhile. The squatters block on reads with deadlines,
// so the test costs little CPU.
//
//contract:proves ai-control-protocol.security.connection-slots ai-control-protocol.security.auth-deadline ai-control-protocol.validation.protocol-smoke
func TestSampleUnderSquatters(t *testing.T) {
	sampleBin, aictl := build(t, "cmd/aicontrol-sample"), build(t, "cmd/aictl")
	env := []string{"AICONTROL_TOKEN=" + e2eToken}
	// A short auth deadline makes every squatter reconnect a few times
	// within the test.
	s := aicontroltest.StartSample(t, sampleBin, env, "--auth-deadline", "1s")
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() { close(stop); wg.Wait() }()
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			aicontroltest.Squat(addr, i%2 == 1, 400*time.Millisecond, stop)
		}()
	}
	time.Sleep(1500 * time.Millisecond) // every squatter has been cut and has reconnected once
	ctx := context.Background()
	for try := range 30 {
		began := time.Now()
		c, err := bridge.Dial(ctx, bridge.ClientConfig{Port: s.Port, Token: e2eToken, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatalf("try %d: %v", try, err)
		}
		ok, err := c.Auth(ctx)
		took := time.Since(began)
		c.Close()
		if err != nil || !ok {
			t.Fatalf("try %d: auth %v, %v", try, ok, err)
		}
		if took > time.Second {
			t.Errorf("try %d: connected and authorized after %v", try, took)
		}
	}
	code, out, errOut := runAictl(t, aictl, env, "smoke", "--port", strconv.Itoa(s.Port))
	var rep bridge.SmokeReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || rep.Status != "passed" || rep.CheckCount != 12 {
		t.Fatalf("smoke under squatters: exit %d, %s\n%s", code, out, errOut)
	}
	for _, c := range rep.Checks {
		if c.Status != "passed" {
			t.Errorf("smoke check %+v", c)
		}
	}
}

// Against the built sample with --write-timeout 1s: 20 clients that never
// read their answers are each reset within the write timeout plus a
// second, 20 of 20.
//
//contract:proves ai-control-protocol.integration.bounded-state
func TestSampleCutsNeverReadingClients(t *testing.T) {
	const writeTimeout = time.Second
	sampleBin := build(t, "cmd/aicontrol-sample")
	env := []string{"AICONTROL_TOKEN=" + e2eToken}
	s := aicontroltest.StartSample(t, sampleBin, env, "--write-timeout", writeTimeout.String(), "--max-connections", "21")
	ctx := context.Background()
	c, err := bridge.Dial(ctx, bridge.ClientConfig{Port: s.Port, Token: e2eToken, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if ok, err := c.Auth(ctx); err != nil || !ok {
		t.Fatalf("auth %v %v", ok, err)
	}
	// Echo completions carry their stringArg: 15 of 60 KiB make each
	// answer to events most of a line.
	big := strings.Repeat("e", 60<<10)
	var last int64
	for range 15 {
		r, err := c.Act(ctx, aicontrol.ActParams{Type: "echo", StringArg: &big})
		if err != nil {
			t.Fatal(err)
		}
		last = r.CommandSeq
	}
	if _, _, err := c.WaitCompleted(ctx, &bridge.Cursor{}, last, 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	var requests []string
	for i := range 40 {
		requests = append(requests, `{"jsonrpc":"2.0","id":`+strconv.Itoa(i+1)+`,"method":"events","params":{"afterSeq":0,"limit":500}}`)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port))
	took := make([]time.Duration, 20)
	errs := make([]error, 20)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			took[i], errs[i] = aicontroltest.NeverRead(addr, e2eToken, requests, writeTimeout+5*time.Second)
		}()
	}
	wg.Wait()
	for i := range 20 {
		switch {
		case errors.Is(errs[i], tcpstate.ErrUnsupported):
			t.Skip(errs[i])
		case errs[i] != nil:
			t.Errorf("client %d: %v", i, errs[i])
		case took[i] > writeTimeout+time.Second:
			t.Errorf("client %d was cut %v after its last request, want at most %v", i, took[i], writeTimeout+time.Second)
		}
	}
}
