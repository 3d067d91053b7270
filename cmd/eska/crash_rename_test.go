package main

import (
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// crashRenames is how many renames TestRenameCrashSafety applies in all:
// ESKA_CRASH_RENAMES, 200 in make crash-test; fewer by default so that
// make test stays quick.
func crashRenames() int {
	if n, err := strconv.Atoi(os.Getenv("ESKA_CRASH_RENAMES")); err == nil && n > 0 {
		return n
	}
	return 12
}

// A process killed (SIGKILL) at random moments while it renames a
// catalog named by 82 other files leaves, once the next session has
// opened (and recovered the journal), every file of the project as it
// was before a rename or as it is after it: all old or all new as a set,
// never a mix, no temporary file, no journal.
//
//contract:proves eska-ide-api.editing.rename-journal
func TestRenameCrashSafety(t *testing.T) {
	const docs = 40
	bin := build(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"eska.toml": "[project]\ntype = \"configuration\"\nsource = \"src\"\n"})
	names := []string{"Альфа", "Бета"}
	writeFiles(t, dir, renameProject(names[0], docs))
	variants := map[string]map[string]string{}
	for _, n := range names {
		variants[n] = renameProject(n, docs)
	}
	// which names the rendering the tree is, or fails the test.
	which := func(run int) string {
		files, temps := sourceTree(t, dir)
		if len(temps) > 0 {
			t.Fatalf("run %d: temporary files after the open: %v", run, temps)
		}
		if _, err := os.Stat(filepath.Join(dir, ".eska", "edit", "set-journal.json")); err == nil {
			t.Fatalf("run %d: the journal stays after the open", run)
		}
		for _, n := range names {
			if reflect.DeepEqual(files, variants[n]) {
				return n
			}
		}
		t.Fatalf("run %d: the tree is neither all %s nor all %s", run, names[0], names[1])
		return ""
	}
	total, want := 0, crashRenames()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	var runs, killedInRun, answered, back, forward, journals, temps int
	prev := names[0]
	for total < want {
		runs++
		c, err := startCrashClientMinor(t, bin, dir, 11)
		if err != nil {
			t.Fatalf("run %d: the session does not open: %v", runs, err)
		}
		cur := which(runs)
		if runs > 1 && cur == prev {
			back++
		} else if runs > 1 {
			forward++
		}
		var killed atomic.Bool
		timer := time.AfterFunc(time.Duration(rng.Intn(400)+5)*time.Millisecond, func() {
			killed.Store(true)
			c.cmd.Process.Signal(syscall.SIGKILL)
		})
		prev = cur
		for total < want {
			next := names[0]
			if cur == names[0] {
				next = names[1]
			}
			info, err := c.call(`"method":"project/info","params":{"sessionId":"s1"}`)
			if err != nil {
				break
			}
			var pi struct{ Projects []struct{ Generation string } }
			json.Unmarshal(info, &pi)
			g := pi.Projects[0].Generation
			plan, err := c.call(`"method":"metadata/renamePreview","params":{"sessionId":"s1","projectId":"p1","generation":"` + g +
				`","objectId":"catalog:` + cur + `","newName":"` + next + `"}`)
			if err != nil {
				if !killed.Load() {
					t.Fatalf("preview %d: %v", total, err)
				}
				break
			}
			var pr struct{ Plan struct{ Snapshot string } }
			json.Unmarshal(plan, &pr)
			total++
			if _, err := c.call(`"method":"metadata/renameApply","params":{"sessionId":"s1","projectId":"p1","generation":"` + g +
				`","objectId":"catalog:` + cur + `","newName":"` + next + `","snapshot":"` + pr.Plan.Snapshot + `","reviewedUncertain":true}`); err != nil {
				if !killed.Load() {
					t.Fatalf("rename %d: %v", total, err)
				}
				break
			}
			answered++
			cur = next
			prev = cur
		}
		timer.Stop()
		c.cmd.Process.Signal(syscall.SIGKILL)
		c.cmd.Wait()
		if killed.Load() {
			killedInRun++
		}
		// What the kill left for the next open to recover.
		if _, err := os.Stat(filepath.Join(dir, ".eska", "edit", "set-journal.json")); err == nil {
			journals++
		}
		_, left := sourceTree(t, dir)
		temps += len(left)
	}
	// A last session opens cleanly on a whole tree.
	c, err := startCrashClientMinor(t, bin, dir, 11)
	if err != nil {
		t.Fatalf("the last session does not open: %v", err)
	}
	which(runs + 1)
	c.in.Close()
	c.cmd.Wait()
	t.Logf("%d renames of %d files each sent, %d answered, %d processes (%d killed while running); %d kills left a journal and %d temporary files for the next open; after a kill the tree was the one before the interrupted rename %d times, the one after it %d times",
		total, 2*docs+4, answered, runs, killedInRun, journals, temps, back, forward)
}
