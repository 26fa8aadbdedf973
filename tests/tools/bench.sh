#!/bin/sh
# `make bench`: tracepipe on big generated Kineto traces, against Python's
# json.load on the same files.  See docs/performance.md.
#
#   sh tests/tools/bench.sh [BUILD]        (run from the repository root)
#
# Inputs are generated once (tests/tools/gen_trace.py, seed 1) and cached in
# $BUILD/bench/: 10 MB, 100 MB and 1 GB plain traces and gzip copies.  Every
# tracepipe job runs BENCH_REPEAT times (default 3), one at a time, on those
# files, and the best wall time is kept (other jobs share the machine); peak
# RSS is the largest seen.  json.load runs once.  Both come from
# /usr/bin/time.  MB/s is always per MB of JSON text (for .gz input:
# of the uncompressed text), MB = 10^6 bytes.  Prints a table and writes
# bench/results.md.  Environment: BENCH_SIZES (default "10M 100M 1G"), BENCH_REPEAT,
# BENCH_PYTHON=0 to skip the json.load baseline, BENCH_OUT (results file).
#
# Scaling rows (issue 12), inputs from tests/tools/gen_stress.py, cached in
# $BUILD/bench/ too: device_breakdown on BENCH_NESTED_LEVELS (default 100000)
# nested cpu ops that each launch a kernel, with and without merge_ops, and
# `validate` of a pipeline of BENCH_STAGES (default 4000) stages with default
# ids.  BENCH_SCALING=0 skips them; BENCH_SIZES="" runs only them.
# Nsight Systems rows: see below (BENCH_NSYS, BENCH_NSYS_LAUNCHES); batch
# rows: BENCH_BATCH, BENCH_BATCH_TRACES, BENCH_BATCH_SIZE; streamed batch
# stages (issue 31): BENCH_RANKS.  critical_path rows (issue 28): each plain
# trace through kineto + hierarchy + trace_info, without and with
# critical_path (BENCH_CP=0 skips them).  The sqlite writer's row (issue 33): each plain
# trace read and written to a database (BENCH_SQLITE=0 skips it).
set -eu
BUILD=${1:-build}
PIPELINE="$BUILD/pipeline"
DIR="$BUILD/bench"
SIZES=${BENCH_SIZES-"10M 100M 1G"}
RESULTS=${BENCH_OUT:-bench/results.md}
REPEAT=${BENCH_REPEAT:-3}
PYTHON_MAX_KB=$((8 * 1024 * 1024)) # skip json.load when it would need more
TIME=/usr/bin/time

[ -x "$PIPELINE" ] || { echo "bench: $PIPELINE not built (make first)" >&2; exit 2; }
[ -x "$TIME" ] || { echo "bench: needs GNU time ($TIME; apt-get install time)" >&2; exit 2; }
mkdir -p "$DIR" "$(dirname "$RESULTS")"

# ---- inputs (generated once)
for s in $SIZES; do
    f="$DIR/trace_$s.json"
    if [ ! -s "$f" ] || [ ! -s "$f.expected.json" ]; then
        echo "bench: generating $f" >&2
        python3 tests/tools/gen_trace.py --size "$s" --seed 1 -o "$f"
    fi
    if [ ! -s "$f.gz" ] || [ "$f" -nt "$f.gz" ]; then
        echo "bench: compressing $f.gz" >&2
        gzip -6 -c "$f" > "$f.gz.tmp" && mv "$f.gz.tmp" "$f.gz"
    fi
done

# ---- jobs
cat > "$DIR/ingest.yaml" <<'EOF'
# reader only: ingestion speed with args kept (the reader's default)
name: bench_ingest
vars: {trace: none}
stages:
  - reader: kineto
    path: ${trace}
EOF
cat > "$DIR/ingest_noargs.yaml" <<'EOF'
# reader only, keep_args: false (what dlrm_breakdown uses)
name: bench_ingest_noargs
vars: {trace: none}
stages:
  - reader: kineto
    path: ${trace}
    keep_args: false
EOF
cat > "$DIR/cp_base.yaml" <<'EOF'
# critical_path's baseline: the reader and what critical_path requires
name: bench_cp_base
vars: {trace: none}
stages:
  - reader: kineto
    path: ${trace}
  - analysis: hierarchy
  - analysis: trace_info
EOF
{ sed 's/^name: bench_cp_base/name: bench_cp/' "$DIR/cp_base.yaml"; echo "  - analysis: critical_path"; } \
    > "$DIR/cp.yaml"
cat > "$DIR/sqlite.yaml" <<'EOF'
# the sqlite writer's row (issue 33): the reader (args kept) and the event table with its
# indexes; the writer's own time is this row's minus "ingest (args kept)"
name: bench_sqlite
vars: {trace: none, db: none}
stages:
  - reader: kineto
    path: ${trace}
  - writer: sqlite
    path: ${db}
EOF
cat > "$DIR/json_load.py" <<'EOF'
import gzip, json, sys
p = sys.argv[1]
with (gzip.open(p, "rb") if p.endswith(".gz") else open(p, "rb")) as f:
    d = json.load(f)
print(len(d["traceEvents"]))
EOF

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
ROWS="$DIR/rows.txt"
: > "$ROWS"

# measure LABEL FILE JSONBYTES REPEAT COMMAND...: runs it REPEAT times,
# appends a row with the best wall time and the largest peak RSS
measure() {
    label=$1 file=$2 bytes=$3 repeat=$4
    shift 4
    : > "$DIR/times.txt"
    i=0
    while [ "$i" -lt "$repeat" ]; do
        if ! $TIME -f "%e %M" -o "$DIR/time.txt" "$@" > "$DIR/job.out" 2> "$DIR/job.err"; then
            echo "bench: FAILED: $*" >&2
            cat "$DIR/job.err" >&2
            exit 1
        fi
        tail -n 1 "$DIR/time.txt" >> "$DIR/times.txt"
        i=$((i + 1))
    done
    set -- $(awk 'NR == 1 || $1 < w { w = $1 } $2 > m { m = $2 } END { print w, m }' \
             "$DIR/times.txt")
    fbytes=$(if [ -f "$file" ]; then wc -c < "$file"; else echo 0; fi)
    awk -v l="$label" -v f="$(basename "$file")" -v w="$1" -v kb="$2" -v b="$bytes" \
        -v fb="$fbytes" 'BEGIN {
        mbps = w > 0 ? b / 1e6 / w : 0
        printf "| %-26s | %-22s | %8.1f | %7.3f | %7.0f | %7.0f | %5.2f |\n",
               l, f, b / 1e6, w, mbps, kb / 1024, kb * 1024 / b }' >> "$ROWS"
    tail -n 1 "$ROWS"
}

mkdir -p "$DIR/out"
echo "| job                        | input                  | JSON MB  | wall s  | MB/s    | RSS MB  | RSS/JSON |"
for s in $SIZES; do
    f="$DIR/trace_$s.json"
    bytes=$(wc -c < "$f")
    for in in "$f" "$f.gz"; do
        measure "dlrm_breakdown" "$in" "$bytes" "$REPEAT" \
            "$PIPELINE" -q run bench/dlrm_breakdown_turn1.yaml --set "trace=$in" --set "out=$DIR/out"
        measure "ingest (keep_args: false)" "$in" "$bytes" "$REPEAT" \
            "$PIPELINE" -q run "$DIR/ingest_noargs.yaml" --set "trace=$in"
        measure "ingest (args kept)" "$in" "$bytes" "$REPEAT" \
            "$PIPELINE" -q run "$DIR/ingest.yaml" --set "trace=$in"
    done
    if [ "${BENCH_SQLITE:-1}" != 0 ]; then
        mkdir -p "$DIR/out"
        measure "  + sqlite writer" "$f" "$bytes" "$REPEAT" \
            "$PIPELINE" -q run "$DIR/sqlite.yaml" --set "trace=$f" --set "db=$DIR/out/bench.db"
    fi
    if [ "${BENCH_CP:-1}" != 0 ]; then
        measure "hierarchy + trace_info" "$f" "$bytes" "$REPEAT" \
            "$PIPELINE" -q run "$DIR/cp_base.yaml" --set "trace=$f"
        measure "  + critical_path" "$f" "$bytes" "$REPEAT" \
            "$PIPELINE" -q run "$DIR/cp.yaml" --set "trace=$f"
    fi
    if [ "${BENCH_PYTHON:-1}" != 0 ]; then
        # json.load holds ~5.5 bytes of objects per byte of JSON
        need_kb=$((bytes / 1024 * 11 / 2))
        avail_kb=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
        if [ "$need_kb" -le "$PYTHON_MAX_KB" ] && [ "$need_kb" -lt "$avail_kb" ]; then
            measure "python3 json.load" "$f" "$bytes" 1 python3 "$DIR/json_load.py" "$f"
        else
            echo "bench: skipping json.load of $f (needs ~$((need_kb / 1024)) MB)" >&2
        fi
    fi
done

# ---- scaling: inputs that were quadratic (device_breakdown, merge_ops) or
# cubic (default stage ids) before issue 12
if [ "${BENCH_SCALING:-1}" != 0 ]; then
    levels=${BENCH_NESTED_LEVELS:-100000}
    f="$DIR/nested_ops_$levels.json"
    [ -s "$f" ] || python3 tests/tools/gen_stress.py nested-ops --levels "$levels" -o "$f"
    cat > "$DIR/nested.yaml" <<'EOF'
# device_breakdown alone (hierarchy is run first as its requirement)
name: bench_nested
vars: {trace: none, merge: "true"}
stages:
  - reader: kineto
    path: ${trace}
    keep_args: false
  - analysis: device_breakdown
    merge_ops: ${merge}
EOF
    bytes=$(wc -c < "$f")
    measure "nested ops, merge_ops" "$f" "$bytes" "$REPEAT" \
        "$PIPELINE" -q run "$DIR/nested.yaml" --set "trace=$f"
    measure "nested ops, no merge_ops" "$f" "$bytes" "$REPEAT" \
        "$PIPELINE" -q run "$DIR/nested.yaml" --set "trace=$f" --set merge=false
    n=${BENCH_STAGES:-4000}
    y="$DIR/many_stages_$n.yaml"
    [ -s "$y" ] || python3 tests/tools/gen_stress.py many-stages --stages "$n" -o "$y"
    measure "validate $n stages" "$y" "$(wc -c < "$y")" "$REPEAT" "$PIPELINE" -q validate "$y"
fi

# ---- Nsight Systems exports (issue 14): the corpus saxpy export with
# BENCH_NSYS_LAUNCHES (default 1000000) launches appended (gen_nsys.py), and
# its JSON-lines form (make_nsys_json.py); reader + kernel_stats.
# BENCH_NSYS=0 skips them.  The "JSON MB" column is the file's size here.
if [ "${BENCH_NSYS:-1}" != 0 ]; then
    n=${BENCH_NSYS_LAUNCHES:-1000000}
    db="$DIR/nsys_$n.sqlite"
    js="$DIR/nsys_$n.json"
    [ -s "$db" ] || python3 tests/tools/gen_nsys.py \
        tests/data/nsys/pipit_saxpy_mpi_cuda_perlmutter0.sqlite "$db" --launches "$n"
    [ -s "$js" ] || { python3 tests/tools/make_nsys_json.py "$db" "$js.tmp" && mv "$js.tmp" "$js"; }
    for r in nsys nsys_json; do
        printf '# %s reader and kernel_stats on a generated export\nname: bench_%s\nvars: {trace: none}\nstages:\n  - reader: %s\n    path: ${trace}\n  - analysis: kernel_stats\n' \
            "$r" "$r" "$r" > "$DIR/$r.yaml"
    done
    measure "nsys + kernel_stats" "$db" "$(wc -c < "$db")" "$REPEAT" \
        "$PIPELINE" -q run "$DIR/nsys.yaml" --set "trace=$db"
    measure "nsys_json + kernel_stats" "$js" "$(wc -c < "$js")" "$REPEAT" \
        "$PIPELINE" -q run "$DIR/nsys_json.yaml" --set "trace=$js"
    # the yardstick of issue 31: sqlite3's own GROUP BY over the same kernels
    command -v sqlite3 >/dev/null && measure "sqlite3 GROUP BY (kernels)" "$db" "$(wc -c < "$db")" \
        "$REPEAT" sqlite3 "$db" "SELECT s.value, COUNT(*), SUM(k.end - k.start), MIN(k.end - k.start),
        MAX(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName
        GROUP BY k.shortName"
fi

# ---- batches (issue 17): BENCH_BATCH_TRACES (default 64) generated traces of
# BENCH_BATCH_SIZE (default 50M) each (seeds 101...), the top_kernels
# pipeline over the folder with -j 1 and -j 2; and the 8-rank DLRM job end
# to end (tests/pipelines/valid/ranks_dlrm: eight readers, ranks twice, the
# merged Chrome trace of the ranks).  BENCH_BATCH=0 skips them.  Peak RSS is
# the largest single process's (GNU time reports the biggest child).
if [ "${BENCH_BATCH:-1}" != 0 ]; then
    nb=${BENCH_BATCH_TRACES:-64}
    bs=${BENCH_BATCH_SIZE:-50M}
    bdir="$DIR/batch_${nb}x$bs"
    mkdir -p "$bdir"
    i=0
    while [ "$i" -lt "$nb" ]; do
        f=$(printf '%s/trace_%03d.json' "$bdir" "$i")
        [ -s "$f" ] || python3 tests/tools/gen_trace.py --size "$bs" --seed $((101 + i)) -o "$f" >/dev/null
        rm -f "$f.expected.json"
        i=$((i + 1))
    done
    bbytes=$(cat "$bdir"/*.json | wc -c)
    for j in 1 2; do
        rm -rf "$DIR/batch_out"
        measure "batch of $nb, -j $j" "$bdir" "$bbytes" "$REPEAT" \
            "$PIPELINE" -q run pipelines/top_kernels.yaml --input "$bdir" --set "out=$DIR/batch_out" -j "$j"
        awk -v n="$nb" 'END { split($0, f, "|"); printf "    (%.2f traces/s)\n", n / f[5] }' "$ROWS"
    done
    measure "8-rank DLRM job" tests/data/kineto/corpus "$(cat tests/data/dlrm_worker0_step12.pt.trace.json.gz tests/data/kineto/corpus/dlrm_worker[1-7]_step12.pt.trace.json.gz | gzip -dc | wc -c)" \
        "$REPEAT" "$PIPELINE" -q run tests/pipelines/valid/ranks_dlrm/pipeline.yaml --set "out=$DIR/ranks_out"
fi

# ---- streamed batch stages (issue 31): a generated job of BENCH_RANKS ranks
# (NxSIZE, default 16x50M; tests/tools/gen_ranks.py, cached), `ranks` and the
# merged Chrome trace once over the folder in a batch (-j 2: the traces one at
# a time), beside their baseline in the same run: one pipeline with a reader
# per rank, every trace held at once.  Peak RSS is the largest process's.
# BENCH_RANKS=0 skips them.
if [ "${BENCH_RANKS:-16x50M}" != 0 ]; then
    rj=${BENCH_RANKS:-16x50M}
    rn=${rj%%x*}
    rdir="$DIR/ranks_$rj"
    [ -s "$rdir/rank$((rn - 1)).json" ] ||
        TP_RANKS_JOB=$rj python3 tests/tools/gen_ranks.py "$rdir" >/dev/null
    rbytes=$(cat "$rdir"/*.json | wc -c)
    cat > "$DIR/ranks_stream.yaml" <<'EOF2'
vars: {trace: none, out: none}
stages:
  - reader: kineto
    path: ${trace}
  - {analysis: ranks, id: job, batch: true}
  - {writer: csv, input: [job, job.straggler], path: '${out}/{id}.csv', batch: true}
  - {writer: chrome_trace, path: '${out}/job.trace.json', batch: true}
EOF2
    {
        echo "vars: {out: none}"
        echo "stages:"
        ids=""
        i=0
        # in the batch's label order (names in byte order: rank0, rank1, rank10, ...)
        for f in $(cd "$rdir" && LC_ALL=C ls rank*.json); do
            echo "  - {reader: kineto, id: r$i, path: '$rdir/$f'}"
            ids="$ids${ids:+, }r$i"
            i=$((i + 1))
        done
        echo "  - {analysis: ranks, id: job, trace: [$ids]}"
        echo "  - {writer: csv, input: [job, job.straggler], path: '\${out}/{id}.csv'}"
        echo "  - {writer: chrome_trace, trace: [$ids], path: '\${out}/job.trace.json'}"
    } > "$DIR/ranks_held.yaml"
    rm -rf "$DIR/ranks_stream_out" "$DIR/ranks_held_out"
    measure "ranks+merge, $rn streamed" "$rdir" "$rbytes" "$REPEAT" \
        "$PIPELINE" -q run "$DIR/ranks_stream.yaml" --input "$rdir" --set "out=$DIR/ranks_stream_out" -j 2
    measure "ranks+merge, $rn held" "$rdir" "$rbytes" "$REPEAT" \
        "$PIPELINE" -q run "$DIR/ranks_held.yaml" --set "out=$DIR/ranks_held_out"
    cmp -s "$DIR/ranks_stream_out/job.csv" "$DIR/ranks_held_out/job.csv" &&
        cmp -s "$DIR/ranks_stream_out/job.trace.json" "$DIR/ranks_held_out/job.trace.json" ||
        { echo "bench: streamed and held ranks differ" >&2; exit 1; }
fi

# ---- report
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain 2>/dev/null | grep -q . && echo " (+ uncommitted changes)" || true)
{
    echo "# Benchmark results"
    echo
    echo "Generated by \`make bench\` (tests/tools/bench.sh); see docs/performance.md for the method"
    echo "and the targets."
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- commit: $commit$dirty"
    echo "- machine: $(nproc) cores, $(awk '/model name/ {sub(/.*: /, ""); print; exit}' /proc/cpuinfo),"
    echo "  $(awk '/MemTotal/ {printf "%.0f GB RAM", $2 / 1048576}' /proc/meminfo); warm page cache"
    echo "- load average before / after the run: $LOAD_START / $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "  (other jobs on the machine steal cores: compare rows of one run, not runs)"
    echo "- inputs: tests/tools/gen_trace.py --seed 1 (DLRM-like, ~300 bytes/event), gzip -6 copies"
    echo "- tracepipe jobs: best wall time of $REPEAT runs, largest peak RSS; json.load: one run"
    echo "- MB/s = MB (10^6 B) of JSON text (uncompressed, for .gz too) / wall time;"
    echo "  RSS = peak resident set in MiB; RSS/JSON = peak RSS bytes / JSON bytes"
    echo
    echo "| job                        | input                  | JSON MB  | wall s  | MB/s    | RSS MB  | RSS/JSON |"
    echo "|----------------------------|------------------------|---------:|--------:|--------:|--------:|------:|"
    cat "$ROWS"
} > "$RESULTS"
echo "bench: wrote $RESULTS"
