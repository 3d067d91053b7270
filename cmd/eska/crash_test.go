package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	gen "github.com/contractkit/contractkit/generated/ide"
	"github.com/contractkit/contractkit/ide/rpc"
	"github.com/contractkit/contractkit/internal/atomicfile"
)

// crashUpdates is how many updates TestCrashSafety sends in all:
// ESKA_CRASH_UPDATES, 1000 in make crash-test; fewer by default so that
// make test stays quick.
func crashUpdates() int {
	if n, err := strconv.Atoi(os.Getenv("ESKA_CRASH_UPDATES")); err == nil && n > 0 {
		return n
	}
	return 120
}

// crashClient drives one `eska ide --stdio` until it is killed.
type crashClient struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	fr     *rpc.FrameReader
	nextID int
}

func startCrashClient(t *testing.T, bin, dir string) (*crashClient, error) {
	return startCrashClientMinor(t, bin, dir, 8)
}

// startCrashClientMinor starts a client of the minor that opted in to
// editing and opens the project at dir.
func startCrashClientMinor(t *testing.T, bin, dir string, minor int) (*crashClient, error) {
	cmd := exec.Command(bin, "ide", "--stdio")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &crashClient{cmd: cmd, in: in, fr: rpc.NewFrameReader(out, gen.MaxHeaderBytes, gen.MaxResponseBytes)}
	if _, err := c.call(`"method":"initialize","params":{"apiVersion":{"major":1,"minor":` + strconv.Itoa(minor) + `},"client":{"name":"crash","version":"1"},"allowPropertyEdits":true}`); err != nil {
		return c, err
	}
	start, _ := json.Marshal(dir)
	if _, err := c.call(`"method":"workspace/open","params":{"start":{"value":` + string(start) + `,"encoding":"utf-8"},"selection":{"kind":"current"},"diskCache":false}`); err != nil {
		return c, err
	}
	return c, nil
}

// call sends a request and returns its result, skipping notifications;
// an error response is returned as an error.
func (c *crashClient) call(body string) (json.RawMessage, error) {
	c.nextID++
	id := strconv.Itoa(c.nextID)
	if _, err := c.in.Write(rpc.AppendFrame(nil, []byte(`{"jsonrpc":"2.0","id":`+id+`,`+body+`}`))); err != nil {
		return nil, err
	}
	for {
		frame, err := c.fr.ReadFrame()
		if err != nil {
			return nil, err
		}
		var r struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(frame, &r) != nil || string(r.ID) != id {
			continue // a notification
		}
		if r.Error != nil {
			return nil, fmt.Errorf("%s", r.Error)
		}
		return r.Result, nil
	}
}

// A process killed (SIGKILL) at random moments while it writes leaves
// every descriptor byte for byte one of the versions a write could make,
// never torn; the next session opens cleanly and removes any temporary
// file a killed write left behind.
//
//contract:proves eska-ide-api.editing.atomic-write
//contract:proves eska-ide-api.method.metadata-update-property
func TestCrashSafety(t *testing.T) {
	const catalogs = 4
	bin := build(t)
	dir := editableProject(t, catalogs, false)
	src := filepath.Join(dir, "src", "Catalogs")
	// The versions a descriptor may hold: as made, or its Comment set to
	// one of the two values the updates alternate.
	valid := map[string]map[string]bool{}
	for i := 1; i <= catalogs; i++ {
		name := fmt.Sprintf("К%d", i)
		orig := catalogXML(name, i+1)
		valid[name] = map[string]bool{orig: true}
		for _, v := range []string{"чёт", "нечет"} {
			valid[name][strings.Replace(orig, "<Comment/>", "<Comment>"+v+"</Comment>", 1)] = true
		}
	}
	total, want := 0, crashUpdates()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	var runs, killedInRun, tempsSeen, tempsLeft, answered int
	for total < want {
		runs++
		c, err := startCrashClient(t, bin, dir)
		if err != nil {
			t.Fatalf("run %d: the session does not open: %v", runs, err)
		}
		// The next open removed what a killed write left.
		for _, f := range temps(t, src) {
			t.Errorf("run %d: %s left after open", runs, f)
			tempsLeft++
		}
		var killed atomic.Bool
		delay := time.Duration(rng.Intn(120)+5) * time.Millisecond
		timer := time.AfterFunc(delay, func() {
			killed.Store(true)
			c.cmd.Process.Signal(syscall.SIGKILL)
		})
		for total < want {
			i := rng.Intn(catalogs) + 1
			id := fmt.Sprintf("catalog:К%d", i)
			info, err := c.call(`"method":"project/info","params":{"sessionId":"s1"}`)
			if err != nil {
				break
			}
			var pi struct{ Projects []struct{ Generation string } }
			json.Unmarshal(info, &pi)
			g := pi.Projects[0].Generation
			ed, err := c.call(`"method":"metadata/propertyEditing","params":{"sessionId":"s1","projectId":"p1","generation":"` + g + `","objectId":"` + id + `"}`)
			if err != nil {
				break
			}
			var e struct{ Snapshot string }
			json.Unmarshal(ed, &e)
			value := []string{"чёт", "нечет"}[total%2]
			total++
			if _, err := c.call(`"method":"metadata/updateProperty","params":{"sessionId":"s1","projectId":"p1","generation":"` + g +
				`","objectId":"` + id + `","snapshot":"` + e.Snapshot + `","path":"Comment","change":{"kind":"text","value":"` + value + `"}}`); err != nil {
				if !killed.Load() {
					t.Fatalf("update %d: %v", total, err)
				}
				break
			}
			answered++
		}
		timer.Stop()
		c.cmd.Process.Signal(syscall.SIGKILL)
		c.cmd.Wait()
		if killed.Load() {
			killedInRun++
		}
		// Every descriptor is one of its versions, never torn.
		for i := 1; i <= catalogs; i++ {
			name := fmt.Sprintf("К%d", i)
			data, err := os.ReadFile(filepath.Join(src, name+".xml"))
			if err != nil || !valid[name][string(data)] {
				t.Fatalf("run %d: %s is torn (%v): %q", runs, name, err, data)
			}
		}
		tempsSeen += len(temps(t, src))
	}
	// A last session opens cleanly and leaves no temporary file.
	c, err := startCrashClient(t, bin, dir)
	if err != nil {
		t.Fatalf("the last session does not open: %v", err)
	}
	for i := 1; i <= catalogs; i++ {
		if _, err := c.call(`"method":"metadata/propertyEditing","params":{"sessionId":"s1","projectId":"p1","generation":"0","objectId":"catalog:К` + strconv.Itoa(i) + `"}`); err != nil {
			t.Errorf("after the crashes, catalog К%d: %v", i, err)
		}
	}
	c.in.Close()
	c.cmd.Wait()
	if left := temps(t, src); len(left) > 0 {
		t.Errorf("temporary files after the last open: %v", left)
	}
	t.Logf("%d updates sent, %d answered, %d processes (%d killed while running), %d temporary files left by kills and removed by the next open, %d left after an open",
		total, answered, runs, killedInRun, tempsSeen, tempsLeft)
}

// temps lists the temporary files of interrupted writes under dir.
func temps(t *testing.T, dir string) []string {
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if atomicfile.IsTemp(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}
