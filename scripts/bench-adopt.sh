#!/usr/bin/env bash
# bench-adopt.sh [RUNS]: whole-process wall times of a built gen on a new
# module, RUNS times each (default 5), median: gen init in an empty module,
# gen --write on the starter spec it wrote (a first generation), and gen
# --check --no-cache on the result (a full generation compared with the
# tree). The anchor is gen config-schema, the same binary's start-up and
# exit; each figure is also given as a ratio to it. Budgets (issue 23):
# gen init <= 50 ms, gen on the starter spec <= 100 ms.
set -euo pipefail
runs=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/gen" ./cmd/gen)
export CONTRACTKIT_GEN_CACHE=off

# ms runs a command in a folder and prints its wall and CPU (user+system)
# times in microseconds.
ms() {
	local dir=$1; shift
	local TIMEFORMAT='%3R %3U %3S' t
	t=$( { time (cd "$dir" && "$@" >/dev/null 2>&1); } 2>&1)
	echo "$t" | awk '{printf "%d/%d\n", $1*1000000, ($2+$3)*1000000}'
}
# median of the wall (field 1) or CPU (field 2) times, in milliseconds.
median() { cut -d/ -f"$1" | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m/1000}'; }

anchor=() init=() write=() check=()
for i in $(seq "$runs"); do
	d="$tmp/m$i"
	mkdir "$d"
	printf 'module example.com/game\n\ngo 1.26\n' >"$d/go.mod"
	anchor+=("$(ms "$d" "$tmp/gen" config-schema)")
	init+=("$(ms "$d" "$tmp/gen" init)")
	write+=("$(ms "$d" "$tmp/gen" --write --quiet)")
	check+=("$(ms "$d" "$tmp/gen" --check --quiet --no-cache)")
done
a=$(printf '%s\n' "${anchor[@]}" | median 1)
report() {
	local name=$1 budget=$2; shift 2
	local m c
	m=$(printf '%s\n' "$@" | median 1)
	c=$(printf '%s\n' "$@" | median 2)
	awk -v n="$name" -v m="$m" -v c="$c" -v a="$a" -v b="$budget" 'BEGIN {printf "%-34s wall %6.1f ms  %4.1fx the anchor  cpu %6.1f ms  budget %s ms: %s\n", n, m, m/a, c, b, (m <= b) ? "within" : "OVER"}'
}
echo "gen on a new module, median of $runs runs each; load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
printf '%-34s wall %6.1f ms  (the anchor: start-up and exit)\n' "gen config-schema" "$a"
report "gen init" 50 "${init[@]}"
report "gen --write (starter spec)" 100 "${write[@]}"
report "gen --check --no-cache (starter)" 100 "${check[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
