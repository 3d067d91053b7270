package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func settings(kv ...string) []debug.BuildSetting {
	var out []debug.BuildSetting
	for i := 0; i < len(kv); i += 2 {
		out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
	}
	return out
}

const module = "github.com/contractkit/contractkit"

func TestString(t *testing.T) {
	for _, c := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"go install at a version", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: module, Version: "v1.2.0"}},
			"v1.2.0 (github.com/contractkit/contractkit, go1.26.8)"},
		{"go install at a commit", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: module, Version: "v0.0.0-20261204230000-0123456789ab"}},
			"v0.0.0-20261204230000-0123456789ab (github.com/contractkit/contractkit, go1.26.8)"},
		{"a clean checkout, stamped with a pseudo-version", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: module, Version: "v0.0.0-20261204230000-0123456789ab"},
			Settings: settings("vcs", "git", "vcs.revision", "0123456789abcdef0123456789abcdef01234567", "vcs.time", "2026-12-04T23:00:00Z", "vcs.modified", "false")},
			"v0.0.0-20261204230000-0123456789ab (github.com/contractkit/contractkit, revision 0123456789abcdef0123456789abcdef01234567, 2026-12-04T23:00:00Z, go1.26.8)"},
		{"a checkout built as (devel)", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: module, Version: Devel},
			Settings: settings("-trimpath", "true", "vcs", "git", "vcs.revision", "0123456789abcdef0123456789abcdef01234567", "vcs.time", "2026-12-04T23:00:00Z", "vcs.modified", "false")},
			"development build (github.com/contractkit/contractkit, revision 0123456789abcdef0123456789abcdef01234567, 2026-12-04T23:00:00Z, go1.26.8)"},
		{"a checkout with changes", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: module, Version: Devel},
			Settings: settings("vcs.revision", "0123456789abcdef0123456789abcdef01234567", "vcs.modified", "true")},
			"development build (github.com/contractkit/contractkit, revision 0123456789abcdef0123456789abcdef01234567, uncommitted changes, go1.26.8)"},
		{"a tree without version control (-buildvcs=false, a tarball)", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: module, Version: Devel}},
			"development build (github.com/contractkit/contractkit, no version control information, go1.26.8)"},
		{"an empty version is a development build", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: module}},
			"development build (github.com/contractkit/contractkit, no version control information, go1.26.8)"},
		{"no module information", debug.BuildInfo{GoVersion: "go1.26.8"},
			"unknown build (the binary carries no module build information)"},
	} {
		if got := FromBuildInfo(&c.bi).String(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func TestFromBuildInfo(t *testing.T) {
	in := FromBuildInfo(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: module, Version: Devel},
		Settings: settings("vcs.revision", "abc", "vcs.time", "2026-12-04T23:00:00Z", "vcs.modified", "true", "GOOS", "linux")})
	want := Info{Module: module, Version: Devel, Revision: "abc", Time: "2026-12-04T23:00:00Z", Modified: true, Go: "go1.26.8"}
	if in != want {
		t.Errorf("got %+v, want %+v", in, want)
	}
}

// The test binary is built by the toolchain too: Read finds its Go
// version, and Line starts with the command's name.
func TestReadAndLine(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("the test binary has no build information")
	}
	if in := Read(); in.Go != bi.GoVersion || in.Module != bi.Main.Path {
		t.Errorf("Read: %+v, the toolchain recorded %s %s", in, bi.Main.Path, bi.GoVersion)
	}
	if line := Line("agui"); !strings.HasPrefix(line, "agui ") || !strings.Contains(line, bi.GoVersion) {
		t.Errorf("Line: %q", line)
	}
}
