#!/usr/bin/env bash
# Benchmarks of rename (IDE API 1.9) on SSL 3.1, in process: the floor
# (reading every XML and BSL file once), metadata/renamePreview and
# metadata/renameApply of the most referenced catalog,
# ИдентификаторыОбъектовМетаданных (ESKA_RENAME_OBJECT names another).
# They write to the editable copy make bench-edit uses (.cache/bench-edit,
# or BENCH_EDIT), rename the object to a new name and back, and leave it
# as found. Prints the machine, the load average before and after, and
# the go test -bench lines with their p95 and the plan's size.
set -euo pipefail
cd "$(dirname "$0")/.."
abs=$(./scripts/editable-ssl.sh bench-rename)
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(go version | cut -d' ' -f3-) $(nproc) CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "== load before: $(uptime | sed 's/.*load average: //')"
ESKA_EDIT_PROJECT="$abs" go test -run='^$' -bench='^BenchmarkRename(Floor|Preview)$' -benchmem -benchtime="${BENCHTIME:-10x}" -count="${BENCHCOUNT:-3}" ./ide/metadata/
echo "== load between: $(uptime | sed 's/.*load average: //')"
ESKA_EDIT_PROJECT="$abs" go test -run='^$' -bench='^BenchmarkRenameApply$' -benchmem -benchtime="${APPLYTIME:-6x}" -count="${BENCHCOUNT:-3}" ./ide/metadata/
echo "== load after: $(uptime | sed 's/.*load average: //')"
