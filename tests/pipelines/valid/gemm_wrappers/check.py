"""The hand trace's GEMM accounting recomputed independently
(tests/tools/check_gemm.py) and its figures by hand."""
import csv, os, sys
sys.path.insert(0, "tests/tools")
from check_gemm import check

out = sys.argv[1]
gt = {(r["name"], r["role"]): r for r in csv.DictReader(open(os.path.join(out, "gt.csv")))}
gk = {r["name"]: r for r in csv.DictReader(open(os.path.join(out, "gk.csv")))}
F1, B1 = 2 * 4096 ** 3 + 4096 ** 2, (3 * 4096 ** 2 + 4096) * 2
F2, B2 = 16 * 2 * 512 * 512 * 64, 16 * (2 * 512 * 64 + 512 * 512) * 2
close = lambda a, b: abs(float(a) - b) <= 1e-9 * abs(b)
roof1, roof2 = max(F1 / 989400, B1 / 3350) / 1000, max(F2 / 989400, B2 / 3350) / 1000
for key, f, b, busy, roof in [(("aten::addmm", "product"), F1, B1, 160, roof1),
                              (("aten::linear", "wrapper"), F1, B1, 174, roof1),
                              (("aten::bmm", "product"), F2, B2, 5, roof2),
                              (("aten::matmul", "wrapper"), F2, B2, 7, roof2)]:
    r = gt[key]
    assert close(r["flop"], f) and close(r["bytes"], b) and close(r["busy_us"], busy), r
    assert close(r["achieved_tflops"], f / busy / 1e6), r
    assert close(r["roofline_percent"], roof / busy * 100), r
assert set(gk) == {"sm90_gemm_bf16_256x128", "sm90_bmm_bf16_128x128"}, gk
assert close(gk["sm90_gemm_bf16_256x128"]["flop"], F1) and close(gk["sm90_bmm_bf16_128x128"]["flop"], F2)
trace = "tests/data/hand/gemm_wrappers.json"
n, p, f, worst = check(trace, out, ("gt.csv",))  # gt has the H100 preset here
assert (n, p, f) == (4, 2, F1 + F2), (n, p, f)
print("gemm_wrappers: %d calls, %d products, %d flop, max roofline %.2f %%" % (n, p, f, worst))
