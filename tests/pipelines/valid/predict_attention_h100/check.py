"""Attention out of sample on the three H100 traces (pipeline.yaml): the samples, fit,
leave-one-trace-out GMAE and attention time recomputed from the JSON
(tests/tools/check_attention_calib.py); every prediction of the issue-27 models checked by
tests/tools/check_models.py; and the FLOPs and bytes of each shape against TraceLens's own
figures for these traces (AMD-AGI/TraceLens tests/traces/h100/<model>_perf_report_csvs/
SDPA_fwd.csv at 171dd747: GFLOPS_first, Data Moved (MB)_first)."""
import csv
import os
import sys

sys.path.insert(0, "tests/tools")
import check_attention_calib as cac  # noqa: E402
import check_models as cm  # noqa: E402

out = sys.argv[1]
TRACES = (("bert", "tests/data/kineto/corpus/tracelens_h100_bert_small.json.gz"),
          ("vit", "tests/data/kineto/attention/tracelens_h100_falconsai_vit.json.gz"),
          ("qwen", "tests/data/kineto/attention/tracelens_h100_qwen15_05b_chat.json.gz"))
# TraceLens SDPA_fwd.csv: (B, N, H, d, causal) -> (GFLOPS_first, Data Moved (MB)_first)
TRACELENS = {(1, 141, 8, 64, False): (0.040716288, 0.55078125),
             (4, 197, 12, 64, False): (0.476884992, 4.6171875),
             (16, 559, 16, 64, True): (10.239377408, 69.875)}

s, agree = cac.check_traces(out, TRACES, "h100_sxm5_80gb")
for label, path in TRACES:
    for e in cm.load(path):
        if e.get("name") == "aten::_flash_attention_forward":
            a = e["args"]
            B, N, H, d = a["Input Dims"][0]
            gf, mb = TRACELENS[(B, N, H, d, a["Concrete Inputs"][8] == "True")]
            c = cm.cost(e["name"], a)
            cac.close(c[1], gf * 1e9, label + " flops vs TraceLens")
            cac.close(c[2], mb * 2 ** 20, label + " bytes vs TraceLens")
rows = csv.DictReader(open(os.path.join(out, "cal.calibration.csv")))
row = next(r for r in rows if r["category"] == "attention")
t0, sl, g = cac.check_row(row, s, cm.PRESETS["h100_sxm5_80gb"]["floor"])
print(f"H100 attention, leave one trace out: t0 {t0:.4f} us, slope {sl:.4f}, "
      f"GMAE {g:.2f} % over {len(s)} calls: agree; check_models.py: {agree} rows agree")
