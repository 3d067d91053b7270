#!/usr/bin/env bash
# The second pass of make test: the tests the race pass leaves out, those
# in files built only without the race detector (a //go:build line with
# !race). They are either bounds the detector would distort (the heap
# bound of hostile AiControl peers) or long single-threaded work it slows
# many times and can find nothing in. Each one must pass here: a test that
# did not run, or skipped, fails the pass.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
status=0
while read -r dir; do
	files=$(grep -l -E '^//go:build .*!race' "$dir"/*_test.go 2>/dev/null || true)
	[ -n "$files" ] || continue
	# shellcheck disable=SC2086 # one word per file
	names=$(sed -n -E 's/^func (Test[A-Za-z0-9_]*)\(t \*testing\.T\).*/\1/p' $files | sort -u)
	[ -n "$names" ] || continue
	pkg=./${dir#"$root"/}
	re="^($(echo $names | tr ' ' '|'))\$"
	if ! out=$(go test -count=1 -run "$re" -v "$pkg" 2>&1); then
		echo "$out"
		status=1
		continue
	fi
	echo "$out" | grep -E -- '^--- |heap:|^ok' || true
	for n in $names; do
		if ! echo "$out" | grep -q -- "^--- PASS: $n "; then
			echo "norace-tests: $pkg $n did not pass"
			status=1
		fi
	done
done < <(go list -f '{{.Dir}}' ./...)
exit $status
