"""The DLRM step's per-kernel FLOPs and bytes (gemm_kernels) add up to the
per-op ones (gemm_throughput: count x flop per call, for products whose kernels
ran), and every kernel's rate lies within the range of the ops' rates."""
import csv, os, sys
out = sys.argv[1]
ks = list(csv.DictReader(open(os.path.join(out, "dlrm_kernels.csv"))))
ops = list(csv.DictReader(open(os.path.join(out, "dlrm_ops.csv"))))
kf = sum(float(r["flop"]) for r in ks)
kb = sum(float(r["bytes"]) for r in ks)
ran = [r for r in ops if r["role"] == "product" and r["busy_us"] and float(r["busy_us"]) > 0]
of = sum(int(r["count"]) * float(r["flop"]) for r in ran)
ob = sum(int(r["count"]) * float(r["bytes"]) for r in ran)
assert ks and abs(kf - of) <= 1e-9 * of, (kf, of)
assert abs(kb - ob) <= 1e-9 * ob, (kb, ob)
print("gemm_kernel_shares: %d kernels, %d ops, %.6g FLOP on both sides" % (len(ks), len(ran), kf))
