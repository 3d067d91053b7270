package corpus

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func archive(t *testing.T, entries map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range entries {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	path := filepath.Join(t.TempDir(), "a.tar.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExtract(t *testing.T) {
	dir := t.TempDir()
	if err := Extract(archive(t, map[string]string{"p/src/Configuration.xml": "<x/>", "p/eska.toml": "[project]\n"}), dir); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "p", "src", "Configuration.xml")); err != nil || string(b) != "<x/>" {
		t.Errorf("extracted %q %v", b, err)
	}
	err := Extract(archive(t, map[string]string{"../escape.txt": "x"}), dir)
	if err == nil || !strings.Contains(err.Error(), "escapes") {
		t.Errorf("escaping entry: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.txt")); err == nil {
		t.Errorf("the escaping entry was written")
	}
	if err := Extract(filepath.Join(dir, "missing.tar.gz"), dir); err == nil {
		t.Errorf("a missing archive was accepted")
	}
}
