"""csv_table_seed004: the table handed over as a csv_table result gives the
same predictions.json as predict reading the file (seed004_predictors), and
Q1-Q9 are ANALYSES.md 5.5's values bit for bit (Q9: its error)."""
import json, os, sys
out = sys.argv[1]
got = open(os.path.join(out, "predictions.json"), "rb").read()
want = open("tests/pipelines/valid/seed004_predictors/expected/predictions.json", "rb").read()
assert got == want, "predictions.json differs from seed004_predictors'"
Q = {"Q1": 129.94, "Q2": 14.873678827139448, "Q3": 34.091428571428565, "Q4": 4040.5409338799136,
     "Q7": 227.37134562166088, "Q5": 37.95226886702465, "Q6": 11.421962584187883,
     "Q8": 185.7607371768877}
rows = {r["id"]: r for r in json.loads(got)["predictions"]}
for q, v in Q.items():
    assert rows[q]["predicted_us"] == v, (q, rows[q]["predicted_us"], v)
assert rows["Q9"]["predicted_us"] is None and rows["Q9"]["error"], rows["Q9"]
print("csv_table_seed004: Q1-Q9 as ANALYSES.md 5.5, same bytes as the file-based run")
