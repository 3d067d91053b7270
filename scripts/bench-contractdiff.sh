#!/usr/bin/env bash
# A built contractdiff, run as users run it, RUNS times (default 5) each:
#   1. this tree: the three specs of the working tree against HEAD;
#   2. the anchor: ANCHOR_REF's tree (default main) in a scratch git
#      repository, against its own HEAD, by this contractdiff and by
#      ANCHOR_REF's contractdiff, alternately, so that both see the same
#      load and the ratio means something on a busy machine.
# Prints every wall time, the medians, the ratio and the load average.
# Usage: bench-contractdiff.sh BINARY [RUNS]
set -euo pipefail
bin=$(realpath "$1")
runs=${2:-5}
anchor=${ANCHOR_REF:-main}
cd "$(dirname "$0")/.."
root=$(pwd)

ms() { # ms CMD...: the wall time of one run in milliseconds
	local start end
	start=$(date +%s%N)
	"$@" >/dev/null 2>&1 || true
	end=$(date +%s%N)
	echo $(( (end - start) / 1000000 ))
}
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
"$bin" --root "$root" --baseline-git-ref HEAD >/dev/null 2>&1 || true # warm the file cache
here=()
for _ in $(seq "$runs"); do here+=("$(ms "$bin" --root "$root" --baseline-git-ref HEAD)"); done
echo "this tree, working tree against HEAD, $runs runs (ms): ${here[*]}; median $(median "${here[@]}") ms (target 200 ms)"

if git rev-parse --verify --quiet "$anchor^{commit}" >/dev/null; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir "$tmp/tree"
	git archive "$anchor" | tar -x -C "$tmp/tree"
	(cd "$tmp/tree" && go build -o "$tmp/anchor" ./cmd/contractdiff)
	git -C "$tmp/tree" init -q
	git -C "$tmp/tree" add -A
	git -C "$tmp/tree" -c user.name=bench -c user.email=bench@example.com -c commit.gpgsign=false commit -q -m "$anchor"
	new=() old=()
	for _ in $(seq "$runs"); do
		new+=("$(ms "$bin" --root "$tmp/tree" --baseline-git-ref HEAD)")
		old+=("$(ms "$tmp/anchor" --root "$tmp/tree" --baseline-git-ref HEAD)")
	done
	mn=$(median "${new[@]}") mo=$(median "${old[@]}")
	echo "$anchor's tree against its HEAD, this contractdiff (ms): ${new[*]}; median $mn ms"
	echo "$anchor's tree against its HEAD, $anchor's contractdiff (ms): ${old[*]}; median $mo ms"
	awk -v a="$mn" -v b="$mo" 'BEGIN { if (b > 0) printf "ratio this/%s: %.2f\n", "'"$anchor"'", a / b }'
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
echo "cores: $(nproc 2>/dev/null || echo unknown)"
