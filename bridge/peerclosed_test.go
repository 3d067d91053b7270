//go:build unix

package bridge

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"testing"
	"time"
)

// A listener that closed the connection after its last answer (as the
// bridge does after a graceful shutdown has delivered the completions):
// the next call writes nothing and says so with ErrPeerClosed, which
// tells the caller that the request may go on a new connection. An open,
// idle connection is not taken for a closed one.
func TestCallAfterPeerClosed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	after := make(chan int64, 1) // bytes received after the close
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			after <- -1
			return
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
		br := bufio.NewReader(conn)
		for id := 1; id <= 2; id++ {
			if _, err := br.ReadString('\n'); err != nil {
				after <- -1
				return
			}
			if _, err := conn.Write([]byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"ok":true}}` + "\n")); err != nil {
				after <- -1
				return
			}
			if id == 2 {
				// Close the sending side only, and keep reading: whatever
				// the client writes from now on is counted.
				_ = conn.(*net.TCPConn).CloseWrite()
			}
		}
		n, _ := io.Copy(io.Discard, br)
		after <- n
	}()
	c, err := Dial(context.Background(), ClientConfig{Port: ln.Addr().(*net.TCPAddr).Port, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if c.probe.peerClosed() {
		t.Fatal("an open, idle connection was taken for a closed one")
	}
	if _, err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	// The end of the stream crosses the loopback at its own pace.
	deadline := time.Now().Add(10 * time.Second)
	for !c.probe.peerClosed() {
		if time.Now().After(deadline) {
			t.Fatal("the listener's close never showed on the client's socket")
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := c.Ping(ctx); !errors.Is(err, ErrPeerClosed) {
		t.Fatalf("a call after the listener closed: %v, want ErrPeerClosed", err)
	}
	if _, err := c.Ping(ctx); !errors.Is(err, ErrPeerClosed) {
		t.Fatalf("the connection stays unusable: %v", err)
	}
	select {
	case n := <-after:
		if n != 0 {
			t.Fatalf("the listener received %d bytes after it closed; want none", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client did not close its end")
	}
}
