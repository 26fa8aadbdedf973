"""hierarchy_wide_lazy: the wide hierarchy arrays are filled only for a
stage that asks for them.  The turn-1 dlrm_breakdown job (hierarchy,
host_breakdown, device_breakdown, writers) reads the compact view only: at
-v no "filled on first use" line; this case's pipeline (hier_dump reads the
wide view) fills each of the five once per trace (4 traces: 20 lines); a
failing filler fails the asking stage with the core's message."""
import os, re, subprocess, sys, tempfile

out = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", "..", "..", ".."))
pipeline = os.environ["TP_PIPELINE"]
plugins = os.path.join(os.path.dirname(os.path.abspath(pipeline)), "testplugins")
WIDE = ["parent", "first_child", "next_sibling", "depth", "launcher"]


def filled(args):
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run([pipeline, "-v", "run"] + args + ["--set", f"out={tmp}"], cwd=root,
                             capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return run.stderr, re.findall(r"\[(\w+)\].*attachment 'hierarchy\.(\w+)' filled on first use",
                                  run.stderr)


err, fills = filled(["bench/dlrm_breakdown_turn1.yaml", "--set",
                     "trace=tests/data/dlrm_worker0_step12.pt.trace.json.gz"])
assert "[device] analysis done" in err and "[host] analysis done" in err, err
assert fills == [], fills

err, fills = filled([os.path.join(here, "pipeline.yaml"), "--plugin-dir", plugins])
for dump in ["dump_dlrm", "dump_sync", "dump_bert", "dump_bert_py"]:
    assert sorted(a for s, a in fills if s == dump) == sorted(WIDE), (dump, fills)
assert len(fills) == 20, fills

# a lazy attachment whose filler fails fails the stage that asked, with the
# core's message naming it (not the stage's own "no test.lazy_bad")
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "lazy_bad.yaml")
    with open(bad, "w") as f:
        f.write("stages:\n  - reader: kineto\n"
                "    path: tests/data/dlrm_worker0_step12.pt.trace.json.gz\n"
                "  - analysis: lazy_bad\n  - analysis: lazy_ask\n")
    run = subprocess.run([pipeline, "run", bad, "--plugin-dir", plugins], cwd=root,
                         capture_output=True, text=True)
assert run.returncode != 0, run
assert ("analysis 'lazy_ask': attachment 'test.lazy_bad': its filler failed (out of memory)"
        in run.stderr), run.stderr
