#!/usr/bin/env python3
"""The Kubernetes manifests of docs/cluster.md, run as Kubernetes would run them.

No cluster is needed: the documented Indexed Job and merge Job are parsed
from the page and checked for what their semantics rest on (an Indexed Job
whose completions equal the N of `--shard auto/N`, pods that never restart
in place, the same outputs volume mounted by both Jobs), then each pod's
command is run here as the kubelet would start it — JOB_COMPLETION_INDEX set
to 0..N-1, the volumes' mount paths mapped to scratch folders, `pipeline`
resolved to the build's program — over the 8 DLRM ranks; the merge Job's
command then runs, and its outputs must be the same bytes as one unsharded
run. A shard left out makes the merge fail naming it.

    python3 tests/e2e/k8s_manifests.py BUILD    (from the repository root)
"""
import filecmp
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
PIPELINE = os.path.realpath(os.path.join(BUILD, "pipeline"))
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: k8s manifests: " + msg)


def documented_jobs():
    text = open("docs/cluster.md", encoding="utf-8").read()
    section = text.split("## Kubernetes", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    return [d for d in yaml.safe_load_all(block) if d]


def container(job):
    pod = job["spec"]["template"]["spec"]
    assert pod["restartPolicy"] == "Never", "pods must not restart in place"
    (c,) = pod["containers"]
    mounts = {m["name"]: m["mountPath"] for m in c.get("volumeMounts", [])}
    claims = {v["name"]: v["persistentVolumeClaim"]["claimName"] for v in pod["volumes"]}
    return c["command"], {mounts[n]: claims[n] for n in mounts}


def run_pod(command, mounts, scratch, env_extra):
    """Run a pod's command with each mount path mapped to scratch/<claim>."""
    args = []
    for a in command:
        for path, claim in mounts.items():
            a = a.replace(path, os.path.join(scratch, claim))
        args.append(a)
    assert args[0] == "pipeline"
    args[0] = PIPELINE
    env = dict(os.environ, **env_extra)
    return subprocess.run(args, env=env, capture_output=True, text=True)


def files(root):
    out = []
    for dirpath, _, names in os.walk(root):
        for n in names:
            if not n.startswith(".tracepipe-"):
                out.append(os.path.relpath(os.path.join(dirpath, n), root))
    return sorted(out)


def main():
    shards, merge = documented_jobs()
    if shards["spec"].get("completionMode") != "Indexed":
        fail("the shards Job is not an Indexed Job")
    n = shards["spec"]["completions"]
    cmd, mounts = container(shards)
    shard_arg = cmd[cmd.index("--shard") + 1]
    if shard_arg != "auto/%d" % n:
        fail("--shard %s but completions %d" % (shard_arg, n))
    merge_cmd, merge_mounts = container(merge)
    if set(merge_mounts.values()) - set(mounts.values()):
        fail("the merge mounts a volume the shards do not: %s" % merge_mounts)

    scratch = tempfile.mkdtemp()
    try:
        data = [p for p, c in mounts.items() if c == "traces"][0]
        job_input = cmd[cmd.index("--input") + 1]
        traces = os.path.join(scratch, "traces", os.path.relpath(job_input, data))
        os.makedirs(traces)
        for f in ["tests/data/dlrm_worker0_step12.pt.trace.json.gz"] + sorted(
                glob.glob("tests/data/kineto/corpus/dlrm_worker[1-7]_step12.pt.trace.json.gz")):
            shutil.copy(f, traces)
        one = os.path.join(scratch, "one")
        r = subprocess.run([PIPELINE, "run", "ranks", "--input", traces, "--set", "out=" + one, "-q"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            fail("one run: exit %d: %s" % (r.returncode, r.stderr.strip()))
            return
        # every index but the last, then the merge must name the missing one
        for i in range(n - 1):
            r = run_pod(cmd, mounts, scratch, {"JOB_COMPLETION_INDEX": str(i)})
            if r.returncode != 0:
                fail("pod %d: exit %d: %s" % (i, r.returncode, r.stderr.strip()[:200]))
        r = run_pod(merge_cmd, merge_mounts, scratch, {})
        want = "shard %d of %d has not finished" % (n - 1, n)
        if r.returncode != 1 or want not in r.stderr:
            fail("merge with pod %d missing: exit %d, stderr %r" % (n - 1, r.returncode, r.stderr[:200]))
        r = run_pod(cmd, mounts, scratch, {"JOB_COMPLETION_INDEX": str(n - 1)})
        if r.returncode != 0:
            fail("pod %d: exit %d: %s" % (n - 1, r.returncode, r.stderr.strip()[:200]))
        r = run_pod(merge_cmd, merge_mounts, scratch, {})
        if r.returncode != 0:
            fail("merge: exit %d: %s" % (r.returncode, r.stderr.strip()[:200]))
        out = os.path.join(scratch, "results", os.path.relpath(
            [a for a in cmd if a.startswith("out=")][0][4:], [p for p, c in mounts.items() if c == "results"][0]))
        got, expected = files(out), files(one)
        if got != expected or len(expected) < 10:
            fail("the pods' merged files are not one run's: %s" % sorted(set(got) ^ set(expected))[:5])
        else:
            diff = [f for f in expected if not filecmp.cmp(os.path.join(one, f), os.path.join(out, f), shallow=False)]
            if diff:
                fail("differ from one run: %s" % diff[:5])
    finally:
        shutil.rmtree(scratch)
    print("k8s manifests: %d shards and the merge as documented: %s" % (n, "failed" if failures else "same bytes as one run"))


main()
sys.exit(1 if failures else 0)
