"""predict_models_lists, independently: every tensor-list prediction from the op's args by
tests/tools/check_models.py, and the hand-computed figures of pipeline.yaml."""
import csv, math, os, sys
sys.path.insert(0, "tests/tools")
import check_models  # noqa: E402

out = sys.argv[1]
trace = "tests/data/hand/predict_models_lists.json"
assert check_models.check(os.path.join(out, "pred.csv"), trace, "b200") == 3
got = sorted(float(r["predicted_us"]) for r in csv.DictReader(open(os.path.join(out, "pred.csv"))))
want = [0.000128, 0.008192, 2.097152]
assert all(math.isclose(a, b, rel_tol=1e-12) for a, b in zip(got, want)) and len(got) == 3, got
why = {r["reason"]: float(r["gpu_us"]) for r in csv.DictReader(open(os.path.join(out, "pred.unmodelled.csv")))}
assert why == {"a tensor list (its shapes are not written)": 4, "GPU activity no op launched": 10}, why
rows = {r["category"]: r for r in csv.DictReader(open(os.path.join(out, "pred.categories.csv")))}
assert float(rows["elementwise"]["gpu_us"]) == 14 and float(rows["elementwise"]["modelled_us"]) == 10
print("predict_models_lists: 3 predictions agree; unmodelled time by reason adds up")
