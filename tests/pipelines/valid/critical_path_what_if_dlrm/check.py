"""critical_path_what_if_dlrm: the communication: and host: what-ifs change the replay as
they must on DLRM rank 0 (see pipeline.yaml); fails if either key were ignored."""
import csv, os, sys

out = sys.argv[1]
rows = {r["name"]: r for r in csv.DictReader(open(os.path.join(out, "cp.what_if.csv"))) if r["iteration"] == ""}
bound = {r["category"]: float(r["on_path_us"]) for r in csv.DictReader(open(os.path.join(out, "cp.bound_by.csv"))) if r["iteration"] == ""}
t = lambda n: float(rows[n]["replayed_us"])
measured = float(rows["host_half"]["measured_us"])
assert bound["communication"] == 0 and t("comm_hidden") == measured, "communication is not on the measured path"
assert t("host_half") < measured * 0.7, "host: 0.5 had no effect"
comm_on_path = float(rows["host_half"]["communication_percent"]) / 100 * t("host_half")
assert comm_on_path > 1000, comm_on_path
for n in ("host_half_comm_hidden", "host_half_comm_2x", "host_half_comm_class_half"):
    assert t(n) < t("host_half"), f"{n}: communication had no effect"
    assert t(n) >= t("host_half") - comm_on_path, f"{n}: saved more than the path's communication"
for r in rows.values():
    pct = sum(float(r[k]) for k in r if k.endswith("_percent"))
    assert abs(pct - 100) < 1e-9, (r["name"], pct)
print(f"critical_path_what_if_dlrm: host_half {t('host_half')} us, with communication hidden {t('host_half_comm_hidden')} us")
