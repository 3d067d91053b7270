#!/usr/bin/env bash
# apicheck.sh [--root DIR] [BASE]: fail when the exported API of the public
# runtime packages (runtime/genrt, runtime/strictjson: what generated code
# imports) changed incompatibly since BASE. BASE defaults to the merge-base
# of HEAD with origin/main (else main); on main itself, HEAD~1. A package
# BASE does not have yet is new and has nothing to break.
#
# The comparison is golang.org/x/exp/cmd/apidiff, fetched through the
# module proxy at a pinned version: it writes the export data of each
# package at BASE (a git archive of BASE in a temporary folder) and lists
# the incompatible changes of the working tree against it.
#
# Exit codes: 0 compatible, 1 an incompatible change, 2 the check could not
# run (not a git repository, apidiff unavailable), 3 no baseline (HEAD has
# no parent, or the clone is too shallow to have one).
set -euo pipefail
APIDIFF=golang.org/x/exp/cmd/apidiff@v0.0.0-20261120182113-8801fbdfac81
PACKAGES="runtime/genrt runtime/strictjson"

root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = "--root" ]; then root=$(cd "$2" && pwd); shift 2; fi
base=${1:-}
cd "$root"
module=$(go list -m)

if [ -z "$base" ]; then
	head=$(git rev-parse --verify --quiet HEAD) || { echo "apicheck: no commit in $root" >&2; exit 2; }
	for b in origin/main main; do
		if mb=$(git merge-base HEAD "$b" 2>/dev/null); then
			[ "$mb" != "$head" ] && base=$mb
			break
		fi
	done
	if [ -z "$base" ]; then
		base=$(git rev-parse --verify --quiet HEAD~1) || { echo "apicheck: HEAD has no parent (or the clone is shallow): nothing to compare with" >&2; exit 3; }
	fi
fi
base=$(git rev-parse --verify --quiet "$base^{commit}") || { echo "apicheck: $1 is not a commit" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! GOBIN="$tmp/bin" GOFLAGS=-mod=mod go install "$APIDIFF" >"$tmp/install.log" 2>&1; then
	echo "apicheck: cannot install $APIDIFF:" >&2
	cat "$tmp/install.log" >&2
	exit 2
fi
mkdir "$tmp/old"
git archive "$base" | tar -x -C "$tmp/old"

status=0
for pkg in $PACKAGES; do
	if [ ! -d "$tmp/old/$pkg" ]; then
		echo "apicheck: $pkg is new since ${base:0:12}"
		continue
	fi
	api="$tmp/$(echo "$pkg" | tr / _).api"
	if ! (cd "$tmp/old" && "$tmp/bin/apidiff" -w "$api" "$module/$pkg"); then
		echo "apicheck: cannot read $pkg at ${base:0:12}" >&2
		exit 2
	fi
	if ! out=$("$tmp/bin/apidiff" -incompatible "$api" "$module/$pkg" 2>&1); then
		echo "apicheck: $pkg of the working tree does not load:"
		echo "$out" | sed 's/^/  /'
		status=1
	elif [ -n "$out" ]; then
		echo "apicheck: $pkg changed incompatibly since ${base:0:12}:"
		echo "$out" | sed 's/^/  /'
		status=1
	else
		echo "apicheck: $pkg compatible with ${base:0:12}"
	fi
done
exit $status
