package bridge

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/contractkit/contractkit/generated/aicontrol"
)

// fakePeer is a loopback server that answers every request line with
// reply (after replacing {id} with the request's id) and then, if
// closeAfter, closes. It counts the request bytes it received.
type fakePeer struct {
	ln       net.Listener
	received atomic.Int64
}

func newFakePeer(t *testing.T, reply string, closeAfter bool) *fakePeer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &fakePeer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					p.received.Add(int64(len(line)))
					if err != nil {
						return
					}
					id := "1"
					if i := strings.Index(line, `"id":`); i >= 0 {
						rest := line[i+5:]
						id = rest[:strings.IndexAny(rest, ",}")]
					}
					if _, err := c.Write([]byte(strings.ReplaceAll(reply, "{id}", id))); err != nil {
						return
					}
					if closeAfter {
						return
					}
				}
			}()
		}
	}()
	return p
}

func (p *fakePeer) dial(t *testing.T) *Client {
	t.Helper()
	c, err := Dial(context.Background(), ClientConfig{Port: p.ln.Addr().(*net.TCPAddr).Port, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// The client rejects, each with its own error, every way a peer can break
// the response envelope.
//
//contract:proves ai-control-protocol.validation.malformed-peer ai-control-protocol.wire.response-envelope
func TestClientRejectsMalformedPeers(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":{id},"result":{"ok":true}}` + "\n"
	cases := []struct {
		name       string
		reply      string
		closeAfter bool
		want       error
	}{
		{"EOF without response", "", true, ErrNoResponse},
		{"missing LF", strings.TrimSuffix(ok, "\n"), true, ErrMissingLF},
		{"oversize line", `{"jsonrpc":"2.0","id":{id},"result":{"pad":"` + strings.Repeat("x", aicontrol.MaxLineBytes) + `"}}` + "\n", false, ErrResponseTooLong},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{\"x\":\"\xfe\"}}\n", false, ErrInvalidUTF8},
		{"invalid JSON", `{"jsonrpc":"2.0","id":{id},"result":` + "\n", false, ErrInvalidJSON},
		{"duplicate member", `{"jsonrpc":"2.0","id":{id},"id":{id},"result":{}}` + "\n", false, ErrInvalidJSON},
		{"not an object", `[1,2]` + "\n", false, ErrResponseNotObject},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":{id},"result":{"ok":true}}` + "\n", false, ErrWrongJSONRPC},
		{"mismatched id", `{"jsonrpc":"2.0","id":999,"result":{"ok":true}}` + "\n", false, ErrIDMismatch},
		{"string id for a number", `{"jsonrpc":"2.0","id":"{id}","result":{"ok":true}}` + "\n", false, ErrIDMismatch},
		{"missing id", `{"jsonrpc":"2.0","result":{"ok":true}}` + "\n", false, ErrIDMismatch},
		{"both result and error", `{"jsonrpc":"2.0","id":{id},"result":{},"error":{"code":-32601,"message":"x"}}` + "\n", false, ErrAmbiguousResponse},
		{"neither result nor error", `{"jsonrpc":"2.0","id":{id}}` + "\n", false, ErrAmbiguousResponse},
		{"error code not an integer", `{"jsonrpc":"2.0","id":{id},"error":{"code":"-32601","message":"x"}}` + "\n", false, ErrMalformedError},
		{"error without message", `{"jsonrpc":"2.0","id":{id},"error":{"code":-32601}}` + "\n", false, ErrMalformedError},
		{"result breaking the contract", `{"jsonrpc":"2.0","id":{id},"result":{"ok":false}}` + "\n", false, ErrInvalidResult},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl := newFakePeer(t, c.reply, c.closeAfter).dial(t)
			_, err := cl.Ping(context.Background())
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			if !errors.Is(c.want, ErrInvalidResult) {
				// The stream can no longer be trusted: the client is closed.
				if _, err2 := cl.Ping(context.Background()); !errors.Is(err2, c.want) {
					t.Errorf("second call: %v, want the first failure again", err2)
				}
			}
		})
	}
	// A remote error carries its code and message; the connection stays usable.
	cl := newFakePeer(t, `{"jsonrpc":"2.0","id":{id},"error":{"code":-32001,"message":"Unauthorized"}}`+"\n", false).dial(t)
	for i := 0; i < 2; i++ {
		_, err := cl.Ping(context.Background())
		var re *RemoteError
		if !errors.As(err, &re) || re.Code != aicontrol.CodeUnauthorized || re.Message != "Unauthorized" {
			t.Fatalf("remote error: %v", err)
		}
	}
	// An error with id null answers a request the server could not read.
	cl = newFakePeer(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`+"\n", false).dial(t)
	if _, err := cl.Ping(context.Background()); err == nil || !strings.Contains(err.Error(), "-32700") {
		t.Errorf("id-null error: %v", err)
	}
}

// Bad arguments are refused before any byte is sent.
func TestClientLocalChecks(t *testing.T) {
	p := newFakePeer(t, `{"jsonrpc":"2.0","id":{id},"result":{}}`+"\n", false)
	cl := p.dial(t)
	ctx := context.Background()
	if _, err := cl.Events(ctx, -1, 10); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("negative afterSeq: %v", err)
	}
	if _, err := cl.Events(ctx, 0, 0); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("zero limit: %v", err)
	}
	if _, err := cl.Act(ctx, aicontrol.ActParams{}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("empty type: %v", err)
	}
	big := strings.Repeat("x", aicontrol.MaxLineBytes)
	if _, err := cl.Act(ctx, aicontrol.ActParams{Type: "say", StringArg: &big}); !errors.Is(err, ErrRequestTooLarge) {
		t.Errorf("oversize request: %v", err)
	}
	time.Sleep(50 * time.Millisecond)
	if n := p.received.Load(); n != 0 {
		t.Errorf("the peer received %d bytes", n)
	}
	for _, cfg := range []ClientConfig{{Port: 70000}, {Port: -1}, {Host: "192.0.2.7", Port: 43011}, {Host: "0.0.0.0"}, {Timeout: -time.Second}} {
		if _, err := Dial(ctx, cfg); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	if _, _, err := CheckClientConfig(ClientConfig{Host: "192.0.2.7", AllowRemote: true}); err != nil {
		t.Errorf("remote with opt-in: %v", err)
	}
}

// The client numbers requests from 1 and writes compact JSON lines.
func TestClientRequestLines(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	lines := make(chan string, 3)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		for i := 0; i < 3; i++ {
			l, err := br.ReadString('\n')
			if err != nil {
				return
			}
			lines <- l
			c.Write([]byte(`{"jsonrpc":"2.0","id":` + []string{"1", "2", "3"}[i] + `,"result":{"authorized":true}}` + "\n"))
		}
	}()
	cl, err := Dial(context.Background(), ClientConfig{Port: ln.Addr().(*net.TCPAddr).Port, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := 0; i < 3; i++ {
		if ok, err := cl.Auth(context.Background()); err != nil || !ok {
			t.Fatalf("auth %d: %v %v", i, ok, err)
		}
	}
	want := []string{
		`{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":"tok"}}` + "\n",
		`{"jsonrpc":"2.0","id":2,"method":"auth","params":{"token":"tok"}}` + "\n",
		`{"jsonrpc":"2.0","id":3,"method":"auth","params":{"token":"tok"}}` + "\n",
	}
	for i, w := range want {
		if got := <-lines; got != w {
			t.Errorf("line %d = %q, want %q", i, got, w)
		}
	}
}

// A remote error names the pointer its detail carries, "/" for params
// themselves (whose pointer is empty), and the reason.
func TestRemoteErrorText(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{`{"pointer":"","reason":"expected an object"}`, "remote error -32602: Invalid params: /: expected an object"},
		{`{"pointer":"/afterSeq","reason":"expected an integer"}`, "remote error -32602: Invalid params: /afterSeq: expected an integer"},
		{`{"reason":"queue full"}`, "remote error -32602: Invalid params: queue full"},
		{``, "remote error -32602: Invalid params"},
	} {
		e := &RemoteError{Code: -32602, Message: "Invalid params", Data: []byte(c.data)}
		if got := e.Error(); got != c.want {
			t.Errorf("data %s: %q, want %q", c.data, got, c.want)
		}
	}
}
