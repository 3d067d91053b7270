// Command bridgebench measures the AiControl listener as users run it:
// whole processes over loopback, one raw Go client for every target, the
// targets interleaved round by round in one run, so that a busy machine
// slows them alike and their ratios stay meaningful.
//
// Usage:
//
//	go run ./bench/bridgebench [-rounds 10] [-n 2000] [-conns 64] [-for 2s] [-agg-rounds 3] [-python=true]
//
// Targets:
//   - echo: a bare Go TCP line-echo server in its own process (this
//     program, started again with -echo-server): the floor;
//   - sample: the built cmd/aicontrol-sample, authorized once per
//     connection;
//   - python: FOnline's reference sample listener from
//     ../shared/corpus/fonline, run with python3 (skipped when either is
//     missing, with a note).
//
// The request is the same ping line for every target; the client writes it
// and reads one line back. Latency is the round trip on one connection
// (per round: the mean; over all: p50 and p99). Throughput is the
// aggregate of -conns connections sending back to back for -for, for echo
// and sample (the reference sample serves one connection at a time, so its
// figure is its single-connection rate). The load average is printed before
// and after: compare ratios, not absolute figures, on a shared machine.
package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/contractkit/contractkit/bench/internal/machine"
	"github.com/contractkit/contractkit/internal/fonline"
)

// pingLine is the request every target gets; the echo server returns it.
const pingLine = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}` + "\n"

func main() {
	echo := flag.Bool("echo-server", false, "run as the bare line-echo server (used by the tool itself)")
	rounds := flag.Int("rounds", 10, "interleaved latency rounds")
	n := flag.Int("n", 2000, "round trips per target per round")
	conns := flag.Int("conns", 64, "connections of the aggregate throughput run")
	dur := flag.Duration("for", 2*time.Second, "length of one aggregate run")
	aggRounds := flag.Int("agg-rounds", 3, "interleaved aggregate runs per target")
	withPython := flag.Bool("python", true, "include the reference Python sample when python3 and ../shared/corpus/fonline are there")
	sampleBin := flag.String("sample", "", "aicontrol-sample binary (default: build ./cmd/aicontrol-sample)")
	baseline := flag.String("baseline", "", "another aicontrol-sample binary (an older build) to measure beside it, latency and CPU only")
	flag.Parse()
	if *echo {
		// It serves until killed: it returns only when it fails.
		fmt.Fprintln(os.Stderr, "bridgebench echo:", echoServer())
		os.Exit(1)
	}
	if err := run(*rounds, *n, *conns, *dur, *aggRounds, *withPython, *sampleBin, *baseline); err != nil {
		fmt.Fprintln(os.Stderr, "bridgebench:", err)
		os.Exit(1)
	}
}

// echoServer answers every line with itself, one goroutine per connection:
// the least any line server over loopback can do.
func echoServer() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); os.Exit(0) }() // exit with the parent
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
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
}

// target is one server under test.
type target struct {
	name string
	addr string
	auth []byte // the auth line to send on every new connection, or nil
	stop func()
	pid  int // the server process, whose CPU time is read from /proc

	cpuNs    int64 // server CPU time spent during the latency rounds
	requests int64 // round trips of the latency rounds

	roundMeans []float64 // µs per round trip, one per latency round
	samples    []float64 // µs, every round trip
	aggregate  []float64 // req/s, one per aggregate run
}

func run(rounds, n, conns int, dur time.Duration, aggRounds int, withPython bool, sampleBin, baselineBin string) error {
	loadBefore := machine.LoadAverage()
	tmp, err := os.MkdirTemp("", "bridgebench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	var targets []*target
	defer func() {
		for _, t := range targets {
			t.stop()
		}
	}()
	echo, err := startEcho()
	if err != nil {
		return err
	}
	targets = append(targets, echo)
	if sampleBin == "" {
		sampleBin = filepath.Join(tmp, "aicontrol-sample")
		if out, err := exec.Command("go", "build", "-o", sampleBin, "./cmd/aicontrol-sample").CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./cmd/aicontrol-sample: %v\n%s", err, out)
		}
	}
	token := randomToken()
	sample, err := startSample(sampleBin, token, conns)
	if err != nil {
		return err
	}
	targets = append(targets, sample)
	if baselineBin != "" {
		b, err := startSample(baselineBin, token, 0)
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		b.name = "baseline"
		targets = append(targets, b)
	}
	pythonNote := ""
	if withPython {
		py, note := startPython(token)
		if py != nil {
			targets = append(targets, py)
		}
		pythonNote = note
	}

	// Latency: one connection per target, interleaved rounds, the starting
	// target rotating so that none always runs first.
	clients := map[*target]*rawConn{}
	for _, t := range targets {
		c, err := dial(t)
		if err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		defer c.Close()
		clients[t] = c
		if err := c.pings(200, nil); err != nil { // warm-up
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	for r := 0; r < rounds; r++ {
		for i := range targets {
			t := targets[(i+r)%len(targets)]
			before := len(t.samples)
			cpu := cpuTime(t.pid)
			if err := clients[t].pings(n, &t.samples); err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			t.cpuNs += cpuTime(t.pid) - cpu
			t.requests += int64(n)
			t.roundMeans = append(t.roundMeans, mean(t.samples[before:]))
		}
	}
	for _, c := range clients {
		c.Close()
	}

	// Aggregate throughput with many connections, echo and sample interleaved.
	multi := []*target{echo, sample}
	for r := 0; r < aggRounds; r++ {
		for i := range multi {
			t := multi[(i+r)%len(multi)]
			rate, err := aggregate(t, conns, dur)
			if err != nil {
				return fmt.Errorf("%s aggregate: %w", t.name, err)
			}
			t.aggregate = append(t.aggregate, rate)
		}
	}
	loadAfter := machine.LoadAverage()
	report(os.Stdout, targets, rounds, n, conns, dur, aggRounds, loadBefore, loadAfter, pythonNote)
	return nil
}

func startEcho() (*target, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-echo-server")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	port, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("echo server: first line %q: %v", line, err)
	}
	return &target{name: "echo", pid: cmd.Process.Pid, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), stop: func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}}, nil
}

func startSample(bin, token string, conns int) (*target, error) {
	args := []string{"--port", "0"}
	if conns > 0 && conns+2 > 16 {
		args = append(args, "--max-connections", strconv.Itoa(conns+2))
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "AICONTROL_TOKEN="+token)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	var ready struct {
		Host string `json:"host"`
		Port int    `json:"port"`
	}
	if err != nil || json.Unmarshal([]byte(line), &ready) != nil || ready.Port == 0 {
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("aicontrol-sample: ready line %q: %v", line, err)
	}
	return &target{name: "sample", pid: cmd.Process.Pid, addr: net.JoinHostPort(ready.Host, strconv.Itoa(ready.Port)), auth: authLine(token), stop: func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
		}
	}}, nil
}

func startPython(token string) (*target, string) {
	root, err := os.Getwd()
	if err != nil {
		return nil, err.Error()
	}
	dir, err := fonline.Dir(root)
	if err != nil {
		return nil, "python: skipped: " + err.Error()
	}
	if _, err := fonline.Python(); err != nil {
		return nil, "python: skipped: " + err.Error()
	}
	s, err := fonline.StartSample(dir, []string{"FONLINE_AI_TOKEN=" + token}, 30*time.Second)
	if err != nil {
		return nil, "python: skipped: " + err.Error()
	}
	py, _ := fonline.Python()
	ver, _ := exec.Command(py, "--version").Output()
	return &target{name: "python", pid: s.Pid(), addr: net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), auth: authLine(token), stop: s.Stop},
		"python: FOnline's ai_control_sample.py on " + strings.TrimSpace(string(ver))
}

func authLine(token string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "auth", "params": map[string]string{"token": token}})
	return append(b, '\n')
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// rawConn is the client: it writes bytes and reads lines, nothing more.
type rawConn struct {
	net.Conn
	br *bufio.Reader
}

func dial(t *target) (*rawConn, error) {
	c, err := net.DialTimeout("tcp", t.addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	rc := &rawConn{Conn: c, br: bufio.NewReader(c)}
	if t.auth != nil {
		if _, err := c.Write(t.auth); err != nil {
			c.Close()
			return nil, err
		}
		line, err := rc.br.ReadSlice('\n')
		if err != nil || !strings.Contains(string(line), `"authorized":true`) {
			c.Close()
			return nil, fmt.Errorf("auth answered %q (%v)", line, err)
		}
	}
	return rc, nil
}

// pings makes n round trips; with samples, it appends each one's µs.
func (c *rawConn) pings(n int, samples *[]float64) error {
	req := []byte(pingLine)
	for i := 0; i < n; i++ {
		began := time.Now()
		if _, err := c.Write(req); err != nil {
			return err
		}
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if samples != nil {
			*samples = append(*samples, float64(time.Since(began).Nanoseconds())/1e3)
		}
		if i == 0 && !strings.Contains(string(line), `"jsonrpc":"2.0"`) {
			return fmt.Errorf("unexpected answer %q", line)
		}
	}
	return nil
}

// aggregate runs conns connections back to back for d and returns req/s.
func aggregate(t *target, conns int, d time.Duration) (float64, error) {
	cs := make([]*rawConn, conns)
	for i := range cs {
		c, err := dial(t)
		if err != nil {
			return 0, err
		}
		defer c.Close()
		cs[i] = c
	}
	var total atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	began := time.Now()
	for _, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if err := c.pings(16, nil); err != nil {
					errs <- err
					return
				}
				total.Add(16)
			}
		}()
	}
	time.Sleep(d)
	stop.Store(true)
	wg.Wait()
	elapsed := time.Since(began)
	select {
	case err := <-errs:
		return 0, err
	default:
	}
	return float64(total.Load()) / elapsed.Seconds(), nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func percentile(xs []float64, p float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// cpuTime is the CPU time, in ns, that every thread of process pid has
// run so far (/proc/PID/task/*/schedstat), user and kernel together: the
// server's cost of a request whatever else the machine is doing.
func cpuTime(pid int) int64 {
	if pid == 0 {
		return 0
	}
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			total += ns
		}
	}
	return total
}

func report(w io.Writer, targets []*target, rounds, n, conns int, dur time.Duration, aggRounds int, loadBefore, loadAfter, pythonNote string) {
	by := map[string]*target{}
	for _, t := range targets {
		by[t.name] = t
	}
	goVer, _ := exec.Command("go", "version").Output()
	fmt.Fprintf(w, "bridgebench %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(w, "machine: %d CPU (%s), %s/%s, %s\n", runtime.NumCPU(), machine.CPUModel(), runtime.GOOS, runtime.GOARCH, strings.TrimSpace(string(goVer)))
	fmt.Fprintf(w, "load average: %s before, %s after\n", loadBefore, loadAfter)
	fmt.Fprintf(w, "latency: %d interleaved rounds x %d round trips per target, one connection each; throughput: %d connections x %v, %d interleaved runs\n", rounds, n, conns, dur, aggRounds)
	if pythonNote != "" {
		fmt.Fprintln(w, pythonNote)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| target | round trip (median of round means) | p50 | p99 | server CPU per request | 1 connection | aggregate, "+strconv.Itoa(conns)+" connections (median) |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- |")
	for _, t := range targets {
		lat := median(t.roundMeans)
		agg := "—"
		if len(t.aggregate) > 0 {
			agg = fmt.Sprintf("%.0fk req/s", median(t.aggregate)/1e3)
		} else if t.name == "python" {
			agg = "— (serves one connection at a time)"
		}
		cpu := "—"
		if c := cpuPerRequest(t); c > 0 {
			cpu = fmt.Sprintf("%.1f µs", c)
		}
		fmt.Fprintf(w, "| %s | %.1f µs | %.1f µs | %.1f µs | %s | %.1fk req/s | %s |\n", t.name, lat, percentile(t.samples, 0.5), percentile(t.samples, 0.99), cpu, 1e3/lat, agg)
	}
	fmt.Fprintln(w)
	echo, sample := by["echo"], by["sample"]
	fmt.Fprintf(w, "sample / echo round trip: %.2fx (target <= 1.2x)\n", median(sample.roundMeans)/median(echo.roundMeans))
	if py := by["python"]; py != nil {
		fmt.Fprintf(w, "python / echo round trip: %.2fx\n", median(py.roundMeans)/median(echo.roundMeans))
		fmt.Fprintf(w, "sample / python round trip: %.2fx (target < 0.5x)\n", median(sample.roundMeans)/median(py.roundMeans))
		fmt.Fprintf(w, "sample aggregate / python single connection: %.1fx (target >= 10x)\n", median(sample.aggregate)/(1e6/median(py.roundMeans)))
	}
	if b := by["baseline"]; b != nil {
		fmt.Fprintf(w, "baseline / echo round trip: %.2fx; sample / baseline: %.2fx; server CPU per request: sample %.1f µs, baseline %.1f µs, echo %.1f µs\n",
			median(b.roundMeans)/median(echo.roundMeans), median(sample.roundMeans)/median(b.roundMeans),
			cpuPerRequest(sample), cpuPerRequest(b), cpuPerRequest(echo))
	}
	fmt.Fprintf(w, "sample / echo aggregate: %.2fx\n", median(sample.aggregate)/median(echo.aggregate))
	fmt.Fprintf(w, "rounds (µs): echo %s; sample %s", fmtList(echo.roundMeans), fmtList(sample.roundMeans))
	if py := by["python"]; py != nil {
		fmt.Fprintf(w, "; python %s", fmtList(py.roundMeans))
	}
	fmt.Fprintf(w, "\naggregate runs (k req/s): echo %s; sample %s\n", fmtList(scale(echo.aggregate, 1e-3)), fmtList(scale(sample.aggregate, 1e-3)))
}

// cpuPerRequest is the server's CPU µs per latency round trip.
func cpuPerRequest(t *target) float64 {
	if t.requests == 0 {
		return 0
	}
	return float64(t.cpuNs) / float64(t.requests) / 1e3
}

func fmtList(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strings.Join(parts, " ")
}

func scale(xs []float64, k float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * k
	}
	return out
}
