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
archive=../shared/corpus/designer/ssl_3_1.tar.gz
root=${BENCH_EDIT:-.cache/bench-edit}
if [ ! -f "$root/ssl_3_1/src/cf/Configuration.xml" ]; then
	[ -f "$archive" ] || { echo "bench-edit: $archive not found (../shared must be beside the repository)"; exit 1; }
	mkdir -p "$root"
	tar -xzf "$archive" -C "$root"
fi
printf '[project]\ntype = "configuration"\nsource = "src/cf"\n' > "$root/ssl_3_1/eska.toml"
# The configuration's change mode: 0 allows editing while every rule keeps
# the vendor's support (SSL is exported with 1, everything locked).
bin="$root/ssl_3_1/src/cf/Ext/ParentConfigurations.bin"
python3 - "$bin" <<'PY'
import sys
p = sys.argv[1]
b = open(p, 'rb').read()
head = b'\xef\xbb\xbf{6,'
assert b.startswith(head), 'not a support file'
open(p, 'wb').write(head + b'0' + b[len(head) + 1:])
PY
abs=$(cd "$root/ssl_3_1" && pwd)
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(go version | cut -d' ' -f3-) $(nproc) CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "== load before: $(uptime | sed 's/.*load average: //')"
# The floor in the same run: a bare durable replacement of a 50 KB file,
# and the same through internal/atomicfile with all its checks.
go test -run='^$' -bench='^Benchmark(SyncRename|Replace)$' -benchmem -benchtime="${BENCHTIME:-170x}" -count="${BENCHCOUNT:-3}" ./internal/atomicfile/
ESKA_EDIT_PROJECT="$abs" go test -run='^$' -bench='^BenchmarkEdit(Preview|Update|Undo)$' -benchmem -benchtime="${BENCHTIME:-170x}" -count="${BENCHCOUNT:-3}" ./ide/metadata/
echo "== load after: $(uptime | sed 's/.*load average: //')"
