#!/usr/bin/env bash
# Benchmarks of property editing (IDE API 1.6-1.8) on SSL 3.1, in
# process: metadata/previewProperty, metadata/updateProperty (checks, the
# atomic write with its fsyncs, history, metadata/changed, the object read
# again) and metadata/undoProperty, of the Comment of every catalog and
# document in turn. They write to a copy extracted into .cache/bench-edit
# (an ignored folder; BENCH_EDIT names another) whose support file allows
# editing, and undo every write. Prints the machine, the load average
# before and after, and the go test -bench lines with their p95.
set -euo pipefail
cd "$(dirname "$0")/.."
abs=$(./scripts/editable-ssl.sh bench-edit)
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(go version | cut -d' ' -f3-) $(nproc) CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "== load before: $(uptime | sed 's/.*load average: //')"
# The floor in the same run: a bare durable replacement of a 50 KB file,
# and the same through internal/atomicfile with all its checks.
go test -run='^$' -bench='^Benchmark(SyncRename|Replace)$' -benchmem -benchtime="${BENCHTIME:-170x}" -count="${BENCHCOUNT:-3}" ./internal/atomicfile/
ESKA_EDIT_PROJECT="$abs" go test -run='^$' -bench='^BenchmarkEdit(Preview|Update|Undo)$' -benchmem -benchtime="${BENCHTIME:-170x}" -count="${BENCHCOUNT:-3}" ./ide/metadata/
echo "== load after: $(uptime | sed 's/.*load average: //')"
