//go:build !aicontrol_disabled

package bridge

import (
	"bufio"
	"context"
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/contractkit/contractkit/generated/aicontrol"
)

// pingLine is the request line both the bridge and the echo floor carry.
const pingLine = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}` + "\n"

// BenchmarkTCPEchoFloor is the floor: a bare Go TCP echo server that reads
// a line and writes it back, over the same loopback, with the same line.
func BenchmarkTCPEchoFloor(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadSlice('\n')
					if err != nil {
						return
					}
					if _, err := c.Write(line); err != nil {
						return
					}
				}
			}()
		}
	}()
	pingRaw(b, ln.Addr().String())
}

// BenchmarkRoundTrip is one ping on one connection through the client
// library and the listener: the figure to compare with the floor.
func BenchmarkRoundTrip(b *testing.B) {
	s := start(b, Config{})
	c := client(b, s, "")
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Ping(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTripRaw is the same ping written and read as raw bytes, to
// separate the listener's cost from the client library's.
func BenchmarkRoundTripRaw(b *testing.B) {
	pingRaw(b, start(b, Config{}).Addr().String())
}

// pingRaw writes pingLine to addr and reads one line back, b.N times, on
// one connection.
func pingRaw(b *testing.B, addr string) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Write([]byte(pingLine)); err != nil {
			b.Fatal(err)
		}
		if _, err := br.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkThroughput measures aggregate requests per second with 1 and
// 64 connections, each sending ping requests back to back.
func BenchmarkThroughput(b *testing.B) {
	for _, conns := range []int{1, 64} {
		b.Run(strconv.Itoa(conns)+"conns", func(b *testing.B) {
			s := start(b, Config{MaxConnections: conns})
			clients := make([]*Client, conns)
			for i := range clients {
				clients[i] = client(b, s, "")
			}
			b.ReportAllocs()
			b.ResetTimer()
			var wg sync.WaitGroup
			per := b.N / conns
			extra := b.N % conns
			for i, c := range clients {
				n := per
				if i < extra {
					n++
				}
				wg.Add(1)
				go func(c *Client, n int) {
					defer wg.Done()
					for j := 0; j < n; j++ {
						if _, err := c.Ping(context.Background()); err != nil {
							b.Error(err)
							return
						}
					}
				}(c, n)
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// BenchmarkHandle measures the listener's own work per request, without
// the network: envelope checks, dispatch and the response line.
func BenchmarkHandle(b *testing.B) {
	s := &Server{cfg: Config{}.withDefaults(), state: newState(aicontrol.DefaultMaxQueuedCommands, aicontrol.DefaultMaxEvents)}
	cs := &connState{authorized: true}
	for _, c := range []struct{ name, line string }{
		{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}`},
		{"act", `{"jsonrpc":"2.0","id":1,"method":"act","params":{"type":"move","x":3,"y":4}}`},
		{"status", `{"jsonrpc":"2.0","id":1,"method":"status"}`},
		{"auth", `{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":"t"}}`},
		{"events", `{"jsonrpc":"2.0","id":1,"method":"events","params":{"afterSeq":0,"limit":10}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			line := []byte(c.line)
			var out []byte
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				out = s.handle(out[:0], cs, line)
				if c.name == "act" {
					s.Drain(0)
					s.state.mu.Lock()
					clear(s.state.pending)
					s.state.mu.Unlock()
				}
			}
		})
	}
}
