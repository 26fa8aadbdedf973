#!/bin/sh
# advice's pageable_memcpy on Nsight Systems exports (issue 29): the nsys
# reader carries each copy's srcKind/dstKind (labelled by the export's
# ENUM_CUDA_MEM_KIND) as the SDK's memory kinds (extension columns
# memcpy.src_kind, memcpy.dst_kind), which the rule reads.  Exports built
# here by tests/tools/make_nsys_memcpy.py (its docstring has the figures):
#   pageable    fires: 2 copies (HtoD Pageable -> Device 400 ns, DtoH Device ->
#               Pageable 100 ns) = 0.5 us, from 0.3 to 1.4 us after t0 (the first
#               call, at 700 ns); the pinned copy is not counted
#   pinned      runs and does not fire (no row, no "not checked")
#   renumbered  fires as pageable: the export's labels decide, not fixed ids
# and the JSON-lines export without srcKind/dstKind says "not checked".
#   sh tests/e2e/advice_memkinds.sh [BUILD]    (from the repository root)
set -u
BUILD=${1:-build}
P="$BUILD/pipeline"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: advice memkinds: $1"; }

want='pageable_memcpy,warn,copies from or to pageable host memory,"2 copies from or to pageable memory, 0.5 us in all",device 0,"copy from pinned memory (pin_memory=True in the DataLoader, tensor.pin_memory()) so copies run asynchronously",2,0.5,,0.3,1.4'
for case in pageable pinned renumbered; do
    python3 tests/tools/make_nsys_memcpy.py "$tmp/$case.sqlite" $case
    if ! "$P" run advice -q --set trace="$tmp/$case.sqlite" --set out="$tmp/$case" \
        >/dev/null 2>"$tmp/err"; then ko "$case: advice failed"; cat "$tmp/err"; continue; fi
    got=$(grep '^pageable_memcpy,' "$tmp/$case/advice.csv")
    if [ "$case" = pinned ]; then
        if [ -z "$got" ]; then ok; else ko "$case: fired: $got"; fi
    elif [ "$got" = "$want" ]; then ok
    else ko "$case: $got"; fi
done
# the kinds as extension columns, named in the SDK's words
"$P" run advice -q --set trace="$tmp/pageable.sqlite" --set out="$tmp/x" >/dev/null 2>&1
cat >"$tmp/ct.yaml" <<YAML
stages:
  - reader: nsys
    path: $tmp/pageable.sqlite
  - writer: chrome_trace
    path: $tmp/ct.json
YAML
"$P" run "$tmp/ct.yaml" -q >/dev/null 2>"$tmp/err" || { ko "chrome_trace failed"; cat "$tmp/err"; }
n=$(python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print(sorted((e["args"].get("memcpy.src_kind"), e["args"].get("memcpy.dst_kind"))
             for e in ev if e.get("cat") == "gpu_memcpy"))' "$tmp/ct.json")
# tp_memkind: 1 pageable, 2 pinned, 3 device
if [ "$n" = "[(1, 3), (2, 3), (3, 1)]" ]; then ok; else ko "extension columns: $n"; fi
# no kinds recorded: said once
"$P" run advice -q --set trace=tests/data/nsys/saxpy_from_sqlite.json --set out="$tmp/j" >/dev/null 2>&1
if grep -q '^pageable_memcpy,info,"not checked: no memcpy records the memory kinds' "$tmp/j/advice.csv"; then ok
else ko "the JSON export without kinds: $(grep '^pageable_memcpy' "$tmp/j/advice.csv")"; fi
echo "advice memkinds: $pass passed, $fail failed"
[ $fail = 0 ]
