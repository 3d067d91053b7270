package docsrun

import (
	"os"
	"path/filepath"
)

// goShim stands in for the go command inside a page's script: the pages
// say go run ./cmd/X, go build -o OUT ./cmd/X and go install
// github.com/contractkit/contractkit/cmd/X@latest, and every one of those
// gets the command built once from the checkout (DOCSRUN_BIN). go env
// GOPATH names the scratch GOPATH, where go install puts the commands.
// Anything else is refused, so that a page using go another way fails with
// a message instead of compiling behind the test's back.
const goShim = `#!/usr/bin/env bash
mod=github.com/contractkit/contractkit/cmd/
refuse() { echo "docs test: go $* is not something the test stands in for (internal/docsrun/shim.go)" >&2; exit 2; }
case "$1" in
run)
	case "$2" in ./cmd/*) n=${2#./cmd/}; shift 2; exec "$DOCSRUN_BIN/$n" "$@";; esac ;;
build)
	if [ "$#" -eq 4 ] && [ "$2" = -o ] && [ "${4#./cmd/}" != "$4" ]; then
		out=$3; [ -d "$out" ] && out=$out/${4#./cmd/}
		mkdir -p "$(dirname "$out")" && exec cp "$DOCSRUN_BIN/${4#./cmd/}" "$out"
	fi ;;
install)
	if [ "$#" -eq 2 ] && [ "${2#"$mod"}" != "$2" ] && [ "${2%@latest}" != "$2" ]; then
		n=${2#"$mod"}; n=${n%@latest}
		dest=${GOBIN:-$GOPATH/bin}; mkdir -p "$dest"
		if [ "$n" = ... ]; then exec cp "$DOCSRUN_BIN"/* "$dest/"; fi
		[ -x "$DOCSRUN_BIN/$n" ] && exec cp "$DOCSRUN_BIN/$n" "$dest/$n"
	fi ;;
env)
	if [ "$#" -eq 2 ] && [ "$2" = GOPATH ]; then echo "$GOPATH"; exit 0; fi ;;
esac
refuse "$@"
`

// writeShim writes goShim as dir/go.
func writeShim(dir string) error {
	return os.WriteFile(filepath.Join(dir, "go"), []byte(goShim), 0o755)
}
