#!/bin/sh
# A/B check of the hierarchy-based analyses (issue 31): runs one pipeline
# (hierarchy, host_breakdown, device_breakdown with and without merge_ops,
# launch_stats, kernel_stats, streams, overheads; every result as JSON) with
# two builds on every trace given and compares the outputs and messages
# byte for byte.  Not part of the suites: a tool for changes that must keep
# outputs identical.
#   sh tests/tools/ab_analyses.sh OLD_BUILD NEW_BUILD TRACE...
# Prints one line per trace (same / DIFF / both failed alike); exits 1 if
# any differs.
set -u
old=$1 new=$2
shift 2
tmp=${TMPDIR:-/tmp}/ab_analyses.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/ab.yaml" <<'Y'
name: ab_analyses
vars:
  trace: x.json
  out: out
stages:
  - reader: kineto
    path: ${trace}
  - analysis: hierarchy
  - analysis: host_breakdown
    id: host
    depth: 4
  - analysis: device_breakdown
    id: device
    depth: 6
    truncate: 0
  - analysis: device_breakdown
    id: device_all
    depth: 8
    merge_ops: false
    short_names: false
  - analysis: launch_stats
  - analysis: kernel_stats
  - analysis: streams
  - analysis: overheads
  - writer: json
    input: [hierarchy, host, device, device_all, launch_stats, kernel_stats, streams, overheads]
    path: ${out}/all.json
Y
bad=0
for t in "$@"; do
    for side in old new; do
        eval b=\$$side
        rm -rf "$tmp/$side"
        mkdir -p "$tmp/$side"
        "$b/pipeline" run -q "$tmp/ab.yaml" --set trace="$t" --set out="$tmp/$side" \
            > "$tmp/$side/stdout" 2> "$tmp/$side/stderr"
        echo $? > "$tmp/$side/rc"
        sed -i "s#$tmp/$side#OUT#g" "$tmp/$side/stderr"
    done
    if diff -r "$tmp/old" "$tmp/new" > /dev/null; then
        if [ "$(cat "$tmp/new/rc")" = 0 ]; then echo "same: $t"; else echo "both failed alike: $t"; fi
    else
        echo "DIFF: $t"
        diff -r "$tmp/old" "$tmp/new" | head -5
        bad=1
    fi
done
exit $bad
