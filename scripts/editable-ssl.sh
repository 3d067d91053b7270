#!/usr/bin/env bash
# Prints the absolute path of an editable copy of SSL 3.1, extracting it
# into .cache/bench-edit (an ignored folder; BENCH_EDIT names another) the
# first time. The copy gets an eska.toml and its support file's change
# mode set to 0, which allows editing while every rule keeps the vendor's
# support (SSL is exported with 1, everything locked). Used by
# bench-edit.sh and bench-rename.sh; $1 names the caller in its errors.
set -euo pipefail
cd "$(dirname "$0")/.."
who=${1:-editable-ssl}
archive=../shared/corpus/designer/ssl_3_1.tar.gz
root=${BENCH_EDIT:-.cache/bench-edit}
if [ ! -f "$root/ssl_3_1/src/cf/Configuration.xml" ]; then
	[ -f "$archive" ] || { echo "$who: $archive not found (../shared must be beside the repository)" >&2; exit 1; }
	mkdir -p "$root"
	tar -xzf "$archive" -C "$root"
fi
printf '[project]\ntype = "configuration"\nsource = "src/cf"\n' > "$root/ssl_3_1/eska.toml"
bin="$root/ssl_3_1/src/cf/Ext/ParentConfigurations.bin"
python3 - "$bin" <<'PY'
import sys
p = sys.argv[1]
b = open(p, 'rb').read()
head = b'\xef\xbb\xbf{6,'
assert b.startswith(head), 'not a support file'
open(p, 'wb').write(head + b'0' + b[len(head) + 1:])
PY
cd "$root/ssl_3_1" && pwd
