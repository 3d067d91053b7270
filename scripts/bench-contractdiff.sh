#!/usr/bin/env bash
# A built contractdiff, run as users run it: the three specs of the working
# tree against HEAD, RUNS times; prints every wall time, the median and the
# load average beside them (the machine may be shared: compare runs made
# at the same load). Usage: bench-contractdiff.sh BINARY [RUNS]
set -euo pipefail
bin=$1
runs=${2:-5}
cd "$(dirname "$0")/.."
"$bin" --baseline-git-ref HEAD >/dev/null # warm the file cache
times=()
for _ in $(seq "$runs"); do
	start=$(date +%s%N)
	"$bin" --baseline-git-ref HEAD >/dev/null
	end=$(date +%s%N)
	times+=($(( (end - start) / 1000000 )))
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
median=${sorted[$(( runs / 2 ))]}
echo "contractdiff, 3 specs, working tree against HEAD, $runs runs (ms): ${times[*]}"
echo "median ${median} ms; target 200 ms"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
echo "cores: $(nproc 2>/dev/null || echo unknown)"
