"""ANALYSES.md 5.2 and 5.4 written again in Python from the text, for the
check.py of predict's golden cases (v100_seed by default: 80 SMs,
25165824 B of L2, 809 GB/s DRAM, 2888 GB/s L2; shmem false as on traces)."""


def r32(x):
    return (x + 31) // 32 * 32


def fwd_model(B, E, T, L, D, R, sms=80, l2_bytes=25165824, bw=809.0, l2_bw=2888.0):
    A = min(l2_bytes // -(-sms * R // B), E * D * 4)
    X = (A - r32(4 * L)) // 4 // D
    h = 1.0
    for i in range(B):
        h = h * ((X - i) / (E - i))
    il2 = r32(4 * L) if D * R >= 4096 else 0
    W, O, I = L * r32(4 * D), r32(4 * D), r32(4 * L)
    l2 = T * ((64 + il2) * B + h * (W * B - A))
    dram = T * ((I + O) * B + (1 - h) * (W * B - A) + A)
    return max(dram / bw / 1000, l2 / l2_bw / 1000)


def adagrad_model(B, T, L, D, bw=809.0):
    r = r32(4 * D)
    return B * T * (64 + 2 * r32(4 * L) + L * r + (L + 1) * r + L * r) / bw / 1000
