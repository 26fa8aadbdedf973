import csv, math, sys
out = sys.argv[1]
steps = list(csv.DictReader(open(out + "/serving.steps.csv")))
its = list(csv.DictReader(open(out + "/it.csv")))
devs = {d["iteration"]: d for d in csv.DictReader(open(out + "/it.devices.csv"))}
assert len(steps) == len(its) == 5, (len(steps), len(its))
for s, i in zip(steps, its):
    assert s["name"] == i["name"] == "saxpy"
    for a, b in (("start_us", "start_us"), ("host_us", "dur_us"), ("count", "count"),
                 ("gpu_busy_us", "gpu_busy_us"), ("gpu_span_us", "gpu_span_us")):
        assert (s[a] == "" and i[b] == "") or math.isclose(float(s[a]), float(i[b])), (a, s[a], i[b])
    assert s["phase"] == s["batch_size"] == s["tokens"] == ""
    d = devs[s["iteration"]]
    gpu_end = float(d["gpu_start_us"]) + float(d["gpu_span_us"])
    assert math.isclose(float(s["wall_us"]), max(float(i["end_us"]), gpu_end) - float(i["start_us"])), s
print("inference_nsys_nvtx: 5 saxpy steps agree with iterations")
