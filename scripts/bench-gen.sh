#!/usr/bin/env bash
# gen --check as users run it, on all specs of a tree that is up to date,
# beside the anchor (ANCHOR_REF, default main) in the same run:
#   anchor       ANCHOR_REF's built gen on ANCHOR_REF's tree
#   anchor-cold  the same with --no-cache: ANCHOR_REF's full generation
#   cold         this tree's built gen with --no-cache: a full generation
#   warm         this tree's built gen after a generation it can verify
#   go run       `go run ./cmd/gen --check` with the build cached, warm
#   go run anchor the same in ANCHOR_REF's tree
# Each is run RUNS times (default 9), interleaved so that all see the same
# load; prints wall and CPU (user+system) milliseconds, medians, ratios to
# the anchor, peak RSS and the load average before and after.
# Usage: bench-gen.sh [RUNS]
set -euo pipefail
runs=${1:-9}
anchor=${ANCHOR_REF:-main}
cd "$(dirname "$0")/.."
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CONTRACTKIT_GEN_CACHE="$tmp/cache"

# one KIND CMD...: run once, append "wall cpu rss" (ms, ms, KB) to $tmp/r.KIND.
one() {
	local kind=$1
	shift
	/usr/bin/time -f "%e %U %S %M %x" -o "$tmp/t" "$@" >/dev/null 2>&1 || true
	# a run that failed measured something else: say so rather than average it in
	if [ "$(awk '{ print $5 }' "$tmp/t")" != 0 ]; then
		echo "$kind: $* exited $(awk '{ print $5 }' "$tmp/t"), not counted" >&2
		return
	fi
	awk '{ printf "%d %d %d\n", $1 * 1000, ($2 + $3) * 1000, $4 }' "$tmp/t" >>"$tmp/r.$kind"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
col() { awk -v c="$2" '{ print $c }' "$tmp/r.$1"; }

go build -o "$tmp/gen" ./cmd/gen
have_anchor=
if git rev-parse --verify --quiet "$anchor^{commit}" >/dev/null; then
	mkdir "$tmp/tree"
	git archive "$anchor" | tar -x -C "$tmp/tree"
	ln -s "$root/../shared" "$tmp/shared" 2>/dev/null || true
	(cd "$tmp/tree" && go build -o "$tmp/anchor" ./cmd/gen) && have_anchor=1
fi

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$tmp/gen" --check --quiet --root "$root" >/dev/null 2>&1 || {
	echo "this tree is not up to date: run make generate first" >&2
	exit 1
}
(go run ./cmd/gen --check --quiet >/dev/null 2>&1) || true # build once for go run
if [ -n "$have_anchor" ]; then (cd "$tmp/tree" && go run ./cmd/gen --check --quiet >/dev/null 2>&1) || true; fi
for _ in $(seq "$runs"); do
	[ -n "$have_anchor" ] && one anchor "$tmp/anchor" --check --quiet --root "$tmp/tree"
	[ -n "$have_anchor" ] && one anchor-cold "$tmp/anchor" --check --quiet --no-cache --root "$tmp/tree"
	one cold "$tmp/gen" --check --quiet --no-cache --root "$root"
	one warm "$tmp/gen" --check --quiet --root "$root"
	one gorun go run ./cmd/gen --check --quiet
	[ -n "$have_anchor" ] && (cd "$tmp/tree" && one gorun-anchor go run ./cmd/gen --check --quiet)
done

printf '%-14s %-44s %-44s %s\n' "run" "wall ms (median)" "cpu ms (median)" "peak RSS KB (median)"
for kind in anchor anchor-cold cold warm gorun gorun-anchor; do
	[ -f "$tmp/r.$kind" ] || continue
	printf '%-14s %-44s %-44s %s\n' "$kind" "$(col "$kind" 1 | tr '\n' ' ')($(col "$kind" 1 | median))" \
		"$(col "$kind" 2 | tr '\n' ' ')($(col "$kind" 2 | median))" "$(col "$kind" 3 | median)"
done
if [ -f "$tmp/r.anchor" ]; then
	a=$(col anchor 1 | median) ac=$(col anchor 2 | median)
	for kind in cold warm; do
		awk -v k="$kind" -v w="$(col "$kind" 1 | median)" -v c="$(col "$kind" 2 | median)" -v a="$a" -v ac="$ac" -v an="$anchor" \
			'BEGIN { printf "ratio %s/%s: wall %.2f, cpu %.2f\n", k, an, w / a, c / ac }'
	done
	# A full generation against the anchor's full generation: what this
	# tree adds to the work (issue 24 budgets the bindings at 1.3).
	awk -v w="$(col cold 1 | median)" -v c="$(col cold 2 | median)" -v a="$(col anchor-cold 1 | median)" -v ac="$(col anchor-cold 2 | median)" -v an="$anchor" \
		'BEGIN { printf "ratio cold/%s cold (full generation): wall %.2f, cpu %.2f (budget 1.30)\n", an, w / a, c / ac }'
	awk -v w="$(col gorun 1 | median)" -v a="$(col gorun-anchor 1 | median)" -v an="$anchor" \
		'BEGIN { printf "ratio go run/%s go run: wall %.2f\n", an, w / a }'
fi
echo "target: 200 ms wall for the built binary"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "cores: $(nproc)"
