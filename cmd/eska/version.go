package main

// How this build was made. make eska-release sets all three with
// -ldflags "-X main.version=... -X main.releaseKey=... -X main.updateURL=...";
// a plain `go build` keeps the source values, with no release key, so
// `eska update` says it cannot verify a release instead of trusting one.
var (
	// version is this build of eska, reported by initialize and --version.
	version = "0.1.0"
	// releaseKey is the public half of the release signing key, in
	// minisign's base64 form.
	releaseKey = ""
	// updateURL is the release channel's manifest; ESKA_UPDATE_URL
	// overrides it (a mirror, or a test's server).
	updateURL = ""
)
