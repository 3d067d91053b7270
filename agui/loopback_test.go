package agui_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"runtime/metrics"
	"testing"

	"github.com/contractkit/contractkit/agui"
	"github.com/contractkit/contractkit/agui/livecheck"
	contract "github.com/contractkit/contractkit/generated/agui"
)

// loopbackRuns is the number of streams of the large record one operation
// of benchLoopback checks: 600 × 167 KB, 100 MB of record bytes in all.
const loopbackRuns = 600

// benchLoopback checks 100 MB of live streams over one loopback connection:
// a server on 127.0.0.1 sends the large record as server-sent events
// (1,994 events, 204 KB framed) for each of loopbackRuns run requests,
// which one client makes in turn over the one kept-alive connection. Each
// stream goes the way agui check --url takes it, through agui/livecheck:
// its run request and client, its reading of the body (on a goroutine of
// its own, into a ring of pieces), agui/sse and a Stream. One stream
// cannot be 100 MB and still be checked: both profiles reject a record
// past 524,288 bytes and only count what comes after. Throughput is
// counted in the record's bytes, as for Check; the largest live heap seen
// after a stream (heap-MB) shows the memory stays flat over the 100 MB.
func benchLoopback(b *testing.B, profile string) {
	data := agui.LargeStream(b)
	var body bytes.Buffer
	for _, text := range agui.EventTexts(b, data) {
		body.WriteString("data: ")
		body.Write(text)
		body.WriteString("\n\n")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", livecheck.MediaSSE)
		w.Write(body.Bytes())
	}))
	defer srv.Close()
	defer livecheck.Client.CloseIdleConnections()
	input := []byte(`{"threadId":"t","runId":"r","messages":[],"state":{},"tools":[],"context":[],"forwardedProps":{}}`)
	conns := 0
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if !info.Reused {
			conns++
		}
	}}
	traced := httptrace.WithClientTrace(context.Background(), trace)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := uint64(0)
	check := func() {
		ctx, cancel := context.WithCancel(traced)
		defer cancel()
		resp, err := livecheck.Post(ctx, srv.URL, input, nil)
		if err != nil {
			b.Fatal(err)
		}
		run, err := livecheck.New(agui.Options{Profile: profile}, nil, func(f agui.Finding) { b.Fatalf("a finding in a valid stream: %v", f) })
		if err != nil {
			b.Fatal(err)
		}
		if err := run.ReadBody(resp.Body, livecheck.Hooks{Interrupt: cancel}); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		r, err := run.End()
		if err != nil || !r.Accepted || r.Events != 1994 {
			b.Fatalf("the stream is not accepted live: %v %v", err, r)
		}
		metrics.Read(sample)
		heap = max(heap, sample[0].Value.Uint64())
	}
	b.SetBytes(int64(len(data)) * loopbackRuns)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for range loopbackRuns {
			check()
		}
	}
	b.StopTimer()
	if conns != 1 {
		b.Fatalf("the streams came over %d connections, not one", conns)
	}
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
}

// BenchmarkAGUILoopbackStand and BenchmarkAGUILoopback11 check 100 MB of
// live streams over one loopback connection, under each profile.
func BenchmarkAGUILoopbackStand(b *testing.B) { benchLoopback(b, contract.ProfileStand) }
func BenchmarkAGUILoopback11(b *testing.B)    { benchLoopback(b, contract.ProfileAgUI11) }
