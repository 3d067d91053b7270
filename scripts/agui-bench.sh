#!/usr/bin/env bash
# Runs the AG-UI benchmarks in one go test run — the checker under both
# profiles, encoding/json.Valid over the same bytes (the floor), the
# reference verifier on Node over the same bytes, and the large patch —
# and prints the ratios Docs/performance.md records, with the load average
# beside them: the figures are only comparable within one run.
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${BENCHTIME:-1s}
count=${COUNT:-3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "load before: $(uptime)"
go test -run=NONE -bench='AGUI' -benchmem -benchtime="$benchtime" -count="$count" ./agui/ | tee "$out"
echo "load after:  $(uptime)"
# Medians over the runs: the machine may be shared, and one slow run
# should not decide a ratio.
awk '
function median(name, metric,   n, i, j, t, v) {
	n = cnt[name, metric]
	for (i = 1; i <= n; i++) v[i] = val[name, metric, i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return n == 0 ? 0 : (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2)
}
/^BenchmarkAGUI/ {
	name = $1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkAGUI/, "", name)
	for (i = 3; i < NF; i += 2) { m = $(i + 1); k = ++cnt[name, m]; val[name, m, k] = $i }
}
END {
	valid = median("JSONValidFloor", "MB/s"); node = median("NodeReference", "node-MB/s")
	printf "\n%-24s %10s %12s %12s %12s %10s %10s\n", "", "MB/s", "events/s", "allocs/event", "B/event", "x Valid", "x Node"
	split("CheckStand Check11", names, " ")
	for (k = 1; k <= 2; k++) {
		n = names[k]; mb = median(n, "MB/s")
		printf "%-24s %10.1f %12.0f %12.2f %12.0f %10.2f %10.1f\n", n, mb, median(n, "events/s"), median(n, "allocs/event"), median(n, "B/event"), (valid ? mb / valid : 0), (node ? mb / node : 0)
	}
	split("LiveStand:CheckStand Live11:Check11", lives, " ")
	for (k = 1; k <= 2; k++) {
		split(lives[k], pair, ":"); mb = median(pair[1], "MB/s"); file = median(pair[2], "MB/s")
		printf "%-24s %10.1f %12s %12.2f %12.0f %10.2f %10s  %.2f x file\n", pair[1], mb, "", median(pair[1], "allocs/op") / 1994, median(pair[1], "B/op") / 1994, (valid ? mb / valid : 0), "", (file ? mb / file : 0)
	}
	printf "%-24s %10.1f %12.0f\n", "encoding/json.Valid", valid, median("JSONValidFloor", "events/s")
	printf "%-24s %10.2f %12.0f\n", "@ag-ui/client on Node", node, median("NodeReference", "node-events/s")
	printf "%-24s %10.1f ms per check (3,716 replaces on 15,000 members)\n", "PatchReplaces", median("PatchReplaces", "ns/op") / 1e6
}' "$out"
