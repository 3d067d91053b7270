#!/usr/bin/env bash
# Runs every fuzz target of the module for $FUZZTIME (default 2m) each and
# prints a line per target with its result. go test can fuzz one target of
# one package at a time, so the targets are listed first.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-2m}
status=0
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "== $pkg $target ($fuzztime)"
		if ! go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg"; then
			echo "FAILED: $pkg $target"
			status=1
		fi
	done
done
exit $status
