#!/bin/sh
# Installs tracepipe into a scratch prefix, builds the example plugins of
# docs/examples (top_names: the plugin ABI only; stream_busy: extension
# columns, trace info and the SDK's intervals and JSON access) against the
# installed headers and SDK via pkg-config (no access to core/), runs them
# through the installed `pipeline` and checks their numbers against Python.
set -eu
BUILD=${1:-build}
prefix=$(mktemp -d)
chmod 755 "$prefix" # plugin folders must not be world-writable (docs/robustness.md)
trap 'rm -rf "$prefix"' EXIT
make -s install PREFIX="$prefix" BUILD="$BUILD" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
work="$prefix/plugin-src"
mkdir -p "$work"
cp docs/examples/top_names/top_names.c "$work/"
cp docs/examples/stream_busy/stream_busy.c "$work/"
cp docs/examples/linear_model/linear_model.c "$work/"
for p in top_names stream_busy linear_model; do
    ( cd "$work" && cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
        -Wl,--no-undefined $(pkg-config --cflags tracepipe) -o $p.so $p.c $(pkg-config --libs tracepipe) )
done
out=$("$prefix/bin/pipeline" run docs/examples/top_names/top_names.yaml -q --plugin-dir "$work")
name_count=$(printf '%s\n' "$out" | sed -n 2p | cut -d, -f1-2)
[ "$(printf '%s\n' "$out" | head -1)" = "name,count,total_us,percent,rank" ] || { echo "out-of-tree: bad header: $out"; exit 1; }
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
"$prefix/bin/pipeline" run docs/examples/stream_busy/stream_busy.yaml -q --plugin-dir "$work" \
    --set out="$prefix" > "$prefix/busy.csv"
python3 - "$prefix/busy.csv" "$prefix/stream_busy_trace.json" tests/data/dlrm_worker0_step12.pt.trace.json.gz <<'PY'
import csv, gzip, json, sys
sys.path.insert(0, "tests/tools")
from tracecheck import union
rows = list(csv.DictReader(open(sys.argv[1])))
doc = json.load(gzip.open(sys.argv[3]))
names = {str(p["id"]): p["name"] for p in doc.get("deviceProperties", [])}
streams = {}
for e in doc["traceEvents"]:
    if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
        a = e.get("args", {})
        s = streams.setdefault((a["device"], a["stream"]), [[], 0])
        s[0].append((e["ts"], e["ts"] + e["dur"]))
        s[1] += "correlation" in a
assert len(rows) == len(streams) >= 2, (rows, list(streams))
assert any(r["device_name"] for r in rows), rows
for r in rows:
    iv, corr = streams[(int(r["device"]), int(r["stream"]))]
    assert int(r["count"]) == len(iv) and int(r["correlated"]) == corr, r
    assert abs(float(r["busy_us"]) - union(iv)) < 1e-6, (r, union(iv))
    assert r["device_name"] == names.get(r["device"], ""), r
# the extension column reaches the written trace: each activity's stream row
tagged = [e for e in json.load(open(sys.argv[2]))["traceEvents"]
          if "stream_busy.row" in e.get("args", {})]
assert len(tagged) == sum(len(v[0]) for v in streams.values()), len(tagged)
for e in tagged:
    r = rows[e["args"]["stream_busy.row"]]
    assert (int(r["device"]), int(r["stream"])) == (e["args"]["device"], e["args"]["stream"])
print("out-of-tree: stream_busy: %d streams, busy time, device names and extension column checked" % len(rows))
PY
# a third-party model for predict: aten::mul* by its linear fit, the rest by predict's own
"$prefix/bin/pipeline" run docs/examples/linear_model/linear_model.yaml -q --plugin-dir "$work" \
    > "$prefix/predict.csv"
python3 - "$prefix/predict.csv" <<'PY'
import csv, json, math, sys
# the first table on stdout: predict's per-op rows (summary and unsupported follow)
rows = list(csv.DictReader(open(sys.argv[1]).read().split("\n\n")[0].splitlines()))
mine = [r for r in rows if r["name"].startswith("aten::mul")]
assert len(mine) >= 5, len(mine)
for r in mine:
    dims = json.loads(r["input_dims"])[0]
    want = 2 + 10 * math.prod(dims) / 1e6
    assert r["model"] == "linear" and abs(float(r["predicted_us"]) - want) < 1e-9, (r, want)
others = {r["model"] for r in rows if not r["name"].startswith("aten::mul")}
assert others <= {"roofline", "elementwise", "fwd", "sgd", "adagrad", ""} and "linear" not in others, others
print("out-of-tree: linear_model: %d op shapes predicted by the registered model" % len(mine))
PY
