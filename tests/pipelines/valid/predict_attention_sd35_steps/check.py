"""Leave one denoising step out on SD 3.5 (pipeline.yaml): each attention call's step from
the `Torch-Compiled Region` op holding its start, the fit, folds and GMAE recomputed from the
JSON by tests/tools/check_attention_calib.py."""
import csv
import os
import sys

sys.path.insert(0, "tests/tools")
import check_attention_calib as cac  # noqa: E402
import check_models as cm  # noqa: E402

TRACE = "tests/data/kineto/attention/tracelens_mi300x_xdit_sd35.json.gz"
steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in cm.load(TRACE)
               if e.get("cat") == "cpu_op" and e["name"].startswith("Torch-Compiled Region"))


def step(op):
    return next((i for i, (a, b) in enumerate(steps) if a <= op["ts"] < b), None)


s, _ = cac.samples(TRACE, "mi300x", step)
rows = csv.DictReader(open(os.path.join(sys.argv[1], "cal.calibration.csv")))
row = next(r for r in rows if r["category"] == "attention")
t0, sl, g = cac.check_row(row, s, cm.PRESETS["mi300x"]["floor"], "iteration")
print(f"SD 3.5 attention, leave one of {len(steps)} steps out: t0 {t0:.4f} us, slope {sl:.4f}, "
      f"GMAE {g:.2f} % over {sum(x[3] is not None for x in s)} calls: agree")
