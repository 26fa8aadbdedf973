"""Attention out of sample on the five MI300X traces (pipeline.yaml): samples, fit,
leave-one-trace-out GMAE, each trace's modelled attention time and GPU time recomputed
from the JSON (tests/tools/check_attention_calib.py); every prediction of the issue-27
models checked by tests/tools/check_models.py."""
import csv
import os
import sys

sys.path.insert(0, "tests/tools")
import check_attention_calib as cac  # noqa: E402
import check_models as cm  # noqa: E402

out = sys.argv[1]
A = "tests/data/kineto/attention/tracelens_"
TRACES = (("bert", A + "mi300xvf_bert_small.json.gz"), ("vit", A + "mi300xvf_falconsai_vit.json.gz"),
          ("qwen", A + "mi300xvf_qwen15_05b_chat.json.gz"), ("sd35", A + "mi300x_xdit_sd35.json.gz"),
          ("compile", A + "mi300x_compile_sdpa.json.gz"))
s, agree = cac.check_traces(out, TRACES, "mi300x")
for table, groups in (("cal", None), ("cal_vf", ("bert", "vit", "qwen"))):
    rows = csv.DictReader(open(os.path.join(out, table + ".calibration.csv")))
    row = next(r for r in rows if r["category"] == "attention")
    part = [x for x in s if groups is None or x[3] in groups]
    t0, sl, g = cac.check_row(row, part, cm.PRESETS["mi300x"]["floor"])
    print(f"MI300X attention ({table}), leave one trace out: t0 {t0:.4f} us, slope {sl:.4f}, "
          f"GMAE {g:.2f} % over {len(part)} calls: agree")
print(f"check_models.py: {agree} rows agree")
