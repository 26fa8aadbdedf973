"""Independent check of the trimmed Python-stack trace: every host event of
the original that overlaps the step's window is kept, cut to the window; the
Python frames enclosing the step come out exactly as long as the step."""
import gzip, json, os, sys

src = json.load(gzip.open("tests/data/kineto/corpus/tracelens_h100_bert_small.json.gz"))["traceEvents"]
GPU = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation"}
out = json.load(open(os.path.join(sys.argv[1], "trimmed.json")))["traceEvents"]

step = [e for e in src if e.get("name", "").startswith("ProfilerStep#") and e.get("ph") == "X"
        and e.get("cat") not in GPU]
assert len(step) == 1, step
ws, we = step[0]["ts"], step[0]["ts"] + step[0]["dur"]
assert abs((we - ws) - 4426.114) < 1e-3, we - ws
ns = lambda us: round(us * 1000)  # compare times in integer ns

def host(e):
    return e.get("ph") == "X" and e.get("cat") not in GPU and e.get("cat") != "Trace"

want = {}
for e in src:
    if host(e) and e["ts"] < we and e["ts"] + e["dur"] > ws:
        a, b = max(e["ts"], ws), min(e["ts"] + e["dur"], we)
        want[(e["name"], ns(a))] = b - a
got = {(e["name"], ns(e["ts"])): e["dur"] for e in out if host(e)}
assert len(got) == len(want), (len(got), len(want))
for k, d in want.items():
    assert abs(got[k] - d) < 1e-3, (k, got[k], d)
enclosing = [e for e in src if host(e) and e.get("cat") == "python_function"
             and e["ts"] <= ws and e["ts"] + e["dur"] >= we]
assert enclosing, "no Python frame encloses the step"
for e in enclosing:
    assert abs(got[(e["name"], ns(ws))] - (we - ws)) < 1e-3, e["name"]
assert not any(e["ts"] >= we for e in out if host(e))  # the trailing cudaDeviceSynchronize
print("python_stacks_trimmed: %d host events kept, %d enclosing Python frames cut to %.3f us"
      % (len(got), len(enclosing), we - ws))
