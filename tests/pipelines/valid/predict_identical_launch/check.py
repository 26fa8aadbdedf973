"""predict_identical_launch, independently: the identical-launch kernels by
tests/tools/check_launch.py (its own Python version of the rule), and the hand-computed
figures of pipeline.yaml."""
import csv, math, os, sys
sys.path.insert(0, "tests/tools")
import check_launch  # noqa: E402

out = sys.argv[1]
trace = "tests/data/hand/predict_identical_launch.json"
assert check_launch.check(os.path.join(out, "pred.csv"), trace) == 1
rows = list(csv.DictReader(open(os.path.join(out, "pred.csv"))))
got = {(r["model"], float(r["measured_us"])): float(r["predicted_us"]) for r in rows}
want = {("tensor_list_bytes", 5): 1.048576, ("tensor_list_bytes", 3): 0.004096,
        ("tensor_list_bytes", 2): 0.008192, ("identical_launch", 4): 1.048576}
assert set(got) == set(want) and all(math.isclose(got[k], want[k], rel_tol=1e-12) for k in want), got
why = {r["reason"]: (int(r["count"]), float(r["gpu_us"]))
       for r in csv.DictReader(open(os.path.join(out, "pred.unmodelled.csv")))}
assert why == {"GPU activity no op launched": (3, 6.0)}, why
cat = {r["category"]: r for r in csv.DictReader(open(os.path.join(out, "pred.categories.csv")))}
e, a = cat["elementwise"], cat["(all)"]
assert float(e["gpu_us"]) == 14 and float(e["modelled_us"]) == 14 and float(e["identical_launch_us"]) == 4
assert float(cat["other"]["gpu_us"]) == 6 and float(a["gpu_us"]) == 20 and float(a["modelled_us"]) == 14
assert float(a["identical_launch_us"]) == 4
print("predict_identical_launch: 1 kernel by identical launch, 3 left unmodelled; figures agree")
