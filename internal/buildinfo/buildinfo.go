// Package buildinfo says which build of a command is running, for every
// command's --version: the module version `go install …@version` stamps,
// or, for a build from a checkout, the commit it was built from, its time
// and whether the tree had uncommitted changes. It reads only what the Go
// toolchain records in the binary (runtime/debug.ReadBuildInfo), so the
// answer cannot drift from the build.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Devel is the version the Go toolchain gives a main module built from
// its own source tree rather than fetched at a version.
const Devel = "(devel)"

// Info is what a binary knows of its own build.
type Info struct {
	// Module is the main module's path; empty when the binary has no
	// build information.
	Module string
	// Version is the module version, e.g. v1.2.0 or a pseudo-version;
	// Devel for a build from a source tree.
	Version string
	// Revision, Time and Modified come from the version control system
	// of the tree the binary was built in (go build stamps them by
	// default; go install …@version builds from the module cache, which
	// has none). Time is RFC 3339, as the toolchain writes it.
	Revision string
	Time     string
	Modified bool
	// Go is the toolchain that built the binary, e.g. go1.26.8.
	Go string
}

// Read returns the running binary's build information.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{}
	}
	return FromBuildInfo(bi)
}

// FromBuildInfo extracts Info from what the toolchain recorded.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Module: bi.Main.Path, Version: bi.Main.Version, Go: bi.GoVersion}
	if in.Version == "" {
		in.Version = Devel
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

// String is the version line without the command's name:
//
//	v1.2.0 (github.com/contractkit/contractkit, go1.26.8)
//	v0.0.0-20261204230000-0123456789ab (github.com/contractkit/contractkit, revision 0123456789ab…, 2026-12-04T23:00:00Z, go1.26.8)
//	development build (github.com/contractkit/contractkit, revision 0123…, 2026-12-04T23:00:00Z, uncommitted changes, go1.26.8)
//
// go install …@version stamps the module version; go build in a clean
// checkout stamps its tag or a pseudo-version (Go 1.24 and later) and the
// commit. A tree with uncommitted changes, or one without version
// control, has no version of its own: the toolchain says "(devel)", and
// this says "development build", with the revision when there is one.
// A build without version control information says so, so that nobody
// takes it for a release.
func (in Info) String() string {
	if in.Module == "" {
		return "unknown build (the binary carries no module build information)"
	}
	version := in.Version
	if version == Devel {
		version = "development build"
	}
	details := []string{in.Module}
	switch {
	case in.Revision != "":
		details = append(details, "revision "+in.Revision)
		if in.Time != "" {
			details = append(details, in.Time)
		}
		if in.Modified {
			details = append(details, "uncommitted changes")
		}
	case in.Version == Devel:
		details = append(details, "no version control information")
	}
	if in.Go != "" {
		details = append(details, in.Go)
	}
	return version + " (" + strings.Join(details, ", ") + ")"
}

// Line is what a command prints for --version: its name, then String.
func Line(command string) string {
	return command + " " + Read().String()
}
