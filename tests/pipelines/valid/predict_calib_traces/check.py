"""Leave one trace out over three copies of the hand trace: each fold's curve is the
full fit's IRLS fixed point (t0 4.0016, slope 2.0008); errors recomputed in Python."""
import csv
import math
import sys

row = next(csv.DictReader(open(sys.argv[1] + "/pred.calibration.csv")))
bounds = [0.25, 2, 16, 128]
meas = [4 + 2 * b for b in bounds] * 2 + [1.25 * (4 + 2 * b) for b in bounds]
errs = [abs(4.0016 + 2.0008 * b - m) / m for b, m in zip(bounds * 3, meas)] * 3
gmae = 100 * math.exp(sum(math.log(e) for e in errs) / len(errs))
for col, want in (("holdout", "trace"), ("n_groups", "3"), ("count", "36")):
    assert row[col] == want, (col, row[col])
for col, want in (("t0_us", 4.0016), ("slope", 2.0008), ("gmae_percent", gmae),
                  ("mean_error_percent", 100 * sum(errs) / len(errs))):
    assert abs(float(row[col]) - want) <= 1e-8 * want, (col, row[col], want)
print(f"leave one trace out: GMAE {gmae:.5f} % over {len(errs)} ops: agree")
