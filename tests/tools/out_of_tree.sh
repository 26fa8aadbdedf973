#!/bin/sh
# Installs tracepipe into a scratch prefix, builds the example plugin of
# docs/examples/top_names against the installed headers via pkg-config (no
# access to core/), and runs it through the installed `pipeline`.
set -eu
BUILD=${1:-build}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
make -s install PREFIX="$prefix" BUILD="$BUILD" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
work="$prefix/plugin-src"
mkdir -p "$work"
cp docs/examples/top_names/top_names.c "$work/"
( cd "$work" && cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
    -Wl,--no-undefined $(pkg-config --cflags tracepipe) -o top_names.so top_names.c $(pkg-config --libs tracepipe) )
out=$("$prefix/bin/pipeline" run docs/examples/top_names/top_names.yaml -q --plugin-dir "$work")
name_count=$(printf '%s\n' "$out" | sed -n 2p | cut -d, -f1-2)
[ "$(printf '%s\n' "$out" | head -1)" = "name,count,total_us,percent" ] || { echo "out-of-tree: bad header: $out"; exit 1; }
test -f "$prefix/share/man/man1/pipeline.1" || { echo "out-of-tree: man page not installed"; exit 1; }
test -f "$prefix/include/tracepipe/tp_plugin.h" || { echo "out-of-tree: headers not installed"; exit 1; }
echo "out-of-tree: $name_count"
printf '%s\n' "$out" > "$prefix/top.csv"
python3 - "$prefix/top.csv" tests/data/dlrm_worker0_step12.pt.trace.json.gz <<'PY'
import csv, gzip, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ev = json.load(gzip.open(sys.argv[2]))["traceEvents"]
tot = {}
for e in ev:
    if e.get("cat") == "kernel" and e.get("ph") == "X":
        t = tot.setdefault(e["name"], [0, 0]); t[0] += e["dur"]; t[1] += 1
allsum = sum(v[0] for v in tot.values())
top = sorted(tot.items(), key=lambda kv: (-kv[1][0], kv[0]))[:3]
assert len(rows) == 3, rows
for r, (name, (dur, cnt)) in zip(rows, top):
    assert r["name"] == name and int(r["count"]) == cnt, (r, name, cnt)
    assert abs(float(r["total_us"]) - dur) < 1e-9 and abs(float(r["percent"]) - 100 * dur / allsum) < 1e-9
print("out-of-tree: 1 passed, 0 failed")
PY
