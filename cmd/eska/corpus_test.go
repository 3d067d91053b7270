//go:build corpus

package main

// The property walk of `make corpus-test`: for every project of the shared
// Designer corpora, the real `eska ide --stdio` expands the whole tree and
// reads the properties of every object it shows, over pipes, as an IDE
// that a user clicks through would; then the process's peak RSS is read.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	shared "github.com/contractkit/contractkit/internal/corpus"
	"github.com/contractkit/contractkit/internal/repotest"
)

// propertyWalkPeakRSS bounds the peak RSS of a process that has read the
// properties of every object of a corpus project.
const propertyWalkPeakRSS = 256 << 20

func TestCorpusPropertyWalk(t *testing.T) {
	needProc(t)
	archives := filepath.Join(repotest.Root(t), "..", "shared", "corpus", "designer")
	if _, err := os.Stat(archives); err != nil {
		repotest.MissingPart(t, "the Designer corpora are not at %s (../shared is absent)", archives)
	}
	tmp := t.TempDir()
	for _, a := range shared.DesignerArchives {
		if err := shared.Extract(filepath.Join(archives, a+".tar.gz"), tmp); err != nil {
			t.Fatal(err)
		}
	}
	for _, cp := range shared.DesignerProjects(tmp) {
		t.Run(cp.Name, func(t *testing.T) {
			dir := filepath.Join(tmp, cp.Name)
			if err := os.WriteFile(filepath.Join(dir, "eska.toml"), []byte(cp.Manifest()), 0o644); err != nil {
				t.Fatal(err)
			}
			w := walkProperties(t, dir)
			t.Logf("%s: %d nodes, properties of %d objects (%d properties, %.1f MB of answers, %d failed) in %s; peak RSS %.1f MiB",
				cp.Name, w.nodes, w.objects, w.properties, float64(w.bytes)/1e6, w.failed, w.took.Round(time.Millisecond), float64(w.rss)/(1<<20))
			if w.rss > propertyWalkPeakRSS {
				t.Errorf("peak RSS %.1f MiB, bound %d MiB", float64(w.rss)/(1<<20), propertyWalkPeakRSS>>20)
			}
		})
	}
}

type walk struct {
	nodes, objects, properties, failed int
	bytes                              int64
	took                               time.Duration
	rss                                int64
}

// walkProperties opens dir in a fresh process (API 1.5: presentations and
// picture previews included), expands every node and reads the properties
// of every object node.
func walkProperties(t *testing.T, dir string) walk {
	l := startLive(t)
	l.call(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"apiVersion":{"major":1,"minor":5},"client":{"name":"corpus","version":"1"}}}`)
	var open struct {
		Result struct {
			SessionID string `json:"sessionId"`
			Projects  []struct {
				ProjectID string          `json:"projectId"`
				Root      json.RawMessage `json:"root"`
			} `json:"projects"`
		} `json:"result"`
	}
	resp := l.call(`{"jsonrpc":"2.0","id":"o","method":"workspace/open","params":{"start":{"value":` + quote(dir) + `,"encoding":"utf-8"},"selection":{"kind":"current"},"diskCache":false}}`)
	if err := json.Unmarshal(resp, &open); err != nil || len(open.Result.Projects) != 1 {
		t.Fatalf("open: %s", resp)
	}
	ctx := `"sessionId":"` + open.Result.SessionID + `","projectId":"` + open.Result.Projects[0].ProjectID + `","generation":"0"`
	var w walk
	id := 0
	start := time.Now()
	var visit func(node json.RawMessage)
	visit = func(node json.RawMessage) {
		id++
		r := l.call(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"metadata/children","params":{` + ctx + `,"node":` + string(node) + `,"hideEmptyRootSections":false}}`)
		var kids struct {
			Result *struct {
				Nodes []struct {
					ID json.RawMessage `json:"id"`
				} `json:"nodes"`
			} `json:"result"`
		}
		if err := json.Unmarshal(r, &kids); err != nil || kids.Result == nil {
			w.failed++
			return
		}
		for _, n := range kids.Result.Nodes {
			w.nodes++
			var obj struct {
				Kind     string `json:"kind"`
				ObjectID string `json:"objectId"`
			}
			json.Unmarshal(n.ID, &obj)
			if obj.Kind == "object" {
				id++
				r := l.call(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"metadata/properties","params":{` + ctx + `,"objectId":` + quote(obj.ObjectID) + `}}`)
				var props struct {
					Result *struct {
						Properties []json.RawMessage `json:"properties"`
					} `json:"result"`
				}
				if json.Unmarshal(r, &props) != nil || props.Result == nil {
					w.failed++
				} else {
					w.objects++
					w.properties += len(props.Result.Properties)
					w.bytes += int64(len(r))
				}
			}
			visit(n.ID)
		}
	}
	visit(open.Result.Projects[0].Root)
	w.took = time.Since(start)
	w.rss = peakRSS(t, l.cmd.Process.Pid)
	l.end()
	return w
}
