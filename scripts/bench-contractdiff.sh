#!/usr/bin/env bash
# A built contractdiff, run as users run it, RUNS times (default 5) each:
#   1. this tree: the three specs of the working tree against HEAD. No
#      spec differs, so each baseline spec is the current one, reused
#      unparsed: the cheap path;
#   2. the anchor: ANCHOR_REF's tree (default main) in a scratch git
#      repository, against its own HEAD, by this contractdiff and by
#      ANCHOR_REF's contractdiff, alternately, so that both see the same
#      load and the ratio means something on a busy machine;
#   3. every spec changed: the same scratch tree (HEAD's when there is no
#      anchor) with one edit in each of the three specs, uncommitted, so
#      both sides of every domain are parsed, checked and compared; by
#      both contractdiffs alternately when there is an anchor.
# Prints every wall time, the medians beside the target (200 ms) and the
# figure issue 12 measured before it (630 ms), the ratios and the load.
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
echo "this tree, working tree against HEAD (no spec changed: reused, not parsed twice), $runs runs (ms): ${here[*]}; median $(median "${here[@]}") ms (target 200 ms); load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scratch() { # scratch REF: REF's tree as a one-commit repository in $tmp/tree
	mkdir "$tmp/tree"
	git archive "$1" | tar -x -C "$tmp/tree"
	git -C "$tmp/tree" init -q
	git -C "$tmp/tree" add -A
	git -C "$tmp/tree" -c user.name=bench -c user.email=bench@example.com -c commit.gpgsign=false commit -q -m "$1"
}
# alternate LABEL BIN...: RUNS runs of each binary in turn on $tmp/tree
# against its HEAD; prints the times and medians, and the ratio of the
# first binary to the second.
alternate() {
	local label=$1 b i
	shift
	declare -A times=()
	for _ in $(seq "$runs"); do
		i=0
		for b in "$@"; do
			times[$i]+="$(ms "$b" --root "$tmp/tree" --baseline-git-ref HEAD) "
			i=$((i + 1))
		done
	done
	local names=("this contractdiff" "$anchor's contractdiff") meds=()
	for i in $(seq 0 $(($# - 1))); do
		# shellcheck disable=SC2086
		meds+=("$(median ${times[$i]})")
		echo "$label, ${names[$i]} (ms): ${times[$i]% }; median ${meds[$i]} ms (target 200 ms; issue 12 measured 630 ms before); load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
	done
	if [ $# -gt 1 ]; then
		awk -v a="${meds[0]}" -v b="${meds[1]}" 'BEGIN { if (b > 0) printf "ratio this/%s: %.2f\n", "'"$anchor"'", a / b }'
	fi
}

bins=("$bin")
if git rev-parse --verify --quiet "$anchor^{commit}" >/dev/null; then
	scratch "$anchor"
	(cd "$tmp/tree" && go build -o "$tmp/anchor" ./cmd/contractdiff)
	bins+=("$tmp/anchor")
	alternate "$anchor's tree against its HEAD, no spec changed" "${bins[@]}"
else
	echo "no $anchor: the anchor rows are left out; every-spec-changed runs on HEAD's tree"
	scratch HEAD
fi

# One text edit in each spec (the first English text), uncommitted: every
# domain differs from the baseline.
edited=0
for f in "$tmp"/tree/spec/*.json; do
	case $f in *.schema.json) continue ;; esac
	sed -E -i '0,/"en": *"/s//&Edited for the benchmark. /' "$f"
	edited=$((edited + 1))
done
echo "every spec changed: $edited specs edited; one run's summary: $("$bin" --root "$tmp/tree" --baseline-git-ref HEAD 2>&1 | tail -n 1)"
alternate "every spec changed against HEAD" "${bins[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
echo "cores: $(nproc 2>/dev/null || echo unknown)"
