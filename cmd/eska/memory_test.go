package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/rpc"
)

// The memory bounds of issue 18, measured on the real process: the peak
// resident set (VmHWM) the kernel reports for it, read while the process
// still runs. They are bounds on memory, not on time.
const (
	oversizeBatchPeakRSS = 100 << 20 // a 1 MiB frame [0,0,…] answered in full
	slowReaderPeakRSS    = 200 << 20 // a client that stops reading while requests keep coming
)

// peakRSS returns a running process's peak resident set in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading the peak RSS: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q", v)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc status")
	return 0
}

func needProc(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the peak RSS is read from /proc on Linux")
	}
}

// live is a running `eska ide --stdio` whose output the test reads when it
// chooses to.
type live struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	fr     *rpc.FrameReader
	stderr bytes.Buffer
}

func startLive(t *testing.T) *live {
	t.Helper()
	l := &live{t: t, cmd: exec.Command(build(t), "ide", "--stdio")}
	l.in, _ = l.cmd.StdinPipe()
	out, _ := l.cmd.StdoutPipe()
	l.cmd.Stderr = &l.stderr
	if err := l.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	l.fr = rpc.NewFrameReader(out, gen.MaxHeaderBytes, gen.MaxResponseBytes)
	t.Cleanup(func() { l.cmd.Process.Kill(); l.cmd.Wait() })
	return l
}

func (l *live) send(body string) {
	l.t.Helper()
	if _, err := l.in.Write(rpc.AppendFrame(nil, []byte(body))); err != nil {
		l.t.Fatal(err)
	}
}

// next reads the next frame that is not a notification.
func (l *live) next() []byte {
	l.t.Helper()
	for {
		b, err := l.fr.ReadFrame()
		if err != nil {
			l.t.Fatalf("reading a response: %v (stderr %q)", err, l.stderr.String())
		}
		if !bytes.Contains(b[:min(len(b), 40)], []byte(`"method"`)) {
			return b
		}
	}
}

func (l *live) call(body string) []byte {
	l.t.Helper()
	l.send(body)
	return l.next()
}

// end sends shutdown and exit and expects exit code 0.
func (l *live) end() {
	l.t.Helper()
	l.call(`{"jsonrpc":"2.0","id":"end","method":"shutdown"}`)
	l.send(`{"jsonrpc":"2.0","method":"exit"}`)
	l.in.Close()
	if err := l.cmd.Wait(); err != nil {
		l.t.Fatalf("exit: %v (stderr %q)", err, l.stderr.String())
	}
}

// A frame of exactly 1 MiB holding [0,0,…], 524,287 elements of which
// none is a message: each is answered with Invalid Request, in one batch
// reply of about 41 MB. The server builds that reply as it reads the
// elements, so its peak RSS stays near the reply's size.
//
//contract:proves eska-ide-api.batch.item-limit eska-ide-api.batch.invalid
func TestOversizeBatchMemory(t *testing.T) {
	needProc(t)
	l := startLive(t)
	l.call(init10)
	n := (gen.MaxRequestBytes - len("[ ")) / 2 // "0," per element, the last with "]" instead
	body := "[ " + strings.Repeat("0,", n-1) + "0]"
	if len(body) != gen.MaxRequestBytes {
		t.Fatalf("body of %d bytes", len(body))
	}
	l.send(body)
	reply := l.next()
	rss := peakRSS(t, l.cmd.Process.Pid)
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`
	if !bytes.HasPrefix(reply, []byte("["+want+",")) || !bytes.HasSuffix(reply, []byte(","+want+"]")) ||
		len(reply) != 2+n*len(want)+(n-1) {
		t.Fatalf("reply of %d bytes, want %d answers of %q: %.200s…", len(reply), n, want, reply)
	}
	l.end()
	t.Logf("%d elements, reply %.1f MB, peak RSS %.1f MiB", n, float64(len(reply))/1e6, float64(rss)/(1<<20))
	if rss > oversizeBatchPeakRSS {
		t.Errorf("peak RSS %.1f MiB, bound %d MiB", float64(rss)/(1<<20), oversizeBatchPeakRSS>>20)
	}
}

// bigCommentProject is a configuration whose root has a 192 KiB comment,
// so that every metadata/properties of the root answers about 200 KB.
func bigCommentProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"eska.toml": "[project]\ntype = \"configuration\"\nsource = \"src\"\n",
		"src/Configuration.xml": `<?xml version="1.0" encoding="UTF-8"?>
<MetaDataObject xmlns="http://v8.1c.ru/8.3/MDClasses" xmlns:v8="http://v8.1c.ru/8.1/data/core" version="2.17">
<Configuration uuid="00000000-0000-0000-0000-000000000001"><Properties><Name>Большая</Name><Comment>` +
			strings.Repeat("комментарий ", 192<<10/len("комментарий ")) + `</Comment></Properties><ChildObjects/></Configuration>
</MetaDataObject>
`,
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A client that stops reading stdout while it keeps sending requests: the
// writer's queue fills to its bound, the worker waits for room, then the
// reader waits with its refusals, and stdin stops being read. The peak
// RSS stays within slowReaderPeakRSS, and once the client reads again
// every request gets exactly one response.
//
//contract:proves eska-ide-api.scheduling.back-pressure eska-ide-api.cancellation.one-response
func TestSlowReaderMemory(t *testing.T) {
	needProc(t)
	dir := bigCommentProject(t)
	l := startLive(t)
	l.call(init10)
	var open struct {
		Result struct {
			SessionID string `json:"sessionId"`
			Projects  []struct {
				ProjectID string `json:"projectId"`
			} `json:"projects"`
		} `json:"result"`
	}
	resp := l.call(`{"jsonrpc":"2.0","id":"open","method":"workspace/open","params":{"start":{"value":` + quote(dir) + `,"encoding":"utf-8"},"selection":{"kind":"current"},"diskCache":false}}`)
	if err := json.Unmarshal(resp, &open); err != nil || len(open.Result.Projects) != 1 {
		t.Fatalf("open: %s", resp)
	}
	props := func(id int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"metadata/properties","params":{"sessionId":"` + open.Result.SessionID +
			`","projectId":"` + open.Result.Projects[0].ProjectID + `","generation":"0","objectId":"configuration:Большая"}}`
	}
	if r := l.call(props(0)); !bytes.Contains(r, []byte(`"properties"`)) || len(r) < 192<<10 {
		t.Fatalf("properties of the root: %.300s", r)
	}
	// Requests go out until the server has stopped reading them for a
	// while; nothing is read meanwhile.
	var sent atomic.Int64
	stop := make(chan struct{})
	writerDone := make(chan error, 1)
	const most = 1_000_000
	go func() {
		var batch []byte
		for id := 1; id <= most; id++ {
			batch = rpc.AppendFrame(batch, []byte(props(id)))
			if id%64 != 0 && id != most {
				continue
			}
			if _, err := l.in.Write(batch); err != nil {
				writerDone <- err
				return
			}
			batch = batch[:0]
			sent.Store(int64(id))
			select {
			case <-stop:
				writerDone <- nil
				return
			default:
			}
		}
		writerDone <- nil
	}()
	last, since := int64(-1), time.Now()
	for time.Since(since) < 2*time.Second {
		time.Sleep(100 * time.Millisecond)
		if n := sent.Load(); n != last {
			last, since = n, time.Now()
		}
		if last == most {
			t.Fatalf("%d requests were read without the client reading any response", most)
		}
	}
	rss := peakRSS(t, l.cmd.Process.Pid)
	close(stop)
	// Reading again: every request sent gets exactly one response.
	// Refusals come from the reader and may pass answers still queued, so
	// responses are counted by id, not by order.
	seen := map[int64]bool{}
	results, refused := 0, 0
	final := int64(-1)
	for final < 0 || int64(len(seen)) < final {
		if final < 0 {
			select {
			case err := <-writerDone:
				if err != nil {
					t.Fatal(err)
				}
				final = sent.Load()
				continue
			default:
			}
		}
		r := l.next()
		var env struct {
			ID    int64 `json:"id"`
			Error *struct {
				Data struct {
					Kind string `json:"kind"`
				} `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal(r, &env); err != nil {
			t.Fatalf("response: %v", err)
		}
		if seen[env.ID] || env.ID < 1 {
			t.Fatalf("a second response to %d, or one to no request", env.ID)
		}
		seen[env.ID] = true
		switch {
		case env.Error == nil:
			results++
		case env.Error.Data.Kind == "resource_limit":
			refused++
		default:
			t.Fatalf("response %.300s", r)
		}
	}
	l.end()
	t.Logf("%d requests before the server stopped reading: %d answered, %d refused with resource_limit; peak RSS %.1f MiB",
		sent.Load(), results, refused, float64(rss)/(1<<20))
	if rss > slowReaderPeakRSS {
		t.Errorf("peak RSS %.1f MiB, bound %d MiB", float64(rss)/(1<<20), slowReaderPeakRSS>>20)
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
