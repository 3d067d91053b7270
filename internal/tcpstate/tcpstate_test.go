package tcpstate

import (
	"errors"
	"net"
	"testing"
	"time"
)

// An established connection is open, with unread data too; once the other
// side resets it, it is closed.
func TestClosed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := peer.Write([]byte("unread")); err != nil {
		t.Fatal(err)
	}
	closed, err := Closed(c.(*net.TCPConn))
	if errors.Is(err, ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil || closed {
		t.Fatalf("established connection: closed=%v, %v", closed, err)
	}
	_ = peer.(*net.TCPConn).SetLinger(0)
	peer.Close()
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if closed, err = Closed(c.(*net.TCPConn)); err != nil || closed {
			break
		}
		if time.Now().After(end) {
			t.Fatal("still open 5 s after the peer reset the connection")
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}
