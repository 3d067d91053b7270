//go:build corpus

package designer

// The reader over the shared Designer corpora, run by make corpus-test:
// every .xml file through the scanner against encoding/xml, and through
// the summary parse against the full one.

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractkit/contractkit/internal/corpus"
	"github.com/contractkit/contractkit/internal/repotest"
)

var (
	corpusOnce sync.Once
	corpusDir  string
	corpusErr  error
)

// corpusRoot is $DESIGNER_CORPUS when set (an extracted copy), or the
// shared archives extracted once into a temporary directory.
func corpusRoot(t *testing.T) string {
	t.Helper()
	if root := os.Getenv("DESIGNER_CORPUS"); root != "" {
		return root
	}
	corpusOnce.Do(func() {
		shared := filepath.Join(repotest.Root(t), "..", "shared", "corpus", "designer")
		corpusDir, corpusErr = os.MkdirTemp("", "designer-corpus")
		if corpusErr != nil {
			return
		}
		for _, a := range []string{"ssl_3_1", "mdclasses", "bsl-language-server"} {
			if corpusErr = corpus.Extract(filepath.Join(shared, a+".tar.gz"), corpusDir); corpusErr != nil {
				return
			}
		}
	})
	if corpusErr != nil {
		t.Fatalf("the Designer corpora: %v (../shared must be beside the repository)", corpusErr)
	}
	return corpusDir
}

// TestParseXMLCorpus compares the two parsers on every .xml file under
// $DESIGNER_CORPUS, e.g. the shared corpora extracted to /tmp/corpus.
func TestParseXMLCorpus(t *testing.T) {
	root := corpusRoot(t)
	var files, trees, refused, bytesTotal int
	var stdTime, newTime time.Duration
	reasons := map[string]int{}
	err := eachXML(root, func(path string, data []byte) {
		files++
		bytesTotal += len(data)
		t0 := time.Now()
		want, wantErr := parseXMLStd(path, data, DefaultLimits)
		t1 := time.Now()
		got, gotErr := ParseXML(path, data, DefaultLimits)
		t2 := time.Now()
		stdTime += t1.Sub(t0)
		newTime += t2.Sub(t1)
		switch {
		case wantErr == nil && gotErr == nil:
			trees++
			if d := treeDiff(want, got, ""); d != "" {
				t.Errorf("%s: trees differ: %s", path, d)
			}
		case wantErr != nil && gotErr != nil && reasonOf(wantErr) == reasonOf(gotErr):
			refused++
			reasons[reasonOf(gotErr)]++
			t.Logf("refused by both: %v", gotErr)
		default:
			t.Errorf("%s: encoding/xml %v; scanner %v", path, wantErr, gotErr)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no .xml files under %s", root)
	}
	mb := float64(bytesTotal) / 1e6
	t.Logf("%d files, %.1f MB: %d trees equal, %d refused by both %v", files, mb, trees, refused, reasons)
	t.Logf("encoding/xml %v (%.1f MB/s), scanner %v (%.1f MB/s)", stdTime, mb/stdTime.Seconds(), newTime, mb/newTime.Seconds())
}

// TestParseDescriptorSummaryCorpus compares the two on every .xml file
// under $DESIGNER_CORPUS (descriptors, and Ext files, which become
// unsupported_root diagnostics).
func TestParseDescriptorSummaryCorpus(t *testing.T) {
	root := corpusRoot(t)
	var files, objects, refused, size int
	err := eachXML(root, func(path string, data []byte) {
		files++
		size += len(data)
		if d := summaryDiff(data, DefaultLimits); d != "" {
			t.Errorf("%s: %s", path, d)
		}
		if desc, err := ParseDescriptor(path, data, DefaultLimits); err != nil {
			refused++
		} else if desc.Object != nil {
			objects++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no .xml files under %s", root)
	}
	t.Logf("%d files, %.1f MB compared: %d with an object, %d refused by both", files, float64(size)/1e6, objects, refused)
}

// eachXML calls fn with every .xml file under root.
func eachXML(root string, fn func(path string, data []byte)) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(path), ".xml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fn(path, data)
		return nil
	})
}

// TestMain removes the extracted corpora after the run.
func TestMain(m *testing.M) {
	code := m.Run()
	if corpusDir != "" {
		os.RemoveAll(corpusDir)
	}
	os.Exit(code)
}
