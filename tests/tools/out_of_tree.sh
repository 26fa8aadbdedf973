#!/bin/sh
# Installs tracepipe into a scratch prefix, builds the example plugins of
# docs/examples (top_names: the plugin ABI only; stream_busy: extension
# columns, trace info and the SDK's intervals, JSON access and safe text)
# against the installed headers and SDK via pkg-config (no access to
# core/), runs them through the installed `pipeline` and checks their
# numbers against Python (step_kernels: the iteration view, declared columns
# and the SDK's regexes); links a plugin using the SDK's PCRE2 parts with
# `pkg-config --libs` (tracepipe.pc requires libpcre2-8).
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
cp docs/examples/step_kernels/step_kernels.c "$work/"
for p in top_names stream_busy linear_model step_kernels; do
    ( cd "$work" && cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
        -Wl,--no-undefined $(pkg-config --cflags tracepipe) -o $p.so $p.c $(pkg-config --libs tracepipe) )
done
# the SDK's regex, markers and top-N parts link with the .pc's private requirements
cat > "$work/sdk_parts.c" <<'C'
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_markers.h>

static int sp_run(tp_stage *st, const void *config, void *state)
{
    tp_markers m;
    tp_agg_buf b = {0};
    (void)config, (void)state;
    int rc = tp_markers_open(st, &m, "marker", "ProfilerStep#\\d{,3}\\Z");
    tp_markers_close(&m);
    rc = rc ? rc : tp_agg_push(&b, 1);
    tp_free(b.v);
    return rc;
}

static const tp_stage_desc sp_stages[] = {
    TP_STAGE_FULL(TP_STAGE_ANALYSIS, "sdk_parts", "links the SDK's PCRE2 parts", NULL, int, NULL,
                  TP_PRODUCES(""), 0, NULL, sp_run, NULL),
    TP_STAGE_END};
TP_PLUGIN_DEFINE("sdk_parts", "1.0.0", sp_stages);
C
( cd "$work" && cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
    -Wl,--no-undefined $(pkg-config --cflags tracepipe) -o sdk_parts.so sdk_parts.c \
    $(pkg-config --libs tracepipe) )
syms=$(nm -D --defined-only "$work/sdk_parts.so" | awk '{print $3}' | grep -v '^_' | tr '\n' ' ')
[ "$syms" = "tp_plugin_descriptor " ] || { echo "out-of-tree: sdk_parts.so exports: $syms"; exit 1; }
rm "$work/sdk_parts.so" "$work/sdk_parts.c" # not a plugin for the runs below
out=$("$prefix/bin/pipeline" run docs/examples/top_names/top_names.yaml -q --plugin-dir "$work")
name_count=$(printf '%s\n' "$out" | sed -n 2p | cut -d, -f1-2)
[ "$(printf '%s\n' "$out" | head -1)" = "name,count,total_us,percent,rank" ] || { echo "out-of-tree: bad header: $out"; exit 1; }
test -f "$prefix/share/man/man1/pipeline.1" || { echo "out-of-tree: man page not installed"; exit 1; }
for h in tp_plugin.h tp_sdk_text.h tp_sdk_regex.h tp_sdk_markers.h tp_sdk_topn.h tp_sdk_presets.h tp_sdk_gemm.h; do
    test -f "$prefix/include/tracepipe/$h" || { echo "out-of-tree: $h not installed"; exit 1; }
done
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
    assert int(r["name_chars"]) == len(r["device_name"]), r  # the SDK's tp_utf8_len
# the extension column reaches the written trace: each activity's stream row
tagged = [e for e in json.load(open(sys.argv[2]))["traceEvents"]
          if "stream_busy.row" in e.get("args", {})]
assert len(tagged) == sum(len(v[0]) for v in streams.values()), len(tagged)
for e in tagged:
    r = rows[e["args"]["stream_busy.row"]]
    assert (int(r["device"]), int(r["stream"])) == (e["args"]["device"], e["args"]["stream"])
print("out-of-tree: stream_busy: %d streams, busy time, device names (and their length by the SDK's tp_utf8_len) and extension column checked" % len(rows))
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
assert others <= {"roofline", "elementwise", "fwd", "sgd", "adagrad", "", "attention_fwd", "attention_bwd",
                  "conv_fwd", "conv_bwd", "norm_fwd", "norm_bwd", "elementwise_bytes", "embedding_bag",
                  "gather_bytes", "sparse_bytes", "scaled_gemm", "grouped_gemm", "scaled_grouped_gemm",
                  "fused_moe"} and "linear" not in others, others
print("out-of-tree: linear_model: %d op shapes predicted by the registered model" % len(mine))
PY
# the iteration view, declared columns and the SDK's regexes from a third-party plugin
"$prefix/bin/pipeline" describe step_kernels --plugin-dir "$work" | grep -q "kernel_us .*double .*us" ||
    { echo "out-of-tree: step_kernels: describe shows no declared columns"; exit 1; }
"$prefix/bin/pipeline" run docs/examples/step_kernels/step_kernels.yaml -q --plugin-dir "$work" \
    > "$prefix/steps.csv"
python3 - "$prefix/steps.csv" tests/data/kineto/corpus/hta_gpu_user_annotation_step_based.json.gz <<'PY'
import csv, gzip, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ev = json.load(gzip.open(sys.argv[2]))["traceEvents"]
steps = sorted((e["ts"], e["dur"]) for e in ev
               if e.get("name") == "Optimizer.step#SGD.step" and e.get("cat") == "user_annotation")
launch = {e["args"]["correlation"]: e["ts"] for e in ev
          if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
count, total = [0] * len(steps), [0] * len(steps)
for e in ev:
    if e.get("cat") == "kernel" and "elementwise" in e["name"]:
        t = launch.get(e["args"].get("correlation"), e["ts"])
        for k, (s, d) in enumerate(steps):
            if s <= t < s + d:
                count[k] += 1
                total[k] += e["dur"]
assert [int(r["iteration"]) for r in rows] == list(range(len(steps))), rows
for r, (s, _), n, t in zip(rows, steps, count, total):
    assert float(r["start_us"]) == s - steps[0][0] and int(r["kernels"]) == n, (r, s, n)
    assert abs(float(r["kernel_us"]) - t) < 1e-9, (r, t)
print("out-of-tree: step_kernels: %d iterations of the pipeline's marker, kernels per iteration checked" % len(rows))
PY
# the Python module as installed (PREFIX/lib/pythonX.Y/dist-packages): it finds the
# installed plugins and bundled pipelines beside itself, not the build tree's
site=$(ls -d "$prefix"/lib/python3*/dist-packages 2>/dev/null | head -1)
if [ -n "$site" ]; then
    PYTHONPATH="$site" /usr/bin/python3 - "$prefix" <<'PY'
import os, sys
import tracepipe
prefix = sys.argv[1]
assert tracepipe.__file__.startswith(prefix), tracepipe.__file__
res = tracepipe.run("top_kernels", trace="tests/data/dlrm_worker0_step12.pt.trace.json.gz")
assert len(res["kernels"]) > 0, res
print("out-of-tree: python: import tracepipe from %s, top_kernels: %d rows"
      % (os.path.relpath(tracepipe.__file__, prefix), len(res["kernels"])))
PY
fi
