#!/usr/bin/env python3
"""Independent check of inference_steps' results against the raw trace.

    check_inference.py TRACE STEPS_CSV PHASES_CSV [--skip-first N] [--skip-last N]
                       [--preset all|vllm|sglang|phases] [--decode-tokens N]

Recomputes, from the Chrome-trace JSON alone (timestamps read as exact
decimals), every serving step: the step annotations (this script's own
reading of the engines' forms: vLLM's execute_context_N(T)_generation_M(T)
and its detailed execute_T_context_N(sq..)_generation_M(sq..), SGLang's
step[EXTEND|DECODE|MIXED bs= toks=], phase annotations prefill[..],
decode[bs=N/P tok=T], captures capture_BS_PHASE), outermost per thread on
the thread holding the most; phase, batch size, tokens and padding as the
name says; the GPU activities launched inside each step (by correlation id
to the runtime call, graph replays included; an activity without a launch
by its own start); host, GPU span, GPU busy (union) and step time; then the
per-phase table over the steady-state window.  Compares every cell of both
CSV files and exits 1 on the first difference.
"""
import argparse
import csv
import decimal
import gzip
import json
import math
import re
import sys

from tracecheck import ns, union

VLLM = re.compile(r"^execute_(?:\d+_)?context_(\d+)\((?:sq)?(\d+)[^)]*\)_generation_(\d+)\((?:sq)?(\d+)[^)]*\)")
SGLANG = re.compile(r"^step\[(EXTEND|DECODE|MIXED)\s+bs=(\d+)(?:\s+toks=(\d+))?")
PHASE = re.compile(r"^(prefill|decode|mixed)\[bs=(\d+)(?:/(\d+))?(?:\s+tok=(\d+))?")
CAPTURE = re.compile(r"^capture_(\d+)_([A-Za-z]+)")
WORDS = {"prefill": "prefill", "extend": "prefill", "context": "prefill", "decode": "decode",
         "generation": "decode", "mixed": "mixed"}
GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
HOST_CATS = {"cpu_op", "user_annotation", "python_function", "cuda_runtime", "cuda_driver",
             "Operator", "Runtime", "Trace", "python_function"}


def parse(name, preset, decode_tokens):
    """(phase, bs, toks, padded) the annotation says, or None."""
    m = VLLM.match(name) if preset in ("all", "vllm") else None
    if m:
        cb, ct, gb, gt = (int(x) for x in m.groups())
        phase = "mixed" if cb and gb else "prefill" if cb else "decode" if gb else None
        return phase, cb + gb, ct + gt, None
    m = SGLANG.match(name) if preset in ("all", "sglang") else None
    if m:
        phase = {"EXTEND": "prefill", "DECODE": "decode", "MIXED": "mixed"}[m.group(1)]
        bs = int(m.group(2))
        toks = int(m.group(3)) if m.group(3) else None
        if toks is None and phase == "decode" and decode_tokens:
            toks = bs * decode_tokens
        return phase, bs, toks, None
    m = PHASE.match(name) if preset in ("all", "phases") else None
    if m:
        bs = int(m.group(2))
        toks = int(m.group(4)) if m.group(4) else None
        if toks is None and m.group(1) == "decode" and decode_tokens:
            toks = bs * decode_tokens
        return m.group(1), bs, toks, int(m.group(3)) if m.group(3) else None
    m = CAPTURE.match(name) if preset in ("all", "phases") else None
    if m:
        bs = int(m.group(1))
        phase = WORDS.get(m.group(2).lower())
        toks = bs * decode_tokens if phase == "decode" and decode_tokens else None
        return phase, bs, toks, bs
    return None


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        data = json.load(f, parse_float=decimal.Decimal)
    return data["traceEvents"] if isinstance(data, dict) else data


def steps_of(events, preset, decode_tokens):
    per_thread = {}
    for e in events:
        if e.get("ph") != "X" or e.get("cat") not in HOST_CATS or "dur" not in e:
            continue
        said = parse(e.get("name", ""), preset, decode_tokens)
        if said is not None:
            per_thread.setdefault((e.get("pid"), e.get("tid")), []).append(
                (ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["name"], said))
    if not per_thread:
        return []
    # the thread holding the most step annotations (ties: the lowest (pid, tid))
    best = sorted(per_thread, key=lambda k: (-len(per_thread[k]), k))[0]
    steps = []
    for s in sorted(per_thread[best], key=lambda s: (s[0], -(s[1] - s[0]))):
        if steps and s[0] < steps[-1][1]:
            steps[-1][4].append(s)  # nested in the step annotation: part of it
            continue
        steps.append(s + ([],))
    return steps


def agree(step, inner):
    """What a nested annotation says must be what its step says."""
    phase, bs, toks, _ = step[3]
    iphase, ibs, itoks, _ = inner[3]
    if (iphase is not None and iphase != phase) or ibs != bs or (itoks is not None and itoks != toks):
        sys.exit("step %r (%s, bs %s, tokens %s) holds %r (%s, bs %s, tokens %s)"
                 % (step[2], phase, bs, toks, inner[2], iphase, ibs, itoks))


def gpu_work(events, steps):
    launches = {}
    for e in events:
        if e.get("cat") in RUNTIME_CATS and e.get("ph") == "X":
            c = (e.get("args") or {}).get("correlation")
            if c is not None:
                t = ns(e["ts"])
                if c not in launches or t < launches[c]:
                    launches[c] = t
    work = [[] for _ in steps]
    for e in events:
        if e.get("cat") not in GPU_CATS or e.get("ph") != "X" or "dur" not in e:
            continue
        c = (e.get("args") or {}).get("correlation")
        t = launches.get(c, ns(e["ts"]))
        for k, s in enumerate(steps):
            if s[0] <= t < s[1]:
                work[k].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
                break
    return work


def percentile(v, p):
    v = sorted(v)
    r = p / 100 * (len(v) - 1)
    lo = math.floor(r)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (r - lo)


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


def expect(where, got, want):
    """got: a CSV cell; want: text, a number, or None (an empty cell)."""
    if want is None:
        ok = got == ""
    elif isinstance(want, str):
        ok = got == want
    else:
        ok = got != "" and close(float(got), want)
    if not ok:
        sys.exit("%s: %r, recomputed %r" % (where, got, want))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("steps")
    ap.add_argument("phases")
    ap.add_argument("--skip-first", type=int, default=0)
    ap.add_argument("--skip-last", type=int, default=0)
    ap.add_argument("--preset", default="all")
    ap.add_argument("--decode-tokens", type=int, default=1)
    a = ap.parse_args()
    events = load(a.trace)
    steps = steps_of(events, a.preset, a.decode_tokens)
    work = gpu_work(events, steps)
    t0 = min(ns(e["ts"]) for e in events if e.get("ph") not in ("M",) and "ts" in e
             and e.get("cat") != "Trace" and "dur" in e)
    rows = list(csv.DictReader(open(a.steps)))
    if len(rows) != len(steps):
        sys.exit("%s: %d steps, recomputed %d" % (a.steps, len(rows), len(steps)))
    first = min(a.skip_first, len(steps))
    last = max(first, len(steps) - a.skip_last)
    recomputed = []
    for k, (s, w, row) in enumerate(zip(steps, work, rows)):
        phase, bs, toks, padded = s[3]
        host = s[1] - s[0]
        end = max([s[1]] + [b for _, b in w])
        wall = end - s[0]
        want = {"iteration": k, "name": s[2], "start_us": (s[0] - t0) / 1e3, "phase": phase,
                "batch_size": bs, "tokens": toks, "padded_size": padded, "host_us": host / 1e3,
                "count": len(w), "gpu_span_us": (max(b for _, b in w) - min(x for x, _ in w)) / 1e3 if w else None,
                "gpu_busy_us": union(w) / 1e3 if w else None, "wall_us": wall / 1e3,
                "tokens_per_s": toks * 1e9 / wall if toks is not None and wall > 0 else None,
                "in_window": 1 if first <= k < last else 0}
        for col, v in want.items():
            expect("%s: step %d: %s" % (a.steps, k, col), row[col], v)
        for inner in s[4]:
            agree(s, inner)
        recomputed.append((phase, bs, toks, wall, union(w)))
    window = recomputed[first:last]
    prow = {r["phase"]: r for r in csv.DictReader(open(a.phases))}
    names = [p for p in ("prefill", "decode", "mixed") if any(x[0] == p for x in window)]
    names += ["all"] if window else []
    if sorted(prow) != sorted(names):
        sys.exit("%s: phases %s, recomputed %s" % (a.phases, sorted(prow), sorted(names)))
    for p in names:
        sel = [x for x in window if p == "all" or x[0] == p]
        t = [x[3] / 1e3 for x in sel]
        tok = [x for x in sel if x[2] is not None]
        ntok = sum(x[2] for x in tok)
        tok_t = sum(x[3] for x in tok)
        mean = sum(t) / len(t)
        want = {"count": len(sel), "requests": sum(x[1] or 0 for x in sel),
                "tokens": ntok if tok else None, "sum_us": sum(t), "mean_us": mean,
                "std_us": math.sqrt(sum((x - mean) ** 2 for x in t) / len(t)) if len(t) > 1 else None,
                "p50_us": percentile(t, 50), "p90_us": percentile(t, 90), "p99_us": percentile(t, 99),
                "per_token_us": tok_t / 1e3 / ntok if ntok and tok_t else None,
                "tokens_per_s": ntok * 1e9 / tok_t if ntok and tok_t else None,
                "gpu_busy_us": sum(x[4] for x in sel) / 1e3}
        for col, v in want.items():
            expect("%s: %s: %s" % (a.phases, p, col), prow[p][col], v)
    print("check_inference: %s: %d steps, %d phases rows agree" % (a.trace, len(steps), len(names)))


if __name__ == "__main__":
    main()
