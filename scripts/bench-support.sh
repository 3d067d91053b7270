#!/usr/bin/env bash
# Benchmarks of the vendor support data (IDE API 1.2-1.3) on SSL 3.1:
# parsing its ParentConfigurations.bin, the first metadata/support page
# (the walk over every descriptor) and metadata/supportFiles for 128
# mixed paths, in process. SSL is extracted once into .cache/bench (an
# ignored folder) unless BENCH_SSL names an extracted copy. Prints what
# Docs/performance.md records: the machine, the load average before and
# after, and the go test -bench lines.
set -euo pipefail
cd "$(dirname "$0")/.."
archive=../shared/corpus/designer/ssl_3_1.tar.gz
root=${BENCH_SSL:-.cache/bench}
if [ ! -f "$root/ssl_3_1/src/cf/Configuration.xml" ]; then
	[ -f "$archive" ] || { echo "bench-support: $archive not found (../shared must be beside the repository)"; exit 1; }
	mkdir -p "$root"
	tar -xzf "$archive" -C "$root"
fi
printf '[project]\ntype = "configuration"\nsource = "src/cf"\n' > "$root/ssl_3_1/eska.toml"
abs=$(cd "$root" && pwd)
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(go version | cut -d' ' -f3-) $(nproc) CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "== load before: $(uptime | sed 's/.*load average: //')"
count=${BENCHCOUNT:-5}
DESIGNER_CORPUS="$abs" go test -run='^$' -bench='^BenchmarkParseSupport$' -benchmem -count="$count" ./designer/
ESKA_BENCH_PROJECT="$abs/ssl_3_1" go test -run='^$' -bench='^BenchmarkSupportFiles$' -benchmem -benchtime="${BENCHTIME:-200x}" -count="$count" ./ide/metadata/
# The first page walks every descriptor: a few runs are enough.
ESKA_BENCH_PROJECT="$abs/ssl_3_1" go test -run='^$' -bench='^BenchmarkSupportInventory$' -benchmem -benchtime=3x -count="$count" ./ide/metadata/
echo "== load after: $(uptime | sed 's/.*load average: //')"
