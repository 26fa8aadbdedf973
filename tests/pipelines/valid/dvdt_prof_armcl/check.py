"""Independent reading of the dvdt-prof profile."""
import csv, json, os, sys

recs = json.load(open("tests/data/dvdt_prof/armcl_mali_tmp-dvdt-prof.json"))
out = sys.argv[1]
sticky, want_args, per = {}, [], {}
for r in recs:
    if r["call"] == "clCreateKernel":
        sticky = {k: v for k, v in sticky.items() if k[0] != r["kernel"]}
    elif r["call"] == "clSetKernelArg":
        sticky[(r["kernel"], r["arg_index"])] = r["arg_value"]
    elif r["call"] == "clEnqueueNDRangeKernel":
        p = r["profiling"]
        w = per.setdefault(r["name"], [0, 0]); w[0] += 1; w[1] += p["end"] - p["start"]
        want_args.append({str(i): v for (k, i), v in sticky.items() if k == r["kernel"]})
assert sum(v[1] for v in per.values()) == 38604622
rows = {r["name"]: r for r in csv.DictReader(open(os.path.join(out, "ks.csv")))}
assert set(rows) == set(per), (sorted(rows), sorted(per))
for name, (n, ns) in per.items():
    assert int(rows[name]["count"]) == n and abs(float(rows[name]["sum_us"]) - ns / 1000) < 1e-6, name
kernels = [e for e in json.load(open(os.path.join(out, "trace.json")))["traceEvents"]
           if e.get("cat") == "opencl_kernel"]
kernels.sort(key=lambda e: e["args"]["queued"])
assert [e["args"]["args"] for e in kernels] == want_args
launches = {r["measure"]: r for r in csv.DictReader(open(os.path.join(out, "ls.csv")))}
assert int(launches["gpu_duration"]["count"]) == 100
print("dvdt_prof_armcl: %d kernels of %d names and their sticky arguments checked" % (len(kernels), len(per)))
