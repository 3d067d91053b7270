#!/usr/bin/env bash
# Runs the AG-UI benchmarks in COUNT rounds of one test binary — the
# checker under both profiles, in file mode (the record as one JSON array,
# and as NDJSON, the form a live stream's record takes), live (on one
# goroutine, and through livecheck's two), live over loopback beside the
# exchange alone and the cost of waking one half from the other,
# encoding/json.Valid over the same bytes (the floor, also taken in
# alternation with the check), the reference verifier on Node over the
# same bytes, and the large patch — and prints the ratios
# Docs/performance.md records, with the load average beside each round:
# the figures are only comparable within one round.
set -euo pipefail
cd "$(dirname "$0")/.."
benchtime=${BENCHTIME:-1s}
count=${COUNT:-3}
out=$(mktemp)
bin=$(mktemp)
trap 'rm -f "$out" "$bin"' EXIT
go test -c -o "$bin" ./agui/
# Rounds rather than -count: every round runs each benchmark once, so the
# figures a ratio divides were taken seconds apart, not minutes; on a
# shared machine the load drifts between the first benchmark of a
# -count run and the last. The ratios are taken inside each round.
for round in $(seq 1 "$count"); do
	echo "round $round, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	(cd agui && "$bin" -test.run=NONE -test.bench='AGUI' -test.benchmem -test.benchtime="$benchtime") | grep -E '^(Benchmark|PASS|FAIL|ok)' | tee -a "$out"
	echo "round $round, load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "ROUND" >>"$out"
done
# Medians over the rounds: the machine may be shared, and one slow round
# should not decide a ratio.
awk '
function median(name, metric,   n, i, j, t, v) {
	n = cnt[name, metric]
	for (i = 1; i <= n; i++) v[i] = val[name, metric, i]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return n == 0 ? 0 : (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2)
}
function ratio(key, a, b,   n) { if (b > 0 && a > 0) { n = ++cnt[key, "x"]; val[key, "x", n] = a / b } }
/^BenchmarkAGUI/ {
	name = $1; sub(/-[0-9]+$/, "", name); sub(/^BenchmarkAGUI/, "", name)
	for (i = 3; i < NF; i += 2) { m = $(i + 1); k = ++cnt[name, m]; val[name, m, k] = $i; cur[name, m] = $i }
}
/^ROUND/ {
	split("CheckStand Check11 CheckLinesStand CheckLines11 LiveStand Live11 ReadBodyStand ReadBody11 LoopbackStand Loopback11", all, " ")
	for (k = 1; k <= 10; k++) ratio(all[k] "/Valid", cur[all[k], "MB/s"], cur["JSONValidFloor", "MB/s"])
	ratio("LiveStand/file", cur["LiveStand", "MB/s"], cur["CheckStand", "MB/s"])
	ratio("Live11/file", cur["Live11", "MB/s"], cur["Check11", "MB/s"])
	ratio("LoopbackStand/file", cur["LoopbackStand", "MB/s"], cur["CheckStand", "MB/s"])
	ratio("Loopback11/file", cur["Loopback11", "MB/s"], cur["Check11", "MB/s"])
	ratio("ReadBodyStand/file", cur["ReadBodyStand", "MB/s"], cur["CheckStand", "MB/s"])
	ratio("ReadBody11/file", cur["ReadBody11", "MB/s"], cur["Check11", "MB/s"])
	# The same, against the file mode on the record as NDJSON: event for
	# event what a live stream is, and what --save writes.
	ratio("LoopbackStand/lines", cur["LoopbackStand", "MB/s"], cur["CheckLinesStand", "MB/s"])
	ratio("Loopback11/lines", cur["Loopback11", "MB/s"], cur["CheckLines11", "MB/s"])
	ratio("CheckLinesStand/file", cur["CheckLinesStand", "MB/s"], cur["CheckStand", "MB/s"])
	ratio("CheckLines11/file", cur["CheckLines11", "MB/s"], cur["Check11", "MB/s"])
	# The most a checker as fast as the file mode reaches over loopback:
	# the exchange (the floor) and the check, one after the other.
	floor = cur["LoopbackFloor", "MB/s"]
	if (floor > 0) {
		ratio("CeilingStand/file", 1 / (1 / cur["CheckStand", "MB/s"] + 1 / floor), cur["CheckStand", "MB/s"])
		ratio("Ceiling11/file", 1 / (1 / cur["Check11", "MB/s"] + 1 / floor), cur["Check11", "MB/s"])
	}
	ratio("CheckStand/Node", cur["CheckStand", "MB/s"], cur["NodeReference", "node-MB/s"])
	ratio("Check11/Node", cur["Check11", "MB/s"], cur["NodeReference", "node-MB/s"])
	delete cur
}
END {
	print "\nMedians over the rounds; the ratios are medians of the ratios taken inside each round."
	valid = median("JSONValidFloor", "MB/s"); node = median("NodeReference", "node-MB/s")
	printf "\n%-24s %10s %12s %12s %12s %10s %10s\n", "", "MB/s", "events/s", "allocs/event", "B/event", "x Valid", "x Node"
	split("CheckStand Check11", names, " ")
	for (k = 1; k <= 2; k++) {
		n = names[k]; mb = median(n, "MB/s")
		printf "%-24s %10.1f %12.0f %12.2f %12.0f %10.2f %10.1f\n", n, mb, median(n, "events/s"), median(n, "allocs/event"), median(n, "B/event"), median(n "/Valid", "x"), median(n "/Node", "x")
	}
	beside = median("CheckBesideValidStand", "x-Valid")
	if (beside) {
		printf "%-24s %10s %12s %12s %12s %10.2f %10s  stand; ag-ui-1.1 %.2f: the same ratio taken in alternation, in one benchmark (blocks of 64 checks, then 64 Valid runs)\n", "Check beside Valid", "", "", "", "", beside, "", median("CheckBesideValid11", "x-Valid")
	}
	split("CheckLinesStand:CheckStand CheckLines11:Check11", forms, " ")
	for (k = 1; k <= 2; k++) {
		split(forms[k], pair, ":"); mb = median(pair[1], "MB/s")
		if (!mb) continue
		printf "%-24s %10.1f %12s %12.2f %12.0f %10.2f %10s  %.2f x file (the record as NDJSON, an event a line)\n", pair[1], mb, "", median(pair[1], "allocs/event"), median(pair[1], "B/event"), median(pair[1] "/Valid", "x"), "", median(pair[1] "/file", "x")
	}
	split("LiveStand:CheckStand Live11:Check11", lives, " ")
	for (k = 1; k <= 2; k++) {
		split(lives[k], pair, ":"); mb = median(pair[1], "MB/s"); file = median(pair[2], "MB/s")
		printf "%-24s %10.1f %12s %12.2f %12.0f %10.2f %10s  %.2f x file\n", pair[1], mb, "", median(pair[1], "allocs/event"), median(pair[1], "B/event"), median(pair[1] "/Valid", "x"), "", median(pair[1] "/file", "x")
	}
	split("ReadBodyStand:CheckStand ReadBody11:Check11", bodies, " ")
	for (k = 1; k <= 2; k++) {
		split(bodies[k], pair, ":"); mb = median(pair[1], "MB/s")
		if (!mb) continue
		printf "%-24s %10.1f %12s %12.2f %12.0f %10.2f %10s  %.2f x file (live, in memory, read and checked side by side)\n", pair[1], mb, "", median(pair[1], "allocs/event"), median(pair[1], "B/event"), median(pair[1] "/Valid", "x"), "", median(pair[1] "/file", "x")
	}
	split("LoopbackStand:CheckStand Loopback11:Check11", loops, " ")
	for (k = 1; k <= 2; k++) {
		split(loops[k], pair, ":"); mb = median(pair[1], "MB/s"); file = median(pair[2], "MB/s")
		if (!mb) continue
		printf "%-24s %10.1f %12s %12.2f %12.0f %10.2f %10s  %.2f x file, %.2f x file as NDJSON, heap %.1f MB, %.2f cores busy, %.0f µs a run request (100 MB, 600 streams, one connection)\n", pair[1], mb, "", median(pair[1], "allocs/event"), median(pair[1], "B/event"), median(pair[1] "/Valid", "x"), "", median(pair[1] "/file", "x"), median(pair[1] "/lines", "x"), median(pair[1], "heap-MB"), median(pair[1], "cpus"), median(pair[1], "request-µs")
	}
	floor = median("LoopbackFloor", "MB/s")
	if (floor) {
		printf "%-24s %10.1f %12s %12s %12s %10s %10s  the exchange alone: %.2f ms per stream; a checker as fast as the file mode reaches at most %.2f x file (stand), %.2f x file (1.1) over it\n", "LoopbackFloor", floor, "", "", "", "", "", median("LoopbackFloor", "ns/op") / 600 / 1e6, median("CeilingStand/file", "x"), median("Ceiling11/file", "x")
	}
	wake = median("HandoffWake", "wake-µs")
	if (wake) {
		printf "%-24s %10.0f µs for a goroutine woken by a hand-over to run while its waker works on (median; %.0f µs at the 90th percentile)\n", "HandoffWake", wake, median("HandoffWake", "wake-p90-µs")
	}
	printf "%-24s %10.1f %12.0f\n", "encoding/json.Valid", valid, median("JSONValidFloor", "events/s")
	printf "%-24s %10.2f %12.0f\n", "@ag-ui/client on Node", node, median("NodeReference", "node-events/s")
	printf "%-24s %10.1f ms per check (3,716 replaces on 15,000 members)\n", "PatchReplaces", median("PatchReplaces", "ns/op") / 1e6
}' "$out"
