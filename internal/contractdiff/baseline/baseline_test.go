package baseline

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestIsEmptyRef(t *testing.T) {
	for ref, want := range map[string]bool{
		"": true, "  ": true, "0": true, "0000000000000000000000000000000000000000": true,
		"HEAD": false, "main": false, "00a": false, "HEAD~1": false,
	} {
		if got := IsEmptyRef(ref); got != want {
			t.Errorf("IsEmptyRef(%q) = %v, want %v", ref, got, want)
		}
	}
}

func meta(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("../../../spec/contract.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func demo(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("../testdata/base.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func write(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	write(t, dir, "spec/demo.json", demo(t))
	write(t, dir, "spec/broken.schema.json", []byte("not a spec, and not read"))
	write(t, dir, "spec/nested/ignored.json", []byte("{}"))
	write(t, dir, "contract-change-dispositions.json", []byte(`{"dispositions": []}`))
	run("add", "-A")
	run("commit", "-q", "-m", "one")
	write(t, dir, "spec/demo.json", []byte("{}")) // the working tree does not matter
	return dir
}

func TestFromGit(t *testing.T) {
	dir := gitRepo(t)
	b, err := FromGit(dir, "HEAD", meta(t), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Domains) != 1 || b.Domains[0].Header.ID != "demo" || b.Domains[0].File != "spec/demo.json" {
		t.Fatalf("domains %v", b.Domains)
	}
	if len(b.Commit) != 40 || b.Label != "HEAD" || b.Missing {
		t.Errorf("baseline %+v", b)
	}
	if string(b.Dispositions) != `{"dispositions": []}` {
		t.Errorf("dispositions %q", b.Dispositions)
	}
	if _, err := FromGit(dir, "HEAD~1", meta(t), true); err == nil || !strings.Contains(err.Error(), `baseline ref "HEAD~1" is not a commit`) {
		t.Errorf("unknown ref: err = %v", err)
	}
	if _, err := FromGit(dir, "--output=x", meta(t), true); err == nil || !strings.Contains(err.Error(), "cannot start with '-'") {
		t.Errorf("option-like ref: err = %v", err)
	}
	b, err = FromGit(dir, "", meta(t), true)
	if err != nil || !b.Missing || len(b.Domains) != 0 {
		t.Errorf("empty ref: %+v, %v", b, err)
	}
}

// An invalid spec at the baseline is an error that names the revision,
// the file and the pointer.
func TestFromGitInvalidSpec(t *testing.T) {
	dir := gitRepo(t)
	broken := strings.Replace(string(demo(t)), `"version": "1.2"`, `"version": 12`, 1)
	write(t, dir, "spec/demo.json", []byte(broken))
	cmd := exec.Command("git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-am", "two")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	_, err := FromGit(dir, "HEAD", meta(t), false)
	if err == nil || !strings.Contains(err.Error(), "HEAD:spec/demo.json:/domain/version: ") {
		t.Errorf("err = %v", err)
	}
}

func TestFromDir(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "spec/demo.json", demo(t))
	write(t, dir, "spec/other.json", demo(t))
	if _, err := FromDir(dir, meta(t)); err == nil || !strings.Contains(err.Error(), "domain demo is also declared by spec/demo.json") {
		t.Errorf("the same domain twice: err = %v", err)
	}
	os.Remove(filepath.Join(dir, "spec/other.json"))
	b, err := FromDir(dir, meta(t))
	if err != nil || len(b.Domains) != 1 || b.Commit != "" || b.Dispositions != nil {
		t.Errorf("%+v, %v", b, err)
	}
	// A folder without spec/ is a baseline without domains.
	if b, err := FromDir(t.TempDir(), meta(t)); err != nil || len(b.Domains) != 0 {
		t.Errorf("empty folder: %+v, %v", b, err)
	}
	if _, err := FromDir(filepath.Join(dir, "nope"), meta(t)); err == nil {
		t.Error("a missing folder is not an error")
	}
}
